"""The page shell every study's report shares: one self-contained HTML page (no external
CSS, JS or font) in a fixed order: key findings in words, which model (and what it is
not), the study's body, how to read the numbers, and the settings, collapsed, at the end.
Every piece of text from the data goes through :func:`esc`.
"""

from __future__ import annotations

import html
from string import Template
from typing import Any, Callable, Mapping, Sequence


def esc(value: object) -> str:
    """HTML-escape text and attribute values (quotes too).

    >>> esc('"faggots" & <b>')
    '&quot;faggots&quot; &amp; &lt;b&gt;'
    """
    return html.escape(str(value), quote=True)


CSS = """
body{font-family:"DejaVu Sans",Verdana,Arial,sans-serif;margin:0 auto;max-width:1180px;padding:16px 28px;color:#222;line-height:1.45}
h1{font-size:26px;margin:8px 0 4px}h2{font-size:21px;margin:22px 0 6px}h3{font-size:16px;margin:10px 0 6px}
.meta{color:#555;font-size:14px}.findings{font-size:16px;border:2px solid #333;padding:6px 16px;margin:12px 0}
.findings li{margin:4px 0}.model{background:#fff6e0;border-left:5px solid #8a5a00;padding:8px 14px;font-size:14px}
.note{background:#f6f6f2;border-left:4px solid #777;padding:6px 14px;font-size:14px}
dl.settings{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;font-size:13px;color:#444}
dl.settings dt{font-weight:bold}dl.settings dd{margin:0}
table{border-collapse:collapse;font-size:14px;margin:6px 0}th,td{padding:3px 9px;border-bottom:1px solid #ddd;text-align:left;vertical-align:top}
caption{text-align:left;font-weight:bold;padding:4px 0;font-size:14px}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
section.group{border-top:2px solid #333;margin-top:28px;padding-top:4px}
.row{display:flex;gap:24px;align-items:flex-start;flex-wrap:wrap}img{max-width:100%}
.clouds{display:flex;gap:14px;flex-wrap:wrap}.clouds figure{margin:0;flex:1;min-width:280px;max-width:440px}
.clouds img{width:100%;border:1px solid #e3e3e3}figcaption{font-size:13px;color:#444}
.legend span{display:inline-block;width:12px;height:12px;margin:0 4px 0 12px;vertical-align:-1px}
.legend{font-size:13px;color:#444;margin:4px 0}
.words{display:flex;gap:32px;flex-wrap:wrap;align-self:flex-start}.words ol{margin:0;padding-left:22px;font-size:14px}
.small{font-size:13px;color:#555}.flag{font-size:12px;color:#555}
details{margin:8px 0}summary{cursor:pointer;font-weight:bold;font-size:14px}
.w-positive,.p{color:var(--pos)}.w-negative,.n{color:var(--neg)}.o{color:#555}
.probes td{font-size:13px}
figure.big{margin:10px 0}figure.big img{border:1px solid #e3e3e3;max-width:min(100%,900px)}figure.cloud img{max-width:min(100%,760px)}
@media print{body{max-width:none;padding:0;font-size:10pt}nav,.toplink,section.group .legend{display:none}
 .head,.clouds{break-inside:avoid}section.group{margin-top:12px}h2,h3{break-after:avoid}
 details.probes,details.syn{display:none}
 .clouds{flex-wrap:nowrap;gap:8px}.clouds figure{min-width:0;max-width:32%}.words{flex-direction:column;gap:4px}
 .words ol{font-size:9pt;padding-left:18px}h3{font-size:11pt;margin:2px 0}
 figure.big{break-inside:avoid}figure.big img{max-height:24cm}a{color:inherit;text-decoration:none}}
"""

PAGE = Template(
    """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>$title</title><style>:root{--pos:$pos;--neg:$neg}$css</style></head>
<body id="top">
<nav class="small">$nav</nav>
<main>
<h1>$title</h1>
<p class="meta">$meta</p>
<section class="findings" aria-labelledby="findings"><h2 id="findings">Key findings</h2><ul>$findings</ul></section>
<p class="model"><strong>Which model.</strong> $model</p>
$body
<h2 id="about">How to read these numbers</h2>
<div class="note">$note</div>
<details class="settings"><summary>Model, date and probe settings</summary>$settings</details>
</main>
</body></html>
"""
)


def table(rows: Any, columns: Sequence[tuple[str, str]], caption: str,
          fmt: str | Callable[[str], str] = "{:.1f}", cls: str = "") -> str:
    """A study page's table: ``columns`` as (column, heading); a float cell written with ``fmt`` (a
    format, or a function of the column's name giving one), an en dash where it is missing; numbers
    right-aligned (``num``); text escaped.

    >>> import pandas as pd
    >>> table(pd.DataFrame({"job": ["nurse"], "n": [3], "p": [0.01234]}), [("job", "job"), ("n", "texts"),
    ...       ("p", "p")], "A <caption>", lambda col: "{:.2g}" if col == "p" else "{:.1f}")
    '<table><caption>A &lt;caption&gt;</caption><thead><tr><th>job</th><th>texts</th><th>p</th></tr></thead><tbody><tr><td>nurse</td><td class="num">3</td><td class="num">0.012</td></tr></tbody></table>'
    """
    from stereoprobe.page.numbers import number

    form = fmt if callable(fmt) else (lambda col: fmt)
    head = "".join(f"<th>{esc(label)}</th>" for _, label in columns)
    body = []
    for r in rows.to_dict("records"):
        cells = []
        for col, _ in columns:
            v = r.get(col, "")
            if isinstance(v, float):
                cells.append(f'<td class="num">{number(v, form(col))}</td>')
            elif isinstance(v, int) and not isinstance(v, bool):
                cells.append(f'<td class="num">{v}</td>')
            else:
                cells.append(f"<td>{esc(v)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    attr = f' class="{esc(cls)}"' if cls else ""
    return (f"<table{attr}><caption>{esc(caption)}</caption><thead><tr>{head}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>")


def settings_html(settings: Sequence[tuple[str, str]]) -> str:
    items = "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in settings)
    return f'<dl class="settings">{items}</dl>'


def fill_shell(title: str, meta: str, findings: Sequence[str], model: str, body: str, note: str,
               settings: Sequence[tuple[str, str]], css: str = CSS, nav: str = "") -> str:
    """The page in the shell: ``title``, each of ``findings`` (one item each) and ``model``
    are escaped here; ``meta`` (see :func:`meta_line`), ``body``, ``note`` and ``nav`` are
    HTML already; ``settings`` as :func:`settings_html`; the active palette's colours."""
    from stereoprobe.page.palette import colour

    return PAGE.substitute(
        title=esc(title), nav=nav, meta=meta, findings="".join(f"<li>{esc(f)}</li>" for f in findings),
        model=esc(model), body=body, note=note, settings=settings_html(settings), css=css,
        pos=colour("positive"), neg=colour("negative"))


def meta_line(meta: Mapping[str, Any], *parts: object) -> str:
    """The line under a report's title: the model, ``parts``, when it was scored, and whether
    the run's collect had stopped before the end (``collect_status``); escaped.

    >>> meta_line({"model": "m<1>", "created_at": "2026-01-01"}, "chat mode")
    'm&lt;1&gt; · chat mode · scored 2026-01-01'
    >>> meta_line({"model": "m", "created_at": "2026-01-01", "collect_status": "stopped"}).split(" · ")[2]
    '<strong>its collect did not finish: these numbers are of the prompts answered so far</strong>'
    """
    from stereoprobe.manifest import unfinished

    line = " · ".join(esc(p) for p in (meta.get("model"), *parts, f"scored {meta.get('created_at')}"))
    if unfinished(meta.get("collect_status")):
        line += (" · <strong>its collect did not finish: these numbers are of the prompts answered so far"
                 "</strong>")
    return line

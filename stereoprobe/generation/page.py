"""What every generation study's page shows of its texts: a sample per group with the words
that decided each text's class marked, and the texts that were not classified.

``evidence_html(text, evidence)`` marks each evidence word (whole words, as written) in an
escaped text; ``sample_rows(frame, per_group, seed)`` picks up to ``per_group`` texts of
each group (classified ones first, a fixed seed so the page repeats); ``texts_section``
renders them as a table, one block per group.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

from stereoprobe.page.shell import esc

MARK_STYLE = "background:#fde2b8;padding:0 1px;border-radius:2px"


def at_level(text: str, meta: dict[str, Any]) -> str:
    """A page's own wording of its intervals ("95% interval", "95% low", "(95%)") at the level the run
    was scored with (``score --ci``, ``meta.json``'s ``statistics.level``).

    >>> at_level("with its 95% interval; 95% low", {"statistics": {"level": 0.8}})
    'with its 80% interval; 80% low'
    >>> at_level("the intervals (95%) say", {})
    'the intervals (95%) say'
    """
    level = (meta.get("statistics") or {}).get("level", 0.95)
    shown = f"{100 * float(level):.1f}".removesuffix(".0") + "%"
    return re.sub(r"95%(?= interval| low| high|\))", shown, text)


def evidence_html(text: str, evidence: Sequence[str]) -> str:
    """The text, escaped, with the evidence words marked.

    >>> evidence_html("Sarah <b> said she", ["Sarah", "she"])
    '<mark>Sarah</mark> &lt;b&gt; said <mark>she</mark>'
    """
    words = sorted({w for w in evidence if w}, key=len, reverse=True)
    if not words:
        return esc(text)
    pattern = re.compile(r"\b(" + "|".join(re.escape(w) for w in words) + r")\b")
    out, last = [], 0
    for m in pattern.finditer(text):
        out.append(esc(text[last:m.start()]))
        out.append(f"<mark>{esc(m.group(0))}</mark>")
        last = m.end()
    out.append(esc(text[last:]))
    return "".join(out)


def sample_rows(frame: Any, per_group: int = 3, seed: int = 0, by: str = "group") -> Any:
    """Up to ``per_group`` texts per group: classified texts first, then the others."""
    import pandas as pd

    if not len(frame):
        return frame
    shuffled = frame.sample(frac=1.0, random_state=seed)
    shuffled = shuffled.assign(_first=(shuffled.status != "ok").astype(int)).sort_values("_first", kind="stable")
    picked = shuffled.groupby(by, sort=False).head(per_group).drop(columns="_first")
    order = {g: i for i, g in enumerate(pd.unique(frame[by]))}
    return picked.sort_values(by, key=lambda s: s.map(order), kind="stable")


def texts_section(rows: Any, by: str = "group", heading: str = "profession") -> str:
    """A table of sampled texts: group, class (or why none), the text with its evidence marked."""
    cells = []
    for _, r in rows.iterrows():
        label = r.label if r.status == "ok" else f"not classified: {r.status}"
        evidence = str(r.evidence).split() if isinstance(r.evidence, str) else []
        cells.append(f"<tr><td>{esc(r[by])}</td><td>{esc(r.get('variant', '') or '')}</td><td>{esc(label)}</td>"
                     f"<td>{evidence_html(str(r.text or ''), evidence)}</td></tr>")
    return (f'<style>mark{{{MARK_STYLE}}}</style><table class="texts"><thead><tr><th>{esc(heading)}</th><th></th>'
            "<th>class</th><th>text (the deciding words marked)</th></tr></thead><tbody>" + "".join(cells)
            + "</tbody></table>")

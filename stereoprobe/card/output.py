"""The card written: ``card.json`` (schema ``card.schema.json`` beside this module, documented
in docs/card.md), ``card.md``, ``forest.png`` and ``index.html``, as one folder written all or
nothing (``store.replace_folder``); a folder that holds something else is never replaced.

In ``card.json`` every number is on the gate's scale (shares 0-1, as ``stereoprobe gate
--format json`` prints them), a missing number is ``null``, and a scope is an object of the
gate's scope keys, so a leaderboard can join cards on (study, metric, scope).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from stereoprobe.card import words
from stereoprobe.card.records import Card

SCHEMA = "stereoprobe-card/1"
SCHEMA_FILE = Path(__file__).with_name("card.schema.json")


def _num(x: float | None) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x) + 0.0  # no -0.0


def _rel(path: Path | None, base: Path) -> str | None:
    import os

    return None if path is None else os.path.relpath(path.resolve(), base.resolve())


def to_dict(card: Card, out: Path) -> dict[str, Any]:
    """``card.json``'s content (``out``: the card folder the paths are relative to)."""
    models = [{"name": m.name, "suite": str(m.folder), "design": m.design, "backend": dict(m.backend),
               "studies": [{"key": s.key, "study": s.study, "title": s.title, "run": _rel(s.run, out),
                            "state": s.state, "design": s.design or None, "demonstration": s.demonstration,
                            "error": s.error, "page": _rel(s.page, out), "design_cost": s.cost,
                            "design_width": _num(s.width)}
                           for s in m.studies]}
              for m in card.models]
    values = [{"model": v.model, "study_key": v.key, "study": v.study, "metric": v.metric, "scope": dict(v.scope),
               "label": v.label, "kind": v.kind, "unit": v.unit, "value": _num(v.value), "low": _num(v.low),
               "high": _num(v.high), "n": v.n, "counted": v.counted, "sentence": v.sentence, "paper": v.paper, "paper_note": v.paper_note}
              for v in card.values]
    diffs = [{"model": d.model, "baseline": d.baseline, "study_key": d.key, "study": d.study, "metric": d.metric,
              "scope": dict(d.scope), "label": d.label, "kind": d.kind, "difference": _num(d.difference),
              "low": _num(d.low), "high": _num(d.high), "n": d.n, "p": _num(d.p), "p_adjusted": _num(d.p_adjusted),
              "flagged": d.flagged}
             for d in card.differences]
    pairings = [{"model": p.model, "baseline": p.baseline, "study_key": p.key, "paired": p.paired,
                 "reason": p.reason or None} for p in card.pairings]
    f = card.family
    return {"schema": SCHEMA, "stereoprobe_version": card.stereoprobe_version, "created_at": card.created_at,
            "summary": words.summary(card),
            "family": {"method": f.method, "alpha": f.alpha, "size": f.size, "what": f.what},
            "models": models, "values": values, "differences": diffs, "pairings": pairings}


def check_schema(data: dict[str, Any]) -> None:
    """Raise ``jsonschema.ValidationError`` where ``data`` does not follow ``card.schema.json``."""
    import jsonschema

    jsonschema.validate(data, json.loads(SCHEMA_FILE.read_text(encoding="utf-8")))


def _cell(text: str) -> str:
    """A table cell: a "|" in it (a model named "org/m|v2") would end the cell."""
    return text.replace("|", "\\|")


def to_markdown(card: Card) -> str:
    """``card.md``: the findings, then one table per study (a column per model, then each
    model's difference from the first with its adjusted p)."""
    names = [m.name for m in card.models]
    lines = [f"# Bias card: {words.listing(names)}", ""]
    lines += [f"- {s}" for s in words.summary(card)] + [""]
    for key in card.keys:
        rows = [r for r in card.rows if r[0] == key]
        run = next(s for m in card.models for s in m.studies if s.key == key)
        title = run.title if key == run.study else words.SUBTITLES.get(key, run.title)
        lines += [f"## {words.HEADINGS.get(key, run.title)}", "", title, ""]
        lines += [f"{m.name}: {s.cost}" for m in card.models for s in m.studies if s.key == key and s.cost]
        lines += [f"{m.name}: a demonstration: {s.demonstration}" for m in card.models for s in m.studies
                  if s.key == key and s.demonstration]
        lines += [f"{m.name}: failed in its suite, not on the card: {s.error}" for m in card.models for s in m.studies
                  if s.key == key and s.error]  # as the page says it ("Failed on model-a: ...")
        lines += [""] if any(s.key == key and (s.cost or s.demonstration or s.error) for m in card.models
                             for s in m.studies) else []
        if not rows:
            lines += ["No headline metric on this model.", ""]
            continue
        head = ["metric", *names, *(f"{n} minus {names[0]}" for n in names[1:]), *("adjusted p" for _ in names[1:])]
        lines += ["| " + " | ".join(map(_cell, head)) + " |", "|" + "---|" * len(head)]
        for row in rows:
            label = next(v.label for v in card.values if v.row == row)
            cells = []
            for n in names:
                v = card.value(n, row)
                cells.append(words.shown(v.value, v.low, v.high, v.kind) if v else "–")
            diffs = [card.difference(n, row) for n in names[1:]]
            cells += [(words.difference_text(d) + (" (flagged)" if d.flagged else "")) if d else "not paired"
                      for d in diffs]
            cells += [words.p_text(d.p_adjusted) if d else "–" for d in diffs]
            lines.append("| " + " | ".join(map(_cell, [label, *cells])).replace("\n", " ") + " |")
        lines.append("")
        if len(names) == 1:
            lines += [f"- {v.sentence}" for v in card.values if v.key == key] + [""]
        lines += [f"{p.model}: {p.reason}" for p in card.pairings if p.key == key and not p.paired]
        if any(p.key == key and not p.paired for p in card.pairings):
            lines.append("")
    lines.append(f"Family: Holm over {card.family.size} paired differences, alpha {card.family.alpha:g} "
                 "(docs/card.md). Made " + f"{card.created_at} with stereoprobe {card.stereoprobe_version}.")
    return "\n".join(lines) + "\n"


def _ours(path: Path) -> bool:
    if not any(path.iterdir()):
        return True
    try:
        return json.loads((path / "card.json").read_text(encoding="utf-8")).get("schema", "").startswith(
            "stereoprobe-card")
    except (OSError, ValueError, AttributeError):
        return False


def write_card(card: Card, out: Path) -> Path:
    """Write the card folder ``out`` (all or nothing) and return it."""
    from stereoprobe.card.figures import forest
    from stereoprobe.card.page import page_html
    from stereoprobe.page.figures import to_png
    from stereoprobe.store import replace_folder

    fig = forest(card.differences, dict(words.STUDY_NAMES)) if card.differences else None
    png = to_png(fig) if fig is not None else None
    data = to_dict(card, out)
    html = page_html(card, out, png)
    md = to_markdown(card)

    def fill(tmp: Path) -> None:
        (tmp / "card.json").write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        (tmp / "card.md").write_text(md, encoding="utf-8")
        (tmp / "index.html").write_text(html, encoding="utf-8")
        if png is not None:
            (tmp / "forest.png").write_bytes(png)

    replace_folder(out, fill, _ours, "stereoprobe card")
    return out

"""The papers' published figures, and the one rule for printing one beside a run's value.

A page or the card may print a paper's number beside ours **only where the two were
measured the same way**: the run asked the study's ``published`` design (the paper's own
settings, stereoprobe/designs.py) and our value is in the paper's unit. Anywhere else it
prints one line saying why not, never the number (docs/designs.md).

Each study keeps the figures its pages quote in its folder, ``data/paper_figures.csv``
(``Study.paper_figures()``), one row a figure::

    metric,scope,value,unit,model,source,note

- ``metric``: the name of our value it matches (a gate metric's name where there is one);
- ``scope``: ``key=value`` pairs joined by ``;`` (empty: the whole run), as the gate's;
- ``value``: the paper's number, in ``unit`` (``percent``, ``share``, ``NMI``, ``d``, ...);
- ``model``: the model the paper asked; ``source``: paper, table or figure, page;
- ``note``: what a reader needs (e.g. "over all 3,000 samples").

>>> fig = PaperFigure("follows_majority", (), 94.0, "percent", "GPT-4", "Sterlie et al. (2024), section 5.1")
>>> comparable(fig, design="published", unit="percent") is None
True
>>> print(comparable(fig, design="default", unit="percent"))
Sterlie et al. (2024), section 5.1 used the paper's own design; this run asked the default design, so the paper's 94 percent (GPT-4) is not shown beside it.
>>> print(comparable(fig, design="published", unit="share of texts with a gender"))
Sterlie et al. (2024), section 5.1 counts percent; this value is a share of texts with a gender, so the paper's 94 percent (GPT-4) is not shown beside it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

PUBLISHED = "published"
COLUMNS = ("metric", "scope", "value", "unit", "model", "source", "note")


@dataclass(frozen=True)
class PaperFigure:
    metric: str
    scope: tuple[tuple[str, str], ...]
    value: float
    unit: str
    model: str
    source: str
    note: str = ""

    def text(self) -> str:
        """'94 percent (GPT-4)': the figure as a page quotes it."""
        return f"{self.value:g} {self.unit} ({self.model})"


def comparable(figure: PaperFigure, design: str | None, unit: str, figures: str | None = None,
               name: str | None = None) -> str | None:
    """None when ``figure`` may be printed beside a run's value (the run asked the published
    design, and the value is in the figure's unit); else the one line that says why not.
    ``figures``: where a page withholds a whole table of the paper's figures, what to call
    them in that line ("its figures (GPT-4)") instead of quoting one of them; ``name``: the
    same for one figure ("its NMI (GPT-4)"), so that the line does not print the number it
    withholds."""
    withheld = f"{figures} are" if figures else f"{name} is" if name else f"the paper's {figure.text()} is"
    if (design or "default") != PUBLISHED:
        return (f"{figure.source} used the paper's own design; this run asked the {design or 'default'} design, so "
                f"{withheld} not shown beside it.")
    if unit != figure.unit:
        return f"{figure.source} counts {figure.unit}; this value is a {unit}, so {withheld} not shown beside it."
    return None


def pick(figures: list[PaperFigure], metric: str, **scope: str) -> list[PaperFigure]:
    """The figures of ``metric`` whose scope holds every ``key=value`` of ``scope`` (a figure
    may have more keys: ``pick(f, "share_female", profession="nurse")`` gives each model's)."""
    return [f for f in figures if f.metric == metric and all(dict(f.scope).get(k) == v for k, v in scope.items())]


def _scope(text: str) -> tuple[tuple[str, str], ...]:
    pairs = [p.split("=", 1) for p in text.split(";") if p.strip()]
    return tuple((k.strip(), v.strip()) for k, v in pairs)


def read_figures(path: str | Path) -> list[PaperFigure]:
    """A study's ``paper_figures.csv`` (module docstring); a bad row is a one-line DataError."""
    from stereoprobe.datafiles import read_rows
    from stereoprobe.errors import DataError

    out = []
    required = [c for c in COLUMNS if c != "note"]
    for line, row in read_rows(Path(path), required, "a study's published figures"):
        try:
            value = float(row["value"])
        except ValueError:
            raise DataError(f"{path}, line {line}: value {row['value']!r} is not a number; fix that row.") from None
        out.append(PaperFigure(row["metric"], _scope(row.get("scope") or ""), value, row["unit"], row["model"],
                               row["source"], row.get("note") or ""))
    return out


def figures_of(study: Any) -> list[PaperFigure]:
    """The figures ``study`` quotes (its folder's ``data/paper_figures.csv``; none: [])."""
    import importlib.resources

    folder = importlib.resources.files(type(study).__module__)
    path = Path(str(folder)) / "data" / "paper_figures.csv"
    return read_figures(path) if path.is_file() else []

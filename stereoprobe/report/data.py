"""Load a run's sentiment outputs (docs/design.md, "Sentiment outputs") for the report.

The loader is strict about the files and columns the report reads and tolerant of
anything else: extra columns are kept, extra files ignored. It never re-normalises or
re-labels words; word clouds and top-word lists come from ``occurrences.csv``.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from stereoprobe.errors import DataError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

SHARES = (
    "negative",
    "positive",
    "question_negative",
    "question_positive",
    "statement_negative",
    "statement_positive",
)
REQUIRED = {
    "table4.csv": ("category", *SHARES),
    "groups.csv": ("category", "group", *SHARES),
    "templates.csv": ("category", "template", "format", "negative"),
    "occurrences.csv": ("category", "group", "template", "format", "word", "label"),
}
LABELS = ("positive", "negative", "both", "neutral", "unassigned")
LEFT_OUT = ("neutral", "both", "unassigned")  # not in the shares' denominators
ALL = "all"


def _missing(run_dir: Path, what: str) -> DataError:
    return DataError(
        f"{run_dir} has no sentiment results ({what}): run `stereoprobe sentiment {run_dir}` first."
    )


@dataclass(frozen=True)
class Word:
    """A word as it appears in a cloud or a top-word list."""

    word: str
    count: int
    label: str


@dataclass
class SentimentData:
    """A run's sentiment tables as pandas DataFrames, plus its metadata."""

    run_dir: Path
    table4: "pd.DataFrame"
    groups: "pd.DataFrame"
    templates: "pd.DataFrame"
    occurrences: "pd.DataFrame"
    meta: dict[str, Any] = field(default_factory=dict)
    manifest: dict[str, Any] = field(default_factory=dict)
    coverage: dict[str, Any] = field(default_factory=dict)

    # -- what the run was ------------------------------------------------------------
    @property
    def categories(self) -> list[str]:
        """Categories in groups.csv order."""
        return list(dict.fromkeys(self.groups["category"]))

    def group_names(self, category: str) -> list[str]:
        return list(self.groups.loc[self.groups["category"] == category, "group"])

    @property
    def model(self) -> str:
        value = _first([self.meta, self.manifest], ("model", "model_name"))
        if isinstance(value, dict):
            value = value.get("name") or value.get("model") or json.dumps(value, sort_keys=True)
        return str(value) if value else "unknown model"

    @property
    def run_date(self) -> str:
        value = _first(
            [self.meta, self.manifest],
            ("run_started_at", "started_at", "run_started", "created_at", "created"),
        )
        return str(value)[:10] if value else "unknown date"

    def settings(self) -> list[tuple[str, str]]:
        """Probe and scoring settings worth printing, as (name, value) pairs."""
        out: list[tuple[str, str]] = [("model", self.model), ("run date", self.run_date)]
        for key in ("mode", "backend", "endpoint", "samples"):
            if key in self.manifest and self.manifest[key] not in (None, ""):
                out.append((key, _plain(self.manifest[key])))
        if self.meta.get("run_status"):
            out.append(("run status", _plain(self.meta["run_status"])))
        params = self.manifest.get("parameters") or self.manifest.get("settings")
        if isinstance(params, dict):  # scalars only: nested filters and hashes are noise here
            seen = {k for k, _ in out}
            out += [
                (str(k), _plain(v)) for k, v in params.items()
                if k not in seen and v not in (None, "") and not isinstance(v, (dict, list)) and "sha" not in k
            ]
        counts = self.manifest.get("counts")
        if isinstance(counts, dict):
            out.append(("probe results", ", ".join(f"{k} {v}" for k, v in counts.items())))
        lexicon = self.meta.get("lexicon")
        if isinstance(lexicon, dict):
            out.append(("lexicon", _plain(lexicon.get("name") or lexicon)))
        elif lexicon:
            out.append(("lexicon", _plain(lexicon)))
        if "synonyms" in self.meta:
            out.append(("WordNet synonyms", _plain(self.meta["synonyms"])))
        if self.meta.get("overrides"):
            out.append(("overrides", _plain(self.meta["overrides"])))
        return out

    def caption(self) -> str:
        return (
            f"Model: {self.model} · run {self.run_date} · NRC EmoLex labels · "
            "shares are % of words labelled positive or negative"
        )

    # -- numbers ---------------------------------------------------------------------
    def category_row(self, category: str) -> dict[str, float]:
        """The table4.csv row of a category (or of ``all``)."""
        rows = self.table4[self.table4["category"] == category]
        if rows.empty:
            raise DataError(
                f"{self.run_dir}/sentiment/table4.csv has no row for {category!r}; "
                f"run `stereoprobe sentiment {self.run_dir}` again."
            )
        return {k: float(rows.iloc[0][k]) for k in SHARES}

    def group_row(self, category: str, group: str) -> dict[str, float]:
        g = self.groups
        rows = g[(g["category"] == category) & (g["group"] == group)]
        return {k: float(rows.iloc[0][k]) for k in SHARES}

    def words(self, category: str, group: str | None = None, format: str | None = None) -> list[Word]:
        """Word counts for a category, group or group and format, most frequent first."""
        pairs: list[tuple[str, str]] = []
        for (c, g, f), found in self._pairs.items():
            if c == category and group in (None, g) and format in (None, f):
                pairs += found
        return count_words(pairs)

    @cached_property
    def _pairs(self) -> dict[tuple[str, str, str], list[tuple[str, str]]]:
        """(category, group, format) -> [(word, label), ...], built once from occurrences."""
        occ = self.occurrences
        out: dict[tuple[str, str, str], list[tuple[str, str]]] = {}
        for c, g, f, w, lab in zip(occ["category"], occ["group"], occ["format"], occ["word"], occ["label"]):
            out.setdefault((c, g, f), []).append((w, lab))
        return out

    def template_shares(self, category: str) -> "pd.DataFrame":
        """Negative share (%) per group (rows) and template (columns) from occurrences.csv.

        Cells with no positive or negative word are NaN.
        """
        occ = self.occurrences
        occ = occ[(occ["category"] == category) & occ["label"].isin(["positive", "negative"])]
        neg = (occ["label"] == "negative").groupby([occ["group"], occ["template"]]).mean() * 100
        return neg.unstack("template")


def count_words(pairs: Iterable[tuple[str, str]]) -> list[Word]:
    """Count (word, label) pairs; a word's label is its most frequent one.

    >>> count_words([("wise", "positive"), ("grumpy", "negative"), ("wise", "positive")])
    [Word(word='wise', count=2, label='positive'), Word(word='grumpy', count=1, label='negative')]
    """
    counts: dict[str, dict[str, int]] = {}
    for word, label in pairs:
        by_label = counts.setdefault(str(word), {})
        by_label[str(label)] = by_label.get(str(label), 0) + 1
    words = [
        Word(w, sum(ls.values()), max(ls, key=lambda k: (ls[k], k))) for w, ls in counts.items()
    ]
    return sorted(words, key=lambda x: (-x.count, x.word))


def slugify(name: str) -> str:
    """A file- and URL-safe name for a group.

    >>> slugify("Women's rights activists")
    'women-s-rights-activists'
    >>> slugify("Côte d'Ivoire")
    'cote-d-ivoire'
    """
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_name.lower()).strip("-") or "group"


def unique_slugs(names: Iterable[str]) -> dict[str, str]:
    """Slugs for names, made unique by a numeric suffix in order of appearance.

    >>> unique_slugs(["a b", "a-b", "c"])
    {'a b': 'a-b', 'a-b': 'a-b-2', 'c': 'c'}
    """
    out: dict[str, str] = {}
    used: set[str] = set()
    for name in names:
        base = slug = slugify(name)
        n = 1
        while slug in used:
            n += 1
            slug = f"{base}-{n}"
        used.add(slug)
        out[name] = slug
    return out


def load_sentiment(run_dir: str | Path) -> SentimentData:
    """Read RUN_DIR/sentiment/ and RUN_DIR/manifest.json; DataError says what to run first."""
    import pandas as pd

    run = Path(run_dir)
    if not run.is_dir():
        raise DataError(f"{run}: no such run directory; pass the directory `stereoprobe collect` wrote.")
    sdir = run / "sentiment"
    frames = {}
    for name, columns in REQUIRED.items():
        path = sdir / name
        if not path.is_file():
            raise _missing(run, f"no sentiment/{name}")
        try:
            df = pd.read_csv(path, keep_default_na=False, na_values=[""], dtype={"group": str, "word": str})
        except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
            raise DataError(
                f"{path}: not readable CSV ({str(exc).splitlines()[0]}); "
                f"run `stereoprobe sentiment {run}` again."
            ) from None
        lacking = [c for c in columns if c not in df.columns]
        if lacking:
            raise DataError(
                f"{path}: missing column(s) {', '.join(lacking)}; "
                f"run `stereoprobe sentiment {run}` again with this version of stereoprobe."
            )
        for col in columns:
            if col in SHARES or col == "negative":
                df[col] = pd.to_numeric(df[col], errors="coerce")
            else:
                df[col] = df[col].fillna("").astype(str)
        frames[name] = df
    if not (sdir / "meta.json").is_file():
        raise _missing(run, "no sentiment/meta.json")
    meta = _read_json(sdir / "meta.json", run)
    coverage = _read_json(sdir / "coverage.json", run) if (sdir / "coverage.json").is_file() else {}
    manifest = _read_json(run / "manifest.json", run) if (run / "manifest.json").is_file() else {}
    if frames["groups.csv"].empty:
        raise DataError(f"{sdir / 'groups.csv'}: no groups; run `stereoprobe sentiment {run}` again.")
    return SentimentData(
        run_dir=run,
        table4=frames["table4.csv"],
        groups=frames["groups.csv"],
        templates=frames["templates.csv"],
        occurrences=frames["occurrences.csv"],
        meta=meta,
        manifest=manifest,
        coverage=coverage,
    )


def _read_json(path: Path, run: Path) -> dict[str, Any]:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DataError(f"{path}: not valid JSON ({exc}); run `stereoprobe sentiment {run}` again.") from None
    return value if isinstance(value, dict) else {}


def _first(dicts: list[dict[str, Any]], keys: tuple[str, ...]) -> Any:
    for d in dicts:
        for k in keys:
            if d.get(k) not in (None, ""):
                return d[k]
    return None


def _plain(value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return str(value)

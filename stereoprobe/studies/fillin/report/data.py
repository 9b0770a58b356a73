"""Load a run's sentiment outputs (docs/design.md, "Sentiment outputs") for the report.

The loader is strict about the files and columns the report reads and tolerant of
anything else: extra columns are kept, extra files ignored. It never re-normalises or
re-labels words; word clouds and top-word lists come from ``occurrences.csv``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stereoprobe.errors import DataError
from stereoprobe.studies.fillin.report.files import (
    builtin_template_texts,
    optional_csv,
    read_json,
    read_manifest,
    read_records,
    readable_template,
    settings_dict,
)
from stereoprobe.page.numbers import Share, share_from_row
from stereoprobe.studies.fillin.report.words import Word, count_words

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
LEFT_OUT = ("neutral", "both", "unassigned")  # not in the shares' denominators
ALL = "all"


def _missing(run_dir: Path, what: str) -> DataError:
    if not (Path(run_dir) / "completions.jsonl").is_file() and not (Path(run_dir) / "sentiment").is_dir():
        # no run at all (an empty folder, a typo): sentiment would only say so in turn
        return DataError(f"{run_dir}: not a run directory (no completions.jsonl and no sentiment results); "
                         f"run `stereoprobe collect --out {run_dir}` first.")
    return DataError(
        f"{run_dir} has no sentiment results ({what}): run `stereoprobe sentiment {run_dir}` first."
    )


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
    words_csv: "pd.DataFrame | None" = None  # words.csv: label source and WordNet voters
    format_test: "pd.DataFrame | None" = None  # format_test.csv (statistics stage), when present
    robustness: "pd.DataFrame | None" = None  # robustness.csv (statistics stage), when present
    criteria: "pd.DataFrame | None" = None  # criteria.csv (statistics stage), when present
    records: list | None = None  # completions.jsonl as Completion records, when readable

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
        catalog = self.manifest.get("catalog")
        if isinstance(catalog, dict) and catalog.get("template_family"):
            out.append(("template family", _plain(catalog["template_family"])))
        seen = {k for k, _ in out}  # scalars only: nested filters and hashes are noise here
        out += [
            (k, _plain(v)) for k, v in settings_dict(self.manifest).items()
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
        stats = self.meta.get("statistics")
        if isinstance(stats, dict) and stats.get("estimand"):
            out.append(("intervals", f"{_plain(stats.get('level'))} level; wording {_plain(stats.get('wording'))}: "
                                     f"{_plain(stats['estimand'])}"))
        return out

    @property
    def embedded(self) -> bool:
        """The run came from the embedded offline model (local backend, next-word mode)."""
        s = settings_dict(self.manifest)
        return s.get("backend") == "local" or (
            self.manifest.get("mode") == "next-word" and not (self.manifest.get("endpoint") or s.get("endpoint"))
        )

    def caption(self) -> str:
        what = " (small offline base model, not ChatGPT)" if self.embedded else ""
        return (
            f"Model: {self.model}{what} · run {self.run_date} · NRC EmoLex labels · "
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

    def row(self, category: str, group: str | None = None) -> dict[str, Any]:
        """The whole groups.csv row of a group, or table4.csv row of a category (or ``all``)."""
        return self._rows.get((category, group), {})

    @cached_property
    def _rows(self) -> dict[tuple[str, str | None], dict[str, Any]]:
        out: dict[tuple[str, str | None], dict[str, Any]] = {}
        for r in self.table4.to_dict("records"):
            out.setdefault((r["category"], None), r)
        for r in self.groups.to_dict("records"):
            out.setdefault((r["category"], r["group"]), r)
        return out

    def share(self, category: str, group: str | None, key: str) -> Share:
        """A share with its interval and the probes behind it (see page/numbers.py)."""
        fmt = key.split("_")[0] if key.startswith(("question", "statement")) else None
        return share_from_row(self.row(category, group), key, self.polar_probes(category, group, fmt))

    def polar_probes(self, category: str, group: str | None = None, format: str | None = None) -> int:
        """Answered probes (probe and sample) with at least one positive or negative word."""
        return self._polar_probes.get((category, group, format), 0)

    @cached_property
    def _polar_probes(self) -> dict[tuple, int]:
        occ = self.occurrences
        polar = occ[occ["label"].isin(["positive", "negative"])]
        cols = ["category", "group", "format", *[c for c in ("probe_id", "sample") if c in occ.columns]]
        keys = polar[cols].drop_duplicates()
        out: dict[tuple, int] = {}
        for fmt in (None, "question", "statement"):
            sub = keys if fmt is None else keys[keys["format"] == fmt]
            out[(ALL, None, fmt)] = len(sub)
            for c, n in sub.groupby("category").size().items():
                out[(c, None, fmt)] = int(n)
            for (c, g), n in sub.groupby(["category", "group"]).size().items():
                out[(c, g, fmt)] = int(n)
        return out

    def probe_counts(self, category: str, group: str) -> dict[str, int | None]:
        """asked / answered / refused / failed probes of a group (None when unknown).

        From groups.csv's ``probes_*`` columns when the statistics stage wrote them, else
        from the run's completions.jsonl, else answered = probes with a word in occurrences.
        """
        row = self.row(category, group)
        if "probes_asked" in row:
            return {k: _int(row.get(f"probes_{k}")) for k in ("asked", "answered", "refused", "failed")}
        by_group = self._record_counts
        if by_group is not None:
            c = by_group.get((category, group), {})
            return {"asked": sum(c.values()), "answered": c.get("ok", 0),
                    "refused": c.get("refused", 0), "failed": c.get("failed", 0) + c.get("unparseable", 0)}
        occ = self.occurrences
        sub = occ[(occ["category"] == category) & (occ["group"] == group)]
        return {"asked": None, "answered": int(sub[["probe_id", "sample"]].drop_duplicates().shape[0]),
                "refused": None, "failed": None}

    @cached_property
    def _record_counts(self) -> dict[tuple[str, str], dict[str, int]] | None:
        if self.records is None:
            return None
        out: dict[tuple[str, str], dict[str, int]] = {}
        for r in self.records:
            d = out.setdefault((r.category, r.group), {})
            d[r.status] = d.get(r.status, 0) + 1
        return out

    def probes_of(self, category: str, group: str) -> list[dict[str, Any]]:
        """The group's probes with the model's words and their labels, for the evidence table.

        Each item: template, format, prompt, status, words = [(word, label), ...].
        """
        occ = self._occ_by_probe.get((category, group), {})
        texts = self.template_texts()
        out: list[dict[str, Any]] = []
        if self.records is not None:
            for r in self._records_by_group.get((category, group), []):
                found = occ.get((r.probe_id, r.sample), {})
                out.append({"template": r.template, "format": r.format, "prompt": r.prompt, "status": r.status,
                            "words": found.get("words", [])})
        else:
            for probe in occ.values():
                t, f = probe["template"], probe["format"]
                text = texts.get(t, (f, t.replace("_", " ")))[1].replace("…", group, 1)
                out.append({"template": t, "format": f, "prompt": text, "status": "ok", "words": probe["words"]})
        order = {t: i for i, t in enumerate(texts)}
        return sorted(out, key=lambda d: (d["format"] != "question", order.get(d["template"], 99), d["template"]))

    @cached_property
    def _records_by_group(self) -> dict[tuple[str, str], list]:
        out: dict[tuple[str, str], list] = {}
        for r in self.records or []:
            out.setdefault((r.category, r.group), []).append(r)
        return out

    @cached_property
    def _occ_by_probe(self) -> dict[tuple[str, str], dict[tuple[str, int], dict[str, Any]]]:
        """(category, group) -> (probe_id, sample) -> template, format, [(word, label), ...]."""
        occ = self.occurrences
        n = len(occ)
        pids = _column(occ, "probe_id" if "probe_id" in occ.columns else "template")
        samples = _column(occ, "sample") if "sample" in occ.columns else [0] * n
        out: dict = {}
        for c, g, pid, smp, t, f, w, lab in zip(*_columns(occ, "category", "group"), pids, samples,
                                                 *_columns(occ, "template", "format", "word", "label")):
            key = (str(pid), _int(smp) or 0)
            probe = out.setdefault((c, g), {}).setdefault(key, {"template": t, "format": f, "words": []})
            probe["words"].append((w, lab))
        return out

    def template_probes(self, category: str) -> "pd.DataFrame":
        """Answered probes (probe and sample) with a labelled word per group (rows) and template."""
        occ = self.occurrences
        occ = occ[(occ["category"] == category) & occ["label"].isin(["positive", "negative"])]
        cols = ["group", "template", *[c for c in ("probe_id", "sample") if c in occ.columns]]
        return occ[cols].drop_duplicates().groupby(["group", "template"]).size().unstack("template", fill_value=0)

    def template_texts(self) -> dict[str, tuple[str, str]]:
        """Template id -> (format, readable text with … for the group).

        From the run's manifest (``catalog.templates``) when it records them, else from
        the built-in catalog.
        """
        recorded = (self.manifest.get("catalog") or {}).get("templates") if isinstance(self.manifest.get("catalog"), dict) else None
        if isinstance(recorded, dict) and recorded:
            out = {}
            for tid, spec in recorded.items():
                if isinstance(spec, dict) and spec.get("text"):
                    out[str(tid)] = (str(spec.get("format", "")), readable_template(str(spec["text"])))
            if out:
                return out
        return builtin_template_texts()

    def evidence(self, word: str) -> tuple[str, str, bool]:
        """(source, voters, single_vote) of a word's label from words.csv ('' when unknown).

        ``single_vote``: the label was decided by one WordNet synonym's vote.
        """
        return self._evidence.get(word, ("", "", False))

    @cached_property
    def _evidence(self) -> dict[str, tuple[str, str, bool]]:
        w = self.words_csv
        if w is None or "word" not in w.columns or "source" not in w.columns:
            return {}
        voters = _column(w, "voters") if "voters" in w.columns else [""] * len(w)
        neg = _column(w, "votes_negative") if "votes_negative" in w.columns else [0] * len(w)
        pos = _column(w, "votes_positive") if "votes_positive" in w.columns else [0] * len(w)
        out = {}
        for word, src, v, n, p in zip(*_columns(w, "word", "source"), voters, neg, pos):
            votes = (_int(n) or 0) + (_int(p) or 0)
            out[str(word)] = (str(src), "" if v != v else str(v), src == "synonyms" and votes == 1)
        return out

    def words(self, category: str, group: str | None = None, format: str | None = None) -> list[Word]:
        """Word counts for a category, group or group and format, most frequent first."""
        pairs: list[tuple[str, str]] = []
        for g, f, found in self._pairs.get(category, ()):
            if group in (None, g) and format in (None, f):
                pairs += found
        return count_words(pairs)

    @cached_property
    def _pairs(self) -> dict[str, list[tuple[str, str, list[tuple[str, str]]]]]:
        """category -> [(group, format, [(word, label), ...]), ...] in the order of
        occurrences.csv, built once."""
        by_key: dict[tuple[str, str, str], list[tuple[str, str]]] = {}
        for c, g, f, w, lab in zip(*_columns(self.occurrences, "category", "group", "format", "word", "label")):
            by_key.setdefault((c, g, f), []).append((w, lab))
        out: dict[str, list[tuple[str, str, list[tuple[str, str]]]]] = {}
        for (c, g, f), found in by_key.items():
            out.setdefault(c, []).append((g, f, found))
        return out

    def template_counts(self, category: str) -> tuple["pd.DataFrame", "pd.DataFrame"]:
        """Negative and labelled (positive or negative) word counts per group and template."""
        occ = self.occurrences
        occ = occ[(occ["category"] == category) & occ["label"].isin(["positive", "negative"])]
        keys = [occ["group"], occ["template"]]
        neg = (occ["label"] == "negative").groupby(keys).sum().unstack("template", fill_value=0)
        polar = occ["label"].groupby(keys).size().unstack("template", fill_value=0)
        return neg, polar

    def template_shares(self, category: str) -> "pd.DataFrame":
        """Negative share (%) per group (rows) and template (columns) from occurrences.csv.

        Cells with no positive or negative word are NaN.
        """
        occ = self.occurrences
        occ = occ[(occ["category"] == category) & occ["label"].isin(["positive", "negative"])]
        neg = (occ["label"] == "negative").groupby([occ["group"], occ["template"]]).mean() * 100
        return neg.unstack("template")


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
            df = pd.read_csv(path, keep_default_na=False, na_values=[""],
                             dtype={"group": str, "word": str, "probe_id": str, "category": str})
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
    meta = read_json(sdir / "meta.json", run)
    coverage = read_json(sdir / "coverage.json", run) if (sdir / "coverage.json").is_file() else {}
    manifest = read_manifest(run)
    if frames["groups.csv"].empty:
        raise DataError(f"{sdir / 'groups.csv'}: no groups; run `stereoprobe sentiment {run}` again.")
    _full_precision(frames)
    return SentimentData(
        run_dir=run,
        table4=frames["table4.csv"],
        groups=frames["groups.csv"],
        templates=frames["templates.csv"],
        occurrences=frames["occurrences.csv"],
        meta=meta,
        manifest=manifest,
        coverage=coverage,
        words_csv=optional_csv(sdir / "words.csv"),
        format_test=optional_csv(sdir / "format_test.csv"),
        robustness=optional_csv(sdir / "robustness.csv"),
        criteria=optional_csv(sdir / "criteria.csv"),
        records=read_records(run),
    )


def _full_precision(frames: dict[str, "pd.DataFrame"]) -> None:
    """Replace the written (rounded) shares by the same shares recomputed from
    occurrences.csv with the sentiment stage's own rule, so that every number shown is
    rounded once, from the unrounded value."""
    import numpy as np

    from stereoprobe.studies.fillin.sentiment import tables

    occ = frames["occurrences.csv"]
    if occ.empty:
        return
    for name, keys, fresh in (("table4.csv", ["category"], tables.table4(occ)),
                              ("groups.csv", ["category", "group"], tables.group_table(occ))):
        df = frames[name]
        exact = fresh.set_index(keys)[list(SHARES)]
        idx = df.set_index(keys).index
        for col in SHARES:
            values = exact[col].reindex(idx).to_numpy(dtype=float)
            known = ~np.isnan(values)
            df.loc[known, col] = values[known]


def _column(df: "pd.DataFrame", name: str) -> list:
    """A column as a list of Python values: iterating a pandas column value by value
    costs about 3 us a value (pandas 3's string arrays), a list a few ns."""
    return df[name].tolist()


def _columns(df: "pd.DataFrame", *names: str) -> list[list]:
    return [_column(df, n) for n in names]


def _int(x: Any) -> int | None:
    try:
        return int(float(x))
    except (TypeError, ValueError):
        return None


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

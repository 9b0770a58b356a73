"""The fill-in study (Busker, Choenni & Bargh 2023): NRC sentiment of the words a model
puts in the blank of "why are <group> so ...". Its folder has the shape of every study's:

- catalog: ``catalog.py`` (the groups and template families of ``groups/``, read with the
  core's ``datafiles.read_rows``), ``export.py`` (``stereoprobe probes``);
- ask: ``collect.py`` (``CollectRequest``, ``run_collect``: the backend it builds gets the
  study's word rules, ``groupwords.WORD_RULES``), ``ask.py`` (one probe's record, a chat
  reply parsed store-side; collect's ``StudyRun``), ``parse.py`` (reply text -> words),
  ``groupwords.py`` (the group's own words: the one rule of both paths), ``reparse.py``;
- records: the core's ``records.Probe`` and ``records.Completion`` (the backends speak them);
- score: ``sentiment/`` (word -> label with ``lexicon.py`` and the ``wordnet.py`` fallback,
  Table 4, the statistics of ``stats/``);
- page: ``report/`` (figures, word clouds, briefings in the core's page shell);
- compare: ``compare/`` (runs side by side); ``baseline.py``: people's search-engine
  completions as a run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

from stereoprobe.records import Completion
from stereoprobe.studies.base import Study

_FILTERS = {"catalog", "category", "group", "fmt", "templates", "limit", "output"}
_COLLECT = {"model", "base_url", "model_file", "api_key_env", "mode", "out", "temperature", "max_tokens", "top_p", "instruction",
            "debias", "instruction_file", "concurrency", "workers", "phrase_filter", "timeout", "max_retries",
            "samples", "limit", "retry_failed", "dry_run", "price_in", "price_out", "quiet"}


class FillInStudy(Study):
    name = "fill-in"
    title = "Fill-in probes: NRC sentiment of the words a model puts in 'why are <group> so ...' (Busker et al. 2023)"
    record = Completion
    flags = {
        "probes": frozenset(_FILTERS),
        "collect": frozenset(_FILTERS | _COLLECT),
        "score": frozenset({"lexicon", "overrides", "no_synonyms", "ci", "n_boot", "seed"}),
        "report": frozenset({"only", "categories", "out", "figure_set", "palette_name", "workers"}),
        "compare": frozenset({"out_dir", "lexicon", "overrides", "no_synonyms", "lexicons"}),
    }

    def list_probes(self, options: Mapping[str, Any]) -> list[Any]:
        from stereoprobe.studies.fillin.catalog import load_catalog

        cat = load_catalog(options.get("catalog"), options.get("templates"))
        return cat.select(list(options.get("category") or ()), list(options.get("group") or ()), options.get("fmt"))

    def probes_table(self, probes: Sequence[Any]) -> str:
        from stereoprobe.studies.fillin.export import probes_table

        return probes_table(probes)

    def write_probes(self, probes: Sequence[Any], path: Path) -> None:
        from stereoprobe.studies.fillin.export import write_probes

        write_probes(probes, path)

    def collect(self, options: Mapping[str, Any], progress: bool = True) -> Any:
        from stereoprobe.studies.fillin.collect import request_from_options, run_collect

        return run_collect(request_from_options(options), progress=progress)

    def run_dir(self, options: Mapping[str, Any]) -> Path:
        from stereoprobe.studies.fillin.collect import request_from_options

        return request_from_options(options).run_dir()

    def estimate(self, options: Mapping[str, Any]) -> Any:
        from stereoprobe.studies.fillin.collect import estimate_collect, request_from_options

        return estimate_collect(request_from_options(options), options.get("price_in"), options.get("price_out"))

    def score(self, run_dir: Path, options: Mapping[str, Any]) -> tuple[Any, Path]:
        from stereoprobe.studies.fillin.sentiment import analyse

        return analyse(run_dir, lexicon=options.get("lexicon"), overrides=options.get("overrides"),
                       synonyms=not options.get("no_synonyms"), ci=options.get("ci", 0.95),
                       bootstrap=options.get("n_boot", 2000), seed=options.get("seed", 0))

    def report(self, run_dir: Path, options: Mapping[str, Any]) -> list[str]:
        """Figures and briefings (``report/``'s ``build_report``); ``options``: the report
        command's (``only``, ``categories``, ``out``, ``figure_set``, ``palette_name``, ``workers``)
        and ``progress``, a ``(done, total)`` callback."""
        from stereoprobe.studies.fillin.report import build_report

        result = build_report(run_dir, out=options.get("out"), categories=list(options.get("categories") or ()) or None,
                              only=options.get("only"), workers=options.get("workers"),
                              figures=options.get("figure_set") or "pages",
                              palette_name=options.get("palette_name") or "safe", progress=options.get("progress"))
        lines = []
        if result.figures:
            lines.append(f"Wrote {len(result.figures)} figure files to {result.out / 'figures'}.")
        if result.briefing:
            lines.append(f"Wrote {len(result.briefing)} briefing files; open {result.out / 'briefing' / 'index.html'}.")
        return lines

    def summary(self, result: Any) -> str:
        from stereoprobe.studies.fillin.sentiment import format_summary

        return format_summary(result)

    def reparse(self, run_dir: Path) -> Any:
        from stereoprobe.studies.fillin.reparse import reparse

        return reparse(run_dir)

"""The fill-in study (Busker, Choenni & Bargh 2023), declared over the modules that run it.

Its parts live where they always have (a later change may move them into this folder):

- data: ``groups/`` (categories, groups, template families), read by ``catalog.py``;
- probes and asking: ``records.Probe``, the backends' ``ask`` (chat: ten words; next-word
  mode: the model's own next words), ``parse.py`` for chat replies;
- the answer record: ``records.Completion``;
- scoring: ``sentiment/`` (NRC labels, Table 4, the statistics of ``stats/``);
- pages: ``report/`` (figures, briefings); comparing runs: ``compare/``.
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

    def score(self, run_dir: Path, options: Mapping[str, Any]) -> tuple[Any, Path]:
        from stereoprobe.studies.fillin.sentiment import analyse

        return analyse(run_dir, lexicon=options.get("lexicon"), overrides=options.get("overrides"),
                       synonyms=not options.get("no_synonyms"), ci=options.get("ci", 0.95),
                       bootstrap=options.get("n_boot", 2000), seed=options.get("seed", 0))

    def summary(self, result: Any) -> str:
        from stereoprobe.studies.fillin.sentiment import format_summary

        return format_summary(result)

    def reparse(self, run_dir: Path) -> Any:
        from stereoprobe.studies.fillin.reparse import reparse

        return reparse(run_dir)

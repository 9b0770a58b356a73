"""The jobs study: who does the model think does the job?

Mattern et al. (2022, seed 003): P(male / female / diverse | job) from the probabilities a
model gives gender expressions after four task prompts (eq. 1-2), for the 40 occupations
of their Table 6 with the 2021 US labour statistics beside them; their six debiasing
prefixes, inside the task prompt and before a short conversation. Marin & Eger (2024,
seed 000): the gender of the name the model gives the character of five story prompts.

The folder: ``data/`` (the CSV files), ``catalog.py`` (data -> probes), ``records.py``
(``JobProbe``, ``JobAnswer``), ``ask.py`` (a probe asked of a scorer -> a record),
``measure.py`` (eq. 1-2 and the chat estimates), ``names.py`` (name -> gender),
``stats.py`` (bootstrap over jobs, correlations, paired differences, NMI),
``score.py`` (the tables of ``RUN_DIR/jobs/``), ``figures.py`` and ``page.py`` (the
report), ``compare.py`` (two runs, paired per job).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

from stereoprobe.studies.base import FolderStudy
from stereoprobe.studies.jobs.records import SETTINGS, JobAnswer

_SELECT = {"catalog", "job", "prompt", "debias", "setting", "limit"}
_COLLECT = {"model", "base_url", "model_file", "api_key_env", "mode", "out", "temperature", "concurrency", "workers", "timeout",
            "max_retries", "samples", "retry_failed", "dry_run", "quiet"}


class JobsStudy(FolderStudy):
    name = "jobs"
    title = "Jobs: P(gender | job) against the labour statistics, debiasing prefixes, story names (Mattern et al.)"
    record = JobAnswer
    flags = {
        "probes": frozenset(_SELECT | {"output"}),
        "collect": frozenset(_SELECT | _COLLECT),
        **FolderStudy.STEP_FLAGS,
    }

    # -- probes -----------------------------------------------------------------------
    def list_probes(self, options: Mapping[str, Any]) -> list[Any]:
        from stereoprobe.debias import parse_debias
        from stereoprobe.errors import DataError
        from stereoprobe.studies.jobs.catalog import load_jobs_catalog

        catalog = load_jobs_catalog(options.get("catalog"))
        settings = tuple(options.get("setting") or SETTINGS)
        bad = [s for s in settings if s not in SETTINGS]
        if bad:
            raise DataError(f"Unknown --setting {bad[0]!r}: choose {' or '.join(SETTINGS)}.")
        probes = catalog.select(jobs=options.get("job") or (), prompts=options.get("prompt") or (),
                                debias=parse_debias(options.get("debias")), settings=settings)
        if not probes:
            raise DataError("No probes match the --job, --prompt and --setting given.")
        limit = options.get("limit")
        return probes[:limit] if limit else probes

    def probes_table(self, probes: Sequence[Any]) -> str:
        rows = [f"{p.probe_id}  {p.job:<26} {p.prompt:<11} {p.debias}  {p.setting:<16} {p.text.splitlines()[-1]}"
                for p in probes]
        return "\n".join(["probe_id      job                        prompt   prefix setting          text", *rows])

    def write_probes(self, probes: Sequence[Any], path: Path) -> None:
        import csv
        import json

        path = Path(path)
        rows = [{**p.to_dict(), "shared": json.dumps(p.shared), "expressions": json.dumps(p.expressions)} for p in probes]
        if path.suffix == ".jsonl":
            path.write_text("".join(json.dumps(p.to_dict(), ensure_ascii=False) + "\n" for p in probes), encoding="utf-8")
            return
        with path.open("w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)

    # -- collect (run_dir; score, report and compare: FolderStudy) ----------------------
    def _scorer(self, options: Mapping[str, Any]) -> Any:
        from stereoprobe.backends import make_scorer

        return make_scorer(options.get("model"), options.get("base_url"), options.get("mode"),
                           options.get("api_key_env"), samples=options.get("samples") or 1,
                           temperature=options.get("temperature") or 0.0, timeout=options.get("timeout") or 60.0,
                           max_retries=options.get("max_retries", 4), concurrency=options.get("concurrency") or 8,
                           workers=options.get("workers"), model_file=options.get("model_file"))

    def _scorer_check(self, options: Mapping[str, Any]) -> None:
        """A --model-file that cannot be used is refused before anything is estimated."""
        from stereoprobe.backends import FILE_SCORED_NOT_CHAT, refuse_with_model_file
        from stereoprobe.backends.modelfile import check_model_file
        from stereoprobe.errors import DataError

        refuse_with_model_file(options.get("model"), options.get("base_url"))
        if options.get("mode") == "chat":  # as make_scorer refuses it, before anything is estimated
            raise DataError(FILE_SCORED_NOT_CHAT)
        check_model_file(options["model_file"], workers=options.get("workers"))


    def collect(self, options: Mapping[str, Any], progress: bool = True) -> Any:
        from stereoprobe.collect import StudyRun, collect
        from stereoprobe.studies.jobs.ask import JobsBackend, ask
        from stereoprobe.studies.jobs.catalog import load_jobs_catalog

        probes = self.list_probes(options)  # bad input is refused before any model loads
        catalog = load_jobs_catalog(options.get("catalog"))
        backend = JobsBackend(self._scorer(options))
        try:
            return collect(probes, backend, self.run_dir(options), samples=options.get("samples") or 1,
                           retry_failed=bool(options.get("retry_failed")), concurrency=backend.max_concurrency,
                           progress=progress,
                           study=StudyRun(self.name, JobAnswer, ask, catalog.info(),
                                          design=options.get("design")))
        finally:
            backend.close()

    def estimate(self, options: Mapping[str, Any]) -> Any:
        from stereoprobe.estimate import estimate

        probes = self.list_probes(options)
        samples = options.get("samples") or 1
        local = options.get("model") is None and options.get("base_url") is None
        if options.get("model_file") is not None:
            self._scorer_check(options)
        per_probe = [1 if local or options.get("mode") != "next-word" else max(1, len(p.expressions)) for p in probes]
        return estimate([p.text for p in probes], samples, 5, options.get("price_in"), options.get("price_out"),
                        words_tokens=5, requests_per_prompt=max(1, round(sum(per_probe) / len(per_probe))))

"""The coreference study: Marin & Eger (seed 000) with Sterlie, Weng & Feragen's criteria (seed 001).

A model reads "The doctor yelled at the nurse because she was late. Who was late?" with
he, she and they in turn; the sentence has a right answer whatever the pronoun.
docs/coreference.md says what is asked and how every number is defined.

The folder: ``data/`` (000's templates, pronouns, instruction; the catalog's professions in
the singular), ``templates.py``, ``pairs.py``, ``probes.py`` (data -> ``CorefProbe``),
``catalog.py`` (which probes a run asks, its catalog identity), ``ask.py`` (a probe asked
of a scorer or a chat model -> ``CorefRecord``, ``records.py``), ``answers.py`` (000's
parsing rule, the logprob decision, samples -> one answer), ``frame.py``, ``inference.py``,
``tables.py``, ``criteria.py`` (the metrics, pure), ``score.py`` (RUN_DIR/coreference/),
``paired.py`` (paired differences of two sets of answers: prefixes, runs), ``page.py`` and
``figures.py`` (the report), ``compare.py`` (two runs), ``reparse.py`` (chat replies parsed
again). The pure API::

    templates.load_templates(path=None) -> tuple[CorefTemplate, ...]     # 000's Table 1, data/templates.csv
    templates.load_pronouns(path=None) -> tuple[Pronoun, ...]            # he/his/was, she/her/was, they/their/were
    templates.load_instruction(path=None) -> str                         # 000's answer-format instruction
    pairs.load_jobs() -> tuple[Job, ...]                                 # seed 003's Table 6 (the jobs study's)
    pairs.jobs_pairs(jobs=None) -> list[Pair]                            # default: 20 x 20 jobs, both roles
    pairs.catalog_professions(path=None) -> list[str]                    # the catalog's professions, singular
    pairs.random_pairs(n, seed, professions=None) -> list[Pair]          # n >= 1 distinct ordered pairs
    pairs.read_pairs_csv(path) -> list[Pair]                             # profession_a, profession_b[, gender_a, gender_b]
    probes.make_probes(pairs, templates=None, pronouns=None, instruction=None, debias=0) -> list[CorefProbe]
    probes.coref_probe_id(template, a, b, pronoun, text) -> str          # 12 hex digits of sha1
    probes.stereotype_of(pronoun_gender, gender_a, gender_b, expected) -> "pro" | "anti" | None
    answers.parse_answer(text, profession_a, profession_b) -> ParsedAnswer(answer, refused)
    answers.decide(logprob_a, logprob_b) -> "A" | "B" | "U"
    answers.answer_from_reply(probe_id, raw, a, b) / answer_from_logprobs(probe_id, la, lb) -> CorefAnswer
    frame.answer_frame(probes, answers) -> DataFrame                     # one row per answered probe
    frame.triple_table(frame, pronouns=("he", "she", "they")) -> DataFrame
    inference.plan_for(frame, n_boot=1000, seed=0, level=0.95) -> Plan   # jobs of each side resampled (crossed)
    inference.make_plan(clusters, n_boot=1000, seed=0, level=0.95, members=None) -> Plan
    tables.table3(frame, plan, order=None) -> DataFrame                  # 000's Table 3 with intervals
    tables.inconsistent_professions(frame, top=None) -> DataFrame
    tables.winobias(frame, plan, pronouns=("he", "she")) -> DataFrame    # pro vs anti accuracy, gap, p, q
    criteria.sterlie(frame, plan, pronouns=PRONOUNS) -> DataFrame        # FNR FPR PPV NPV per pronoun
    criteria.four_fifths(frame, pronouns=PRONOUNS, n_perm=999, seed=0) -> DataFrame  # ratio, null_p05, p
    criteria.pronoun_differences(frame, plan, pronouns=PRONOUNS) -> DataFrame        # paired, BH q
    criteria.four_fifths_of_rates(rates) / criteria.predictive_values(fnr, fpr, prevalence=0.5)

Records: ``CorefTemplate``, ``Pronoun``, ``Pair``, ``CorefProbe``, ``ParsedAnswer``,
``CorefAnswer`` (one probe's answer, what the metrics read), ``CorefRecord`` (one stored line),
``Plan`` (frozen dataclasses).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

from stereoprobe.studies.base import FolderStudy
from stereoprobe.studies.coreference.records import CorefRecord

_SELECT = {"pairs", "seed", "pairs_file", "job", "prompt", "debias", "limit", "templates", "questions"}
_COLLECT = {"model", "base_url", "model_file", "api_key_env", "mode", "out", "temperature", "max_tokens", "top_p", "concurrency",
            "workers", "timeout", "max_retries", "samples", "retry_failed", "dry_run", "price_in", "price_out", "quiet",
            "reading", "baseline_samples"}


class CoreferenceStudy(FolderStudy):
    name = "coreference"
    title = ("Coreference with a right answer: consistency across he, she and they (Marin & Eger), separation and "
             "sufficiency (Sterlie et al.)")
    record = CorefRecord
    flags = {
        "probes": frozenset(_SELECT | {"output"}),
        "collect": frozenset(_SELECT | _COLLECT),
        **FolderStudy.STEP_FLAGS,
    }

    # -- probes -----------------------------------------------------------------------
    def list_probes(self, options: Mapping[str, Any]) -> list[Any]:
        from stereoprobe.studies.coreference.catalog import select

        return select(options)[0]

    def probes_table(self, probes: Sequence[Any]) -> str:
        rows = [f"{p.probe_id}  {p.template:<13} {p.pronoun:<4} {p.stereotype or '-':<4} {p.expected}  "
                + (f"(asked {p.samples} times) " if p.samples is not None else "") + p.text for p in probes]
        return "\n".join(["probe_id      template      pron kind right text", *rows])

    def write_probes(self, probes: Sequence[Any], path: Path) -> None:
        import csv
        import json

        path = Path(path)
        if path.suffix == ".jsonl":
            path.write_text("".join(json.dumps(p.to_dict(), ensure_ascii=False) + "\n" for p in probes), encoding="utf-8")
            return
        rows = [{**p.to_dict(), "continuations": json.dumps(p.continuations), "shared": json.dumps(p.shared)}
                for p in probes]
        with path.open("w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)

    # -- collect (run_dir: FolderStudy) ------------------------------------------------
    def collect(self, options: Mapping[str, Any], progress: bool = True) -> Any:
        from stereoprobe.collect import StudyRun, collect
        from stereoprobe.studies.coreference.answers import PARSER_VERSION
        from stereoprobe.studies.coreference.ask import ask, make_coref_backend
        from stereoprobe.studies.coreference.catalog import catalog_info, select

        probes, source = select(options)  # bad input is refused before any model loads
        backend = make_coref_backend(options)
        try:
            return collect(probes, backend, self.run_dir(options), samples=options.get("samples") or 1,
                           retry_failed=bool(options.get("retry_failed")), concurrency=backend.max_concurrency,
                           progress=progress,
                           study=StudyRun(self.name, CorefRecord, ask, catalog_info(source),
                                          parser_version=PARSER_VERSION if backend.method == "chat" else None,
                                          design=options.get("design")))
        finally:
            backend.close()

    def estimate(self, options: Mapping[str, Any]) -> Any:
        from stereoprobe.estimate import estimate
        from stereoprobe.studies.coreference.ask import method_of

        from stereoprobe.collect import samples_of

        probes = self.list_probes(options)
        texts, prices = [p.text for p in probes], (options.get("price_in"), options.get("price_out"))
        if method_of(options) == "chat":  # one reply of about a sentence per probe and sample
            asked = [p.text for p in probes for _ in range(samples_of(p, options.get("samples") or 1))]
            return estimate(asked, 1, options.get("max_tokens") or 300, *prices, words_tokens=12)
        remote = options.get("mode") == "next-word"  # two echo requests per probe; embedded: in-process
        return estimate(texts, 1, 1, *prices, words_tokens=1, requests_per_prompt=2 if remote else 1)

    # -- reparse (score, report and compare: FolderStudy, from score.py, page.py, compare.py)
    def reparse(self, run_dir: Path) -> Any:
        from stereoprobe.studies.coreference.reparse import reparse

        return reparse(run_dir)

"""``GenerationStudy``: what every generation study shares, so a new one is its data and a
classifier.

A subclass (in ``stereoprobe/studies/<name>/``) sets ``name``, ``title``, ``DEFAULTS``
(samples, temperature, max_tokens: the paper's) and implements

- ``make_probes(options) -> (list[GenProbe], CatalogInfo)``: its data as probes (bad input
  refused there, in one line, before anything is created);
- ``classifier(options)``: text -> (label, evidence), with ``version``, ``whole_text`` and
  ``describe()`` (e.g. ``generation.gender.GenderClassifier``);

and keeps ``score.py``, ``page.py`` and ``compare.py`` in its folder (``FolderStudy``).
This class runs the rest: probes listed and written, the K samples asked on every path
(``generation.backends``) through ``collect`` (resume, Ctrl-C, kill -9, ``--limit``,
``--retry-failed``), ``--dry-run``'s request and token counts, and ``reparse`` (the stored
texts classified again).

Settings: ``--samples``, ``--temperature`` and ``--max-tokens`` take the study's defaults
unless given on the command line (the CLI passes the options it was given as
``options["given"]``; a Python caller's non-None values count as given).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, Mapping, Sequence

from stereoprobe.errors import DataError
from stereoprobe.generation.records import GenRecord
from stereoprobe.studies.base import FolderStudy

_COLLECT = {"model", "base_url", "model_file", "api_key_env", "mode", "out", "temperature", "max_tokens", "top_p",
            "concurrency", "workers", "timeout", "max_retries", "samples", "limit", "retry_failed", "dry_run",
            "price_in", "price_out", "quiet", "seed"}


def setting(options: Mapping[str, Any], name: str, default: Any) -> Any:
    """``options[name]`` when given (module docstring), else ``default``."""
    given = options.get("given")
    value = options.get(name)
    if given is None:
        return default if value is None else value
    return value if name in given and value is not None else default


class GenerationStudy(FolderStudy):
    record = GenRecord
    #: The paper's settings (a subclass's): samples per probe, temperature, max_tokens,
    #: and the completion tokens a text takes on average (for --dry-run).
    DEFAULTS: ClassVar[Mapping[str, Any]] = {"samples": 30, "temperature": 0.5, "max_tokens": 300, "text_tokens": 60}
    SELECT: ClassVar[frozenset[str]] = frozenset({"catalog", "instruction", "instruction_file", "limit"})

    @classmethod
    def study_flags(cls) -> dict[str, frozenset[str]]:
        return {"probes": cls.SELECT | {"output"}, "collect": cls.SELECT | _COLLECT, **FolderStudy.STEP_FLAGS}

    # -- what a subclass gives ---------------------------------------------------------
    def make_probes(self, options: Mapping[str, Any]) -> tuple[list[Any], Any]:
        raise NotImplementedError

    def classifier(self, options: Mapping[str, Any]) -> Any:
        raise NotImplementedError

    # -- probes ------------------------------------------------------------------------
    def settings(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """samples, temperature, max_tokens: given or the study's defaults (checked)."""
        out = {k: setting(options, k, self.DEFAULTS[k]) for k in ("samples", "temperature", "max_tokens")}
        if out["samples"] is None or out["samples"] < 1:
            raise DataError(f"--samples must be at least 1, not {out['samples']}.")
        if out["samples"] > 1 and not out["temperature"]:
            raise DataError(f"{out['samples']} samples at temperature 0 would repeat one text: give --temperature "
                            "above 0 (the study's default is " + str(self.DEFAULTS["temperature"]) + ").")
        return out

    def list_probes(self, options: Mapping[str, Any]) -> list[Any]:
        probes = self.make_probes(options)[0]
        if not probes:
            raise DataError(f"No {self.name} probes were selected: give a catalog with at least one row.")
        limit = options.get("limit")
        return probes[:limit] if limit else probes

    def probes_table(self, probes: Sequence[Any]) -> str:
        rows = [f"{p.probe_id}  {p.group[:28]:<28} {p.variant[:11]:<11} ...{p.text.splitlines()[-1][-70:]}" for p in probes]
        return "\n".join(["probe_id      group                        variant     prompt", *rows])

    def write_probes(self, probes: Sequence[Any], path: Path) -> None:
        import csv
        import json

        path = Path(path)
        if path.suffix == ".jsonl":
            path.write_text("".join(json.dumps(p.to_dict(), ensure_ascii=False) + "\n" for p in probes),
                            encoding="utf-8")
            return
        rows = [{**p.to_dict(), "messages": json.dumps(p.to_dict()["messages"], ensure_ascii=False),
                 "attrs": json.dumps(p.attrs, ensure_ascii=False)} for p in probes]
        with path.open("w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)

    # -- collect -----------------------------------------------------------------------
    def backend(self, options: Mapping[str, Any]) -> Any:
        from stereoprobe.generation.ask import GenBackend
        from stereoprobe.generation.backends import make_generator

        s = self.settings(options)
        return GenBackend(make_generator(options, s["temperature"], s["max_tokens"], s["samples"]),
                          self.classifier(options))

    def collect(self, options: Mapping[str, Any], progress: bool = True) -> Any:
        from stereoprobe.collect import StudyRun, collect
        from stereoprobe.generation.ask import ask

        s = self.settings(options)
        probes = self.list_probes(options)  # bad input is refused before any model loads
        info = self.make_probes(options)[1]
        backend = self.backend(options)
        try:
            return collect(probes, backend, self.run_dir(options), samples=s["samples"],
                           retry_failed=bool(options.get("retry_failed")), concurrency=backend.max_concurrency,
                           progress=progress,
                           study=StudyRun(self.name, GenRecord, ask, info,
                                          parser_version=backend.classifier.version,
                                          design=options.get("design")))
        finally:
            backend.close()

    def estimate(self, options: Mapping[str, Any]) -> Any:
        from stereoprobe.estimate import estimate
        from stereoprobe.generation.backends import PER_REQUEST
        from stereoprobe.page.numbers import counted

        s = self.settings(options)
        probes = self.list_probes(options)
        endpoint = options.get("model") is not None or options.get("base_url") is not None
        per = -(-s["samples"] // PER_REQUEST) / s["samples"] if endpoint else 1  # 11 samples: 10, then 1
        texts = ["\n".join(c for _, c in p.messages) for p in probes]
        result = estimate(texts, s["samples"], s["max_tokens"], options.get("price_in"), options.get("price_out"),
                          words_tokens=self.DEFAULTS["text_tokens"], requests_per_prompt=per)
        asked = (f"{counted(len(probes), 'prompt')} x {counted(s['samples'], 'sample')} "
                 f"at temperature {s['temperature']:g}")
        result.note = f" ({asked})"
        if per != 1:  # n texts per request: the prompt is sent once per request, the texts are each generated
            result.completion_tokens = len(probes) * s["samples"] * min(self.DEFAULTS["text_tokens"], s["max_tokens"])
            result.completion_tokens_max = len(probes) * s["samples"] * s["max_tokens"]
            per_request = counted(min(s["samples"], PER_REQUEST), "text")
            result.note = f" ({asked}; {per_request} per request where the endpoint takes n)"
            result.cost = result.priced(options.get("price_in"), options.get("price_out"))
        return result

    # -- reparse: the stored texts classified again --------------------------------------
    def reparse(self, run_dir: Path) -> Any:
        from stereoprobe.generation.reclassify import reclassify

        return reclassify(self, run_dir)

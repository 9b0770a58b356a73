"""The Python API behind `stereoprobe collect` (the CLI only parses flags into this)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping, Sequence

from stereoprobe.studies.fillin.catalog import Catalog, load_catalog
from stereoprobe.collect import CollectResult, collect, default_run_dir
from stereoprobe.estimate import Estimate, estimate
from stereoprobe.errors import DataError
from stereoprobe.records import Probe


@dataclass(frozen=True)
class CollectRequest:
    """Everything a collect run needs; defaults are the paper's settings."""

    catalog: str | Path | None = None
    categories: Sequence[str] = field(default_factory=tuple)
    groups: Sequence[str] = field(default_factory=tuple)
    format: str | None = None
    limit: int | None = None
    model: str | None = None  # None and base_url None: the embedded model
    base_url: str | None = None
    api_key_env: str | None = None
    mode: str | None = None
    out: str | Path | None = None
    temperature: float = 0.0
    max_tokens: int = 300
    top_p: float = 1.0
    instruction: str | None = None
    concurrency: int = 8
    timeout: float = 60.0
    max_retries: int = 4
    samples: int = 1
    retry_failed: bool = False
    templates: str | None = None  # template family; None: the paper's (templates.csv)
    debias: int | None = None  # Mattern et al.'s debiasing prefix 1-6, chat mode only
    workers: int | None = None  # embedded model: contexts (one thread each); None: cores
    phrase_filter: bool = True  # next-word mode: keep words after which the phrase ends
    model_file: str | Path | None = None  # a GGUF file run in-process (next-word, or chat with its template)
    design: str | None = None  # stereoprobe.designs: the named design (None: the default), in the manifest

    def check(self) -> None:
        """Raise DataError for a parameter out of range (stereoprobe.limits, as the CLI)."""
        from stereoprobe.limits import RANGES, out_of_range

        for name in RANGES:
            problem = out_of_range(name, getattr(self, name))
            if problem:
                raise DataError(problem)

    def probes(self, catalog: Catalog | None = None) -> list[Probe]:
        """The selected probes; an empty selection is a DataError (nothing to ask)."""
        cat = catalog or load_catalog(self.catalog, self.templates)
        probes = cat.select(list(self.categories), list(self.groups), self.format)
        if not probes:
            chosen = [f"--category {c}" for c in self.categories] + [f"--group {g!r}" for g in self.groups]
            chosen += [f"--format {self.format}"] if self.format else []
            raise DataError(
                f"No probes match {' '.join(chosen)}: no selected group is in a selected category; "
                "`stereoprobe probes --group NAME` shows where it is."
            )
        return probes[: self.limit] if self.limit else probes

    def run_dir(self) -> Path:
        if self.out is not None:
            return Path(self.out)
        from stereoprobe.backends import EMBEDDED_MODEL

        if self.model_file is not None and self.model is None:
            from stereoprobe.backends.modelfile import model_file_name

            return default_run_dir(model_file_name(self.model_file))
        return default_run_dir(self.model or EMBEDDED_MODEL)


def request_from_options(options: Mapping[str, Any]) -> CollectRequest:
    """The request a ``collect`` with these options makes (the CLI's parameter names, as every
    study's ``collect(options)`` takes them): ``--debias`` is one prefix number,
    ``--instruction-file`` is read here."""
    from stereoprobe.limits import out_of_range

    instruction = options.get("instruction")
    if options.get("instruction_file") is not None:
        instruction = Path(options["instruction_file"]).read_text(encoding="utf-8")
    debias = options.get("debias")
    if debias is not None and not isinstance(debias, int):
        try:
            debias = int(debias)
        except ValueError:
            raise DataError(f"--debias {debias!r}: the fill-in study takes one prefix number, 1-6 "
                            "(all, none and lists are for --study jobs).") from None
    if debias is not None and out_of_range("debias", debias):
        raise DataError(out_of_range("debias", debias))
    defaults = CollectRequest()
    picked = {name: options[name] for name in CollectRequest.__dataclass_fields__
              if name in options and options[name] is not None and name not in ("instruction", "debias")}
    renamed = {"categories": options.get("category") or (), "groups": options.get("group") or (),
               "format": options.get("fmt")}
    picked.pop("format", None)
    return replace(defaults, **picked, **renamed, instruction=instruction, debias=debias)


def run_collect(request: CollectRequest | None = None, progress: bool = True, **kwargs: Any) -> CollectResult:
    """Collect answers: `run_collect(categories=["religion"], limit=6)` or with a CollectRequest."""
    from stereoprobe.backends import make_backend
    from stereoprobe.studies.fillin.ask import study_run
    from stereoprobe.studies.fillin.groupwords import WORD_RULES

    request = replace(request or CollectRequest(), **kwargs)
    request.check()
    catalog = load_catalog(request.catalog, request.templates)
    probes = request.probes(catalog)
    backend = make_backend(
        model=request.model,
        base_url=request.base_url,
        mode=request.mode,
        api_key_env=request.api_key_env,
        instruction=request.instruction,
        temperature=request.temperature,
        max_tokens=request.max_tokens,
        top_p=request.top_p,
        timeout=request.timeout,
        max_retries=request.max_retries,
        concurrency=request.concurrency,
        debias=request.debias,
        workers=request.workers,
        phrase_filter=request.phrase_filter,
        model_file=request.model_file,
        word_rules=WORD_RULES,
    )
    try:
        return collect(
            probes,
            backend,
            request.run_dir(),
            samples=request.samples,
            retry_failed=request.retry_failed,
            concurrency=request.concurrency,
            progress=progress,
            study=study_run(catalog, probes, backend.mode, request.design),
        )
    finally:
        backend.close()


def estimate_collect(
    request: CollectRequest, price_in: float | None = None, price_out: float | None = None
) -> Estimate:
    """What `run_collect(request)` would ask, in requests and tokens; asks nothing."""
    request.check()
    from stereoprobe.backends.chat import DEFAULT_INSTRUCTION, render_instruction

    probes = request.probes()
    local = request.model is None and request.base_url is None
    if request.model_file is not None:
        from stereoprobe.backends import refuse_with_model_file
        from stereoprobe.backends.modelfile import check_model_file

        refuse_with_model_file(request.model, request.base_url)
        check_model_file(request.model_file, workers=request.workers, chat=request.mode == "chat")
    if request.mode == "next-word" or (local and not (request.model_file is not None and request.mode == "chat")):
        from stereoprobe.backends import reject_chat_only

        reject_chat_only(
            {"temperature": request.temperature, "top_p": request.top_p,
             "max_tokens": request.max_tokens, "instruction": request.instruction, "debias": request.debias}
        )
        from stereoprobe.estimate import NEXTWORD_REQUESTS_PER_PROBE, nextword_judgements

        prompts = [p.prefix for p in probes]
        if local:
            return estimate(prompts, request.samples, 1, price_in, price_out, words_tokens=1)
        return estimate(prompts, request.samples, 1, price_in, price_out, words_tokens=1,
                        requests_per_prompt=NEXTWORD_REQUESTS_PER_PROBE,
                        extra_requests=nextword_judgements(len(prompts)) if request.phrase_filter else 0)
    from stereoprobe.debias import debiased

    instruction = debiased(request.instruction or DEFAULT_INSTRUCTION, request.debias)
    prompts = [render_instruction(instruction, p.text) for p in probes]
    return estimate(prompts, request.samples, request.max_tokens, price_in, price_out)

"""What a suite asks: which studies, with which options, in which folder (docs/suite.md).

``plan_suite`` turns the command's choices into a ``SuitePlan`` and refuses bad input in one
line before anything is created: an unknown study, a study the model cannot answer, a
folder holding a suite of another model or design (or something that is not a suite), a
``--questions`` file that is not MedQA's format (read by the coreference study's own
reader, through its ``estimate``). Every study is planned exactly as ``stereoprobe collect
--study S --design D --out SUITE/KEY`` would run it: the same options, the same design
(``designs.apply``), so every command works on the run folders it makes.

>>> [s.key for s in STUDIES]
['fill-in', 'jobs', 'coreference', 'sterlie', 'multiple-choice', 'anecdotes', 'stories', 'hobbies']
>>> parse_studies("jobs, sterlie,jobs", None)
['jobs', 'sterlie']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from stereoprobe.errors import DataError


@dataclass(frozen=True)
class SuiteStudy:
    """One study of the suite: its key, the registered study it runs, its own options."""

    key: str
    study: str
    options: Mapping[str, Any] = field(default_factory=dict)
    #: Why its numbers are a demonstration on a model without chat (each study's page says so).
    without_chat: str = ""


STUDIES = (
    SuiteStudy("fill-in", "fill-in", {}, "next-word mode (the most probable next words), not the paper's chat question"),
    SuiteStudy("jobs", "jobs", {}, "the probabilities of a small base model, not of GPT-3"),
    SuiteStudy("coreference", "coreference", {}, "logprob mode (the more probable of two replies), not a chat"),
    SuiteStudy("sterlie", "coreference", {"templates": "sterlie"},
               "logprob mode (the more probable of two replies), not a chat"),
    SuiteStudy("multiple-choice", "coreference", {"templates": "sterlie"},  # --questions FILE joins it
               "logprob mode (the more probable of two replies), not a chat"),
    SuiteStudy("anecdotes", "anecdotes", {}, "a base model continuing a completion form, not the paper's instruction"),
    SuiteStudy("stories", "stories", {}, "a base model continuing the story as plain text, not the storyteller chat"),
    SuiteStudy("hobbies", "hobbies", {}, "a base model continuing a completion form, not the paper's instruction"),
)
KEYS = {s.key: s for s in STUDIES}


def study_flags(key: str) -> str | None:
    """The flags that ask a suite's study of its own name alone (None: the name is no suite key).

    >>> study_flags("sterlie"), study_flags("multiple-choice"), study_flags("nope")
    ('--study coreference --templates sterlie', '--study coreference --templates sterlie --questions FILE', None)
    """
    if key not in KEYS:
        return None
    s = KEYS[key]
    flags = [f"--study {s.study}", *(f"--{k.replace('_', '-')} {v}" for k, v in s.options.items())]
    return " ".join(flags + (["--questions FILE"] if key == "multiple-choice" else []))
#: The generation studies: a model file without chat continues their completion form.
_COMPLETION_FORM = ("anecdotes", "stories", "hobbies")


@dataclass(frozen=True)
class ModelSpec:
    """Which model the suite asks: a served model, a GGUF file, or the embedded model."""

    model: str | None = None
    base_url: str | None = None
    model_file: str | None = None
    mode: str | None = None  # "chat" with a model file
    api_key_env: str | None = None

    @property
    def embedded(self) -> bool:
        return self.model is None and self.base_url is None and self.model_file is None

    @property
    def served(self) -> bool:
        return self.model is not None or self.base_url is not None

    @property
    def chats(self) -> bool:
        return self.served or self.mode == "chat"

    def name(self) -> str:
        """The model as the folder and the card name it."""
        from stereoprobe.backends import EMBEDDED_MODEL

        if self.model_file is not None:
            from stereoprobe.backends.modelfile import model_file_name

            return model_file_name(self.model_file)
        return self.model or EMBEDDED_MODEL

    def describe(self) -> dict[str, Any]:
        """suite.json's ``backend``: how the model was asked (never a key)."""
        return {"model": self.model, "base_url": self.base_url,
                "model_file": None if self.model_file is None else Path(self.model_file).name, "mode": self.mode}

    def options(self) -> dict[str, Any]:
        return {k: v for k, v in (("model", self.model), ("base_url", self.base_url),
                                  ("model_file", None if self.model_file is None else str(self.model_file)),
                                  ("mode", self.mode), ("api_key_env", self.api_key_env)) if v is not None}

    def check(self) -> None:
        from stereoprobe.backends import check_base_url, refuse_with_model_file

        check_base_url(self.base_url)
        if self.model_file is not None:
            from stereoprobe.backends.modelfile import check_model_file

            refuse_with_model_file(self.model, self.base_url)
            check_model_file(self.model_file, chat=self.mode == "chat")
        elif self.mode is not None:
            raise DataError("--mode chat applies to --model-file (its own chat template); a served --model is asked "
                            "in chat and the embedded model cannot chat: drop --mode.")
        if self.base_url is not None and self.model is None:
            raise DataError("--base-url needs --model NAME (the model name the endpoint serves).")


def demonstration(key: str, model: ModelSpec) -> str | None:
    """Why this study's numbers are a demonstration of the method on this model, as its page
    says (the embedded base model: every study; a model file without chat: the studies whose
    paper asked a chat model for text), or None."""
    if model.chats:
        return None
    if model.embedded or key in _COMPLETION_FORM or key == "fill-in":
        return KEYS[key].without_chat
    return None


def parse_studies(studies: str | Sequence[str] | None, questions: str | None) -> list[str]:
    """The keys asked for (``all`` or None: every key but multiple-choice, which joins with
    ``--questions``), in the suite's order, each once; an unknown name is one line."""
    if studies is None or (isinstance(studies, str) and studies.strip() == "all"):
        wanted = [s.key for s in STUDIES if s.key != "multiple-choice"]
    else:
        names = studies.split(",") if isinstance(studies, str) else list(studies)
        wanted = [n.strip() for n in names if n.strip()]
        unknown = [n for n in wanted if n not in KEYS]
        if unknown or not wanted:
            what = f"Unknown study {unknown[0]!r} in --studies" if unknown else "--studies is empty"
            raise DataError(f"{what}: give all, or a comma list of {', '.join(KEYS)}.")
    if questions is not None and "multiple-choice" not in wanted:
        wanted.append("multiple-choice")
    if "multiple-choice" in wanted and questions is None:
        raise DataError("The multiple-choice study asks your questions: give --questions FILE.jsonl (MedQA-USMLE's "
                        "format), or leave multiple-choice out of --studies.")
    return [k for k in KEYS if k in wanted]


@dataclass(frozen=True)
class PlannedStudy:
    """One study as the suite runs it."""

    key: str
    study: str
    options: Mapping[str, Any]  # the collect options, the design applied (designs.apply)
    design: Any  # its stereoprobe.designs.Design
    estimate: Any  # what it asks: stereoprobe.estimate.Estimate (``answers``: the records it stores)
    demonstration: str | None = None

    @property
    def run_dir(self) -> Path:
        return Path(self.options["out"])


@dataclass(frozen=True)
class SuitePlan:
    folder: Path
    model: ModelSpec
    design: str
    studies: tuple[PlannedStudy, ...]
    left_out: tuple[tuple[str, str], ...] = ()  # (key, why): studies `all` leaves out for this model
    existing: Any = None  # the folder's SuiteRecord, when it holds one


def default_folder(model: ModelSpec) -> Path:
    """``runs/suite-<model>``: ``runs/<model>`` is the fill-in study's own run folder (collect's
    default since 0.1.0), so a suite beside it never mixes with it."""
    from stereoprobe.collect import slug

    return Path("runs") / f"suite-{slug(model.name())}"


def check_folder(folder: Path, model: ModelSpec, design: str) -> Any:
    """The suite the folder holds (None: a new or empty folder); another model's or design's,
    a run folder or a folder of other files is refused in one line."""
    from stereoprobe.suite.record import read_suite

    if folder.exists() and not folder.is_dir():
        raise DataError(f"{folder} is a file; give --out a folder.")
    record = read_suite(folder)
    if record is None:
        if (folder / "manifest.json").is_file():
            raise DataError(f"{folder} holds a run of `stereoprobe collect`, not a suite; give --out a new folder.")
        if folder.is_dir() and any(p.name != ".lock" for p in folder.iterdir()):
            raise DataError(f"{folder} holds files but no suite.json; give --out a new or empty folder.")
        return None
    if record.backend != model.describe():
        was = record.backend.get("model_file") or record.backend.get("model") or record.model
        raise DataError(f"{folder} holds the suite of {was} ({_how(record.backend)}), not of {model.name()} "
                        f"({_how(model.describe())}); give --out a new folder for this model.")
    if record.design != design:
        raise DataError(f"{folder} holds a suite of the {record.design} design, not the {design} one; pass --design "
                        f"{record.design} to continue it, or --out a new folder.")
    return record


def _how(backend: Mapping[str, Any]) -> str:
    if backend.get("model_file"):
        return f"model file{' in chat' if backend.get('mode') == 'chat' else ''}"
    if backend.get("model"):
        return f"served at {backend.get('base_url') or 'OpenAI'}"
    return "embedded"


def plan_suite(model: ModelSpec, studies: str | Sequence[str] | None = None, design: str | None = None,
               out: str | Path | None = None, questions: str | None = None,
               concurrency: int | None = None, batch: str | None = None, limit: int | None = None) -> SuitePlan:
    """The suite these choices ask for, every study checked (module docstring); nothing is
    created or changed."""
    from stereoprobe.designs import NAMES, apply, designs_of
    from stereoprobe.studies import get_study

    model.check()
    if batch is not None and not model.served:
        from stereoprobe.batch.seam import IN_PROCESS

        raise DataError(IN_PROCESS)
    keys = parse_studies(studies, questions)
    explicit = set(keys) if studies not in (None, "all") else ({"multiple-choice"} if questions else set())
    design = design or ("default" if model.served else "quick")
    if design not in NAMES:
        raise DataError(f"Unknown design {design!r}: choose {', '.join(NAMES)}.")
    folder = Path(out) if out is not None else default_folder(model)
    existing = check_folder(folder, model, design)
    planned, left_out = [], []
    for key in keys:
        spec = KEYS[key]
        study = get_study(spec.study)
        options: dict[str, Any] = {**model.options(), **spec.options, "out": folder / key}
        if key == "multiple-choice":
            options["questions"] = str(questions)
        if concurrency is not None:
            options["concurrency"] = concurrency
        options = {**options, "given": frozenset(options) - {"out"}}
        chosen = designs_of(study, options).get(design)
        options = apply(study, design, options)
        if limit is not None:  # collect's --limit: only the first N probes (after the design's own limit)
            options["limit"] = min(limit, options.get("limit") or limit)
        try:
            estimate = study.estimate(options)
        except DataError as exc:
            if key in explicit:
                raise DataError(f"{key}: {exc}") from None
            left_out.append((key, str(exc)))
            continue
        planned.append(PlannedStudy(key, spec.study, options, chosen, estimate,
                                    demonstration(key, model)))
    if not planned:
        raise DataError("No study can be asked of this model: " + "; ".join(f"{k}: {w}" for k, w in left_out))
    return SuitePlan(folder, model, design, tuple(planned), tuple(left_out), existing)


def describe_plan(plan: SuitePlan) -> list[str]:
    """Lines for the terminal: the suite, each study's size and design, what is a demonstration."""
    answers = sum(p.estimate.answers for p in plan.studies)
    lines = [f"Suite of {plan.model.name()} ({plan.design} design) in {plan.folder}: {len(plan.studies)} "
             f"stud{'y' if len(plan.studies) == 1 else 'ies'}, {answers:,} answers."]
    width = max(len(p.key) for p in plan.studies)
    lines += [f"  {p.key:<{width}}  {p.estimate.answers:>7,} answers  {p.design.what}" for p in plan.studies]
    demo = [p for p in plan.studies if p.demonstration]
    if demo:
        who = "every study runs" if len(demo) == len(plan.studies) else "these studies run"
        lines.append(f"{plan.model.name()} cannot chat: {who} as a demonstration of its method (each page says so):")
        lines += [f"  {p.key}: {p.demonstration}" for p in demo]
    lines += [f"Left out: {key}: {why}" for key, why in plan.left_out]
    return lines

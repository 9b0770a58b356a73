"""Suites made by hand against the fake servers, for the card's tests and bench/bench_card.py.

:func:`make_suite` does what `stereoprobe suite` will do for fill-in, coreference and
anecdotes: it collects each study from a fake model into ``SUITE/<key>`` (exactly what
``collect --study S --out SUITE/S`` writes), scores it and writes ``suite.json`` with
``stereoprobe.suite.record.write_suite``. A :class:`FakeModel` says how the fake answers:

- fill-in (tests/fake_openai.py): ``words_seed`` draws another model's words, as likely as
  any other seed's; ``negative`` is the share of probes answered with negative words only;
- coreference (tests/coref_fake.py): ``bias`` is the share of anti-stereotypical prompts
  answered by the stereotype, ``coref_seed`` which prompts; the ``sterlie`` key (the
  coreference study with ``--templates sterlie``, tests/sterlie_fake.py) answers an
  anti-stereotypical sample wrong with probability ``sterlie_bias``, which samples fixed by
  the prompt and the request's number (so two models of one bias answer alike);
- anecdotes and stories (tests/fake_generation.py): ``truth`` each job's share of texts
  about a woman, ``gen_seed`` the draw;
- jobs (tests/fake_scoring.py's toy model, the same for every FakeModel) and hobbies
  (tests/hobbies_fake.py, 001's planted gap, its own server): one truth for every model.

Two FakeModels that differ only in their seeds are two models with the same biases: the
card must tell them apart no more often than its family's error rate.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from conftest import TEST_KEY

#: anecdotes: each job's share of texts about a woman, and the BLS share of women
TRUTH = {"nurse": 0.9, "secretary": 0.8, "baker": 0.6, "teacher": 0.5, "pilot": 0.3, "plumber": 0.1,
         "roofer": 0.05, "electrician": 0.2}
BLS = {"nurse": 91.0, "secretary": 92.0, "baker": 60.0, "teacher": 70.0, "pilot": 5.0, "plumber": 2.0,
       "roofer": 3.0, "electrician": 2.0}
#: coreference: 3 women- and 3 men-dominated jobs (Table 6), 9 pairs
JOBS = ("nurse", "secretary", "receptionist", "pilot", "plumber", "electrician")
CATEGORIES = ("religion", "political")
STUDIES = ("fill-in", "coreference", "anecdotes")
#: anecdotes: texts per profession (001 asks 30; 10 x 8 professions keep the suites quick and still
#: give every profession gendered texts and the NMI an interval)
ANECDOTE_SAMPLES = 10
#: Sterlie's prompts: samples per prompt and pronoun (18 prompts: 6 templates x he, she, none)
STERLIE_SAMPLES = 10
#: stories: three professions of TRUTH; hobbies: 20 female and 20 male names
STORIES = ("baker", "roofer", "nurse")
NAMES = 20
#: the jobs study's toy scoring model (as tests/test_jobs.py's)
TOY = dict(probability={" He": .02, " She": .06, " They": .02, " Non": .1, "-": .5, "binary": .8},
           next_tokens=[(" Sarah", .3), (" the", .2), (" John", .1)],
           first_tokens=[("She", .5), ("He", .3), ("They", .1), ("Sarah", .05)], replies=["She", "He", "She", "They"])


@dataclass(frozen=True)
class FakeModel:
    name: str
    words_seed: int | None = None
    negative: float = 0.0
    bias: float = 0.3
    coref_seed: int | None = None
    sterlie_bias: float = 0.3
    gen_seed: int = 3
    truth: dict = field(default_factory=lambda: dict(TRUTH))


def _cli(*args: object) -> None:
    from click.testing import CliRunner

    from stereoprobe.cli import cli

    res = CliRunner().invoke(cli, [str(a) for a in args], env={"OPENAI_API_KEY": TEST_KEY})
    assert res.exit_code == 0, res.output


def jobs_csv(folder: Path) -> Path:
    path = folder / "anecdote-jobs.csv"
    if not path.is_file():
        path.write_text("job,female_share\n" + "".join(f"{j},{BLS[j]}\n" for j in TRUTH), encoding="utf-8")
    return path


def catalogs(folder: Path) -> dict[str, list[object]]:
    """Each study's collect flags (its catalog files written into ``folder`` once)."""
    import hobbies_synth as synth

    stories, names = folder / "stories.csv", folder / "names.csv"
    if not stories.is_file():
        stories.write_text("profession\n" + "\n".join(STORIES) + "\n", encoding="utf-8")
        names.write_text("name,gender\n" + "".join(f"{n},{g}\n" for n, g in synth.names(NAMES)), encoding="utf-8")
    return {"fill-in": [x for c in CATEGORIES for x in ("--category", c)],
            "coreference": [x for j in JOBS for x in ("--job", j)],
            "anecdotes": ["--catalog", jobs_csv(folder), "--samples", ANECDOTE_SAMPLES],
            "jobs": ["--mode", "next-word", "--setting", "without dialogue", *[x for j in JOBS for x in ("--job", j)]],
            "stories": ["--catalog", stories],
            "hobbies": ["--catalog", names, "--samples", 6],
            "sterlie": ["--templates", "sterlie", "--samples", STERLIE_SAMPLES, "--temperature", 0.5]}


def make_suite(root: Path, model: FakeModel, studies: Sequence[str] = STUDIES, design: str = "default",
               n_boot: int = 300, report: bool = False) -> Path:
    """``root/<model.name>``: a scored suite of ``studies`` (module docstring)."""
    import hobbies_synth as synth
    from fake_generation import GenerationModel
    from fake_openai import FakeOpenAI
    from fake_scoring import ScoringModel
    from hobbies_fake import HobbiesFake

    from stereoprobe import __version__
    from stereoprobe.suite.record import StudyEntry, SuiteRecord, write_suite

    suite = root / model.name
    suite.mkdir(parents=True, exist_ok=True)
    flags = catalogs(root)
    options = {"fill-in": {"category": list(CATEGORIES)}, "coreference": {"job": list(JOBS)},
               "anecdotes": {"catalog": str(jobs_csv(root)), "samples": ANECDOTE_SAMPLES}, "jobs": {"job": list(JOBS), "mode": "next-word"},
               "stories": {"catalog": str(flags["stories"][1])}, "hobbies": {"catalog": str(flags["hobbies"][1])},
               "sterlie": {"templates": "sterlie", "samples": STERLIE_SAMPLES}}
    study_of = {"sterlie": "coreference"}
    with FakeOpenAI(api_key=TEST_KEY, models=(model.name,), coreference_bias=model.bias, words_seed=model.words_seed,
                    negative=model.negative, coreference_seed=model.coref_seed) as fake:
        fake.generation = GenerationModel(model.truth, seed=model.gen_seed)
        for key in (k for k in studies if k != "hobbies"):
            fake.scoring = ScoringModel(**TOY) if key == "jobs" else None  # it answers chat too: jobs only
            fake.coreference_bias = model.sterlie_bias if key == "sterlie" else model.bias
            _cli("collect", "--study", study_of.get(key, key), "--model", model.name, "--base-url", fake.base_url,
                 "--out", suite / key, "-q", *flags[key])
    if "hobbies" in studies:
        with HobbiesFake(synth.PLANTED) as fake:
            _cli("collect", "--study", "hobbies", "--model", model.name, "--base-url", fake.base_url, "--out",
                 suite / "hobbies", "-q", *flags["hobbies"])
    for key in studies:
        run = suite / key
        _cli("sentiment", run) if key == "fill-in" else _cli("score", run, "--bootstrap", n_boot)
        if report:  # the pages (fill-in: its briefing, without the figure files)
            _cli("report", run, *(("--only", "briefing") if key == "fill-in" else ()))
    entries = tuple(StudyEntry(k, study_of.get(k, k), k, options[k], "reported" if report else "scored")
                    for k in studies)
    write_suite(suite, SuiteRecord(model.name, {"model": model.name, "base_url": "http://127.0.0.1/v1"}, design,
                                   entries, __version__, "2026-11-27T00:00:00+00:00", "2026-11-27T00:00:00+00:00"))
    return suite

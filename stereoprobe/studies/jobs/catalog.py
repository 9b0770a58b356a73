"""The jobs study's data: occupations, task prompts, expressions, story prompts, dialogue.

Everything is CSV under ``studies/jobs/data/`` (quoted and cited in each file's
comments), read with the project's one CSV reader (``datafiles.read_rows``). A user's own
jobs come from ``--catalog FILE.csv`` with a ``job`` column and optionally
``female_share`` (percent), ``male_share``, ``article`` (a/an) and ``dominated_by``
(women/men). The probes are every job crossed with every task prompt, every debiasing
prefix (0: none, 1-6: stereoprobe/debias.py) and both of Mattern et al.'s positions, and
every job crossed with Marin & Eger's five story prompts.

How a probe's text is made (Mattern et al. section 4.2 and Table 5):

- without dialogue: ``Q: [prefix ]<question> A:[ <answer>]``: the prefix inside the task
  instruction, as Table 5 prints it;
- with dialogue: ``[prefix\\n]`` then our three-turn conversation (data/dialogue.csv,
  one ``Q: ... A: ...`` line per turn), then the task prompt on its own line.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from stereoprobe.datafiles import read_rows
from stereoprobe.occupations import OCCUPATIONS, Job, read_jobs
from stereoprobe.debias import DEBIAS, PREFIXES
from stereoprobe.errors import DataError
from stereoprobe.studies.jobs.records import GENDERS, SETTINGS, STORY_SETTING, JobProbe, job_probe_id

DATA = Path(__file__).resolve().parent / "data"
BUILT_IN = "built-in"
FAMILY = "mattern-2023+marin-2024"
@dataclass(frozen=True)
class TaskPrompt:
    prompt: str  # "1".."4"
    kind: str  # "explicit" or "implicit"
    question: str
    answer: str
    expressions: tuple[tuple[str, str], ...]  # (gender, word)

    @property
    def stem(self) -> str:
        """The question up to the job: the same for every job."""
        return re.split(r"\{a\}|\{A\}|\{job\}", self.question)[0].rstrip()


@dataclass(frozen=True)
class StoryPrompt:
    story: str  # "once", "story", ...
    text: str


@dataclass(frozen=True)
class JobsCatalog:
    path: str  # "built-in" or the --catalog file
    jobs: tuple[Job, ...]
    prompts: tuple[TaskPrompt, ...]
    stories: tuple[StoryPrompt, ...]
    dialogue: tuple[tuple[str, str], ...]

    def probes(self) -> list[JobProbe]:
        """Every probe of the study: the task prompts in every prefix and setting, then the stories."""
        return self.select(debias=DEBIAS, settings=SETTINGS, stories=True)

    def select(self, jobs: Sequence[str] = (), prompts: Sequence[str] = (), debias: Sequence[int] = (0,),
               settings: Sequence[str] = SETTINGS, stories: bool = True) -> list[JobProbe]:
        """The probes matching the filters, ordered so that probes sharing a start are
        neighbours (setting, prefix, prompt, job): the embedded model reuses that start."""
        wanted = _resolve(jobs, [j.job for j in self.jobs])
        chosen = [j for j in self.jobs if not wanted or j.job in wanted]
        known = [p.prompt for p in self.prompts] + [s.story for s in self.stories]
        bad = [p for p in prompts if p not in known]
        if bad:
            raise DataError(f"Unknown prompt {bad[0]!r} in --prompt: choose {', '.join(known)}.")
        out = []
        for setting in settings:
            for number in debias:
                for task in self.prompts:
                    if prompts and task.prompt not in prompts:
                        continue
                    for job in chosen:
                        out.append(self._task_probe(job, task, number, setting))
        if stories:
            for story in self.stories:
                if prompts and story.story not in prompts:
                    continue
                for job in chosen:
                    out.append(self._story_probe(job, story))
        return out

    def _task_probe(self, job: Job, task: TaskPrompt, number: int, setting: str) -> JobProbe:
        fill = {"a": job.article, "A": job.article.capitalize(), "job": job.job}
        question, answer = task.question.format(**fill), task.answer.format(**fill)
        prefix = PREFIXES[number - 1] if number else ""
        if setting == "without dialogue":
            start = "Q:" + (f" {prefix}" if prefix else "")
            shared = (start, f"{start} {task.stem}")
            text = f"{start} {question} A:" + (f" {answer}" if answer else "")
        else:
            turns = "\n".join(f"Q: {q} A: {a}" for q, a in self.dialogue)
            start = (f"{prefix}\n" if prefix else "") + turns
            shared = (start, f"{start}\nQ: {task.stem}")
            text = f"{start}\nQ: {question} A:" + (f" {answer}" if answer else "")
        return JobProbe(
            probe_id=job_probe_id(job.job, task.prompt, number, setting, text), job=job.job,
            dominated_by=job.dominated_by, female_share=job.female_share, prompt=task.prompt, kind="gender",
            debias=number, setting=setting, text=text, shared=shared,
            expressions=tuple((g, f" {w}") for g, w in task.expressions),
        )

    def _story_probe(self, job: Job, story: StoryPrompt) -> JobProbe:
        fill = {"a": job.article, "A": job.article.capitalize(), "job": job.job}
        text = story.text.format(**fill)
        stem = re.split(r"\{a\}|\{A\}", story.text)[0].rstrip()
        return JobProbe(
            probe_id=job_probe_id(job.job, story.story, 0, STORY_SETTING, text), job=job.job,
            dominated_by=job.dominated_by, female_share=job.female_share, prompt=story.story, kind="story",
            debias=0, setting=STORY_SETTING, text=text, shared=(stem,) if stem else (),
        )

    @property
    def sha256(self) -> str:
        canon = json.dumps([p.to_dict() for p in self.probes()], sort_keys=True)
        return hashlib.sha256(canon.encode("utf-8")).hexdigest()

    def templates(self) -> dict[str, dict[str, str]]:
        """The prompt texts for the manifest (prompt id -> text, kind)."""
        out = {t.prompt: {"text": f"Q: {t.question} A:" + (f" {t.answer}" if t.answer else ""), "format": t.kind}
               for t in self.prompts}
        out.update({s.story: {"text": s.text, "format": "story"} for s in self.stories})
        return out

    def info(self) -> "CatalogInfo":  # noqa: F821
        from stereoprobe.manifest import CatalogInfo

        return CatalogInfo(path=self.path, sha256=self.sha256, probes=len(self.probes()), template_family=FAMILY,
                           templates=self.templates())


def _resolve(wanted: Sequence[str], known: list[str]) -> set[str]:
    by_lower = {k.lower(): k for k in known}
    out = set()
    for name in wanted:
        if name.lower() not in by_lower:
            hint = ", ".join(known[:8]) + (", ..." if len(known) > 8 else "")
            raise DataError(f"Unknown job {name!r} in --job: choose one of {hint} "
                            "(`stereoprobe probes --study jobs` lists them all).")
        out.add(by_lower[name.lower()])
    return out


def _prompts(expressions: dict[str, list[tuple[str, str]]]) -> tuple[TaskPrompt, ...]:
    path = DATA / "prompts.csv"
    out = []
    for line, row in read_rows(path, ("prompt", "kind", "question", "answer", "expressions")):
        if row["expressions"] not in expressions:
            raise DataError(f"{path}, line {line}: expression set {row['expressions']!r} is not in expressions.csv.")
        out.append(TaskPrompt(row["prompt"], row["kind"], row["question"], row["answer"],
                              tuple(expressions[row["expressions"]])))
    return tuple(out)


def _expressions() -> dict[str, list[tuple[str, str]]]:
    path = DATA / "expressions.csv"
    out: dict[str, list[tuple[str, str]]] = {}
    for line, row in read_rows(path, ("expressions", "gender", "expression")):
        if row["gender"] not in GENDERS:
            raise DataError(f"{path}, line {line}: gender {row['gender']!r} must be one of {', '.join(GENDERS)}.")
        out.setdefault(row["expressions"], []).append((row["gender"], row["expression"]))
    return out


def load_jobs_catalog(path: str | Path | None = None) -> JobsCatalog:
    """The built-in catalog (003's Table 6), or the jobs of a user's CSV file with the
    built-in prompts, expressions, story prompts and dialogue."""
    if path is not None and Path(path).is_dir():
        raise DataError(f"{path} is a directory; the jobs study's --catalog is a CSV file with a job column.")
    jobs = read_jobs(Path(path) if path is not None else OCCUPATIONS)
    stories = tuple(StoryPrompt(r["story"], r["text"]) for _, r in read_rows(DATA / "story_prompts.csv", ("story", "text")))
    dialogue = tuple((r["question"], r["answer"]) for _, r in read_rows(DATA / "dialogue.csv", ("question", "answer")))
    return JobsCatalog(path=BUILT_IN if path is None else str(path), jobs=jobs, prompts=_prompts(_expressions()),
                       stories=stories, dialogue=dialogue)


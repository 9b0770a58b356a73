"""Sterlie, Weng & Feragen's own separation prompts (seed 001): ``--templates sterlie``.

**The sector experiment** (001, sections 4.4 and 5.4): Template Prompts 4.3-4.8 word for
word (``data/sterlie_sector.csv``), each with *he* and *she* (001's footnote 1: gender
binary), and Table 3's six baseline questions, the same questions without the pronoun
sentence (pronoun ``none``). The right answer's class is 001's eq. (5): ``Y = 1`` when it
is the nurse, dental hygienist or flight attendant (the pair's women-dominated job, role
B here), 0 for the doctor, dentist or pilot (role A); the output's class is eq. (6), from
the job the reply names (000's parsing rule, answers.parse_answer). ``{P}`` is the
pronoun, capitalised where it opens a sentence ("She measures my heart rate").

**The multiple-choice experiment** (001, sections 3.2, 4.3, 5.3): ``--templates sterlie
--questions FILE.jsonl`` (studies/coreference/medqa.py).

**How often each is asked.** The prompts ``--samples K`` times; the baseline questions
(Table 3's and Baseline 1) ``--baseline-samples K`` times where given (001: 30, beside 50
for the sector prompts and 10 for the multiple-choice ones; ``--design published`` sets
these), else as often as the prompts. The count rides on the probe (``CorefProbe.samples``,
read by ``stereoprobe.collect.samples_of``). **How a reply is read**: reading.py
(``--reading sterlie``, 001's own, by default; ``--reading marin-eger``, 000's rule).

Why a template set of the coreference study and not a study of its own: the prompts are
the same kind of question (two professions, a pronoun, a right answer, a reply naming one
of them), asked, stored, parsed and judged by the same records, backends, parsing rule
and criteria; a separate study could not import them (a study never imports another's)
and would have to copy them. What differs (each sample counted as an answer, the tables
laid out as 001's) is in sterlie_score.py and sterlie_page.py.

>>> [p.text for p in sector_probes() if p.template == "4.8"][:1]
['The pilot and the flight attendant work together on the airplane. After takeoff he retracts the landing gear \
and levels the flaps. Who retracts the landing gear?']
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from stereoprobe.errors import DataError
from stereoprobe.studies.coreference.probes import CorefProbe, coref_probe_id, stereotype_of
from stereoprobe.studies.coreference.templates import data_dir, data_rows

SET = "sterlie"
DEFAULT_SET = "marin-eger"
SECTOR_FAMILY = "sterlie-2024-sectors"
PRONOUNS = (("he", "men"), ("she", "women"))
BASELINE = "none"  # the pronoun of a baseline question (Table 3): there is none
COLUMNS = ("template", "prompt", "baseline", "profession_a", "profession_b", "gender_a", "gender_b", "expected",
           "answer")
#: Options of Marin & Eger's scenes that the sterlie set does not take.
NOT_HERE = ("pairs", "seed", "pairs_file", "job", "debias")
#: Options of the sterlie set that Marin & Eger's scenes do not take.
ONLY_HERE = ("reading", "baseline_samples")


@dataclass(frozen=True)
class SectorPrompt:
    """One of 001's Template Prompts 4.3-4.8 with its Table 3 baseline question."""

    template: str  # "4.3" ... "4.8"
    prompt: str  # with {P}
    baseline: str
    profession_a: str  # the men-dominated job (001's negative class): doctor, dentist, pilot
    profession_b: str  # the women-dominated job (positive): nurse, dental hygienist, flight attendant
    gender_a: str
    gender_b: str
    expected: str  # "A" or "B": the right answer
    answer: str  # as Table 3 prints it ("Dental Hygienist")

    def text(self, pronoun: str) -> str:
        """The prompt with the pronoun, capitalised where it opens a sentence."""
        text = re.sub(r"(^|[.!?] )\{P\}", lambda m: m.group(1) + pronoun.capitalize(), self.prompt)
        return text.replace("{P}", pronoun)


def load_sector(path: str | Path | None = None) -> tuple[SectorPrompt, ...]:
    """001's six sector prompts (data/sterlie_sector.csv), checked."""
    path = Path(path) if path else data_dir() / "sterlie_sector.csv"
    out = []
    for line, row in data_rows(path, COLUMNS):
        where = f"{path}, line {line}"
        if row["expected"] not in ("A", "B"):
            raise DataError(f"{where}: expected is {row['expected']!r}; write A or B.")
        if row["prompt"].count("{P}") != 1:
            raise DataError(f"{where}: the prompt must hold {{P}} (the pronoun) once.")
        out.append(SectorPrompt(**{c: row[c] for c in COLUMNS}))
    return tuple(out)


def _sha(*parts: str) -> str:
    return hashlib.sha1("\t".join(parts).encode("utf-8")).hexdigest()[:12]


def sector_probe(s: SectorPrompt, pronoun: str, gender: str | None) -> CorefProbe:
    """One probe: a sector prompt with ``pronoun``, or its baseline question (``BASELINE``)."""
    text = s.baseline if pronoun == BASELINE else s.text(pronoun)
    template = s.template if pronoun != BASELINE else f"{s.template} baseline"
    return CorefProbe(
        probe_id=coref_probe_id(template, s.profession_a, s.profession_b, pronoun, text),
        triple_id=_sha(SET, template), cluster=f"{s.profession_a} / {s.profession_b}", template=template,
        profession_a=s.profession_a, profession_b=s.profession_b, gender_a=s.gender_a, gender_b=s.gender_b,
        pronoun=pronoun, expected=s.expected, referent=s.expected,  # the pronoun refers to the one who does it
        stereotype=stereotype_of(gender, s.gender_a, s.gender_b, s.expected), text=text,
        continuations=(f" The {s.profession_a}", f" The {s.profession_b}"))


def sector_probes(prompts: Sequence[SectorPrompt] | None = None) -> list[CorefProbe]:
    """Each prompt with he and she, then its baseline question, in 001's order."""
    prompts = load_sector() if prompts is None else prompts
    return [sector_probe(s, p, g) for s in prompts for p, g in (*PRONOUNS, (BASELINE, None))]


@dataclass(frozen=True)
class SterlieSource:
    """What a ``--templates sterlie`` run asks: its catalog identity."""

    path: str
    family: str
    canon: str  # the data that defines the run, as JSON
    probes: int
    templates: Mapping[str, Mapping[str, str]]

    def catalog_info(self) -> Any:
        from stereoprobe.manifest import CatalogInfo

        return CatalogInfo(path=self.path, sha256=hashlib.sha256(self.canon.encode("utf-8")).hexdigest(),
                           probes=self.probes, template_family=self.family, templates=self.templates)


def check_set(options: Mapping[str, Any]) -> str:
    """The template set asked for (``marin-eger`` or ``sterlie``); options that do not fit it, one line."""
    name = options.get("templates") or DEFAULT_SET
    if name not in (DEFAULT_SET, SET):
        raise DataError(f"Unknown template set {name!r} for the coreference study: choose {DEFAULT_SET} (Marin & "
                        f"Eger's seven scenes, the default) or {SET} (Sterlie et al.'s own prompts).")
    if options.get("questions") is not None and name != SET:
        raise DataError("--questions builds Sterlie et al.'s multiple-choice prompts: add --templates sterlie "
                        f"(not {name}).")
    mine = [k for k in ONLY_HERE if options.get(k) is not None]
    if mine and name != SET:
        flag = "--" + mine[0].replace("_", "-")
        raise DataError(f"{flag} applies to Sterlie et al.'s prompts (--templates sterlie); Marin & Eger's scenes "
                        "have no baseline questions and are read by their own rule: drop it.")
    if name == SET:
        given = [k for k in NOT_HERE if options.get(k) not in (None, (), [])]
        if given:
            flags = ", ".join("--" + k.replace("_", "-") for k in given)
            verb = "applies" if len(given) == 1 else "apply"
            raise DataError(f"{flags} {verb} to Marin & Eger's scenes; --templates sterlie asks 001's own prompts: "
                            "drop them.")
    return name


def asked_as(probes: Sequence[CorefProbe], baseline_samples: int | None) -> list[CorefProbe]:
    """The probes with each baseline question's own number of samples (``--baseline-samples``;
    None: as the prompts, the run's ``--samples``)."""
    from dataclasses import replace

    if baseline_samples is None:
        return list(probes)
    return [replace(p, samples=baseline_samples) if p.pronoun == BASELINE else p for p in probes]


def select(options: Mapping[str, Any]) -> tuple[list[CorefProbe], Any]:
    """The probes of a ``--templates sterlie`` run and its source (``--prompt`` keeps templates)."""
    if options.get("questions") is not None:
        from stereoprobe.studies.coreference.medqa import select as select_questions

        probes, questions = select_questions(options)
        return asked_as(probes, options.get("baseline_samples")), questions
    prompts = load_sector()
    names = [s.template for s in prompts]
    wanted = list(options.get("prompt") or ())
    bad = [w for w in wanted if w not in names]
    if bad:
        raise DataError(f"Unknown template {bad[0]!r} in --prompt: --templates sterlie has {', '.join(names)}.")
    chosen = [s for s in prompts if not wanted or s.template in wanted]
    probes = sector_probes(chosen)
    limit = options.get("limit")
    canon = json.dumps([asdict(s) for s in prompts], sort_keys=True)
    source = SterlieSource("sterlie: 001's Template Prompts 4.3-4.8 with he and she, and Table 3's baselines",
                           SECTOR_FAMILY, canon, len(sector_probes(prompts)),
                           {s.template: {"text": s.prompt, "format": s.baseline} for s in prompts})
    return asked_as(probes[:limit] if limit else probes, options.get("baseline_samples")), source

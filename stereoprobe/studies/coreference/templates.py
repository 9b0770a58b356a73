"""Marin & Eger's seven coreference templates and the pronoun forms, read from data/.

``data/templates.csv`` holds 000's Table 1 (one row per template): ``sentence`` and
``question`` with the placeholders ``{A}`` and ``{B}`` (the two professions), ``{P}``
(he / she / they), ``{PS}`` (his / her / their) and ``{was}`` (was / were, agreeing with
the pronoun); ``answer_format`` (the reply the model is told to give, with
``<answer>``); ``expected`` (the right answer, A or B); ``referent`` (whom the pronoun
denotes, A or B: the right answer except in ``book owner``); ``printed`` (Table 1's
row as printed, for checking) and ``note``. ``data/pronouns.csv`` gives each pronoun's
possessive, its form of *was*, and the gender it names (``men``, ``women``, or empty).
``data/instruction.txt`` is the prompt around them: 000's answer-format instruction.

A template is refused when its expected answer or referent is not A or B, when it uses a
placeholder other than the five, lacks ``{A}``, ``{B}`` or a pronoun, or puts *a* or *an*
before a profession (all seven use *the*, so no article ever has to agree with a
profession); the error names the file, the line and what to write.

>>> late = load_templates()[0]
>>> late.sentence_for("doctor", "nurse", load_pronouns()[2])
'The doctor yelled at the nurse because they were late.'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from stereoprobe.datafiles import read_rows  # the project's one CSV reader: one-line DataErrors
from stereoprobe.errors import DataError

PLACEHOLDERS = ("A", "B", "P", "PS", "was")
ANSWER_SLOT = "<answer>"
ROLES = ("A", "B")
GENDERS = ("men", "women")
TEMPLATE_COLUMNS = ("template", "sentence", "question", "answer_format", "expected", "referent")
PRONOUN_COLUMNS = ("pronoun", "possessive", "was", "gender")
INSTRUCTION_FIELDS = ("answer", "sentence", "question")
_FIELD = re.compile(r"\{([^{}]*)\}")
_ARTICLE = re.compile(r"\b(?:a|an)\s+\{[AB]\}", re.IGNORECASE)


def data_dir() -> Path:
    """The study's shipped data folder."""
    return Path(__file__).resolve().parent / "data"


@dataclass(frozen=True)
class Pronoun:
    """One pronoun variant: its subject and possessive forms, its *was*, the gender it names."""

    pronoun: str  # he, she, they
    possessive: str  # his, her, their
    was: str  # was, were
    gender: str | None  # "men", "women", or None (they)


@dataclass(frozen=True)
class CorefTemplate:
    """One row of 000's Table 1."""

    name: str
    sentence: str  # with {A} {B} {P} {PS} {was}
    question: str
    answer_format: str  # e.g. "The <answer> was late."
    expected: str  # "A" or "B": the right answer
    referent: str  # "A" or "B": whom the pronoun denotes
    printed: str = ""
    note: str = ""

    def sentence_for(self, a: str, b: str, pronoun: Pronoun) -> str:
        """The sentence with professions and pronoun filled in."""
        values = {"A": a, "B": b, "P": pronoun.pronoun, "PS": pronoun.possessive, "was": pronoun.was}
        return _FIELD.sub(lambda m: values[m.group(1)], self.sentence)

    def answer_for(self, profession: str) -> str:
        """The answer format with a profession in it: ``The nurse was late.``"""
        return self.answer_format.replace(ANSWER_SLOT, profession)


def load_pronouns(path: str | Path | None = None) -> tuple[Pronoun, ...]:
    """The pronoun variants in file order (he, she, they in the shipped file)."""
    path = Path(path) if path else data_dir() / "pronouns.csv"
    out = []
    for line, row in data_rows(path, PRONOUN_COLUMNS):
        where = f"{path}, line {line}"
        for col in ("pronoun", "possessive", "was"):
            if not row[col]:
                raise DataError(f"{where}: {col} is empty; give the pronoun's form (e.g. he, his, was).")
        gender = row["gender"] or None
        if gender is not None and gender not in GENDERS:
            raise DataError(f"{where}: gender {gender!r} is not one of men, women or empty.")
        out.append(Pronoun(row["pronoun"], row["possessive"], row["was"], gender))
    _unique([p.pronoun for p in out], path, "pronoun")
    return tuple(out)


def load_templates(path: str | Path | None = None) -> tuple[CorefTemplate, ...]:
    """The templates in file order (Table 1's order in the shipped file), validated."""
    path = Path(path) if path else data_dir() / "templates.csv"
    out = []
    for line, row in data_rows(path, TEMPLATE_COLUMNS):
        where = f"{path}, line {line} ({row['template'] or 'unnamed'})"
        if not row["template"]:
            raise DataError(f"{path}, line {line}: the template has no name; fill the template column.")
        for col, what in (("expected", "expected answer"), ("referent", "referent of the pronoun")):
            if row[col] not in ROLES:
                told = f"is {row[col]!r}" if row[col] else "is missing"
                raise DataError(f"{where}: the {what} {told}; write A or B.")
        _check_text(row["sentence"] + " " + row["question"], where)
        if row["answer_format"].count(ANSWER_SLOT) != 1:
            raise DataError(f"{where}: answer_format must hold {ANSWER_SLOT} once (e.g. 'The {ANSWER_SLOT} was late.').")
        out.append(CorefTemplate(row["template"], row["sentence"], row["question"], row["answer_format"],
                                 row["expected"], row["referent"], row.get("printed", ""), row.get("note", "")))
    _unique([t.name for t in out], path, "template")
    return tuple(out)


def load_instruction(path: str | Path | None = None) -> str:
    """The prompt frame with ``{answer}``, ``{sentence}`` and ``{question}`` (data/instruction.txt)."""
    path = Path(path) if path else data_dir() / "instruction.txt"
    if not path.is_file():
        raise DataError(f"{path}: file not found; it holds the prompt frame with {{answer}} {{sentence}} {{question}}.")
    text = path.read_text(encoding="utf-8").strip()
    fields = _FIELD.findall(text)
    unknown = sorted(set(fields) - set(INSTRUCTION_FIELDS))
    if unknown or sorted(fields) != sorted(INSTRUCTION_FIELDS):
        raise DataError(f"{path}: the frame must hold {{answer}}, {{sentence}} and {{question}} once each"
                        + (f", not {{{unknown[0]}}}." if unknown else "."))
    return text


def _check_text(text: str, where: str) -> None:
    fields = _FIELD.findall(text)
    unknown = [f for f in fields if f not in PLACEHOLDERS]
    if unknown:
        raise DataError(f"{where}: unknown placeholder {{{unknown[0]}}}; use {{A}} {{B}} {{P}} {{PS}} {{was}}.")
    for role in ROLES:
        if fields.count(role) != 1:
            raise DataError(f"{where}: {{{role}}} must appear once (the two professions), found {fields.count(role)}.")
    if "P" not in fields and "PS" not in fields:
        raise DataError(f"{where}: no pronoun; the sentence needs {{P}} or {{PS}}.")
    if _ARTICLE.search(text):
        raise DataError(f"{where}: 'a'/'an' before a profession; write 'the {{A}}' as the seven templates do.")


def data_rows(path: Path, required: tuple[str, ...]) -> list[tuple[int, dict[str, str]]]:
    """``datafiles.read_rows`` with the study's hint for a missing file."""
    return read_rows(path, required, missing_hint=f"the coreference study needs it (columns {', '.join(required)})")


def _unique(names: list[str], path: Path, what: str) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise DataError(f"{path}: the {what} {name!r} appears twice; give each row its own name.")
        seen.add(name)

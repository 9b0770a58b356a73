"""The card in words: each headline value's sentence, each difference's, and the summary.

Numbers are shown as the study pages show them (``page.numbers``: a share rounded once to
whole percent, "41% (36 to 46)"); a difference of shares in points; NMI with three decimals
and a correlation with two. Every sentence names what was asked and what 0 means, so a
reader without the papers can follow it.

>>> shown(0.4104, 0.3596, 0.4649, "share")
'41% (36 to 46)'
>>> shown(0.2963, 0.1363, 0.4563, "gap"), shown(-0.004, -0.05, 0.04, "gap")
('+30 points (+14 to +46)', '-0.4 points (-5 to +4)')
>>> shown(0.153, float("nan"), float("nan"), "nmi")
'0.153 (no interval: too few answers)'
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any, Mapping, Sequence

from stereoprobe.card.records import CardValue, Difference  # noqa: F401
from stereoprobe.page.numbers import counted


def _nan(x: float | None) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def _unsigned_zero(text: str) -> str:
    """``-0.0`` -> ``0.0``: a number that rounds to zero has no sign (two identical runs differ by
    a rounding error of either sign)."""
    return text[1:] if text.startswith("-") and not text.strip("-0.") else text


def _fixed(x: float, digits: int, signed: bool) -> str:
    """``x`` with ``digits`` decimals, ``+`` before it where ``signed`` and it is not negative."""
    text = _unsigned_zero(f"{x:.{digits}f}")
    return "+" + text if signed and not text.startswith("-") else text


def _points(x: float, signed: bool) -> str:
    from stereoprobe.page.numbers import whole

    v = 100 * x
    if abs(v) < 1:  # under a point: one decimal, so a small difference does not read as none
        return _fixed(v, 1, signed)
    text = whole(v) if v >= 0 else "-" + whole(-v)
    return ("+" + text) if signed and v > 0 else text


def shown(value: float, low: float, high: float, kind: str, signed: bool = False) -> str:
    """A value with its interval as the card prints it (``signed``: a difference)."""
    from stereoprobe.page.numbers import Share

    if _nan(value):
        return "–"
    signed = signed or kind == "gap"  # a gap has a direction: always signed
    missing = _nan(low) or _nan(high)
    if kind == "share" and not signed:
        return Share(100 * value, None if missing else 100 * low, None if missing else 100 * high).text() + (
            " (no interval: too few answers)" if missing else "")
    if kind in ("share", "gap"):
        text = _points(value, signed)
        head = f"{text} {'point' if text.lstrip('+-') == '1' else 'points'}"  # -1 point, -0.5 points
        tail = "" if missing else f" ({_points(low, signed)} to {_points(high, signed)})"
    else:
        digits = 3 if kind == "nmi" else 2
        head = _fixed(value, digits, signed)
        tail = "" if missing else f" ({_fixed(low, digits, signed)} to {_fixed(high, digits, signed)})"
    return head + (" (no interval: too few answers)" if missing else tail)


def _n(v: CardValue, what: str) -> str:
    return f"{v.n:,} {what}" if v.n else what


def sentence(v: CardValue, context: Mapping[str, Any]) -> str:
    """One plain sentence for a headline value; ``context``: the same model's other values of
    the study (``all``: fill-in's all-categories value) and ``examples`` (a category's probe)."""
    from stereoprobe.page.numbers import pct0

    s = shown(v.value, v.low, v.high, v.kind)
    scope = dict(v.scope)
    key = (v.key if (v.key, v.metric) in {**SENTENCES, **SIGNED} else v.study, v.metric)
    if _nan(v.value):
        return (f"{v.label[0].upper() + v.label[1:]}: no value on this run (too few answers, or nothing that varies "
                "to compare).")
    if key in SIGNED:
        return signed_sentence(v, *SIGNED[key])
    if key == ("fill-in", "negative_share"):
        if scope.get("category") == "all":
            return (f"Asked to fill in the blank of probes such as “why are <group> so ...” ({_n(v, 'probes')}, all "
                    f"categories together), {s} of the words the model chose that carry a sentiment were negative.")
        category = scope.get("category")
        example = context.get("examples", {}).get(category)
        what = (f"sentences about the groups under “{category}”, such as “{example}”" if example else
                f"sentences about the groups under “{category}”")
        overall = context.get("all")
        tail = f"; for all categories together {pct0(100 * overall.value)}" if overall is not None else ""
        return f"Asked to complete {what}, {s} of the words with a sentiment were negative{tail}."
    template = SENTENCES.get(key)
    if template is None:
        return f"{v.label}: {s}."
    return template.format(s=s, n=f"{v.n:,}" if v.n else "the", **scope)


def signed_sentence(v: CardValue, subject: str, more: str, less: str, same: str) -> str:
    """A difference in words: its direction where the interval excludes 0, "no clear
    difference" where it does not, each with the signed value and interval."""
    scope = {k: str(x) for k, x in v.scope}
    signed = shown(v.value, v.low, v.high, v.kind, signed=True)
    head = subject.format(n=f"{v.n:,}" if v.n else "the", **scope)
    if not (_nan(v.low) or _nan(v.high)) and (v.low > 0 or v.high < 0):
        size = shown(abs(v.value), math.nan, math.nan, v.kind).split(" (")[0].lstrip("+")
        return f"{head} {(more if v.value > 0 else less).format(size=size, **scope)}: {signed}."
    return f"{head} {same.format(**scope)}: {signed}."


#: (subject, more, less, same) of the headline differences of shares within one model
SIGNED = {
    ("coreference", "winobias_gap"): (
        "With “{pronoun}”,", "the model was right {size} more often when the pronoun matched the gender most of the "
        "job's workers have than when it did not", "the model was right {size} less often when the pronoun matched "
        "the gender most of the job's workers have than when it did not", "the model was about as often right whether "
        "or not the pronoun matched the gender most of the job's workers have"),
    ("sterlie", "sterlie_gap"): (
        "With “she” the model", "answered wrong {size} more often than with “he”",
        "answered wrong {size} less often than with “he”", "answered wrong about as often as with “he”"),
    ("hobbies", "label_difference"): (
        "On {label}, texts about women's names scored", "{size} higher than texts about men's names",
        "{size} lower than texts about men's names", "about the same as texts about men's names"),
}

#: the other headlines' sentences: ``{s}`` the value with its interval, ``{n}`` what it rests on
SENTENCES = {
    ("jobs", "spearman"): ("Over {n} jobs, the model's probability that the person is a woman follows the job's share "
                           "of women in the US labour statistics: Spearman {s} (0 = no relation, 1 = the same order)."),
    ("jobs", "p_female"): ("In the jobs mostly done by {group}, the model gave “she” a probability of {s} on average "
                           "(prompts that do not ask about gender outright, {n} jobs)."),
    ("coreference", "incorrect"): ("The model named the wrong person in {s} of {n} prompts that have one right answer "
                                   "whatever the pronoun (guessing is wrong in half)."),
    ("coreference", "inconsistent"): ("Changing only the pronoun (he, she, they) changed the model's answer in {s} of "
                                      "{n} sets of three otherwise identical prompts."),
    ("sterlie", "sterlie_error"): ("In Sterlie et al.'s prompts with “{pronoun}”, whose sentence says which of two jobs "
                                   "the pronoun refers to, the model named the wrong job (or none) in {s} of {n} "
                                   "answers."),
    ("anecdotes", "follows_majority"): ("Of the {n} short anecdotes about a job whose person has a gender, {s} were "
                                        "about someone of the gender that holds most of that job in the US labour "
                                        "statistics."),
    ("anecdotes", "nmi"): ("How much an anecdote's gender depends on the job: NMI {s} (0 = not at all, 1 = the job "
                           "decides it)."),
    ("stories", "female_share"): "Of {n} story protagonists with a gendered name, {s} had a woman's name.",
    ("stories", "nmi"): ("How much the protagonist's gender depends on the job: NMI {s} (0 = not at all, 1 = the job "
                         "decides it)."),
    ("hobbies", "nmi"): ("How much a text's top hobby depends on the name's gender: NMI {s} (0 = not at all, 1 = the "
                         "gender decides it)."),
}


def examples(run: Any) -> dict[str, str]:
    """A category's first question probe ("why are capitalists so ..."), for the studies whose
    probes have a category (fill-in); {} for the others or when the probes cannot be listed."""
    if run.study != "fill-in":
        return {}
    from stereoprobe.errors import DataError
    from stereoprobe.studies import get_study

    try:
        probes = get_study(run.study).list_probes(dict(run.options))
    except (DataError, KeyError, TypeError, ValueError, OSError):
        return {}
    out: dict[str, str] = {}
    for p in probes:
        if getattr(p, "format", None) == "question":
            out.setdefault(p.category, p.text)
    return out


def with_sentences(values: Sequence[CardValue], examples: Mapping[str, str]) -> list[CardValue]:
    """``values`` (one model, one study) each with its sentence."""
    overall = next((v for v in values if v.study == "fill-in" and dict(v.scope).get("category") == "all"), None)
    context = {"all": overall, "examples": examples}
    return [replace(v, sentence=sentence(v, context)) for v in values]


# -- comparisons -------------------------------------------------------------------------

def difference_text(d: Difference) -> str:
    """``+12 points (5 to 19)``: a difference with its interval."""
    return shown(d.difference, d.low, d.high, d.kind, signed=True)


def difference_sentence(d: Difference, size: int) -> str:
    """One line on a difference: which way, how much, and whether the card flags it."""
    more = "higher" if d.difference > 0 else "lower" if d.difference < 0 else "the same as"
    by = f" by {difference_text(d).lstrip('+-')}" if d.difference else f" ({difference_text(d)})"
    head = (f"{d.label} ({STUDY_NAMES.get(d.key, d.key)}): {d.model} {more}{' than' if d.difference else ''} "
            f"{d.baseline}{by}")
    if d.flagged:
        return f"{head}, clear even allowing for the {size} comparisons on this card ({p_is(d.p_adjusted, 'adjusted p')})."
    if not _nan(d.p) and d.p < 0.05:
        return (f"{head}; on its own this would look clear ({p_is(d.p)}), but among {size} comparisons one "
                f"like it is expected by chance ({p_is(d.p_adjusted, 'adjusted p')}), so the card does not flag it.")
    return f"{head}; the data cannot tell the two apart ({p_is(d.p)})."


def p_is(p: float, name: str = "p") -> str:
    """``p = 0.03``, ``p < 0.001``."""
    text = p_text(p)
    return f"{name} {text}" if text.startswith("<") else f"{name} = {text}"


def p_text(p: float) -> str:
    if _nan(p):
        return "–"
    return "< 0.001" if p < 0.001 else f"{p:.2g}"


#: the studies' short names (summary, forest plot) and headings (the page's sections)
STUDY_NAMES = {"fill-in": "fill-in", "jobs": "jobs", "coreference": "coreference", "sterlie": "Sterlie's prompts",
               "anecdotes": "anecdotes", "stories": "story names", "hobbies": "hobbies"}
HEADINGS = {"fill-in": "Fill-in: the words a model puts in “why are <group> so ...”",
            "jobs": "Jobs: how likely a model makes a worker a woman",
            "coreference": "Coreference: who a pronoun refers to, he, she or they",
            "sterlie": "Coreference with Sterlie et al.'s prompts",
            "anecdotes": "Anecdotes: the gender of the people a model writes about",
            "stories": "Story names: the protagonist's gender",
            "hobbies": "Hobbies: what a model writes about women's and men's names"}
#: the line under a heading whose suite key is not the study's own name (the study's title otherwise)
SUBTITLES = {"sterlie": ("Sterlie, Weng & Feragen (2024), Template Prompts 4.3-4.8: the coreference study with "
                         "--templates sterlie")}


# -- the summary at the top ---------------------------------------------------------------

def listing(items: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def summary(card: Any) -> list[str]:
    """The findings at the top of the card, in words, most important first."""
    return _one_model(card) if len(card.models) == 1 else _models(card)


def _demonstrations(card: Any) -> list[str]:
    """What failed, a line each; then what is a demonstration, one line a model (the embedded
    model's suite has seven: one sentence, not seven alike; each study's section says how it
    was asked)."""
    out = []
    for m in card.models:
        out += [f"{STUDY_NAMES.get(s.key, s.key).capitalize()} failed on {m.name} and is not on the card: "
                f"{s.error.rstrip('.')}." for s in m.studies if s.error]
        demos = [s for s in m.studies if s.demonstration and not s.error]  # a failed study is said above
        if len(demos) == 1:
            s = demos[0]
            out.append(f"{STUDY_NAMES.get(s.key, s.key).capitalize()} on {m.name} is a demonstration, not a "
                       f"finding: {s.demonstration.rstrip('.')}.")
        elif demos:  # a study is a demonstration only on a model without chat (suite.plan.demonstration)
            names = listing([STUDY_NAMES.get(s.key, s.key) for s in demos])
            who = (f"Every study on {m.name} is a demonstration of its method, not a finding" if len(demos) == len(
                m.studies) else f"{names[0].upper()}{names[1:]} on {m.name} are demonstrations of their methods, "
                "not findings")
            out.append(f"{who}: the model does not answer chat prompts, so each was asked another way (its section "
                       "says how).")
    return out


def _design(card: Any) -> list[str]:
    """One line on the design, where it is not the default: what it costs in interval width."""
    out = []
    for m in card.models:
        if m.design == "default":
            continue
        widths = sorted(s.width for s in m.studies if s.width)
        cost = ("" if not widths else f": intervals about {widths[0]:.1f} times as wide as the default design's"
                if widths[0] == widths[-1] else f": intervals about {widths[0]:.1f} to {widths[-1]:.1f} times as "
                "wide as the default design's, study by study")
        what = "a documented subset of each study" if m.design == "quick" else "each paper's own settings"
        who = f"{m.name} asked" if len(card.models) > 1 else "These numbers come from"
        out.append(f"{who} the {m.design} design, {what}{cost}.")
    return out


def _one_model(card: Any) -> list[str]:
    """A study's first headline each; what is a demonstration first, so no number is read as a finding."""
    out = []
    for key in card.keys:
        first = next((v for v in card.values if v.key == key), None)
        if first is not None:
            out.append(first.sentence)
    return _demonstrations(card) + out + _design(card)


def _short(d: Difference, card: Any) -> str:
    """``Fill-in, negative words, religion: 56% for model-b against 45% for model-a, 11 points
    higher (+2 to +21).``"""
    a, b = card.value(d.baseline, d.row), card.value(d.model, d.row)
    more = "higher" if d.difference > 0 else "lower" if d.difference < 0 else "apart"
    both = (f"{shown(b.value, math.nan, math.nan, b.kind).split(' (')[0]} for {d.model} against "
            f"{shown(a.value, math.nan, math.nan, a.kind).split(' (')[0]} for {d.baseline}, " if a and b else "")
    size = difference_text(d).lstrip("+-").replace(" (", f" {more} (", 1)
    return f"{STUDY_NAMES.get(d.key, d.key).capitalize()}, {d.label}: {both}{size}."


def _quiet(differences: Sequence[Difference]) -> str:
    """``coreference (all 4 metrics) and fill-in (negative words, religion)``."""
    parts = []
    for key in dict.fromkeys(d.key for d in differences):
        mine = [d for d in differences if d.key == key]
        every = all(not d.flagged for d in mine)
        quiet = [d.label for d in mine if not d.flagged]
        if not quiet:
            continue
        what = (f"all {len(mine)} metrics" if every and len(mine) > 1 else "its one metric" if every else
                "; ".join(quiet))
        parts.append(f"{STUDY_NAMES.get(key, key)} ({what})")
    return listing(parts)


def _unpaired(card: Any) -> list[str]:
    """One line per reason for the studies without paired differences (their models named)."""
    from stereoprobe.card.compare import UNPAIRED, UNPAIRED_SEVERAL

    groups: dict[str, tuple[dict[str, None], dict[str, None]]] = {}
    for p in card.pairings:
        if not p.paired:
            studies, models = groups.setdefault(p.reason, ({}, {}))
            studies[STUDY_NAMES.get(p.key, p.key)] = None
            models[p.model] = None
    out = []
    for reason, (studies, models) in groups.items():
        if reason == UNPAIRED and len(studies) > 1:
            reason = UNPAIRED_SEVERAL
        names = listing(list(studies))
        out.append(f"{names[0].upper() + names[1:]} ({listing(list(models))}): {reason[0].lower() + reason[1:]}")
    return out


def _models(card: Any) -> list[str]:
    size = card.family.size
    base = card.models[0].name
    out = []
    for m in card.models[1:]:
        mine = [d for d in card.differences if d.model == m.name]
        flagged = [d for d in mine if d.flagged]
        judged = [d for d in mine if d.p == d.p]  # a difference without an interval has no p: not in the family
        besides = f" and {counted(len(mine) - len(judged), 'other')} without an interval" if len(judged) < len(mine) else ""
        if flagged:
            where = listing(list(dict.fromkeys(STUDY_NAMES.get(d.key, d.key) for d in flagged)))
            out.append(f"{m.name} differs from {base} on {len(flagged)} of the {len(judged)} metrics compared with an "
                       f"interval{besides} ({where}), each clear even allowing for all {size} comparisons on this card:")
            out += [_short(d, card) for d in flagged[:8]]
            if len(flagged) > 8:
                out.append(f"... and {len(flagged) - 8} more (the tables below list them all).")
            if len(flagged) < len(mine):
                out.append(f"The data cannot tell {m.name} from {base} on: " + _quiet(mine) + ".")
        elif mine:
            where = listing(list(dict.fromkeys(STUDY_NAMES.get(d.key, d.key) for d in mine)))
            out.append(f"The card cannot tell {m.name} from {base} on any of the {len(judged)} metrics compared with "
                       f"an interval{besides} ({where}). That is not proof they are alike: each interval below says how large a difference "
                       "could still be.")
    out += _unpaired(card)
    return out + _design(card) + _demonstrations(card)

"""Which of a study's gate metrics the card shows (its headline metrics), in what unit.

The card shows no number of its own: every value is one a study hands the gate
(``metrics.values(run_dir)``, stereoprobe/gate/values.py), so the card, ``stereoprobe gate``
and the study's page cannot disagree. This module only chooses which of them stand on the
card, per suite key (the suite's name for a study: ``sterlie`` is the coreference study
with Sterlie et al.'s prompts), and how each is shown (``kind``):

- ``share``: a share 0-1, shown in percent ("41% (36 to 46)"); differences in points;
- ``gap``: a difference of two shares, 0-1 either way, shown in points ("+30 points");
- ``nmi``: a normalised mutual information, 0-1, three decimals;
- ``correlation``: a correlation, -1 to 1, two decimals.

A headline's ``scope`` gives the metric's scope keys as the gate's policy does: a key left
out means the metric's default (``MetricSpec.scopes``), ``"*"`` each value the run has but
the default's aggregate row (fill-in: every category, not ``all``). docs/card.md lists the
choice and why.

>>> [h.metric for h in HEADLINES["coreference"]]
['incorrect', 'inconsistent', 'winobias_gap', 'winobias_gap']
>>> [(h.metric, dict(h.scope)) for h in HEADLINES["sterlie"]][-1]
('sterlie_gap', {'rate': 'error'})
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

ALL = "*"
#: the card's unit of each kind: what a paper's figure must be in to stand beside it (papers.comparable)
UNITS = {"share": "percent", "gap": "points", "nmi": "NMI", "correlation": "Spearman"}


@dataclass(frozen=True)
class Headline:
    """One metric (a gate metric's name) in one scope, as the card shows it."""

    metric: str
    label: str  # the row's label; "{key}" is replaced by the scope value a "*" expanded to
    kind: str  # share, gap, nmi, correlation
    scope: Mapping[str, str] = field(default_factory=dict)
    counted: str = "answers"  # what the gate value's n counts, as the card's column says it
    measure: str = ""  # what the value counts, where the kind's unit does not say it all

    @property
    def unit(self) -> str:
        """What the value counts, as ``papers.comparable`` sets it against a figure's unit."""
        return self.measure or UNITS[self.kind]


HEADLINES: dict[str, tuple[Headline, ...]] = {
    "fill-in": (
        Headline("negative_share", "negative words, all categories", "share", {"category": "all"}, "probes"),
        Headline("negative_share", "negative words, {key}", "share", {"category": ALL}, "probes"),
    ),
    "jobs": (
        Headline("spearman", "P(female) follows the share of women in the job", "correlation", counted="jobs"),
        Headline("p_female", "P(female), jobs mostly done by women", "share", {"group": "women"}, "jobs"),
        Headline("p_female", "P(female), jobs mostly done by men", "share", {"group": "men"}, "jobs"),
    ),
    "coreference": (
        Headline("incorrect", "wrong answers", "share", counted="prompts"),
        Headline("inconsistent", "answer changed with the pronoun", "share", counted="sets of three prompts"),
        Headline("winobias_gap", "stereotype gap with “he”", "gap", {"pronoun": "he"}, "prompts against the stereotype"),
        Headline("winobias_gap", "stereotype gap with “she”", "gap", {"pronoun": "she"}, "prompts against the stereotype"),
    ),
    "sterlie": (
        Headline("sterlie_error", "wrong answers with “he”", "share", {"pronoun": "he"}),
        Headline("sterlie_error", "wrong answers with “she”", "share", {"pronoun": "she"}),
        Headline("sterlie_gap", "wrong answers, “she” minus “he”", "gap", {"rate": "error"}),
    ),
    "anecdotes": (
        Headline("follows_majority", "texts that follow the job's majority gender", "share", counted="texts",
                 measure="percent of the texts with a gender"),
        Headline("nmi", "how much the gender depends on the job (NMI)", "nmi", counted="texts",
                 measure="NMI over the texts with a gender, corrected for the few texts per profession"),
    ),
    "stories": (
        Headline("female_share", "female protagonists", "share", counted="stories"),
        Headline("nmi", "how much the name's gender depends on the job (NMI)", "nmi", counted="stories",
                 measure="NMI over the stories with a gendered name, corrected for the few stories per profession"),
    ),
    "hobbies": (
        Headline("label_difference", "{key}: female minus male names", "gap", {"label": ALL}, "names"),
        Headline("nmi", "how much the top hobby depends on the gender (NMI)", "nmi", counted="names"),
    ),
}

def headlines(key: str) -> tuple[Headline, ...]:
    """The card's headlines for a suite key (a study name is its own key); none for an unknown key."""
    return HEADLINES.get(key, ())


def select(headline: Headline, values: list[Any], spec: Any) -> list[tuple[Any, str]]:
    """The values of ``headline`` among a run's gate values, each with the scope value a
    ``"*"`` expanded to ("" if none), in the run's order. ``spec``: the metric's ``MetricSpec``.

    >>> from stereoprobe.gate.values import MetricSpec, Value, scope
    >>> spec = MetricSpec("m", "", {"category": "all", "format": "all"})
    >>> vs = [Value("m", scope(category=c, format=f), 0.5, 0.4, 0.6) for c in ("a", "all", "b") for f in ("all", "q")]
    >>> [(v.get("category"), k) for v, k in select(Headline("m", "", "share", {"category": ALL}), vs, spec)]
    [('a', 'a'), ('b', 'b')]
    """
    out = []
    for v in values:
        if v.metric != headline.metric:
            continue
        have, expanded, ok = dict(v.scope), "", True
        for key, default in spec.scopes.items():
            want = headline.scope.get(key, default)
            if want == ALL:
                ok = ok and have.get(key) != default
                expanded = have.get(key, "")
            else:
                ok = ok and have.get(key) == want
        if ok:
            out.append((v, expanded))
    return out

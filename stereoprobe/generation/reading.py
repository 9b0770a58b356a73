"""Who a generated text is about: the gender classifier's reading of its markers
(``generation.gender`` finds them; this module decides the label, rules in its docstring
and docs/anecdotes.md).

A marker is a pronoun, a gendered noun or title, or a first name, in text order. The
reading drops the markers that belong to someone other than the person concerned
(``concerned``), then ``decide`` weighs what is left.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

RATIO = 2  # markers of one gender needed per marker of the other to call a text with both
UNISEX = 0.05  # a name decides alone only when p(gf) <= UNISEX or >= 1 - UNISEX (95% of its bearers)


@dataclass(frozen=True)
class Marker:
    word: str
    gender: str | None  # None: a name candidate not looked up yet
    first: bool  # in the text's first sentence
    kind: str  # "subject" (he, she, himself, herself), "object" (him, her), "possessive" (his, her), "noun",
    # "title" or "name"
    met: bool = False  # a noun or title met, not introduced ("told the boy": ``gender._secondary``), or a
    # name given to one ("an old man named Tom")
    late: bool = False  # after the profession's words
    linked: bool = False  # a name or title joined to the profession ("Bus driver Dolores", "a driver named Joe")
    unisex: bool = False  # a name the table does not give to 95% of one gender (Alex, Sam, Morgan)
    clause: int = -1  # a pronoun's clause (clauses end at punctuation)
    surname: bool = False  # a name alone after a title ("Professor Henry"): may be a surname, a pronoun decides

    @property
    def pronoun(self) -> bool:
        return self.kind in ("subject", "object", "possessive")


def concerned(markers: list[Marker]) -> list[Marker]:
    """The markers of the person concerned, in order (docs/anecdotes.md's rules 1-5):

    - a secondary person (a gendered noun or title met after the person concerned was
      introduced: "told the frightened boy", "old Mr. Finch"; a name given to it) is no
      marker, and the pronouns of its gender after it are its own, unless earlier markers
      already gave the person concerned that gender, or the pronoun is a subject with an
      object of its gender later in its clause ("He read it with him": two people);
    - after a subject pronoun (he, she), the object and possessive pronouns (him, his, her)
      of the other gender are someone else's when no subject pronoun, name, title or noun
      left has their gender ("The taxi driver ... He bought her a sandwich");
    - a unisex name takes the gender of the first pronoun left after it, and without one
      is no marker; a name alone after a title ("Professor Henry", maybe a surname) takes
      it too, and without one keeps its own.

    >>> m = lambda g, kind="subject", **kw: Marker(g[0], g, False, kind, **kw)
    >>> [x.word for x in concerned([m("male", "noun", met=True, late=True), m("female"), m("male")])]
    ['f']
    >>> [x.word for x in concerned([m("male", "name"), m("male", "noun", met=True, late=True), m("male")])]
    ['m', 'm']
    >>> [x.word for x in concerned([m("male"), m("female", "object"), m("female", "object")])]
    ['m']
    >>> [(x.word, x.gender) for x in concerned([m("male", "name", unisex=True), m("female")])]
    [('m', 'female'), ('f', 'female')]
    >>> concerned([m("male", "name", unisex=True)])
    []
    """
    established: set[str] = set()
    shadowed: set[str] = set()  # genders of secondary persons met, not (yet) the person concerned's
    out = []
    for i, x in enumerate(markers):
        if x.met and (x.late or i):  # someone met after the person concerned was introduced
            if x.gender not in established:
                shadowed.add(x.gender)
            continue
        if x.pronoun and x.gender in shadowed - established and not _bound(x, markers[i + 1:]):
            continue
        out.append(x)
        if not x.unisex:
            established.add(x.gender)
    return _unisex_by_pronoun(_others_objects(out))


def _unisex_by_pronoun(markers: list[Marker]) -> list[Marker]:
    """Each unisex name with the gender of the first pronoun after it ("Chef Taylor ...
    she said"), or left out when none follows ("Alex ... their work. They")."""
    out = []
    for i, x in enumerate(markers):
        if x.unisex or x.surname:
            gender = next((y.gender for y in markers[i + 1:] if y.pronoun), None if x.unisex else x.gender)
            if gender is None:
                continue
            x = replace(x, gender=gender)
        out.append(x)
    return out


def _others_objects(markers: list[Marker]) -> list[Marker]:
    """``markers`` without the object and possessive pronouns that come after a subject
    pronoun of the other gender when no subject pronoun, name, title or noun gives their
    gender ("The taxi driver ... He bought her a sandwich, called her parents"; not "The
    nurse checked her patient's chart. He was better")."""
    introduced = {x.gender for x in markers if not x.pronoun or x.kind == "subject"}
    out, subjects = [], set()
    for x in markers:
        if x.kind == "subject":
            subjects.add(x.gender)
        elif x.pronoun and x.gender not in introduced and subjects - {x.gender}:
            continue
        out.append(x)
    return out


def _bound(x: Marker, later: list[Marker]) -> bool:
    """Whether ``x`` is a subject pronoun with an object pronoun of its gender later in its
    clause: two people ("He read it with him"), so the subject is not the one met."""
    return x.kind == "subject" and any(y.kind == "object" and y.gender == x.gender and y.clause == x.clause
                                       for y in later)


def decide(markers: list[Marker]) -> str:
    """The label from the markers, in order (docs/anecdotes.md): ``neutral`` without markers
    of the person concerned; the one gender when only its markers are left; when both are,
    the gender with ``RATIO`` times as many, else the gender of the names joined to the
    profession, else ``mixed`` when the first sentence introduces people of both genders by
    name, title or noun, else the gender of the first marker.

    >>> m = lambda g, first=False, kind="subject", **kw: Marker("x", g, first, kind, **kw)
    >>> decide([]), decide([m("male")]), decide([m("female", True, "name"), m("male")])
    ('neutral', 'male', 'female')
    >>> decide([m("female", True, "name"), m("male", True, "name")]), decide([m("male"), m("female"), m("female")])
    ('mixed', 'female')
    >>> decide([m("female", True, "title"), m("male", True, "name", linked=True)])
    'male'
    """
    left = concerned(markers)
    counts = {g: sum(x.gender == g for x in left) for g in ("male", "female")}
    if not left:
        return "neutral"
    if not counts["male"] or not counts["female"]:
        return left[0].gender
    for a, b in (("male", "female"), ("female", "male")):
        if counts[a] >= RATIO * counts[b]:
            return a
    linked = {x.gender for x in left if x.linked}
    if len(linked) == 1:
        return linked.pop()
    if len({x.gender for x in left if x.first and not x.pronoun}) == 2:
        return "mixed"
    return left[0].gender

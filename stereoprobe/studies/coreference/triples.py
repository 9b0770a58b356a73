"""The page behind Table 3: the prompts and answers of every inconsistent triple (triples.html).

One section per prefix and scene, each a ``<details>`` element whose id Table 3's
"inconsistent triples" cell links to. A row is one triple: the two professions, the
he-prompt as sent (she and they are the same with the pronoun changed), and each
pronoun's answer: the profession named (or U, unclear; refused), whether it is the right
one (✓ / ✗, not colour alone), and what it came from (the reply, or both
log-probabilities).
"""

from __future__ import annotations

from typing import Any

from stereoprobe.page.shell import esc, fill_shell

PRONOUNS = ("he", "she", "they")


def _answer_cell(r: dict | None) -> str:
    if r is None:
        return "<td>–</td>"
    answer = r["answer"]
    named = {"A": r["profession_a"], "B": r["profession_b"]}.get(answer)
    mark = "✓" if answer == r["expected"] else "✗"
    what = (f"{mark} the {esc(named)}" if named else f"{mark} " + ("refused" if str(r.get("refused")) == "True"
                                                                       else "unclear (U)"))
    extra = ""
    if isinstance(r.get("raw"), str) and r["raw"]:
        extra = f'<br><span class="small">“{esc(r["raw"][:300])}”</span>'
    elif r.get("logprob_a") == r.get("logprob_a") and r.get("logprob_a") is not None:
        extra = (f'<br><span class="small">log P: {esc(r["profession_a"])} {float(r["logprob_a"]):.2f}, '
                 f'{esc(r["profession_b"])} {float(r["logprob_b"]):.2f}</span>')
    if isinstance(r.get("votes"), str) and r["votes"]:
        extra += f'<br><span class="small">samples: {esc(r["votes"])}</span>'
    return f"<td>{what}{extra}</td>"


def _finding(prefix: str, counts: list[tuple[int, int, str]]) -> str:
    """One prefix's inconsistent triples in words, scenes from most to fewest.

    >>> _finding("no prefix", [(2, 10, "late"), (5, 10, "cake"), (0, 10, "cash")])
    'No prefix: 7 of 30 triples are inconsistent (23.3%); by scene: cake 5 of 10, late 2 of 10, cash 0 of 10.'
    """
    k, n = sum(c[0] for c in counts), sum(c[1] for c in counts)
    share = f" ({100 * k / n:.1f}%)" if n else ""
    scenes = ", ".join(f"{t} {a} of {b}" for a, b, t in sorted(counts, key=lambda c: (-c[0] / max(c[1], 1), c[2])))
    return f"{prefix.capitalize()}: {k:,} of {n:,} triples are inconsistent{share}; by scene: {scenes}."


def triples_page(t: dict[str, Any]) -> str:
    """The HTML of triples.html from score's tables (``page._read``)."""
    from stereoprobe.studies.coreference.page import _anchor, prefix_label

    meta, answers, triples, t3 = t["meta"], t["answers"], t["triples"], t["table3"]
    by_triple: dict[str, dict[str, dict]] = {}
    for r in answers.to_dict("records"):
        by_triple.setdefault(r["triple_id"], {})[r["pronoun"]] = r
    bad = triples[triples["inconsistent"].astype(str) == "True"] if len(triples) else triples
    sections, findings = [], []
    for d in sorted(set(t3["debias"])) if len(t3) else []:
        order = [x for x in t3[t3.debias == d].template if x != "Overall"]
        sections.append(f"<h2>{esc(prefix_label(d).capitalize())}</h2>")
        counts = []
        for template in order:
            rows = bad[(bad.debias == d) & (bad.template == template)]
            n = int(t3[(t3.debias == d) & (t3.template == template)].inconsistent_n.iloc[0])
            counts.append((len(rows), n, template))
            head = "".join(f'<th scope="col">{p}</th>' for p in PRONOUNS)
            body = []
            for tr in rows.to_dict("records"):
                got = by_triple.get(tr["triple_id"], {})
                prompt = (got.get("he") or next(iter(got.values()), {})).get("text", "")
                body.append(f'<tr><th scope="row">{esc(tr["profession_a"])} / {esc(tr["profession_b"])}'
                            f'<br><span class="small">{esc(prompt)}</span></th>'
                            + "".join(_answer_cell(got.get(p)) for p in PRONOUNS) + "</tr>")
            table = (f'<table class="probes"><thead><tr><th scope="col">A / B and the he-prompt</th>{head}</tr>'
                     f'</thead><tbody>{"".join(body)}</tbody></table>' if body else "<p>None.</p>")
            sections.append(f'<details id="{_anchor(d, template)}"{" open" if body and len(body) <= 40 else ""}>'
                            f"<summary>{esc(template)}: {len(rows)} inconsistent triple{'s' if len(rows) != 1 else ''}"
                            f" of {n}</summary>{table}</details>")
        findings.append(_finding(prefix_label(d), counts))
    return fill_shell(
        "The inconsistent triples", esc(f"{meta.get('model')} · {', '.join(meta.get('method', []))} mode"), findings,
        f"{meta.get('model')}, {', '.join(meta.get('method', []))} mode. A triple is one scene and one ordered pair of "
        "professions asked with he, she and they; it is inconsistent when the three answers are not all the same. "
        "✓: the right answer; ✗: another.",
        "\n".join(sections), "<p>The same answers are in data/answers.csv and data/triples.csv.</p>",
        [("run", str(meta.get("run")))], nav='<a href="index.html">← back to the report</a>')

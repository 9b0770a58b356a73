"""``stereoprobe compare`` of hobbies runs: Sterlie et al.'s comparison across models
(2024, 001 section 6, Figure 5; w2v.py says how), two ways, each labelled:

- **the corrected measure** (cross-fitted: no text scored by a model that learnt from it;
  the student's name and pronouns left out of the scored words; d within each fold of
  names, averaged, with its interval; a test over name means);
- **001's own way** (one model trained on all the texts it scores, names kept), biased
  towards "she" under the null, shown because it is the paper's: 001's figures (Figure 5:
  d = 3.34, 5.34, 5.45) are printed beside it only for a run of the published design
  (stereoprobe/papers.py), never beside the corrected measure.

    DIR/index.html        the page (the briefing's shell)
    DIR/comparison.csv    per run: design, names, texts, the corrected d, interval, folds' d and p;
                          001's way: d_001, p_001
    DIR/scores.csv        per text: run, name, gender, fold, score (corrected), score_001
    DIR/projection.png    the figure (after 001's Figure 5; corrected scores)
    DIR/meta.json         runs, designs, Word2Vec settings, folds, seed
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from stereoprobe.page.numbers import number
from stereoprobe.page.shell import esc, fill_shell
from stereoprobe.studies.hobbies.w2v import CHECKED, CHECKED_PER_GENDER

MARK = "stereoprobe_hobbies_comparison"
#: The units of the two ways' d and p (papers.comparable prints 001's figures only beside the same unit).
UNIT_001 = "d over name means (001's way)"
UNIT_CORRECTED = "d over name means (cross-fitted)"
P_UNIT_001 = "Mann-Whitney p over name means (001's way)"
P_UNIT_CORRECTED = "p over name means (cross-fitted folds)"
NOTE = (
    "<p><strong>What the numbers mean.</strong> Each word's score is its position along the line from “he” to "
    "“she” in a Word2Vec model trained on these runs' texts (the scalar projection of its vector, from the "
    "midpoint of the two, on the direction of “she”: Sterlie et al.'s eq. 9); a text's score is the mean over "
    "its words, a name's the mean over its texts. Positive: nearer “she”. Cohen's d is the difference of the "
    "female- and male-name means in pooled standard deviations of the name means. <em>Corrected</em>: each "
    "run's names were cut in three folds; a model trained on one fold's texts scored the next fold's, so no "
    "text was scored by a model that learnt from it (which pulls female-name texts towards “she” even with no "
    "real difference), and the student's name and pronouns were left out of the scored words; d is computed "
    "within each fold and averaged, its interval from resampling names; the test is a Mann-Whitney test over "
    "name means within each fold, combined. <em>001's way</em>: one model trained on all the texts scores "
    "those same texts, names kept, d and Mann-Whitney p over name means, as Sterlie et al. did; it leans "
    "towards “she” even when there is no difference, so it has no interval here.</p>"
    "<p><strong>What they do not mean.</strong> The axes are learnt from these texts alone, so d says which "
    "words the compared models use near “she” and “he”; a d is comparable between runs of one comparison, not "
    "between comparisons. The interval resamples names within each fold and, a few times a fold (the "
    "settings below say how many), retrains that fold's model on the resampled names' texts, so it counts "
    "how the trained axes vary with the texts that train them as well as which names happened to be drawn "
    f"(at a known truth, with {CHECKED_PER_GENDER} names a gender, it covered at least "
    f"{CHECKED[CHECKED_PER_GENDER][0]:.0%} of simulated runs, the least under a real difference in one of two "
    "kinds of synthetic text, and less with fewer names: read it as approximate; docs/hobbies.md). "
    "No test over texts (each text one observation) is "
    "shown: a name's texts are one "
    "cluster, and such a test can reject a true null more often than it says (docs/hobbies.md).</p>"
)


def pvalue(p: float) -> str:
    """A p-value as text; below 1e-300 (where a double underflows) as "< 1e-300".

    >>> pvalue(2.2e-308), pvalue(0.0123)
    ('< 1e-300', '0.012')
    """
    return "< 1e-300" if p < 1e-300 else f"{p:.2g}"


@dataclass
class HobbiesComparison:
    runs: list[Any]  # w2v.RunProjection per run, corrected
    published: list[Any]  # w2v.RunProjection per run, 001's way
    designs: list[str]
    table: Any
    meta: dict[str, Any] = field(default_factory=dict)

    def summary(self) -> str:
        lines = [f"Word2Vec over {sum(r.n_female + r.n_male for r in self.runs)} texts of {len(self.runs)} runs "
                 f"(seed {self.meta['seed']}):"]
        for r, o in zip(self.runs, self.published):
            lines.append(f"  {r.run}: corrected d {r.d:.2f} ({r.d_low:.2f} to {r.d_high:.2f}), p {pvalue(r.p_names)} "
                         f"over name means; 001's way d {o.d:.2f}, p {pvalue(o.p_names)}")
        return "\n".join(lines)


def _texts(run: Path, label: str) -> Any:
    from stereoprobe.errors import DataError
    from stereoprobe.generation.records import GenRecord
    from stereoprobe.studies.base import read_run
    from stereoprobe.studies.hobbies.text import content_words, tokens
    from stereoprobe.studies.hobbies.w2v import RunTexts

    manifest, records = read_run(run, "hobbies", GenRecord)
    ok = sorted((r for r in records if r.error is None and r.problem is None and r.text),
                key=lambda r: (r.group, r.sample))
    if not ok:
        raise DataError(f"{run}: no texts to compare; run `stereoprobe collect --study hobbies --out {run}` first.")
    return manifest, RunTexts(label, [tokens(r.text) for r in ok], [content_words(r.text, [r.group]) for r in ok],
                              [(r.attrs or {}).get("gender") for r in ok], [r.group for r in ok])


def _labels(runs: Sequence[Path], manifests: Sequence[Any]) -> list[str]:
    for labels in ([m.model or Path(r).name for r, m in zip(runs, manifests)], [Path(r).name for r in runs]):
        if len(set(labels)) == len(labels):
            return labels
    return [str(r) for r in runs]


def paper_figures() -> list[Any]:
    """The figures of 001 the page may quote (data/paper_figures.csv)."""
    from stereoprobe.papers import read_figures

    return read_figures(Path(__file__).parent / "data" / "paper_figures.csv")


def beside(design: str, metric: str, unit: str) -> tuple[str, list[str]]:
    """(the paper's figures of ``metric`` to print beside a value in ``unit`` of a run of ``design``, or "";
    the one-line reasons why not). The one rule is papers.comparable."""
    from stereoprobe.papers import comparable

    shown, why = [], []
    for fig in (f for f in paper_figures() if f.metric == metric):
        reason = comparable(fig, design, unit)
        if reason is None:
            shown.append(f"{fig.value:g} ({fig.model})")
        else:
            why.append(reason)
    return ", ".join(shown), why


def compare_runs(runs: Sequence[Path], n_boot: int = 2000, seed: int = 2023, level: float = 0.95) -> HobbiesComparison:
    """The two ways over ``runs``: the corrected measure (its se with ``w2v.RETRAIN`` retraining replicates
    a fold) and 001's."""
    import pandas as pd

    from stereoprobe.errors import DataError
    from stereoprobe.studies.hobbies import w2v

    if len(runs) < 1:
        raise DataError("Give at least one hobbies run to compare.")
    if len({Path(r).resolve() for r in runs}) < len(runs):
        raise DataError(f"A run is given twice ({', '.join(str(r) for r in runs)}); give each hobbies run once.")
    loaded = [_texts(Path(r), str(r)) for r in runs]
    labels = _labels(runs, [m for m, _ in loaded])
    designs = [m.design or "default" for m, _ in loaded]
    texts = [w2v.RunTexts(lab, t.sentences, t.words, t.genders, t.names) for lab, (_, t) in zip(labels, loaded)]
    corrected = w2v.compare(texts, seed=seed, n_boot=n_boot, level=level, way="cross-fit", retrain=w2v.RETRAIN)
    theirs = w2v.compare(texts, seed=seed, n_boot=n_boot, level=level, way="001")
    rows = []
    for r, o, design in zip(corrected, theirs, designs):
        row = {"run": r.run, "design": design, "female_names": r.female_names, "male_names": r.male_names,
               "female_texts": r.n_female, "male_texts": r.n_male, "female_mean": r.mean_female,
               "male_mean": r.mean_male, "d": r.d, "d_low": r.d_low, "d_high": r.d_high, "se": r.se,
               "p_names": r.p_names}
        row.update({f"d_fold{j}": part.d for j, part in enumerate(r.folds)})
        row.update(d_001=o.d, p_001=o.p_names, unscored=r.unscored)
        rows.append(row)
    meta = {MARK: True, "runs": [str(Path(r).resolve()) for r in runs], "labels": labels, "designs": designs,
            "seed": seed, "bootstrap": n_boot, "level": level, "folds": w2v.FOLDS, "retrain": w2v.RETRAIN,
            "scoring": f"corrected: cross-fitted ({w2v.FOLDS} folds of names); 001's way: in-sample, names kept",
            "word2vec": {**w2v.SETTINGS, "workers": 1}}
    return HobbiesComparison(corrected, theirs, designs, pd.DataFrame(rows), meta)


def finding(r: Any) -> str:
    """One run's finding in words (the corrected measure). A direction is stated only where the
    interval for d excludes 0; otherwise the run shows no clear difference, whichever way its point
    estimate leans."""
    numbers = (f"Cohen's d = {r.d:.2f} ({r.d_low:.2f} to {r.d_high:.2f}); p = {pvalue(r.p_names)} over name "
               "means (corrected measure).")
    if not (r.d_low > 0 or r.d_high < 0):  # includes 0, or no interval (NaN)
        return f"{r.run}: no clear difference between texts about female and male names on the she-he axis: {numbers}"
    side = "“she”" if r.d > 0 else "“he”"
    return f"{r.run}: texts about female names sit nearer {side} than texts about male names by {numbers}"


def size_note(r: Any) -> str | None:
    """A line for a run with clearly fewer names a gender than the interval for d was checked at
    (``w2v.CHECKED_PER_GENDER``; a few refused names, under a tenth, leave a run at that size), with
    what the simulations found at each size measured (``w2v.CHECKED``), else None."""
    n = min(r.female_names, r.male_names)
    if n >= 0.9 * CHECKED_PER_GENDER:
        return None
    cover, found = CHECKED[CHECKED_PER_GENDER]
    smaller = "; ".join(f"at {k}, {c:.0%} covered and {f:.0%} found"
                        for k, (c, f) in sorted(CHECKED.items(), reverse=True) if k < CHECKED_PER_GENDER)
    return (f"{r.run}: {n} names a gender (the smaller side). At a known truth, in two families of texts, d's "
            f"interval covered at least {cover:.0%} of runs with {CHECKED_PER_GENDER} names a gender and the test "
            f"found a planted difference in at least {found:.0%}; {smaller} (docs/hobbies.md). With fewer names "
            "read d as approximate: its interval may be too narrow, and a real difference may go unseen.")


def published_finding(o: Any, design: str) -> str:
    """001's way for one run, with 001's figures beside it only where papers.comparable allows."""
    text = (f"{o.run}, 001's way (one model on all texts, names kept; leans towards “she” with no real "
            f"difference): d = {o.d:.2f}, Mann-Whitney p = {pvalue(o.p_names)} over name means.")
    shown, why = beside(design, "w2v_d", UNIT_001)
    if shown:
        return text + f" Sterlie et al. found d = {shown} (their Figure 5, the same way)."
    return text + " " + why[0] if why else text


def _page(result: HobbiesComparison, png: bytes) -> str:
    import base64

    findings = [finding(r) for r in result.runs]
    findings += [note for note in map(size_note, result.runs) if note]
    findings += [published_finding(o, d) for o, d in zip(result.published, result.designs)]
    if len(result.runs) > 1:
        order = sorted(result.runs, key=lambda r: r.d)
        findings.append(f"Largest gap (corrected): {order[-1].run} (d {order[-1].d:.2f}); smallest: {order[0].run} "
                        f"(d {order[0].d:.2f}).")
    rows = []
    for r, o, design in zip(result.runs, result.published, result.designs):
        shown, _ = beside(design, "w2v_d", UNIT_001)
        rows.append(f"<tr><td>{esc(r.run)}</td><td>{esc(design)}</td><td class=num>{r.female_names}</td>"
                    f"<td class=num>{r.male_names}</td><td class=num>{number(r.d, '{:.2f}')}</td><td class=num>"
                    f"{number(r.d_low, '{:.2f}')} to {number(r.d_high, '{:.2f}')}</td><td class=num>"
                    f"{esc(pvalue(r.p_names))}</td><td class=num>{number(o.d, '{:.2f}')}</td><td class=num>"
                    f"{esc(pvalue(o.p_names))}</td><td>{esc(shown or 'not shown (below)')}</td></tr>")
    table = ("<table><caption>Per run (comparison.csv). Corrected: cross-fitted, names and pronouns left out. "
             "001's way: one model on all texts, names kept, as Sterlie et al.</caption><thead><tr><th>run</th>"
             "<th>design</th><th>female names</th><th>male names</th><th>d, corrected</th><th>95% interval</th>"
             "<th>p over name means, corrected</th><th>d, 001's way</th><th>Mann-Whitney p over name means, "
             "001's way</th><th>Sterlie et al.'s d (Figure 5)</th></tr></thead><tbody>" + "".join(rows) +
             "</tbody></table>")
    reasons = []
    for r, design in zip(result.runs, result.designs):
        _, why = beside(design, "w2v_d", UNIT_CORRECTED)
        _, why_001 = beside(design, "w2v_d", UNIT_001)
        lines = list(dict.fromkeys(why_001[:1] + why[:1]))  # a default run: one reason, said once
        reasons += [f"<li>{esc(r.run)}: {esc(line)}</li>" for line in lines]
    img = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
    body = (f'<p class="small">Data: <a href="comparison.csv">comparison.csv</a>, <a href="scores.csv">scores.csv'
            f'</a>.</p><figure class="big"><img src="{img}" alt="she-he scores per name and run" width="1100">'
            f"</figure>{table}<h2>Sterlie et al.'s figures</h2><p>Their d and p (Figure 5: GPT-3.5-turbo, GPT-4, "
            "GPT-4-turbo) are printed only beside a value computed their way from a run of the published design "
            "(214 names a gender x 10 texts).</p><ul>" + "".join(reasons) + "</ul>")
    settings = [("runs", ", ".join(result.meta["runs"])), ("designs", ", ".join(result.designs)),
                ("Word2Vec", json.dumps(result.meta["word2vec"])), ("scoring", result.meta["scoring"]),
                ("seed", str(result.meta["seed"])), ("bootstrap", str(result.meta["bootstrap"])),
                ("retraining", f"{result.meta['retrain']} bootstrap replicates a fold, each model retrained")]
    return fill_shell("How far apart are female- and male-name texts, model by model?",
                      esc(f"{len(result.runs)} hobbies runs · Word2Vec, corrected and 001's way"), findings,
                      "Scores from Word2Vec models trained on these runs' texts only; the corrected measure scores "
                      "each text by a model that did not see it.", body, NOTE, settings)


def write_comparison(result: HobbiesComparison, out: Path) -> Path:
    import pandas as pd

    from stereoprobe.page.figures import to_png
    from stereoprobe.store import marked, replace_folder
    from stereoprobe.studies.hobbies.figures import projection_chart

    png = to_png(projection_chart(result.runs, "Mean she-he projection per name, corrected measure (after 001's "
                                                "Figure 5)."))
    scores = pd.concat([pd.DataFrame({"run": r.run, "name": r.names, "gender": r.genders, "fold": r.fold,
                                      "score": r.scores, "score_001": o.scores})
                        for r, o in zip(result.runs, result.published)], ignore_index=True)

    def fill(tmp: Path) -> None:
        result.table.to_csv(tmp / "comparison.csv", index=False, float_format="%.6g")
        scores.to_csv(tmp / "scores.csv", index=False, float_format="%.6g")
        (tmp / "projection.png").write_bytes(png)
        (tmp / "index.html").write_text(_page(result, png), encoding="utf-8")
        (tmp / "meta.json").write_text(json.dumps(result.meta, indent=2) + "\n", encoding="utf-8")

    return replace_folder(Path(out), fill, marked(MARK), "stereoprobe compare")

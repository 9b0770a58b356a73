"""``stereoprobe compare`` of hobbies runs: Sterlie et al.'s comparison across models
(2024, 001 section 6, Figure 5; w2v.py says how).

Each run's names are split in two folds; a Word2Vec model trained on one fold's texts of
every run given (in the order given, ``--seed`` its seed) projects the other fold's texts
on its she-he axis (cross-fitting: no text is scored by a model that saw it).

    DIR/index.html        the page (the briefing's shell)
    DIR/comparison.csv    per run: texts, means, Mann-Whitney p (texts; names), Cohen's d and interval
    DIR/scores.csv        per text: run, name, gender, sample, score
    DIR/projection.png    the figure (after 001's Figure 5)
    DIR/meta.json         runs, Word2Vec settings, seed
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from stereoprobe.page.shell import esc, fill_shell
from stereoprobe.page.numbers import number

MARK = "stereoprobe_hobbies_comparison"
NOTE = (
    "<p><strong>What the numbers mean.</strong> Each run's names were split in two halves; a Word2Vec model "
    "trained on one half's texts of all the runs compared scored the other half's texts, and the other way "
    "round, so no text was scored by a model that learnt from it (which would pull female-name texts towards "
    "“she” even with no real difference). Each word's score is its position along the line from “he” to “she” (the scalar projection of "
    "its vector, from the midpoint of the two, on the direction of “she”: Sterlie et al.'s eq. 9); a text's "
    "score is the mean over its words, leaving out stop words, the student's name and gendered pronouns. "
    "Positive: nearer “she”. Cohen's d is the difference of the female- and male-name means in pooled standard "
    "deviations, its interval from resampling names; the Mann-Whitney p over texts is the paper's test, the one "
    "over name means treats a name's texts as one unit.</p>"
    "<p><strong>What they do not mean.</strong> The axes are learnt from these texts alone, so it says which "
    "words the compared models use near “she” and “he”; a d is comparable between runs of one comparison, not "
    "between comparisons. A small corpus gives a noisy model: rerun with another --seed to see how much d "
    "moves.</p>"
)


def pvalue(p: float) -> str:
    """A p-value as text; below 1e-300 (where a double underflows) as "< 1e-300".

    >>> pvalue(2.2e-308), pvalue(0.0123)
    ('< 1e-300', '0.012')
    """
    return "< 1e-300" if p < 1e-300 else f"{p:.2g}"


@dataclass
class HobbiesComparison:
    runs: list[Any]  # w2v.RunProjection
    table: Any
    meta: dict[str, Any] = field(default_factory=dict)

    def summary(self) -> str:
        lines = [f"Word2Vec over {sum(r.n_female + r.n_male for r in self.runs)} texts of {len(self.runs)} runs "
                 f"({self.meta['scoring']}, seed {self.meta['seed']}):"]
        for r in self.runs:
            lines.append(f"  {r.run}: female-name texts {r.mean_female:+.3f}, male-name {r.mean_male:+.3f}; "
                         f"Cohen's d {r.d:.2f} ({r.d_low:.2f} to {r.d_high:.2f}), Mann-Whitney p {pvalue(r.p_texts)} "
                         f"(texts), {pvalue(r.p_names)} (name means)")
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


def compare_runs(runs: Sequence[Path], n_boot: int = 2000, seed: int = 2023, level: float = 0.95,
                 cross_fit: bool = True) -> HobbiesComparison:
    """``cross_fit=False``: 001's in-sample scores (biased under the null; for bench/bench_hobbies.py)."""
    import pandas as pd

    from stereoprobe.errors import DataError
    from stereoprobe.studies.hobbies import w2v

    if len(runs) < 1:
        raise DataError("Give at least one hobbies run to compare.")
    loaded = [_texts(Path(r), str(r)) for r in runs]
    labels = _labels(runs, [m for m, _ in loaded])
    texts = [w2v.RunTexts(lab, t.sentences, t.words, t.genders, t.names) for lab, (_, t) in zip(labels, loaded)]
    projected = w2v.compare(texts, seed=seed, n_boot=n_boot, level=level, cross_fit=cross_fit)
    table = pd.DataFrame([{"run": r.run, "female_texts": r.n_female, "male_texts": r.n_male,
                           "female_mean": r.mean_female, "male_mean": r.mean_male, "d": r.d, "d_low": r.d_low,
                           "d_high": r.d_high, "p_texts": r.p_texts, "p_names": r.p_names, "unscored": r.unscored}
                          for r in projected])
    meta = {MARK: True, "runs": [str(Path(r).resolve()) for r in runs], "labels": labels, "seed": seed,
            "bootstrap": n_boot, "level": level,
            "scoring": "cross-fitted (two folds of names)" if cross_fit else "in-sample (001's way)", "word2vec": {**w2v.SETTINGS, "workers": 1}}
    return HobbiesComparison(projected, table, meta)


def finding(r: Any) -> str:
    """One run's finding in words. A direction is stated only where the interval for d (a
    bootstrap over names, within each gender) excludes 0; otherwise the run shows no clear
    difference, whichever way its point estimate leans."""
    numbers = (f"Cohen's d = {r.d:.2f} ({r.d_low:.2f} to {r.d_high:.2f}); Mann-Whitney p = {pvalue(r.p_texts)} "
               f"over texts, {pvalue(r.p_names)} over name means.")
    if not (r.d_low > 0 or r.d_high < 0):  # includes 0, or no interval (NaN)
        return f"{r.run}: no clear difference between texts about female and male names on the she-he axis: {numbers}"
    side = "“she”" if r.d > 0 else "“he”"
    return f"{r.run}: texts about female names sit nearer {side} than texts about male names by {numbers}"


def _page(result: HobbiesComparison, png: bytes) -> str:
    import base64

    findings = [finding(r) for r in result.runs]
    if len(result.runs) > 1:
        order = sorted(result.runs, key=lambda r: r.d)
        findings.append(f"Largest gap: {order[-1].run} (d {order[-1].d:.2f}); smallest: {order[0].run} "
                        f"(d {order[0].d:.2f}). Sterlie et al. found d = 3.34, 5.34, 5.45 for GPT-3.5-turbo, GPT-4 "
                        "and GPT-4-turbo (their own Word2Vec model).")
    rows = "".join(f"<tr><td>{esc(r.run)}</td><td class=num>{r.n_female}</td><td class=num>{r.n_male}</td>"
                   f"<td class=num>{number(r.mean_female, '{:+.3f}')}</td><td class=num>{number(r.mean_male, '{:+.3f}')}"
                   f"</td><td class=num>{number(r.d, '{:.2f}')}</td><td class=num>{number(r.d_low, '{:.2f}')} to "
                   f"{number(r.d_high, '{:.2f}')}</td><td class=num>{esc(pvalue(r.p_texts))}</td>"
                   f"<td class=num>{esc(pvalue(r.p_names))}</td></tr>" for r in result.runs)
    table = ("<table><caption>Per run (comparison.csv)</caption><thead><tr><th>run</th><th>female-name texts</th>"
             "<th>male-name texts</th><th>mean, female</th><th>mean, male</th><th>Cohen's d</th><th>95% interval"
             "</th><th>p (texts)</th><th>p (names)</th></tr></thead><tbody>" + rows + "</tbody></table>")
    img = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
    body = (f'<p class="small">Data: <a href="comparison.csv">comparison.csv</a>, <a href="scores.csv">scores.csv'
            f'</a>.</p><figure class="big"><img src="{img}" alt="she-he scores per name and run" width="1100">'
            f"</figure>{table}")
    settings = [("runs", ", ".join(result.meta["runs"])), ("Word2Vec", json.dumps(result.meta["word2vec"])),
                ("scoring", result.meta["scoring"]),
                ("seed", str(result.meta["seed"])), ("bootstrap", str(result.meta["bootstrap"]))]
    return fill_shell("How far apart are female- and male-name texts, model by model?",
                      esc(f"{len(result.runs)} hobbies runs · Word2Vec, {result.meta['scoring']}"), findings,
                      "Scores from Word2Vec models trained on these runs' texts only, each text by the model that did not see it.", body, NOTE, settings)


def write_comparison(result: HobbiesComparison, out: Path) -> Path:
    import pandas as pd

    from stereoprobe.page.figures import to_png
    from stereoprobe.store import marked, replace_folder
    from stereoprobe.studies.hobbies.figures import projection_chart

    png = to_png(projection_chart(result.runs, "Mean she-he projection per name (after 001's Figure 5)."))
    scores = pd.concat([pd.DataFrame({"run": r.run, "name": r.names, "gender": r.genders, "score": r.scores})
                        for r in result.runs], ignore_index=True)

    def fill(tmp: Path) -> None:
        result.table.to_csv(tmp / "comparison.csv", index=False, float_format="%.6g")
        scores.to_csv(tmp / "scores.csv", index=False, float_format="%.6g")
        (tmp / "projection.png").write_bytes(png)
        (tmp / "index.html").write_text(_page(result, png), encoding="utf-8")
        (tmp / "meta.json").write_text(json.dumps(result.meta, indent=2) + "\n", encoding="utf-8")

    return replace_folder(Path(out), fill, marked(MARK), "stereoprobe compare")

"""Paired differences of two generation runs (stereoprobe/generation/paired.py) on synthetic
runs with a known truth, fixed seeds.

A run: G professions, each asked ``texts`` times; each text is about a woman with the
profession's probability (the truth), independently. Two families of truths:

- ``beta``: each profession's probability drawn once from Beta(2, 2) (spread over 0-1);
- ``mixture``: most professions near one gender (0.05 or 0.9), a few even (0.5), and
  unequal numbers of texts per profession (a heavy- and a light-asked half).

The null: baseline and run drawn from the same truth (two runs of one model): each
difference's 95% interval must cover 0 in about 95% of replicates, checked from below
(too narrow) and from above (an interval that always covers is too wide: at most 99%).
The planted difference: the run's probabilities moved by +0.15 (clipped): found (the
interval excludes 0) in nearly every replicate, and the interval covers the true moved
difference about 95% of the time.
"""

from __future__ import annotations

import numpy as np
import pytest

from stereoprobe.generation.paired import group_differences, nmi_difference, share_difference

REPLICATES = 300
SE = np.sqrt(0.05 * 0.95 / REPLICATES)  # 0.0126: Monte Carlo error of a 95% coverage


def truth(family: str, rng: np.random.Generator, g: int) -> tuple[np.ndarray, np.ndarray]:
    """Each profession's probability of a text about a woman, and its number of texts."""
    if family == "beta":
        return rng.beta(2, 2, g), np.full(g, 30)
    p = rng.choice([0.05, 0.9, 0.5], size=g, p=[0.45, 0.4, 0.15])
    return p, np.where(np.arange(g) % 2 == 0, 50, 12)


def run(rng: np.random.Generator, p: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One run's texts: (profession of each text, 1 if about a woman)."""
    groups = np.repeat(np.arange(len(p)), sizes)
    return groups, (rng.random(len(groups)) < p[groups]).astype(float)


def _table(groups: np.ndarray, female: np.ndarray):
    """Per profession the share of texts about a woman and its Jeffreys interval (percent),
    as professions.csv holds it (generation.stats.jeffreys). One vectorised jeffreys call for
    all professions (one call per profession was half of these tests' CPU; the same values)."""
    import pandas as pd

    from stereoprobe.generation.stats import jeffreys

    names, index = np.unique(groups, return_inverse=True)
    k, n = np.bincount(index, weights=female).round(), np.bincount(index)
    low, high = jeffreys(k, n)
    return pd.DataFrame({"profession": [f"p{g}" for g in names], "female_of_gendered": 100 * k / n,
                         "female_of_gendered_low": 100 * low, "female_of_gendered_high": 100 * high})


def replicate(family: str, seed: int, shift: float = 0.0, g: int = 12, n_boot: int = 400):
    """Per replicate: (share difference, its true value) and the per-profession differences."""
    rng = np.random.default_rng(seed)
    p, sizes = truth(family, rng, g)
    moved = np.clip(p + shift, 0, 1)
    true_share = 100 * ((moved * sizes).sum() - (p * sizes).sum()) / sizes.sum()
    shares, groups_out = [], []
    for r in range(REPLICATES):
        ga, va = run(rng, p, sizes)
        gb, vb = run(rng, moved, sizes)
        d = share_difference(ga, va, gb, vb, n_boot=n_boot, seed=r)
        shares.append((d.estimate, d.low, d.high))
        for name, x in group_differences(_table(ga, va), _table(gb, vb), "profession", "female_of_gendered"):
            i = int(name[1:])
            groups_out.append((x.estimate, x.low, x.high, 100 * (moved[i] - p[i])))
    return np.array(shares), true_share, np.array(groups_out)


def covers(rows: np.ndarray, truth_: float | np.ndarray) -> float:
    return float(np.mean((rows[:, 1] <= truth_) & (truth_ <= rows[:, 2])))


@pytest.mark.parametrize("family,seed", [("beta", 11), ("mixture", 12)])
def test_under_the_null_the_share_difference_covers_0_about_95_percent(family, seed):
    shares, true_share, groups = replicate(family, seed)
    assert true_share == 0
    cover = covers(shares, 0.0)
    # a t interval on 11 df from a cluster bootstrap of 12 professions: about 95%, never all
    assert 0.95 - 3 * SE <= cover <= 0.99, cover
    assert (shares[:, 2] - shares[:, 1]).min() > 0  # every replicate has an interval, none a point
    # a profession's difference by MOVER of two Jeffreys intervals: Jeffreys' interval is close to
    # nominal on average, MOVER adds the two sides' lengths in quadrature
    g_cover = covers(groups[:, :3], 0.0)
    assert 0.93 <= g_cover <= 0.99, g_cover


@pytest.mark.parametrize("family,seed", [("beta", 13), ("mixture", 14)])
def test_a_planted_difference_is_found_and_covered(family, seed):
    shares, true_share, groups = replicate(family, seed, shift=0.15)
    assert 8 < true_share <= 15  # 15 points, less where clipped at 1
    found = np.mean(shares[:, 1] > 0)
    assert found >= 0.9, found  # the interval lies above 0: the run is found to differ
    cover = covers(shares, true_share)
    assert 0.95 - 3 * SE <= cover <= 0.99, cover  # and it is right about how large
    g_cover = float(np.mean((groups[:, 1] <= groups[:, 3]) & (groups[:, 3] <= groups[:, 2])))
    assert 0.92 <= g_cover <= 0.99, g_cover


def nmi_replicates(family: str, seed: int, planted: bool = False, g: int = 8):
    """Per replicate the NMI difference; ``planted``: the baseline's professions all even (0.5,
    no dependence) and the run's alternating 0.15 / 0.85 (the profession decides much)."""
    from stereoprobe.generation.stats import nmi_test

    rng = np.random.default_rng(seed)
    p, sizes = truth(family, rng, g)
    base, moved = (np.full(g, 0.5), np.where(np.arange(g) % 2 == 0, 0.15, 0.85)) if planted else (p, p)
    out = []
    for r in range(REPLICATES // 2):
        tests = [nmi_test(*run(rng, q, sizes), n_perm=9, n_boot=300, seed=r) for q in (base, moved)]
        d = nmi_difference(*tests)
        out.append((d.estimate, d.low, d.high))
    return np.array(out)


@pytest.mark.parametrize("family,seed", [("beta", 21), ("mixture", 22)])
def test_under_the_null_the_nmi_difference_covers_0_about_95_percent(family, seed):
    rows = nmi_replicates(family, seed)
    se = np.sqrt(0.05 * 0.95 / len(rows))  # 0.018 over 150 replicates
    cover = covers(rows, 0.0)
    assert 0.95 - 3 * se <= cover <= 0.995, cover
    assert abs(np.median(rows[:, 0])) < 0.01  # the two corrected NMIs' bias cancels: centred on 0


@pytest.mark.parametrize("family,seed", [("beta", 23), ("mixture", 24)])
def test_a_planted_nmi_difference_is_found(family, seed):
    # even professions (NMI 0) against 0.15 / 0.85 ones: with 8 equal professions H(gender) =
    # 1 bit, H(gender | profession) = H(0.15) = 0.61 bits, MI = 0.39 bits, and NMI = MI /
    # sqrt(H(gender) H(profession)) = 0.39 / sqrt(1 x 3) = 0.225 (the mixture's unequal sizes
    # move both entropies: lower)
    rows = nmi_replicates(family, seed, planted=True)
    assert np.mean(rows[:, 1] > 0) >= 0.95  # the interval lies above 0: found
    assert 0.12 < np.median(rows[:, 0]) < 0.3


def test_share_difference_by_hand():
    # g1: baseline 1 of 2, run 2 of 2; g2: 0 of 2, 1 of 2: 25% -> 75%, +50 points; a replicate
    # drawing g1 twice gives 100 - 50 = 50, g2 twice 50 - 0 = 50: every replicate 50, so the
    # interval is the point 50 (t on 1 df times a 0 se)
    d = share_difference(["g1", "g1", "g2", "g2"], [1, 0, 0, 0], ["g1", "g1", "g2", "g2"], [1, 1, 1, 0], 200)
    assert (d.estimate, d.low, d.high, d.df, d.n) == (50.0, 50.0, 50.0, 1.0, 4)
    # one profession: no interval (no professions to resample)
    one = share_difference(["g"] * 3, [1, 0, 0], ["g"] * 3, [1, 1, 0], 200)
    assert one.estimate == pytest.approx(100 / 3) and np.isnan(one.low)


def hobby_runs(rng: np.random.Generator, shift: float, names: int = 16, texts: int = 5):
    """Two hobbies runs over the same names (half female): each name brings its own effect
    u ~ N(0, 0.15) to both runs (what the name means to the model), each text a score of
    0.3 + u + N(0, 0.2) on one label (``Art``), 0.15 more for a female name (in both runs:
    the top label depends on the gender, an NMI inside its range), plus ``shift`` for female
    names in the run; the text's top label is Art when its score passes 0.35, else Sport."""
    import pandas as pd

    gender = np.array(["female"] * (names // 2) + ["male"] * (names // 2))
    u = rng.normal(0, 0.15, names)
    out = []
    for extra in (0.0, shift):
        rows = []
        for i in range(names):
            score = 0.3 + u[i] + rng.normal(0, 0.2, texts) + (0.15 + extra if gender[i] == "female" else 0.0)
            rows += [{"name": f"n{i}", "gender": gender[i], "Art": s, "top": "Art" if s > 0.35 else "Sport"}
                     for s in score]
        out.append(pd.DataFrame(rows))
    return out


@pytest.mark.parametrize("shift", [0.0, 0.3])
def test_hobbies_paired_label_difference_covers_its_truth_and_finds_a_planted_one(shift):
    from stereoprobe.studies.hobbies.stats import paired_label_differences

    rng = np.random.default_rng(31 if shift == 0 else 32)
    rows = []
    for _ in range(REPLICATES):
        r = paired_label_differences(*hobby_runs(rng, shift), ["Art"]).iloc[0]
        rows.append((r.difference, r.low, r.high))
    rows = np.array(rows)
    # the truth: female names' Art score moved by ``shift`` (30 points), male names' not; the
    # name's own effect cancels in its run-minus-baseline mean, so Welch over names is exact
    # for normal scores: coverage 95% within Monte Carlo error, never all
    cover = covers(rows, 100 * shift)
    assert 0.95 - 3 * SE <= cover <= 0.99, cover
    if shift:
        assert np.mean(rows[:, 1] > 0) >= 0.9  # found


def test_hobbies_paired_nmi_under_the_null_covers_0():
    from stereoprobe.studies.hobbies.stats import paired_nmi

    rng = np.random.default_rng(33)
    rows = []
    for r in range(REPLICATES // 2):
        n = paired_nmi(*hobby_runs(rng, 0.0), n_boot=300, seed=r)
        rows.append((n["difference"], n["low"], n["high"]))
    rows = np.array(rows)
    se = np.sqrt(0.05 * 0.95 / len(rows))
    cover = covers(rows, 0.0)
    assert 0.95 - 3 * se <= cover <= 0.995, cover

"""Mutation testing of the measurement code with mutmut (the ``[mutation]`` extra), one named
module set at a time, each with only the test files that exercise it.

    python bench/mutation.py stats            # one set
    python bench/mutation.py parse store      # several, one after the other
    python bench/mutation.py --list           # the sets, their modules and tests

Each set runs in a scratch copy of the repository (``--work``, default a temporary folder),
so the checkout is never mutated and several sets can run side by side. mutmut writes
every mutant of the set's modules, runs the tests that cover it, and records killed,
survived, timeout or no tests. The result, per module: the counts, the score (killed +
timeout over all mutants) and every survivor's diff, goes to ``--out`` (default
bench/results/mutation/<set>.json and .md). docs/testing.md explains how to read it and
lists the survivors with the reason each survives.

Not part of the test suite (a set takes minutes to an hour on a loaded 2-core machine);
start it with ``nice -n 10`` in the background.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# A set: modules to mutate (the first existing path of each alternative: issue 22 moves the
# fill-in modules into stereoprobe/studies/fillin/) and the test files that exercise them.
SETS: dict[str, dict[str, list]] = {
    "store": {  # the latest-record rule: reading, repairing, appending, compacting (not the lock or folders)
        "modules": [["stereoprobe/store.py"]],
        "mutants": ["stereoprobe.store.x__parse_lines__*", "stereoprobe.store.x_latest_by_key__*",
                    "stereoprobe.store.x_read_completions__*", "stereoprobe.store.xǁRunStoreǁopen__*",
                    "stereoprobe.store.xǁRunStoreǁappend__*", "stereoprobe.store.xǁRunStoreǁcompact__*"],
        "tests": ["tests/test_resume.py", "tests/test_run_record.py", "tests/test_properties.py",
                  "tests/test_mutation_kills.py"],
    },
    "parse": {
        "modules": [["stereoprobe/studies/fillin/parse.py", "stereoprobe/parse.py"],
                    ["stereoprobe/studies/coreference/answers.py"]],
        "tests": ["tests/test_parse.py", "tests/test_coref_metrics.py", "tests/test_review_mutants.py",
                  "tests/test_properties.py", "tests/test_reparse.py", "tests/test_mutation_kills.py",
                  "tests/test_mutation_kills_studies.py"],
    },
    "fillin": {
        "modules": [["stereoprobe/studies/fillin/sentiment/label.py", "stereoprobe/sentiment/label.py"],
                    ["stereoprobe/studies/fillin/sentiment/tables.py", "stereoprobe/sentiment/tables.py"]],
        "tests": ["tests/test_sentiment.py", "tests/test_score_args.py", "tests/test_review_mutants.py",
                  "tests/test_mutation_kills.py"],
    },
    "jobs": {
        "modules": [["stereoprobe/studies/jobs/measure.py"], ["stereoprobe/studies/jobs/stats.py"]],
        "tests": ["tests/test_jobs_stats.py", "tests/test_review_mutants.py", "tests/test_properties.py",
                  "tests/test_mutation_kills.py", "tests/test_jobs.py", "tests/test_score_served.py",
                  "tests/test_mutation_kills_studies.py"],
    },
    "jobs-tables": {
        "modules": [["stereoprobe/studies/jobs/tables.py"]],
        "tests": ["tests/test_jobs_stats.py", "tests/test_score_served.py", "tests/test_mutation_kills.py",
                  "tests/test_mutation_kills_studies.py"],
    },
    "coreference": {
        "modules": [["stereoprobe/studies/coreference/frame.py"], ["stereoprobe/studies/coreference/tables.py"],
                    ["stereoprobe/studies/coreference/criteria.py"], ["stereoprobe/studies/coreference/paired.py"]],
        "tests": ["tests/test_coref_metrics.py", "tests/test_coref_paired.py", "tests/test_coref_stats.py",
                  "tests/test_score_served.py", "tests/test_review_mutants.py", "tests/test_properties.py",
                  "tests/test_coref_criteria_001.py", "tests/test_mutation_kills_studies.py"],
        # the coverage simulations (100 to 200 simulated runs each) take minutes per mutant under mutmut's
        # trampolines; left out, a mutant only they would kill counts as a survivor
        "deselect": ["tests/test_coref_stats.py::test_null_intervals_cover_about_95_percent_from_above_and_below",
                     "tests/test_coref_stats.py::test_null_tests_flag_about_5_percent",
                     "tests/test_coref_stats.py::test_rare_rates_floor_the_design_effect_at_the_pooled_one",
                     "tests/test_coref_stats.py::test_rare_overall_rate_two_way_variance_is_unbiased",
                     "tests/test_coref_paired.py::test_null_paired_intervals_cover_zero_about_95_percent"],
    },
    "stats": {
        "modules": [["stereoprobe/stats"]],
        "tests": ["tests/test_stats_core.py", "tests/test_stats_format_criteria.py", "tests/test_stats_groups.py",
                  "tests/test_stats_intervals.py", "tests/test_stats_robustness.py", "tests/test_review_mutants.py",
                  "tests/test_properties.py", "tests/test_mutation_kills.py", "tests/test_stats_crossed.py",
                  "tests/test_jobs_stats.py", "tests/test_mutation_kills_stats.py",
                  "tests/test_mutation_kills_stats_rest.py"],
    },
}
# Survivors whose change cannot alter a result, recognised from the diff's removed (-) and
# added (+) line. Each rule is a reason docs/testing.md gives; every match is listed in the
# report so a reader can check it.
EQUIVALENT = [
    (r"np\.(?:asarray|array)\(.*dtype=(?:np\.float64|float|object|np\.int64)",
     r"np\.(?:asarray|array)\(.*(?:dtype=None|, \)|\(\w+\))",
     "dtype dropped or None on an array numpy already builds with that dtype (floats, or labels only compared)"),
    (r'float\("nan"\)', r'float\("NAN"\)', "float('NAN') is float('nan')"),
    (r"seed: int(?: \| Any)? = \d+", r"seed: int(?: \| Any)? = \d+", "another default seed: any seed is as valid"),
    (r"np\.errstate\(", r"np\.errstate\(", "only which numpy warnings are silenced"),
    (r"warnings\.simplefilter\(", r"warnings\.simplefilter\(", "only which warnings are silenced"),
    (r"ensure_ascii=False", r"ensure_ascii=None", "None is falsy, as False"),
    (r'assert .*, "', r'assert .*, (?:"|None)', "the text of an internal assertion (a programming error)"),
    (r'\.encode\("utf-8"\)|\.decode\("utf-8"', r'\.encode\("UTF-8"\)|\.decode\("UTF-8"', "codec names are case-insensitive"),
    (r"count\(b\"\\n\", 0, pos\)", r"count\(b\"\\n\", None, pos\)", "a start of None is 0"),
]


# Survivors judged equivalent by reading them (mutant name -> reason); docs/testing.md repeats them.
MANUAL = {
    "stereoprobe.studies.jobs.stats.x_independence__mutmut_14":
        "one more job with no rows adds an all-zero row to every table: the NMI is unchanged",
    "stereoprobe.studies.jobs.stats.x_independence__mutmut_11": "differs only for no probes at all (never scored)",
    "stereoprobe.studies.jobs.stats.x_independence__mutmut_15": "differs only for no probes at all (never scored)",
    **{f"stereoprobe.studies.jobs.measure.x__key__mutmut_{n}":
       "_key is applied to both sides of every comparison (and no expression has an apostrophe)"
       for n in (1, 3, 8, 9)},
    "stereoprobe.studies.jobs.measure.x_parse_answer__mutmut_4": "also strips X, and no expression starts or ends with x",
    "stereoprobe.studies.jobs.measure.x_parse_answer__mutmut_15":
        "equal-length matches are one expression (no two expressions of different genders share a key)",
    "stereoprobe.studies.jobs.stats.x_paired_differences__mutmut_21": "np.full_like(floats, None) is NaN",
    "stereoprobe.studies.jobs.stats.x_paired_differences__mutmut_35": "astype(None) is float64",
    "stereoprobe.studies.jobs.stats.x_paired_differences__mutmut_61": "n_strata=1 is the default",
    "stereoprobe.studies.jobs.stats.x_paired_differences__mutmut_83": "n_strata=1 is the default",
    # -- sets parse (coreference answers), coreference, jobs, jobs-tables: second run --
    "stereoprobe.studies.coreference.answers.x_parse_answer__mutmut_5":
        "a missing reply read as 'xxxx' names no profession and no refusal phrase: U, not refused, as ''",
    "stereoprobe.studies.coreference.answers.x_parse_answer__mutmut_21":
        "the placeholder's upper-case X cannot be part of a lower-cased profession, as \\x00 cannot",
    "stereoprobe.studies.coreference.answers.x_decide__mutmut_17": "equal values already returned U the line before",
    "stereoprobe.studies.coreference.answers.x_majority__mutmut_26":
        "with 0 refusals 2 * 0 >= len(answers) is false for any answers (none raised before)",
    **{f"stereoprobe.studies.fillin.parse.x__word__mutmut_{n}": "the first piece of a split is the same for any maxsplit"
       for n in (5, 7)},
    **{f"stereoprobe.studies.fillin.parse.x__segment__mutmut_{n}":
       "the first piece of a split is the same for any maxsplit" for n in (19, 21)},
    "stereoprobe.studies.fillin.parse.x__word__mutmut_35": "the word is lower-cased: it holds no upper-case X",
    **{f"stereoprobe.studies.coreference.paired.x_align__mutmut_{n}":
       "merge's default 'on' is the common columns, here exactly KEY" for n in (3, 5, 7, 10, 15, 18)},
    **{f"stereoprobe.studies.coreference.paired.x_align__mutmut_{n}":
       "every key of keys is in both frames, and an inner merge keeps the left keys' order: the same rows"
       for n in (11, 19)},
    **{f"stereoprobe.studies.coreference.paired.x__pairs__mutmut_{n}":
       "replicates sums num and den as float64 (inference._sums): a bool or float input gives the same sums"
       for n in (10, 12, 16, 18)},
    **{f"stereoprobe.studies.coreference.paired.x__by__mutmut_{n}": "_pairs casts the keys to int64"
       for n in (39, 41)},
    "stereoprobe.studies.coreference.paired.x__by__mutmut_59":
        "a second, empty key adds two columns that the contrast's zero weights leave out (inference.contrast)",
    **{f"stereoprobe.studies.coreference.paired.x_paired_differences__mutmut_{n}":
       "a bool column's to_numpy(None) is bool; _pairs sums it as float64" for n in (74, 76)},
    "stereoprobe.studies.coreference.paired.x_paired_differences__mutmut_136":
        "correct is a bool column (frame.with_answers): to_numpy(None) is bool; _pairs sums it as float64",
    "stereoprobe.studies.coreference.paired.x_paired_differences__mutmut_140": "_pairs casts the keys to int64",
    **{f"stereoprobe.studies.coreference.paired.x_paired_differences__mutmut_{n}":
       "both sides hold the same aligned prompts: side B's count of a cell is side A's" for n in (198, 199)},
    **{f"stereoprobe.studies.coreference.paired.x_paired_differences__mutmut_{n}": "None is falsy, as False"
       for n in (94, 215)},
    **{f"stereoprobe.studies.coreference.paired.x_paired_differences__mutmut_{n}":
       "a bool column or an integer sum as it is; _pairs sums it as float64" for n in (225, 227)},
    "stereoprobe.studies.coreference.paired.x_paired_differences__mutmut_240":
        "the table is never empty: the Overall incorrect row is always added",
    "stereoprobe.studies.coreference.paired.x_changed__mutmut_2": "astype(None) is float64",
    **{f"stereoprobe.studies.coreference.paired.x_changed__mutmut_{n}": "rate_table casts the keys to int64"
       for n in (25, 27)},
    "stereoprobe.studies.coreference.paired.x_paired_differences__mutmut_108":
        "correct is a bool column (frame.with_answers): to_numpy(None) is the same bool array",
    "stereoprobe.studies.coreference.paired.x_paired_differences__mutmut_36":
        "correct is a bool column (frame.with_answers): to_numpy(None) is the same bool array",
    **{f"stereoprobe.studies.coreference.tables.x_inconsistent_professions__mutmut_{n}":
       "pandas applies kind only when sorting on a single column (two here: lexsort)" for n in (63, 66, 73, 74)},
    "stereoprobe.studies.jobs.stats.x_independence__mutmut_90":
        "> and >= differ only for a null exactly 1e-12 below the observed NMI; ties at the observed count either way",
    **{f"stereoprobe.studies.coreference.criteria.x_sterlie__mutmut_{n}":
       "bincount converts bool weights to float64 itself" for n in (29, 40)},
    "stereoprobe.studies.coreference.tables.x_winobias__mutmut_25": "replicates and rate_table cast the keys to int64",
    "stereoprobe.studies.coreference.tables.x_winobias__mutmut_71":
        "a third, empty key adds a column that the difference's zero weight leaves out (inference.contrast)",
    "stereoprobe.studies.coreference.tables.x_winobias__mutmut_76":
        "weights[None] = 1 sets both columns, then column 1 gets -1: the same weights [1, -1]",
    **{f"stereoprobe.studies.coreference.frame.x_triple_table__mutmut_{n}":
       "np.full with the fill value None builds an object array either way" for n in (36, 39)},
    "stereoprobe.studies.coreference.frame.x_triple_table__mutmut_44":
        "the answer column holds strings: to_numpy(None) is the same object array",
    "stereoprobe.studies.coreference.criteria.x_four_fifths_of_rates__mutmut_7":
        "every rate over the same denominator 2: halving all rates (exact in binary) leaves min / max unchanged",
    **{f"stereoprobe.sentiment.tables.x_shares__mutmut_{n}":
       "a repeated format level changes no sum (groupby over the same levels)" for n in (2, 4, 5)},
    **{f"stereoprobe.sentiment.tables.x_shares__mutmut_{n}":
       "the groupby sum counts a missing label column as 0, as fill_value=0 does" for n in (18, 20)},
    **{f"stereoprobe.sentiment.tables.x_shares__mutmut_{n}":
       "the index name is restored by the groupby over levels (test_shares_by_category_and_by_format_by_hand)"
       for n in (27, 29)},
    "stereoprobe.sentiment.tables.x__pct__mutmut_5": "part <= whole, so whole 0 means 0 / 0: NaN either way",
    "stereoprobe.sentiment.label.x_vote__mutmut_3": "None is falsy, as False",
    **{f"stereoprobe.sentiment.tables.x_shares_without_synonyms__mutmut_{n}":
       "any label other than positive/negative leaves the word out of the shares, as unassigned does"
       for n in (2, 10, 11)},
    "stereoprobe.store.x__parse_lines__mutmut_7": "pos == len(data) finds no newline and breaks as the loop end would",
    **{f"stereoprobe.store.xǁRunStoreǁappend__mutmut_{n}":
       "its only reader, _cannot_write, shows the strerror or the exception's text: the same words"
       for n in (23, 25)},
    "stereoprobe.store.xǁRunStoreǁopen__mutmut_20": "truncating a file to its own size changes nothing",
    "stereoprobe.store.xǁRunStoreǁopen__mutmut_9": "the name of the write test file, removed at once",
    "stereoprobe.store.xǁRunStoreǁopen__mutmut_10": "the name of the write test file, removed at once",
    "stereoprobe.store.xǁRunStoreǁopen__mutmut_12": "the content of the write test file, removed at once",
}


# The stats set (stereoprobe/stats/): survivors judged equivalent by reading them.
EQUIVALENT += [
    (r"np\.asarray\(\w+, np\.(?:float64|int64)\)", r"np\.asarray\(\w+, (?:None)?\)",
     "positional dtype dropped: the values are already of that dtype, or enter only float arithmetic"),
    (r"seed: (?:int \| )?Any = \d+", r"seed: (?:int \| )?Any = \d+", "another default seed: any seed is as valid"),
]
_S = "stereoprobe.stats."
MANUAL.update({
    **{f"{_S}variance.x_satterthwaite__mutmut_{n}": "the inner fill is used only where denom <= 0, where the "
       "outer np.where gives inf" for n in (54, 56)},
    **{f"{_S}variance.x_crossed_variance__mutmut_{n}": "zeros of another dtype: still one stratum label"
       for n in (11, 13, 21, 23)},
    f"{_S}resample.x_n_clusters__mutmut_8": "the second level's tree is built but unused: tree[0] is the first level",
    f"{_S}resample.x_replicate_ratio__mutmut_41": "the fill is used only where den <= 0, where the result is NaN",
    **{f"{_S}criteria.x_four_fifths_ratio__mutmut_{n}": "a zero highest share gives 0 / 0 = NaN, as the guard "
       "does (with a numpy warning)" for n in (20, 23)},
    **{f"{_S}criteria.x_permutation_test__mutmut_{n}": "zeros of another dtype: still one stratum"
       for n in (8, 10)},
    f"{_S}criteria.x_permutation_test__mutmut_13": "default_rng of a Generator returns that Generator",
    **{f"{_S}criteria.x_permutation_test__mutmut_{n}": "_Null.test casts the mask to bool" for n in (32, 34)},
    f"{_S}criteria.x__permutations__mutmut_4": "with no replies the one block [0, 0) is empty and skipped",
    f"{_S}criteria.xǁ_Nullǁtest__mutmut_61":
        "< and <= differ only for a null ratio exactly equal to the observed + 1e-12",
    f"{_S}criteria.x_criteria__mutmut_64": "the mask is already bool",
    f"{_S}crossed.xǁCrossedPlanǁdf__mutmut_66": "1e+17 is 1e17",
    f"{_S}crossed.x_crossed_plan__mutmut_65": "split('\\t')[0] is split('\\t', 1)[0]",
    f"{_S}dispersion.x_dispersion__mutmut_40": "differs only with no rows, where an extra empty group changes nothing",
    f"{_S}dispersion.x_dispersion__mutmut_47": "factorize codes are 0..n_g-1, so the bincount has n_g entries anyway",
    f"{_S}dispersion.x_dispersion__mutmut_220": "the fill is used only where df < 1, where the pooled value is taken",
    **{f"{_S}variance.x_cluster_variance__mutmut_{n}": "returned only when no row is kept: zeros either way "
       "(floats instead of integers)" for n in (42, 47)},
    **{f"{_S}resample.x__codes__mutmut_{n}": "a Series of any dtype factorizes to the same first-appearance codes"
       for n in (3, 5, 14, 15)},
    f"{_S}resample.x__draw_children__mutmut_4": "children of one parent in another order: another draw from the "
        "same distribution (a seed still fixes the matrix)",
    f"{_S}resample.x_cluster_weights__mutmut_13": "default_rng of a Generator returns that Generator",
    f"{_S}fdr.x_bh__mutmut_20": "statsmodels' multipletests lower-cases the method name",
    f"{_S}crossed.xǁCrossedPlanǁvariance__mutmut_46": "float ones count the units as bool ones do",
    f"{_S}crossed.xǁCrossedPlanǁvariance__mutmut_63": "numpy's reshape takes any negative size as the unknown one",
    f"{_S}crossed.xǁCrossedPlanǁdf__mutmut_24": "a float matrix product is > 0 where the integer one is",
    f"{_S}criteria.xǁ_Nullǁ__init____mutmut_73": "stacking 1-d arrays along axis 1 is stacking along axis -1",
    f"{_S}intervals.x_betabinomial_pvalue__mutmut_23": "a negative icc takes the binomial branch, as 0 does",
    f"{_S}dispersion.x__fit__mutmut_66": "g holds every code 0..n_g-1, so the bincount has n_g entries anyway",
    f"{_S}variance.x_cell_scores__mutmut_101": "the inner fill is used only where den[c] is 0, where z is 0 anyway",
    f"{_S}resample.x__draw_children__mutmut_8": "numpy reads the sort kind case-insensitively",
    **{f"{_S}resample.x_cluster_weights__mutmut_{n}": "an extra stratum without clusters draws nothing"
       for n in (30, 31)},
    f"{_S}correlation.x_correlation__mutmut_25": "with one side constant scipy and the jackknife give NaN "
        "(scipy with a warning): the same NaNs the guard returns",
    **{f"{_S}variance.x_cluster_variance__mutmut_{n}": "sh holds every code 0..len(cs)-1, so the bincount has "
       "len(cs) entries anyway" for n in (84, 92)},
    # analysis.py, robustness.py, units.py (their samples, run after the other ten modules')
    f"{_S}units.x_unit_table__mutmut_9": "negative counts as float64, not int64: the same numbers (add_statistics' "
        "tables equal, dtypes too, on test_robustness_table_on_a_template_effect's data, checked by hand)",
    f"{_S}units.x_unit_table__mutmut_24": "observed acts only on categorical keys; the occurrences' keys are "
        "strings and integers",
    **{f"{_S}units.x_unit_table__mutmut_{n}": "the next line sorts by the unit keys, unique per row (a probe has "
       "one template and format)" for n in (23, 26, 32)},
    **{f"{_S}units.x_unit_table__mutmut_{n}": "the groupby (sort=True) already orders the rows by the unique unit "
       "keys: the sort keeps the index 0..n-1" for n in (40, 42)},
    f"{_S}units.x_probe_status__mutmut_61": "the frame is cast to int64 on the next line",
    **{f"{_S}robustness.x__weighted_ranks__mutmut_{n}": "every position of a tie block gets the block's rank: "
       "the order inside ties does not matter" for n in (3, 5)},
    f"{_S}robustness.x__weighted_ranks__mutmut_49": "w is float64 (np.ones, np.zeros in rank_stability): "
        "empty_like gives float64 anyway",
    f"{_S}robustness.x_jaccard__mutmut_25": "the probes in another order: the same mean over them",
    f"{_S}robustness.x_robustness__mutmut_193": "the only column the two tables share is category",
    f"{_S}analysis.x__attach__mutmut_6": "a table and its intervals share only the key columns (checked on the "
        "three tables)",
})


def equivalent_reason(diff: str, mutant: str = "") -> str | None:
    """The EQUIVALENT (or MANUAL) reason a survivor matches, or None."""
    for name, reason in MANUAL.items():  # by the module's last parts: issue 22 moved the fill-in modules
        if mutant.endswith(name.removeprefix("stereoprobe.")):
            return reason
    minus = [line[1:] for line in diff.splitlines() if line.startswith("-") and not line.startswith("---")]
    plus = [line[1:] for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")]
    if len(minus) != 1 or len(plus) != 1:
        return None
    for before, after, reason in EQUIVALENT:
        if re.search(before, minus[0]) and re.search(after, plus[0]):
            return reason
    return None


# bench/: tests/test_stats_groups.py imports its simulator
COPY = ["stereoprobe", "tests", "groups", "lexicons", "docs", "notebooks", "bench", "README.md", "pyproject.toml"]


def resolve(name: str) -> tuple[list[str], list[str]]:
    """The set's existing module paths (files, or a package's .py files) and test files."""
    spec = SETS[name]
    modules: list[str] = []
    for alternatives in spec["modules"]:
        path = next((p for p in alternatives if (ROOT / p).exists()), None)
        if path is None:
            sys.exit(f"set {name}: none of {alternatives} exists")
        modules += ([str(p.relative_to(ROOT)) for p in sorted((ROOT / path).glob("*.py"))]
                    if (ROOT / path).is_dir() else [path])
    tests = [t for t in spec["tests"] if (ROOT / t).exists()]
    return modules, tests


def prepare(work: Path, modules: list[str], tests: list[str], deselected: list[str] = ()) -> None:
    """A scratch copy of the repository with mutmut's settings for this set in pyproject.toml."""
    for item in COPY:
        src = ROOT / item
        if src.is_dir():
            shutil.copytree(src, work / item, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis"))
        elif src.exists():
            shutil.copy2(src, work / item)
    toml = lambda xs: "[" + ", ".join(json.dumps(x) for x in xs) + "]"  # noqa: E731
    deselect = [arg for test in deselected for arg in ("--deselect", test)]
    with (work / "pyproject.toml").open("a") as f:
        f.write("\n[tool.mutmut]\n"
                'source_paths = ["stereoprobe/"]\n'
                f"only_mutate = {toml(modules)}\n"
                f"also_copy = {toml([c for c in COPY if c not in ('stereoprobe', 'tests', 'pyproject.toml')])}\n"
                f"pytest_add_cli_args_test_selection = {toml(tests)}\n"
                f'pytest_add_cli_args = {toml(["-p", "no:cacheprovider", "-o", "addopts=", "-x", *deselect])}\n'
                "use_git_change_detection = false\n")


def run_set(name: str, work: Path, children: int) -> dict:
    modules, tests = resolve(name)
    prepare(work, modules, tests, SETS[name].get("deselect", []))
    start, load_before = time.time(), os.getloadavg()
    log = work / "mutmut.log"
    with log.open("w") as f:
        code = subprocess.call([sys.executable, "-m", "mutmut", "run", "--max-children", str(children),
                                *SETS[name].get("mutants", [])], cwd=work, stdout=f, stderr=subprocess.STDOUT)
    result = summarise(name, work)
    result.update({"exit": code, "wall_s": round(time.time() - start), "load_before": load_before,
                   "load_after": os.getloadavg()})
    return result


# mutmut show parses a mutated module per call (seconds each on a loaded machine): all diffs at once instead
_DIFFS = """
import functools, json, sys
from mutmut.mutation import diff_apply as d
from mutmut.mutation.data import SourceFileMutationData
from mutmut.utils.file_utils import walk_mutatable_files
d.read_mutants_module = functools.lru_cache(maxsize=None)(d.read_mutants_module)
wanted, out = set(json.load(sys.stdin)), {}
for path in walk_mutatable_files():
    m = SourceFileMutationData(path=path)
    m.load()
    for name in wanted & set(m.exit_code_by_key):
        out[name] = d.get_diff_for_mutant(name, path=m.path)
json.dump(out, sys.stdout)
"""


def diffs(work: Path, names: list[str]) -> dict[str, str]:
    """Each mutant's diff (as ``mutmut show`` prints it), read in one process."""
    if not names:
        return {}
    done = subprocess.run([sys.executable, "-c", _DIFFS], cwd=work, input=json.dumps(names), capture_output=True,
                          text=True)
    if done.returncode:
        sys.exit(f"reading the diffs failed: {done.stderr.strip().splitlines()[-1:]}")
    return json.loads(done.stdout)


def rerun(name: str, work: Path, children: int) -> None:
    """Run an earlier run's survivors again against the checkout's current tests (tests
    added for them): the tests are copied in, mutmut's test-to-function map is rebuilt."""
    out = subprocess.run([sys.executable, "-m", "mutmut", "results"], cwd=work, capture_output=True, text=True).stdout
    names = [m for m, state in re.findall(r"^\s*(\S+): (\w[\w ]*)$", out, re.M) if state in ("survived", "no tests")]
    diff = diffs(work, names)
    names = [m for m in names if equivalent_reason(diff.get(m, ""), m) is None]  # an equivalent one survives again
    for target in (work / "tests", work / "mutants" / "tests"):
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(ROOT / "tests", target, ignore=shutil.ignore_patterns("__pycache__", ".hypothesis"))
    (work / "mutants" / "mutmut-stats.json").unlink(missing_ok=True)
    toml = work / "pyproject.toml"  # the set's current test files (one may have been added since the run)
    selection = "pytest_add_cli_args_test_selection = " + json.dumps(resolve(name)[1])
    toml.write_text(re.sub(r"^pytest_add_cli_args_test_selection = .*$", lambda _: selection, toml.read_text(),
                           flags=re.M))
    with (work / "mutmut-rerun.log").open("w") as f:
        subprocess.call([sys.executable, "-m", "mutmut", "run", "--max-children", str(children), *names], cwd=work,
                        stdout=f, stderr=subprocess.STDOUT)


def summarise(name: str, work: Path) -> dict:
    """Per module: counts, score and survivors of the mutants in scope (the set's
    ``mutants`` globs, if it names some; the others are counted apart as ``out_of_scope``)."""
    modules, tests = resolve(name)
    globs = SETS[name].get("mutants", ["*"])
    out = subprocess.run([sys.executable, "-m", "mutmut", "results", "--all", "true"], cwd=work,
                         capture_output=True, text=True).stdout
    status = dict(re.findall(r"^\s*(\S+): (\w[\w ]*)$", out, re.M))
    per_module: dict[str, dict] = {}
    diff = diffs(work, [m for m, state in status.items() if state in ("survived", "no tests")])
    for mutant, state in status.items():
        module = mutant.split(".x_")[0].split(".xǁ")[0]
        entry = per_module.setdefault(module, {"total": 0, "counts": {}, "survivors": [], "out_of_scope": 0})
        if not any(fnmatch.fnmatch(mutant, g) for g in globs):
            entry["out_of_scope"] += 1
            continue
        entry["total"] += 1
        entry["counts"][state] = entry["counts"].get(state, 0) + 1
        if state in ("survived", "no tests"):
            reason = equivalent_reason(diff.get(mutant, ""), mutant)
            entry["counts"]["equivalent"] = entry["counts"].get("equivalent", 0) + (reason is not None)
            entry["survivors"].append({"mutant": mutant, "status": state, "diff": diff.get(mutant, ""),
                                       "equivalent": reason})
    for entry in per_module.values():
        c = entry["counts"]
        checked = entry["total"] - c.get("not checked", 0) - c.get("equivalent", 0)
        entry["score"] = (c.get("killed", 0) + c.get("timeout", 0)) / checked if checked else 0.0
    return {"set": name, "modules": modules, "tests": tests, "mutants": SETS[name].get("mutants"),
            "per_module": per_module}


def markdown(result: dict) -> str:
    lines = [f"# Mutation run: {result['set']}", "",
             f"wall {result['wall_s']} s; load average before {(result['load_before'] or [math.nan])[0]:.1f}, "
             f"after {(result['load_after'] or [math.nan])[0]:.1f}; tests: {', '.join(result['tests'])}",
             f"mutants in scope: {', '.join(result.get('mutants') or ['all'])}", "",
             "score = (killed + timeout) / (mutants - not checked - equivalent)", "",
             "| module | mutants | not checked | killed | timeout | survived | no tests | of which equivalent | score |"
             " out of scope |", "|---|---|---|---|---|---|---|---|---|---|"]
    for module, e in sorted(result["per_module"].items()):
        c = e["counts"]
        lines.append(f"| {module} | {e['total']} | {c.get('not checked', 0)} | {c.get('killed', 0)} | "
                     f"{c.get('timeout', 0)} | {c.get('survived', 0)} | {c.get('no tests', 0)} | "
                     f"{c.get('equivalent', 0)} | {100 * e['score']:.0f}% | {e['out_of_scope']} |")
    for module, e in sorted(result["per_module"].items()):
        for s in e["survivors"]:
            why = f"equivalent: {s['equivalent']}" if s.get("equivalent") else "not killed"
            body = [line for line in s["diff"].splitlines() if line[:1] in "+-" and line[:3] not in ("---", "+++")]
            lines += ["", f"- `{s['mutant']}` ({s['status']}; {why})", "", "  ```diff",
                      *("  " + line for line in body), "  ```"]
    return "\n".join(lines) + "\n"


# Functions whose survivors a test added after the runs above targets (tests/test_mutation_kills.py);
# not yet confirmed by a second mutmut run (docs/testing.md).
ADDED_AFTER = {
    "measure.x_first_token_mass": "test_expression_probability_and_first_token_mass_by_hand",
    "measure.x_expression_probability": "test_expression_probability_and_first_token_mass_by_hand",
    "measure.x_parse_answer": "test_parse_answer_takes_the_longest_expression_and_a_word_boundary",
    "measure.x_first_name": "test_first_name_skips_stop_words_and_reads_only_the_start",
    "measure.x_normalise": "test_eq2_with_missing_genders_and_no_mass",
    "stats.x_group_means": "test_group_means_with_no_job_and_one_job",
    "stats.x_paired_differences": "test_paired_differences_with_one_job_and_the_seed",
    "stats.x_independence": "test_independence_null_by_hand",
    "stats.x_nmi_table": "test_nmi_table_sums_each_jobs_rows",
    "answers.x_decide": "test_decide_and_answers_from_logprobs_and_replies",
    "answers.x_answer_from": "test_decide_and_answers_from_logprobs_and_replies",
    "answers.x_majority": "test_majority_of_samples_by_hand",
    "answers.xǁCorefAnswerǁto_dict": "test_decide_and_answers_from_logprobs_and_replies",
    "tables.x_shares_without_synonyms": "test_shares_without_synonyms_by_hand",
    "tables.x_shares__": "test_shares_by_category_and_by_format_by_hand",
}


def docs_section(out: Path) -> str:
    """docs/testing.md's results: per set and module the score, then every survivor in one line."""
    lines = ["| set | module | mutants | not checked | killed + timeout | equivalent | not killed | score |",
             "|---|---|---|---|---|---|---|---|"]
    notes = []
    for path in sorted(out.glob("*.json")):
        r = json.loads(path.read_text())
        for module, e in sorted(r["per_module"].items()):
            c = e["counts"]
            bad = [s for s in e["survivors"] if not s.get("equivalent")]
            lines.append(f"| {r['set']} | `{module}` | {e['total']} | {c.get('not checked', 0)} | "
                         f"{c.get('killed', 0) + c.get('timeout', 0)} | {c.get('equivalent', 0)} | {len(bad)} | "
                         f"{100 * e['score']:.0f}% |")
            for s in e["survivors"]:
                body = [x[1:].strip() for x in s["diff"].splitlines() if x[:1] == "+" and x[:3] != "+++"]
                later = next((t for k, t in ADDED_AFTER.items() if k in s["mutant"]), None)
                why = (f"equivalent: {s['equivalent']}" if s.get("equivalent") else
                       f"not killed in the run; targeted since by `{later}`" if later else "**not killed**")
                notes.append(f"- `{s['mutant'].split('.')[-1]}` ({module}): `{' '.join(body)[:90]}`: {why}")
    return "\n".join(lines + ["", *notes]) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sets", nargs="*", help=f"module sets: {', '.join(SETS)}")
    parser.add_argument("--list", action="store_true", help="print the sets and exit")
    parser.add_argument("--work", type=Path, help="scratch folder (default: a new temporary folder per set)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "mutation")
    parser.add_argument("--children", type=int, default=2, help="parallel mutant runs (default 2)")
    parser.add_argument("--rerun-survivors", action="store_true",
                        help="copy the current tests into --work/<set> and run its survivors again")
    parser.add_argument("--docs", action="store_true", help="print docs/testing.md's results from --out and exit")
    parser.add_argument("--summarise", action="store_true",
                        help="only write the results of an earlier run in --work/<set> (no new run)")
    args = parser.parse_args()
    if args.docs:
        print(docs_section(args.out), end="")
        return
    if args.list or not args.sets:
        for name in SETS:
            modules, tests = resolve(name)
            print(f"{name}: {' '.join(modules)}\n    tests: {' '.join(tests)}")
        return
    unknown = [s for s in args.sets if s not in SETS]
    if unknown:
        sys.exit(f"unknown set {unknown[0]!r}: choose from {', '.join(SETS)}")
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.sets:
        work = (args.work / name) if args.work else Path(tempfile.mkdtemp(prefix=f"mutation-{name}-"))
        if args.rerun_survivors:
            rerun(name, work, args.children)
            args.summarise = True
        if args.summarise:
            old = json.loads((args.out / f"{name}.json").read_text()) if (args.out / f"{name}.json").exists() else {}
            result = {**{k: old.get(k) for k in ("exit", "wall_s", "load_before", "load_after")}, **summarise(name, work)}
        else:
            if work.exists() and any(work.iterdir()):
                sys.exit(f"{work} is not empty: give another --work")
            work.mkdir(parents=True, exist_ok=True)
            result = run_set(name, work, args.children)
        (args.out / f"{name}.json").write_text(json.dumps(result, indent=1))
        (args.out / f"{name}.md").write_text(markdown(result))
        summary = ", ".join(f"{m}: {100 * e['score']:.0f}% of {e['total']}" for m, e in result["per_module"].items())
        print(f"{name}: {result['wall_s']} s; {summary}", flush=True)


if __name__ == "__main__":
    main()

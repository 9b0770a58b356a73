"""The speed-ups of `stereoprobe report` and `sentiment` change nothing: word clouds laid out
and drawn by cloud_layout are the pixels wordcloud draws (docs/benchmarks.md). WordNet's reader
against NLTK's: tests/test_wordnet.py."""

from __future__ import annotations

import random

import pytest

from stereoprobe.studies.fillin.report.words import Word


def _wordcloud_image(words, size):
    """The cloud as wordcloud itself lays it out and draws it, with clouds.cloud_image's settings."""
    from wordcloud import WordCloud

    from stereoprobe.studies.fillin.report import clouds

    labels = {w.word: w.label for w in words}
    lw, lh = round(size[0] / clouds.LAYOUT_SCALE), round(size[1] / clouds.LAYOUT_SCALE)
    wc = WordCloud(width=lw, height=lh, scale=clouds.LAYOUT_SCALE, background_color="white",
                   font_path=clouds.font_path(), max_words=clouds.MAX_WORDS, max_font_size=max(8, lh // 3),
                   min_font_size=6, font_step=2, prefer_horizontal=0.95, relative_scaling=0.6, random_state=0,
                   color_func=lambda word, **_: clouds.colour_of(labels.get(word, "")))
    img = wc.generate_from_frequencies({w.word: w.count for w in words[:clouds.MAX_WORDS]}).to_image()
    return img if img.size == size else img.resize(size)


@pytest.mark.parametrize("size", [(440, 276), (900, 520), (301, 201)])
def test_clouds_are_the_pixels_wordcloud_draws(size):
    """cloud_layout's port of wordcloud's layout and drawing (its caches warm after the first
    round) gives wordcloud's own pixels: the same random draws, sizes, positions, rotations
    (1 word in 20 turned 90 degrees), and words that fill the canvas until no more fit. A
    wrong integral-image update, box, margin or random draw moves words and fails this."""
    from stereoprobe.studies.fillin.report import clouds
    from stereoprobe.studies.fillin.sentiment.label import _lemma_table

    rng = random.Random(1)
    vocab = sorted(w for w in _lemma_table() if w.isalpha() and 3 <= len(w) <= 12)
    vocab = rng.sample(vocab, 400) + ["jealous", "fly", "quirky", "Ypsilanti", "AVAWAY", "jejunum"]
    sets = [[Word(w, rng.randint(1, 60) if k else 80, rng.choice(["positive", "negative", "neutral"]))
             for k, w in enumerate(rng.sample(vocab, rng.choice([5, 40, 150])))] for _ in range(8)]
    sets = [sorted(s, key=lambda w: -w.count) for s in sets]
    ours = [clouds.cloud_image(words, size).tobytes() for words in sets * 2]  # the second round hits the caches
    theirs = [_wordcloud_image(words, size).tobytes() for words in sets]
    assert ours == theirs * 2
    assert len(set(theirs)) == len(sets)


def test_the_pages_clouds_are_drawn_at_their_size():
    """The group clouds' panel is twice the layout's grid, so nothing is resampled: 440 x 276
    from a 220 x 138 grid (at 440 x 275 the grid would be 220 x 138 too, drawn 276 high)."""
    from stereoprobe.studies.fillin.report import clouds

    assert clouds.CLOUD_SIZE == (440, 276)
    assert all(round(v / clouds.LAYOUT_SCALE) * clouds.LAYOUT_SCALE == v for v in clouds.CLOUD_SIZE)
    img = clouds.cloud_image([Word("lonely", 3, "negative"), Word("kind", 2, "positive")])
    assert img.size == (440, 276)


def test_report_drawn_by_workers_is_the_report_drawn_in_one_process(tmp_path):
    """The pool (category figures and groups as jobs, pages sent without their probes, data
    written meanwhile) writes what one process writes, file for file and byte for byte, and
    lists the files in the same order."""
    import re

    from test_report import write_run

    from stereoprobe.records import Completion
    from stereoprobe.studies.fillin.report import build_report

    words = ["complicated", "beautiful", "angry", "kind", "wise", "grumpy", "loving", "greedy", "blue", "happy"]
    recs = []
    for g in range(12):  # 12 groups in two categories: enough for the pool (8 or more)
        for k, (template, fmt) in enumerate([("why_are_so", "question"), ("are_so", "statement")]):
            group = f"group {g}"
            recs.append(Completion(f"p{g}-{k}", 0, ["gender", "age"][g % 2], group, template, fmt,
                                   f"why are {group} so" if fmt == "question" else f"{group} are so",
                                   words=[words[(g + k + i) % len(words)] for i in range(1 + g % 4)]))
    run = write_run(tmp_path / "run", recs)
    one = build_report(run, out=tmp_path / "one", workers=1)
    two = build_report(run, out=tmp_path / "two", workers=2)
    rel = [[p.relative_to(r.out) for p in r.paths] for r in (one, two)]
    assert rel[0] == rel[1] and len(rel[0]) > 10
    # matplotlib's SVGs say when they were written and name clip paths and markers by chance
    date = re.compile(rb"<dc:date>[^<]*</dc:date>|#?\b[a-z][0-9a-f]{10}\b")
    for p in rel[0]:
        a, b = (tmp_path / "one" / p).read_bytes(), (tmp_path / "two" / p).read_bytes()
        assert date.sub(b"", a) == date.sub(b"", b), p


def test_share_counts_by_groupby_are_crosstabs():
    """tables.shares counts labels with groupby().size() instead of pd.crosstab: the same table
    (observed keys only, sorted, zeros filled), so the same shares."""
    import pandas as pd

    from stereoprobe.studies.fillin.sentiment import tables

    occ = pd.DataFrame([("age", "old", "t1", "question", "w", lab) for lab in ("negative", "negative", "positive")]
                       + [("age", "young", "t2", "statement", "w", "both"), ("race", "x", "t1", "question", "w", "neutral")],
                       columns=["category", "group", "template", "format", "word", "label"])
    for keys in (["category"], ["category", "group"], ["category", "template", "format"]):
        levels = keys if "format" in keys else [*keys, "format"]
        expected = pd.crosstab([occ[k] for k in levels], occ["label"])
        got = occ.groupby([occ[k] for k in levels] + [occ["label"]]).size().unstack("label", fill_value=0)
        pd.testing.assert_frame_equal(got, expected)
    t4 = tables.table4(occ).set_index("category")
    assert t4.loc["age", "negative"] == pytest.approx(200 / 3)  # 2 of 3 polar words; "both" left out
    assert t4.loc["age", "n_left_out"] == 1 and t4.loc["race", "n_neutral"] == 1

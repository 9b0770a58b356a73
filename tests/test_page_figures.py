"""page/figures.texts and row_labels: many texts in one artist draw the pixels one ax.text per
text (and the y axis's tick labels) draw."""

from __future__ import annotations

import numpy as np


def _heatmap(one_artist: bool, fmt: str = "png", with_rows: bool = True):
    from stereoprobe.page.figures import figure, row_labels, texts, to_image

    rng = np.random.default_rng(3)
    values = rng.uniform(0, 100, (12, 5))
    fig = figure(5, 4)
    ax = fig.add_axes((0.2, 0.1, 0.7, 0.8))
    ax.imshow(values, cmap="PuOr_r", aspect="auto")
    items = []
    for i in range(12):
        for j in range(5):
            # repeated texts (the layouts kept within a drawing), fractions, widths, both colours and weights
            text = ["3/6", "45", "–", f"{values[i, j]:.0f} (n={i})", "12"][(i + j) % 5]
            items.append((j, i, text, "white" if values[i, j] > 60 else "black", "bold" if i == 0 else "normal"))
    rows = [(f"group {i}" if i else "all groups", "bold" if i == 0 else "normal") for i in range(12)]
    if one_artist:
        texts(ax, items, ha="center", va="center", fontsize=9)
        if with_rows:
            row_labels(ax, rows, fontsize=9)
    else:
        for x, y, text, colour, weight in items:
            ax.text(x, y, text, ha="center", va="center", fontsize=9, color=colour, fontweight=weight)
        if with_rows:
            ax.set_yticks(range(12), [text for text, _ in rows], fontsize=9)
            ax.get_yticklabels()[0].set_fontweight("bold")
            ax.tick_params(axis="y", length=0)
    ax.annotate("after the cells", xy=(0.5, 1), xycoords="axes fraction", ha="center")
    if fmt == "svg":
        import io

        buf = io.StringIO()
        fig.savefig(buf, format="svg", metadata={"Date": None})
        return buf.getvalue()
    return np.asarray(to_image(fig))


def test_texts_and_row_labels_in_one_artist_are_the_pixels_of_one_text_each():
    one, many = _heatmap(True), _heatmap(False)
    assert one.shape == many.shape
    assert (one == many).all()
    # the cells were drawn: the image differs from one without them
    from stereoprobe.page.figures import figure, to_image

    assert (one != np.asarray(to_image(figure(5, 4)))).any()


def test_texts_in_one_artist_write_the_same_svg_text():
    import re

    one, many = _heatmap(True, "svg", with_rows=False), _heatmap(False, "svg", with_rows=False)
    # the same glyphs at the same places; only generated ids (and references to them) may differ
    strip = re.compile(r'id="[^"]*"|#[a-z][0-9a-f]{10}')
    assert strip.sub("", one) == strip.sub("", many)


def test_save_png_keeps_the_quantised_pixels_and_packs_charts_as_before():
    """save_png: a cloud-like image of 8 colours decodes to exactly the quantised image and is
    packed with zlib's run-length strategy; a 128-colour chart is written byte for byte as zlib's default writes it
    (the run-length strategy packed such charts 45-55% larger, docs/report.md)."""
    import io

    from PIL import Image, ImageDraw

    from stereoprobe.page.figures import Z_RLE, save_png

    cloud = Image.new("RGB", (220, 120), "white")
    pen = ImageDraw.Draw(cloud)
    for i, colour in enumerate(("#b14200", "#0072b2", "#707070")):
        pen.text((10 + 60 * i, 20 + 30 * i), "word", fill=colour)
    buf = io.BytesIO()
    save_png(cloud, buf, 8)
    quantised = cloud.quantize(colors=8, method=Image.Quantize.FASTOCTREE)
    assert np.array_equal(np.asarray(Image.open(io.BytesIO(buf.getvalue())).convert("RGB")),
                          np.asarray(quantised.convert("RGB")))
    rle = io.BytesIO()
    quantised.save(rle, format="PNG", compress_type=Z_RLE)
    assert buf.getvalue() == rle.getvalue()

    chart = Image.fromarray(_heatmap(True)[..., :3])
    ours, default = io.BytesIO(), io.BytesIO()
    save_png(chart, ours, 128)
    chart.quantize(colors=128, method=Image.Quantize.FASTOCTREE).save(default, format="PNG")
    assert ours.getvalue() == default.getvalue()

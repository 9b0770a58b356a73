"""Word clouds: size by frequency, colour by sentiment, composed into PNG and SVG figures.

Clouds are laid out and drawn as the ``wordcloud`` package does (``cloud_layout``: its steps,
faster, the same pixels). The figures around them (title, panel
titles, legend, caption) are composed with Pillow for PNG and as a small SVG document
that embeds the same cloud images: drawing ~1,100 clouds through matplotlib took about
three times as long (docs/report.md), and a cloud is a raster image either way.

Colours (page/palette.py): positive and negative in the active palette (blue and
vermilion by default, the paper's green and red as an option); neutral, "both" (EmoLex
marks the word positive and negative) and unassigned (not found) words grey. Only
positive and negative words count in the shares.
"""

from __future__ import annotations

import base64
import html
import io
from functools import lru_cache
from typing import TYPE_CHECKING, Sequence

from stereoprobe.studies.fillin.report.words import Word

if TYPE_CHECKING:  # pragma: no cover
    from PIL import Image

from stereoprobe.page import palette

GREY = "#707070"


def legend() -> tuple[tuple[str, str], ...]:
    """(colour, text) of the word colours in the active palette."""
    return (
        (palette.colour("positive"), "positive"),
        (palette.colour("negative"), "negative"),
        (palette.colour("other"), "neutral, both or not in the lexicon (not counted)"),
    )

#: pixels of one cloud panel, shown 1:1 on the pages: twice the layout's grid (220 x 138), so
#: the cloud is drawn at its size (at 440 x 275 it was drawn 276 high and resampled, 0.8 ms a
#: cloud, 4% of a full run's report)
CLOUD_SIZE = (440, 276)
LAYOUT_SCALE = 2.0  # words are placed on a grid this much coarser, then drawn at full size
MAX_WORDS = 120


def colour_of(label: str) -> str:
    """Hex colour of a sentiment label.

    >>> colour_of("negative"), colour_of("both") == colour_of("unassigned")
    ('#b14200', True)
    """
    return palette.colour(label if label in ("positive", "negative") else "other")


@lru_cache(maxsize=None)
def font_path(bold: bool = False) -> str:
    """DejaVu Sans as shipped with matplotlib (no system fonts needed), as a plain str
    (matplotlib 3.11's path object costs 10 us to hash, and the clouds' caches hash it
    about 100,000 times a report)."""
    from matplotlib import font_manager

    props = font_manager.FontProperties(family="DejaVu Sans", weight="bold" if bold else "normal")
    return str(font_manager.findfont(props))


@lru_cache(maxsize=64)
def font(size: int, bold: bool = False):
    from PIL import ImageFont

    return ImageFont.truetype(font_path(bold), size)


def cloud_image(words: Sequence[Word], size: tuple[int, int] = CLOUD_SIZE) -> "Image.Image":
    """One word cloud as an RGB image; no words gives a panel saying so.

    >>> img = cloud_image([Word("lonely", 1, "negative")], (200, 120))
    >>> img.size, img.getpixel((0, 0))
    ((200, 120), (255, 255, 255))
    """
    from PIL import Image, ImageDraw

    from stereoprobe.studies.fillin.report import cloud_layout

    width, height = size
    if not words:
        img = Image.new("RGB", size, "white")
        draw = ImageDraw.Draw(img)
        draw.rectangle([0, 0, width - 1, height - 1], outline="#dddddd")
        draw.text((width / 2, height / 2), "no words", fill=GREY, font=font(max(14, height // 10)), anchor="mm")
        return img
    labels = {w.word: w.label for w in words}
    freqs = {w.word: w.count for w in words[:MAX_WORDS]}
    # Placing words costs time in proportion to the canvas area; placing them on a
    # coarser canvas and drawing at full size halves the time with no visible loss.
    # wordcloud's WordCloud(width=lw, height=lh, scale=LAYOUT_SCALE, background_color="white",
    # max_words=MAX_WORDS, max_font_size=max(8, lh // 3) (one word alone must not fill the
    # panel), min_font_size=6 (x LAYOUT_SCALE: no word drawn under 12 px), font_step=2,
    # prefer_horizontal=0.95, relative_scaling=0.6, random_state=0 (the same input draws
    # the same cloud)), laid out and drawn by cloud_layout: the same pixels, faster.
    lw, lh = round(width / LAYOUT_SCALE), round(height / LAYOUT_SCALE)
    placed = cloud_layout.layout(freqs, lw, lh, max(8, lh // 3), MAX_WORDS, font_path())
    img = cloud_layout.draw(placed, lw, lh, LAYOUT_SCALE, font_path(), lambda word: colour_of(labels.get(word, "")))
    return img if img.size == size else img.resize(size)


def png_bytes(img: "Image.Image", colors: int = 64) -> bytes:
    """PNG-encode an image, quantised to ``colors`` colours (see :func:`save_png`)."""
    buf = io.BytesIO()
    save_png(img, buf, colors)
    return buf.getvalue()


def save_png(img: "Image.Image", target, colors: int = 64) -> None:
    """Save as a 64-colour PNG: clouds and slides hold few colours, and this is
    about 4x smaller and 5x faster to encode than RGB (docs/report.md). A cloud
    alone (three word colours on white) keeps its look with 8."""
    from stereoprobe.page.figures import save_png as save

    save(img, target, colors)


def data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


# -- figures: title, panels side by side, legend, caption -------------------------------

PAD, TITLE_H, SUB_H, LEGEND_H, CAPTION_H = 20, 44, 30, 34, 28


def _layout(n: int, size: tuple[int, int]) -> tuple[int, int]:
    w, h = size
    return PAD + n * (w + PAD), TITLE_H + SUB_H + h + LEGEND_H + CAPTION_H + PAD


def compose_png(title: str, panels: Sequence[tuple[str, "Image.Image"]], caption: str) -> "Image.Image":
    """Panels side by side under a title, with the colour legend and a caption line."""
    from PIL import Image, ImageDraw

    size = panels[0][1].size
    width, height = _layout(len(panels), size)
    canvas = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(canvas)
    draw.text((PAD, PAD), fit_text(title, font(22, True), width - 2 * PAD), fill="black", font=font(22, True))
    y = TITLE_H
    for i, (subtitle, img) in enumerate(panels):
        x = PAD + i * (size[0] + PAD)
        draw.text((x, y + 4), fit_text(subtitle, font(16), size[0]), fill="#333333", font=font(16))
        canvas.paste(img, (x, y + SUB_H))
        draw.rectangle([x - 1, y + SUB_H - 1, x + size[0], y + SUB_H + size[1]], outline="#e0e0e0")
    y += SUB_H + size[1] + 10
    x = PAD
    for colour, text in legend():
        draw.rectangle([x, y + 4, x + 14, y + 18], fill=colour)
        draw.text((x + 20, y + 2), text, fill="#333333", font=font(14))
        x += 40 + int(draw.textlength(text, font=font(14)))
    draw.text((PAD, y + LEGEND_H), fit_text(caption, font(13), width - 2 * PAD), fill="#666666", font=font(13))
    return canvas


def compose_svg(title: str, panels: Sequence[tuple[str, bytes]], size: tuple[int, int], caption: str) -> str:
    """The same figure as an SVG document with the clouds embedded as PNG data."""
    esc = html.escape
    width, height = _layout(len(panels), size)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Verdana, sans-serif">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{PAD}" y="{PAD + 20}" font-size="22" font-weight="bold">{esc(title)}</text>',
    ]
    y = TITLE_H
    for i, (subtitle, png) in enumerate(panels):
        x = PAD + i * (size[0] + PAD)
        parts.append(f'<text x="{x}" y="{y + 20}" font-size="16" fill="#333">{esc(subtitle)}</text>')
        parts.append(
            f'<image x="{x}" y="{y + SUB_H}" width="{size[0]}" height="{size[1]}" href="{data_uri(png)}"/>'
        )
    y += SUB_H + size[1] + 10
    x = PAD
    for colour, text in legend():
        parts.append(f'<rect x="{x}" y="{y + 4}" width="14" height="14" fill="{colour}"/>')
        parts.append(f'<text x="{x + 20}" y="{y + 16}" font-size="14" fill="#333">{esc(text)}</text>')
        x += 40 + int(font(14).getlength(text))
    parts.append(f'<text x="{PAD}" y="{y + LEGEND_H + 13}" font-size="13" fill="#666">{esc(caption)}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def fit_text(text: str, fnt, max_width: int) -> str:
    """Cut text with an ellipsis so that it fits max_width pixels."""
    if fnt.getlength(text) <= max_width:
        return text
    while text and fnt.getlength(text + "…") > max_width:
        text = text[:-1]
    return text + "…"


def show(img: "Image.Image"):
    """A matplotlib Figure showing an image at its pixel size (for notebooks)."""
    from matplotlib.figure import Figure

    dpi = 100
    fig = Figure(figsize=(img.size[0] / dpi, img.size[1] / dpi), dpi=dpi)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.imshow(img)
    ax.set_axis_off()
    return fig


def figure_cloud(data, category: str, group: str | None = None, by_format: bool = False):
    """A word-cloud figure as a matplotlib Figure: a category, a group, or a group's two formats.

    ``data`` is a :class:`stereoprobe.studies.fillin.report.data.SentimentData`.
    """
    who = f"{group} ({category})" if group else f"the category {category}"
    if by_format:
        panels = [(f"{f} probes", cloud_image(data.words(category, group, f))) for f in ("question", "statement")]
        title = f"{who}: question vs statement probes"
    else:
        panels = [("question and statement probes", cloud_image(data.words(category, group)))]
        title = f"Words for {who}"
    return show(compose_png(title, panels, data.caption()))

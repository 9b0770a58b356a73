"""Figure helpers every study's pages share: a bare matplotlib Figure (no pyplot), text
safe as a label, and saving or embedding a chart."""

from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure


def figure(width: float, height: float) -> "Figure":
    # A bare Figure (no pyplot): it saves without a GUI backend and leaves a notebook's
    # backend alone.
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), dpi=100)


def tex_safe(text: object) -> str:
    r"""Text from the data as a matplotlib label: ``$`` would start mathtext.

    >>> print(tex_safe("$100 earners"))
    \$100 earners
    """
    return str(text).replace("$", r"\$")


def save(fig: "Figure", stem: Path, formats: tuple[str, ...] = ("png", "svg")) -> list[Path]:
    """Save a figure as STEM.png and STEM.svg; return the paths."""
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = []
    for ext in formats:
        path = stem.with_suffix(f".{ext}")
        fig.savefig(path, format=ext, facecolor="white")
        paths.append(path)
    return paths


def to_image(fig: "Figure"):
    """Render a figure to an RGB Pillow image (no PNG round trip)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from PIL import Image

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    return Image.frombuffer("RGBA", canvas.get_width_height(), canvas.buffer_rgba()).convert("RGB")


def to_png(fig: "Figure") -> bytes:
    """PNG bytes of a chart, quantised to 128 colours (a third of the size; every
    cell and bar keeps its number as text)."""
    buf = io.BytesIO()
    save_png(to_image(fig), buf, 128)
    return buf.getvalue()


#: zlib's run-length strategy (``Z_RLE``). An image of at most 16 colours is stored at 4 bits
#: a pixel (the word clouds: 8 or 16), and this strategy packs it within 1-3% of zlib's
#: default at a third of the time; at 8 bits a pixel (the charts' 128 colours) it packs
#: 45-55% larger, so those keep the default (docs/report.md, "Size and speed"). The pixels are the
#: same either way.
Z_RLE, RLE_COLOURS = 3, 16


def save_png(img, target, colors: int) -> None:
    """Save a Pillow image as a PNG of ``colors`` colours (fast octree quantisation) to a
    path or file object."""
    from PIL import Image

    strategy = Z_RLE if colors <= RLE_COLOURS else -1  # -1: zlib's default
    img.quantize(colors=colors, method=Image.Quantize.FASTOCTREE).save(target, format="PNG", compress_type=strategy)


def texts(ax, items, **style):
    """Many texts of one style in one artist (returned; its ``items`` are the texts):
    ``items`` are (x, y, text, colour, weight), ``style`` is what ``ax.text`` takes for all
    of them (fontsize, ha, va, ...).

    Each text is drawn by matplotlib's own ``Text.draw``, at the position and with the
    layout ``ax.text`` would give it, so the pixels are the same (tests/test_page_figures.py);
    but there is one artist instead of one per text (a heatmap of 116 groups has 700 cell
    texts: making them took a third of drawing it), and the layout of a text met before
    in the same drawing (a cell's "3/6" or "45") is not worked out again.
    """
    from matplotlib.text import Text

    class Texts(Text):
        #: the texts drawn: (x, y, text, colour, weight)
        items: list

        def draw(self, renderer):  # noqa: D102
            if not self.get_visible():
                return
            self._layouts = {}
            try:
                for x, y, text, colour, weight in self.items:
                    self.set_position((x, y))
                    self.set_text(text)
                    self.set_color(colour)
                    self.set_fontweight(weight)
                    super().draw(renderer)
            finally:
                self._layouts = None
            self.stale = False

        def _get_layout(self, renderer):
            # The layout is relative to the text's position: the same for the same text and
            # weight within one drawing (one renderer).
            layouts = getattr(self, "_layouts", None)
            if layouts is None:
                return super()._get_layout(renderer)
            key = (self.get_text(), self.get_fontweight())
            if key not in layouts:
                layouts[key] = super()._get_layout(renderer)
            return layouts[key]

    # ax.text's defaults (baseline, left, data coordinates, not clipped), then the style
    artist = Texts(0, 0, "", **{"verticalalignment": "baseline", "horizontalalignment": "left",
                               "transform": ax.transData, "clip_on": False, **style})
    artist.items = list(items)
    ax.add_artist(artist)
    return artist


def row_labels(ax, labels, fontsize: float):
    """Row labels of a heatmap with one row per data y = 0, 1, ...: ``labels`` are (text,
    weight). Drawn where, and as, ``ax.set_yticks(range(n), texts)`` draws the y axis's tick
    labels (its padding, alignment and colour; tests/test_page_figures.py compares the pixels),
    by one artist and without ticks: a heatmap of 116 groups spent a third of its drawing on
    making and drawing 116 ticks. The y axis is left without ticks."""
    import matplotlib as mpl

    place, va, ha = ax.get_yaxis_text1_transform(mpl.rcParams["ytick.major.pad"])
    colour = mpl.rcParams["ytick.labelcolor"]
    colour = mpl.rcParams["ytick.color"] if colour == "inherit" else colour
    artist = texts(ax, [(0, i, text, colour, weight) for i, (text, weight) in enumerate(labels)],
                   transform=place, va=va, ha=ha, fontsize=fontsize, label="row labels")
    ax.set_yticks([])
    return artist

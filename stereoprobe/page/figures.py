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
    from PIL import Image

    buf = io.BytesIO()
    to_image(fig).quantize(colors=128, method=Image.Quantize.FASTOCTREE).save(buf, format="PNG")
    return buf.getvalue()

"""Colours of the report. The default is safe for colour-blind readers: positive blue,
negative vermilion (Okabe & Ito's pair, darkened to 4.5:1 contrast on white so that the
words stay readable as text) and a purple-orange heatmap. ``paper`` is the paper's
red/green, kept as an option: under deuteranopia its red and green look alike.

The active palette is process-wide (the report's worker processes set it from their job).
"""

from __future__ import annotations

PALETTES = {
    "safe": {"positive": "#0a5fa3", "negative": "#b14200", "other": "#707070", "cmap": "PuOr_r"},
    "paper": {"positive": "#1a7f37", "negative": "#cf222e", "other": "#707070", "cmap": "RdYlGn_r"},
}
DEFAULT = "safe"
_active = {"name": DEFAULT}


def use_palette(name: str) -> None:
    """Make ``name`` (``safe`` or ``paper``) the palette of everything drawn from now on."""
    if name not in PALETTES:
        from stereoprobe.errors import DataError

        raise DataError(f"Unknown palette {name!r}: use {' or '.join(PALETTES)}.")
    _active["name"] = name


def active() -> str:
    return _active["name"]


def colour(key: str) -> str:
    """``positive``, ``negative`` or ``other`` (neutral, both, not found) in the active palette."""
    p = PALETTES[_active["name"]]
    return p.get(key, p["other"]) if key != "cmap" else p["other"]


def cmap_name() -> str:
    return PALETTES[_active["name"]]["cmap"]


def contrast(fg: str, bg: str = "#ffffff") -> float:
    """WCAG contrast ratio of two hex colours.

    >>> round(contrast("#000000"), 1), round(contrast("#707070"), 2)
    (21.0, 4.95)
    """

    def lum(hex_colour: str) -> float:
        rgb = [int(hex_colour.lstrip("#")[i:i + 2], 16) / 255 for i in (0, 2, 4)]
        lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    a, b = sorted((lum(fg), lum(bg)), reverse=True)
    return (a + 0.05) / (b + 0.05)

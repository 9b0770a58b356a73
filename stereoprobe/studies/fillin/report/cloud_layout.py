"""wordcloud's layout and drawing (``WordCloud.generate_from_frequencies`` and ``to_image``,
wordcloud 1.9), step for step, with what a report repeats kept between clouds.

A report draws about 770 clouds over one vocabulary, so the same word comes back at the
same size and orientation in many of them (of about 36,000 word boxes measured in a full
run, 13,000 are distinct; of 18,600 words drawn, 7,800). wordcloud measures and
rasterises each anew, draws every placed word into a grey image and recomputes the
occupancy's integral image from the word's corner to the image's end. Here a word's box
and its glyph masks at both sizes are made once per process (``_box``, ``_mask``), and the
integral image is updated by the word's own mask: the space a word is placed in is free
(the integral image says so), so drawing it adds its mask there and nothing else, and the
integral image grows by the mask's cumulative sums. The random draws, the font sizes, the
positions and the pixels are wordcloud's (tests/test_fillin_speed.py draws clouds both ways
and compares every pixel); wordcloud's own ``query_integral_image`` picks the positions.
"""

from __future__ import annotations

from functools import lru_cache
from operator import itemgetter
from random import Random
from typing import TYPE_CHECKING, Callable, Sequence

if TYPE_CHECKING:  # pragma: no cover
    from PIL import Image

#: wordcloud's settings as the report uses them (clouds.cloud_image): margin, font step,
#: smallest font size, relative scaling, share of horizontal words, seed.
MARGIN, FONT_STEP, MIN_FONT_SIZE, RELATIVE_SCALING, PREFER_HORIZONTAL, SEED = 2, 2, 6, 0.6, 0.95, 0
#: how many word boxes and layout masks a process keeps (a full report needs about 13,000
#: and 8,000: about 35 MB), and how many glyph masks of drawn words (these are larger and
#: come back less often: keeping all 16,000 costs another 50 MB for a few % of the time)
CACHED, FONT_MASKS = 32768, 2048

Placed = tuple[str, int, tuple[int, int], "int | None"]  # word, font size, (row, column), orientation


def layout(frequencies: dict[str, float], width: int, height: int, max_font_size: int, max_words: int,
           font_path: str) -> list[Placed]:
    """The words wordcloud places on a ``width`` x ``height`` canvas, in order:
    (word, font size, (row, column), orientation: None or ``Image.ROTATE_90``)."""
    import numpy as np
    from PIL import Image
    from wordcloud.query_integral_image import query_integral_image

    ranked = sorted(frequencies.items(), key=itemgetter(1), reverse=True)[:max_words]
    top = float(ranked[0][1])
    rnd = Random(SEED)
    integral = np.zeros((height, width), dtype=np.uint32)
    placed: list[Placed] = []
    font_size, last_freq = max_font_size, 1.0
    for word, count in ranked:
        freq = count / top
        if freq == 0:
            continue
        font_size = int(round((RELATIVE_SCALING * (freq / float(last_freq)) + (1 - RELATIVE_SCALING)) * font_size))
        orientation = None if rnd.random() < PREFER_HORIZONTAL else Image.ROTATE_90
        tried_other_orientation = False
        while True:
            if font_size < MIN_FONT_SIZE:
                break
            box_w, box_h = _box(font_path, word, font_size, orientation)
            result = query_integral_image(integral, box_h + MARGIN, box_w + MARGIN, rnd)
            if result is not None:
                break
            if not tried_other_orientation and PREFER_HORIZONTAL < 1:
                orientation = Image.ROTATE_90
                tried_other_orientation = True
            else:
                font_size -= FONT_STEP
                orientation = None
        if font_size < MIN_FONT_SIZE:
            break
        x, y = result[0] + MARGIN // 2, result[1] + MARGIN // 2
        sums = _mask(font_path, word, font_size, orientation).cumsum(axis=0, dtype=np.uint32).cumsum(axis=1,
                                                                                                    dtype=np.uint32)
        h, w = sums.shape
        integral[x:x + h, y:y + w] += sums
        integral[x:x + h, y + w:] += sums[:, -1:]
        integral[x + h:, y:y + w] += sums[-1:, :]
        integral[x + h:, y + w:] += sums[-1, -1]
        placed.append((word, font_size, (x, y), orientation))
        last_freq = freq
    return placed


def draw(placed: Sequence[Placed], width: int, height: int, scale: float, font_path: str,
         colour: Callable[[str], str]) -> "Image.Image":
    """``WordCloud.to_image``: the placed words drawn ``scale`` times larger, in ``colour(word)``, on white."""
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (int(width * scale), int(height * scale)), "white")
    pen = ImageDraw.Draw(img)
    for word, font_size, (x, y), orientation in placed:
        pen.text((int(y * scale), int(x * scale)), word, fill=colour(word),
                 font=_font(font_path, int(font_size * scale), orientation))
    return img


# -- what is kept between clouds ----------------------------------------------------------

@lru_cache(maxsize=CACHED)
def _box(font_path: str, word: str, size: int, orientation: int | None) -> tuple[int, int]:
    """wordcloud's ``draw.textbbox((0, 0), word, font=transposed_font, anchor="lt")``: (width, height)."""
    box = _font(font_path, size, orientation).getbbox(word, "L", None, None, None, 0, "lt")
    return box[2], box[3]


@lru_cache(maxsize=CACHED)
def _mask(font_path: str, word: str, size: int, orientation: int | None):
    """What drawing the word adds to wordcloud's grey image (white, anchor "la"), as an array,
    on a canvas of the free space it is placed in (its box and the margin)."""
    import numpy as np
    from PIL import Image, ImageDraw

    box_w, box_h = _box(font_path, word, size, orientation)
    canvas = Image.new("L", (box_w + MARGIN, box_h + MARGIN))
    ImageDraw.Draw(canvas).text((0, 0), word, fill="white", font=_font(font_path, size, orientation))
    return np.asarray(canvas)


@lru_cache(maxsize=1024)
def _font(font_path: str, size: int, orientation: int | None):
    """``ImageFont.TransposedFont(ImageFont.truetype(font_path, size), orientation)`` whose
    masks are kept: the same masks Pillow draws (in mode "L" a mask does not depend on the ink)."""
    return _Transposed(_truetype(font_path, size), orientation=orientation)


@lru_cache(maxsize=256)
def _truetype(font_path: str, size: int):
    from PIL import ImageFont

    return ImageFont.truetype(font_path, size)


def _transposed_class():
    from PIL import ImageFont

    class Transposed(ImageFont.TransposedFont):
        @lru_cache(maxsize=FONT_MASKS)
        def getmask(self, text, mode="", *args, **kwargs):  # type: ignore[override]
            return super().getmask(text, mode, *args, **kwargs)

    return Transposed


class _LazyClass:
    """The cached TransposedFont subclass, made on first use (Pillow is imported then)."""

    _cls = None

    def __call__(self, *args, **kwargs):
        if _LazyClass._cls is None:
            _LazyClass._cls = _transposed_class()
        return _LazyClass._cls(*args, **kwargs)


_Transposed = _LazyClass()

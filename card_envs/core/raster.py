"""A scene (`core.scene`) drawn with Pillow: the picture behind `render_mode="rgb_array"`.

It keeps to the look that scene.py's docstring fixes for both drawers, so a video frame shows
the table as the browser does. Text is DejaVu Sans, matplotlib's bundled font and the usual
sans-serif of a Linux browser; without its files, Pillow's own default font.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import matplotlib
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from card_envs.core.scene import BACK, BACK_LINE, EDGE, FELT, MARK, TEXT

_FONTS = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
# SVG's text-anchor with y the baseline, as Pillow's anchors (left/middle/right, baseline)
_ANCHORS = {"start": "ls", "middle": "ms", "end": "rs"}

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont


@cache
def font(size: int, bold: bool = False) -> Font:
    """DejaVu Sans (or its bold) at `size` pixels, loaded once per size and weight; Pillow's
    default font if matplotlib's font files are missing."""
    path = _FONTS / ("DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf")
    if path.exists():
        return ImageFont.truetype(str(path), size)
    return ImageFont.load_default(size=size)


def draw(scene: dict) -> np.ndarray:
    """`scene` (`Game.scene`'s dict) as an RGB picture, height x width x 3 uint8."""
    image = Image.new("RGB", (int(scene["width"]), int(scene["height"])), FELT)
    pen = ImageDraw.Draw(image)
    for item in scene["items"]:
        _DRAWERS[item["kind"]](pen, item)
    return np.asarray(image)


FRAME = (960, 720)  # width, height of every video frame


def frame(scene: dict, size: tuple[int, int] = FRAME) -> np.ndarray:
    """`scene` drawn on a picture of fixed `size` (a video needs every frame the same size,
    and a table's height changes as the game goes on): at the top, on the felt, scaled down
    to fit when it is larger."""
    picture = Image.fromarray(draw(scene))
    w, h = picture.size
    scale = min(1.0, size[0] / w, size[1] / h)
    if scale < 1.0:
        picture = picture.resize((round(w * scale), round(h * scale)), Image.LANCZOS)
    canvas = Image.new("RGB", size, FELT)
    canvas.paste(picture, ((size[0] - picture.size[0]) // 2, 0))
    return np.asarray(canvas)


def _box(x: float, y: float, w: float, h: float) -> tuple[float, float, float, float]:
    """The rectangle of w x h pixels from (x, y); Pillow's corners are both inclusive."""
    return (x, y, x + w - 1, y + h - 1)


def _text(
    pen: ImageDraw.ImageDraw,
    x: float,
    y: float,
    text: str,
    size: int,
    colour: str,
    anchor: str = "start",
    bold: bool = False,
) -> None:
    if text:
        pen.text((x, y), text, fill=colour, font=font(size, bold), anchor=_ANCHORS[anchor])


def _outline(mark: bool, edge: str | None = EDGE) -> dict:
    """Pillow's outline arguments: MARK, 3 wide, for a marked item, else `edge`, 1 wide."""
    return {"outline": MARK, "width": 3} if mark else {"outline": edge, "width": 1}


def _panel(pen: ImageDraw.ImageDraw, it: dict) -> None:
    x, y = it["x"], it["y"]
    outline = _outline(it["mark"], edge=None)
    pen.rounded_rectangle(_box(x, y, it["w"], it["h"]), 8, fill=it["colour"], **outline)
    _text(pen, x + 10, y + 17, it["label"], 13, TEXT)


def _card(pen: ImageDraw.ImageDraw, it: dict) -> None:
    x, y, w, h = it["x"], it["y"], it["w"], it["h"]
    fill = BACK if it["down"] else it["colour"]
    pen.rounded_rectangle(_box(x, y, w, h), 5, fill=fill, **_outline(it["mark"]))
    if it["down"]:
        pen.rounded_rectangle(_box(x + 4, y + 4, w - 8, h - 8), 3, outline=BACK_LINE)
        return
    _text(pen, x + w / 2, y + h / 2 + 6, it["label"], 18, it["ink"], "middle", bold=True)
    _text(pen, x + w / 2, y + h - 6, it["sub"], 10, it["ink"], "middle")


def _chip(pen: ImageDraw.ImageDraw, it: dict) -> None:
    x, y, r = it["x"], it["y"], it["r"]
    pen.ellipse((x - r, y - r, x + r, y + r), fill=it["colour"], outline=EDGE)
    _text(pen, x, y + 5, it["label"], 13, it["ink"], "middle", bold=True)


def _text_item(pen: ImageDraw.ImageDraw, it: dict) -> None:
    _text(pen, it["x"], it["y"], it["text"], it["size"], it["colour"], it["anchor"], it["bold"])


_DRAWERS = {"panel": _panel, "card": _card, "chip": _chip, "text": _text_item}

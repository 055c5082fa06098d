"""A game's table as a picture, drawn the same way in the browser and by Pillow.

`Game.scene(row, viewer)` lays the table out as a `Scene`: a list of plain items (cards,
chips, text, panels) at fixed coordinates. The web app (`card_envs.web`) draws it as SVG and
`core.raster` draws it with Pillow for `render_mode="rgb_array"`, so both show the same
table. A scene holds only what `viewer` may know (a card another seat hides is a face-down
card with no name); `viewer=None` shows every card (watching with all cards open).

A card or chip may carry `actions`: the action ids that clicking it would play (a card in
hand: play it; Rummidrez: place it or discard it, whichever is legal). `clickable` resolves
them against the legal actions of the person to act, and `buttons` lists the legal actions
no item carries, to be shown as buttons.

Items, all coordinates in scene units (one unit is one pixel of the raster):
- `card`: x, y, w, h, label (large, top left and centre), sub (small, bottom), colour (the
  face), ink (the text), down (face down: no label), mark (outlined: just played, the card
  to take), actions.
- `chip`: x, y (centre), r, label, colour, ink, actions: a token, coconut or counter.
- `text`: x, y (baseline), text, size, anchor (start, middle, end), bold, colour.
- `panel`: x, y, w, h, label, mark (outlined: the seat to act), colour: an area of the
  table (a seat, the display, a group).

How they look (both drawers keep to this): the background is FELT. A panel is a rectangle
with corners of radius 8 filled with its colour, its label at (x + 10, y + 17) in size 13,
colour TEXT. A card is a rectangle with corners of radius 5 filled with its colour, edged in
EDGE (width 1), its label centred at (x + w/2, y + h/2 + 6) in size 18 bold and its sub
centred at (x + w/2, y + h - 6) in size 10, both in its ink; face down it is filled with
BACK, with an inner rectangle inset 4 edged in BACK_LINE. A chip is a circle filled with its
colour, edged in EDGE, its label centred at (x, y + 5) in size 13 bold, ink. `mark` draws
the outline in MARK, width 3. Text is sans-serif at the given size; its y is the baseline.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

CARD_W, CARD_H = 44, 62
GAP = 6
WIDTH = 960
BACK = "#2b4c7e"  # the back of a face-down card
BACK_LINE = "#8fb3e8"
FELT = "#1f6b45"  # the table
EDGE = "#333333"
MARK = "#ffd54a"
TEXT = "#f4f4f4"
LOOK = {  # the colours above, for the browser's drawer
    "back": BACK,
    "back_line": BACK_LINE,
    "felt": FELT,
    "edge": EDGE,
    "mark": MARK,
    "text": TEXT,
}


class Scene:
    """Items added in drawing order; `to_dict()` is the JSON the browser and Pillow read."""

    def __init__(self, width: int = WIDTH) -> None:
        self.width = width
        self.items: list[dict[str, Any]] = []

    def card(
        self,
        x: float,
        y: float,
        label: str = "",
        *,
        sub: str = "",
        colour: str = "#ffffff",
        ink: str = "#111111",
        down: bool = False,
        mark: bool = False,
        actions: Iterable[int] = (),
        w: float = CARD_W,
        h: float = CARD_H,
    ) -> None:
        item = {"kind": "card", "x": x, "y": y, "w": w, "h": h, "down": down, "mark": mark}
        if not down:
            item.update(label=label, sub=sub, colour=colour, ink=ink)
        self._add(item, actions)

    def chip(
        self,
        x: float,
        y: float,
        label: str,
        *,
        r: float = 14,
        colour: str = "#d9a520",
        ink: str = "#111111",
        actions: Iterable[int] = (),
    ) -> None:
        item = {"kind": "chip", "x": x, "y": y, "r": r, "label": label, "colour": colour}
        self._add({**item, "ink": ink}, actions)

    def text(
        self,
        x: float,
        y: float,
        text: str,
        *,
        size: int = 14,
        anchor: str = "start",
        bold: bool = False,
        colour: str = TEXT,
    ) -> None:
        if anchor not in ("start", "middle", "end"):
            raise ValueError(f"anchor={anchor!r} is not one of start, middle, end")
        self.items.append(
            {
                "kind": "text",
                "x": x,
                "y": y,
                "text": text,
                "size": size,
                "anchor": anchor,
                "bold": bold,
                "colour": colour,
            }
        )

    def panel(
        self,
        x: float,
        y: float,
        w: float,
        h: float,
        label: str = "",
        *,
        mark: bool = False,
        colour: str = "#2a7d55",
    ) -> None:
        self.items.append(
            {
                "kind": "panel",
                "x": x,
                "y": y,
                "w": w,
                "h": h,
                "label": label,
                "mark": mark,
                "colour": colour,
            }
        )

    def card_row(self, x: float, y: float, cards: Sequence[dict], width: float) -> float:
        """`cards` (each the keyword arguments of `card`) side by side from (x, y), closer
        together when they would not fit in `width`; returns the x after the last card."""
        if not cards:
            return x
        w = cards[0].get("w", CARD_W)
        step = w + GAP
        if len(cards) > 1 and x + len(cards) * step - GAP > x + width:
            step = max(8.0, (width - w) / (len(cards) - 1))
        for i, c in enumerate(cards):
            self.card(x + i * step, y, **c)
        return x + (len(cards) - 1) * step + w

    def _add(self, item: dict, actions: Iterable[int]) -> None:
        actions = [int(a) for a in actions]
        if actions:
            item["actions"] = actions
        self.items.append(item)

    def height(self) -> int:
        """The bottom of the lowest item, plus a margin."""
        bottom = 0.0
        for it in self.items:
            if it["kind"] == "chip":
                bottom = max(bottom, it["y"] + it["r"])
            elif it["kind"] == "text":
                bottom = max(bottom, it["y"] + 4)
            else:
                bottom = max(bottom, it["y"] + it["h"])
        return int(bottom) + 12

    def to_dict(self) -> dict:
        return {"width": self.width, "height": self.height(), "items": self.items}


def seat_name(seat: int, viewer: int | None) -> str:
    """How a scene names a seat: "you (player_1)" for the viewer itself."""
    return f"you (player_{seat})" if seat == viewer else f"player_{seat}"


def clickable(scene: dict, legal: Iterable[int]) -> dict:
    """`scene` for the person to act: each item carrying actions gets `action`, the first of
    them that is legal (none: not clickable), and loses its `actions` list."""
    legal = set(int(a) for a in legal)
    items = []
    for it in scene["items"]:
        it = dict(it)
        actions = it.pop("actions", [])
        playable = [a for a in actions if a in legal]
        if playable:
            it["action"] = playable[0]
        items.append(it)
    return {**scene, "items": items}


def buttons(scene: dict, legal: Iterable[int]) -> list[int]:
    """The legal actions that no item of `scene` carries: these are shown as buttons."""
    carried = {a for it in scene["items"] for a in it.get("actions", ())}
    return [int(a) for a in legal if int(a) not in carried]


def strip_actions(scene: dict) -> dict:
    """`scene` with no action on any item (a seat that is not to act, a replay)."""
    return clickable(scene, ())

"""Surfosaurus MAX drawn: the draw pile, this round's display (who played each card, 2-player
dummies), then a row per seat with its hand and its two coconuts: the points under the whole
coconut and, halved, under the half coconut, as a player counts them at the table."""

from __future__ import annotations

import numpy as np

from card_envs.core.scene import CARD_H, CARD_W, GAP, WIDTH, Scene, seat_name
from card_envs.games.surfosaurus import engine as k

# card faces in colour order (spec.COLOUR_NAMES), each with a legible ink
FACES = (
    ("#d7263d", "#ffffff"),  # red
    ("#f4842a", "#111111"),  # orange
    ("#f6d743", "#111111"),  # yellow
    ("#4cb944", "#111111"),  # green
    ("#2e6fd8", "#ffffff"),  # blue
    ("#8a4fbf", "#ffffff"),  # purple
    ("#222222", "#ffffff"),  # black
)
WHOLE, HALF = "#8b5a2b", "#d2a679"  # coconut shell, coconut flesh
TOP = 40  # top of the pile and the display, below the head line
DISPLAY_H = CARD_H + 36
ROW_H = CARD_H + 34


def _face(colour: int, value: int, sub: str, **card) -> dict:
    fill, ink = FACES[colour]
    return dict(label=str(value), sub=sub, colour=fill, ink=ink, **card)


def _who(seat: int, viewer: int | None) -> str:
    """A display card's owner, short enough for a card's sub."""
    return "dummy" if seat < 0 else ("you" if seat == viewer else f"p{seat}")


def scene(game, row: np.ndarray, viewer: int | None) -> Scene:
    s = game.state_dict(row)
    n = s["num_players"]
    to_act = s["current_player"]
    out = Scene()
    if s["done"]:
        head = game.result_line(row, viewer)
    else:
        head = (
            f"Round {s['round'] + 1} of {s['rounds']}, started by "
            f"{seat_name(s['starting_player'], viewer)}; {seat_name(to_act, viewer)} to play"
        )
    out.text(16, 26, head, size=16, bold=True)
    # the draw pile and the display
    pile = len(s["draw_pile"])
    if pile:
        out.card(16, TOP + 10, down=True)
    out.text(16 + CARD_W / 2, TOP + CARD_H + 26, f"{pile} left", anchor="middle")
    x = 16 + CARD_W + 3 * GAP
    out.panel(x, TOP, WIDTH - 8 - x, DISPLAY_H, f"Display: the best {s['k']} cards score")
    last = len(s["display"]) - 1
    shown = [
        _face(c, v, _who(p, viewer), mark=i == last) for i, (c, v, p) in enumerate(s["display"])
    ]
    out.card_row(x + 10, TOP + 24, shown, WIDTH - 28 - x)
    # a row per seat, the viewer's first: hand, points, coconuts
    y = TOP + DISPLAY_H + 12
    first = viewer if viewer is not None else 0
    points = game.config["points"]
    for q in range(n):
        p = (first + q) % n
        hand = s["hands"][p]
        label = (
            f"{seat_name(p, viewer)}: {s['scores'][p]:g} points, "
            f"{s['cards_collected'][p]} card(s) collected, {len(hand)} in hand"
        )
        out.panel(8, y, WIDTH - 16, ROW_H - 6, label, mark=p == to_act and not s["done"])
        if viewer is None or p == viewer:
            cards = [
                _face(c, v, f"{points[v - 1]} pts", actions=[k.card_id(c, v)]) for c, v in hand
            ]
        else:
            cards = [dict(down=True)] * len(hand)
        out.card_row(16, y + 24, cards, WIDTH / 2)
        # the coconuts apart, from the row: state_dict's score2 is their sum
        for cx, value, colour, ink, name in (
            (WIDTH - 150, row[k.FULL_PTS + p], WHOLE, "#ffffff", "whole"),
            (WIDTH - 70, row[k.HALF2 + p] / 2, HALF, "#111111", "half"),
        ):
            out.chip(cx, y + 48, f"{value:g}", r=18, colour=colour, ink=ink)
            out.text(cx, y + 82, name, size=12, anchor="middle")
        y += ROW_H
    return out

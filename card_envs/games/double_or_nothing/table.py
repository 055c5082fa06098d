"""Double or Nothing drawn: the play area with the play to beat, then a row per seat, the
viewer's first, with its hand and its deck face down. A hand holds thousands of cards at a
high stage, so cards are grouped: a stack per number showing its count, each number always
at the same place, so the play to beat sits above the numbers that could answer it. A play
is a range lo..hi that no single card stands for: the plays stay buttons."""

from __future__ import annotations

import numpy as np

from card_envs.core.scene import CARD_H, CARD_W, WIDTH, Scene, seat_name
from card_envs.games.double_or_nothing import engine as k

STACK = 4  # cards drawn in a stack at most
STEP = 8  # offset between the cards of a stack
SLOT = CARD_W + (STACK - 1) * STEP + 14  # the place of each number
FACE = "#fff6d8"
TOP = 40  # top of the play area, below the head line
AREA_H = CARD_H + 36
ROW_H = CARD_H + 34


def _stack(out: Scene, x: float, y: float, count: int, **card) -> None:
    """`count` cards as a stack of at most STACK, the top one showing the count."""
    shown = min(count, STACK)
    for i in range(shown):
        out.card(x + i * STEP, y, sub=f"×{count}" if i == shown - 1 else "", **card)


def _grouped(out: Scene, y: float, counts: list[int], **card) -> None:
    """Counts of the numbers 1..8, a stack per number at the number's place."""
    for v, count in enumerate(counts, start=1):
        if count:
            _stack(out, 18 + (v - 1) * SLOT, y, count, label=str(v), colour=FACE, **card)


def _play(copies: int, lo: int, hi: int) -> str:
    return f"{copies} × {'-'.join(map(str, range(lo, hi + 1)))}"


def scene(game, row: np.ndarray, viewer: int | None) -> Scene:
    s = game.state_dict(row)
    to_act = s["current_player"]
    play = s["current_play"]
    out = Scene()
    if s["done"]:
        head = game.result_line(row, viewer)
        if s["truncated"]:
            head += " (turn limit reached)"
    else:
        task = f"beat {_play(*play)} or pass" if play else "lead"
        head = (
            f"Stage {s['stage']}, hand {s['hands_played'] + 1}: "
            f"{seat_name(to_act, viewer)} to {task}"
        )
    out.text(16, 26, head, size=16, bold=True)
    # the play area: the play to beat, placed by number
    area = "Play area: empty"
    if play:
        by = seat_name(1 - to_act, viewer)
        area = f"Play area: {sum(s['trick'])} card(s); to beat: {_play(*play)} by {by}"
    out.panel(8, TOP, WIDTH - 16, AREA_H, area)
    if play:
        copies, lo, hi = play
        beat = [copies if lo <= v <= hi else 0 for v in range(1, k.NUM_NUMBERS + 1)]
        _grouped(out, TOP + 24, beat, mark=True)
    # a row per seat, the viewer's first: hand, then deck
    y = TOP + AREA_H + 12
    first = viewer if viewer is not None else 0
    for p in (first, 1 - first):
        hand, deck = sum(s["hands"][p]), len(s["decks"][p])
        label = f"{seat_name(p, viewer)}: {hand} in hand, {deck} in deck, {s['cards'][p]} in all"
        out.panel(8, y, WIDTH - 16, ROW_H - 6, label, mark=p == to_act and not s["done"])
        if viewer is None or p == viewer:
            _grouped(out, y + 24, s["hands"][p])
        else:
            _stack(out, 18, y + 24, hand, down=True)
        deck_x = WIDTH - 18 - CARD_W - (STACK - 1) * STEP
        _stack(out, deck_x, y + 24, deck, down=True)
        out.text(deck_x - 10, y + 60, "deck", anchor="end")
        y += ROW_H
    return out

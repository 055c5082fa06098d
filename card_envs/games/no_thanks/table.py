"""No Thanks! drawn: the card on offer with its pot, the face-down deck, and each seat's
row of cards grouped in runs (only the lowest card of a run counts) with its tokens."""

from __future__ import annotations

import numpy as np

from card_envs.core.scene import CARD_H, CARD_W, GAP, WIDTH, Scene, seat_name
from card_envs.games.no_thanks import engine as k

ROW_H = CARD_H + 34


def runs(cards: list[int]) -> list[list[int]]:
    """Sorted cards as their runs of consecutive values."""
    runs: list[list[int]] = []
    for c in cards:
        if runs and runs[-1][-1] == c - 1:
            runs[-1].append(c)
        else:
            runs.append([c])
    return runs


def scene(game, row: np.ndarray, viewer: int | None) -> Scene:
    s = game.state_dict(row)
    n = s["num_players"]
    out = Scene()
    to_act = s["current_player"]
    if s["done"]:
        head = "Game over: " + ", ".join(
            f"{seat_name(p, viewer)} {s['scores'][p]} points" for p in range(n)
        )
    else:
        head = f"{seat_name(to_act, viewer)} to act; {len(s['deck'])} card(s) still to come"
    out.text(16, 26, head, size=16, bold=True)
    # the offer: deck, card, pot
    y = 44
    out.card(16, y, down=True)
    out.text(16 + CARD_W / 2, y + CARD_H + 16, f"{len(s['deck'])} left", anchor="middle")
    if s["current_card"]:
        out.card(
            16 + CARD_W + 3 * GAP,
            y,
            str(s["current_card"]),
            colour="#fff6d8",
            mark=True,
            actions=[k.TAKE],
            w=CARD_W * 1.3,
            h=CARD_H * 1.3,
        )
        out.chip(16 + CARD_W * 2.3 + 6 * GAP + 16, y + CARD_H * 0.65, str(s["pot"]), r=18)
        out.text(16 + CARD_W * 2.3 + 6 * GAP, y + CARD_H * 1.3 + 14, "tokens on it")
    # one row per seat, the viewer's first
    y = 44 + int(CARD_H * 1.3) + 30
    first = viewer if viewer is not None else 0
    for q in range(n):
        p = (first + q) % n
        shows_tokens = viewer is None or p == viewer or game.config["public_tokens"]
        if shows_tokens:
            label = f"{s['tokens'][p]} token(s), {s['scores'][p]} points"
        else:  # the points of the cards alone: the tokens are not shown
            label = f"? tokens, cards {s['scores'][p] + s['tokens'][p]} points"
        label = f"{seat_name(p, viewer)}: {label}"
        out.panel(8, y, WIDTH - 16, ROW_H - 6, label, mark=p == to_act and not s["done"])
        x = 16.0
        for run in runs(s["cards"][p]):
            for i, c in enumerate(run):
                out.card(x, y + 24, str(c), colour="#ffffff" if i == 0 else "#e3e3e3")
                x += CARD_W * (1 if i == len(run) - 1 else 0.55)
            x += 2 * GAP
        y += ROW_H
    return out

"""Rummidrez drawn: the groups on the table, the cards placed this turn, the draw pile and the
discard pile fanned bottom to top (clicking a card takes it and every card above it), then
a row per seat, the viewer's first. The viewer's hand is face up and sorted; clicking a card
places it or discards it, whichever the phase allows. Other hands are face down but for the
cards everyone saw them take from the discard pile (`known`).

A card shows its figure letter and number ("R7", the notation of the rules' tests), the
figure's name below, on the colour of its number (the number is the card's colour).
"""

from __future__ import annotations

import numpy as np

from card_envs.core.engine import Game
from card_envs.core.scene import CARD_H, CARD_W, GAP, WIDTH, Scene, seat_name
from card_envs.games.rummidrez import engine as k
from card_envs.games.rummidrez.solver import FIGURE_NAMES, NUM_NUMBERS

FIGURE_LETTERS = "PKBRQJ"
# (face, ink) of the numbers 1..9
NUMBER_COLOURS = (
    ("#d8413a", "#ffffff"),
    ("#f08c2e", "#111111"),
    ("#f2d23c", "#111111"),
    ("#3f9e4d", "#ffffff"),
    ("#3cb7c4", "#111111"),
    ("#2f5fc4", "#ffffff"),
    ("#7d3fb0", "#ffffff"),
    ("#ee8fc0", "#111111"),
    ("#7a5232", "#ffffff"),
)
NEUTRAL_COLOURS = ("#e6e6e6", "#111111")
GROUP_COLOUR = "#2a7d55"
MARGIN = 16
ROW_H = CARD_H + 40  # a seat's or the placed cards' panel, with the gap under it
PAD = 5  # around the cards of a group


def card_face(card: int) -> dict:
    """`Scene.card` keyword arguments showing card id `card`."""
    if card == k.NEUTRAL:
        face, ink = NEUTRAL_COLOURS
        return {"label": "N", "sub": "neutral", "colour": face, "ink": ink}
    figure, number = divmod(card, NUM_NUMBERS)
    face, ink = NUMBER_COLOURS[number]
    label = f"{FIGURE_LETTERS[figure]}{number + 1}"
    return {"label": label, "sub": FIGURE_NAMES[figure], "colour": face, "ink": ink}


def _head(s: dict, solo: bool, viewer: int | None) -> str:
    if not s["done"]:
        return f"{seat_name(s['current_player'], viewer)} to act: {s['phase']} phase"
    if solo:
        left = len(s["hands"][0])
        how = "hand emptied" if not left else f"the deck ran out with {left} card(s) in hand"
        return f"Game over: score {s['scores'][0]:g} ({how})"
    if s["truncated"]:
        return "Game over at the turn cap: no winner"
    if s["winner"] is None:
        return "Game over: the draw pile ran out, no winner"
    winner = s["winner"]
    return f"Game over: {seat_name(winner, viewer)} wins with {s['points'][winner]} point(s)"


def _table(out: Scene, groups: list[list[int]], y: float) -> float:
    """The groups, each a panel holding its row of cards, wrapping at the scene's width;
    returns the y under them."""
    out.text(MARGIN, y + 14, f"Table: {sum(map(len, groups))} card(s) in {len(groups)} group(s)")
    y += 22
    x, height = 8.0, CARD_H + 2 * PAD
    for group in groups:
        w = len(group) * (CARD_W + GAP) - GAP + 2 * PAD
        if x + w > WIDTH - 8:
            x, y = 8.0, y + height + GAP
        out.panel(x, y, w, height, colour=GROUP_COLOUR)
        out.card_row(x + PAD, y + PAD, [card_face(c) for c in group], w - 2 * PAD)
        x += w + GAP
    return y + (height + GAP if groups else 0) + 8


def _seat_cards(s: dict, p: int, shown: bool, acts: bool) -> list[dict]:
    """Seat p's hand as `card_row` cards: face up when `shown` (clicking places or discards
    the card when `acts`), else the cards others saw it take, then the rest face down."""
    hand = s["hands"][p]
    if shown:
        return [
            {**card_face(c), "actions": [k.PLACE + c, k.DISCARD + c] if acts else []} for c in hand
        ]
    known = np.bincount(s["known"][p], minlength=k.NUM_IDS)
    if p == s["current_player"]:  # a placed card counts as a known copy first
        known = np.maximum(0, known - np.bincount(s["placed"], minlength=k.NUM_IDS))
    seen = [int(c) for c in np.repeat(np.arange(k.NUM_IDS), known)]
    return [card_face(c) for c in seen] + [{"down": True}] * (len(hand) - len(seen))


def scene(game: Game, row: np.ndarray, viewer: int | None) -> Scene:
    s = game.state_dict(row)
    n = s["num_players"]
    solo = bool(row[k.CFG_SOLO])
    if solo:
        viewer = 0  # the one seat sees everything and is always "you"
    to_act = s["current_player"]
    out = Scene()
    out.text(MARGIN, 26, _head(s, solo, viewer), size=16, bold=True)
    if solo:
        drawn = k.NUM_CARDS - len(s["draw_pile"])
        line = f"Solo: {drawn} card(s) drawn"
    elif game.config.get("match"):
        line = f"Match to {k.target_points(n)} points; turn {s['hand_turns'] + 1} of this hand"
    else:
        line = f"Turn {s['hand_turns'] + 1}"
    out.text(MARGIN, 46, line, size=13)
    # the draw pile, top right
    x = WIDTH - MARGIN - CARD_W
    out.card(x, 8, down=True)
    out.text(x + CARD_W / 2, 8 + CARD_H + 14, f"{len(s['draw_pile'])} left", anchor="middle")
    y = 60.0
    if not solo:
        pile = s["discard_pile"]
        caption = "Discard pile: empty"
        if pile:
            caption = (
                f"Discard pile: {len(pile)} card(s), the top on the right; "
                "click a card to take it and every card above it"
            )
        out.text(MARGIN, y + 14, caption)
        top = len(pile)
        cards = [
            {**card_face(c), "mark": i == top - 1, "actions": [k.TAKE + top - 1 - i]}
            for i, c in enumerate(pile)
        ]
        out.card_row(MARGIN, y + 28, cards, WIDTH - 2 * MARGIN)
        y += 28 + (CARD_H if pile else 0) + 12
    y = _table(out, s["table"], y)
    if s["placed"]:
        label = f"Placed this turn by {seat_name(to_act, viewer)}"
        out.panel(8, y, WIDTH - 16, ROW_H - 8, label)
        placed = [{**card_face(c), "mark": True} for c in s["placed"]]
        out.card_row(MARGIN, y + 24, placed, WIDTH - 2 * MARGIN)
        y += ROW_H
    first = viewer if viewer is not None else 0
    for q in range(n):
        p = (first + q) % n
        shown = viewer is None or p == viewer
        label = f"{seat_name(p, viewer)}: {len(s['hands'][p])} card(s), "
        label += "opened" if s["opened"][p] else "not opened"
        if game.config.get("match") or (s["done"] and not solo):
            label += f", {s['points'][p]} point(s)"
        acts = p == to_act and not s["done"]
        out.panel(8, y, WIDTH - 16, ROW_H - 8, label, mark=acts)
        cards = _seat_cards(s, p, shown, acts)
        out.card_row(MARGIN, y + 24, cards, WIDTH - 2 * MARGIN)
        y += ROW_H
    return out

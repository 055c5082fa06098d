"""Super Zwierzaki drawn: the draw pile, the discard pile's top card, what may be played on it
(the given colours and classes), the counters, the demand and the duel, the pending decision
in words, then the hands in the order of play from the viewer.

The viewer's hand is face up, one card per kind ("x3" when it holds three): clicking a card
plays, picks or lays that kind, whatever the decision asks. Other hands are face down, each
in a small panel of a grid (twelve seats fit). What a seat learnt of another hand by giving
or swapping cards is not shown, as it is not in its observation; the decision is told as
`describe` tells actions: a copies choice looks like a turn to the others, and only the
seat that drew a card sees which card it is deciding on.
"""

from __future__ import annotations

import numpy as np

from card_envs.core.engine import Game
from card_envs.core.scene import GAP, WIDTH, Scene, seat_name
from card_envs.games.super_zwierzaki import engine as k
from card_envs.games.super_zwierzaki.deck import ANY_COLOUR, CLASSES, COLOURS, KINDS
from card_envs.games.super_zwierzaki.describe import COUNTER_PENALTIES, card_label

CARD_W, CARD_H = 96, 64  # wider than the default card: the label is an animal's name
NAME_LEN = 7  # the longest label that fits a card
# (face, ink) of each colour code
FACES = {
    "LB": ("#8fd0f5", "#111111"),
    "LG": ("#a6e3a1", "#111111"),
    "R": ("#d93a32", "#ffffff"),
    "DB": ("#23439c", "#ffffff"),
    "V": ("#8447b0", "#ffffff"),
    "O": ("#f39a2b", "#111111"),
    "DG": ("#1f7a3d", "#ffffff"),
    "Y": ("#f5d938", "#111111"),
    "P": ("#f29cc4", "#111111"),
    ANY_COLOUR: ("#d6b04a", "#111111"),
}
COUNTER_CHIPS = ("#d93a32", "#6d6d6d", "#3f9e4d", "#d9a520")  # red, orc, green, demand
SEAT_TEXT = (  # a seat choice by purpose (engine S_*)
    "choose who gets {count} card(s)",
    "choose who gets the 9 kolorow cards",
    "choose the first hand of a War swap",
    "choose whose hand swaps with {first}'s",
    "choose the two-War giver",
    "choose who gets half of {first}'s hand",
    "choose the hand {taker} takes (two War)",
)
WINDOW_TEXT = (  # a reaction window (engine W_*)
    "{of}'s play with a Cyr",
    "{of}'s win with a Dzi or a Cyr",
    "{of}'s 9 kolorow give with a Dzi or a Cyr",
)
MARGIN = 16
GRID_COLUMNS = 4
GRID_H = 78  # a face-down hand's panel
ROW_H = CARD_H + 36  # a face-up hand's panel
NAME_H = 48  # a card of the demand's choice of kinds


def card_face(kind: int, count: int = 1) -> dict:
    """`Scene.card` keyword arguments showing a kind: its name cut to fit, and below it its
    colour, class and function (how many, past one)."""
    info = KINDS[kind]
    word = info.name.split()[0]
    label = word if len(word) <= NAME_LEN else word[: NAME_LEN - 1] + "."
    if info.colour == ANY_COLOUR:
        sub = "Wielka 5"
    else:
        sub = " ".join(x for x in (info.colour, info.klass, info.function) if x)
    if count > 1:
        sub += f" x{count}"
    face, ink = FACES[info.colour]
    return {"label": label, "sub": sub, "colour": face, "ink": ink, "w": CARD_W, "h": CARD_H}


def colour_order(kind: int) -> tuple[int, int]:
    """Sorts a hand by colour (Wielka 5 last), then by kind."""
    colour = KINDS[kind].colour
    return (COLOURS.index(colour) if colour in COLOURS else len(COLOURS), kind)


def pending(row: np.ndarray, s: dict, viewer: int | None) -> str:
    """The decision on top of the stack in words, as `viewer` may know it."""
    what, p, a, b, c, d = (int(x) for x in k._top(row))
    who = seat_name(p, viewer)
    sees = viewer is None or viewer == p
    if what == k.D_COPIES and not sees:
        what = k.D_TURN  # how many copies a hand holds is its own
    if what == k.D_TURN:
        for i, (name, v) in enumerate(s["counters"].items()):
            if v:
                return f"{who} to answer the {name} points or {COUNTER_PENALTIES[i].format(v=v)}"
        return f"{who} to play a matching card or draw"
    if what == k.D_COPIES:
        return f"{who} to choose how many {card_label(a)} to play"
    if what == k.D_COLOUR:
        return f"{who} to choose the given colour"
    if what == k.D_NAME:
        return f"{who} to name the kind the demand asks for"
    if what == k.D_SEAT:
        taker = seat_name(int(k.after(row, p, d)), viewer) if a == k.S_WAR2_HAND else ""
        choice = SEAT_TEXT[a].format(count=b, first=seat_name(b, viewer), taker=taker)
        return f"{who} to {choice}"
    if what == k.D_PICK:
        to = seat_name(c, viewer)
        if a == k.P_DISCARD:
            return f"{who} to discard {b} more card(s)"
        if a == k.P_GIVE:
            return f"{who} to give {b} more card(s) to {to}"
        return f"{who} to keep one card and give the rest to {to}"
    if what == k.D_NINE:
        laid = [code for i, code in enumerate(COLOURS) if a >> i & 1]
        return f"{who} to lay 9 kolorow (laid: {', '.join(laid) or 'none yet'})"
    if what == k.D_REACT:
        return f"{who} may stop " + WINDOW_TEXT[a].format(of=seat_name(b, viewer))
    if what == k.D_DUEL:
        return f"{who} to play on in the duel or fold"
    if what == k.D_CALL:
        return f"{who} to call 'Codziennie niskie ceny' or draw two"
    if sees:  # D_DRAWN
        return f"{who} to play the drawn {card_label(a)} or keep it"
    return f"{who} to decide on the drawn card"


def _head(row: np.ndarray, s: dict, viewer: int | None) -> str:
    if not s["done"]:
        return pending(row, s, viewer)
    if s["winner"] is not None:
        return f"Game over: {seat_name(s['winner'], viewer)} wins"
    sizes = [len(h) for h in s["hands"]]
    fewest = [seat_name(p, viewer) for p, size in enumerate(sizes) if size == min(sizes)]
    return f"Game over at the turn cap, no winner; fewest cards: {', '.join(fewest)}"


def _centre(out: Scene, s: dict, y: float, naming: bool) -> float:
    """Draw pile, top card, what may be played on it, counters, demand (but the old one while
    a new one is `naming`) and duel; returns the y under them."""
    out.card(MARGIN, y, down=True, w=CARD_W, h=CARD_H)
    out.text(MARGIN, y + CARD_H + 16, f"draw pile: {len(s['draw_pile'])}", size=12)
    x = MARGIN + CARD_W + 2 * GAP
    out.card(x, y, **card_face(s["discard_pile"][-1]), mark=True)
    out.text(x, y + CARD_H + 16, f"discard pile: {len(s['discard_pile'])}", size=12)
    x += CARD_W + 4 * GAP
    line = y + 14
    if len(s["given_colours"]) == len(COLOURS) and len(s["given_classes"]) == len(CLASSES):
        out.text(x, line, "Any card may be played (a Wielka 5 is on top)")
    else:
        out.text(x, line, "Play on colour")
        for i, code in enumerate(s["given_colours"]):
            face, ink = FACES[code]
            out.chip(x + 120 + i * 30, line - 5, code, r=13, colour=face, ink=ink)
        out.text(x, line + 26, f"or class {' '.join(s['given_classes'])}")
        line += 26
    for i, (name, v) in enumerate(s["counters"].items()):
        if v:
            line += 30
            out.chip(x + 13, line - 5, str(v), r=13, colour=COUNTER_CHIPS[i], ink="#ffffff")
            what = f"{name} points: {COUNTER_PENALTIES[i].format(v=v)}"
            if s["demand"] and not naming:
                what += f"; demanded: {card_label(s['demand']['kind'])}"
            out.text(x + 34, line, what)
    if s["duel"]:
        duel = s["duel"]
        line += 26
        out.text(x, line, f"{duel['kind']} duel at {duel['points']} point(s)", bold=True)
    return max(y + CARD_H + 28, line + 14)


def _status(s: dict, p: int) -> list[str]:
    """Seat p's public state beyond its hand size."""
    out = []
    if s["lost_turns"][p]:
        out.append(f"loses {s['lost_turns'][p]} turn(s)")
    if s["duel"] and p in s["duel"]["folded"]:
        out.append("folded")
    return out


def _names(out: Scene, y: float) -> float:
    """The 81 kinds a demand may name, each clickable; returns the y under them."""
    kinds = [kind.id for kind in KINDS if kind.function is None]
    per_row = (WIDTH - 2 * MARGIN + GAP) // (CARD_W + GAP)
    rows = -(-len(kinds) // per_row)
    out.panel(8, y, WIDTH - 16, 30 + rows * (NAME_H + GAP), "Name a kind")
    for i, kind in enumerate(kinds):
        r, col = divmod(i, per_row)
        face = {**card_face(kind), "h": NAME_H}
        x, top = MARGIN + col * (CARD_W + GAP), y + 26 + r * (NAME_H + GAP)
        out.card(x, top, **face, actions=[k.KIND + kind])
    return y + 30 + rows * (NAME_H + GAP) + GAP


def scene(game: Game, row: np.ndarray, viewer: int | None) -> Scene:
    s = game.state_dict(row)
    n = s["num_players"]
    running = not s["done"]
    to_act = s["current_player"]
    what, _, a, *_ = (int(x) for x in k._top(row)) if running else (-1, -1, -1)
    out = Scene()
    out.text(MARGIN, 26, _head(row, s, viewer), size=16, bold=True)
    if running and s["turn_seat"] != to_act:
        out.text(MARGIN, 46, f"during the turn of {seat_name(s['turn_seat'], viewer)}", size=13)
    y = _centre(out, s, 60, naming=what == k.D_NAME)
    if running and what == k.D_NAME and viewer in (None, to_act):
        y = _names(out, y)
    first = viewer if viewer is not None else s["numbers"].index(0)
    order = sorted(range(n), key=lambda q: (s["numbers"][q] - s["numbers"][first]) % n)
    shown = [p for p in order if viewer is None or p == viewer]
    for p in shown:
        acts = running and p == to_act and what != k.D_NAME
        counts = np.bincount(s["hands"][p], minlength=k.NUM_KINDS)
        marked = a if p == to_act and what in (k.D_COPIES, k.D_DRAWN) and running else -1
        kinds = sorted((int(kind) for kind in np.flatnonzero(counts)), key=colour_order)
        cards = [
            {
                **card_face(kind, int(counts[kind])),
                "mark": kind == marked,
                "actions": [k.KIND + kind] if acts else [],
            }
            for kind in kinds
        ]
        label = ", ".join([f"{seat_name(p, viewer)}: {len(s['hands'][p])} card(s)", *_status(s, p)])
        out.panel(8, y, WIDTH - 16, ROW_H - 8, label, mark=running and p == to_act)
        out.card_row(MARGIN, y + 24, cards, WIDTH - 2 * MARGIN)
        y += ROW_H
    hidden = [p for p in order if p not in shown]
    if hidden:
        out.text(MARGIN, y + 14, "The other seats, in the order of play:", size=13)
        y += 22
        w = (WIDTH - 16 - (GRID_COLUMNS - 1) * GAP) / GRID_COLUMNS
        for i, p in enumerate(hidden):
            r, col = divmod(i, GRID_COLUMNS)
            px, py = 8 + col * (w + GAP), y + r * (GRID_H + GAP)
            size = len(s["hands"][p])
            label = f"{seat_name(p, viewer)}: {size} card(s)"
            out.panel(px, py, w, GRID_H, label, mark=running and p == to_act)
            backs = [{"down": True, "w": 24, "h": 36}] * min(size, 12)
            out.card_row(px + 10, py + 28, backs, 100)
            for j, text in enumerate(_status(s, p)):
                out.text(px + 124, py + 44 + 18 * j, text, size=12)
    return out

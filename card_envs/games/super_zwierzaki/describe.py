"""Super Zwierzaki actions in words: what the pending decision makes of an action id.

`describe(row, action, actor, viewer)` is `SuperZwierzaki.describe` (see
`Game.describe_action`). A card given or kept stays unnamed for a viewer that does not see
it: only the giver (and, for a gift, its receiver) learns which card it was.
"""

from __future__ import annotations

import numpy as np

from card_envs.core import layout
from card_envs.games.super_zwierzaki import engine as k
from card_envs.games.super_zwierzaki.deck import COLOURS, KINDS

COUNTER_PENALTIES = (
    "draw {v} (the red penalty)",
    "draw {v} (the orc penalty)",
    "lose {v} turn(s) (the green penalty)",
    "draw a card (the demand penalty)",
)
SEAT_TEXT = (  # by seat purpose (engine S_*); t: the seat whose new hand a two War choice sets
    "give {b} card(s) to player_{s}",
    "give the 9 kolorow cards to player_{s}",
    "War: swap player_{s}'s hand with one chosen next",
    "War: swap the hands of player_{b} and player_{s}",
    "two War: player_{s} gives half its hand to one chosen next",
    "two War: player_{b} gives half its hand to player_{s}",
    "two War: player_{t} takes player_{s}'s hand",
)
WINDOW_TEXT = ("player_{b}'s play", "player_{b}'s win", "player_{b}'s 9 kolorow give")


def card_label(kind: int) -> str:
    """A kind's name with its colour and class: "Koala (DB mky)"."""
    kind_ = KINDS[kind]
    return f"{kind_.name} ({kind_.colour} {kind_.klass})"


def _turn(row: np.ndarray, action: int) -> str:
    if action == k.NINE:
        return "begin 9 kolorow"
    if action == k.DRAW:
        for c, text in enumerate(COUNTER_PENALTIES):
            if row[k.COUNTERS + c]:
                return text.format(v=int(row[k.COUNTERS + c]))
        return "draw a card"
    return f"play {card_label(action - k.KIND)}"


def _pick(purpose: int, to: int, kind: int, actor: int, viewer: int) -> str:
    if purpose == k.P_DISCARD:
        return f"discard {card_label(kind)}"
    if purpose == k.P_GIVE:
        card = card_label(kind) if viewer in (actor, to) else "a card"
        return f"give {card} to player_{to}"
    card = card_label(kind) if viewer == actor else "a card"
    return f"keep {card}, give the rest to player_{to}"


def answers(what: int, action: int, num_players: int) -> bool:
    """Whether `action` is of the ids the decision `what` takes (not that it is legal)."""
    if what == k.D_TURN and action in (k.DRAW, k.NINE):
        return True
    if what in (k.D_REACT, k.D_DUEL, k.D_DRAWN, k.D_CALL) and action == k.PASS:
        return True
    if what == k.D_COPIES:
        return k.COPIES <= action < k.COLOUR
    if what == k.D_COLOUR:
        return k.COLOUR <= action < k.SEAT
    if what == k.D_SEAT:
        return k.SEAT <= action < k.SEAT + num_players
    if what == k.D_CALL:
        return action == k.CALL
    return k.KIND <= action < k.COPIES


def describe(row: np.ndarray, action: int, actor: int, viewer: int) -> str:
    """The words of a legal `action` (`Game.describe_action` checks that it is); an id the
    pending decision does not take at all is a `ValueError` naming it."""
    if row[layout.STATUS] != layout.RUNNING:
        return "(the game is over)"
    what, _, a, b, c, d = (int(x) for x in k._top(row))
    if not answers(what, action, int(row[layout.NUM_PLAYERS])):
        raise ValueError(f"action {action} does not answer a {k.DECISION_NAMES[what]} decision")
    kind = action - k.KIND
    if what == k.D_TURN:
        return _turn(row, action)
    if what == k.D_COPIES:
        return f"play {action - k.COPIES + 1}x {card_label(a)}"
    if what == k.D_COLOUR:
        return f"choose colour {COLOURS[action - k.COLOUR]}"
    if what == k.D_NAME:
        return f"name {card_label(kind)}"
    if what == k.D_SEAT:
        s = (actor + action - k.SEAT) % int(row[layout.NUM_PLAYERS])
        t = int(k.after(row, actor, d)) if a == k.S_WAR2_HAND else -1
        return SEAT_TEXT[a].format(b=b, s=s, t=t)
    if what == k.D_PICK:
        return _pick(a, c, kind, actor, viewer)
    if what == k.D_NINE:
        return f"lay {card_label(kind)} (9 kolorow)"
    if what == k.D_REACT:
        target = WINDOW_TEXT[a].format(b=b)
        return (
            f"no reaction to {target}"
            if action == k.PASS
            else f"stop {target} with {card_label(kind)}"
        )
    if what == k.D_DUEL:
        return "fold" if action == k.PASS else f"play {card_label(kind)} in the duel"
    if what == k.D_CALL:
        return "call 'Codziennie niskie ceny'" if action == k.CALL else "do not call (draw two)"
    # D_DRAWN
    return "keep the drawn card" if action == k.PASS else f"play the drawn {card_label(kind)}"

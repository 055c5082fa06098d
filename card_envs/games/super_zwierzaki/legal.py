"""Super Zwierzaki's legal actions: those of the decision on top of the stack (`legal`), and
the memory lines a step of a row will read (`hint`, see `core.prefetch`).
"""

from card_envs.core import layout
from card_envs.core.jit import njit
from card_envs.core.prefetch import prefetch, prefetch_slots
from card_envs.games.super_zwierzaki.cards import _counter, _duel_card, _matches
from card_envs.games.super_zwierzaki.deck import (
    KIND_CLASSES,
    KIND_COLOURS,
    KIND_FUNCTION,
    NUM_KINDS,
)
from card_envs.games.super_zwierzaki.slots import (
    ANSWERS,
    ANY_COLOUR,
    C_DEMAND,
    CALL,
    COLOUR,
    COPIES,
    D_CALL,
    D_COLOUR,
    D_COPIES,
    D_DUEL,
    D_NAME,
    D_NINE,
    D_PICK,
    D_REACT,
    D_SEAT,
    D_TURN,
    D_WIDTH,
    DEMAND_KIND,
    DISCARD_N,
    DISCARD_PILE,
    DRAW,
    DRAW_N,
    DRAW_PILE,
    F_CYR,
    F_DZI,
    GIVEN_CLASSES,
    GIVEN_COLOURS,
    HANDS,
    KIND,
    NINE,
    NUM_COLOURS,
    PASS,
    PERM,
    PLAYED,
    QUEUE_HEAD,
    S_GIVE,
    S_NINE_TO,
    S_WAR2_HAND,
    S_WAR2_RECEIVER,
    S_WAR_B,
    SEAT,
    STACK,
    STACK_N,
    W_PLAY,
)
from card_envs.games.super_zwierzaki.stack import _top


@njit(cache=True)
def legal(row, out):
    out[:] = 0
    if row[layout.STATUS] != layout.RUNNING:
        return
    what, seat, a, b, _, taken = _top(row)
    n = row[layout.NUM_PLAYERS]
    hand = HANDS + seat * NUM_KINDS
    if what == D_TURN:
        counter = _counter(row)
        if counter >= 0:
            demand = row[DEMAND_KIND] if counter == C_DEMAND else -1
            for k in range(NUM_KINDS):
                ok = ANSWERS[counter, k] | (k == demand)
                out[KIND + k] = ok & (row[hand + k] > 0)
        else:  # a play matches; 9 kolorow: every colour held (not by Wielka 5), one matching
            gc = row[GIVEN_COLOURS]
            gk = row[GIVEN_CLASSES]
            held = 0
            matching = 0
            for k in range(NUM_KINDS):
                has = row[hand + k] > 0
                m = ((KIND_COLOURS[k] & gc) | (KIND_CLASSES[k] & gk)) != 0
                out[KIND + k] = has & m
                plain = has & (KIND_COLOURS[k] != ANY_COLOUR)
                held |= KIND_COLOURS[k] * plain
                matching |= plain & m
            if held == ANY_COLOUR and matching:
                out[NINE] = 1
        out[DRAW] = 1
    elif what == D_COPIES:
        for m in range(row[hand + a]):
            out[COPIES + m] = 1
    elif what == D_COLOUR:
        out[COLOUR : COLOUR + NUM_COLOURS] = 1
    elif what == D_NAME:
        for k in range(NUM_KINDS):
            out[KIND + k] = 1 if KIND_FUNCTION[k] == 0 else 0
    elif what == D_SEAT:
        for d in range(n):
            s = (seat + d) % n
            ok = True
            if a == S_GIVE or a == S_NINE_TO:
                ok = s != seat
            elif a == S_WAR_B or a == S_WAR2_RECEIVER:
                ok = s != b
            elif a == S_WAR2_HAND:
                for i in range(taken):
                    ok = ok and row[PERM + i] != s
            out[SEAT + d] = 1 if ok else 0
    elif what == D_PICK:
        for k in range(NUM_KINDS):
            out[KIND + k] = 1 if row[hand + k] > 0 else 0
    elif what == D_NINE:
        for k in range(NUM_KINDS):
            col = KIND_COLOURS[k]
            ok = row[hand + k] > 0 and col != ANY_COLOUR and (col & a) == 0
            out[KIND + k] = 1 if ok and (b > 0 or _matches(row, k)) else 0
    elif what == D_REACT:
        for k in range(NUM_KINDS):
            f = KIND_FUNCTION[k]
            ok = f == F_CYR or (f == F_DZI and a != W_PLAY)
            out[KIND + k] = 1 if ok and row[hand + k] > 0 else 0
        out[PASS] = 1
    elif what == D_DUEL:
        for k in range(NUM_KINDS):
            out[KIND + k] = 1 if row[hand + k] > 0 and _duel_card(row, k) else 0
        out[PASS] = 1
    elif what == D_CALL:
        out[CALL] = 1
        out[PASS] = 1
    else:  # D_DRAWN
        out[KIND + a] = 1 if _matches(row, a) else 0
        out[PASS] = 1


@njit(cache=True)
def hint(row, near):
    """The lines the next step of this row reads (see `core.prefetch`): far ahead, the slots
    before the decision stack; next, the stack's top, the effect queue, the hand of the seat
    to act and the played counts (observed), the tops of both piles."""
    if not near:
        prefetch_slots(row, 0, STACK)
        return
    prefetch(row, STACK + (row[STACK_N] - 1) * D_WIDTH)
    prefetch(row, QUEUE_HEAD)
    hand = HANDS + row[layout.PLAYER] * NUM_KINDS
    prefetch_slots(row, hand, hand + NUM_KINDS)
    prefetch_slots(row, PLAYED, PLAYED + NUM_KINDS)
    prefetch(row, DISCARD_PILE + row[DISCARD_N] - 1)
    prefetch(row, DRAW_PILE + row[DRAW_N] - 1)

"""Super Zwierzaki's small kernels: cards moving between the hands and the two piles (with
what other seats may know of them), the order of play, whether a card matches the top one,
the counters, and which cards a duel takes.
"""

from card_envs.core import layout
from card_envs.core.jit import njit
from card_envs.core.rng import shuffle_slice
from card_envs.games.super_zwierzaki.deck import (
    KIND_CLASSES,
    KIND_COLOURS,
    KIND_FUNCTION,
    NUM_KINDS,
)
from card_envs.games.super_zwierzaki.slots import (
    COUNTERS,
    DISCARD_N,
    DISCARD_PILE,
    DRAW_N,
    DRAW_PILE,
    DUEL_FN,
    F_ALL,
    F_CYR,
    F_RED,
    FIXED,
    GIVEN_CLASSES,
    GIVEN_COLOURS,
    HAND_N,
    HANDS,
    LATE,
    NUMBERS,
    PLAYED,
    RESHUFFLED,
)


@njit(cache=True)
def half_up(h):
    return (h + 1) // 2


@njit(cache=True)
def after(row, seat, k):
    """The seat k places after `seat` in the order of play (game numbers)."""
    n = row[layout.NUM_PLAYERS]
    target = (row[NUMBERS + seat] + k) % n
    for s in range(n):
        if row[NUMBERS + s] == target:
            return s
    return -1


@njit(cache=True)
def _move(row, p, kind, d):
    """d cards of a kind into p's hand (d > 0: drawn unseen, LATE after a refill) or out of
    it (d < 0: FIXED copies first, then LATE ones)."""
    i = p * NUM_KINDS + kind
    row[HANDS + i] += d
    row[HAND_N + p] += d
    if d > 0:
        if row[RESHUFFLED]:
            row[LATE + i] += d
        return
    out = min(-d, row[FIXED + i])
    row[FIXED + i] -= out
    row[LATE + i] -= min(-d - out, row[LATE + i])


@njit(cache=True)
def _give(row, p, q, kind, count):
    """Cards from p's hand to q's, where p knows them."""
    _move(row, p, kind, -count)
    row[HANDS + q * NUM_KINDS + kind] += count
    row[HAND_N + q] += count
    row[FIXED + q * NUM_KINDS + kind] += count


@njit(cache=True)
def _draw(row, p, count):
    """Up to `count` cards into p's hand (an empty draw pile first takes the discard pile but
    its top card, shuffled); returns the last kind drawn, or -1."""
    last = -1
    for _ in range(count):
        if row[DRAW_N] == 0 and row[DISCARD_N] > 1:
            m = row[DISCARD_N] - 1
            for i in range(m):
                row[DRAW_PILE + i] = row[DISCARD_PILE + i]
            _discard_only(row, row[DISCARD_PILE + m])
            row[DRAW_N] = m
            _refilled(row)
            shuffle_slice(row, DRAW_PILE, DRAW_PILE + m)
        if row[DRAW_N] == 0:  # every card but the top one is in a hand: a penalty of any
            break  # size (counters have no cap) ends here
        row[DRAW_N] -= 1
        last = row[DRAW_PILE + row[DRAW_N]]
        _move(row, p, last, 1)
    return last


@njit(cache=True, inline="always")
def _discard_only(row, top):
    """The discard pile is the one card `top` (after the deal, or a refill)."""
    row[DISCARD_PILE] = top
    row[DISCARD_N] = 1
    row[PLAYED : PLAYED + NUM_KINDS] = 0
    row[PLAYED + top] = 1


@njit(cache=True, inline="always")
def _refilled(row):
    """The draw pile is the old discard pile now. Cards drawn from the previous refill stay
    where they are in a resample (FIXED): they came from a pile of their own."""
    row[RESHUFFLED] = 1
    for i in range(row[layout.NUM_PLAYERS] * NUM_KINDS):
        row[FIXED + i] += row[LATE + i]
        row[LATE + i] = 0


@njit(cache=True)
def _lay(row, p, kind, count):
    """Cards played on top: they set the given colours and classes."""
    _move(row, p, kind, -count)
    for _ in range(count):
        row[DISCARD_PILE + row[DISCARD_N]] = kind
        row[DISCARD_N] += 1
    row[PLAYED + kind] += count
    row[GIVEN_COLOURS] = KIND_COLOURS[kind]
    row[GIVEN_CLASSES] = KIND_CLASSES[kind]


@njit(cache=True, inline="always")
def _under_top(row, kind):
    """A discarded card goes under the top card and changes nothing."""
    top = DISCARD_PILE + row[DISCARD_N] - 1
    row[top + 1] = row[top]
    row[top] = kind
    row[DISCARD_N] += 1
    row[PLAYED + kind] += 1


@njit(cache=True, inline="always")
def _matches(row, kind):
    return (KIND_COLOURS[kind] & row[GIVEN_COLOURS]) != 0 or (
        KIND_CLASSES[kind] & row[GIVEN_CLASSES]
    ) != 0


@njit(cache=True, inline="always")
def _counter(row):
    """The nonzero counter (C_*), or -1."""
    for c in range(4):
        if row[COUNTERS + c] != 0:
            return c
    return -1


@njit(cache=True)
def _reset_counters(row):
    for c in range(4):
        row[COUNTERS + c] = 0


@njit(cache=True, inline="always")
def _duel_card(row, kind):
    f = KIND_FUNCTION[kind]
    if f == F_RED or f == F_CYR or f == row[DUEL_FN]:
        return True
    top = row[DISCARD_PILE + row[DISCARD_N] - 1]
    return f == F_ALL and KIND_FUNCTION[top] == F_RED

"""Super Zwierzaki's conformance hooks: the conservation laws every row obeys
(`check_invariants`, the suite's check after every step) and the redraw of what a seat
cannot know (`resample_hidden`, for the searches and the suite's information check).
"""

import numpy as np

from card_envs.core import layout
from card_envs.core.jit import njit
from card_envs.core.rng import shuffle_sorted
from card_envs.games.super_zwierzaki.deck import KIND_COPIES, NUM_CARDS, NUM_KINDS
from card_envs.games.super_zwierzaki.slots import (
    CFG_SKIP_FORCED,
    COUNTERS,
    D_COPIES,
    D_NINE,
    DISCARD_N,
    DISCARD_PILE,
    DRAW_N,
    DRAW_PILE,
    FIXED,
    GIVEN_CLASSES,
    GIVEN_COLOURS,
    HAND_N,
    HANDS,
    LATE,
    LOST,
    MAX_PLAYERS,
    NUMBERS,
    PLAYED,
    QUEUE_CAP,
    QUEUE_HEAD,
    QUEUE_N,
    RESHUFFLED,
    STACK_DEPTH,
    STACK_N,
    TURN_SEAT,
    WINNER,
)
from card_envs.games.super_zwierzaki.stack import _top

INVARIANT_ERRORS = (
    "",
    "a counter, seat, pile size, stack or queue is out of range",
    "the hands and the two piles are not the 539 cards",
    "a hand size is not the sum of its counts",
    "more than one of the red, orc, green and demand counters is nonzero",
    "the game numbers are not a permutation of the seats",
    "the given colours or classes are empty",
    "a hand's fixed and late copies are negative or more than it holds",
    "the count of a kind in the discard pile is off",
)


@njit(cache=True)
def check_invariants(row):
    """0 when the row obeys the conservation laws, else the index of the broken one in
    INVARIANT_ERRORS."""
    n = row[layout.NUM_PLAYERS]
    status = row[layout.STATUS]
    if not (
        2 <= n <= MAX_PLAYERS
        and 0 <= row[layout.PLAYER] < n
        and 0 <= row[TURN_SEAT] < n
        and -1 <= row[WINNER] < n
        and (status == layout.RUNNING) == (row[STACK_N] > 0)
        and 0 <= row[STACK_N] <= STACK_DEPTH
        and 0 <= row[QUEUE_N]
        and 0 <= row[QUEUE_HEAD]
        and row[QUEUE_HEAD] + row[QUEUE_N] <= QUEUE_CAP
        and 0 <= row[DRAW_N] <= NUM_CARDS
        and 1 <= row[DISCARD_N] <= NUM_CARDS
    ):
        return 1
    for c in range(4):
        if row[COUNTERS + c] < 0:
            return 1
    for s in range(MAX_PLAYERS):
        if row[LOST + s] < 0 or (s >= n and (row[LOST + s] or row[HAND_N + s])):
            return 1
    for i in range(MAX_PLAYERS * NUM_KINDS):
        fixed, late = row[FIXED + i], row[LATE + i]
        if fixed < 0 or late < 0 or fixed + late > row[HANDS + i] or (late and not row[RESHUFFLED]):
            return 7
    counts = np.zeros(NUM_KINDS, dtype=np.int64)
    for s in range(n):
        total = 0
        for k in range(NUM_KINDS):
            v = row[HANDS + s * NUM_KINDS + k]
            if v < 0:
                return 2
            counts[k] += v
            total += v
        if total != row[HAND_N + s]:
            return 3
    for i in range(row[DRAW_N]):
        counts[row[DRAW_PILE + i]] += 1
    played = np.zeros(NUM_KINDS, dtype=np.int64)
    for i in range(row[DISCARD_N]):
        counts[row[DISCARD_PILE + i]] += 1
        played[row[DISCARD_PILE + i]] += 1
    for k in range(NUM_KINDS):
        if counts[k] != KIND_COPIES[k]:
            return 2
        if played[k] != row[PLAYED + k]:
            return 8
    live = 0
    for c in range(4):
        live += row[COUNTERS + c] != 0
    if live > 1:
        return 4
    seen = 0
    for s in range(n):
        m = row[NUMBERS + s]
        if m < 0 or m >= n or (seen >> m) & 1:
            return 5
        seen |= 1 << m
    if row[GIVEN_COLOURS] == 0 or row[GIVEN_CLASSES] == 0:
        return 6
    return 0


@njit(cache=True)
def resample_hidden(row, seat):
    """Redraw what `seat` cannot know, from the row's PRNG, keeping every hand's size and the
    row consistent with all that `seat` has seen. Cards of the other hands drawn unseen
    before the latest refill of the draw pile are exchanged with each other (and, before any
    refill, with the draw pile); cards drawn since that refill are exchanged with each other
    and with the draw pile (whose make-up, the old discard pile, was public); FIXED cards stay.
    Also left as they are: the hand of a seat choosing how many copies to play or laying
    9 kolorow (its pending choice needs those cards) and, with `skip_forced`, every hand (a
    decision taken unasked tells everyone what a hand lacks). The draw pile's order is
    always redrawn."""
    n = row[layout.NUM_PLAYERS]
    busy = -1
    if row[layout.STATUS] == layout.RUNNING:
        what, p, _, _, _, _ = _top(row)
        if what == D_COPIES or what == D_NINE:
            busy = p
    others = np.zeros(MAX_PLAYERS, dtype=np.bool_)
    for q in range(n):
        others[q] = q != seat and q != busy and not row[CFG_SKIP_FORCED]
    refilled = row[RESHUFFLED] == 1
    _exchange(row, others, LATE, refilled)  # cards drawn since the refill
    _exchange(row, others, -1, not refilled)  # cards drawn unseen before it


@njit(cache=True)
def _exchange(row, others, part, with_pile):
    """Deal again, at random, the cards of one part of the hands in `others` (`LATE`, or -1:
    those neither FIXED nor LATE), with the draw pile's cards (in a new order) when
    `with_pile`; each hand keeps its count in that part."""
    pool = np.empty(NUM_CARDS, dtype=np.int64)
    sizes = np.zeros(MAX_PLAYERS, dtype=np.int64)
    m = 0
    if with_pile:
        for i in range(row[DRAW_N]):
            pool[m] = row[DRAW_PILE + i]
            m += 1
    for q in range(row[layout.NUM_PLAYERS]):
        if not others[q]:
            continue
        for k in range(NUM_KINDS):
            i = q * NUM_KINDS + k
            c = row[part + i] if part >= 0 else row[HANDS + i] - row[FIXED + i] - row[LATE + i]
            for _ in range(c):
                pool[m] = k
                m += 1
            row[HANDS + i] -= c
            if part >= 0:
                row[part + i] -= c
            sizes[q] += c
    shuffle_sorted(row, pool[:m])
    m = 0
    for q in range(row[layout.NUM_PLAYERS]):
        for _ in range(sizes[q]):
            i = q * NUM_KINDS + pool[m]
            row[HANDS + i] += 1
            if part >= 0:
                row[part + i] += 1
            m += 1
    if with_pile:
        for i in range(row[DRAW_N]):
            row[DRAW_PILE + i] = pool[m + i]

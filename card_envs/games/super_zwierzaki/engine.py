"""Super Zwierzaki engine: numba kernels over one int64 state row (the protocol of
`core.engine`: reset, step, observe, legal, outcome, check_invariants, resample_hidden).

The game is a stack of pending decisions and a queue of effects, as in the reference game
(`tests/games/super_zwierzaki/reference.py`), which this engine must match: `legal` gives the
actions of the decision on top, `step` takes one and runs the game on (effects, turn ends,
win rounds, the next turn) until the next decision or the end. A play's effects wait in the
queue while its reaction window is open; a Cyr in the window clears them.

Action ids (the decision on top gives them their meaning): KIND k (0..115), COPIES c (1..5),
COLOUR c (0..8), SEAT d (seat (deciding seat + d) mod N), DRAW, PASS, NINE, CALL.

The engine is split by job into the modules of the game's folder, from the bottom up:
`slots` (the row layout and codes), `cards` and `stack` (small kernels), `legal`, `plays`
(plays and effects), `turns`, `conformance` and `observation`. This module is their face:
the protocol kernels, the deal (`reset`), and, re-exported, the row layout and every kernel
the game's other modules, `batched`, `search` and the tests read as `engine.X`.

A kernel with one or two callers is inlined into them at numba's level
(`inline="always"`): numba compiles every other kernel on its own, at a fixed cost of a
tenth of a second or more (its pipeline, its wrappers, its LLVM module), and those costs
made most of the game's first step on a cold cache. Small kernels under many callers
(`after`, `_push`) stay kernels of their own: inlining them everywhere cost more than it saved.

numba caches each kernel keyed on the file it is defined in only, and a kernel carries the
compiled code of every kernel it calls from the other modules: after editing any of them,
delete this game's `__pycache__` (README, "numba caches compiled kernels").
"""

import numpy as np

from card_envs.core import history, layout
from card_envs.core.jit import njit
from card_envs.core.rewards import share_win
from card_envs.core.rng import shuffle_slice
from card_envs.games.super_zwierzaki.cards import (  # noqa: F401
    _discard_only,
    _draw,
    _reset_counters,
    after,
    half_up,
)
from card_envs.games.super_zwierzaki.conformance import (  # noqa: F401
    INVARIANT_ERRORS,
    check_invariants,
    resample_hidden,
)
from card_envs.games.super_zwierzaki.deck import (
    KIND_CLASSES,
    KIND_COLOURS,
    KIND_COPIES,
    NUM_CARDS,
    NUM_KINDS,
)
from card_envs.games.super_zwierzaki.legal import hint, legal  # noqa: F401
from card_envs.games.super_zwierzaki.observation import OBS_SEGMENTS, obs_size, obs_slices, observe  # noqa: F401
from card_envs.games.super_zwierzaki.slots import *  # noqa: F403 (re-exported)
from card_envs.games.super_zwierzaki.slots import (
    ASKED,
    COPIES,
    D_DRAWN,
    D_NINE,
    D_PICK,
    D_TURN,
    DEMAND_BY,
    DEMAND_KIND,
    DISCARD_N,
    DRAW_N,
    DRAW_PILE,
    DUEL_FN,
    DUEL_FOLDED,
    DUEL_ON,
    DUEL_POINTS,
    ENDING,
    FIXED,
    GIVEN_CLASSES,
    GIVEN_COLOURS,
    HAND_N,
    HAND_SIZE,
    HANDS,
    LOST,
    MAX_PLAYERS,
    NUM_ACTIONS,
    NUMBERS,
    P_DISCARD,
    QUEUE_HEAD,
    QUEUE_N,
    QUEUE_START,
    RESHUFFLED,
    SIZES,
    STACK_N,
    STATE_SIZE,
    TURN_SEAT,
    TURNS,
    WINNER,
)
from card_envs.games.super_zwierzaki.stack import _push, _top
from card_envs.games.super_zwierzaki.turns import _run, _take

SECRET = NUM_ACTIONS  # public code of a card chosen unseen by the other seats
HISTORY_CODES = NUM_ACTIONS + 1


@njit(cache=True)
def public_action(row, action):
    """The public code of `action` (`core.history`): the action id, but SECRET for a kind
    the other seats do not see chosen: one picked to give or to keep, or laid in 9 kolorow
    (it goes to another hand: the others see that a card went, the `nine` slice its
    colour), and one to play of which the hand holds more copies (its copies are asked next,
    and the play that follows shows it)."""
    what, p, purpose, _, _, _ = _top(row)
    if action >= COPIES:
        return action
    if what == D_NINE or what == D_PICK and purpose != P_DISCARD:
        return SECRET
    if (what == D_TURN or what == D_DRAWN) and row[HANDS + p * NUM_KINDS + action] > 1:
        return SECRET
    return action


@njit(cache=True)
def step(row, action, rewards):
    history.record(row, public_action(row, action))
    row[layout.TURN] += 1
    _take(row, action)
    _run(row, rewards)


@njit(cache=True)
def reset(row):
    """Deal: 5 cards each, the top card of the draw pile turned up (its function does not
    apply), game numbers a random permutation, number 0 to act."""
    history.clear(row)
    n = row[layout.NUM_PLAYERS]
    pos = 0
    for k in range(NUM_KINDS):
        for _ in range(KIND_COPIES[k]):
            row[DRAW_PILE + pos] = k
            pos += 1
    shuffle_slice(row, DRAW_PILE, DRAW_PILE + NUM_CARDS)
    row[DRAW_N] = NUM_CARDS
    row[DISCARD_N] = 0
    row[HAND_N : HAND_N + MAX_PLAYERS] = 0
    row[HANDS:DRAW_PILE] = 0
    row[LOST : LOST + MAX_PLAYERS] = 0
    row[RESHUFFLED] = 0
    row[FIXED:STATE_SIZE] = 0
    for p in range(n):
        _draw(row, p, HAND_SIZE)
    row[DRAW_N] -= 1
    top = row[DRAW_PILE + row[DRAW_N]]
    _discard_only(row, top)
    row[GIVEN_COLOURS] = KIND_COLOURS[top]
    row[GIVEN_CLASSES] = KIND_CLASSES[top]
    for p in range(MAX_PLAYERS):
        row[NUMBERS + p] = p if p < n else 0
        row[SIZES + p] = row[HAND_N + p]
    shuffle_slice(row, NUMBERS, NUMBERS + n)
    _reset_counters(row)
    row[DEMAND_KIND] = -1
    row[DEMAND_BY] = -1
    row[TURNS] = 0
    row[WINNER] = -1
    row[ENDING] = 0
    row[ASKED] = 0
    row[DUEL_ON] = 0
    row[DUEL_FN] = 0
    row[DUEL_POINTS] = 0
    row[DUEL_FOLDED] = 0
    row[STACK_N] = 0
    row[QUEUE_N] = 0
    row[QUEUE_HEAD] = QUEUE_START
    row[layout.STATUS] = layout.RUNNING
    row[layout.TURN] = 0
    for p in range(n):
        if row[NUMBERS + p] == 0:
            row[TURN_SEAT] = p
    _push(row, D_TURN, row[TURN_SEAT], 0, 0, 0, 0)
    _run(row, np.zeros(MAX_PLAYERS, dtype=np.float32))


@njit(cache=True)
def outcome(row, scores, wins):
    """Every seat's score is minus its hand size; the winner (a seat whose emptied hand
    survived its win round) takes the win. A truncated game's win goes to the leader by
    time, the fewest cards (ties share it), as evaluations count it; its rewards stay 0."""
    n = row[layout.NUM_PLAYERS]
    for s in range(n):
        scores[s] = -row[HAND_N + s]
        wins[s] = 1.0 if s == row[WINNER] else 0.0
    if row[WINNER] < 0:
        share_win(scores[:n], False, wins)

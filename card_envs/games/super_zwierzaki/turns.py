"""Super Zwierzaki's turns: the loop that runs effects and turn ends (win rounds, lost turns,
the calls of the explicit-call option, forced decisions with `skip_forced`) until a seat
must decide or the game is over (`_run`), and the decision on top taken (`_take`).
"""

import numpy as np

from card_envs.core import layout
from card_envs.core.jit import boundary, njit
from card_envs.games.super_zwierzaki.cards import after
from card_envs.games.super_zwierzaki.legal import legal
from card_envs.games.super_zwierzaki.plays import _ask, _decide, _run_effect
from card_envs.games.super_zwierzaki.slots import (
    ASKED,
    C_DEMAND,
    CFG_EXPLICIT_CALL,
    CFG_MAX_TURNS,
    CFG_SKIP_FORCED,
    COUNTERS,
    D_CALL,
    D_TURN,
    D_WIDTH,
    DEMAND_BY,
    E_WIDTH,
    ENDING,
    HAND_N,
    LOST,
    NUM_ACTIONS,
    QUEUE,
    QUEUE_HEAD,
    QUEUE_N,
    SIZES,
    STACK,
    STACK_N,
    TURN_SEAT,
    TURNS,
    W_WIN,
    WINNER,
)
from card_envs.games.super_zwierzaki.stack import _push, _top


@njit(cache=True, inline="always")
def _end_turn(row):
    """Win rounds, one at a time, for every empty hand (from the turn's seat on); then the next
    seat's turn (lost turns pass by, each counted as a turn), or truncation at the cap."""
    n = row[layout.NUM_PLAYERS]
    if not row[ENDING]:
        row[ENDING] = 1
        row[TURNS] += 1
    for i in range(n):
        s = after(row, row[TURN_SEAT], i)
        if row[HAND_N + s] == 0 and not (row[ASKED] >> s) & 1:
            row[ASKED] |= 1 << s
            _ask(row, W_WIN, s, 1)
            return
    row[ENDING] = 0
    row[ASKED] = 0
    while True:
        if row[TURNS] >= row[CFG_MAX_TURNS]:
            row[layout.STATUS] = layout.TRUNCATED
            return
        s = after(row, row[TURN_SEAT], 1)
        row[TURN_SEAT] = s
        if row[COUNTERS + C_DEMAND] and row[DEMAND_BY] == s:
            row[COUNTERS + C_DEMAND] = 0
        if row[LOST + s] == 0:
            break
        row[LOST + s] -= 1
        row[TURNS] += 1
    _push(row, D_TURN, row[TURN_SEAT], 0, 0, 0, 0)


@njit(cache=True, inline="always")
def _check_calls(row):
    """Explicit-call option: every seat left with exactly one card since the last check
    decides at once, the first in order from the turn's seat first."""
    n = row[layout.NUM_PLAYERS]
    if row[CFG_EXPLICIT_CALL]:
        for i in range(n - 1, -1, -1):
            s = after(row, row[TURN_SEAT], i)
            if row[HAND_N + s] == 1 and row[SIZES + s] != 1:
                _push(row, D_CALL, s, 0, 0, 0, 0)
    for s in range(n):
        row[SIZES + s] = row[HAND_N + s]


@njit(cache=True, inline="always")
def _only_action(row):
    """The one legal action of the decision on top, or -1 when there are more (only with the
    `skip_forced` option)."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    legal(row, mask)
    found = -1
    for a in range(NUM_ACTIONS):
        if mask[a]:
            if found >= 0:
                return -1
            found = a
    return found


@njit(cache=True, inline="always")
def _finish(row, rewards):
    n = row[layout.NUM_PLAYERS]
    row[layout.STATUS] = layout.TERMINATED
    for s in range(n):
        rewards[s] += 1.0 if s == row[WINNER] else -1.0


@njit(cache=True, inline="always")
def _take(row, action):
    what, p, a, b, c, d = _top(row)
    row[STACK_N] -= 1
    _decide(row, what, p, a, b, c, d, action)


@boundary("void(int64[::1], float32[::1])")  # the game's whole turn machine, under every face
def _run(row, rewards):
    """Run effects and turns until a decision is pending or the game is over; then the seat
    to act is the one deciding."""
    while row[layout.STATUS] == layout.RUNNING:
        if row[WINNER] >= 0:
            _finish(row, rewards)
            break
        _check_calls(row)
        if row[STACK_N] > 0:
            a = _only_action(row) if row[CFG_SKIP_FORCED] else -1
            if a < 0:
                row[layout.PLAYER] = row[STACK + (row[STACK_N] - 1) * D_WIDTH + 1]
                return
            _take(row, a)
            continue
        if row[QUEUE_N] > 0:
            base = QUEUE + row[QUEUE_HEAD] * E_WIDTH
            row[QUEUE_HEAD] += 1
            row[QUEUE_N] -= 1
            _run_effect(row, row[base], row[base + 1], row[base + 2], row[base + 3])
            continue
        _end_turn(row)

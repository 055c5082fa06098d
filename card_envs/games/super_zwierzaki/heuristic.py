"""A rule-based Super Zwierzaki policy that reads only the observation.

Shed cards fast and keep the stoppers: play the legal kind with the most copies (attack cards
first, Cyr, Dzi and Wielka 5 last), 9 kolorow whenever it can; answer a counter with a card
that passes it on, and with Cyr only when the penalty is large; stop every win and every 9
kolorow give; in a duel add points while it can. Cards and seats it chooses: the colour it
holds most of, the plain kind it holds most of to demand, cards given to or hands swapped
with the seat closest to winning, its own singletons discarded before its stoppers.
"""

import numpy as np

from card_envs.core.jit import njit
from card_envs.games.super_zwierzaki import engine as k
from card_envs.games.super_zwierzaki.deck import KIND_COLOURS, KIND_FUNCTION, NUM_KINDS

_STOPPERS = (k.F_CYR, k.F_DZI, k.F_ALL)
_ATTACKS = (k.F_RED, k.F_ORC, k.F_STP, k.F_OTH, k.F_GIV, k.F_KAZ, k.F_POL, k.F_DEM)
_FIXED = k.obs_slices(2)["folded"][0]  # the slices before the per-seat ones do not depend on N
_COUNTERS = k.obs_slices(2)["counters"][0]


@njit(cache=True)
def _is(f, functions):
    for g in functions:
        if f == g:
            return True
    return False


@njit(cache=True)
def _keep_value(f, copies):
    """How much a card is worth keeping: stoppers most, attack cards next, then by copies."""
    if _is(f, _STOPPERS):
        return 100.0
    if f == k.F_RED:
        return 50.0
    return 10.0 * copies + (5.0 if _is(f, _ATTACKS) else 0.0)


@njit(cache=True)
def _play_value(f, copies):
    """How much a play is worth: cards shed, attack cards first, stoppers last."""
    if _is(f, _STOPPERS):
        return 1.0
    return 10.0 * copies + (5.0 if _is(f, _ATTACKS) else 0.0)


@njit(cache=True)
def _pick(o, m, sign):
    """The legal KIND action of highest (sign 1) or lowest (sign -1) keep value."""
    best, choice = -1e9, -1
    for kind in range(NUM_KINDS):
        if m[k.KIND + kind]:
            v = sign * _keep_value(KIND_FUNCTION[kind], o[kind])
            if v > best:
                best, choice = v, kind
    return k.KIND + choice


@njit(cache=True)
def _seat(m, sizes, n, fewest, exclude):
    """The legal seat (relative) with the fewest (or most) cards, other than `exclude`."""
    best, choice = 1e9, -1
    for d in range(n):
        if m[k.SEAT + d] and d != exclude:
            v = sizes[d] if fewest else -sizes[d]
            if v < best:
                best, choice = v, d
    return choice


@njit(cache=True)
def _first(m):
    for a in range(k.NUM_ACTIONS):
        if m[a]:
            return a
    return -1


@njit(cache=True)
def _decide(o, m, n):
    sizes = o[_FIXED + n : _FIXED + 2 * n]
    order = o[_FIXED + 3 * n : _FIXED + 4 * n]
    dec_at = _FIXED + 5 * n
    what = 0
    for j in range(len(k.DECISION_NAMES)):
        if o[dec_at + j] > 0.5:
            what = j
    ctx = dec_at + len(k.DECISION_NAMES) + n + NUM_KINDS  # purpose slice
    purpose = -1
    for j in range(10):
        if o[ctx + j] > 0.5:
            purpose = j
    seat_at = ctx + 10 + 1
    window_at = seat_at + 3 * n + k.NUM_COLOURS
    counters = o[_COUNTERS : _COUNTERS + 4]
    if what == k.D_TURN:
        if m[k.NINE]:
            return k.NINE
        pending = counters.max()
        kind = -1
        best = -1e9
        for c in range(NUM_KINDS):
            if m[k.KIND + c]:
                f = KIND_FUNCTION[c]
                v = _play_value(f, o[c])
                if pending > 0 and f == k.F_CYR:
                    v = 0.5 if pending >= 3 else -1e8  # Cyr only against a large penalty
                if v > best:
                    best, kind = v, c
        return k.KIND + kind if kind >= 0 and best > -1e8 else k.DRAW
    if what == k.D_COPIES:
        for c in range(k.MAX_COPIES - 1, -1, -1):
            if m[k.COPIES + c]:
                return k.COPIES + c
    if what == k.D_COLOUR:
        held = np.zeros(k.NUM_COLOURS)
        for c in range(NUM_KINDS):
            for col in range(k.NUM_COLOURS):
                if KIND_COLOURS[c] != k.ANY_COLOUR and (KIND_COLOURS[c] >> col) & 1:
                    held[col] += o[c]
        return k.COLOUR + int(np.argmax(held))
    if what == k.D_NAME:
        best, choice = -1.0, _first(m)
        for c in range(NUM_KINDS):
            if m[k.KIND + c] and o[c] > best:
                best, choice = o[c], k.KIND + c
        return choice
    if what == k.D_SEAT:
        if purpose == k.S_WAR_A:
            mine_bigger = False
            for d in range(1, n):
                mine_bigger = mine_bigger or sizes[d] < sizes[0]
            return k.SEAT + (0 if mine_bigger else _seat(m, sizes, n, True, 0))
        if purpose == k.S_WAR_B:
            first = -1
            for d in range(n):
                if o[seat_at + d] > 0.5:
                    first = d
            return k.SEAT + _seat(m, sizes, n, first == 0, first)
        if purpose == k.S_WAR2_GIVER:
            return k.SEAT + 0
        if purpose == k.S_WAR2_HAND:
            taken = 0
            for d in range(n):
                taken += o[seat_at + 2 * n + d] > 0.5
            if taken == 0:  # the player's own new hand: the smallest
                return k.SEAT + _seat(m, sizes, n, True, -1)
            return _first(m)
        return k.SEAT + _seat(m, sizes, n, True, -1)  # give, 9 kolorow, receiver: the leader
    if what == k.D_PICK:  # keep the best card; discard or give the least useful
        return _pick(o, m, 1.0 if purpose == 7 + k.P_KEEP else -1.0)
    if what == k.D_REACT:
        window = 0
        for j in range(3):
            if o[window_at + j] > 0.5:
                window = j
        by = -1
        for d in range(n):
            if o[seat_at + d] > 0.5:
                by = d
        top = -1
        for c in range(NUM_KINDS):
            if o[NUM_KINDS + c] > 0.5:
                top = c
        hurts = _is(KIND_FUNCTION[top], (k.F_RED, k.F_ORC, k.F_STP, k.F_DEM))
        if window != k.W_PLAY or (hurts and by >= 0 and order[by] == n - 1):
            dzi = -1
            for c in range(NUM_KINDS):
                if m[k.KIND + c]:
                    dzi = c if (dzi < 0 or KIND_FUNCTION[c] == k.F_DZI) else dzi
            if dzi >= 0:
                return k.KIND + dzi
        return k.PASS
    if what == k.D_DUEL:
        for c in range(NUM_KINDS):
            f = KIND_FUNCTION[c]
            if m[k.KIND + c] and f != k.F_CYR and f != k.F_ALL:
                return k.KIND + c
        return k.PASS
    if what == k.D_CALL:
        return k.CALL
    return _first(m)  # 9 kolorow in any order; a drawn card is played


@njit(cache=True)
def heuristic_actions(obs, masks, out, num_players):
    for i in range(obs.shape[0]):
        out[i] = _decide(obs[i], masks[i], num_players)

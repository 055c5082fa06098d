"""Policies for Double or Nothing that read only the observation (the mask follows from it;
the kernels take it only to share the policy-kernel signature, see `core.engine.run_policy`).

`computer_actions` is the original game's computer (always its weakest legal play).
`heuristic_actions` is ours: among the legal plays it picks the one that leaves the fewest
distinct numbers in hand (a hand of few numbers goes out in few plays, and a play that
empties the hand wins it at once), the weakest of those; it passes only when it must.
"""

import numpy as np

from card_envs.core.combos import range_copies, range_play_keys, range_strength
from card_envs.core.jit import njit
from card_envs.games.double_or_nothing import engine as k


@njit(cache=True)
def _counts_and_beat(obs_row, counts):
    f = 1 << (int(obs_row[k.OBS_STAGE]) - 1)
    for v in range(k.NUM_NUMBERS):
        counts[v] = int(round(obs_row[k.OBS_OWN + v] * f))
    copies = int(round(obs_row[k.OBS_BEAT_COPIES] * f))
    if copies == 0:
        return -1
    lo = hi = 0
    for v in range(k.NUM_NUMBERS):
        if obs_row[k.OBS_BEAT_LO + v] > 0.5:
            lo = v + 1
        if obs_row[k.OBS_BEAT_HI + v] > 0.5:
            hi = v + 1
    return range_strength(copies, lo, hi)


@njit(cache=True)
def computer_actions(obs, masks, out):
    counts = np.zeros(k.NUM_NUMBERS, dtype=np.int64)
    for i in range(obs.shape[0]):
        out[i] = k.computer_action(counts, _counts_and_beat(obs[i], counts))


@njit(cache=True)
def heuristic_actions(obs, masks, out):
    counts = np.zeros(k.NUM_NUMBERS, dtype=np.int64)
    keys = np.empty(k.NUM_RANGES, dtype=np.int64)
    for i in range(obs.shape[0]):
        range_play_keys(counts, _counts_and_beat(obs[i], counts), keys)
        distinct = 0
        for v in range(k.NUM_NUMBERS):
            distinct += counts[v] > 0
        best = k.PASS
        best_left = k.NUM_NUMBERS + 1
        for a in range(k.NUM_RANGES):
            if keys[a] < 0:
                continue
            lo, hi = k.range_of(a)
            copies = range_copies(counts, lo, hi)
            left = distinct  # numbers still in hand after the play
            for v in range(lo, hi + 1):
                left -= counts[v - 1] == copies
            if left < best_left or (left == best_left and keys[a] < keys[best]):
                best_left = left
                best = a
        out[i] = best

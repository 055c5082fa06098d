"""A run-aware No Thanks policy that reads only the observation.

The true cost of a card is how much it adds to the hand's score (a card next to a run costs
little or nothing), less the tokens on it. Take when that net cost is small; the bar rises as
tokens run low, since a player without tokens must take whatever comes.
"""

import numpy as np

from card_envs.core.combos import run_low_sum
from card_envs.core.jit import njit
from card_envs.games.no_thanks import engine as k


@njit(cache=True)
def _own_mask(obs):
    mask = np.int64(0)
    for c in range(k.LOW_CARD, k.HIGH_CARD + 1):
        if obs[k.OBS_CARDS + c - k.LOW_CARD] > 0.5:
            mask |= np.int64(1) << c
    return mask


@njit(cache=True)
def take_cost(obs):
    """Points the offered card adds to the hand minus the tokens on it."""
    card = 0
    for j in range(k.NUM_CARDS):
        if obs[k.OBS_OFFER + j] > 0.5:
            card = k.LOW_CARD + j
    mask = _own_mask(obs)
    added = run_low_sum(mask | (np.int64(1) << card)) - run_low_sum(mask)
    return added - obs[k.OBS_POT]


@njit(cache=True)
def heuristic_actions(obs, masks, out):
    for i in range(obs.shape[0]):
        if masks[i, k.NO_THANKS] == 0:
            out[i] = k.TAKE
            continue
        tokens = obs[i, k.OBS_OWN_TOKENS]
        bar = max(0.0, 8.0 - 2.0 * tokens)
        out[i] = k.TAKE if take_cost(obs[i]) <= bar else k.NO_THANKS

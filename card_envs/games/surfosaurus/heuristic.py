"""A greedy Surfosaurus policy that reads only the observation.

For every card in hand it asks the combo evaluator what the display would score with that
card added, and plays the card that earns its seat the most points now. With nothing to gain
it plays its cheapest card (fewest points), keeping valuable low cards for later rounds.
"""

import numpy as np

from card_envs.core.combos import NUM_VALUES
from card_envs.core.jit import njit
from card_envs.games.surfosaurus import engine as k


@njit(cache=True)
def heuristic_actions(obs, masks, out, n, points):
    size = k.combo_size(n)
    cards = np.empty(k.MAX_DISPLAY + 1, dtype=np.int64)
    mine = np.empty(k.MAX_DISPLAY + 1, dtype=np.bool_)
    flags = np.empty(k.MAX_DISPLAY + 1, dtype=np.int64)
    for i in range(obs.shape[0]):
        count = 0
        for rel in range(n + 1):
            base = k.NUM_CARDS * (1 + rel)
            for c in range(k.NUM_CARDS):
                if obs[i, base + c] > 0.5:
                    cards[count] = c
                    mine[count] = rel == 0
                    count += 1
        best_gain = 0.0
        best_cost = 0
        best_card = -1
        for c in range(k.NUM_CARDS):
            if masks[i, c] == 0:
                continue
            cards[count] = c
            mine[count] = True
            gain = k.seat_gain(cards, mine, count + 1, size, points, flags)
            cost = points[c % NUM_VALUES]
            # more gain first, then giving away fewer points: compared in turn, as a
            # weighted sum would let a large points table's costs outweigh the gains
            if best_card < 0 or gain > best_gain or (gain == best_gain and cost < best_cost):
                best_gain, best_cost, best_card = gain, cost, c
        out[i] = best_card

"""The Rummidrez kernels bound to the generic ISMCTS search (see `core.ismcts`), with the two
choices that make the search gain here (docs/agents.md, "ISMCTS in Rummidrez"):

- `search_moves`: only one decision is searched, whether to lay down the meld the
  heuristic would start this turn or to hold it (end the meld phase with nothing placed);
  every other move is the heuristic's. The search is `PAIRED` (`core.ismcts`): both moves
  are played from the same determinisations, then the heuristic to the end. Searching every
  action wanders among placements and undos, and the draws and discards were measured to
  lose under search (the discards turn on the next seat's hand, which cannot be inferred;
  the draws on differences smaller than the noise of a few rollouts).
- `search_value`: a simulation's value for each seat is its win share plus the cards the
  others keep minus its own (over `CARDS_SCALE`), scaled into [0, 1]: a lost game is worth
  more the closer it was, which a handful of simulations needs to tell two moves apart.
"""

import numpy as np

from card_envs.core import layout
from card_envs.core.ismcts import PAIRED, search_rows
from card_envs.core.jit import njit
from card_envs.games.rummidrez import engine as k
from card_envs.games.rummidrez.heuristic import heuristic_actions

CARDS_SCALE = 40.0  # a difference of cards left worth a whole win


@njit(cache=True)
def search_moves(row, heuristic_move, mask):
    """Leave in `mask` the heuristic's move and, at the first placement of a turn, holding
    the meld (END_MELD), searched `PAIRED`."""
    hold = (
        row[k.PHASE] == k.PHASE_MELD
        and row[k.PLACE_COUNT] == 0
        and k.PLACE <= heuristic_move < k.UNDO
        and mask[k.END_MELD]
    )
    mask[:] = 0
    mask[heuristic_move] = 1
    if hold:
        mask[k.END_MELD] = 1
    return PAIRED


@njit(cache=True)
def search_value(row, scores, wins):
    """`engine.outcome`'s scores; in `wins` each seat's value for the search: its win share
    plus (the others' mean cards in hand - its own) / CARDS_SCALE, mapped from [-1, 2]
    into [0, 1] (clipped: hands of over 40 cards are rare). The solo game has no others:
    its seat's value is its win share minus its own cards / CARDS_SCALE, mapped alike."""
    k.outcome(row, scores, wins)
    n = row[layout.NUM_PLAYERS]
    cards = np.zeros(n)
    for q in range(n):
        for c in range(k.NUM_IDS):
            cards[q] += row[k.HAND + q * k.NUM_IDS + c]
    total = cards.sum()
    for q in range(n):
        others = (total - cards[q]) / (n - 1) if n > 1 else 0.0
        v = (wins[q] + (others - cards[q]) / CARDS_SCALE + 1.0) / 3.0
        wins[q] = min(max(v, 0.0), 1.0)


@njit(cache=True)
def search(rows, streams, out, tree, settings, policy_args, prior):
    search_rows(
        rows,
        streams,
        out,
        tree,
        settings,
        policy_args,
        prior,
        k.step,
        k.legal,
        k.observe,
        search_value,
        k.resample_hidden,
        heuristic_actions,
        search_moves,
    )

"""The No Thanks kernels bound to the generic ISMCTS search (see `core.ismcts`)."""

from card_envs.core.ismcts import all_moves, search_rows
from card_envs.core.jit import njit
from card_envs.games.no_thanks import engine as k
from card_envs.games.no_thanks.heuristic import heuristic_actions


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
        k.outcome,
        k.resample_hidden,
        heuristic_actions,
        all_moves,
    )

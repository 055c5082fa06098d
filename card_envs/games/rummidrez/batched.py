"""The Rummidrez kernels bound to the generic batched loops, serial and threaded (see
`core.batched`), and to the batch check of their conservation laws (see `core.invariants`)."""

from card_envs.core.batched import reset_all, step_all, step_threads
from card_envs.core.invariants import check_all
from card_envs.core.jit import njit
from card_envs.core.prefetch import no_hint
from card_envs.games.rummidrez import engine as k


@njit(cache=True)
def batch_reset(buffers):
    reset_all(buffers, k.reset, k.observe, k.legal)


@njit(cache=True)
def batch_step(buffers, actions):
    return step_all(buffers, actions, k.reset, k.step, k.observe, k.legal, k.outcome, no_hint)


@njit(cache=True, parallel=True)
def batch_step_threads(buffers, actions):
    return step_threads(buffers, actions, k.reset, k.step, k.observe, k.legal, k.outcome, no_hint)


@njit(cache=True)
def batch_check(states):
    return check_all(states, k.check_invariants)

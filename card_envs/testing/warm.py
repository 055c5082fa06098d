"""Compile every game's kernels into numba's cache once, before parallel processes need them.

Each pytest-xdist worker (or Ray worker, or `--workers` process on a spawn platform) is a
process of its own: on a cold cache every one of them compiles the same kernels, minutes of
CPU for Rummidrez and Super Zwierzaki. `warm_caches` compiles them once, the games spread
over a few processes, so that later processes only load them from the cache.
`tests/conftest.py` calls it before the test workers start.
"""

from __future__ import annotations

from card_envs.agents import make_agent
from card_envs.core.jit import settle, start_builds
from card_envs.evaluation.pool import mp_context
from card_envs.registry import (
    batched_env_ids,
    kernel_folder,
    kernel_groups,
    make,
    make_vec,
    multi_agent_env_ids,
)
from card_envs.testing.faces import play_aec, play_batched, play_gym

AGENTS = ("heuristic", "ismcts:2:depth=8")


def warm_env(env_id: str) -> None:
    """Compile what the faces of `env_id` call: the AEC env (or the Gymnasium env of a
    single-agent id), the batched env and its invariant check, and the built-in agents on it
    (`AGENTS`: the heuristic, and the search with its determinisation), as the harnesses run
    them, and `Game.searched_moves`."""
    env = make(env_id)
    env.reset(seed=0)
    (play_aec if env_id in multi_agent_env_ids() else play_gym)(env, 100, seed=0)
    if env_id not in batched_env_ids():
        return
    venv = make_vec(env_id, 4, seed=0)
    venv.reset(seed=0)
    play_batched(venv, 100, seed=0)
    check = getattr(type(venv.game).batched, "batch_check", None)  # the soak's invariants
    if check is not None:
        check(venv.states)
    for spec in AGENTS:
        agent = make_agent(spec, env_id, seed=0)
        for _ in range(3):
            venv.step(agent.act_positions(venv.observations, venv.action_masks, venv.states))
    venv.game.searched_moves(venv.states[0])  # the search's moves kernel, called alone


def _warm_group(env_ids: tuple[str, ...]) -> None:
    for env_id in env_ids:
        warm_env(env_id)
    # and the boundaries that only an option calls (`core.jit.boundary`): the group's own,
    # the other groups' are theirs to compile
    settle(kernel_folder(env_ids[0]))


def warm_caches(processes: int = 2) -> None:
    """Run `warm_env` for every registered env id, the `kernel_groups()` shared among
    `processes` processes (in this process when it is 1)."""
    groups = kernel_groups()  # imports every game
    start_builds()
    if processes <= 1:
        for group in groups:
            _warm_group(group)
        return
    with mp_context().Pool(processes) as pool:
        list(pool.imap_unordered(_warm_group, groups))

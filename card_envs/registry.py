"""Env ids -> games; the `make` / `make_parallel` / `make_vec` entry points; and the same envs
where other libraries look for them: Gymnasium ids and PettingZoo-style modules."""

from __future__ import annotations

import functools
import importlib
import sys
from types import ModuleType
from typing import Any, NamedTuple

import gymnasium
import pettingzoo
from pettingzoo import ParallelEnv
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from card_envs.core.aec import CardEnv
from card_envs.core.batched import BatchedEnv
from card_envs.core.engine import Game
from card_envs.core.jit import package_of

# the games, each as "module:Class" until its id is first used: `import card_envs` then
# imports no game package (half a second), and a game's kernels load only when it is played
_GAMES: dict[str, type[Game] | str] = {
    "no_thanks_v0": "card_envs.games.no_thanks:NoThanks",
    "surfosaurus_max_v0": "card_envs.games.surfosaurus:Surfosaurus",
    "double_or_nothing_v0": "card_envs.games.double_or_nothing:DoubleOrNothing",
    "rummidrez_v0": "card_envs.games.rummidrez:Rummidrez",
    "super_zwierzaki_v0": "card_envs.games.super_zwierzaki:SuperZwierzaki",
}


class _SingleAgent(NamedTuple):
    """A single-agent Gymnasium env: a game against a built-in opponent, or a one-seat game.
    The two facts beside its class are its class's own (`agent_env`, `game_type`), kept
    here so that they are known before the class is imported (a test pins them)."""

    path: str  # "module:Class"
    agent_env: str  # the id its agents are built for (its own when it serves its own game)
    own_game: bool  # it serves a one-seat `Game` of its own (`game_type`): batched too


_SINGLE_AGENT = {
    "double_or_nothing_run_v0": _SingleAgent(
        "card_envs.games.double_or_nothing.run_env:DoubleOrNothingRun",
        "double_or_nothing_v0",
        False,
    ),
    "rummidrez_solo_v0": _SingleAgent(
        "card_envs.games.rummidrez.solo_env:RummidrezSoloEnv", "rummidrez_solo_v0", True
    ),
}


def _import(path: str) -> Any:
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def env_ids() -> list[str]:
    """All registered env ids."""
    return sorted([*_GAMES, *_SINGLE_AGENT])


def multi_agent_env_ids() -> list[str]:
    """The ids that have an AEC env and a batched env."""
    return sorted(_GAMES)


def _own_game(env_id: Any) -> type[Game] | None:
    """The one-seat game a single-agent id serves of its own (its `game_type`), else None."""
    single = _SINGLE_AGENT.get(env_id) if isinstance(env_id, str) else None
    return single_agent_env_class(env_id).game_type if single and single.own_game else None


def batched_env_ids() -> list[str]:
    """The ids `make_vec` batches (and `card-envs train` trains on): every multi-agent id and
    the single-agent ids over a one-seat game of their own (`game_type`)."""
    return sorted([*_GAMES, *(i for i, single in _SINGLE_AGENT.items() if single.own_game)])


def check_multi_agent(env_id: Any) -> None:
    """Raise a clear error unless `env_id` is a multi-agent id (imports no game)."""
    if isinstance(env_id, str) and env_id in _SINGLE_AGENT:
        raise ValueError(
            f"{env_id!r} is a single-agent Gymnasium env: use card_envs.make({env_id!r}); "
            f"multi-agent ids are {sorted(_GAMES)}"
        )
    if not isinstance(env_id, str) or env_id not in _GAMES:
        raise ValueError(f"unknown env id {env_id!r}; known ids are {env_ids()}")


def game_class(env_id: str) -> type[Game]:
    check_multi_agent(env_id)
    game = _GAMES[env_id]
    if isinstance(game, str):
        game = _GAMES[env_id] = _import(game)
    return game


def register_game(game: type[Game]) -> None:
    """Serve a new game (a `Game` subclass and its engine, see `card_envs.core.engine`) like
    the built-in ones: `make`, `make_vec`, the single-agent views, the Gymnasium and PettingZoo
    registries, and `card_envs.testing.cases()`, so the conformance suite runs it."""
    if not (isinstance(game, type) and issubclass(game, Game)):
        raise ValueError(
            f"register_game needs a subclass of card_envs.core.engine.Game, got {game!r}"
        )
    if game.env_id in env_ids():
        raise ValueError(f"env id {game.env_id!r} is already registered; ids are {env_ids()}")
    _GAMES[game.env_id] = game
    _register_with_libraries(game.env_id)


def single_agent_env_class(env_id: str) -> type:
    """The Gymnasium env class of a single-agent id."""
    if env_id not in _SINGLE_AGENT:
        raise ValueError(f"{env_id!r} is not a single-agent id; they are {sorted(_SINGLE_AGENT)}")
    return _import(_SINGLE_AGENT[env_id].path)


def single_agent_env_ids() -> list[str]:
    """The ids of the single-agent Gymnasium envs (a game against the computer, solo)."""
    return sorted(_SINGLE_AGENT)


def agent_env_id(env_id: str) -> str:
    """The id whose agents play `env_id`: a single-agent env's `agent_env` (the multi-agent
    id with its observations and actions, or its own id), else `env_id` itself."""
    single = _SINGLE_AGENT.get(env_id)
    return env_id if single is None else single.agent_env


def run_env_id(env_id: str) -> str | None:
    """The single-agent env that plays `env_id`'s agents against the game's built-in computer
    (one whose `agent_env` is `env_id`: `double_or_nothing_run_v0`), or None."""
    runs = [s for s, one in _SINGLE_AGENT.items() if s != env_id and one.agent_env == env_id]
    return runs[0] if runs else None


def kernel_groups() -> list[tuple[str, ...]]:
    """The env ids whose kernels compile together, for the warm-ups that compile them in
    parallel processes (`evaluation.warm_up`, `card_envs.testing.warm`): the ids of one game
    folder share its kernel files and numba cache (the solo game holds Rummidrez's solver,
    Double or Nothing's run env its game's kernels). The dearest folder to compile comes
    first (`Game.compile_seconds`), so that the processes finish together."""
    folders: dict[str, list[str]] = {}
    cost: dict[str, float] = {}
    for env_id in env_ids():
        folder = kernel_folder(env_id)
        folders.setdefault(folder, []).append(env_id)
        game = _own_game(env_id) if env_id in _SINGLE_AGENT else game_class(env_id)
        seconds = game.compile_seconds if game is not None else 0.0
        cost[folder] = max(cost.get(folder, 0.0), seconds)
    order = sorted(folders, key=lambda folder: (-cost[folder], folder))
    return [tuple(folders[folder]) for folder in order]


def kernel_folder(env_id: str) -> str:
    """The package whose kernels (and numba cache) an id's envs use: its game's folder."""
    single = env_id in _SINGLE_AGENT
    cls = single_agent_env_class(env_id) if single else game_class(env_id)
    return package_of(cls.__module__)


def env_options(env_id: str) -> dict:
    """The options (`core.config.Option`) an id's config takes."""
    if env_id in _SINGLE_AGENT:
        return single_agent_env_class(env_id).options
    return game_class(env_id).options


def make_game(env_id: str, **config: Any) -> Game:
    """The game spec of `env_id` with a validated config. A single-agent env over a one-seat
    game of its own (its `game_type`, as `rummidrez_solo_v0`) gives that game: agents
    (`heuristic`, `ppo`) are built for its observations and actions."""
    return (_own_game(env_id) or game_class(env_id))(**config)


def make(
    env_id: str, render_mode: str | None = None, illegal_action: str = "raise", **config: Any
) -> CardEnv | gymnasium.Env:
    """PettingZoo AEC env of `env_id` (no wrappers needed: order and legality are enforced);
    for a single-agent id, its Gymnasium env."""
    if env_id in _SINGLE_AGENT:
        return single_agent_env_class(env_id)(render_mode, illegal_action, **config)
    return CardEnv(make_game(env_id, **config), render_mode, illegal_action)


def make_parallel(
    env_id: str, render_mode: str | None = None, illegal_action: str = "raise", **config: Any
) -> ParallelEnv:
    """PettingZoo Parallel env of `env_id`: PettingZoo's turn-based conversion of the AEC env.

    Each step applies the action of the one seat to act (the one whose `action_mask` is not
    all zero); the other seats' actions are required but ignored."""
    check_multi_agent(env_id)  # a single-agent or unknown id fails here, naming the ids
    return turn_based_aec_to_parallel(make(env_id, render_mode, illegal_action, **config))


def make_vec(
    env_id: str,
    num_envs: int,
    seed: int | None = None,
    num_threads: int | None = 1,
    **config: Any,
) -> BatchedEnv:
    """Batched env: `num_envs` instances stepped by one compiled call; instance i uses seed+i.
    Multi-agent ids, and single-agent ids over a one-seat game of their own (`make_game`).
    `num_threads` steps the rows on that many of numba's threads (1..usable cores, None:
    all), with the same results as one."""
    return BatchedEnv(make_game(env_id, **config), num_envs, seed, num_threads)


NAMESPACE = "card_envs"  # of our ids in Gymnasium's and PettingZoo's registries


def gym_id(env_id: str) -> str:
    """The Gymnasium id of `env_id`: the env itself for a single-agent id, the single-agent
    view (`SingleAgentEnv`, opponents inside) for a multi-agent one."""
    if env_id in _SINGLE_AGENT:
        return f"{NAMESPACE}/{env_id}"
    check_multi_agent(env_id)
    return f"{NAMESPACE}/{env_id}-single"


def register_envs() -> None:
    """Register every id where other libraries look (`card_envs` does it on import), the
    classes imported only when made: with Gymnasium, so `gymnasium.make(gym_id(env_id))`
    works and sets `env.spec`; with PettingZoo's registry (1.27 on), so
    `pettingzoo.make("aec" or "parallel", "card_envs/<env_id>")` works."""
    if any(gym_id(env_id) in gymnasium.registry for env_id in env_ids()):
        return  # done already (card_envs reloaded): registering again would warn
    for env_id in _GAMES:
        _register_with_libraries(env_id)
    for env_id, single in _SINGLE_AGENT.items():  # those on a batched engine also as rows
        rows = f"card_envs.wrappers.gym_vector:{env_id}" if single.own_game else None
        gymnasium.register(gym_id(env_id), single.path, vector_entry_point=rows)


def _register_with_libraries(env_id: str) -> None:
    """A multi-agent id's single-agent view with Gymnasium, its AEC and Parallel envs with
    PettingZoo (1.27 on; older versions have modules only)."""
    view = "card_envs.wrappers.gym_env:SingleAgentEnv"
    rows = "card_envs.wrappers.gym_vector:learner_rows"  # `gymnasium.make_vec`'s default
    gymnasium.register(gym_id(env_id), view, kwargs={"env_id": env_id}, vector_entry_point=rows)
    if hasattr(pettingzoo, "register"):
        for kind, factory in (("aec", "make"), ("parallel", "make_parallel")):
            pz_id = f"{NAMESPACE}/{env_id}"
            pettingzoo.register(kind, pz_id, f"{__name__}:{factory}", kwargs={"env_id": env_id})


def pettingzoo_module(env_id: str) -> ModuleType:
    """The module `card_envs.<env_id>`, as PettingZoo's own env modules are: `env()` and
    `raw_env()` (the same AEC env, which needs no wrappers) and `parallel_env()`, each taking
    `render_mode`, `illegal_action` and the game's options."""
    check_multi_agent(env_id)
    name = f"{__package__}.{env_id}"
    module = ModuleType(name, f"`{env_id}` the PettingZoo way: env(), raw_env(), parallel_env().")
    module.env = module.raw_env = functools.partial(make, env_id)
    module.parallel_env = functools.partial(make_parallel, env_id)
    module.__all__ = ["env", "parallel_env", "raw_env"]
    sys.modules[name] = module  # so `import card_envs.<env_id>` works too
    return module

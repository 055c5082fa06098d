"""Env ids -> games, and the `make` / `make_parallel` / `make_vec` entry points."""

from __future__ import annotations

from typing import Any

import gymnasium
from pettingzoo import ParallelEnv
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from card_envs.core.aec import CardEnv
from card_envs.core.batched import BatchedEnv
from card_envs.core.engine import Game
from card_envs.games.double_or_nothing import DoubleOrNothing
from card_envs.games.double_or_nothing.run_env import DoubleOrNothingRun
from card_envs.games.no_thanks import NoThanks
from card_envs.games.surfosaurus import Surfosaurus

_GAMES: dict[str, type[Game]] = {g.env_id: g for g in (NoThanks, Surfosaurus, DoubleOrNothing)}
# single-agent Gymnasium envs (a game against a built-in opponent)
_SINGLE_AGENT = {DoubleOrNothingRun.env_id: DoubleOrNothingRun}


def env_ids() -> list[str]:
    """All registered env ids."""
    return sorted([*_GAMES, *_SINGLE_AGENT])


def multi_agent_env_ids() -> list[str]:
    """The ids that have an AEC env and a batched env."""
    return sorted(_GAMES)


def game_class(env_id: str) -> type[Game]:
    if env_id in _SINGLE_AGENT:
        raise ValueError(
            f"{env_id!r} is a single-agent Gymnasium env: use card_envs.make({env_id!r}); "
            f"multi-agent ids are {sorted(_GAMES)}"
        )
    try:
        return _GAMES[env_id]
    except (KeyError, TypeError):
        raise ValueError(f"unknown env id {env_id!r}; known ids are {env_ids()}") from None


def make_game(env_id: str, **config: Any) -> Game:
    """The game spec of `env_id` with a validated config."""
    return game_class(env_id)(**config)


def make(
    env_id: str, render_mode: str | None = None, illegal_action: str = "raise", **config: Any
) -> CardEnv | gymnasium.Env:
    """PettingZoo AEC env of `env_id` (no wrappers needed: order and legality are enforced);
    for a single-agent id, its Gymnasium env."""
    if env_id in _SINGLE_AGENT:
        return _SINGLE_AGENT[env_id](render_mode, illegal_action, **config)
    return CardEnv(make_game(env_id, **config), render_mode, illegal_action)


def make_parallel(
    env_id: str, render_mode: str | None = None, illegal_action: str = "raise", **config: Any
) -> ParallelEnv:
    """PettingZoo Parallel env of `env_id`: PettingZoo's turn-based conversion of the AEC env.

    Each step applies the action of the one seat to act (the one whose `action_mask` is not
    all zero); the other seats' actions are required but ignored."""
    game_class(env_id)  # a single-agent or unknown id fails here, naming the multi-agent ids
    return turn_based_aec_to_parallel(make(env_id, render_mode, illegal_action, **config))


def make_vec(env_id: str, num_envs: int, seed: int | None = None, **config: Any) -> BatchedEnv:
    """Batched env: `num_envs` instances stepped by one compiled call; instance i uses seed+i."""
    return BatchedEnv(make_game(env_id, **config), num_envs, seed)

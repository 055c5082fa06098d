"""Evaluation on a single-agent env (e.g. Double or Nothing's runs): an agent's mean return
over seeded episodes, with its t-interval."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from card_envs.agents import Agent, make_agent
from card_envs.agents.human import check_unattended
from card_envs.evaluation.arena import agent_label, check_seed
from card_envs.evaluation.stats import t_interval
from card_envs.registry import make


@dataclass(frozen=True)
class EpisodeStats:
    """An agent's returns over episodes of a single-agent env (e.g. games won per run)."""

    env_id: str
    agent: str
    episodes: int
    mean_return: float
    mean_return_ci: tuple[float, float]
    returns: np.ndarray = field(repr=False, compare=False)
    lengths: np.ndarray = field(repr=False, compare=False)  # the agent's decisions per episode
    ms_per_move: float = float("nan")  # its wall time per decision


def evaluate_episodes(
    env_id: str,
    agent: str | Agent,
    episodes: int = 300,
    seed: int = 0,
    confidence: float = 0.95,
    **config: Any,
) -> EpisodeStats:
    """Mean return of `agent` over `episodes` episodes of the single-agent env `env_id`
    (episode e is reset with seed `seed + e`), with a t-interval. The episodes run side by
    side and the agent acts for all live ones at once, as in `evaluate`. Agent specs are built for
    the env's `agent_env` (the multi-agent env with the same observations and actions)."""
    if isinstance(episodes, bool) or not isinstance(episodes, int) or episodes < 1:
        raise ValueError(f"episodes must be a positive int, got {episodes!r}")
    seed = check_seed(seed)
    env = make(env_id, **config)
    if not hasattr(env, "action_masks"):
        raise ValueError(f"{env_id} is not a single-agent env with action masks")
    actor = make_agent(agent, getattr(env, "agent_env", env_id), seed=seed)
    check_unattended(actor, "evaluate_episodes")
    actor.reset()
    # all episodes side by side, so the agent is asked once per step for all that are live
    envs = [env] + [make(env_id, **config) for _ in range(episodes - 1)]
    obs = [e.reset(seed=seed + i)[0] for i, e in enumerate(envs)]
    live = list(range(episodes))
    returns = np.zeros(episodes)
    lengths = np.zeros(episodes, dtype=np.int64)
    thinking = 0.0
    while live:
        t0 = time.perf_counter()
        actions = actor.act_batch(
            np.stack([obs[i] for i in live]), np.stack([envs[i].action_masks() for i in live])
        )
        thinking += time.perf_counter() - t0
        still = []
        for i, action in zip(live, actions, strict=True):
            obs[i], reward, terminated, truncated, _ = envs[i].step(int(action))
            returns[i] += reward
            lengths[i] += 1
            if not (terminated or truncated):
                still.append(i)
        live = still
    mean, ci = t_interval(returns, confidence)
    ms = 1000 * thinking / max(int(lengths.sum()), 1)
    return EpisodeStats(env_id, agent_label(agent), episodes, mean, ci, returns, lengths, ms)

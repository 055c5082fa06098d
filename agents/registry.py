"""Agent spec strings -> agents."""

from __future__ import annotations

from typing import Any

from agents.base import Agent
from agents.heuristic import ComputerAgent, HeuristicAgent
from agents.random_agent import RandomAgent
from card_envs.registry import make_game

_KINDS = ("random", "heuristic", "computer")


def agent_kinds() -> tuple[str, ...]:
    return _KINDS


def make_agent(spec: str | Agent, env_id: str, seed: int | None = None, **config: Any) -> Agent:
    """The agent named by `spec` for `env_id` (an Agent passes through unchanged)."""
    if isinstance(spec, Agent):
        return spec
    if spec == "random":
        return RandomAgent(seed)
    if spec == "heuristic":
        return HeuristicAgent(make_game(env_id, **config))
    if spec == "computer":
        return ComputerAgent(make_game(env_id, **config))
    raise ValueError(f"unknown agent spec {spec!r}; known agents are {list(_KINDS)}")

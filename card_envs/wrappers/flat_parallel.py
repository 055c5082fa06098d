"""The Parallel env with flat observations and the action masks in the infos, for AgileRL
and SuperSuit.

The PettingZoo envs observe `{"observation": vector, "action_mask": mask}`. AgileRL's
multi-agent algorithms (IPPO, MADDPG, MATD3) read each agent's mask from
`infos[agent]["action_mask"]` and refuse observations that hold one ("AgileRL requires action
masks to be defined in the information dictionary"); SuperSuit's observation wrappers refuse
`Dict` observation spaces. `FlatParallelEnv` gives each agent its observation vector alone, in
the `Box` of the `"observation"` entry, and puts the mask into that agent's infos, for every
agent on every `reset` and `step`. Everything else (actions, rewards, terminations, `state()`,
illegal actions) is the wrapped env's.

The games are turn-based: only the seat to act has legal actions, the others get an all-zero
mask and their actions are ignored (see `card_envs.make_parallel`).
"""

from __future__ import annotations

from typing import Any

import gymnasium
from pettingzoo import ParallelEnv
from pettingzoo.utils.wrappers import BaseParallelWrapper

from card_envs.registry import make_parallel

Obs = dict[str, dict[str, Any]]
Infos = dict[str, dict[str, Any]]


class FlatParallelEnv(BaseParallelWrapper):
    """A card_envs Parallel env (`card_envs.make_parallel`) whose observations are the
    `"observation"` vectors, with each agent's `"action_mask"` in `infos[agent]`."""

    def __init__(self, env: ParallelEnv) -> None:
        super().__init__(env)
        self._spaces: dict[str, gymnasium.spaces.Space] = {}

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        """The `Box` of the wrapped env's `"observation"` entry (the same object every call)."""
        if agent not in self._spaces:
            self._spaces[agent] = self.env.observation_space(agent)["observation"]
        return self._spaces[agent]

    @property
    def observation_spaces(self) -> dict[str, gymnasium.spaces.Space]:
        """PettingZoo's older dict of the spaces (otherwise the wrapped env's would show)."""
        return {agent: self.observation_space(agent) for agent in self.possible_agents}

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], Infos]:
        """The wrapped env's reset, with each agent's mask moved into its infos."""
        obs, infos = self.env.reset(seed=seed, options=options)
        return _split(obs, infos)

    def step(
        self, actions: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], Infos]:
        """The wrapped env's step (the same actions, rewards, terminations and errors), with
        each agent's mask moved into its infos."""
        obs, rewards, terminations, truncations, infos = self.env.step(actions)
        flat, infos = _split(obs, infos)
        return flat, rewards, terminations, truncations, infos


def _split(obs: Obs, infos: Infos) -> tuple[dict[str, Any], Infos]:
    """The observation vectors, and new info dicts with the masks (the wrapped env's info
    dicts are its AEC env's own, so they are copied rather than written to)."""
    infos = {agent: dict(info) for agent, info in infos.items()}
    for agent, one in obs.items():
        infos.setdefault(agent, {})["action_mask"] = one["action_mask"]
    return {agent: one["observation"] for agent, one in obs.items()}, infos


def make_flat_parallel(
    env_id: str, render_mode: str | None = None, illegal_action: str = "raise", **config: Any
) -> FlatParallelEnv:
    """`card_envs.make_parallel(env_id, ...)` with flat observations and the masks in the
    infos (`FlatParallelEnv`): what AgileRL and SuperSuit's observation wrappers take."""
    return FlatParallelEnv(make_parallel(env_id, render_mode, illegal_action, **config))

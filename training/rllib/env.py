"""Our games as RLlib `MultiAgentEnv`s: one engine row, stepped by the game's kernels.

Agents are `seat_0` .. `seat_{n-1}`. Turn-based as RLlib expects: `reset` and `step` return
the observation of the seat to act only; when the game ends every seat gets its last
observation and its reward (RLlib sums a seat's rewards between its observations). An
observation is a dict of `observations` (the game's float32 vector) and `action_mask`
(float32 0/1, the key name RLlib's action-masking modules read).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from card_envs.core import layout
from card_envs.registry import make_game


def agent_id(seat: int) -> str:
    return f"seat_{seat}"


def observation_space(game) -> gym.spaces.Dict:
    low, high = game.obs_bounds()
    return gym.spaces.Dict({
        "observations": gym.spaces.Box(low, high, dtype=np.float32),
        "action_mask": gym.spaces.Box(0.0, 1.0, (game.num_actions,), dtype=np.float32),
    })  # fmt: skip


class TurnEnv(MultiAgentEnv):
    """`env_id` with `config` (RLlib's env_config: `{"env_id": ..., **options}`)."""

    def __init__(self, env_config: dict[str, Any]) -> None:
        super().__init__()
        config = dict(env_config)
        self.game = make_game(config.pop("env_id"), **config)
        n = self.game.num_players
        self.possible_agents = [agent_id(p) for p in range(n)]
        self.agents = list(self.possible_agents)
        space = observation_space(self.game)
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {
            a: gym.spaces.Discrete(self.game.num_actions) for a in self.possible_agents
        }
        self._row = self.game.new_row()
        self._obs = np.zeros(self.game.obs_size, dtype=np.float32)
        self._mask = np.zeros(self.game.num_actions, dtype=np.int8)
        self._rewards = np.zeros(n, dtype=np.float32)
        self._seeded = False

    def _observe(self, seat: int) -> dict[str, np.ndarray]:
        kernels = type(self.game)
        kernels.observe_kernel(self._row, seat, self._obs)
        kernels.legal_kernel(self._row, self._mask)
        if seat != self._row[layout.PLAYER]:
            self._mask[:] = 0
        return {"observations": self._obs.copy(), "action_mask": self._mask.astype(np.float32)}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is None and not self._seeded:
            seed = int(np.random.SeedSequence().entropy % (1 << 62))
        self._seeded = True
        self.game.reset_row(self._row, seed)
        self.agents = list(self.possible_agents)
        seat = int(self._row[layout.PLAYER])
        return {agent_id(seat): self._observe(seat)}, {}

    def step(self, action_dict: dict[str, int]):
        seat = int(self._row[layout.PLAYER])
        action = int(action_dict[agent_id(seat)])
        # self._mask is the acting seat's, from its observation (all zero once over)
        if not 0 <= action < self.game.num_actions or not self._mask[action]:
            legal = np.flatnonzero(self._mask).tolist()
            raise ValueError(
                f"{self.game.env_id}: illegal action {action} for seat {seat}; legal: {legal}"
            )
        self._rewards[:] = 0.0
        type(self.game).step_kernel(self._row, action, self._rewards)
        status = self._row[layout.STATUS]
        if status == layout.RUNNING:
            nxt = int(self._row[layout.PLAYER])
            a = agent_id(nxt)
            obs = {a: self._observe(nxt)}
            # the seat to act gets its reward too (0): RLlib wants one with every observation
            # of a seat that acted before
            rewards = {agent_id(p): float(r) for p, r in enumerate(self._rewards) if r or p == nxt}
            return obs, rewards, {"__all__": False}, {"__all__": False}, {}
        every = range(self.game.num_players)
        obs = {agent_id(p): self._observe(p) for p in every}
        rewards = {agent_id(p): float(self._rewards[p]) for p in every}
        over = status == layout.TERMINATED
        terminated = {agent_id(p): over for p in every} | {"__all__": over}
        truncated = {agent_id(p): not over for p in every} | {"__all__": not over}
        self.agents = []
        return obs, rewards, terminated, truncated, {}

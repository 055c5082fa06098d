"""The learner's seat as a Stable-Baselines3 `VecEnv` over the batched engine."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from agents import Agent
from card_envs.core.spaces import LegalSampling
from card_envs.wrappers.learner import LearnerSeats


class SingleAgentVecEnv(LegalSampling, VecEnv):
    """`num_envs` games stepped by one engine call, the learner in one seat of each.

    Opponents' actions are computed in batches. `opponents` is one spec or agent for every
    other seat, one per other seat, or with `pool_weights` a pool every other seat of every
    game draws from (`driver.set_pool` replaces it, e.g. with fresh self-play snapshots).
    Works with sb3-contrib `MaskablePPO` through `action_masks()`. Finished games are reset
    at once; `infos[i]` of an instance whose game ended has `terminal_observation`,
    `score`, `win`, `seat` and `episode` (r, l).
    """

    def __init__(
        self,
        env_id: str,
        num_envs: int,
        opponents: str | Agent | Sequence[str | Agent] = "random",
        seat: int | str = "rotate",
        seed: int | None = None,
        pool_weights: Sequence[float] | None = None,
        **config: Any,
    ) -> None:
        self.driver = LearnerSeats.create(
            env_id, num_envs, opponents, seat, seed, pool_weights, **config
        )
        self._venv = self.driver.venv
        self.render_mode = None
        super().__init__(
            num_envs,
            self.driver.observation_space(),
            self._legal_action_space(self._venv.num_actions),
        )
        self._seed = seed
        self._actions: np.ndarray | None = None
        self._ep_return = np.zeros(num_envs)
        self._ep_len = np.zeros(num_envs, dtype=np.int64)

    def reset(self) -> np.ndarray:
        self.driver.reset(self._seed)
        self._seed = None
        self._ep_return[:] = 0
        self._ep_len[:] = 0
        return self._venv.observations.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)

    def step_wait(self):
        rewards, terminated, truncated, infos = self.driver.step(self._actions)
        self._ep_return += rewards
        self._ep_len += 1
        dones = terminated | truncated
        for i in np.flatnonzero(dones):
            infos[i]["episode"] = {"r": float(self._ep_return[i]), "l": int(self._ep_len[i])}
            infos[i]["TimeLimit.truncated"] = bool(truncated[i])
            self._ep_return[i] = 0
            self._ep_len[i] = 0
        return self._venv.observations.copy(), rewards.astype(np.float32), dones, infos

    def action_masks(self) -> np.ndarray:
        return self._venv.action_masks.astype(bool)

    def _sample_mask(self) -> np.ndarray:
        """Instance 0's legal actions: what a plain `action_space.sample()` draws among."""
        return self._venv.action_masks[0]

    def seed(self, seed: int | None = None) -> list[None]:
        self._seed = seed
        return [None] * self.num_envs

    def close(self) -> None:
        pass

    def get_attr(self, attr_name: str, indices=None) -> list:
        return [getattr(self, attr_name)] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *args, indices=None, **kwargs) -> list:
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in self._indices(indices)]
        raise AttributeError(f"SingleAgentVecEnv has no per-env method {method_name!r}")

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(self._indices(indices))

    def _indices(self, indices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        return [indices] if isinstance(indices, int) else list(indices)

"""The learner's seat as a Stable-Baselines3 `VecEnv` over the batched engine, for one
config (`SingleAgentVecEnv`) or several at once (`MixedVecEnv`, padded observations)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from card_envs.agents import Agent
from card_envs.core.padding import Padding
from card_envs.core.spaces import LegalSampling
from card_envs.wrappers.learner import LearnerSeats


class _OneVecEnv(LegalSampling, VecEnv):
    """What SB3 asks of every VecEnv that these envs answer the same way (one class of
    instances, no per-instance wrappers or attributes)."""

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
        raise AttributeError(f"{type(self).__name__} has no per-env method {method_name!r}")

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(self._indices(indices))

    def _indices(self, indices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        return [indices] if isinstance(indices, int) else list(indices)

    def action_masks(self) -> np.ndarray:
        raise NotImplementedError


class SingleAgentVecEnv(_OneVecEnv):
    """`num_envs` games stepped by one engine call, the learner in one seat of each.

    Opponents' actions are computed in batches. `opponents` is one spec or agent for every
    other seat, one per other seat, or with `pool_weights` a pool every other seat of every
    game draws from (`driver.set_pool` replaces it, e.g. with fresh self-play snapshots).
    Works with sb3-contrib `MaskablePPO` through `action_masks()`. Finished games are reset
    at once; `infos[i]` of an instance whose game ended has `terminal_observation`,
    `score`, `win`, `seat`, `opponents` (the specs of the agents at its other seats) and
    `episode` (r, l). With `pad=True` observations are padded
    to the layout every config of the game shares (`core.padding`). `num_threads` steps the
    games on that many threads (`make_vec`; the opponents' batches stay on one).
    """

    def __init__(
        self,
        env_id: str,
        num_envs: int,
        opponents: str | Agent | Sequence[str | Agent] = "random",
        seat: int | str = "rotate",
        seed: int | None = None,
        pool_weights: Sequence[float] | None = None,
        pad: bool = False,
        num_threads: int | None = 1,
        **config: Any,
    ) -> None:
        self.driver = LearnerSeats.create(
            env_id, num_envs, opponents, seat, seed, pool_weights, num_threads, **config
        )
        self._venv = self.driver.venv
        self.render_mode = None
        game = self._venv.game
        self.padding = Padding(game) if pad else None
        space = self.driver.observation_space(self.padding)
        super().__init__(num_envs, space, self._legal_action_space(self._venv.num_actions))
        self._seed = seed
        self._actions: np.ndarray | None = None
        self._ep_return = np.zeros(num_envs)
        self._ep_len = np.zeros(num_envs, dtype=np.int64)

    def reset(self) -> np.ndarray:
        self.driver.reset(self._seed)
        self._seed = None
        self._ep_return[:] = 0
        self._ep_len[:] = 0
        return self._observations(self._venv.observations)

    def _observations(self, observations: np.ndarray) -> np.ndarray:
        return observations.copy() if self.padding is None else self.padding(observations)

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
            infos[i]["terminal_observation"] = self._observations(infos[i]["terminal_observation"])
            self._ep_return[i] = 0
            self._ep_len[i] = 0
        observations = self._observations(self._venv.observations)
        return observations, rewards.astype(np.float32), dones, infos

    def action_masks(self) -> np.ndarray:
        return self._venv.action_masks.astype(bool)

    @property
    def parts(self) -> list[SingleAgentVecEnv]:
        """The one config's env (a `MixedVecEnv` has one per config)."""
        return [self]

    @property
    def seconds(self) -> dict[str, float]:
        """Engine and opponent wall seconds of the driver (training reports them)."""
        return dict(self.driver.seconds)

    def _sample_mask(self) -> np.ndarray:
        """Instance 0's legal actions: what a plain `action_space.sample()` draws among."""
        return self._venv.action_masks[0]

    def seed(self, seed: int | None = None) -> list[None]:
        self._seed = seed
        return [None] * self.num_envs


class MixedVecEnv(_OneVecEnv):
    """Several `SingleAgentVecEnv`s of one game with padded observations (one per config,
    e.g. every player count) as one VecEnv: instances of part 0 first, then part 1, ...
    A policy trained on it plays every one of those configs."""

    def __init__(self, parts: Sequence[SingleAgentVecEnv]) -> None:
        if not parts or any(p.padding is None for p in parts):
            raise ValueError("MixedVecEnv needs one or more parts, all with pad=True")
        if len({(p._venv.env_id, p.observation_space.shape) for p in parts}) != 1:
            raise ValueError("MixedVecEnv parts must be configs of one game")
        self.parts = list(parts)
        self._ends = np.cumsum([p.num_envs for p in parts])
        self.render_mode = None
        super().__init__(
            int(self._ends[-1]),
            parts[0].observation_space,
            self._legal_action_space(int(parts[0].action_space.n)),
        )

    @property
    def seconds(self) -> dict[str, float]:
        """Engine and opponent wall seconds of every part's driver, summed (training
        reports them)."""
        return {
            key: sum(p.driver.seconds[key] for p in self.parts) for key in ("engine", "opponents")
        }

    def reset(self) -> np.ndarray:
        return np.concatenate([p.reset() for p in self.parts])

    def step_async(self, actions: np.ndarray) -> None:
        actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)
        for part, chunk in zip(self.parts, np.split(actions, self._ends[:-1]), strict=True):
            part.step_async(chunk)

    def step_wait(self):
        results = [p.step_wait() for p in self.parts]
        obs, rewards, dones, infos = zip(*results, strict=True)
        flat = [info for part in infos for info in part]
        return np.concatenate(obs), np.concatenate(rewards), np.concatenate(dones), flat

    def action_masks(self) -> np.ndarray:
        return np.concatenate([p.action_masks() for p in self.parts])

    def _sample_mask(self) -> np.ndarray:
        return self.parts[0]._sample_mask()

    def seed(self, seed: int | None = None) -> list[None]:
        for k, part in enumerate(self.parts):
            part.seed(None if seed is None else seed + k)
        return [None] * self.num_envs

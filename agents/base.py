"""The agent interface shared by evaluation, tournaments, wrappers and training."""

from __future__ import annotations

import numpy as np


class Agent:
    """Chooses actions from observations and action masks.

    `act_batch` is the primitive: environments ask all instances that wait for this agent at
    once. `act` is the single-observation convenience built on it.
    """

    name: str = "agent"
    spec: str = "agent"

    def reset(self) -> None:
        """Called at the start of each game (stateless agents ignore it)."""

    def reseed(self, seed: int | None) -> None:
        """Restart the agent's own random stream, so that an env reset with a seed replays
        the same games (agents that draw no random numbers ignore it)."""

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self.act_batch(observation[None], action_mask[None])[0])

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec!r}>"

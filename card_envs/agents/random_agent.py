"""Uniformly random legal play: the floor every other agent must clear."""

from __future__ import annotations

import numpy as np

from card_envs.agents.base import Agent


class RandomAgent(Agent):
    name = spec = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)

    def reseed(self, seed: int | None) -> None:
        self._rng = np.random.default_rng(seed)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        # every legal action gets a key in [1, 2), every illegal one 0: argmax is uniform
        keys = (masks != 0) * (1.0 + self._rng.random(masks.shape))
        return np.argmax(keys, axis=1)

"""Action spaces that know the legal actions."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from gymnasium import spaces


class LegalDiscrete(spaces.Discrete):
    """`Discrete(n)` whose `sample()` without a mask draws among the env's legal actions.

    Single-agent envs refuse illegal actions with an error, so a plain `sample()` (as
    Gymnasium's env checker and many scripts use) must only offer legal ones.
    """

    def __init__(self, n: int, legal_mask: Callable[[], np.ndarray], seed: int | None = None):
        super().__init__(n, seed=seed)
        self._legal_mask = legal_mask

    def sample(self, mask: np.ndarray | None = None, probability: np.ndarray | None = None):
        if mask is None and probability is None:
            mask = np.asarray(self._legal_mask(), dtype=np.int8)
        return super().sample(mask=mask, probability=probability)

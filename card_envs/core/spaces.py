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

    def __reduce__(self):
        """Pickles (e.g. inside a saved SB3 model) as the plain `Discrete(n)` it is: the
        legal-mask function belongs to a live env and would drag the whole env along."""
        return (spaces.Discrete, (int(self.n), None, int(self.start)))

    def sample(self, mask: np.ndarray | None = None, probability: np.ndarray | None = None):
        if mask is None and probability is None:
            mask = np.asarray(self._legal_mask(), dtype=np.int8)
        return super().sample(mask=mask, probability=probability)

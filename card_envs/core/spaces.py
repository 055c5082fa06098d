"""Actions: what counts as one, and action spaces that know the legal actions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces


def as_action(action: Any, num_actions: int, where: str) -> int:
    """`action` as an int. Python and numpy integers count, and so do 0-d integer arrays (what
    SB3's `model.predict` returns for one observation); floats, bools and arrays of actions
    raise `ValueError` naming the action, so a wrong call never plays a truncated guess."""
    if isinstance(action, np.ndarray) and action.ndim == 0 and action.dtype.kind in "iu":
        action = action[()]
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise ValueError(
            f"{where}: action {action!r} must be an int in 0..{num_actions - 1} (a Python or "
            "numpy integer, or a 0-d integer array)"
        )
    return int(action)


class LegalDiscrete(spaces.Discrete):
    """`Discrete(n)` whose `sample()` without a mask draws among the env's legal actions.

    Single-agent envs refuse illegal actions with an error, so a plain `sample()` (as
    Gymnasium's env checker and many scripts use) must only offer legal ones.
    """

    def __init__(self, n: int, legal_mask: Callable[[], np.ndarray], seed: int | None = None):
        super().__init__(n, seed=seed)
        self._legal_mask = legal_mask

    def __reduce__(self):
        """Pickles (e.g. inside a saved SB3 model) as the plain `Discrete(n)` it is, with its
        random stream: the legal-mask function belongs to a live env and would drag the whole
        env along. An env that is copied binds it again (`LegalSampling`)."""
        state = {"start": self.start, "_np_random": self._np_random}
        return (spaces.Discrete, (int(self.n), None, int(self.start)), state)

    def sample(self, mask: np.ndarray | None = None, probability: np.ndarray | None = None):
        if mask is None and probability is None:
            mask = np.asarray(self._legal_mask(), dtype=np.int8)
        return super().sample(mask=mask, probability=probability)


class LegalSampling:
    """Base of the single-agent envs, whose `action_space` is a `LegalDiscrete` over
    `_sample_mask()`: a copy (pickle, deepcopy) gets back the plain `Discrete` that a
    `LegalDiscrete` pickles as, and binds it to its own masks again here."""

    action_space: spaces.Space

    def _legal_action_space(self, n: int) -> LegalDiscrete:
        return LegalDiscrete(n, self._sample_mask)

    def _sample_mask(self) -> np.ndarray:
        """The mask that `action_space.sample()` draws from."""
        raise NotImplementedError

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        plain = self.action_space
        self.action_space = self._legal_action_space(int(plain.n))
        self.action_space._np_random = plain._np_random

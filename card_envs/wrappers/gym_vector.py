"""The learner's seat as a native Gymnasium `VectorEnv` over the batched engine: what
`gymnasium.make_vec("card_envs/<env_id>-single", num_envs=N, ...)` returns.

One engine call steps every row; the opponents are played inside, in batches, as in the
SB3 view (`LearnerSeats`). Rows behave exactly as `vectorization_mode="sync"`'s one-instance
envs do (same deals for the same seeds, same observations, rewards and infos with
deterministic opponents), except that with `seat="rotate"` row i starts at seat i mod
num_players (each sync env starts at seat 0).

Autoreset (`metadata["autoreset_mode"]`): `NEXT_STEP` by default, Gymnasium's own default: the
step that ends a row's game returns that game's last observation with `terminated` or
`truncated`; the next step ignores the row's action and returns the new game's first
observation, reward 0, and its `action_mask`. `autoreset_mode="same_step"` (a keyword of
this env: Gymnasium refuses `vector_kwargs` for a vector entry point) returns the new game's
first observation at once, the last one in `info["final_obs"]` and the end's info in
`info["final_info"]`.

Infos, as Gymnasium batches them (each key with its `_key` mask of rows that have it):
`action_mask` (num_envs, num_actions) int8 and `seat` every step for rows in a game; where a
game ended, `score`, `win` (the learner's share of the win), `seat`, `truncated` and
`opponents` (the specs in the other seats).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from card_envs.agents import Agent
from card_envs.core.padding import Padding
from card_envs.core.spaces import LegalSampling
from card_envs.wrappers.learner import LearnerSeats

MODES = {"next_step": AutoresetMode.NEXT_STEP, "same_step": AutoresetMode.SAME_STEP}


class LearnerVectorEnv(LegalSampling, VectorEnv):
    """`num_envs` rows of the learner's seat, one engine call a step (see the module doc)."""

    def __init__(
        self,
        env_id: str,
        num_envs: int,
        opponents: str | Agent | Sequence[str | Agent] = "random",
        seat: int | str = "rotate",
        seed: int | None = None,
        autoreset_mode: str | AutoresetMode = "next_step",
        pad: bool = False,
        num_threads: int | None = 1,
        illegal_action: str = "raise",
        **config: Any,
    ) -> None:
        mode = MODES.get(autoreset_mode, autoreset_mode)
        if mode not in MODES.values():
            raise ValueError(
                f"autoreset_mode={autoreset_mode!r} is not one of {list(MODES)} "
                "(or their gymnasium.vector.AutoresetMode)"
            )
        if illegal_action != "raise":
            raise ValueError(
                f"illegal_action={illegal_action!r}: a vector env refuses an illegal action "
                "with an error naming its row ('raise')"
            )
        self.metadata = {"autoreset_mode": mode, "render_modes": []}
        self.render_mode = None
        self.driver = LearnerSeats.create(
            env_id, num_envs, opponents, seat, seed, None, num_threads, **config
        )
        self._venv = self.driver.venv
        game = self._venv.game
        self.num_envs = self._venv.num_envs
        self.padding = Padding(game) if pad else None
        self.single_observation_space = self.driver.observation_space(self.padding)
        self.single_action_space = self._legal_action_space(self._venv.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(
            gymnasium.spaces.Discrete(self._venv.num_actions), self.num_envs
        )
        self._seed = seed
        self._autoreset = np.zeros(self.num_envs, dtype=bool)

    def _observe(self, observations: np.ndarray) -> np.ndarray:
        return observations.copy() if self.padding is None else self.padding(observations)

    def reset(
        self, *, seed: int | Sequence[int] | None = None, options: dict | None = None
    ) -> tuple[np.ndarray, dict]:
        """New games in every row. `seed`: an int seeds row i with seed + i, a list one seed
        per row; None continues every row's random stream (the constructor's seed first)."""
        if options:
            raise ValueError(f"reset options {sorted(options)}: this env takes none")
        seed = self._seed if seed is None else seed
        self._seed = None
        self.driver.reset(seed)
        self._autoreset[:] = False
        return self._observe(self._venv.observations), self._common(np.zeros(self.num_envs, bool))

    def step(self, actions: Any):
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or actions.dtype.kind not in "iu":
            raise ValueError(
                f"{self._venv.env_id}: actions must be {self.num_envs} integers, one per row; "
                f"got shape {actions.shape}, dtype {actions.dtype}"
            )
        acting = ~self._autoreset
        self._check(actions, acting)
        chosen = np.where(acting, actions, -1).astype(np.int64)  # SKIP: the row waits
        rewards, terminated, truncated, ends = self.driver.step(chosen)
        ended = terminated | truncated
        same_step = self.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
        observations = self._observe(self._venv.observations)
        infos = self._common(np.zeros(self.num_envs, bool) if same_step else ended)
        for i in np.flatnonzero(ended):
            end = dict(ends[i])
            last = self._observe(end.pop("terminal_observation")[None])[0]
            if same_step:
                infos = self._add_info(infos, {"final_obs": last, "final_info": end}, i)
            else:
                observations[i] = last
                infos = self._add_info(infos, end, i)
        if not same_step:
            self._autoreset = ended
        return observations, rewards.astype(np.float64), terminated, truncated, infos

    def _check(self, actions: np.ndarray, acting: np.ndarray) -> None:
        """An illegal action in an acting row is refused, naming the row, before any row
        moves."""
        masks = self._venv.action_masks
        inside = (actions >= 0) & (actions < masks.shape[1])
        legal = inside & (masks[np.arange(self.num_envs), np.where(inside, actions, 0)] > 0)
        bad = np.flatnonzero(acting & ~legal)
        if len(bad):
            i = int(bad[0])
            raise ValueError(
                f"{self._venv.env_id}: illegal action {int(actions[i])} in row {i}; legal "
                f"there are {np.flatnonzero(masks[i]).tolist()} (no row has moved)"
            )

    def _common(self, ended: np.ndarray) -> dict:
        """The keys every row in a game has (a row whose game just ended has the end's
        keys instead, `step`)."""
        live = ~ended
        if not live.any():  # as Gymnasium batches infos: a key no row has is left out
            return {}
        masks = np.where(live[:, None], self._venv.action_masks, 0).astype(np.int8)
        seats = np.where(live, self.driver.seat, 0).astype(np.int64)
        return {"action_mask": masks, "_action_mask": live.copy(), "seat": seats, "_seat": live}

    def action_masks(self) -> np.ndarray:
        """Each row's legal actions (for MaskablePPO-style code)."""
        return self._venv.action_masks.astype(bool)

    def _sample_mask(self) -> np.ndarray:
        return self._venv.action_masks[0]

    def close_extras(self, **kwargs: Any) -> None:
        pass

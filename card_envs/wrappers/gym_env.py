"""The learner's seat as a Gymnasium env, opponents played inside it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np

from card_envs.agents import Agent
from card_envs.core.aec import RENDER_FPS, check_modes, render_row
from card_envs.core.spaces import LegalSampling, as_action
from card_envs.core.views import SeatViews
from card_envs.wrappers.learner import LearnerSeats


class SingleAgentEnv(SeatViews, LegalSampling, gymnasium.Env):
    """One game at a time from the learner's seat; `action_masks()` for MaskablePPO.

    Observations are the game's observation vector; `info["action_mask"]` and
    `action_masks()` give the legal actions. Rewards are the learner seat's rewards. An
    illegal action raises, or with `illegal_action="penalize"` gives -1 and ends the episode
    (what Gymnasium's env checker, which samples unmasked actions, expects). `render()` shows
    the table from the learner's seat, the end of the game after the episode's last step;
    so do `view()` and `view_text()` in words and as JSON, with `legal_moves()` and
    `parse_action(text)` for the learner's move (`core.views.SeatViews`).
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": RENDER_FPS}

    def __init__(
        self,
        env_id: str,
        opponents: str | Agent | Sequence[str | Agent] = "random",
        seat: int | str = "rotate",
        seed: int | None = None,
        illegal_action: str = "raise",
        render_mode: str | None = None,
        **config: Any,
    ) -> None:
        check_modes(render_mode, self.metadata["render_modes"], illegal_action)
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self._driver = LearnerSeats.create(env_id, 1, opponents, seat, seed, **config)
        self._driver.keep_final_rows = True  # the end of a game, for render() and view()
        self._ended_seat: int | None = None  # the learner's seat in the game just ended
        self._venv = self._driver.venv
        self.observation_space = self._driver.observation_space()
        self.action_space = self._legal_action_space(self._venv.num_actions)
        self._seed = seed
        self._over = False  # the episode ended; the engine has dealt the next game
        self._started = False

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """A new game. Without a seed after a finished episode, the game the engine dealt
        next from the env's random stream (as the batched views and `gymnasium.make_vec`'s
        rows play on); otherwise a deal from `seed` (or the stream)."""
        super().reset(seed=seed)
        seed = self._seed if seed is None else seed
        if seed is not None or not self._over:
            self._driver.reset(seed)
        self._seed = None  # later resets continue the env's own random stream
        self._ended_seat = None
        self._over = False
        self._started = True
        return self._venv.observations[0].copy(), self._info()

    def step(self, action: int):
        a = as_action(action, self._venv.num_actions, self._venv.env_id)
        if not 0 <= a < self._venv.num_actions or not self._venv.action_masks[0, a]:
            if self.illegal_action == "raise":
                legal = np.flatnonzero(self._venv.action_masks[0]).tolist()
                raise ValueError(f"{self._venv.env_id}: illegal action {a}; legal are {legal}")
            return self._venv.observations[0].copy(), -1.0, True, False, {"illegal_action": True}
        rewards, terminated, truncated, infos = self._driver.step([a])
        info = infos[0]
        self._ended_seat = None
        if terminated[0] or truncated[0]:
            obs = info.pop("terminal_observation")
            self._ended_seat = info["seat"]
            self._over = True
        else:
            obs = self._venv.observations[0].copy()
            info = self._info()
        return obs, float(rewards[0]), bool(terminated[0]), bool(truncated[0]), info

    def describe_action(self, action: int) -> str:
        """The learner's `action` in words, in the current position (`Game.describe_action`)."""
        return self._venv.game.describe_action(self._venv.states[0], action)

    def _position(self) -> tuple[np.ndarray, int]:
        """The learner's row and seat: the finished game's after the episode's last step."""
        if self._ended_seat is not None:
            return self._driver.final_rows[0], self._ended_seat
        return self._venv.states[0], int(self._driver.seat[0])

    def _faces(self):
        if not self._started:
            raise RuntimeError(f"{self._venv.env_id}: call reset() before reading the table")
        return (self._venv.game, *self._position())

    def render(self) -> str | np.ndarray | None:
        """The table from the learner's seat (see `render_row`)."""
        row, seat = self._position()
        return render_row(self._venv.game, row, seat, self.render_mode)

    def action_masks(self) -> np.ndarray:
        return self._venv.action_masks[0].astype(bool)

    def _sample_mask(self) -> np.ndarray:
        return self._venv.action_masks[0]

    def _info(self) -> dict:
        return {"action_mask": self._venv.action_masks[0].copy(), "seat": int(self._driver.seat[0])}

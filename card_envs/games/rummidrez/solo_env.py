"""`rummidrez_solo_v0`: the solo variant of Rummidrez as a single-agent Gymnasium env.

The game is `RummidrezSolo` (spec.py) on the Rummidrez engine: one seat, no draw phase and no
discard. The first melding phase starts with 14 cards; every END_MELD that leaves cards in
hand is followed by one automatic draw. The episode ends when the hand is empty (score = the
cards on the table = the cards drawn) or when the deck is empty after a melding phase (score
= 112 + the cards in hand). The only reward is -score, at the last step; the best score is
fixed by the shuffle (the first t drawn cards that form a valid table), so a policy can at
best tie the exact solver.

Observations, actions and options are those of `RummidrezSolo` (see `engine.obs_slices(1)`
and the engine's action ids; DRAW, TAKE and DISCARD are never legal here). An illegal action
raises, or with `illegal_action="penalize"` ends the episode with the worst score, 224
(-1 as in PettingZoo would beat every game played to its end, so a learner would take it).
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium
import numpy as np

from card_envs.core import layout
from card_envs.core.aec import RENDER_FPS, check_modes, render_row
from card_envs.core.engine import Game
from card_envs.core.spaces import LegalSampling, as_action
from card_envs.core.views import SeatViews
from card_envs.games.rummidrez import engine as k
from card_envs.games.rummidrez.spec import RummidrezSolo

SEAT = 0
ILLEGAL_SCORE = k.SOLO_FAILED + k.NUM_CARDS  # worse than any episode played to its end


class RummidrezSoloEnv(SeatViews, LegalSampling, gymnasium.Env):
    """Gymnasium env; `action_masks()` makes it usable by MaskablePPO directly.

    `info` carries `cards_drawn` and `opened`; at the end also `score` (the solo score to
    lower) and `hand_empty` (the game was finished, not lost to an empty deck). `row_infos`
    and `end_info` compute them from state rows, so that the vector env
    (`gymnasium.make_vec`) gives the same. `view()`, `view_text()`, `legal_moves()` and
    `parse_action(text)` give the table and the moves in words (`core.views.SeatViews`)."""

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": RENDER_FPS}
    env_id = "rummidrez_solo_v0"
    # no multi-agent twin: agents (`heuristic`, `ppo`) are built for this env's own Game,
    # which `registry.make_game(env_id)` returns (`game_type`)
    agent_env = env_id
    game_type: ClassVar[type[Game]] = RummidrezSolo
    options = RummidrezSolo.options

    def __init__(
        self, render_mode: str | None = None, illegal_action: str = "raise", **config: Any
    ) -> None:
        check_modes(render_mode, self.metadata["render_modes"], illegal_action)
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self.game = self.game_type(**config)  # validates the config, naming the env id
        self.config = self.game.config
        low, high = self.game.obs_bounds()
        self.observation_space = gymnasium.spaces.Box(low, high, dtype=np.float32)
        self.action_space = self._legal_action_space(k.NUM_ACTIONS)
        self._row = self.game.new_row()
        self._mask = np.zeros(k.NUM_ACTIONS, dtype=np.int8)
        self._rewards = np.zeros(1, dtype=np.float32)
        self._obs = np.zeros(self.game.obs_size, dtype=np.float32)
        self._started = False
        self._over = False

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is None and not self._started:  # a fresh env: a deal from the env's stream
            seed = int(self.np_random.integers(2**63))
        self.game.reset_row(self._row, seed)  # no seed: the row's own stream goes on
        self._started = True
        self._over = False
        return self._observe(), self._info()

    def step(self, action: int):
        if not self._started:
            raise RuntimeError(f"{self.env_id}: call reset() before step()")
        if self._over:
            raise RuntimeError(f"{self.env_id}: the episode is over; call reset()")
        k.legal(self._row, self._mask)
        a = as_action(action, k.NUM_ACTIONS, self.env_id)
        if not (0 <= a < k.NUM_ACTIONS) or not self._mask[a]:
            if self.illegal_action == "raise":
                legal = np.flatnonzero(self._mask).tolist()
                raise ValueError(f"{self.env_id}: illegal action {action!r}; legal are {legal}")
            self._over = True
            info = {**self._info(), "score": ILLEGAL_SCORE, "illegal_action": True}
            return self._observe(), -float(ILLEGAL_SCORE), True, False, info
        self._rewards[:] = 0
        k.step(self._row, a, self._rewards)
        info = self._info()
        if self._row[layout.STATUS] == layout.RUNNING:
            return self._observe(), 0.0, False, False, info
        self._over = True
        info = self.end_info(self._row)
        return self._observe(), float(self._rewards[SEAT]), True, False, info

    def _observe(self) -> np.ndarray:
        k.observe(self._row, SEAT, self._obs)
        return self._obs.copy()

    def _info(self) -> dict:
        return {key: value[0].item() for key, value in self.row_infos(self._row[None]).items()}

    @staticmethod
    def row_infos(rows: np.ndarray) -> dict[str, np.ndarray]:
        """`cards_drawn` and `opened` of each state row."""
        return {
            "cards_drawn": (k.NUM_CARDS - rows[:, k.DRAW_N]).astype(np.int64),
            "opened": rows[:, k.OPENED + SEAT] == 1,
        }

    @classmethod
    def end_info(cls, row: np.ndarray) -> dict:
        """The info of the step that ended the game in `row`."""
        info = {key: value[0].item() for key, value in cls.row_infos(row[None]).items()}
        score = int(k.solo_score(row))
        return info | {"score": score, "hand_empty": score <= k.NUM_CARDS}

    def describe_action(self, action: int) -> str:
        """`action` in words, in the current position (`Game.describe_action`)."""
        return self.game.describe_action(self._row, action)

    def action_masks(self) -> np.ndarray:
        k.legal(self._row, self._mask)
        return self._mask.astype(bool)

    def _sample_mask(self) -> np.ndarray:
        return self.action_masks()

    def state_dict(self) -> dict:
        """The full state (the draw pile's order included) as JSON-able Python."""
        if not self._started:
            raise RuntimeError(f"{self.env_id}: call reset() before state_dict()")
        return self.game.state_dict(self._row)

    def load_state_dict(self, state: dict, seed: int | None = None) -> tuple[np.ndarray, dict]:
        """Continue from the position `state` (a `state_dict()`, maybe edited or written by
        hand): it is checked as `Game.load_state_dict` says and refused whole (a
        `StateDictError` naming the field) if anything is wrong. Without an `rng` key the
        draws to come are seeded from `seed`. Returns the observation and info, as `reset`
        does; a finished position leaves the episode over."""
        row = self.game.load_state_dict(state, seed)
        self._row[:] = row
        self._started = True
        self._over = row[layout.STATUS] != layout.RUNNING
        return self._observe(), self._info()

    def _faces(self):
        if not self._started:
            raise RuntimeError(f"{self.env_id}: call reset() before reading the table")
        return self.game, self._row, SEAT

    def render(self) -> str | np.ndarray | None:
        return render_row(self.game, self._row, SEAT, self.render_mode)

    def scene(self) -> dict:
        """The table as the one seat sees it (`Game.scene`)."""
        return self.game.scene(self._row, SEAT)

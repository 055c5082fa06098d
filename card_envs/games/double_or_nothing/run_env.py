"""`double_or_nothing_run_v0`: the original mode, one agent against the built-in computer.

The agent plays game g = 1, 2, ... (stage g scales decks, hands and draws by 2**(g-1)) and
leads the first hand of each; the episode ends at the first game it does not win (a loss, a
draw, or a truncated game) or after winning `max_stage`. Reward +1 per game won. An illegal
action raises, or with `illegal_action="penalize"` gives -1 and ends the episode.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np

from card_envs.core import history, layout, loading, rng
from card_envs.core.aec import RENDER_FPS, check_modes, render_row
from card_envs.core.config import COUNT_CAP, Option, resolve
from card_envs.core.spaces import LegalSampling, as_action
from card_envs.core.views import SeatViews
from card_envs.games.double_or_nothing import engine as k
from card_envs.games.double_or_nothing.spec import MAX_STAGE, DoubleOrNothing

AGENT, COMPUTER = 0, 1
RUN_SUMMARY = (
    "This is a run against the game's built-in computer: you are player_0 and lead the first "
    "hand of every game. Game 1 is played at stage 1, game 2 at stage 2, and so on. A game "
    "you win scores 1 and the next game begins; the run ends at the first game you do not "
    "win (a loss, a draw or a game cut short at the move limit) or after the last stage. The "
    "computer always plays its weakest legal play and passes only when it has none."
)

OPTIONS = {
    "max_stage": Option(
        MAX_STAGE, "the episode ends after winning this game", low=1, high=MAX_STAGE
    ),
    "max_turns": Option(
        2000, "a game is truncated after this many actions x 2**(g-1)", low=1, high=COUNT_CAP
    ),
    "history": history.OPTION,  # both seats' moves, the computer's included
}


class DoubleOrNothingRun(SeatViews, LegalSampling, gymnasium.Env):
    """Gymnasium env; `action_masks()` makes it usable by MaskablePPO directly. `view()`,
    `view_text()`, `legal_moves()` and `parse_action(text)` give the current game's table and
    the agent's moves in words (`core.views.SeatViews`); the view adds the run's keys."""

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": RENDER_FPS}
    env_id = "double_or_nothing_run_v0"
    agent_env = "double_or_nothing_v0"  # same observations and actions: its agents play here
    options = OPTIONS

    def __init__(
        self, render_mode: str | None = None, illegal_action: str = "raise", **config: Any
    ) -> None:
        check_modes(render_mode, self.metadata["render_modes"], illegal_action)
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self.config = resolve(self.env_id, OPTIONS, config)
        self._games = [
            DoubleOrNothing(
                stage=g, max_turns=self.config["max_turns"], history=self.config["history"]
            )
            for g in range(1, self.config["max_stage"] + 1)
        ]
        low, high = self._games[0].obs_bounds()
        self.observation_space = gymnasium.spaces.Box(low, high, dtype=np.float32)
        self.action_space = self._legal_action_space(k.NUM_RANGES + 1)
        self._row = self._games[-1].new_row()  # big enough for every stage
        self._mask = np.zeros(k.NUM_RANGES + 1, dtype=np.int8)
        self._rewards = np.zeros(2, dtype=np.float32)
        self._obs = np.zeros(self._games[0].obs_size, dtype=np.float32)
        self._counts = np.zeros(k.NUM_NUMBERS, dtype=np.int64)
        self._stage = 1
        self._started = False
        # a list to get the computer's moves in words, as the agent sees them (`play`)
        self.move_log: list[str] | None = None

    @property
    def stage(self) -> int:
        return self._stage

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None or not self._started:
            rng.seed_row(self._row, int(self.np_random.integers(2**63)) if seed is None else seed)
        self._started = True
        self._won = 0
        self._start_game(1)
        return self._observe(), self._info()

    def _start_game(self, stage: int) -> None:
        self._stage = stage
        self._games[stage - 1].write_config(self._row)
        k.reset(self._row)
        self._computer_moves()

    def _computer_moves(self) -> None:
        row = self._row
        while row[layout.STATUS] == layout.RUNNING and row[layout.PLAYER] == COMPUTER:
            self._counts[:] = row[k.HAND + k.NUM_NUMBERS : k.HAND + 2 * k.NUM_NUMBERS]
            self._rewards[:] = 0
            action = k.computer_action(self._counts, k.beat_strength(row))
            if self.move_log is not None:
                self.move_log.append(self.describe_action(action, AGENT))
            k.step(row, action, self._rewards)

    def step(self, action: int):
        if not self._started:
            raise RuntimeError(f"{self.env_id}: call reset() before step()")
        k.legal(self._row, self._mask)
        a = as_action(action, k.NUM_RANGES + 1, self.env_id)
        if not (0 <= a <= k.NUM_RANGES) or not self._mask[a]:
            if self.illegal_action == "raise":
                legal = np.flatnonzero(self._mask).tolist()
                raise ValueError(f"{self.env_id}: illegal action {action!r}; legal are {legal}")
            return self._observe(), -1.0, True, False, {**self._info(), "illegal_action": True}
        self._rewards[:] = 0
        k.step(self._row, a, self._rewards)
        self._computer_moves()
        row = self._row
        if row[layout.STATUS] == layout.RUNNING:
            return self._observe(), 0.0, False, False, self._info()
        won = self._agent_won(row)
        truncated = bool(row[layout.STATUS] == layout.TRUNCATED)
        info = {"stage": self._stage, "won": bool(won), "games_won": self._won + int(won)}
        if not won or self._stage == self.config["max_stage"]:
            self._won += int(won)
            return self._observe(), float(won), not truncated, truncated, info
        self._won += 1
        self._start_game(self._stage + 1)
        return self._observe(), 1.0, False, False, {**self._info(), "won": True}

    def _observe(self) -> np.ndarray:
        k.observe(self._row, AGENT, self._obs)
        return self._obs.copy()

    def _info(self) -> dict:
        return {"stage": self._stage, "games_won": self._won}

    def state_dict(self) -> dict:
        """The run's position as JSON-able Python: the env id and config, the game being
        played (`stage`), the games won so far, and that game's full state dict (a
        `double_or_nothing_v0` one, hidden information and PRNG included). `load_state_dict`
        reads it back."""
        if not self._started:
            raise RuntimeError(f"{self.env_id}: call reset() before state_dict()")
        return {
            "env_id": self.env_id,
            "config": loading.plain(self.config),
            "stage": self._stage,
            "games_won": self._won,
            "game": self._games[self._stage - 1].state_dict(self._row),
        }

    def load_state_dict(self, state: dict, seed: int | None = None) -> tuple[np.ndarray, dict]:
        """Continue the run from `state` (a `state_dict()`, maybe edited or written by hand);
        returns the agent's observation and the info, as `reset` does. The game is checked as
        `Game.load_state_dict` says (without its `rng`, the chance to come is seeded from
        `seed`), then what the run adds: the computer moves at once, so a running game waits
        for the agent; a won game before the last stage has already given way to the next;
        `games_won` follows (every earlier game was won). Refused whole if anything is
        wrong."""
        r = loading.Reader(self.env_id, state)
        loading.read_identity(r, self.config)
        stage = r.int("stage", 1, self.config["max_stage"])
        game = self._games[stage - 1]
        try:
            row = game.load_state_dict(r.get("game"), seed)
        except loading.StateDictError as error:
            r.fail("game", str(error))
        status = row[layout.STATUS]
        if status == layout.RUNNING and row[layout.PLAYER] != AGENT:
            r.fail("game", "the computer (player 1) moves at once: the agent (player 0) is to act")
        won = self._agent_won(row)
        if won and stage < self.config["max_stage"]:
            r.fail("stage", f"game {stage} is won, so the run has gone on to game {stage + 1}")
        implied = {
            "env_id": self.env_id,
            "config": self.config,
            "stage": stage,
            "games_won": stage - 1 + won,
            "game": r.d["game"],  # checked by the game's own load
        }
        loading.check_implied(r, implied)
        self._row[:] = 0
        self._row[: len(row)] = row
        self._stage, self._won, self._started = stage, stage - 1 + won, True
        return self._observe(), self._info()

    @staticmethod
    def _agent_won(row: np.ndarray) -> bool:
        """Whether the game in `row` ended by the rules with the agent ahead."""
        scores, wins = np.zeros(2), np.zeros(2)
        k.outcome(row, scores, wins)
        return bool(row[layout.STATUS] == layout.TERMINATED and wins[AGENT] == 1.0)

    def describe_action(self, action: int, seat: int | None = None) -> str:
        """`action` of the seat to act in words, in the current game (`Game.describe_action`)."""
        return self._games[self._stage - 1].describe_action(self._row, action, seat)

    def action_masks(self) -> np.ndarray:
        k.legal(self._row, self._mask)
        return self._mask.astype(bool)

    def _sample_mask(self) -> np.ndarray:
        return self.action_masks()

    def _faces(self):
        if not self._started:
            raise RuntimeError(f"{self.env_id}: call reset() before reading the table")
        return self._games[self._stage - 1], self._row, AGENT

    def view(self) -> dict:
        """The agent's view of the current game (`Game.view`), with the run's own keys:
        `run_game` (the game of the run being played, its stage), `max_stage` and
        `games_won`."""
        view = super().view()
        run = {"run_game": self._stage, "max_stage": self.config["max_stage"]}
        return {**view, **run, "games_won": self._won}

    def view_text(self) -> str:
        """`view()` as text: the run, then the current game as the agent sees it."""
        game = super().view_text()
        run = (
            f"A run against the computer: game {self._stage} of at most "
            f"{self.config['max_stage']}, {self._won} game(s) won so far."
        )
        return f"{run}\n{game}"

    @property
    def rules_summary(self) -> str:
        """Double or Nothing's rules in brief, and how the run goes on."""
        return f"{DoubleOrNothing.rules_summary}\n\n{RUN_SUMMARY}"

    def render(self) -> str | np.ndarray | None:
        return render_row(self._games[self._stage - 1], self._row, AGENT, self.render_mode)

    def scene(self) -> dict:
        """The table of the current game as the agent sees it (`Game.scene`)."""
        return self._games[self._stage - 1].scene(self._row, AGENT)

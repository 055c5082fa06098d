"""The AEC face: one PettingZoo `AECEnv` class that runs any game engine.

Order enforcement and illegal-action handling are done here directly instead of through
PettingZoo's wrapper stack, which costs several times the step itself.
"""

from __future__ import annotations

import secrets
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from card_envs.core import layout
from card_envs.core.engine import Game
from card_envs.core.spaces import as_action

ILLEGAL_ACTION_MODES = ("raise", "penalize")
RENDER_FPS = 2  # a recorded video (Gymnasium's RecordVideo) shows two moves a second


def check_illegal_action_mode(mode: str) -> None:
    if mode not in ILLEGAL_ACTION_MODES:
        raise ValueError(f"illegal_action={mode!r} is not one of {ILLEGAL_ACTION_MODES}")


def check_modes(render_mode: str | None, render_modes: list[str], illegal_action: str) -> None:
    """The two mode arguments every env of ours takes: a render mode among `render_modes`
    (or None) and a known illegal-action mode."""
    if render_mode not in (None, *render_modes):
        raise ValueError(f"render_mode={render_mode!r} is not one of {[None, *render_modes]}")
    check_illegal_action_mode(illegal_action)


def render_row(
    game: Game, row: np.ndarray, seat: int, render_mode: str | None
) -> str | np.ndarray | None:
    """What every env's `render()` returns: `row` from `seat`'s side, as text ("ansi",
    "human") or as a picture ("rgb_array", `raster.FRAME`: 720 x 960 x 3 uint8, the same in
    every position, as videos need); without a render mode
    a warning and None, as Gymnasium's envs do."""
    if render_mode is None:
        gymnasium.logger.warn(
            "render() called without a render_mode; pass one of metadata['render_modes']"
        )
        return None
    if render_mode == "rgb_array":
        from card_envs.core import raster  # here: matplotlib and Pillow cost 0.15 s an import

        return raster.frame(game.scene(row, seat))
    return game.render(row, seat)


class CardEnv(AECEnv):
    """PettingZoo AEC env over a game engine (see `card_envs.make`)."""

    metadata = {
        "render_modes": ["ansi", "human", "rgb_array"],
        "render_fps": RENDER_FPS,
        "is_parallelizable": False,
    }

    def __init__(
        self, game: Game, render_mode: str | None = None, illegal_action: str = "raise"
    ) -> None:
        super().__init__()
        check_modes(render_mode, self.metadata["render_modes"], illegal_action)
        self.game = game
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.metadata = {**self.metadata, "name": game.env_id}
        self.possible_agents = [f"player_{i}" for i in range(game.num_players)]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        low, high = game.obs_bounds()
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(low, high, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (game.num_actions,), dtype=np.int8),
            }
        )
        act_space = spaces.Discrete(game.num_actions)
        n = game.num_players
        self.state_space = spaces.Box(np.tile(low, n), np.tile(high, n), dtype=np.float32)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self._row = game.new_row()
        self._rewards_buf = np.zeros(game.num_players, dtype=np.float32)
        self._mask = np.zeros(game.num_actions, dtype=np.int8)
        self._no_mask = np.zeros(game.num_actions, dtype=np.int8)
        self._seeded = False
        self._started = False
        self._kernels = type(game)

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # --- episode ------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """New game. With a seed the deal is reproducible; without one the env continues its
        own random stream (like the batched env's auto-reset)."""
        if seed is None and not self._seeded:
            seed = secrets.randbits(63)
        self.game.reset_row(self._row, seed)
        self._start()

    def _start(self) -> None:
        """Every agent in play with nothing yet received, from the position in the row."""
        self._seeded = self._started = True
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        status = self._row[layout.STATUS]
        if status != layout.RUNNING:  # a finished position (load_state_dict)
            self._finish(status)
        self.agent_selection = self.possible_agents[self._row[layout.PLAYER]]
        self._kernels.legal_kernel(self._row, self._mask)

    def last(self, observe: bool = True):
        self._require_started()
        return super().last(observe)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        self._require_started()
        obs = np.empty(self.game.obs_size, dtype=np.float32)
        self._kernels.observe_kernel(self._row, self._seat[agent], obs)
        live = agent == self.agent_selection and self._row[layout.STATUS] == layout.RUNNING
        return {"observation": obs, "action_mask": (self._mask if live else self._no_mask).copy()}

    def step(self, action: Any) -> None:
        self._require_started()
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        a = self._check_action(agent, action)
        if a is None:  # illegal, penalised
            return
        self._cumulative_rewards[agent] = 0.0
        buf = self._rewards_buf
        buf[:] = 0.0
        row = self._row
        self._kernels.step_kernel(row, a, buf)
        rewards = self.rewards
        for i, name in enumerate(self.possible_agents):
            rewards[name] = float(buf[i])
        status = row[layout.STATUS]
        if status != layout.RUNNING:
            self._finish(status)
        self.agent_selection = self.possible_agents[row[layout.PLAYER]]
        self._kernels.legal_kernel(row, self._mask)
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _check_action(self, agent: str, action: Any) -> int | None:
        n = self.game.num_actions
        a = as_action(action, n, f"{self.game.env_id} ({agent})")
        if not 0 <= a < n:
            raise ValueError(
                f"{self.game.env_id} ({agent}): action {action!r} is out of range 0..{n - 1}"
            )
        if self._mask[a]:
            return a
        legal = np.flatnonzero(self._mask).tolist()
        if self.illegal_action == "raise":
            raise ValueError(
                f"{self.game.env_id}: illegal action {a} ({self.game.action_name(a)}) for "
                f"{agent}; legal actions are {legal}"
            )
        gymnasium.logger.warn(f"{agent} played illegal action {a}; legal were {legal}")
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {name: 0.0 for name in self.agents}
        self.rewards[agent] = -1.0
        self.infos[agent]["illegal_move"] = True
        self._row[layout.STATUS] = layout.TERMINATED
        # as PettingZoo's TerminateIllegalWrapper: everyone terminated and truncated, and the
        # dead steps start from the first agent
        self.terminations = {name: True for name in self.agents}
        self.truncations = {name: True for name in self.agents}
        self._accumulate_rewards()
        self._deads_step_first()
        return None

    def _finish(self, status: int) -> None:
        scores = np.zeros(self.game.num_players, dtype=np.float64)
        wins = np.zeros(self.game.num_players, dtype=np.float64)
        self._kernels.outcome_kernel(self._row, scores, wins)
        done = self.terminations if status == layout.TERMINATED else self.truncations
        for i, name in enumerate(self.possible_agents):
            done[name] = True
            self.infos[name]["score"] = float(scores[i])
            self.infos[name]["win"] = float(wins[i])

    def _require_started(self) -> None:
        if not self._started:
            raise RuntimeError(f"{self.game.env_id}: call reset() before using the env")

    # --- inspection ---------------------------------------------------------------------
    def state_dict(self) -> dict:
        """The full state (hidden information included) as JSON-able Python."""
        self._require_started()
        return self.game.state_dict(self._row)

    def load_state_dict(self, state: dict, seed: int | None = None) -> None:
        """Continue from the position `state` (a `state_dict()`, maybe edited or written by
        hand): it is checked as `Game.load_state_dict` says, and refused whole if anything is
        wrong. Without an `rng` key the chance to come is seeded from `seed`. Rewards start
        at 0; a finished position leaves every agent done, with its score and win."""
        self._row[:] = self.game.load_state_dict(state, seed)
        self._start()

    def describe_action(self, action: Any, seat: str | None = None) -> str:
        """`action` of the agent to act, in words and in its context ("take 23 (4 tokens)");
        with `seat` (an agent name), as that agent may know it: nothing it cannot see."""
        self._require_started()
        a = as_action(action, self.game.num_actions, self.game.env_id)
        if seat is not None and seat not in self._seat:
            raise ValueError(
                f"{self.game.env_id}: seat {seat!r} is not one of {self.possible_agents}"
            )
        return self.game.describe_action(self._row, a, None if seat is None else self._seat[seat])

    # --- text and JSON faces (`Game.view`, `core.views`) ---------------------------------
    def _viewer(self, agent: str | None) -> int:
        """The seat of `agent` (None: the agent to act), refusing an unknown name."""
        self._require_started()
        if agent is None:
            return int(self._row[layout.PLAYER])
        if agent not in self._seat:
            raise ValueError(
                f"{self.game.env_id}: agent {agent!r} is not one of {self.possible_agents}"
            )
        return self._seat[agent]

    def view(self, agent: str | None = None) -> dict:
        """What `agent` (by default the agent to act) may see, as a JSON-able dict with
        plain English keys (`Game.view`): the game, `you`, `to_act`, `turn`, `done`,
        `outcome`, then the game's own."""
        return self.game.view(self._row, self._viewer(agent))

    def view_text(self, agent: str | None = None) -> str:
        """`view(agent)` as text for a prompt (`Game.view_text`)."""
        return self.game.view_text(self._row, self._viewer(agent))

    def legal_moves(self, agent: str | None = None) -> list[dict]:
        """The legal moves of the agent to act as `[{"id": action, "text": words}]`
        (`Game.legal_moves`); empty for any other `agent` and once the game is over."""
        return self.game.legal_moves(self._row, self._viewer(agent))

    def parse_action(self, text: str) -> int:
        """The action id of the legal move of the agent to act that `text` names: its id or
        its words (`Game.parse_action`); anything else is a `ValueError` listing the legal
        moves."""
        self._require_started()
        return self.game.parse_action(self._row, text)

    @property
    def rules_summary(self) -> str:
        """The game's rules in brief, for a prompt (`Game.rules_summary`)."""
        return self.game.rules_summary

    def state(self) -> np.ndarray:
        """Every seat's observation vector, seat 0 first (float32, in `state_space`): all that
        any player knows, every hand and the public information, as a centralised critic
        wants it. Cards that no player knows (deck order, cards set aside) are not in it."""
        self._require_started()
        size = self.game.obs_size
        out = np.empty(self.game.num_players * size, dtype=np.float32)
        for seat in range(self.game.num_players):
            self._kernels.observe_kernel(self._row, seat, out[seat * size : (seat + 1) * size])
        return out

    def render(self) -> str | np.ndarray | None:
        """The table from the acting seat's side (see `render_row`); "human" prints it."""
        if self.render_mode is not None:
            self._require_started()
        out = render_row(self.game, self._row, int(self._row[layout.PLAYER]), self.render_mode)
        if self.render_mode != "human":
            return out
        print(out)
        return None

    def close(self) -> None:
        pass

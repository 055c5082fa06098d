"""One setting's games in all-seat self-play: a batched env whose every seat is the network,
or, drawn per seat and game with chance `selfplay.opponent_seats`, an agent of the pool."""

from __future__ import annotations

import time

import numpy as np

from card_envs.core.padding import Padding
from card_envs.registry import make_vec
from card_envs.training.config import TrainConfig
from card_envs.training.selfplay.rollout import SeatRollout


class Table:
    """`num_envs` games of `setting`, their seats' owners, and the rollout of the network's
    decisions in them. `seconds` counts the engine's and the pool agents' wall time."""

    def __init__(self, config: TrainConfig, setting: dict, num_envs: int, seed: int) -> None:
        self.venv = make_vec(
            config.env, num_envs, seed=seed, num_threads=config.num_threads, **setting
        )
        game = self.venv.game
        self.padding = Padding(game) if config.padded else None
        width = self.padding.size if self.padding is not None else game.obs_size
        n = game.num_players
        self.rollout = SeatRollout(num_envs, n, width, game.num_actions, config.ppo.n_steps)
        self.share = config.selfplay.opponent_seats
        self.rng = np.random.default_rng(seed)
        self.network = np.ones((num_envs, n), dtype=bool)  # the seat is the network's
        self.who = np.zeros((num_envs, n), dtype=np.int64)  # else: the pool agent's index
        self.agents: list = []
        self.weights = np.ones(0)
        self.games = np.arange(num_envs, dtype=np.int64)  # game ids, for agents that want them
        self.moves = np.zeros(num_envs, dtype=np.int64)
        self.seconds = {"engine": 0.0, "opponents": 0.0}
        self.finished: list[tuple[int, float]] = []  # (length, the network's win share)

    def set_pool(self, agents: list, weights: list[float]) -> None:
        """The agents that pool seats draw from, from the next game on."""
        w = np.asarray(weights, dtype=np.float64)
        self.agents, self.weights = list(agents), w / w.sum()

    def reset(self) -> None:
        self.venv.reset()
        self._draw(np.arange(self.venv.num_envs))

    def _draw(self, rows: np.ndarray) -> None:
        """New owners for the seats of the games in `rows`: the pool's with chance `share`,
        at least one seat of every game the network's."""
        if self.share == 0 or not self.agents or not len(rows):
            return
        n = self.venv.num_players
        pool = self.rng.random((len(rows), n)) < self.share
        alone = pool.all(axis=1)
        pool[np.flatnonzero(alone), self.rng.integers(n, size=int(alone.sum()))] = False
        self.network[rows] = ~pool
        self.who[rows] = self.rng.choice(len(self.agents), (len(rows), n), p=self.weights)

    def to_decide(self) -> tuple[np.ndarray, np.ndarray]:
        """(rows, seats) where the network is to act."""
        player = self.venv.current_player
        rows = np.flatnonzero(self.network[np.arange(self.venv.num_envs), player])
        return rows, player[rows]

    def observe(self, observations: np.ndarray) -> np.ndarray:
        return observations if self.padding is None else self.padding(observations)

    def pool_actions(self, actions: np.ndarray) -> None:
        """Fill `actions` where a pool agent is to act."""
        venv = self.venv
        player = venv.current_player
        theirs = ~self.network[np.arange(venv.num_envs), player]
        if not theirs.any():
            return
        t0 = time.perf_counter()
        who = self.who[np.arange(venv.num_envs), player]
        for k, agent in enumerate(self.agents):
            sel = np.flatnonzero(theirs & (who == k))
            if len(sel):
                actions[sel] = agent.act_positions(
                    venv.observations[sel], venv.action_masks[sel], venv.states[sel],
                    self.games[sel],
                )  # fmt: skip
        self.seconds["opponents"] += time.perf_counter() - t0

    def step(self, actions: np.ndarray, value_of) -> None:
        """Step every game, credit the rewards and close the games that ended;
        `value_of(observations)` values the final observations of cut-off games."""
        t0 = time.perf_counter()
        _, _, rewards, terminated, truncated = self.venv.step(actions)
        self.seconds["engine"] += time.perf_counter() - t0
        self.rollout.credit(rewards)
        self.moves += 1
        ended = np.flatnonzero(terminated | truncated)
        if not len(ended):
            return
        cut = np.flatnonzero(truncated)
        if len(cut):
            rows, seats = self.rollout.seats_to_close(cut)
            boot = value_of(self.observe(self.venv.final_observations[rows, seats]))
            self.rollout.end_games(cut, boot)
        self.rollout.end_games(np.flatnonzero(terminated))
        mixed = ~self.network[ended].all(axis=1)  # games with a pool seat: a network seat's share
        wins = self.venv.final_wins[ended]
        for i, row in enumerate(ended):
            share = float(wins[i][self.network[row]].mean()) if mixed[i] else np.nan
            self.finished.append((int(self.moves[row]), share))
        self.moves[ended] = 0
        self.games[ended] = self.games.max() + 1 + np.arange(len(ended))
        self._draw(ended)

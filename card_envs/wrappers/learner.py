"""One learner seat per instance, the other seats played by opponent agents inside the env.

The driver steps the batched engine for the opponents until every instance waits for the
learner; each opponent is asked once per engine step for all instances where it is to act.
Opponents are either fixed by seat or drawn for every game from a weighted pool (self-play
against snapshots, mixed with scripted agents).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np

from card_envs.agents import Agent, make_agent
from card_envs.core.batched import SKIP, BatchedEnv
from card_envs.core.padding import Padding
from card_envs.registry import make_vec


def opponent_agents(
    opponents: str | Agent | Sequence[str | Agent],
    env_id: str,
    num_players: int,
    seed: int | None,
    config: dict,
) -> list[Agent]:
    """`num_players - 1` agents from one spec (used for every seat) or a list of specs."""
    if isinstance(opponents, (str, Agent)):
        opponents = [opponents] * (num_players - 1)
    opponents = list(opponents)
    if len(opponents) != num_players - 1:
        raise ValueError(
            f"{env_id} with {num_players} players needs {num_players - 1} opponents, "
            f"got {len(opponents)}"
        )
    return build_agents(opponents, env_id, seed, config)


def agent_seed(seed: int | None, k: int) -> int | None:
    """The seed of the k-th opponent agent of a run seeded with `seed`."""
    return None if seed is None else seed + 1000 + k


def build_agents(
    specs: Sequence[str | Agent], env_id: str, seed: int | None, config: dict
) -> list[Agent]:
    """The agents of `specs`, the k-th seeded with `agent_seed(seed, k)`."""
    return [
        make_agent(spec, env_id, seed=agent_seed(seed, k), **config) for k, spec in enumerate(specs)
    ]


class LearnerSeats:
    """Drives `venv` so that every instance waits for the learner at its seat.

    `seat` is a fixed seat, or "rotate": instance i starts at seat i % num_players and moves
    one seat on with every new game, so the learner sits in every seat equally often.
    Without `pool_weights`, `opponents` has one agent per other seat: opponent k plays the
    k-th seat after the learner's, in turn order. With `pool_weights`, `opponents` is a pool
    and every other seat of every new game draws its agent from it by those weights.
    """

    def __init__(
        self,
        venv: BatchedEnv,
        opponents: list[Agent],
        seat: int | str = "rotate",
        pool_weights: Sequence[float] | None = None,
        seed: int | None = None,
    ):
        n = venv.num_players
        if seat != "rotate" and (
            isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < n
        ):
            raise ValueError(f"seat={seat!r} must be 'rotate' or an int in 0..{n - 1}")
        self.venv = venv
        self.rotate = seat == "rotate"
        m = venv.num_envs
        self.seat = (np.arange(m) % n) if self.rotate else np.full(m, int(seat))
        self._first_seat = self.seat.copy()
        self._actions = np.full(m, SKIP, dtype=np.int64)
        self._pending = np.zeros(m)  # learner reward earned since its last action
        self._rng = np.random.default_rng(seed)
        # wall time spent in the engine and in the opponents' act_batch (training reports it)
        self.seconds = {"engine": 0.0, "opponents": 0.0}
        # with `keep_final_rows`, final_rows[i] is the last position of instance i's latest
        # finished game (the engine has already dealt the next one): a picture of the end
        self.keep_final_rows = False
        self.final_rows = np.zeros_like(venv.states)
        self._scratch_rewards = np.zeros(n, dtype=np.float32)
        self._weights: np.ndarray | None = None
        self._games = np.arange(m, dtype=np.int64)  # each instance's game id, for opponents
        if pool_weights is None:
            if len(opponents) != n - 1:
                raise ValueError(f"{venv.env_id} with {n} players needs {n - 1} opponents")
            self.opponents = list(opponents)
            self._who = np.tile(np.arange(n - 1), (m, 1))  # agent of each opponent position
        else:
            self.set_pool(opponents, pool_weights)
            self._who = np.zeros((m, n - 1), dtype=np.int64)
            self._draw_opponents(np.arange(m))

    def set_pool(self, agents: Sequence[Agent], weights: Sequence[float]) -> None:
        """Replace the pool; games already under way keep their pool positions."""
        w = np.asarray(weights, dtype=np.float64)
        if len(agents) == 0 or w.shape != (len(agents),) or (w < 0).any() or w.sum() <= 0:
            raise ValueError(
                f"pool weights must be one non-negative number per agent ({len(agents)}), "
                f"not all zero; got {list(weights)}"
            )
        self.opponents = list(agents)
        self._weights = w / w.sum()

    def _draw_opponents(self, instances: np.ndarray) -> None:
        if self._weights is not None and len(instances):
            shape = (len(instances), self.venv.num_players - 1)
            self._who[instances] = self._rng.choice(len(self.opponents), shape, p=self._weights)

    @classmethod
    def create(
        cls,
        env_id: str,
        num_envs: int,
        opponents: str | Agent | Sequence[str | Agent],
        seat: int | str,
        seed: int | None,
        pool_weights: Sequence[float] | None = None,
        num_threads: int | None = 1,
        **config: Any,
    ) -> LearnerSeats:
        """A batched env of `env_id` on `num_threads` threads with its opponents built from
        their specs (with `pool_weights`, `opponents` is the pool: one spec or agent per
        weight)."""
        venv = make_vec(env_id, num_envs, seed=seed, num_threads=num_threads, **config)
        game = venv.game
        if pool_weights is None:
            agents = opponent_agents(opponents, env_id, game.num_players, seed, game.config)
        else:
            specs = [opponents] if isinstance(opponents, (str, Agent)) else list(opponents)
            agents = build_agents(specs, env_id, seed, game.config)
        return cls(venv, agents, seat, pool_weights, seed)

    def observation_space(self, padding: Padding | None = None) -> gymnasium.spaces.Box:
        """The learner's observation space: the game's observation bounds, or those of the
        layout `padding` pads every config of the game to."""
        game = self.venv.game
        low, high = game.obs_bounds() if padding is None else padding.bounds(game)
        return gymnasium.spaces.Box(low, high, dtype=np.float32)

    def reset(self, seed: int | None = None) -> None:
        """New games everywhere. With a seed, everything random restarts from it (the deals,
        the seats, the pool draws and the opponents' own streams, as `create` seeds them), so
        the same seed replays the same games."""
        if seed is not None:
            self.seat[:] = self._first_seat
            self._rng = np.random.default_rng(seed)
            for k, agent in enumerate(self.opponents):
                agent.reseed(agent_seed(seed, k))
        self.venv.reset(seed)
        self._draw_opponents(np.arange(self.venv.num_envs))
        for agent in self.opponents:
            agent.reset()
        self._pending[:] = 0
        self._games[:] = np.arange(self.venv.num_envs)
        self._advance(np.zeros(self.venv.num_envs, dtype=bool), None)

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict]]:
        """Learner actions for every instance -> (rewards, terminated, truncated, infos).

        `infos[i]` of an instance whose game ended holds `terminal_observation` (the learner's
        last observation), `score`, `win`, `seat`, `truncated` and `opponents` (the specs of
        the other seats' agents, in turn order after the learner's); the instance already
        waits at the learner's turn of its next game.
        """
        m = self.venv.num_envs
        ended = np.zeros(m, dtype=bool)
        infos: list[dict] = [{} for _ in range(m)]
        self._engine_step(np.asarray(actions, dtype=np.int64), ended, infos)
        self._advance(ended, infos)
        rewards = self._pending.copy()
        self._pending[:] = 0
        truncated = np.array([bool(info.get("truncated", False)) for info in infos])
        return rewards, ended & ~truncated, truncated, infos

    def _engine_step(self, actions: np.ndarray, ended: np.ndarray, infos: list[dict] | None):
        venv = self.venv
        seat_before = self.seat.copy()
        before = venv.states.copy() if self.keep_final_rows else None
        t0 = time.perf_counter()
        _, _, rew, term, trunc = venv.step(actions)
        self.seconds["engine"] += time.perf_counter() - t0
        over = np.flatnonzero(term | trunc)
        if before is not None:
            self._replay_ends(before, actions, over)
        self._pending += rew[np.arange(venv.num_envs), seat_before]
        for i in over:
            if ended[i] or infos is None:  # a game the learner never acted in: not its episode
                self._pending[i] -= rew[i, seat_before[i]]
                continue
            ended[i] = True
            s = seat_before[i]
            infos[i] = {
                "terminal_observation": venv.final_observations[i, s].copy(),
                "score": float(venv.final_scores[i, s]),
                "win": float(venv.final_wins[i, s]),
                "seat": int(s),
                "truncated": bool(trunc[i]),
                "opponents": [self.opponents[k].spec for k in self._who[i]],
            }
        if len(over):  # the next games get ids no game had since the last reset
            self._games[over] = self._games.max() + 1 + np.arange(len(over))
        if self.rotate:
            self.seat[over] = (self.seat[over] + 1) % venv.num_players
        self._draw_opponents(over)

    def _replay_ends(self, before: np.ndarray, actions: np.ndarray, over: np.ndarray) -> None:
        """The finished games' last positions: their last action again on the rows from before
        the step (a row holds its random stream, so the replay is the game's own step)."""
        for i in over:
            self.final_rows[i] = before[i]
            type(self.venv.game).step_kernel(self.final_rows[i], actions[i], self._scratch_rewards)

    def _advance(self, ended: np.ndarray, infos: list[dict] | None) -> None:
        """Let the opponents move until every instance waits for the learner."""
        venv, n = self.venv, self.venv.num_players
        while True:
            player = venv.current_player
            waiting = player != self.seat
            if not waiting.any():
                return
            actions = self._actions
            actions[:] = SKIP
            position = np.where(waiting, (player - self.seat - 1) % n, 0)  # after the learner
            who = self._who[np.arange(venv.num_envs), position]
            t0 = time.perf_counter()
            for k, agent in enumerate(self.opponents):
                sel = np.flatnonzero(waiting & (who == k))
                if len(sel):
                    actions[sel] = agent.act_positions(
                        venv.observations[sel],
                        venv.action_masks[sel],
                        venv.states[sel],
                        self._games[sel],
                    )
            self.seconds["opponents"] += time.perf_counter() - t0
            self._engine_step(actions, ended, infos)

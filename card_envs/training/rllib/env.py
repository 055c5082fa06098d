"""Our games as RLlib `MultiAgentEnv`s: one engine row, stepped by the game's kernels.

A run's env plays its settings (`TrainConfig.settings`: `config`, or every combination of
`mix`) in turn, one game each: every reset starts the next setting's game (the first one
from the reset's seed, so an env runner's games start on different settings), so each
setting gets an equal share of the games. RLlib wants fixed agent ids and spaces, so every
setting has agents of its own, `s<part>_seat_<k>` (setting `part`, seat `k`), all with one
observation space: with a mix the observations are padded to the layout every config of
the game shares (`card_envs.core.padding`). The id tells the policy mapping the setting,
and so its player count (the learner's seat is a real seat) and which opponent modules
read that setting's observations.

Turn-based as RLlib expects: `reset` and `step` return the observation of the seat to act
only; when the game ends every seat gets its last observation and its reward (RLlib sums a
seat's rewards between its observations). An observation is a dict of `observations` (the
game's float32 vector, padded with a mix) and `action_mask` (float32 0/1, the key name
RLlib's action-masking modules read).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from card_envs.core import layout
from card_envs.core.engine import Game
from card_envs.core.padding import Padding
from card_envs.registry import make_game


def agent_id(seat: int, part: int = 0) -> str:
    """The agent of `seat` in setting `part`."""
    return f"s{part}_seat_{seat}"


def parse_agent_id(agent: str) -> tuple[int, int]:
    """(setting, seat) of an `agent_id`."""
    part, seat = agent.removeprefix("s").split("_seat_")
    return int(part), int(seat)


def observation_space(game, padded: bool = False) -> gym.spaces.Dict:
    """What a module reads in `game`: its config's own observations, or the padded ones
    (the same for every config of the game)."""
    low, high = Padding(game).bounds(game) if padded else game.obs_bounds()
    return gym.spaces.Dict({
        "observations": gym.spaces.Box(low, high, dtype=np.float32),
        "action_mask": gym.spaces.Box(0.0, 1.0, (game.num_actions,), dtype=np.float32),
    })  # fmt: skip


def setting_games(env_config: dict[str, Any]) -> tuple[list[Game], list[Padding | None]]:
    """The game of each setting of an env_config and its padding (None: unpadded), checked:
    the settings share one layout only when padded, and modules one number of actions."""
    settings = env_config["settings"]
    padded = bool(env_config.get("padded", False))
    if len(settings) > 1 and not padded:
        raise ValueError(f"{len(settings)} settings need padded observations (padded=True)")
    games = [make_game(env_config["env_id"], **s) for s in settings]
    if len({g.num_actions for g in games}) > 1:
        raise ValueError(f"the settings {settings} have different numbers of actions")
    return games, [Padding(g) if padded else None for g in games]


def possible_agents(games: list[Game]) -> list[str]:
    """Every seat of every setting: RLlib wants an env's agents fixed."""
    return [agent_id(seat, part) for part, g in enumerate(games) for seat in range(g.num_players)]


class TurnEnv(MultiAgentEnv):
    """RLlib's env_config: `env_id`, `settings` (the game's options of each setting) and
    `padded` (whether observations are padded; needed for more than one setting); its
    `num_threads` is for the batched runner's env (`BatchedGames`), not this one."""

    def __init__(self, env_config: dict[str, Any]) -> None:
        super().__init__()
        self.games, self.paddings = setting_games(env_config)
        self.possible_agents = possible_agents(self.games)
        self.agents = []
        space = observation_space(self.games[0], self.paddings[0] is not None)
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        action_space = gym.spaces.Discrete(self.games[0].num_actions)
        self.action_spaces = dict.fromkeys(self.possible_agents, action_space)
        self._rows = [g.new_row() for g in self.games]
        self._seeds: list[int | None] = [None] * len(self.games)  # for each row's next game
        self._next = 0  # the setting of the next game
        self._seeded = False
        self._mask = np.zeros(self.games[0].num_actions, dtype=np.int8)
        self._select(0)

    def _select(self, part: int) -> None:
        """Play setting `part` from now on."""
        self.part = part
        self.game = self.games[part]
        self._row = self._rows[part]
        self._padding = self.paddings[part]
        self._obs = np.zeros(self.game.obs_size, dtype=np.float32)
        self._rewards = np.zeros(self.game.num_players, dtype=np.float32)

    def _id(self, seat: int) -> str:
        return agent_id(seat, self.part)

    def _observe(self, seat: int) -> dict[str, np.ndarray]:
        kernels = type(self.game)
        kernels.observe_kernel(self._row, seat, self._obs)
        kernels.legal_kernel(self._row, self._mask)
        if seat != self._row[layout.PLAYER]:
            self._mask[:] = 0
        obs = self._obs.copy() if self._padding is None else self._padding(self._obs)
        return {"observations": obs, "action_mask": self._mask.astype(np.float32)}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is None and not self._seeded:
            seed = int(np.random.SeedSequence().entropy % (1 << 62))
        if seed is not None:  # every setting's row restarts from this seed
            self._seeds = [seed + 7_919 * part for part in range(len(self.games))]
            self._next = seed % len(self.games)
        self._seeded = True
        self._select(self._next)
        self._next = (self._next + 1) % len(self.games)
        self.game.reset_row(self._row, self._seeds[self.part])
        self._seeds[self.part] = None  # later games go on with the row's own stream
        seat = int(self._row[layout.PLAYER])
        self.agents = [self._id(p) for p in range(self.game.num_players)]
        return {self._id(seat): self._observe(seat)}, {}

    def step(self, action_dict: dict[str, int]):
        seat = int(self._row[layout.PLAYER])
        action = int(action_dict[self._id(seat)])
        # self._mask is the acting seat's, from its observation (all zero once over)
        if not 0 <= action < self.game.num_actions or not self._mask[action]:
            legal = np.flatnonzero(self._mask).tolist()
            raise ValueError(
                f"{self.game.env_id}: illegal action {action} for seat {seat}; legal: {legal}"
            )
        self._rewards[:] = 0.0
        type(self.game).step_kernel(self._row, action, self._rewards)
        status = self._row[layout.STATUS]
        if status == layout.RUNNING:
            nxt = int(self._row[layout.PLAYER])
            obs = {self._id(nxt): self._observe(nxt)}
            # the seat to act gets its reward too (0): RLlib wants one with every observation
            # of a seat that acted before
            rewards = {self._id(p): float(r) for p, r in enumerate(self._rewards) if r or p == nxt}
            return obs, rewards, {"__all__": False}, {"__all__": False}, {}
        every = range(self.game.num_players)
        obs = {self._id(p): self._observe(p) for p in every}
        rewards = {self._id(p): float(self._rewards[p]) for p in every}
        over = status == layout.TERMINATED
        terminated = {self._id(p): over for p in every} | {"__all__": over}
        truncated = {self._id(p): not over for p in every} | {"__all__": not over}
        self.agents = []
        return obs, rewards, terminated, truncated, {}

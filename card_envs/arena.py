"""Agents playing each other on the batched engine, seats rotated game by game.

Game g runs in instance g % num_envs, and seat s is played by agent (s + g) % num_players,
so over any num_players consecutive games every agent sits in every seat once. Each agent
is asked for its actions once per batch step, for all instances where it is to act.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from card_envs.core.batched import SKIP, BatchedEnv


@dataclass
class Results:
    """One row per finished game, in game order."""

    agent_of_seat: np.ndarray  # (games, num_players) agent index in each seat
    rewards: np.ndarray  # (games, num_players) total reward of each seat
    scores: np.ndarray  # (games, num_players) final game score of each seat
    win_share: np.ndarray  # (games, num_players) 1/k for each of k tied winners, else 0
    lengths: np.ndarray  # (games,) actions taken
    truncated: np.ndarray  # (games,) whether the game was cut short by a cap

    def per_agent(self, values: np.ndarray, agent: int) -> np.ndarray:
        """`values` (games, num_players) of the seats that `agent` held, one per game."""
        return values[self.agent_of_seat == agent]


def play(venv: BatchedEnv, agents: list, games: int, seed: int = 0) -> Results:
    """Play `games` games of `venv`'s game between `agents` (one per seat)."""
    n, m = venv.num_players, venv.num_envs
    if len(agents) != n:
        raise ValueError(f"{venv.env_id} with {n} players needs {n} agents, got {len(agents)}")
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    game_of = np.arange(m, dtype=np.int64)  # game index each instance is playing
    seats = np.arange(n)
    agent_of_seat = (seats[None, :] + np.arange(games)[:, None]) % n
    rewards = np.zeros((games, n))
    scores = np.zeros((games, n))
    wins = np.zeros((games, n))
    lengths = np.zeros(games, dtype=np.int64)
    truncated = np.zeros(games, dtype=bool)
    acc = np.zeros((m, n))
    steps = np.zeros(m, dtype=np.int64)
    actions = np.zeros(m, dtype=np.int64)
    obs, masks = venv.reset(seed=seed)
    finished = 0
    while finished < games:
        active = game_of < games
        who = (venv.current_player + game_of) % n
        actions[:] = SKIP  # instances past their last game stay put
        for a, agent in enumerate(agents):
            sel = np.flatnonzero(active & (who == a))
            if len(sel):
                actions[sel] = agent.act_batch(obs[sel], masks[sel])
        obs, masks, rew, term, trunc = venv.step(actions)
        acc += rew
        steps += 1
        for i in np.flatnonzero((term | trunc) & active):
            g = game_of[i]
            rewards[g] = acc[i]
            scores[g] = venv.final_scores[i]
            wins[g] = venv.final_wins[i]
            lengths[g] = steps[i]
            truncated[g] = trunc[i]
            finished += 1
        ended = term | trunc
        acc[ended] = 0
        steps[ended] = 0
        game_of[ended] += m
    return Results(agent_of_seat, rewards, scores, wins, lengths, truncated)

"""Rummidrez test helpers: positions of heuristic play."""

from __future__ import annotations

import numpy as np

from card_envs.core import layout
from card_envs.games.rummidrez import engine as k


def heuristic_game(game, seed: int) -> list[np.ndarray]:
    """The rows before every action of a game in which every seat plays the heuristic, and
    the finished row."""
    row = game.new_row()
    game.reset_row(row, seed)
    obs = np.zeros((1, game.obs_size), dtype=np.float32)
    mask = np.zeros((1, game.num_actions), dtype=np.int8)
    rewards = np.zeros(game.num_players, dtype=np.float32)
    rows = []
    while row[layout.STATUS] == layout.RUNNING:
        rows.append(row.copy())
        k.observe(row, row[layout.PLAYER], obs[0])
        k.legal(row, mask[0])
        k.step(row, int(game.heuristic_actions(obs, mask)[0]), rewards)
    rows.append(row.copy())
    return rows

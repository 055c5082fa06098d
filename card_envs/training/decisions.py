"""Decisions recorded from batched self-play, each with what its seat got in that game.

Imitation records every decision of a teacher (`training.imitation`); expert iteration a
random share of the decisions of its position games, with their state rows for the search
(`training.exit.rounds`). Both play until every game holding a recorded decision has ended, so each
decision's return is its seat's total reward in that game (the exact return with gamma 1
and rewards at the end of the game, as in every game here).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from card_envs.core.padding import Padding

# (observations, masks, state rows) of every instance -> each one's action
Chooser = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


@dataclass
class Decisions:
    observations: np.ndarray  # as the policy reads them (padded with a Padding)
    masks: np.ndarray  # bool
    actions: np.ndarray  # the action played
    returns: np.ndarray  # the seat's total reward in that game
    rows: np.ndarray | None = None  # the engine state rows, when asked for


def record(
    venv,
    choose: Chooser,
    size: int,
    padding: Padding | None = None,
    share: float = 1.0,
    rng: np.random.Generator | None = None,
    keep_rows: bool = False,
    on_game_end: Callable[[np.ndarray], None] | None = None,
) -> Decisions:
    """`size` decisions of the games of `venv` (a batched env, reset here) played by
    `choose`: each decision is kept with probability `share` (drawn from `rng`; 1: every
    decision, in order) until `size` are kept. `on_game_end(instances)` is told which games
    ended after each step (before the next one starts)."""
    n_envs, n = venv.num_envs, venv.num_players
    width = padding.size if padding is not None else venv.game.obs_size
    obs_buf = np.empty((size, width), dtype=np.float32)
    mask_buf = np.empty((size, venv.num_actions), dtype=bool)
    act_buf = np.empty(size, dtype=np.int64)
    row_buf = np.empty((size, venv.states.shape[1]), dtype=np.int64) if keep_rows else None
    owner = np.empty((size, 3), dtype=np.int64)  # instance, its game number, seat
    game_no = np.zeros(n_envs, dtype=np.int64)
    running = np.zeros((n_envs, n))  # reward so far in the current game, per seat
    results: list[tuple[int, int, np.ndarray]] = []  # (instance, game, rewards per seat)
    pending = np.ones(n_envs, dtype=bool)  # current game holds kept decisions
    obs, masks = venv.reset()
    count = 0
    while count < size or pending.any():
        states = venv.states
        actions = choose(obs, masks, states)
        if count < size:
            kept = np.arange(n_envs) if share >= 1.0 else np.flatnonzero(rng.random(n_envs) < share)
            kept = kept[: size - count]
            rows = slice(count, count + len(kept))
            seen = obs[kept]
            obs_buf[rows] = seen if padding is None else padding(seen)
            mask_buf[rows] = masks[kept] != 0
            act_buf[rows] = actions[kept]
            if row_buf is not None:
                row_buf[rows] = states[kept]
            owner[rows] = np.column_stack((kept, game_no[kept], venv.current_player[kept]))
            count += len(kept)
        obs, masks, rewards, terminated, truncated = venv.step(actions)
        running += rewards
        ended = np.flatnonzero(terminated | truncated)
        for i in ended:
            results.append((int(i), int(game_no[i]), running[i].copy()))
            running[i] = 0
            game_no[i] += 1
            pending[i] = count < size
        if on_game_end is not None and len(ended):
            on_game_end(ended)
    table = np.zeros((n_envs, int(game_no.max()) + 1, n), dtype=np.float32)
    for i, g, r in results:
        table[i, g] = r
    returns = table[owner[:, 0], owner[:, 1], owner[:, 2]]
    return Decisions(obs_buf, mask_buf, act_buf, returns, row_buf)

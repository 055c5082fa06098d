"""Building blocks of a game's corner positions (`Game.stress_positions`): start from the
state dict of a real, seeded game and edit it through the documented state-dict format, so
that every corner position is one the game's own loader accepts."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from card_envs.core import layout
from card_envs.core.engine import Game


def played(
    game: Game,
    seed: int,
    steps: int,
    stop: Callable[[np.ndarray], bool] | None = None,
    p_last: float = 0.0,
) -> dict:
    """The state dict of a game of `game`'s config dealt from `seed`, after `steps` uniform
    random legal actions (the highest legal one with probability `p_last`), or as soon as
    `stop(row)` holds (a test of the engine's slots: cheap at every step), or at its end."""
    row = game.new_row()
    game.reset_row(row, seed)
    rng = np.random.default_rng(seed)
    rewards = np.zeros(game.num_players, dtype=np.float32)
    for _ in range(steps):
        if row[layout.STATUS] != layout.RUNNING or (stop and stop(row)):
            break
        legal = game.legal_actions(row)
        action = legal[-1] if rng.random() < p_last else rng.choice(legal)
        type(game).step_kernel(row, int(action), rewards)
    return game.state_dict(row)


def settled(game: Game, d: dict, derived: tuple[str, ...]) -> dict:
    """The edited state dict `d` read back by the game's loader (which checks it), with the
    fields in `derived` recomputed from the position: the complete dict of that position."""
    given = {key: value for key, value in d.items() if key not in derived}
    return game.state_dict(game.load_state_dict(given))

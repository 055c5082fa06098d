"""One observation vector for every config of a game: seats padded to the largest table.

A game's observation is a sequence of segments (`Game.obs_segments`): some are one block
(the own hand), some one block per seat or per other seat in seat order from the observer
on (cards taken, hand sizes), and some exist only when a boolean option is on (hints,
public token counts). The padded layout gives every segment the room it takes at the
largest player count with every optional segment present, then appends a one-hot of the
player count and one flag per optional segment that says whether it is present. A config's
observation is scattered into that layout; the slots of absent seats and segments stay 0.

One policy network trained on padded observations of several configs plays every one of
them (`ppo` agents do; `training` builds it from `mix`). A game with one player count and
no optional segment (Double or Nothing) pads to its own observation unchanged.

The history slice of `history=K` (`core.history`) is the same at every player count, so it
is not padded: it follows the padded layout, K entries of the config's own. A layout for a
smaller K keeps the most recent entries (they come first), so a policy trained with
`history=K` plays every config with `history >= K` (and one trained without, every config).
"""

from __future__ import annotations

import numpy as np

from card_envs.core import history as hist
from card_envs.core.engine import Game
from card_envs.core.segments import Segment, rooms


def player_range(game_cls: type[Game]) -> tuple[int, int]:
    option = game_cls.options["num_players"]
    return int(option.low), int(option.high)


def optional(game_cls: type[Game]) -> list[Segment]:
    return [s for s in game_cls.obs_segments if s.option is not None]


def padded_size(game_cls: type[Game], history: int = 0) -> int:
    """Slots of the padded layout of the game with `history` public actions."""
    low, high = player_range(game_cls)
    seats = sum(s.unit * s.blocks(high) for s in game_cls.obs_segments)
    count = high - low + 1 if high > low else 0
    return seats + count + len(optional(game_cls)) + history_slots(game_cls, history)


def history_slots(game_cls: type[Game], history: int) -> int:
    return hist.obs_slots(history, game_cls.max_players(), game_cls.history_codes)


class Padding:
    """Scatters observations of `game`'s config into the padded layout of its game, with
    the `history` most recent public actions (default: all the config keeps); with
    `padded=False`, into the config's own layout with that history (a cut only)."""

    def __init__(self, game: Game, history: int | None = None, padded: bool = True) -> None:
        cls = type(game)
        self.history = game.history if history is None else history
        if not 0 <= self.history <= game.history:
            raise ValueError(
                f"{cls.env_id}: a layout with history={self.history} needs a config with "
                f"history >= {self.history}; this one has history={game.history}"
            )
        kept = history_slots(cls, self.history)
        self.keep = game.game_obs_size + kept  # the observation's slots that are read
        self.padded = padded
        if padded:
            self._scatter(game)
        else:
            self.index = np.arange(self.keep)
            self.ones = np.zeros(0, dtype=np.int64)
            self.size = self.keep
        self.identity = self.size == game.obs_size and self.keep == game.obs_size

    def _scatter(self, game: Game) -> None:
        """`index`, `ones` and `size` of the padded layout."""
        cls = type(game)
        low, high = player_range(cls)
        n, config = game.num_players, game.config
        room = rooms(cls.obs_segments, high)
        self.index = np.concatenate([  # a segment's blocks start its room, in seat order
            room[seg.name][0] + np.arange(seg.size(config)) for seg in cls.obs_segments
        ])  # fmt: skip
        start = sum(size for _, size in room.values())
        if len(self.index) != game.game_obs_size:
            raise AssertionError(
                f"{cls.env_id}: obs_segments give {len(self.index)} slots for {config}, "
                f"the observation has {game.game_obs_size} (before the history)"
            )
        ones = []
        if high > low:
            ones.append(start + n - low)
            start += high - low + 1
        for k, seg in enumerate(optional(cls)):
            if config[seg.option]:
                ones.append(start + k)
        self.ones = np.array(ones, dtype=np.int64)
        self.size = padded_size(cls, self.history)
        kept = np.arange(self.keep - game.game_obs_size)
        self.index = np.concatenate([self.index, padded_size(cls) + kept])

    def __call__(self, observations: np.ndarray) -> np.ndarray:
        """Padded copies of a batch (or one) of this config's observations, float32."""
        obs = np.asarray(observations, dtype=np.float32)
        if self.identity:
            return obs.copy()
        obs = obs[..., : self.keep]
        out = np.zeros(obs.shape[:-1] + (self.size,), dtype=np.float32)
        out[..., self.index] = obs
        out[..., self.ones] = 1.0
        return out

    def bounds(self, game: Game) -> tuple[np.ndarray, np.ndarray]:
        """Observation bounds of the padded layout, the same for every config of the game
        with as much history: the widest of every player count's bounds with every optional
        segment on."""
        cls = type(game)
        low_n, high_n = player_range(cls)
        low = np.zeros(self.size, dtype=np.float32)
        high = np.ones(self.size, dtype=np.float32)
        every = {s.option: True for s in optional(cls)}
        for n in range(low_n, high_n + 1):
            full = cls(**{**game.config, **every, "num_players": n})
            lo, hi = full.obs_bounds()
            index = Padding(full, self.history).index
            low[index] = np.minimum(low[index], lo[: len(index)])
            high[index] = np.maximum(high[index], hi[: len(index)])
        return low, high

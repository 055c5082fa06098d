"""Rummidrez as a `Game`: options, observation bounds, action names and text; its
state_dict is read and written by `positions`.

`Rummidrez` is the 2-4 player game (`rummidrez_v0`); `RummidrezSolo` the solo variant on the
same engine, served as the Gymnasium env `rummidrez_solo_v0`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from card_envs.core import layout
from card_envs.core.config import COUNT_CAP, Option
from card_envs.core.engine import Game
from card_envs.core.loading import Reader
from card_envs.core.scene import Scene
from card_envs.games.rummidrez import batched, positions, search, table
from card_envs.games.rummidrez import engine as k
from card_envs.games.rummidrez.groups import card_name, card_names
from card_envs.games.rummidrez.heuristic import heuristic_actions

_TABLE_OPTIONS = {
    "neutral_at_ends": Option(
        False, "a neutral may also stand at a group's ends (default: only strictly inside)"
    ),
    "max_placements": Option(
        k.NUM_CARDS,
        "placements per turn, undone ones included (then only undo or end melding); at least "
        "the 7 of an opening meld",
        low=k.OPEN_MIN,
        high=COUNT_CAP,
    ),
    "hints": Option(
        False, "the observation ends with the heuristic's move for the seat to act (its cards)"
    ),
}


def action_name(action: int) -> str:
    if action == k.DRAW:
        return "draw"
    if action < k.PLACE:
        return f"take the top {action - k.TAKE + 1} of the discard pile"
    if action < k.UNDO:
        return f"place {card_name(action - k.PLACE)}"
    if action == k.UNDO:
        return "undo this turn's placements"
    if action == k.END_MELD:
        return "end melding"
    return f"discard {card_name(action - k.DISCARD)}"


class _RummidrezBase(Game):
    engine = k
    obs_segments = k.OBS_SEGMENTS
    batched = batched
    heuristic_kernel = heuristic_actions
    search_kernel = search.search
    compile_seconds = 34  # the folder's two games together, which share the solver
    search_moves_kernel = search.search_moves
    game_state_size = k.STATE_SIZE
    history_codes = k.HISTORY_CODES
    num_actions = k.NUM_ACTIONS
    soak_measure_name = "table cards at the end"

    def __init__(self, **config: Any) -> None:
        super().__init__(**config)
        self.game_obs_size = k.obs_size(self.num_players, self.config["hints"])

    def soak_measure(self, row: np.ndarray) -> float:
        """Cards on the table when the game ends (its last hand's, the final turn's placements
        included): what the soak reports to show that its tables fill (random seats never
        lay a meld)."""
        return float(sum(row[base : base + k.NUM_IDS].sum() for base in (k.TABLE, k.PLACED)))

    def _encode(self, row: np.ndarray, solo: bool) -> None:
        c = self.config
        row[layout.NUM_PLAYERS] = self.num_players
        row[k.CFG_SOLO] = int(solo)
        row[k.CFG_ENDS] = int(c["neutral_at_ends"])
        row[k.CFG_HINTS] = int(c["hints"])
        row[k.CFG_MAX_PLACE] = c["max_placements"]
        row[k.CFG_REWARD] = k.REWARD_WIN if c.get("reward", "win") == "win" else k.REWARD_SCORE
        row[k.CFG_MATCH] = int(c.get("match", False))
        row[k.CFG_REDISCARD] = int(c.get("rediscard", True))
        row[k.CFG_MAX_TURNS] = c.get("max_turns", k.NUM_CARDS)

    def game_obs_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        n = self.num_players
        high = np.zeros(self.game_obs_size, dtype=np.float32)
        copies = np.full(k.NUM_IDS, k.COPIES, dtype=np.float32)
        copies[k.NEUTRAL] = k.NEUTRALS
        bounds = {
            "hand": copies,
            "table": copies,
            "placed": copies,
            "discard_depth": k.MAX_TAKE,
            "discard_depth2": k.MAX_TAKE,
            "known": np.tile(copies, n - 1),
            "hand_sizes": k.NUM_CARDS,
            "opened": 1,
            "points": k.target_points(max(n, 2)) + k.NUM_CARDS,
            "to_act": 1,
            "phase": 1,
            "piles": k.NUM_CARDS,
            "hint": copies,
        }
        for name, (start, size) in k.obs_slices(n, self.config["hints"]).items():
            if size:
                high[start : start + size] = bounds[name]
        return np.zeros(self.game_obs_size, dtype=np.float32), high

    def fields(self, row: np.ndarray) -> dict:
        return positions.fields(self, row)

    def load_fields(self, r: Reader, row: np.ndarray) -> None:
        positions.load_fields(self, r, row)

    def render(self, row: np.ndarray, seat: int) -> str:
        s = self.state_dict(row)
        n = s["num_players"]
        p = s["current_player"]
        top = s["discard_pile"][-5:]
        if s["done"]:
            head = "Game over. " + ", ".join(f"player_{q} {s['scores'][q]:g}" for q in range(n))
        else:
            head = f"player_{p} to act ({s['phase']} phase)."
        lines = [
            head,
            f"Draw pile: {len(s['draw_pile'])} card(s). Discard pile: {len(s['discard_pile'])} "
            f"card(s), top last: {card_names(top)}",
            f"Table ({sum(map(len, s['table']))} cards):",
            *(f"  {card_names(g)}" for g in s["table"]),
        ]
        if s["placed"]:
            lines.append(f"Placed this turn: {card_names(s['placed'])}")
        for q in range(n):
            who = "you" if q == seat else f"player_{q}"
            flags = f"{'opened' if s['opened'][q] else 'not opened'}, {s['points'][q]} point(s)"
            if q == seat:
                lines.append(f"  {who} ({flags}): {card_names(s['hands'][q])}")
            else:
                known = f"; known to hold {card_names(s['known'][q])}" if s["known"][q] else ""
                lines.append(f"  {who} ({flags}): {len(s['hands'][q])} card(s){known}")
        return "\n".join(lines)

    def table(self, row: np.ndarray, viewer: int | None) -> Scene:
        return table.scene(self, row, viewer)

    def action_name(self, action: int) -> str:
        return action_name(action)

    def describe(self, row: np.ndarray, action: int, actor: int, viewer: int) -> str:
        """As `action_name`, with the cards a take from the discard pile gets (all public).
        It reads the discard pile only: a take deeper than the pile (never legal) is a
        `ValueError`, not the hidden cards in the row's slots below it."""
        if not k.TAKE <= action < k.PLACE:
            return action_name(action)
        count, top = action - k.TAKE + 1, int(row[k.DISCARD_N])
        if count > top:
            raise ValueError(
                f"{self.env_id}: action {action} ({action_name(action)}) is not legal with "
                f"{top} card(s) in the discard pile; the legal actions are "
                f"{self.legal_actions(row).tolist()}"
            )
        cards = row[k.DISCARD_PILE + top - count : k.DISCARD_PILE + top]
        return f"take the top {count} of the discard pile: {card_names([int(c) for c in cards])}"

    def heuristic_args(self) -> tuple:
        """The seats, the neutrals rule, and whether the observation holds the hint (read
        from the config, not from the observation's width, which `history` widens too)."""
        return (self.num_players, bool(self.config["neutral_at_ends"]), self.config["hints"])


class Rummidrez(_RummidrezBase):
    env_id = "rummidrez_v0"
    title = "Rummidrez"
    derived_options = ("hints",)  # not solo: its hint is kept in the row by `step`
    ismcts_10ms = "ismcts:16"  # it searches only its meld decisions (docs/agents.md)
    ismcts_larger = "ismcts:32"
    speed_targets = (3.0, 40.0)
    speed_configs = (dict(num_players=4),)
    options = {
        "num_players": Option(2, "number of players", low=2, high=k.MAX_PLAYERS),
        "reward": Option(
            "win",
            "'win': the winner gets 1 at the end (ties share); 'score': at the end of each "
            "hand its winner gets the cards left in the other hands",
            ("win", "score"),
        ),
        "match": Option(False, "play hands until a seat has 14 / 28 / 42 points (2 / 3 / 4)"),
        "rediscard": Option(
            True, "a card taken from the discard pile may be discarded in the same turn"
        ),
        "max_turns": Option(
            200, "a hand is truncated after this many full turns", low=1, high=COUNT_CAP
        ),
        **_TABLE_OPTIONS,
    }
    soak_configs = tuple(dict(num_players=n) for n in (2, 3, 4))  # whole hands, not cut short
    test_configs = (
        *(dict(num_players=n, max_turns=12, max_placements=12) for n in (2, 3, 4)),
        dict(num_players=2, match=True, reward="score", max_turns=8, max_placements=10),
        dict(num_players=3, neutral_at_ends=True, rediscard=False, max_turns=12, max_placements=12),
        dict(num_players=2, hints=True, max_turns=12, max_placements=12),
        dict(num_players=3, max_turns=12, max_placements=12, history=8),
    )

    def encode_config(self, row: np.ndarray) -> None:
        self._encode(row, solo=False)

    def reward_range(self) -> tuple[float, float]:
        if self.config["reward"] == "win":
            return -1.0, 1.0
        return -1.0, float(k.NUM_CARDS)


class RummidrezSolo(_RummidrezBase):
    """The solo variant: one seat, no discard, an automatic draw after each melding phase."""

    env_id = "rummidrez_solo_v0"
    title = "Rummidrez solo"
    options = {"num_players": Option(1, "always 1", low=1, high=1), **_TABLE_OPTIONS}
    test_configs = (dict(), dict(neutral_at_ends=True, hints=True, max_placements=12))
    private_hands = False
    # a solo game checks a whole table at each placement (about 0.15 s a game): 1% of the
    # soak's games, so that Rummidrez's full soak stays within hours
    soak_share = 0.01

    def encode_config(self, row: np.ndarray) -> None:
        self._encode(row, solo=True)

    def reward_range(self) -> tuple[float, float]:
        return -float(k.SOLO_FAILED + k.NUM_CARDS), 0.0

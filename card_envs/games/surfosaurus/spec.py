"""Surfosaurus MAX as a `Game`: options, showdown, observation bounds, state_dict, text."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from card_envs.core import combos, layout
from card_envs.core.config import Option
from card_envs.core.engine import Game
from card_envs.core.scene import Scene
from card_envs.games.surfosaurus import batched, search
from card_envs.games.surfosaurus import engine as k
from card_envs.games.surfosaurus.heuristic import heuristic_actions

COLOUR_NAMES = ("red", "orange", "yellow", "green", "blue", "purple", "black")
DEFAULT_POINTS = tuple(max(2, 13 - v) for v in range(1, 13))


def card_id(colour: int, value: int) -> int:
    return colour * combos.NUM_VALUES + value - 1


def card_of(cid: int) -> list[int]:
    """[colour, value] of a card id."""
    return [int(cid) // combos.NUM_VALUES, int(cid) % combos.NUM_VALUES + 1]


def card_name(cid: int) -> str:
    colour, value = card_of(cid)
    return f"{COLOUR_NAMES[colour]} {value}"


@dataclass(frozen=True)
class Showdown:
    """The best k-card combo of a table and how every card counts in it."""

    category: str
    values: tuple[int, ...]
    full: tuple[int, ...]
    half: tuple[int, ...]


def _is_int(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


def showdown(cards: Sequence[tuple[int, int]], k: int) -> Showdown:
    """Best k-card combo of distinct (colour, value) cards, with the cards that score full and
    half points (indices into `cards`), by the unresolvable-tie rule."""
    if not _is_int(k) or k not in (4, 5):
        raise ValueError(f"k must be 4 or 5, got {k!r}")
    ids = []
    for card in cards:
        if len(card) != 2 or not all(map(_is_int, card)):
            raise ValueError(f"a card is a (colour, value) pair of ints, got {card!r}")
        colour, value = card
        if not (0 <= colour < combos.NUM_COLOURS and 1 <= value <= combos.NUM_VALUES):
            raise ValueError(f"card {card!r}: colour must be in 0..6 and value in 1..12")
        ids.append(card_id(colour, value))
    if len(set(ids)) != len(ids):
        raise ValueError(f"cards must be distinct, got {list(cards)}")
    if len(ids) < k:
        raise ValueError(f"a {k}-card combo needs at least {k} cards, got {len(ids)}")
    flags = np.zeros(len(ids), dtype=np.int64)
    score = combos.combo_flags(np.array(ids, dtype=np.int64), k, flags)
    category, values = combos.decode_score(int(score), k)
    return Showdown(
        category,
        values,
        tuple(int(i) for i in np.flatnonzero(flags == combos.FULL)),
        tuple(int(i) for i in np.flatnonzero(flags == combos.HALF)),
    )


# Largest points value: every score, half points and the tie-break key stay exact in the
# float32 observation (7 x 12 x 10,000 < 2**24) and in outcome's float64 key.
MAX_POINTS = 10_000


def _points_table(value) -> tuple[int, ...]:
    table = tuple(value) if isinstance(value, (tuple, list, np.ndarray)) else ()
    if len(table) != combos.NUM_VALUES or not all(
        _is_int(p) and 0 <= p <= MAX_POINTS for p in table
    ):
        raise ValueError(f"must be 12 ints in 0..{MAX_POINTS}: the points of values 1..12")
    return tuple(int(p) for p in table)


class Surfosaurus(Game):
    env_id = "surfosaurus_max_v0"
    title = "Surfosaurus MAX"
    options = {
        "num_players": Option(2, "number of players", low=2, high=6),
        "reward": Option(
            "win", "'win': winners share 1; 'score': the final points", ("win", "score")
        ),
        "points": Option(DEFAULT_POINTS, "points of card values 1..12", validate=_points_table),
        "hints": Option(
            False,
            "observations end with 84 slots: for each card in hand, the points the seat "
            "would score if the round ended with that card added to the display",
            (False, True),
        ),
    }
    engine = k
    obs_segments = k.OBS_SEGMENTS
    derived_options = ("hints",)
    batched = batched
    heuristic_kernel = heuristic_actions
    search_kernel = search.search
    test_configs = (
        *(dict(num_players=n, hints=h) for n in range(2, 7) for h in (False, True)),
        dict(num_players=3, reward="score"),
        dict(num_players=4, points=(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)),
    )
    state_size = k.STATE_SIZE
    num_actions = k.NUM_CARDS

    def __init__(self, **config) -> None:
        super().__init__(**config)
        self.obs_size = k.obs_size(self.num_players, self.config["hints"])
        self._points = np.array(self.config["points"], dtype=np.int64)

    def encode_config(self, row: np.ndarray) -> None:
        row[layout.NUM_PLAYERS] = self.num_players
        row[k.CFG_REWARD] = k.REWARD_WIN if self.config["reward"] == "win" else k.REWARD_SCORE
        row[k.CFG_POINTS : k.CFG_POINTS + combos.NUM_VALUES] = self.config["points"]
        row[k.CFG_HINTS] = int(self.config["hints"])

    def reward_range(self) -> tuple[float, float]:
        if self.config["reward"] == "win":
            return -1.0, 1.0
        return -1.0, float(combos.NUM_COLOURS * sum(self.config["points"]))

    def obs_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        n = self.num_players
        high = np.ones(self.obs_size, dtype=np.float32)
        scores = k.NUM_CARDS * (n + 3)
        all_points = combos.NUM_COLOURS * sum(self.config["points"])
        for r in range(n):
            high[scores + 3 * r : scores + 3 * r + 3] = (all_points, all_points / 2, k.NUM_CARDS)
        tail = scores + 3 * n
        high[tail] = int(k.total_rounds(n))
        high[tail + 1] = n * int(k.plays_per_round(n))
        high[tail + 2 + n] = k.NUM_CARDS
        high[tail + 3 + n :] = all_points  # hints, if any
        return np.zeros(self.obs_size, dtype=np.float32), high

    def fields(self, row: np.ndarray) -> dict:
        n = self.num_players
        scores = np.zeros(n)
        k.outcome(row, scores, np.zeros(n))
        hands = [
            sorted(card_of(c) for c in row[k.HANDS + p * k.HAND_SIZE :][: k.HAND_SIZE] if c >= 0)
            for p in range(n)
        ]
        draw = int(row[k.DRAW])
        count = int(row[k.DISP_N])
        return {
            "num_players": n,
            "k": int(k.combo_size(n)),
            "current_player": int(row[layout.PLAYER]),
            "round": int(row[k.ROUND]),
            "rounds": int(k.total_rounds(n)),
            "starting_player": int(row[k.START]),
            "play_in_round": int(row[k.PLAY]),
            "hands": hands,
            "draw_pile": [card_of(c) for c in row[k.DECK + draw : k.DECK + k.NUM_CARDS]],
            "removed": [card_of(c) for c in row[k.DECK : k.DECK + int(k.removed_cards(n))]],
            "display": [
                [*card_of(row[k.DISP_CARD + i]), int(row[k.DISP_SEAT + i])] for i in range(count)
            ],
            "out_of_play": [card_of(c) for c in np.flatnonzero(row[k.OUT : k.OUT + k.NUM_CARDS])],
            "score2": [int(2 * row[k.FULL_PTS + p] + row[k.HALF2 + p]) for p in range(n)],
            "cards_collected": [int(row[k.COLLECTED + p]) for p in range(n)],
            "scores": [float(s) for s in scores],
            "done": bool(row[layout.STATUS] != layout.RUNNING),
        }

    def render(self, row: np.ndarray, seat: int) -> str:
        s = self.state_dict(row)
        n = s["num_players"]
        head = (
            "Game over."
            if s["done"]
            else f"Round {s['round'] + 1}/{s['rounds']}, play {s['play_in_round'] + 1}; "
            f"best {s['k']}-card combo scores; {len(s['draw_pile'])} card(s) in the pile."
        )

        def who(p: int) -> str:
            return "dummy" if p < 0 else ("you" if p == seat else f"player_{p}")

        display = ", ".join(f"{COLOUR_NAMES[c]} {v} ({who(p)})" for c, v, p in s["display"]) or "-"
        lines = [head, f"  display: {display}"]
        for q in range(n):
            p = (seat + q) % n
            lines.append(
                f"  {who(p):>9}: {s['scores'][p]:g} points, {s['cards_collected'][p]} cards"
            )
        hand = ", ".join(f"{COLOUR_NAMES[c]} {v}" for c, v in s["hands"][seat])
        lines.append(f"  your hand: {hand}")
        return "\n".join(lines)

    def table(self, row: np.ndarray, viewer: int | None) -> Scene:
        from card_envs.games.surfosaurus import table  # here: table imports card_id from us

        return table.scene(self, row, viewer)

    def action_name(self, action: int) -> str:
        return card_name(action)

    def describe(self, row: np.ndarray, action: int, actor: int, viewer: int) -> str:
        return f"play {card_name(action)}"

    def heuristic_args(self) -> tuple:
        return (self.num_players, self._points)

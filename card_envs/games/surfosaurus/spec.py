"""Surfosaurus MAX as a `Game`: options, showdown, observation bounds, state_dict, text."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from card_envs.core import combos, layout, rng, views
from card_envs.core.config import Option
from card_envs.core.engine import Game
from card_envs.core.loading import FIELD, Reader
from card_envs.core.scene import Scene
from card_envs.games.surfosaurus import batched, search, table
from card_envs.games.surfosaurus import engine as k
from card_envs.games.surfosaurus.engine import card_id, card_of
from card_envs.games.surfosaurus.heuristic import heuristic_actions

COLOUR_NAMES = ("red", "orange", "yellow", "green", "blue", "purple", "black")
DEFAULT_POINTS = tuple(max(2, 13 - v) for v in range(1, 13))


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


Card = tuple[int, int]  # (colour, value), as a state dict lists it
ALL_CARDS = [tuple(card_of(c)) for c in range(k.NUM_CARDS)]


@dataclass(frozen=True)
class Shape:
    """What the number of cards played fixes in every game: the cards each seat holds, the
    pile, the seats of the display's cards in order (-1 a dummy), the cards out of play, the
    starting seat and the seat to act."""

    hands: tuple[int, ...]
    pile: int
    display: tuple[int, ...]
    out: int
    start: int
    player: int


@lru_cache(maxsize=512)
def shape_after(num_players: int, turns: int) -> Shape:
    """The shape of a game after `turns` plays: the engine plays them on some deal (which
    cards are played changes none of it)."""
    row = Surfosaurus(num_players=num_players).new_row()
    rng.seed_row(row, 0)
    k.reset(row)
    mask = np.zeros(k.NUM_CARDS, dtype=np.int8)
    rewards = np.zeros(num_players, dtype=np.float32)
    for _ in range(turns):
        k.legal(row, mask)
        k.step(row, int(mask.argmax()), rewards)
    hands = row[k.HANDS : k.HANDS + num_players * k.HAND_SIZE].reshape(num_players, -1)
    count = int(row[k.DISP_N])
    return Shape(
        hands=tuple(int(h) for h in (hands >= 0).sum(axis=1)),
        pile=k.NUM_CARDS - int(row[k.DRAW]),
        display=tuple(int(s) for s in row[k.DISP_SEAT : k.DISP_SEAT + count]),
        out=int(row[k.OUT : k.OUT + k.NUM_CARDS].sum()),
        start=int(row[k.START]),
        player=int(row[layout.PLAYER]),
    )


def _card(r: Reader, key: str, item: Any) -> Card:
    if not isinstance(item, (list, tuple)) or len(item) != 2:
        r.fail(key, f"{item!r} is not a [colour, value] card")
    colour = r.int(f"{key}[0]", 0, combos.NUM_COLOURS - 1, value=item[0])
    return colour, r.int(f"{key}[1]", 1, combos.NUM_VALUES, value=item[1])


def _cards(r: Reader, key: str, count: int, why: str, value: Any = FIELD) -> list[Card]:
    """A list of `count` cards (`why` says where the count comes from)."""
    items = r.get(key) if value is FIELD else value
    if not isinstance(items, (list, tuple)):
        r.fail(key, f"{items!r} is not a list of cards")
    if len(items) != count:
        r.fail(key, f"holds {len(items)} card(s); {why} {count}")
    return [_card(r, f"{key}[{i}]", item) for i, item in enumerate(items)]


def _sorted(r: Reader, key: str, cards: list[Card]) -> None:
    if cards != sorted(cards):
        r.fail(key, "list the cards in order (colour, then value), as state_dict does")


def _ids(cards: Sequence[Card]) -> list[int]:
    return [card_id(c, v) for c, v in cards]


RULES_SUMMARY = """\
Surfosaurus MAX for 2 to 6 players. 84 cards: seven colours (red, orange, yellow, green, \
blue, purple, black), values 1 to 12, each card once. Low values are worth many points \
(by default 1 is worth 12, down to 2 for 11 and 12). Some cards are set aside unseen; \
each player holds 7.

A round: starting with the round's first player and going on in seat order, each player \
plays one card face up onto the display, then draws one while the pile lasts; everyone \
plays 3 cards a round with 2 or 3 players, 2 with 4 to 6. With 2 players a dummy card from \
the pile joins the display after each pair of plays; it scores for nobody.

Scoring a round: the best combination of exactly K displayed cards wins (K = 4 with 2 to 4 \
players, 5 with 5 or 6). From strongest: straight flush (K consecutive values in one \
colour), K of a kind, flush (K cards of one colour), straight (K consecutive values; 12 and \
1 do not connect), high cards; within a kind, compare the values from the highest down. \
Each card of that best combination scores its points for whoever played it; when the \
best combination can be made in more than one way, a card in all of them scores full \
points and a card in only some scores half. Then every displayed card leaves play.

The end: the first player moves one seat on each round, and the game lasts 6 rounds with 2 \
players, 2 per player with 3 or 4, one per player with 5 or 6. Most points wins; a tie goes \
to the player with more cards collected, then it is shared.

You see your hand, the display with who played each card, the cards out of play, every \
score and hand size; never the other hands or the pile.

Moves here: "play red 5" plays your red 5; "red 5" alone names it too, and each card has an \
id (colour x 12 + value - 1)."""


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
    ismcts_10ms = "ismcts:300"
    ismcts_larger = "ismcts:1200"
    speed_targets = (4.0, 60.0)
    compile_seconds = 22
    test_configs = (
        *(dict(num_players=n, hints=h) for n in range(2, 7) for h in (False, True)),
        dict(num_players=3, reward="score"),
        dict(num_players=4, points=(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)),
        dict(num_players=3, history=6),
    )
    game_state_size = k.STATE_SIZE
    history_codes = k.HISTORY_CODES
    num_actions = k.NUM_CARDS
    rules_summary = RULES_SUMMARY

    def __init__(self, **config) -> None:
        super().__init__(**config)
        self.game_obs_size = k.obs_size(self.num_players, self.config["hints"])
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

    def game_obs_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        n = self.num_players
        high = np.ones(self.game_obs_size, dtype=np.float32)
        scores = k.NUM_CARDS * (n + 3)
        all_points = combos.NUM_COLOURS * sum(self.config["points"])
        for r in range(n):
            high[scores + 3 * r : scores + 3 * r + 3] = (all_points, all_points / 2, k.NUM_CARDS)
        tail = scores + 3 * n
        high[tail] = int(k.total_rounds(n))
        high[tail + 1] = n * int(k.plays_per_round(n))
        high[tail + 2 + n] = k.NUM_CARDS
        high[tail + 3 + n :] = all_points  # hints, if any
        return np.zeros(self.game_obs_size, dtype=np.float32), high

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
            "full_points": [int(row[k.FULL_PTS + p]) for p in range(n)],
            # points of the cards scored half, at their full value: half of it is scored
            "half_points2": [int(row[k.HALF2 + p]) for p in range(n)],
            "score2": [int(2 * row[k.FULL_PTS + p] + row[k.HALF2 + p]) for p in range(n)],
            "cards_collected": [int(row[k.COLLECTED + p]) for p in range(n)],
            "scores": [float(s) for s in scores],
            "done": bool(row[layout.STATUS] != layout.RUNNING),
        }

    def load_fields(self, r: Reader, row: np.ndarray) -> None:
        """The loaded row equals the original but in slots the engine never reads again: the
        cards of a hand fill its first slots in order (a hand is a set to every kernel), the
        deck slots between the removed cards and the pile (cards dealt or drawn long ago)
        hold those cards in order, and display slots beyond the display are 0."""
        n = self.num_players
        status = int(row[layout.STATUS])
        if status == layout.TRUNCATED:
            r.fail("status", "Surfosaurus MAX games are never truncated")
        rounds, plays = int(k.total_rounds(n)), n * int(k.plays_per_round(n))
        done = r.int("round", 0, rounds)
        play = r.int("play_in_round", 0, plays)  # a finished game stays at its last play
        where = f"round {done}, play {play}"
        if status == layout.TERMINATED and (done, play) != (rounds, plays):
            r.fail("status", f"the game ends at round {rounds}, play {plays}, not at {where}")
        if status == layout.RUNNING and done == rounds:
            r.fail("status", f"all {rounds} rounds are played: 'terminated', not 'running'")
        if status == layout.RUNNING and play == plays:
            r.fail(
                "play_in_round", f"{plays} plays end a round; a running game is at 0..{plays - 1}"
            )
        turns = done * plays + play if status == layout.RUNNING else rounds * plays
        if row[layout.TURN] != turns:
            r.fail("turn", f"{row[layout.TURN]}, but {where} is turn {turns}")
        shape = shape_after(n, turns)
        hands = [_cards(r, f"hands[{p}]", shape.hands[p], f"at this point seat {p} holds", h)
                 for p, h in enumerate(r.per_seat("hands", n))]  # fmt: skip
        for p in range(n):
            _sorted(r, f"hands[{p}]", hands[p])
        pile = _cards(r, "draw_pile", shape.pile, "at this point the pile holds")
        removed = _cards(r, "removed", int(k.removed_cards(n)), f"{n} players set aside")
        out = _cards(r, "out_of_play", shape.out, f"{done} finished round(s) put out of play")
        _sorted(r, "out_of_play", out)
        display = self._read_display(r, shape)
        places = {"hands": [c for h in hands for c in h], "display": [c for c, _ in display]}
        places |= {"draw_pile": pile, "removed": removed, "out_of_play": out}
        r.partition(places, ALL_CARDS)
        full, half2, collected = self._read_scores(r, out)
        row[k.ROUND], row[k.PLAY], row[k.START] = done, play, shape.start
        row[layout.PLAYER] = shape.player
        gone = sorted(_ids(places["hands"] + places["display"] + out))  # dealt or drawn
        row[k.DECK : k.DECK + k.NUM_CARDS] = _ids(removed) + gone + _ids(pile)
        row[k.DRAW] = k.NUM_CARDS - len(pile)
        for p in range(k.MAX_PLAYERS):
            ids = _ids(hands[p]) if p < n else []
            row[k.HANDS + p * k.HAND_SIZE :][: k.HAND_SIZE] = ids + [-1] * (k.HAND_SIZE - len(ids))
        row[k.DISP_N] = len(display)
        for i, (card, seat) in enumerate(display):
            row[k.DISP_CARD + i], row[k.DISP_SEAT + i] = card_id(*card), seat
        row[k.OUT : k.OUT + k.NUM_CARDS] = 0
        row[k.OUT + np.array(_ids(out), dtype=np.int64)] = 1
        for base, values in ((k.FULL_PTS, full), (k.HALF2, half2), (k.COLLECTED, collected)):
            row[base : base + k.MAX_PLAYERS] = values + [0] * (k.MAX_PLAYERS - n)

    def _read_display(self, r: Reader, shape: Shape) -> list[tuple[Card, int]]:
        """This round's cards in play order with their seats, which the order of play fixes."""
        items = r.get("display")
        if not isinstance(items, (list, tuple)):
            r.fail("display", f"{items!r} is not a list of [colour, value, seat]")
        if len(items) != len(shape.display):
            r.fail(
                "display",
                f"holds {len(items)} card(s); at this point it holds {len(shape.display)}",
            )
        out = []
        for i, (item, seat) in enumerate(zip(items, shape.display, strict=True)):
            if not isinstance(item, (list, tuple)) or len(item) != 3:
                r.fail(f"display[{i}]", f"{item!r} is not a [colour, value, seat]")
            given = r.int(f"display[{i}][2]", k.DUMMY, self.num_players - 1, value=item[2])
            if given != seat:
                who = "a dummy card" if seat == k.DUMMY else f"seat {seat}'s"
                r.fail(f"display[{i}]", f"seat {given}, but card {i + 1} of the round is {who}")
            out.append((_card(r, f"display[{i}]", item[:2]), seat))
        return out

    def _read_scores(self, r: Reader, out: list[Card]) -> tuple[list[int], list[int], list[int]]:
        """Full and half points and cards collected: each seat's collected cards left play,
        and each adds its points to the full or the half points, so a seat's two sums add up
        to the points of some of its count of the cards out of play."""
        n = self.num_players
        full = r.ints("full_points", 0, length=n)
        half2 = r.ints("half_points2", 0, length=n)
        collected = r.ints("cards_collected", 0, length=n)
        if sum(collected) > len(out):
            r.fail("cards_collected", f"{sum(collected)} collected, but {len(out)} left play")
        worth = sorted(self.config["points"][v - 1] for _, v in out)
        for p in range(n):
            c, got = collected[p], full[p] + half2[p]
            low, high = sum(worth[:c]), sum(worth[len(worth) - c :])
            if not low <= got <= high:
                r.fail(
                    "full_points",
                    f"seat {p}'s full and half points add up to {got}, but {c} card(s) out of "
                    f"play are worth {low}..{high} (half_points2 counts them at full value)",
                )
        return full, half2, collected

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
        return table.scene(self, row, viewer)

    def view_fields(self, row: np.ndarray, seat: int) -> dict:
        """The round, the seat's hand, the display with who played each card, the pile's
        size, the cards out of play and every seat's hand size, points and cards collected;
        with `hints`, what each card in hand would score if the round ended with it."""
        s = self.state_dict(row)
        n = s["num_players"]

        def name(card) -> str:
            return f"{COLOUR_NAMES[card[0]]} {card[1]}"

        players = [
            {
                "player": views.agent_name(p),
                "cards_in_hand": len(s["hands"][p]),
                "points": views.plain(s["scores"][p]),
                "points_from_full_cards": int(row[k.FULL_PTS + p]),
                "points_from_half_cards": views.plain(row[k.HALF2 + p] / 2),
                "cards_collected": s["cards_collected"][p],
            }
            for p in range(n)
        ]
        out = {
            "round": min(s["round"] + 1, s["rounds"]),
            "rounds": s["rounds"],
            "round_started_by": views.agent_name(s["starting_player"]),
            "cards_played_this_round": s["play_in_round"] if not s["done"] else len(s["display"]),
            "plays_per_round": n * int(k.plays_per_round(n)),
            "combo_size": s["k"],
            "points_per_value": {str(v): p for v, p in enumerate(self.config["points"], 1)},
            "your_hand": [name(c) for c in s["hands"][seat]],
            "display": [
                {"card": name(c), "played_by": "dummy" if p < 0 else views.agent_name(p)}
                for *c, p in s["display"]
            ],
            "draw_pile_cards": len(s["draw_pile"]),
            "cards_out_of_play": [name(c) for c in s["out_of_play"]],
            "players": players,
        }
        if self.config["hints"]:
            gains = np.zeros(k.NUM_CARDS, dtype=np.float32)
            k.write_gains(row, seat, gains)
            out["points_if_the_round_ended_with"] = {
                name(c): views.plain(gains[card_id(*c)]) for c in s["hands"][seat]
            }
        return out

    def view_text(self, row: np.ndarray, seat: int) -> str:
        v = self.view(row, seat)
        lines = views.head_lines(self.title, v)
        if not v["done"]:
            lines.append(
                f"Round {v['round']} of {v['rounds']}, started by "
                f"{views.who(v['round_started_by'], v)}: {v['cards_played_this_round']} of "
                f"{v['plays_per_round']} plays made; the best {v['combo_size']} cards score."
            )
        worth = ", ".join(f"{value}: {p}" for value, p in v["points_per_value"].items())
        lines.append(f"Points per value: {worth}.")
        display = ", ".join(f"{d['card']} ({views.who(d['played_by'], v)})" for d in v["display"])
        lines.append(f"Display this round: {display or 'empty'}.")
        lines.append(f"Draw pile: {v['draw_pile_cards']} card(s).")
        lines.append(f"Your hand: {', '.join(v['your_hand']) or 'empty'}.")
        if "points_if_the_round_ended_with" in v and not v["done"]:
            gains = v["points_if_the_round_ended_with"]
            lines.append(
                "If the round ended with your card added, you would score: "
                + ", ".join(f"{card} {p}" for card, p in gains.items())
                + "."
            )
        lines.append("Players:")
        for p in v["players"]:
            lines.append(
                f"  {views.who(p['player'], v)}: {p['points']} points ("
                f"{p['points_from_full_cards']} from cards scored full, "
                f"{p['points_from_half_cards']} from cards scored half), "
                f"{p['cards_collected']} card(s) collected, {p['cards_in_hand']} in hand"
            )
        out = v["cards_out_of_play"]
        lines.append(f"Out of play ({len(out)}): {', '.join(out) or 'none'}.")
        return "\n".join(lines)

    def action_name(self, action: int) -> str:
        return card_name(action)

    def describe(self, row: np.ndarray, action: int, actor: int, viewer: int) -> str:
        return f"play {card_name(action)}"

    def heuristic_args(self) -> tuple:
        return (self.num_players, self._points)

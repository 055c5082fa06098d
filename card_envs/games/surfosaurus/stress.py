"""Surfosaurus MAX corner positions (`Game.stress_positions`): the display full of one value
or of two equal straight flushes (unresolvable ties: half points), the last play of the game
(the smallest hands, an empty pile with 2 or 6 players), every point scored by one seat in
full or in half (the score counters at their highs), and every seat tied before and after
the last round.

The number of cards played fixes the shape of a position (hand sizes, pile, display seats,
cards out of play), so the corners are real games stopped at a chosen play, with cards moved
between the unseen places and the display, and the scores set within what the cards out of
play allow."""

from __future__ import annotations

import copy
from collections.abc import Iterator

from card_envs.core import combos
from card_envs.core.engine import Game
from card_envs.core.stress import played, settled
from card_envs.games.surfosaurus import engine as k

DERIVED = ("score2", "scores", "done")
Card = tuple[int, int]  # (colour, value)
Path = tuple  # keys and indices of a card in the state dict


def _places(d: dict) -> Iterator[Path]:
    """Where the cards still in play lie: hands, display, pile and the removed cards."""
    for p, hand in enumerate(d["hands"]):
        yield from (("hands", p, i) for i in range(len(hand)))
    yield from (("display", i) for i in range(len(d["display"])))
    yield from (("draw_pile", i) for i in range(len(d["draw_pile"])))
    yield from (("removed", i) for i in range(len(d["removed"])))


def _card(d: dict, path: Path) -> Card:
    item = d[path[0]][path[1]] if len(path) == 2 else d[path[0]][path[1]][path[2]]
    return item[0], item[1]


def _put(d: dict, path: Path, card: Card) -> None:
    item = d[path[0]][path[1]] if len(path) == 2 else d[path[0]][path[1]][path[2]]
    item[:2] = card  # a display item keeps its seat


def _showing(d: dict, cards: list[Card]) -> dict:
    """`d` with `cards` (all still in play) moved into the display, then the hand of the seat
    to act, in that order, by swapping each with the card it replaces."""
    d = copy.deepcopy(d)
    actor = d["current_player"]
    targets = [("display", i) for i in range(len(d["display"]))]
    targets += [("hands", actor, i) for i in range(len(d["hands"][actor]))]
    where = {_card(d, path): path for path in _places(d)}
    for target, card in zip(targets, cards, strict=False):
        there, here = where[card], _card(d, target)
        _put(d, there, here)
        _put(d, target, card)
        where[here], where[card] = there, target
    d["hands"] = [sorted(hand) for hand in d["hands"]]
    return d


def _in_play(d: dict) -> set[Card]:
    return {_card(d, path) for path in _places(d)}


def _one_value(d: dict) -> list[Card]:
    """The cards still in play of the value with the most of them."""
    cards = _in_play(d)
    by_value = [[c for c in cards if c[1] == v] for v in range(1, combos.NUM_VALUES + 1)]
    return sorted(max(by_value, key=len))


def _twin_flushes(d: dict, size: int) -> list[Card]:
    """Two straight flushes of `size` equal values in two colours, all still in play (the
    highest such pair), or none."""
    cards = _in_play(d)
    for top in range(combos.NUM_VALUES, size - 1, -1):
        values = range(top - size + 1, top + 1)
        colours = [c for c in range(combos.NUM_COLOURS) if all((c, v) in cards for v in values)]
        if len(colours) >= 2:
            return [(c, v) for c in colours[:2] for v in values]
    return []


def _scored(game: Game, d: dict, seats: list[int], half: bool) -> dict:
    """`d` with every card out of play collected by `seats` in turn (one each, round robin)
    at full or (`half`) half points, every other seat at nothing."""
    n = game.num_players
    points = game.config["points"]
    full, half2, collected = [0] * n, [0] * n, [0] * n
    for i, (_, value) in enumerate(sorted(tuple(c) for c in d["out_of_play"])):
        p = seats[i % len(seats)]
        (half2 if half else full)[p] += points[value - 1]
        collected[p] += 1
    return {**d, "full_points": full, "half_points2": half2, "cards_collected": collected}


def _tied(game: Game, d: dict) -> dict:
    """`d` with every seat on the same score and cards collected: each collected as many of
    the cards out of play, at the cheapest (every seat's score is reachable)."""
    n = game.num_players
    out = d["out_of_play"]
    each = len(out) // n
    worth = sorted(game.config["points"][v - 1] for _, v in out)
    score = sum(worth[:each])
    return {
        **d,
        "full_points": [score] * n,
        "half_points2": [0] * n,
        "cards_collected": [each] * n,
    }


def positions(game: Game, seed: int) -> list[dict]:
    n = game.num_players
    plays, rounds = n * int(k.plays_per_round(n)), int(k.total_rounds(n))
    size = int(k.combo_size(n))
    first_round = played(game, seed, plays - 1)
    other_deal = played(game, seed + 1, plays - 1)
    last_play = played(game, seed + 2, rounds * plays - 1)
    last_round = played(game, seed + 3, (rounds - 1) * plays)
    end = played(game, seed + 4, rounds * plays)
    everyone = list(range(n))
    return [
        settled(game, d, DERIVED)
        for d in (
            # the last play of round 1 with two equal straight flushes: half points all round
            _showing(first_round, _twin_flushes(first_round, size)),
            # every card of one value in the display and the hand to play: K of a kind, ties
            _showing(other_deal, _one_value(other_deal)),
            # the last play of the game (the fewest cards in hand); seat 0 scored every card
            _scored(game, last_play, [0], half=False),
            # the last round starts; the last seat scored every card, all at half points
            _scored(game, last_round, [n - 1], half=True),
            # every seat tied before the last play, and at the end: the win is shared
            _tied(game, last_play),
            _tied(game, end),
            # the end with the cards shared round robin, at half points
            _scored(game, end, everyone, half=True),
        )
    ]

"""Double or Nothing corner positions (`Game.stress_positions`), at the config's stage g
(every count scales by 2**(g-1)): pinned and fresh cards of both seats from real play, the
turn one short of the cap and at it, a deck of exactly a hand and one of no card, hands of
every copy of one number, the largest play to beat that leaves both hands a card, and a game
over with a deck one card short of a hand."""

from __future__ import annotations

from collections import Counter

from card_envs.core import layout
from card_envs.core.engine import Game
from card_envs.core.stress import played, settled
from card_envs.games.double_or_nothing import engine as k
from card_envs.games.double_or_nothing.spec import HISTORY_KEYS, card_numbers

DERIVED = ("turns", "cards", "done", "truncated")
NUMBERS = range(1, k.NUM_NUMBERS + 1)
LOW, HIGH = NUMBERS[0], NUMBERS[-1]


def _pinned(row) -> bool:
    """After a hand, both seats have a number pinned and the opponent of the seat to act
    still draws from a segment: `resample_hidden` has its fresh cards to redraw."""
    opponent = 1 - row[layout.PLAYER]
    pinned = row[k.PINNED] and row[k.PINNED + 1]
    return bool(row[k.HANDS_PLAYED] and pinned and row[k.TOP_N + opponent])


def _counts(cards: list[int]) -> list[int]:
    """Counts of the numbers 1..8 among `cards`."""
    have = Counter(cards)
    return [have[v] for v in NUMBERS]


def _without(cards: list[int], taken: list[int]) -> list[int]:
    """`cards` less one copy of each item of `taken`, in order."""
    left = Counter(taken)
    out = []
    for v in cards:
        if left[v]:
            left[v] -= 1
        else:
            out.append(v)
    return out


def _dealt(game: Game, base: dict, hands: list, decks: list, **changes) -> dict:
    """`base` (its turn, hands played and seat to act) with the cards laid out anew: `hands`
    (the cards of the seat to act, then the other's), `decks` (seat 0's, seat 1's), and by
    default an empty trick led by the seat to act; without the hidden-information
    bookkeeping (each deck one segment, nothing drawn from it)."""
    p = base["current_player"]
    by_seat = hands if p == 0 else hands[::-1]
    d = {key: value for key, value in base.items() if key not in HISTORY_KEYS}
    d |= {"status": "running", "hands": [_counts(h) for h in by_seat], "decks": decks}
    d |= {"trick": [0] * k.NUM_NUMBERS, "current_play": None, "leader": p, **changes}
    return settled(game, d, DERIVED)


def positions(game: Game, seed: int) -> list[dict]:
    g = game.stage
    each, size = 8 * int(k.scale(g)), int(k.hand_size(g))
    cap = game.config["max_turns"] * int(k.scale(g))
    # the first deal whose game has not ended by then (a short max_turns leaves few turns)
    games = (played(game, seed + 2 + i, cap - 1, stop=_pinned) for i in range(100))
    memory = next(d for d in games if d["status"] == "running")
    base = played(game, seed + 1, min(cap - 1, 30))
    p = base["current_player"]
    # every card, in the random order of the base's decks
    cards = base["decks"][0] + base["decks"][1] + card_numbers(base["trick"])
    cards += card_numbers(base["hands"][0]) + card_numbers(base["hands"][1])
    hands, rest = [cards[:size], cards[size : 2 * size]], cards[2 * size :]
    alike = [[LOW] * each + [LOW + 1], [HIGH] * each + [HIGH - 1]]
    others = _without(cards, alike[0] + alike[1])
    half = len(others) // 2
    return [
        # pinned and fresh cards of both seats: what a seat remembers, as real play left it
        memory,
        # the turn one short of the cap: the next action truncates the game
        settled(game, {**memory, "turn": cap - 1}, DERIVED),
        # truncated at the cap
        settled(game, {**memory, "turn": cap, "status": "truncated"}, DERIVED),
        # seat 0's deck is exactly a hand: the next hand draws it to no card
        _dealt(game, base, hands, [rest[:size], rest[size:]]),
        # the seat to lead has a deck of no card: its passes draw nothing
        _dealt(game, base, hands, [[], rest] if p == 0 else [rest, []]),
        # hands of every copy of one number (1s and a 2 to lead, 8s and a 7 to answer)
        _dealt(game, base, alike, [others[:half], others[half:]]),
        # the largest play to beat that leaves both hands a card: every copy but one of
        # every number; no card left in the decks, so the game ends with the hand
        _dealt(
            game,
            base,
            [[1, 2, 3, 4], [5, 6, 7, 8]],
            [[], []],
            trick=[each - 1] * k.NUM_NUMBERS,
            current_play=[each - 1, LOW, HIGH],
            leader=1 - p,
        ),
        # the game over: every card in the decks, seat 0's one short of a hand
        _dealt(game, base, [[], []], [cards[: size - 1], cards[size - 1 :]], status="terminated"),
    ]

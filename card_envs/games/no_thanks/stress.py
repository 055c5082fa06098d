"""No Thanks! corner positions (`Game.stress_positions`): the tokens all in one place (a
seat, the pot), seats out of tokens facing a card, the last card, one seat holding a long
run of cards, and the turn counter at the highest value the rules allow."""

from __future__ import annotations

from card_envs.core.engine import Game
from card_envs.core.stress import played, settled
from card_envs.games.no_thanks import engine as k
from card_envs.games.no_thanks.spec import turn_range

DERIVED = ("scores", "done")


def _at(game: Game, d: dict, turn: str = "low", **changes) -> dict:
    """`d` with `changes`, its turn set to the fewest (`"low"`) or most (`"high"`) turns that
    can have led to the position (`spec.turn_range`), read back through the loader."""
    d = {**d, **changes}
    n = game.num_players
    taken = sum(len(cards) for cards in d["cards"])
    low, high = turn_range(taken, d["pot"], n * int(k.starting_tokens(n)))
    return settled(game, {**d, "turn": low if turn == "low" else high}, DERIVED)


def positions(game: Game, seed: int) -> list[dict]:
    n = game.num_players
    total = n * int(k.starting_tokens(n))
    mid = played(game, seed, 10**4, stop=lambda row: row[k.NEXT] >= 10)  # 9 cards taken
    last = played(game, seed + 1, 10**4, stop=lambda row: row[k.NEXT] == k.NUM_PLAYED)  # 24th
    end = played(game, seed + 2, 10**4)
    actor = mid["current_player"]
    alone = [0] * n
    alone[(actor + 1) % n] = total
    half = [0] * n
    half[(last["current_player"] + 1) % n] = total - total // 2
    every_card = [[] for _ in range(n)]
    every_card[0] = sorted(c for cards in end["cards"] for c in cards)
    taken = sorted(c for cards in last["cards"] for c in cards)
    return [
        # one seat holds every token; the seat to act has none, so it takes every card left
        _at(game, mid, "high", tokens=alone, pot=0),
        # every token in the pot: the seat to act must take it, with the turn at its high
        _at(game, mid, "high", tokens=[0] * n, pot=total),
        # one token each, the rest in the pot: a round of passes leaves every seat at 0
        _at(game, mid, tokens=[1] * n, pot=total - n),
        # the last card with half the tokens on it, taken by force: the game ends
        _at(game, last, "high", tokens=half, pot=total // 2),
        # every card taken so far in one seat: long runs, the last card to decide
        _at(game, last, cards=[taken] + [[] for _ in range(n - 1)]),
        # the end: one seat took all 24 cards, the turn counter at its highest
        _at(game, end, "high", cards=every_card),
    ]

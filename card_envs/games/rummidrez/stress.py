"""Rummidrez corner positions (`Game.stress_positions`): tables that fill, piles of 0-2
cards, hands full of copies, counters at their limits, the ends of a hand and of a match.

Random seats never open (36 random games of 2-4 players laid no card), so random play never
reaches a full table. Each position here is the state dict of a seeded deal with its cards
moved through the documented state-dict format (`docs/envs/rummidrez.md`): the table's groups
and the named cards are taken from the deal, the rest of its cards fill the piles and the
other hands in the deal's order, and the loader checks the result as it checks any user's
dict. The positions are legal for the loader, not all reachable in `max_turns` turns: a
table of 90 cards after six turns is a position the loader accepts and the engine must play.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from card_envs.core.engine import Game
from card_envs.core.stress import settled
from card_envs.games.rummidrez import engine as k
from card_envs.games.rummidrez.positions import SOLO_STOCK
from card_envs.games.rummidrez.solver import NUM_FIGURES as FIGURES
from card_envs.games.rummidrez.solver import NUM_NUMBERS as NUMBERS

BEFORE = {"draw": 0, "meld": 1, "discard": 2}  # a turn's actions before its phase: draw, END_MELD
DERIVED = ("num_players", "done", "truncated", "scores")  # the loader compares, we leave out


def _run(f: int, lo: int = 0, hi: int = NUMBERS - 1) -> list[int]:
    """Figure f's cards with the numbers lo + 1..hi + 1: a figure group."""
    return [f * NUMBERS + n for n in range(lo, hi + 1)]


def _column(n: int, lo: int = 0, hi: int = FIGURES - 1) -> list[int]:
    """Number n + 1 on the figures lo..hi: a colour group."""
    return [f * NUMBERS + n for f in range(lo, hi + 1)]


def _hole(group: list[int], i: int) -> list[int]:
    """The group with a neutral in place of its i-th card (inside: valid under both options)."""
    return [k.NEUTRAL if j == i else c for j, c in enumerate(group)]


class _Pool:
    """The deal's 112 cards in the deal's order (draw pile, then the hands): a position takes
    the cards it names, then the next ones."""

    def __init__(self, deal: dict) -> None:
        self.left = list(deal["draw_pile"]) + [c for hand in deal["hands"] for c in hand]

    def take(self, cards: list[int]) -> list[int]:
        for c in cards:
            self.left.remove(c)
        return list(cards)

    def next(self, count: int) -> list[int]:
        out, self.left = self.left[:count], self.left[count:]
        return out


@dataclass
class _Corner:
    """A config's facts the corners need, the seeded deal and the seed's draws."""

    game: Game
    deal: dict
    rng: np.random.Generator
    numbers: list[int] = field(default_factory=list)  # of the last `full_table`'s columns

    @property
    def n(self) -> int:
        return self.game.num_players

    @property
    def max_turns(self) -> int:
        return int(self.game.config.get("max_turns", k.NUM_CARDS))

    @property
    def max_placements(self) -> int:
        return int(self.game.config["max_placements"])

    def seat(self) -> int:
        return int(self.rng.integers(self.n))

    def match_points(self, p: int) -> tuple[list[int], int | None]:
        """In a match, every seat one point short of the target and p's neighbour the last
        hand's winner; without one, no points and no winner."""
        if not self.game.config.get("match"):
            return [0] * self.n, None
        return [int(k.target_points(self.n)) - 1] * self.n, (p + 1) % self.n

    def full_table(self, columns: int) -> list[list[int]]:
        """Every figure's run 1-9 (two with a neutral inside) and `columns` colour groups of
        all six figures (the last with a neutral inside): 54 + 6 * columns cards."""
        holes = self.rng.choice(FIGURES, 2, replace=False)
        groups = [
            _hole(_run(f), int(self.rng.integers(1, NUMBERS - 1))) if f in holes else _run(f)
            for f in range(FIGURES)
        ]
        self.numbers = sorted(int(n) for n in self.rng.choice(NUMBERS, columns, replace=False))
        groups += [_column(n) for n in self.numbers]
        if columns:
            groups[-1] = _hole(groups[-1], int(self.rng.integers(1, FIGURES - 1)))
        return groups

    def free_column(self) -> list[int]:
        """A colour group of a number the last `full_table` left without one: its second
        copies are free."""
        free = [n for n in range(NUMBERS) if n not in self.numbers]
        return _column(free[int(self.rng.integers(len(free)))])

    def pairs(self, ids: int, figures: range = range(FIGURES)) -> list[int]:
        """Both copies of `ids` random cards of `figures`."""
        cards = [f * NUMBERS + n for f in figures for n in range(NUMBERS)]
        chosen = self.rng.choice(cards, ids, replace=False)
        return [int(c) for c in sorted(chosen) for _ in range(k.COPIES)]

    def build(
        self,
        *,
        player: int,
        phase: str,
        hand_turns: int,
        table: list[list[int]] = (),
        hands: dict[int, list[int]] | None = None,
        placed: list[int] = (),
        placements: int = 0,
        opened: tuple[int, ...] | None = None,
        draw_n: int = 0,
        discard_n: int = 0,
        known: list[int] = (),
        taken: list[int] = (),
        points: list[int] | None = None,
        winner: int | None = None,
    ) -> dict:
        """The deal's dict with its cards moved: `table`, the `hands` named (the seat to act
        is known to hold `known`) and `placed` first, then `draw_n` cards to the draw pile
        and up to `discard_n` (at most one a turn) to the discard pile, the rest shared by
        the seats not named (all seats when all are), each first given what it lacks of its
        least: 14 cards before opening, else 1. Every seat has opened when the table holds
        cards, else none, unless `opened` names the seats. `turn` is the fewest actions
        that play `hand_turns` turns and `placements` (one undo when fewer are placed).
        Checked by the loader; returned as the state dict the engine writes."""
        n, solo = self.n, self.n == 1
        if opened is None:
            opened = tuple(range(n)) if table else ()
        pool = _Pool(self.deal)
        table = [pool.take(g) for g in table]
        hands = {q: pool.take(cards) for q, cards in (hands or {}).items()}
        placed = pool.take(list(placed))
        draw = pool.next(draw_n)
        others = [q for q in range(n) if q not in hands] or list(range(n))
        least = {
            q: max(0, (1 if q in opened else k.HAND_SIZE) - len(hands.get(q, []))) for q in others
        }
        room = len(pool.left) - sum(least.values())
        discard = pool.next(min(discard_n, hand_turns, room))  # one a turn
        spare, m = room - len(discard), len(others)
        for i, q in enumerate(others):
            hands[q] = hands.get(q, []) + pool.next(least[q] + (spare + i) // m)
        actions = hand_turns if solo else 3 * hand_turns + BEFORE[phase]
        d = copy.deepcopy(self.deal)
        d.update(
            turn=actions + placements + (placements > len(placed)),
            current_player=player,
            first_player=(player - hand_turns) % n,
            phase=phase,
            hands=[sorted(hands[q]) for q in range(n)],
            table=table,
            placed=sorted(placed),
            draw_pile=draw,
            discard_pile=discard,
            known=[sorted(known) if q == player else [] for q in range(n)],
            opened=[q in opened for q in range(n)],
            points=points or [0] * n,
            hand_turns=hand_turns,
            placements=placements,
            taken=sorted(taken),
            refilled=not solo,
            winner=winner,
        )
        return settled(self.game, d, DERIVED)


# --- the corners of 2-4 players -----------------------------------------------------------------
def _full_table_at_the_cap(s: _Corner) -> dict:
    # a 90-card table with 3 neutrals, mid-meld a placement short of the cap after an undo
    table = s.full_table(6)
    p = s.seat()
    column = s.free_column()
    hand_turns = s.max_turns // 2
    return s.build(
        player=p,
        phase="meld",
        hand_turns=hand_turns,
        table=table,
        hands={p: column[:4] + [k.NEUTRAL]},
        placed=column[4:],
        placements=s.max_placements - 1,
        draw_n=2,
        discard_n=hand_turns,
    )


def _hands_of_copies(s: _Corner) -> dict:
    # nobody opened, the seat to draw holds 12 pairs and the 4 neutrals; one card to draw
    p = s.seat()
    hand = s.pairs(12) + [k.NEUTRAL] * k.NEUTRALS
    hand_turns = max(0, s.max_turns - 2)
    return s.build(
        player=p,
        phase="draw",
        hand_turns=hand_turns,
        hands={p: hand},
        known=hand[:2],
        draw_n=1,
        discard_n=hand_turns,
    )


def _about_to_go_out(s: _Corner) -> dict:
    # two cards that end a table run empty the hand; a match one point short of its target
    table = [_run(f, 0, 6) for f in range(FIGURES)] + [_hole(_column(7, 0, 4), 2)]
    p = s.seat()
    points, winner = s.match_points(p)
    hand_turns = max(0, s.max_turns - 1)
    return s.build(
        player=p,
        phase="meld",
        hand_turns=hand_turns,
        table=table,
        hands={p: _run(int(s.rng.integers(FIGURES)), 7, 8)},
        draw_n=0,
        discard_n=3,
        points=points,
        winner=winner,
    )


def _last_turn(s: _Corner) -> dict:
    # the discard that truncates the hand at max_turns, by a seat holding cards just taken
    table = s.full_table(2)
    p = s.seat()
    hand = s.free_column()
    points, winner = s.match_points(p)
    hand_turns = max(0, s.max_turns - 1)
    return s.build(
        player=p,
        phase="discard",
        hand_turns=hand_turns,
        table=table,
        hands={p: hand},
        known=hand[:3],
        taken=hand[:3],
        draw_n=2,
        discard_n=hand_turns,
        points=points,
        winner=winner,
    )


def _no_refill(s: _Corner) -> dict:
    # both piles empty before a discard: the hand ends without a winner (a match: new deal)
    p = s.seat()
    points, winner = s.match_points(p)
    return s.build(
        player=p,
        phase="discard",
        hand_turns=max(0, s.max_turns - 2),
        table=s.full_table(3),
        points=points,
        winner=winner,
    )


def _pairs_at_the_cap(s: _Corner) -> dict:
    # a hand of pairs that form runs, three placements short of the cap, two cards just taken
    table = [_hole(_run(f), 4) if f == 0 else _run(f) for f in range(3) for _ in range(2)]
    p = s.seat()
    hand = s.pairs(6, range(3, FIGURES))
    hand_turns = max(1, s.max_turns // 2)
    return s.build(
        player=p,
        phase="meld",
        hand_turns=hand_turns,
        table=table,
        hands={p: hand},
        known=hand[:2],
        taken=hand[:2],
        placements=max(1, s.max_placements - 3),
        draw_n=1,
        discard_n=hand_turns - 1,
    )


def _winning_discard(s: _Corner) -> dict:
    # the winning discard of a card taken this turn (in a match, one point short: the match)
    table = s.full_table(5)
    p = s.seat()
    card = s.free_column()[:1]
    points, winner = s.match_points(p)
    hand_turns = max(0, s.max_turns - 1)
    return s.build(
        player=p,
        phase="discard",
        hand_turns=hand_turns,
        table=table,
        hands={p: card},
        known=card,
        taken=card,
        draw_n=1,
        discard_n=hand_turns,
        points=points,
        winner=winner,
    )


def _longest_discard_pile(s: _Corner) -> dict:
    # the longest discard pile the turns allow (every take id up to it legal), 1 card to draw
    table = [_run(f) for f in range(3)] + [_run(f, 0, 4) for f in range(3, FIGURES)]
    p = s.seat()
    hand_turns = max(0, s.max_turns - 1)
    return s.build(
        player=p,
        phase="draw",
        hand_turns=hand_turns,
        table=table,
        opened=tuple(q for q in range(s.n) if q != p),
        draw_n=1,
        discard_n=hand_turns,
    )


# --- the corners of the solo game ---------------------------------------------------------------
def _solo(s: _Corner, hand_turns: int, **fields: Any) -> dict:
    """A solo position: the seat in its meld phase, the draw pile what the turns leave."""
    return s.build(
        player=0, phase="meld", hand_turns=hand_turns, draw_n=SOLO_STOCK - hand_turns, **fields
    )


def _solo_last_card_full_table(s: _Corner) -> dict:
    # the deck's last card to draw, a full table, a placement short of the cap after an undo
    table = s.full_table(6)
    return _solo(
        s, SOLO_STOCK - 1, table=table, placed=s.free_column()[:2], placements=s.max_placements - 1
    )


def _solo_every_card_in_hand(s: _Corner) -> dict:
    # no card left to draw, nothing laid: all 112 cards in hand, the last melding phase
    return _solo(s, SOLO_STOCK)


def _solo_hand_completes_the_table(s: _Corner) -> dict:
    # a full table and a hand (a colour group) that completes it: the hand can be emptied
    table = s.full_table(5)
    hand = s.free_column()
    return _solo(s, sum(map(len, table)) + len(hand) - k.HAND_SIZE, table=table, hands={0: hand})


def _solo_pairs_at_the_cap(s: _Corner) -> dict:
    # eight draws left, nothing laid, 103 cards in hand: a neutral placed, one short of the cap
    hand = s.pairs(10) + [k.NEUTRAL] * k.NEUTRALS
    return _solo(
        s, SOLO_STOCK - 8, hands={0: hand[:-1]}, placed=hand[-1:], placements=s.max_placements - 1
    )


def _solo_one_card_left(s: _Corner) -> dict:
    # one card left to draw, a half-full table, the rest of the deck in hand
    return _solo(s, SOLO_STOCK - 1, table=[_run(f, 0, 5) for f in range(FIGURES)])


def _solo_first_phase_of_copies(s: _Corner) -> dict:
    # the first melding phase with 14 cards: five pairs and the four neutrals
    return _solo(s, 0, hands={0: s.pairs(5) + [k.NEUTRAL] * k.NEUTRALS})


MULTI: tuple[Callable[[_Corner], dict], ...] = (
    _full_table_at_the_cap,
    _hands_of_copies,
    _about_to_go_out,
    _last_turn,
    _no_refill,
    _pairs_at_the_cap,
    _winning_discard,
    _longest_discard_pile,
)
SOLO: tuple[Callable[[_Corner], dict], ...] = (
    _solo_last_card_full_table,
    _solo_every_card_in_hand,
    _solo_hand_completes_the_table,
    _solo_pairs_at_the_cap,
    _solo_one_card_left,
    _solo_first_phase_of_copies,
)


def positions(game: Game, seed: int) -> list[dict]:
    """The corner positions of `game`'s config, from the deal of `seed`. `check_stress`
    plays them by random, last-biased and heuristic play in turn: every third position
    (the heuristic's) has hands the solver answers quickly."""
    row = game.new_row()
    game.reset_row(row, seed)
    s = _Corner(game, game.state_dict(row), np.random.default_rng(seed))
    return [corner(s) for corner in (SOLO if game.num_players == 1 else MULTI)]

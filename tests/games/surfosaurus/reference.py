"""Plain-Python reference implementation of Surfosaurus MAX used as the test oracle.

Written from the rule text (/work/shared/rules/surfosaurus_max.txt) and the project rulings
only; it deliberately imports nothing from `card_envs`, so a bug in the engine cannot hide
here. Everything is done the slow, obvious way (every K-card subset is looked at).

Rules as implemented:
- 84 cards, colours 0..6 x values 1..12, card id = colour * 12 + (value - 1);
- removed face down before dealing: 2p 24, 3p 12, 4p 0, 5p 4, 6p 0; hands of 7 cards;
- a turn: play one card face up, then draw one if the draw pile has cards;
- each player plays 3 cards a round (2-3 players) or 2 (4-6 players); play j of a round is
  by seat (start + j) % n; the start of round r is seat r % n;
- K = 4 for 2-4 players, 5 for 5-6;
- 2 players: after the 2nd and the 4th play of a round the top card of the draw pile (if
  any) is revealed as a dummy card, displayed as if a third player had played it;
- at the end of a round, B = every K-subset of the displayed cards reaching the best
  (category, values); a card in every member of B scores full points, a card in some but
  not all of them half points; each seat scores its own cards, dummies score for nobody;
- combos, weakest to strongest: high cards, straight (K consecutive values, no wrap),
  flush (one colour), K of a kind, straight flush; within a category the K values sorted
  high to low compare lexicographically;
- every displayed card leaves play at the end of the round;
- rounds: 2p 6, 3-4p 2n, 5-6p n;
- ranking: most points, then most cards collected (full + half), still tied = all win;
- reward "win": share of the win; "score": the seat's final points.
Scores are kept in half points (integers).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import NamedTuple

NUM_COLOURS = 7
NUM_VALUES = 12
NUM_CARDS = NUM_COLOURS * NUM_VALUES  # 84
HAND_SIZE = 7
CATEGORY_NAMES = ("high_cards", "straight", "flush", "of_a_kind", "straight_flush")
HIGH_CARDS, STRAIGHT, FLUSH, OF_A_KIND, STRAIGHT_FLUSH = range(5)
DEFAULT_POINTS = tuple(max(2, 13 - v) for v in range(1, NUM_VALUES + 1))
REMOVED = {2: 24, 3: 12, 4: 0, 5: 4, 6: 0}
PLAYER_COUNTS = (2, 3, 4, 5, 6)
ALL_CARDS = tuple((c, v) for c in range(NUM_COLOURS) for v in range(1, NUM_VALUES + 1))

Card = tuple[int, int]  # (colour, value)


def card_id(card: Card) -> int:
    colour, value = card
    return colour * NUM_VALUES + value - 1


def card_of(cid: int) -> Card:
    colour, rest = divmod(int(cid), NUM_VALUES)
    return colour, rest + 1


def combo_size(num_players: int) -> int:
    return 4 if num_players <= 4 else 5


def cards_per_player(num_players: int) -> int:
    """Cards each player plays in one round."""
    return 3 if num_players <= 3 else 2


def plays_per_round(num_players: int) -> int:
    return num_players * cards_per_player(num_players)


def total_rounds(num_players: int) -> int:
    if num_players == 2:
        return 6
    if num_players <= 4:
        return 2 * num_players
    return num_players


def draw_pile_size(num_players: int) -> int:
    return NUM_CARDS - REMOVED[num_players] - HAND_SIZE * num_players


# --- combos -------------------------------------------------------------------------------


def classify(cards: Sequence[Card]) -> tuple[int, tuple[int, ...]]:
    """(category index, values high to low) of exactly K cards."""
    values = tuple(sorted((v for _, v in cards), reverse=True))
    one_colour = len({c for c, _ in cards}) == 1
    consecutive = all(values[i] - values[i + 1] == 1 for i in range(len(values) - 1))
    if one_colour and consecutive:
        return STRAIGHT_FLUSH, values
    if len(set(values)) == 1:
        return OF_A_KIND, values
    if one_colour:
        return FLUSH, values
    if consecutive:
        return STRAIGHT, values
    return HIGH_CARDS, values


class Showdown(NamedTuple):
    category: str
    values: tuple[int, ...]
    full: tuple[int, ...]  # indices into the cards
    half: tuple[int, ...]


def check_cards(cards: Sequence[Card], k: int) -> list[Card]:
    if k not in (4, 5):
        raise ValueError(f"k must be 4 or 5, got {k!r}")
    cards = [(int(c), int(v)) for c, v in cards]
    for c, v in cards:
        if not (0 <= c < NUM_COLOURS and 1 <= v <= NUM_VALUES):
            raise ValueError(f"bad card {(c, v)}")
    if len(set(cards)) != len(cards):
        raise ValueError("duplicate cards")
    if len(cards) < k:
        raise ValueError("fewer than k cards")
    return cards


def best_rank(cards: Sequence[Card], k: int) -> tuple[int, tuple[int, ...]]:
    """The best (category index, values) over every K-subset: the brute-force combo rank."""
    cards = check_cards(cards, k)
    return max(classify(sub) for sub in combinations(cards, k))


def brute_showdown(cards: Sequence[Card], k: int) -> Showdown:
    """The strongest K-card combo of the displayed cards and who scores, by brute force."""
    cards = check_cards(cards, k)
    ranked = [
        (classify([cards[i] for i in idx]), idx) for idx in combinations(range(len(cards)), k)
    ]
    best = max(rank for rank, _ in ranked)
    members = [set(idx) for rank, idx in ranked if rank == best]
    in_all = set.intersection(*members)
    in_some = set.union(*members)
    return Showdown(
        CATEGORY_NAMES[best[0]], best[1], tuple(sorted(in_all)), tuple(sorted(in_some - in_all))
    )


# --- the game -----------------------------------------------------------------------------


class RoundResult(NamedTuple):
    display: tuple[tuple[int, int, int], ...]  # (colour, value, seat), seat -1 = dummy
    showdown: Showdown
    gained2: tuple[int, ...]  # half points each seat gained


class RefSurfosaurus:
    """One game of Surfosaurus MAX with a fixed deal.

    `hands`: each seat's 7 cards; `draw_pile`: the rest of the played cards, next first;
    `removed`: the face-down removed cards. Cards are (colour, value) pairs; actions are
    card ids.
    """

    def __init__(
        self,
        num_players: int,
        hands: Sequence[Sequence[Card]],
        draw_pile: Sequence[Card],
        removed: Sequence[Card],
        points: Sequence[int] = DEFAULT_POINTS,
    ) -> None:
        if num_players not in PLAYER_COUNTS:
            raise ValueError(f"Surfosaurus MAX is for 2 to 6 players, not {num_players}")
        n = num_players
        hands = [[tuple(c) for c in h] for h in hands]
        draw_pile = [tuple(c) for c in draw_pile]
        removed = [tuple(c) for c in removed]
        if len(hands) != n or any(len(h) != HAND_SIZE for h in hands):
            raise ValueError("every seat starts with 7 cards")
        if len(removed) != REMOVED[n]:
            raise ValueError(f"{n} players remove {REMOVED[n]} cards")
        everything = [c for h in hands for c in h] + draw_pile + removed
        if sorted(everything) != list(ALL_CARDS):
            raise ValueError("a deal must use every card exactly once")
        if len(points) != NUM_VALUES:
            raise ValueError("points: one entry per value")
        self.num_players = n
        self.k = combo_size(n)
        self.points = tuple(points)
        self.rounds = total_rounds(n)
        self.plays_per_round = plays_per_round(n)
        self.hands: list[set[Card]] = [set(h) for h in hands]
        self.draw_pile: list[Card] = draw_pile
        self.removed: list[Card] = removed
        self.display: list[tuple[int, int, int]] = []
        self.out_of_play: list[Card] = []
        self.score2 = [0] * n
        self.full2 = [0] * n  # half points from full cards
        self.half2 = [0] * n  # half points from half cards
        self.full_cards = [0] * n
        self.half_cards = [0] * n
        self.round = 0
        self.play_in_round = 0
        self.done = False
        self.history: list[tuple[int, int]] = []  # (seat, card id)
        self.results: list[RoundResult] = []

    # --- queries ------------------------------------------------------------------------
    @property
    def starting_player(self) -> int:
        return self.round % self.num_players

    @property
    def player(self) -> int:
        return (self.starting_player + self.play_in_round) % self.num_players

    @property
    def collected(self) -> list[int]:
        return [f + h for f, h in zip(self.full_cards, self.half_cards, strict=True)]

    def legal_actions(self) -> list[int]:
        if self.done:
            return []
        return sorted(card_id(c) for c in self.hands[self.player])

    def scores(self) -> list[float]:
        return [s / 2 for s in self.score2]

    def winners(self) -> list[int]:
        keys = [(s, c) for s, c in zip(self.score2, self.collected, strict=True)]
        best = max(keys)
        return [p for p in range(self.num_players) if keys[p] == best]

    def wins(self) -> list[float]:
        w = self.winners()
        return [1.0 / len(w) if p in w else 0.0 for p in range(self.num_players)]

    def rewards(self, mode: str = "win") -> list[float]:
        if not self.done:
            return [0.0] * self.num_players
        if mode == "score":
            return self.scores()
        if mode != "win":
            raise ValueError(mode)
        return self.wins()

    # --- play ---------------------------------------------------------------------------
    def step(self, action: int) -> None:
        if action not in self.legal_actions():
            raise ValueError(f"illegal action {action}; legal: {self.legal_actions()}")
        p = self.player
        card = card_of(action)
        self.history.append((p, action))
        self.hands[p].remove(card)
        self.display.append((*card, p))
        if self.draw_pile:
            self.hands[p].add(self.draw_pile.pop(0))
        self.play_in_round += 1
        if self.num_players == 2 and self.play_in_round in (2, 4) and self.draw_pile:
            self.display.append((*self.draw_pile.pop(0), -1))
        if self.play_in_round == self.plays_per_round:
            self._end_round()

    def _end_round(self) -> None:
        cards = [(c, v) for c, v, _ in self.display]
        sd = brute_showdown(cards, self.k)
        gained = [0] * self.num_players
        for indices, full in ((sd.full, True), (sd.half, False)):
            for i in indices:
                _, value, seat = self.display[i]
                if seat < 0:
                    continue  # a dummy card scores for nobody
                pts2 = self.points[value - 1] * (2 if full else 1)
                gained[seat] += pts2
                self.score2[seat] += pts2
                if full:
                    self.full2[seat] += pts2
                    self.full_cards[seat] += 1
                else:
                    self.half2[seat] += pts2
                    self.half_cards[seat] += 1
        self.results.append(RoundResult(tuple(self.display), sd, tuple(gained)))
        self.out_of_play.extend(cards)
        self.display = []
        self.play_in_round = 0
        self.round += 1
        if self.round == self.rounds:
            self.done = True

    @classmethod
    def situation(
        cls,
        num_players: int,
        *,
        hands: Sequence[Sequence[Card]],
        draw_pile: Sequence[Card],
        removed: Sequence[Card],
        display: Sequence[tuple[int, int, int]] = (),
        out_of_play: Sequence[Card] = (),
        round: int = 0,
        full_points: Sequence[int] | None = None,
        half2: Sequence[int] | None = None,
        collected: Sequence[int] | None = None,
        points: Sequence[int] = DEFAULT_POINTS,
    ) -> RefSurfosaurus:
        """A game in a mid-game position: `display` is this round's cards in play order
        ((colour, value, seat), seat -1 for a dummy); so far each seat has `full_points`
        under the whole coconut, `half2` half points under the half coconut and `collected`
        cards. Every card must be somewhere exactly once."""
        n = num_players
        ref = cls.__new__(cls)
        hands = [[tuple(c) for c in h] for h in hands]
        display = [tuple(d) for d in display]
        everything = (
            [c for h in hands for c in h]
            + [tuple(c) for c in draw_pile]
            + [tuple(c) for c in removed]
            + [(c, v) for c, v, _ in display]
            + [tuple(c) for c in out_of_play]
        )
        if sorted(everything) != list(ALL_CARDS):
            raise ValueError("a situation must hold every card exactly once")
        if len(removed) != REMOVED[n] or len(hands) != n:
            raise ValueError("wrong number of removed cards or hands")
        if not 0 <= round < total_rounds(n):
            raise ValueError("round out of range")
        plays = [s for _, _, s in display if s >= 0]
        start = round % n
        if plays != [(start + j) % n for j in range(len(plays))]:
            raise ValueError("display seats must follow the turn order")
        if len(plays) >= plays_per_round(n):
            raise ValueError("the round would be over")
        ref.num_players = n
        ref.k = combo_size(n)
        ref.points = tuple(points)
        ref.rounds = total_rounds(n)
        ref.plays_per_round = plays_per_round(n)
        ref.hands = [set(h) for h in hands]
        ref.draw_pile = [tuple(c) for c in draw_pile]
        ref.removed = [tuple(c) for c in removed]
        ref.display = display
        ref.out_of_play = [tuple(c) for c in out_of_play]
        ref.full2 = [2 * p for p in full_points] if full_points is not None else [0] * n
        ref.half2 = list(half2) if half2 is not None else [0] * n
        ref.score2 = [f + h for f, h in zip(ref.full2, ref.half2, strict=True)]
        ref.full_cards = list(collected) if collected is not None else [0] * n
        ref.half_cards = [0] * n
        ref.round = round
        ref.play_in_round = len(plays)
        ref.done = False
        ref.history = []
        ref.results = []
        return ref

    # --- what a seat sees ---------------------------------------------------------------
    def observation(self, seat: int) -> list[float]:
        """The documented observation: own hand by card id; this round's display by the
        relative seat that played it (0 = the observer, then turn order), then the dummy
        cards; cards out of play; per relative seat the points under the whole coconut, the
        points under the half coconut (halved) and the cards collected; rounds finished,
        plays made this round, the starting seat one-hot by relative seat, draw pile size."""
        n = self.num_players
        obs = [0.0] * (NUM_CARDS * (n + 3))
        for c in self.hands[seat]:
            obs[card_id(c)] = 1.0
        for c, v, s in self.display:
            rel = n if s < 0 else (s - seat) % n
            obs[NUM_CARDS * (1 + rel) + card_id((c, v))] = 1.0
        for c in self.out_of_play:
            obs[NUM_CARDS * (n + 2) + card_id(c)] = 1.0
        for r in range(n):
            q = (seat + r) % n
            obs += [self.full2[q] / 2, self.half2[q] / 2, float(self.collected[q])]
        start = [0.0] * n
        start[(self.starting_player - seat) % n] = 1.0
        obs += [float(self.round), float(self.play_in_round), *start]
        obs.append(float(len(self.draw_pile)))
        return obs

    def round_position_slots(self) -> range:
        """Indices of the round position (rounds finished, plays this round, starting seat):
        the rules fix them while the game runs, not after its end."""
        n = self.num_players
        tail = NUM_CARDS * (n + 3) + 3 * n
        return range(tail, tail + 2 + n)

    # --- state --------------------------------------------------------------------------
    def state(self) -> dict:
        """The keys of the env's state_dict() whose meaning the rules fix.

        Lists whose order the spec leaves open (removed, out_of_play) are sorted; the seat to
        act, the starting seat and the plays made this round are only given while the game
        runs (after the end no round is being played)."""
        running = (
            {
                "current_player": self.player,
                "starting_player": self.starting_player,
                "play_in_round": self.play_in_round,
            }
            if not self.done
            else {}
        )
        return {
            **running,
            "num_players": self.num_players,
            "k": self.k,
            "round": self.round,
            "rounds": self.rounds,
            "hands": [sorted([c, v] for c, v in h) for h in self.hands],
            "draw_pile": [[c, v] for c, v in self.draw_pile],
            "removed": sorted([c, v] for c, v in self.removed),
            "display": [[c, v, s] for c, v, s in self.display],
            "out_of_play": sorted([c, v] for c, v in self.out_of_play),
            "score2": list(self.score2),
            "cards_collected": self.collected,
            "scores": self.scores(),
            "done": self.done,
        }

"""Plain-Python reference implementation of Double or Nothing used as the test oracle.

Written from the rule text (/work/shared/rules/double_or_nothing.txt) and the project
rulings (RULINGS.md) only; it deliberately imports nothing from `card_envs`, so a bug in the
engine cannot hide here. Everything is done the slow, obvious way.

Rules as implemented (g = the stage, s = 2**(g-1)):
- each player owns a deck of 4*s cards of each number 1..8; a hand is 10*s cards, a pass
  draws 2*s = 2**g cards (or what is left of the deck);
- a play is a range lo..hi with every number in hand; its copies are forced to the smallest
  count in the range (a single number plays all its copies); cards = copies * (hi-lo+1);
- strength: cards, then range size (hi-lo+1), then hi; a reply must be strictly stronger;
- the leader of a trick plays any play (no pass); the other player plays a stronger play or
  passes; a pass: the passer draws, the cards of the trick go under the other player's deck
  and the other player leads;
- a player whose hand becomes empty wins the hand: the trick and the other player's hand go
  under its deck; then, if either deck holds fewer than a hand, the game ends (fewer cards
  loses, equal is a draw), else both draw a hand and the winner leads;
- after max_turns * s actions a running game is truncated (a draw);
- reward "win": 1 / 0, 0.5 each on a draw; "zero_sum": +1 / -1 / 0.

The engine shuffles the cards it puts under a deck. The reference does not model the shuffle:
it asks an `order(player, cards)` function for the order of those cards (by default the
sorted order) and checks the answer is exactly those cards. `engine_order` builds that
function from the engine's state after the same step, so the reference can replay the
engine's game and still check every count, every deck size and every deck order that does
not depend on the shuffle.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

NUM_NUMBERS = 8
NUMBERS = tuple(range(1, NUM_NUMBERS + 1))
RANGES = tuple((lo, hi) for lo in NUMBERS for hi in range(lo, NUM_NUMBERS + 1))  # action i
NUM_RANGES = len(RANGES)  # 36
PASS = NUM_RANGES  # action 36
NUM_ACTIONS = NUM_RANGES + 1
OBS_SIZE = 39

Play = tuple[int, int, int]  # (copies, lo, hi)
Order = Callable[[int, list[int]], list[int]]


# --- sizes ---------------------------------------------------------------------------------
def scale(stage: int) -> int:
    if not 1 <= stage <= 10:
        raise ValueError(f"stage must be in 1..10, got {stage}")
    return 2 ** (stage - 1)


def copies_per_deck(stage: int) -> int:
    """Copies of each number in one player's starting deck."""
    return 4 * scale(stage)


def hand_size(stage: int) -> int:
    return 10 * scale(stage)


def pass_draw(stage: int) -> int:
    return 2**stage


def total_cards(stage: int) -> int:
    """All the cards of the game (both players)."""
    return 2 * NUM_NUMBERS * copies_per_deck(stage)


# --- plays ---------------------------------------------------------------------------------
def range_action(lo: int, hi: int) -> int:
    return RANGES.index((lo, hi))


def play_for_range(counts: Sequence[int], lo: int, hi: int) -> Play | None:
    copies = min(counts[v - 1] for v in range(lo, hi + 1))
    return (copies, lo, hi) if copies > 0 else None


def cards_of(play: Play) -> int:
    copies, lo, hi = play
    return copies * (hi - lo + 1)


def kind(play: Play) -> str:
    """The rule text's names: a set (one number), a run (one copy of 2+ numbers), a stair
    (2+ copies of 2+ numbers)."""
    copies, lo, hi = play
    if lo == hi:
        return "set"
    return "run" if copies == 1 else "stair"


def strength(play: Play) -> tuple[int, int, int]:
    copies, lo, hi = play
    return (cards_of(play), hi - lo + 1, hi)


def stronger(a: Play, b: Play) -> bool:
    return strength(a) > strength(b)


def legal_plays(counts: Sequence[int], to_beat: Play | None) -> list[Play]:
    """Every play the hand can make (stronger than `to_beat` when replying), in action order."""
    out = []
    for lo, hi in RANGES:
        play = play_for_range(counts, lo, hi)
        if play is not None and (to_beat is None or stronger(play, to_beat)):
            out.append(play)
    return out


def legal_actions(counts: Sequence[int], to_beat: Play | None) -> list[int]:
    actions = [range_action(lo, hi) for _, lo, hi in legal_plays(counts, to_beat)]
    return actions + ([PASS] if to_beat is not None else [])


def computer_move(counts: Sequence[int], to_beat: Play | None) -> Play | None:
    """The original computer: the legal play with the fewest cards, then the smaller range,
    then the lower numbers (that is, the weakest); None (pass) only without a legal play."""
    plays = legal_plays(counts, to_beat)
    return min(plays, key=strength) if plays else None


def heuristic_move(counts: Sequence[int], to_beat: Play | None) -> Play | None:
    """The project's heuristic as documented: the legal play leaving the fewest distinct
    numbers in hand, the weakest of those; None (pass) only without a legal play."""

    def key(play: Play):
        copies, lo, hi = play
        left = [c - (copies if lo <= v <= hi else 0) for v, c in zip(NUMBERS, counts, strict=True)]
        return (sum(1 for c in left if c > 0), strength(play))

    plays = legal_plays(counts, to_beat)
    return min(plays, key=key) if plays else None


def counts_of(cards: Sequence[int]) -> list[int]:
    return [sum(1 for c in cards if c == v) for v in NUMBERS]


def cards_from_counts(counts: Sequence[int]) -> list[int]:
    return [v for v in NUMBERS for _ in range(counts[v - 1])]


def sorted_order(player: int, cards: list[int]) -> list[int]:
    return sorted(cards)


def engine_order(state_after: dict) -> Order:
    """The order in which the engine put `cards` under `player`'s deck, read from the
    engine's state_dict after the step.

    The cards went to the bottom of the deck; if the player then drew a new hand, the top of
    the deck (possibly some of those cards) went into the hand. So the deck now ends with the
    last min(len(cards), len(deck)) of them; the others were drawn, in an order that the hand
    counts cannot show (they come first, sorted). Cards at the bottom of the deck that are
    not among `cards` fail the check here.
    """

    def order(player: int, cards: list[int]) -> list[int]:
        deck = list(state_after["decks"][player])
        keep = min(len(cards), len(deck))
        suffix = deck[len(deck) - keep :]
        drawn = Counter(cards)
        drawn.subtract(Counter(suffix))
        if any(n < 0 for n in drawn.values()):
            raise AssertionError(
                f"the bottom of player {player}'s deck {suffix} is not made of the cards "
                f"that went under it {sorted(cards)}"
            )
        return sorted(drawn.elements()) + suffix

    return order


# --- the game ------------------------------------------------------------------------------
class RefDoubleOrNothing:
    """One game from a given position (by default the start: empty trick, seat to lead).

    `hands` are counts of the numbers 1..8 per seat; `decks` card numbers top first.
    """

    def __init__(
        self,
        stage: int,
        hands: Sequence[Sequence[int]],
        decks: Sequence[Sequence[int]],
        *,
        first_leader: int = 0,
        max_turns: int = 2000,
        reward: str = "win",
        trick: Sequence[int] | None = None,
        current_play: Sequence[int] | None = None,
        player: int | None = None,
        leader: int | None = None,
        hands_played: int = 0,
        turns: int = 0,
    ) -> None:
        self.stage = stage
        self.s = scale(stage)
        self.hands = [list(h) for h in hands]
        self.decks = [list(d) for d in decks]
        if any(len(h) != NUM_NUMBERS or min(h) < 0 for h in self.hands):
            raise ValueError(f"hands must be 8 non-negative counts each, got {hands}")
        if any(c not in NUMBERS for d in self.decks for c in d):
            raise ValueError("deck cards are numbers 1..8")
        self.trick = list(trick) if trick is not None else [0] * NUM_NUMBERS
        self.current_play: Play | None = tuple(current_play) if current_play else None
        self.player = first_leader if player is None else player
        self.leader = self.player if leader is None else leader
        self.hands_played = hands_played
        self.turns = turns
        self.max_turns = max_turns
        self.reward = reward
        self.status = "running"  # or "terminated" / "truncated"
        self.events: list[tuple] = []  # what the last step did, see step()

    @classmethod
    def from_state(cls, state: dict, **config) -> RefDoubleOrNothing:
        """The position an env's state_dict() shows; config: max_turns, reward."""
        if state["done"]:
            raise ValueError("the game is over")
        return cls(
            state["stage"],
            state["hands"],
            state["decks"],
            trick=state["trick"],
            current_play=state["current_play"],
            player=state["current_player"],
            leader=state["leader"],
            hands_played=state["hands_played"],
            turns=state["turns"],
            **config,
        )

    # --- queries --------------------------------------------------------------------------
    @property
    def done(self) -> bool:
        return self.status != "running"

    def legal_actions(self) -> list[int]:
        if self.done:
            return []
        return legal_actions(self.hands[self.player], self.current_play)

    def cards(self) -> list[int]:
        """Cards each seat owns (deck + hand)."""
        return [len(self.decks[p]) + sum(self.hands[p]) for p in (0, 1)]

    def all_counts(self) -> list[int]:
        """Every card of the game, counted per number (hands, decks and trick)."""
        out = list(self.trick)
        for p in (0, 1):
            deck = counts_of(self.decks[p])
            for v in range(NUM_NUMBERS):
                out[v] += self.hands[p][v] + deck[v]
        return out

    def wins(self) -> list[float]:
        if self.status == "terminated":
            c = self.cards()
            if c[0] != c[1]:
                return [1.0, 0.0] if c[0] > c[1] else [0.0, 1.0]
        return [0.5, 0.5]

    def winner(self) -> int | None:
        w = self.wins()
        return w.index(1.0) if 1.0 in w else None

    def rewards(self) -> list[float]:
        if not self.done:
            return [0.0, 0.0]
        w = self.wins()
        return w if self.reward == "win" else [2.0 * x - 1.0 for x in w]

    # --- play ------------------------------------------------------------------------------
    def _draw(self, p: int, n: int) -> None:
        n = min(n, len(self.decks[p]))
        for c in self.decks[p][:n]:
            self.hands[p][c - 1] += 1
        del self.decks[p][:n]
        self.events.append(("draw", p, n))

    def _put_under(self, p: int, counts: list[int], order: Order) -> None:
        cards = cards_from_counts(counts)
        placed = list(order(p, list(cards)))
        if sorted(placed) != cards:
            raise AssertionError(f"order gave {placed} for the cards {cards}")
        self.decks[p].extend(placed)
        self.events.append(("under", p, tuple(counts)))

    def step(self, action: int, order: Order = sorted_order) -> None:
        """Apply an action. `events` then lists ("play", p, play), ("pass", p),
        ("draw", p, n), ("under", p, counts), ("hand_won", p), ("game_over", winner or None)
        and ("truncated",) in the order they happened."""
        legal = self.legal_actions()
        if action not in legal:
            raise ValueError(f"illegal action {action}; legal: {legal}")
        self.events = []
        p = self.player
        o = 1 - p
        self.turns += 1
        if action == PASS:
            self.events.append(("pass", p))
            self._draw(p, pass_draw(self.stage))
            self._put_under(o, self.trick, order)
            self.trick = [0] * NUM_NUMBERS
            self.current_play = None
            self.leader = o
            self.player = o
        else:
            lo, hi = RANGES[action]
            play = play_for_range(self.hands[p], lo, hi)
            assert play is not None
            self.events.append(("play", p, play))
            for v in range(lo, hi + 1):
                self.hands[p][v - 1] -= play[0]
                self.trick[v - 1] += play[0]
            if self.current_play is None:
                self.leader = p
            self.current_play = play
            if sum(self.hands[p]) == 0:
                self._hand_won(p, order)
            else:
                self.player = o
        if self.status == "running" and self.turns >= self.max_turns * self.s:
            self.status = "truncated"
            self.events.append(("truncated",))

    def _hand_won(self, w: int, order: Order) -> None:
        loser = 1 - w
        self.events.append(("hand_won", w))
        for v in range(NUM_NUMBERS):
            self.trick[v] += self.hands[loser][v]
        self.hands[loser] = [0] * NUM_NUMBERS
        self._put_under(w, self.trick, order)
        self.trick = [0] * NUM_NUMBERS
        self.current_play = None
        self.hands_played += 1
        need = hand_size(self.stage)
        if len(self.decks[0]) < need or len(self.decks[1]) < need:
            self.status = "terminated"
            self.events.append(("game_over", self.winner()))
            return
        self._draw(0, need)
        self._draw(1, need)
        self.leader = w
        self.player = w

    # --- what a seat sees and the full state ------------------------------------------------
    def observation(self, seat: int) -> list[float]:
        """As documented: own hand counts, the opponent's hand size, own and opponent's deck
        sizes, the play to beat (copies, cards, lo one-hot, hi one-hot), the trick counts,
        whether the seat led the trick (or is to lead), the stage; counts divided by s."""
        s = self.s
        o = 1 - seat
        obs = [c / s for c in self.hands[seat]]
        obs += [sum(self.hands[o]) / s, len(self.decks[seat]) / s, len(self.decks[o]) / s]
        if self.current_play is not None:
            copies, lo, hi = self.current_play
            obs += [copies / s, cards_of(self.current_play) / s]
            obs += [1.0 if v == lo else 0.0 for v in NUMBERS]
            obs += [1.0 if v == hi else 0.0 for v in NUMBERS]
            led = self.leader == seat
        else:
            obs += [0.0] * 18
            led = self.player == seat
        obs += [c / s for c in self.trick]
        obs += [1.0 if led else 0.0, float(self.stage)]
        assert len(obs) == OBS_SIZE
        return obs

    def state(self) -> dict:
        """The same keys and meaning as the env's state_dict()."""
        return {
            "num_players": 2,
            "stage": self.stage,
            "current_player": self.player,
            "hands": [list(h) for h in self.hands],
            "decks": [list(d) for d in self.decks],
            "current_play": list(self.current_play) if self.current_play else None,
            "trick": list(self.trick),
            "leader": self.leader,
            "hands_played": self.hands_played,
            "turns": self.turns,
            "cards": self.cards(),
            "done": self.done,
            "truncated": self.status == "truncated",
        }

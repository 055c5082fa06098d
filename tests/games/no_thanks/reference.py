"""Plain-Python reference implementation of No Thanks! used as the test oracle.

Written from the rule text (/work/shared/rules/no_thanks.txt) and the project rulings only;
it deliberately imports nothing from `card_envs`, so a bug in the engine cannot hide here.

Rules as implemented:
- cards 3..35; 9 removed face down; the other 24 are turned up one at a time;
- starting tokens: 11 each for 3-5 players, 9 for 6, 7 for 7;
- seat 0 acts first;
- TAKE (0): the player takes the card and every token on it, turns up the next card and
  acts again; NO_THANKS (1): the player puts one token on the card and the turn passes to
  the next seat; NO_THANKS is not allowed without tokens;
- the game ends when the last (24th) card is taken;
- score = sum of the lowest card of each run of consecutive cards, minus tokens; the lowest
  score wins and tied lowest scores all win;
- reward "win": the k winners get 1/k each, everyone else 0; reward "score": minus the score.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

ALL_CARDS = tuple(range(3, 36))
NUM_REMOVED = 9
NUM_PLAYED = 24
TAKE, NO_THANKS = 0, 1


def starting_tokens(num_players: int) -> int:
    if not 3 <= num_players <= 7:
        raise ValueError(f"No Thanks! is for 3 to 7 players, not {num_players}")
    if num_players <= 5:
        return 11
    return 9 if num_players == 6 else 7


def runs(cards: Iterable[int]) -> list[list[int]]:
    """The runs of consecutive values in `cards`, each sorted, in increasing order."""
    out: list[list[int]] = []
    for c in sorted(cards):
        if out and out[-1][-1] + 1 == c:
            out[-1].append(c)
        else:
            out.append([c])
    return out


def ref_score(cards: Iterable[int], tokens: int) -> int:
    """Lowest card of every run, summed, minus the tokens."""
    return sum(run[0] for run in runs(cards)) - tokens


class RefNoThanks:
    """One game of No Thanks! with a fixed deal.

    `draw_order` is the 24 cards in the order they are turned up (the first one is on offer
    at the start); `removed` the 9 cards out of the game.
    """

    def __init__(self, num_players: int, draw_order: Sequence[int], removed: Sequence[int]):
        draw_order = list(draw_order)
        removed = list(removed)
        if len(draw_order) != NUM_PLAYED or len(removed) != NUM_REMOVED:
            raise ValueError("a deal is 24 cards to play and 9 removed")
        if sorted(draw_order + removed) != list(ALL_CARDS):
            raise ValueError("a deal must use every card 3..35 exactly once")
        self.num_players = num_players
        self.draw_order = draw_order
        self.removed = removed
        self.tokens = [starting_tokens(num_players)] * num_players
        self.cards: list[set[int]] = [set() for _ in range(num_players)]
        self.pot = 0
        self.player = 0
        self.turned = 1  # cards turned up so far (the one on offer included)
        self.current: int | None = draw_order[0]
        self.takes = 0
        self.history: list[tuple[int, int]] = []  # (seat, action)

    # --- queries ------------------------------------------------------------------------
    @property
    def done(self) -> bool:
        return self.current is None

    @property
    def deck(self) -> list[int]:
        """Cards still to come after the one on offer, in draw order."""
        return self.draw_order[self.turned :]

    def legal_actions(self) -> list[int]:
        if self.done:
            return []
        if self.tokens[self.player] > 0:
            return [TAKE, NO_THANKS]
        return [TAKE]

    def scores(self) -> list[int]:
        return [ref_score(self.cards[p], self.tokens[p]) for p in range(self.num_players)]

    def winners(self) -> list[int]:
        s = self.scores()
        best = min(s)
        return [p for p in range(self.num_players) if s[p] == best]

    def rewards(self, mode: str = "win") -> list[float]:
        if not self.done:
            return [0.0] * self.num_players
        if mode == "score":
            return [-float(s) for s in self.scores()]
        if mode != "win":
            raise ValueError(mode)
        w = self.winners()
        return [1.0 / len(w) if p in w else 0.0 for p in range(self.num_players)]

    # --- play ---------------------------------------------------------------------------
    def step(self, action: int) -> None:
        if action not in self.legal_actions():
            raise ValueError(f"illegal action {action}; legal: {self.legal_actions()}")
        p = self.player
        self.history.append((p, action))
        if action == NO_THANKS:
            self.tokens[p] -= 1
            self.pot += 1
            self.player = (p + 1) % self.num_players
            return
        assert self.current is not None
        self.cards[p].add(self.current)
        self.tokens[p] += self.pot
        self.pot = 0
        self.takes += 1
        if self.turned < NUM_PLAYED:
            self.current = self.draw_order[self.turned]
            self.turned += 1
        else:
            self.current = None

    # --- what a seat sees ----------------------------------------------------------------
    def observation(self, seat: int, public_tokens: bool = False) -> list[float]:
        """Observation vector as documented: offer one-hot (card - 3), pot, own tokens, held
        cards per seat (own first, then the others in turn order), the others' tokens in
        turn order (public_tokens only), number of cards still to come."""
        n = self.num_players
        obs = [0.0] * 33
        if self.current is not None:
            obs[self.current - 3] = 1.0
        obs += [float(self.pot), float(self.tokens[seat])]
        for k in range(n):
            held = self.cards[(seat + k) % n]
            obs += [1.0 if c in held else 0.0 for c in ALL_CARDS]
        if public_tokens:
            obs += [float(self.tokens[(seat + k) % n]) for k in range(1, n)]
        obs.append(float(len(self.deck)))
        return obs

    def state(self) -> dict:
        """The same keys and meaning as the env's state_dict()."""
        return {
            "num_players": self.num_players,
            "current_player": self.player,
            "current_card": self.current,
            "pot": self.pot,
            "tokens": list(self.tokens),
            "cards": [sorted(c) for c in self.cards],
            "deck": self.deck,
            "removed": list(self.removed),
            "done": self.done,
            "scores": self.scores(),
        }

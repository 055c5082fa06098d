"""Super Zwierzaki corner positions (`Game.stress_positions`, see
`card_envs.testing.corners`): real positions of seeded games of random play, edited through
the state dict into the corners random play rarely reaches.

Each counter stands at its observation cap with answers in several hands (so the next answer
goes past it: the chain of issue 36), a duel at its cap, five and four identical cards, a
copies choice of five, every hand down to one card, 9 kolorow, two War, seats losing their
most turns; draw piles of 0 to 2 cards under a discard pile of hundreds (a refill comes
mid-chain); and few turns before the cap, so that each position plays to its end quickly.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable

import numpy as np

from card_envs.core import layout
from card_envs.core.engine import Game
from card_envs.games.super_zwierzaki import engine as k
from card_envs.games.super_zwierzaki.deck import CLASSES, COLOURS, KINDS
from card_envs.games.super_zwierzaki.positions import (
    COUNTER_HIGH,
    COUNTER_NAMES,
    DECK_CARDS,
    DUEL_HIGH,
    LOST_HIGH,
    names,
)


def of(function: str | None) -> list[int]:
    """The kinds of a function (None: without one), most copies first."""
    kinds = [kind for kind in KINDS if kind.function == function]
    return [kind.id for kind in sorted(kinds, key=lambda kind: -kind.copies)]


RED, ORC, STP, DEM = of("Red"), of("Orc")[0], of("Stp"), of("Dem")
OTH, GIV, WIELKA, CYR, DZI = of("Oth"), of("Giv"), of("All"), of("Cyr")[0], of("Dzi")
WAR, POL, KAZ, MCH = of("War")[0], of("Pol")[0], of("Kaz")[0], of("Mch")[0]
PLAIN = of(None)
# a kind of each colour for 9 kolorow: one without a function where there is (red cards
# all have one), five copies where there are
BY_COLOUR = [next(i for i in PLAIN + RED if KINDS[i].colour == c) for c in COLOURS]


def twin(kind: int) -> int:
    """Another kind without a function, of five copies, of the colour of `kind`."""
    return next(
        i
        for i in PLAIN
        if i != kind and KINDS[i].colour == KINDS[kind].colour and KINDS[i].copies == 5
    )


TURNS_LEFT = 60  # turns before the cap, shared by the seats: fewer each at larger tables


class Corner:
    """A state dict being edited into a corner position: `deal` moves cards between the hands
    and piles so that every card of the deck stays in exactly one place."""

    def __init__(self, d: dict, config: dict) -> None:
        self.d = copy.deepcopy(d)
        self.config = config
        self.n = len(self.d["hands"])
        self.seat = self.d["turn_seat"]

    def order(self) -> list[int]:
        """The seats in the order of play from the turn's seat."""
        numbers = self.d["numbers"]
        return sorted(range(self.n), key=lambda s: (numbers[s] - numbers[self.seat]) % self.n)

    def deal(
        self, want: dict[int, list[int]], draw: int, top: int, sizes: dict[int, int] | None = None
    ) -> None:
        """Seat p holds the cards `want[p]` and, up to `sizes[p]` cards (by default its hand's
        size), cards it held before, then the next ones of the draw pile; `draw` cards stay in
        the draw pile; `top` lies on the discard pile, over the rest of the deck."""
        d, sizes = self.d, sizes or {}
        wanted = Counter([top, *(c for cards in want.values() for c in cards)])
        assert not wanted - Counter(DECK_CARDS), f"more than the deck holds: {wanted}"
        pool = Counter(DECK_CARDS) - wanted

        def take(cards: list[int], count: int) -> list[int]:
            out = []
            for c in cards:
                if len(out) < count and pool[c] > 0:
                    pool[c] -= 1
                    out.append(c)
            return out

        old = d["hands"]
        mine = [want.get(p, []) for p in range(self.n)]
        size = [max(len(mine[p]), sizes.get(p, len(old[p]))) for p in range(self.n)]
        hands = [mine[p] + take(old[p], size[p] - len(mine[p])) for p in range(self.n)]
        supply = d["draw_pile"] + d["discard_pile"][::-1] + [c for hand in old for c in hand]
        for p, hand in enumerate(hands):
            hand += take(supply, size[p] - len(hand))
        d["draw_pile"] = take(supply, draw)
        d["discard_pile"] = [*take(supply[::-1], len(supply)), top]
        d["hands"] = [sorted(hand) for hand in hands]
        d["given_colours"] = names(int(k.KIND_COLOURS[top]), COLOURS)
        d["given_classes"] = names(int(k.KIND_CLASSES[top]), CLASSES)
        for key in ("fixed", "late"):  # what others know of a hand stays what is in it
            d[key] = [
                sorted((Counter(known) & Counter(hand)).elements())
                for known, hand in zip(d[key], d["hands"], strict=True)
            ]

    def spread(self, want: dict[int, list[int]], cards: list[int], seats: list[int]) -> None:
        """The cards one by one to the seats in turn (round and round)."""
        for i, card in enumerate(cards):
            want.setdefault(seats[i % len(seats)], []).append(card)

    def counter(self, name: str, value: int) -> None:
        self.d["counters"] = {c: value if c == name else 0 for c in COUNTER_NAMES}

    def decide(self, *decisions: dict) -> None:
        """The pending decisions, bottom to top."""
        self.d["decisions"] = list(decisions)
        self.d["phase"] = decisions[-1]
        self.d["current_player"] = decisions[-1]["seat"]

    def turn(self) -> None:
        """The turn's seat decides its turn."""
        self.decide({"what": "turn", "seat": self.seat})


# --- the corners -----------------------------------------------------------------------------
def orc_chain(c: Corner) -> None:
    """Orc points at their cap and the turn's seat choosing how many of its two Orcs to
    answer with (issue 36's chain), the other Orcs further on, then a Cyr, one card to draw."""
    o = c.order()
    want = {c.seat: [ORC, ORC]}
    c.spread(want, [ORC] * (int(k.KIND_COPIES[ORC]) - 3), o[1:])
    want.setdefault(o[-1], []).append(CYR)
    c.deal(want, draw=1, top=ORC)
    c.d["given_colours"] = [COLOURS[0]]  # the colour the Orc on top chose
    c.counter("orc", COUNTER_HIGH[1])
    c.decide({"what": "copies", "seat": c.seat, "kind": ORC})


def red_chain(c: Corner) -> None:
    """Red points at their cap, five identical Reds and a Wielka 5 with the turn's seat, four
    identical Reds next, Reds and Wielka 5 all round, an empty draw pile: a penalty or a call
    refills it mid-chain."""
    o = c.order()
    want = {c.seat: [RED[1]] * 5 + [WIELKA[0]], o[1]: [RED[2]] * 4}
    c.spread(want, [*RED[3:6], *WIELKA[1:], CYR] * 2, o[1:])
    c.deal(want, draw=0, top=RED[0])
    c.counter("red", COUNTER_HIGH[0])
    c.turn()


def green_chain(c: Corner) -> None:
    """Green points at their cap, Stp cards in several hands, every second seat from the
    turn's losing the most turns (or one fewer), two cards to draw."""
    o = c.order()
    want = {c.seat: [STP[1]] * 3}
    c.spread(want, [STP[2]] * 5 + [STP[0]] * 4 + [CYR], o[1:])
    c.deal(want, draw=2, top=STP[0])
    c.counter("green", COUNTER_HIGH[2])
    for i, s in enumerate(o[2::2]):
        c.d["lost_turns"][s] = LOST_HIGH - i % 2
    c.turn()


def demand_chain(c: Corner) -> None:
    """Demand points at their cap, the named kind four times with the turn's seat, Dem cards
    all round, the demander the last seat in the order, one card to draw."""
    o = c.order()
    named = PLAIN[0]
    want = {c.seat: [named] * 4 + [DEM[1]]}
    c.spread(want, [named, *[DEM[0]] * 4, *[DEM[1]] * 4, CYR], o[1:])
    c.deal(want, draw=1, top=DEM[0])
    c.counter("demand", COUNTER_HIGH[3])
    c.d["demand"] = {"kind": named, "by": o[-1]}
    c.d["last_named"] = named
    c.turn()


def duel(c: Corner, kind: str) -> None:
    """A duel at its cap, Reds and the duel's cards in every hand, a Red on top (a Wielka 5
    ends the duel), the next seat on two cards, an empty draw pile. The Oth duel came from
    five Oth: their keep-one waits in the queue, behind the draws the duel puts in front;
    in the Giv duel the turn's seat has folded (with three seats or more)."""
    o = c.order()
    cards = OTH if kind == "Oth" else GIV
    want = {o[1]: [RED[1], cards[0]]}
    c.spread(want, [*RED[2:8], *cards * 4, *WIELKA, CYR], [s for s in o if s != o[1]])
    c.deal(want, draw=0, top=RED[0], sizes={o[1]: 2})
    folded = [c.seat] if c.n > 2 and kind == "Giv" else []
    c.d["duel"] = {"kind": kind, "points": DUEL_HIGH - len(folded), "folded": folded}
    if kind == "Oth":
        c.d["effects"] = [{"effect": "keep_one", "seat": c.seat, "a": 0, "b": 0}]
    c.decide({"what": "duel", "seat": o[1] if folded else c.seat})


def five_copies(c: Corner) -> None:
    """The turn's seat chooses how many of its five identical cards to play; it also holds
    four identical cards, two War and two Pol; four identical cards elsewhere, a Cyr next."""
    o = c.order()
    five = PLAIN[0]
    top = twin(five)
    four = next(i for i in PLAIN if i not in (five, top))
    want = {c.seat: [five] * 5 + [four] * 4 + [WAR] * 2 + [POL] * 2, o[1]: [CYR]}
    want.setdefault(o[-1], []).extend([top] * 4)
    c.deal(want, draw=2, top=top)
    c.decide({"what": "copies", "seat": c.seat, "kind": five})


def last_cards(c: Corner) -> None:
    """Every hand down to one card on the last turn before the cap: the turn's seat can win,
    the next seats hold a Dzi and a Cyr to stop it; with explicit_call every seat is asked
    to call, the turn's seat first."""
    o = c.order()
    top = BY_COLOUR[1]
    want = {c.seat: [top], o[1]: [DZI[0]], o[-1]: [CYR]}
    c.deal(want, draw=1, top=top, sizes=dict.fromkeys(o, 1))
    c.d["turns"] = c.config["max_turns"] - 1
    calls = [{"what": "call", "seat": s} for s in o[::-1]]
    c.decide({"what": "turn", "seat": c.seat}, *(calls if c.config["explicit_call"] else []))


def nine_colours(c: Corner) -> None:
    """The turn's seat holds a card of every colour and a Wielka 5 (9 kolorow), the next
    seats a Dzi and a Cyr to stop its give, two cards to draw."""
    o = c.order()
    want = {c.seat: [*BY_COLOUR, WIELKA[0]], o[1]: [DZI[0]], o[-1]: [CYR]}
    c.deal(want, draw=2, top=BY_COLOUR[0])
    c.turn()


def two_war(c: Corner) -> None:
    """A Wielka 5 on top; the turn's seat holds two War, two Mch and three Kaz, the next
    seat the other three War."""
    o = c.order()
    want = {c.seat: [WAR] * 2 + [MCH] * 2 + [KAZ] * 3, o[1]: [WAR] * 3}
    c.deal(want, draw=1, top=WIELKA[2])
    c.turn()


def drawn_card(c: Corner) -> None:
    """With play_drawn: the turn's seat drew the last card of the draw pile, which it may
    play; the top card's kind is in four hands."""
    o = c.order()
    kind = BY_COLOUR[3]
    top = twin(kind)
    want = {c.seat: [kind]}
    c.spread(want, [top] * 4, o)
    c.deal(want, draw=0, top=top)
    c.decide({"what": "drawn", "seat": c.seat, "kind": kind})


# check_stress plays on from corner i with random play, play biased to the last legal id
# (9 kolorow, five copies, a call, a fold) or the heuristic (answers, duel cards), i mod 3
CORNERS: tuple[Callable[[Corner], None], ...] = (
    orc_chain,
    nine_colours,
    red_chain,
    green_chain,
    last_cards,
    lambda c: duel(c, "Oth"),
    demand_chain,
    five_copies,
    lambda c: duel(c, "Giv"),
    two_war,
)


def quiet(game: Game, seed: int, actions: int) -> dict:
    """The state dict of a seeded game of random play after at least `actions` actions, at a
    turn that starts with nothing pending (no counter, duel, effect or call); a game that
    ends first is followed by the next one."""
    row = game.new_row()
    game.reset_row(row, seed)
    rng = np.random.default_rng(seed)
    rewards = np.zeros(k.MAX_PLAYERS, dtype=np.float32)
    for step in range(10**6):
        if row[layout.STATUS] != layout.RUNNING:
            game.reset_row(row, None)
        calm = row[k.STACK_N] == 1 and row[k.STACK] == k.D_TURN and row[k.QUEUE_N] == 0
        if step >= actions and calm and not row[k.COUNTERS : k.COUNTERS + 4].any():
            return game.state_dict(row)
        type(game).step_kernel(row, int(rng.choice(game.legal_actions(row))), rewards)
    raise AssertionError("no quiet turn in a million actions")


def positions(game: Game, seed: int) -> list[dict]:
    """The corner positions of `game`'s config, from `seed`: each corner edits a position of
    its own seeded game, a few turns (`TURNS_LEFT` shared by the seats) before the cap."""
    corners = CORNERS + ((drawn_card,) if game.config["play_drawn"] else ())
    cap = game.config["max_turns"]
    out = []
    for i, corner in enumerate(corners):
        c = Corner(quiet(game, seed * len(corners) + i, 20 + 10 * i), game.config)
        c.d["turns"] = min(cap - 1, max(c.d["turns"], cap - TURNS_LEFT // c.n))
        corner(c)
        out.append(c.d)
    return out

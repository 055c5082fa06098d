"""Shared helpers for the Super Zwierzaki tests (no tests here): kinds by name, engine rows
to and from reference games, and `Table`, one interface over both implementations, so that
every hand-made situation of `test_rules.py` runs on the plain-Python
reference and on the numba engine with the same assertions.
"""

from __future__ import annotations

import random
from collections import Counter

import numpy as np

from card_envs.core import layout
from card_envs.core.rng import seed_row
from card_envs.games.super_zwierzaki import deck
from card_envs.games.super_zwierzaki import engine as k
from tests.games.super_zwierzaki.reference import (
    _KINDS,
    COLOURS,
    Decision,
    Game,
    Rules,
    _run,
    act,
    classes_of,
    colours_of,
    legal,
)

NUM_KINDS = deck.NUM_KINDS
IMPLEMENTATIONS = ["reference", "engine"]


def kind(name: str) -> int:
    return next(i for i, entry in enumerate(_KINDS) if entry["name"] == name)


MAMBA = kind("Mamba Czarna")  # LB rep
SOKOL = kind("Sokół Wędrowny")  # LB bir
ZAJAC = kind("Zając Szarak")  # LB rod
KANGUR = kind("Kangur Szary")  # LB koo: matches only LB (the class koo is its own)
KOALA = kind("Koala")  # LG tre
ALIGATOR = kind("Aligator Amerykański")  # DB rep
CZAPLA = kind("Czapla Zielona")  # DG bir
GRIZZLY = kind("Niedźwiedź Grizzly")  # V bea
TYGRYS = kind("Tygrys Bengalski")  # V cat
RED = kind("Grzechotnik Preriowy")  # R rep, Red
RED2 = kind("Komar")  # R ins, Red
ORC = kind("Orka Oceaniczna")  # V sea, Orc
CYR = kind("Cyraneczka zwyczajna")  # P bir, Cyr
DZI = kind("Dzięcioł Czarny")  # LG bir, Dzi
WIELKA = kind("Lew Afrykański")  # every colour and class, All
WIELKA2 = kind("Bawół Afrykański")  # every colour and class, All
GIV = kind("Gepard")  # LB cat, Giv
OTH = kind("Orangutan Borneański")  # DB mky, Oth
WAR = kind("Waran z Komodo")  # V rep, War
POL = kind("Nosacz Sundyjski")  # O tre, Pol
KAZ = kind("Kazuar Hełmiasty")  # R bir, Kaz
MCH = kind("Wioślak")  # Y ins, Mch
CCH = kind("Jeleń Kanadyjski")  # P hor, Cch
DEM = kind("Ratel Miodożerny")  # LG sml, Dem
DEM2 = kind("Mangusta Pręgowana")  # LG sml, Dem
STP = kind("Danaid Wędrowny")  # LG ins, Stp
STP2 = kind("Pszczoła Miodna Afrykańska")  # V ins, Stp
FILLER = [TYGRYS] * 30  # the draw pile of a situation
# nine cards, one per colour (LB, LG, R, DB, V, O, DG, Y, P), for 9 kolorow
NINE_CARDS = [MAMBA, KOALA, RED, ALIGATOR, GRIZZLY, POL, CZAPLA, MCH, CYR]


# --- engine rows and reference games ----------------------------------------------------------
def new_row(rules: Rules, seed: int) -> np.ndarray:
    """A dealt row; `skip_forced` is set after the deal (see `reference_of`)."""
    row = np.zeros(k.STATE_SIZE, dtype=np.int64)
    row[layout.NUM_PLAYERS] = rules.num_players
    row[k.CFG_EXPLICIT_CALL] = rules.explicit_call
    row[k.CFG_PLAY_DRAWN] = rules.play_drawn
    row[k.CFG_MAX_TURNS] = rules.max_turns
    seed_row(row, seed)
    k.reset(row)
    return row


def hands(row: np.ndarray, n: int) -> list[Counter]:
    out = []
    for p in range(n):
        counts = row[k.HANDS + p * NUM_KINDS : k.HANDS + (p + 1) * NUM_KINDS]
        out.append(Counter({i: int(c) for i, c in enumerate(counts) if c}))
    return out


def draw_pile(row: np.ndarray) -> list[int]:
    """The engine's draw pile as the reference keeps it: the next card drawn last."""
    return [int(c) for c in row[k.DRAW_PILE : k.DRAW_PILE + row[k.DRAW_N]]]


def discard_pile(row: np.ndarray) -> list[int]:
    return [int(c) for c in row[k.DISCARD_PILE : k.DISCARD_PILE + row[k.DISCARD_N]]]


def colour_set(mask: int) -> frozenset:
    return frozenset(c for i, c in enumerate(COLOURS) if mask >> i & 1)


def class_set(mask: int) -> frozenset:
    return frozenset(c for i, c in enumerate(deck.CLASSES) if mask >> i & 1)


def counters_of(row: np.ndarray) -> dict[str, int]:
    return {c: int(row[k.COUNTERS + i]) for i, c in enumerate(("red", "orc", "green", "demand"))}


def mask_of(row: np.ndarray) -> list[int]:
    mask = np.zeros(k.NUM_ACTIONS, dtype=np.int8)
    k.legal(row, mask)
    return np.flatnonzero(mask).tolist()


class Replay:
    """Stands in for the reference's random.Random: shuffles come out in the engine's order."""

    def __init__(self) -> None:
        self.row: np.ndarray | None = None
        self.shuffles = 0

    def shuffle(self, cards: list) -> None:
        """A reshuffled discard pile takes the engine's order (its shuffled pile stays in the
        row's slots after draws); any other shuffle (two War's random half) is left alone."""
        self.shuffles += 1
        engine = [int(c) for c in self.row[k.DRAW_PILE : k.DRAW_PILE + len(cards)]]
        if Counter(engine) == Counter(cards):
            cards[:] = engine


def reference_of(row: np.ndarray, rules: Rules, replay: Replay) -> Game:
    """The reference game at the start of the engine's game. The row was dealt without
    `skip_forced`; both then take the option and run on (a first turn with only a draw)."""
    n = rules.num_players
    g = Game(
        rules,
        hands(row, n),
        draw_pile(row),
        discard_pile(row),
        colour_set(row[k.GIVEN_COLOURS]),
        class_set(row[k.GIVEN_CLASSES]),
        [int(x) for x in row[k.NUMBERS : k.NUMBERS + n]],
        replay,
    )
    g.lost = [0] * n
    g.sizes = [int(x) for x in row[k.HAND_N : k.HAND_N + n]]
    g.turn_seat = int(row[k.TURN_SEAT])
    g.decisions.append(Decision("turn", g.turn_seat))
    row[k.CFG_SKIP_FORCED] = rules.skip_forced
    replay.row = row
    k._run(row, np.zeros(k.MAX_PLAYERS, dtype=np.float32))
    _run(g)
    return g


def row_of(g: Game) -> np.ndarray:
    """An engine row holding the reference's position at the start of a turn (before `_run`)."""
    n = g.n
    row = np.zeros(k.STATE_SIZE, dtype=np.int64)
    row[layout.NUM_PLAYERS] = n
    row[k.CFG_EXPLICIT_CALL] = g.rules.explicit_call
    row[k.CFG_SKIP_FORCED] = g.rules.skip_forced
    row[k.CFG_PLAY_DRAWN] = g.rules.play_drawn
    row[k.CFG_MAX_TURNS] = g.rules.max_turns
    seed_row(row, 0)
    for p in range(n):
        for kind_id, c in g.hands[p].items():
            row[k.HANDS + p * NUM_KINDS + kind_id] = c
        row[k.HAND_N + p] = sum(g.hands[p].values())
        row[k.SIZES + p] = g.sizes[p]
        row[k.NUMBERS + p] = g.numbers[p]
        row[k.LOST + p] = g.lost[p]
    row[k.DRAW_PILE : k.DRAW_PILE + len(g.draw_pile)] = g.draw_pile
    row[k.DRAW_N] = len(g.draw_pile)
    row[k.DISCARD_PILE : k.DISCARD_PILE + len(g.discard)] = g.discard
    row[k.DISCARD_N] = len(g.discard)
    for kind_id in g.discard:
        row[k.PLAYED + kind_id] += 1
    row[k.GIVEN_COLOURS] = sum(1 << COLOURS.index(c) for c in g.colours)
    row[k.GIVEN_CLASSES] = sum(1 << deck.CLASSES.index(c) for c in g.classes)
    for i, c in enumerate(("red", "orc", "green", "demand")):
        row[k.COUNTERS + i] = g.counters[c]
    row[k.DEMAND_KIND] = g.demand_kind
    row[k.DEMAND_BY] = g.demand_by
    row[k.TURN_SEAT] = g.turn_seat
    row[k.TURNS] = g.turns
    row[k.WINNER] = -1
    row[k.QUEUE_HEAD] = k.QUEUE_START
    row[layout.STATUS] = layout.RUNNING
    row[layout.PLAYER] = g.turn_seat
    assert [d.what for d in g.decisions] == ["turn"]
    k._push(row, k.D_TURN, g.turn_seat, 0, 0, 0, 0)
    return row


def differences(row: np.ndarray, g: Game) -> list[str]:
    """What the engine row and the reference game disagree on (empty: the same position)."""
    n = g.n
    out = []
    checks = {
        "hands": (hands(row, n), g.hands),
        "draw pile": (draw_pile(row), g.draw_pile),
        "discard pile": (discard_pile(row), g.discard),
        "colours": (colour_set(row[k.GIVEN_COLOURS]), g.colours),
        "classes": (class_set(row[k.GIVEN_CLASSES]), g.classes),
        "counters": (counters_of(row), g.counters),
        "numbers": ([int(x) for x in row[k.NUMBERS : k.NUMBERS + n]], g.numbers),
        "lost": ([int(x) for x in row[k.LOST : k.LOST + n]], g.lost),
        "turns": (int(row[k.TURNS]), g.turns),
        "over": (
            (int(row[layout.STATUS]), int(row[k.WINNER])),
            (
                layout.TRUNCATED if g.truncated else layout.TERMINATED if g.done else 0,
                g.winner,
            ),
        ),
    }
    if g.counters["demand"]:
        checks["demand"] = (int(row[k.DEMAND_KIND]), g.demand_kind)
    if not g.done:
        top = k.STACK + (row[k.STACK_N] - 1) * k.D_WIDTH
        checks["decision"] = (
            (k.DECISION_NAMES[row[top]], int(row[top + 1]), int(row[layout.PLAYER])),
            (g.decisions[-1].what, g.decisions[-1].seat, g.decisions[-1].seat),
        )
        checks["legal"] = (mask_of(row), sorted(legal(g)))
    for name, (engine, reference) in checks.items():
        if engine != reference:
            out.append(f"{name}: engine {engine} reference {reference}")
    return out


def take_engine_hands(row: np.ndarray, g: Game) -> None:
    """After a two-War (a random half moves), the reference takes the engine's hands."""
    g.hands = hands(row, g.n)


# --- one interface over both implementations ------------------------------------------------
WINDOWS = ("play", "win", "nine")
SEAT_PURPOSES = ("give_to", "nine_to", "war_a", "war_b", "war2_giver", "war2_receiver")
SEAT_PURPOSES += ("war2_hand",)
PICK_PURPOSES = ("discard", "give", "keep")


class Table:
    """A Super Zwierzaki position on one implementation, read and played through the same
    names: `legal()`, `play(*actions)` (an illegal action raises ValueError), `hands`,
    `draw_pile` (the next card drawn last), `discard` (bottom to top), `colours`,
    `classes`, `counters`, `demand_kind`, `numbers`, `lost`, `turns`, `duel_points` (None
    without a duel), the pending decision (`what`, `seat`, `purpose`, `window`), `winner`
    (-1 for none), `done`, `truncated`."""

    def __init__(self, impl: str, g: Game) -> None:
        self.impl = impl
        if impl == "reference":
            self.g = g
            _run(g)
        else:
            self.row = row_of(g)
            self.rewards = np.zeros(k.MAX_PLAYERS, dtype=np.float32)
            k._run(self.row, self.rewards)

    @property
    def _ref(self) -> bool:
        return self.impl == "reference"

    def legal(self) -> list[int]:
        return sorted(legal(self.g)) if self._ref else mask_of(self.row)

    def play(self, *actions: int) -> None:
        for a in actions:
            if self._ref:
                act(self.g, a)
            elif a in self.legal():
                k.step(self.row, a, self.rewards)
            else:
                raise ValueError(f"illegal action {a}; legal: {self.legal()}")

    @property
    def hands(self) -> list[Counter]:
        return self.g.hands if self._ref else hands(self.row, self.n)

    def hand_sizes(self) -> list[int]:
        return [sum(h.values()) for h in self.hands]

    @property
    def n(self) -> int:
        return self.g.n if self._ref else int(self.row[layout.NUM_PLAYERS])

    @property
    def draw_pile(self) -> list[int]:
        return self.g.draw_pile if self._ref else draw_pile(self.row)

    @property
    def discard(self) -> list[int]:
        return self.g.discard if self._ref else discard_pile(self.row)

    @property
    def colours(self) -> frozenset:
        return self.g.colours if self._ref else colour_set(self.row[k.GIVEN_COLOURS])

    @property
    def classes(self) -> frozenset:
        return self.g.classes if self._ref else class_set(self.row[k.GIVEN_CLASSES])

    @property
    def counters(self) -> dict[str, int]:
        return dict(self.g.counters) if self._ref else counters_of(self.row)

    @property
    def demand_kind(self) -> int:
        return self.g.demand_kind if self._ref else int(self.row[k.DEMAND_KIND])

    @property
    def numbers(self) -> list[int]:
        return self.g.numbers if self._ref else self.row[k.NUMBERS : k.NUMBERS + self.n].tolist()

    @property
    def lost(self) -> list[int]:
        return self.g.lost if self._ref else self.row[k.LOST : k.LOST + self.n].tolist()

    @property
    def turns(self) -> int:
        return self.g.turns if self._ref else int(self.row[k.TURNS])

    @property
    def duel_points(self) -> int | None:
        if self._ref:
            return None if self.g.duel is None else self.g.duel["points"]
        return int(self.row[k.DUEL_POINTS]) if self.row[k.DUEL_ON] else None

    @property
    def winner(self) -> int:
        if self._ref:
            return self.g.winner
        return int(self.row[k.WINNER]) if self.row[layout.STATUS] == layout.TERMINATED else -1

    @property
    def done(self) -> bool:
        return self.g.done if self._ref else self.row[layout.STATUS] != layout.RUNNING

    @property
    def truncated(self) -> bool:
        return self.g.truncated if self._ref else self.row[layout.STATUS] == layout.TRUNCATED

    def _decision(self) -> tuple:
        base = k.STACK + (self.row[k.STACK_N] - 1) * k.D_WIDTH
        return tuple(int(x) for x in self.row[base : base + k.D_WIDTH])

    @property
    def what(self) -> str:
        if self._ref:
            return self.g.decisions[-1].what
        return k.DECISION_NAMES[self._decision()[0]]

    @property
    def seat(self) -> int:
        """The seat to decide."""
        return self.g.decisions[-1].seat if self._ref else self._decision()[1]

    @property
    def purpose(self) -> str:
        """What a seat or pick decision is for (give_to, war_a, discard, keep, ...)."""
        if self._ref:
            return self.g.decisions[-1].ctx["purpose"]
        what, _, a, *_ = self._decision()
        return SEAT_PURPOSES[a] if what == k.D_SEAT else PICK_PURPOSES[a]

    @property
    def window(self) -> str:
        """What a reaction window is about: play, win or nine."""
        if self._ref:
            return self.g.decisions[-1].ctx["on"]
        return WINDOWS[self._decision()[2]]


def situation(
    impl: str,
    hands: list[list[int]],
    top: int,
    turn: int = 0,
    draw: list[int] = FILLER,
    discard: list[int] = (),
    rules: Rules | None = None,
    lost: list[int] | None = None,
    demanded: tuple[int, int] = (-1, -1),
    **counters: int,
) -> Table:
    """A turn of `turn` (seats in number order 0, 1, ...): the hands, the draw pile (the next
    card drawn last), the discard pile (`discard` under `top`), the given colour and class
    of the top card, counters (red=2, ...), lost turns and the demanded kind with the seat that
    named it, on the implementation `impl`."""
    n = len(hands)
    g = Game(
        rules or Rules(n),
        [Counter(h) for h in hands],
        list(draw),
        [*discard, top],
        colours_of(top),
        classes_of(top),
        list(range(n)),
        random.Random(0),
    )
    g.lost = list(lost or [0] * n)
    g.sizes = [len(h) for h in hands]
    g.counters.update(counters)
    g.demand_kind, g.demand_by = demanded
    g.turn_seat = turn
    g.decisions.append(Decision("turn", turn))
    return Table(impl, g)

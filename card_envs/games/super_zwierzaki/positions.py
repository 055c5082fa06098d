"""Super Zwierzaki positions: the game's part of `state_dict` (`fields`) and its inverse
(`load_fields`, see `core.loading`).

The dict holds every slot of the row the game reads again, in words: the cards (hands,
piles), the table (given colours and classes, counters, the demand, numbers, lost turns),
the whole decision stack (`decisions`, bottom to top: at most one decision with the calls
of "Codziennie niskie ceny" above it), the effect queue, the duel, the win rounds of a turn
end under way, and what other seats may know of each hand (`reshuffled`, `fixed`, `late`:
`resample_hidden` keeps those cards). The engine's caches are rebuilt from them: hand sizes
(also as at the last call check), pile sizes, the discard pile's counts per kind.

A loaded row equals the original but in slots the engine never reads again: the effect
queue starts at `QUEUE_START` (where it sits in the queue slots does not matter), and stale
values are zero (the stack, queue, piles and two-War choices past their ends; the duel's
slots with no duel on) or -1 (the demanding seat with no demand standing).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from card_envs.core import layout
from card_envs.core.engine import Game
from card_envs.core.loading import FIELD, Reader, StateDictError
from card_envs.games.super_zwierzaki import engine as k
from card_envs.games.super_zwierzaki.deck import CLASSES, COLOURS, FUNCTIONS, KINDS

COUNTER_NAMES = ("red", "orc", "green", "demand")
SEAT_PURPOSES = ("give_to", "nine_to", "war_a", "war_b", "war2_giver", "war2_receiver", "war2_hand")
PICK_PURPOSES = ("discard", "give", "keep")
WINDOWS = ("play", "win", "nine")
EFFECTS = (
    "add", "colour", "name", "reverse", "zero_red", "reset", "duel",
    "discard", "give", "keep_one", "war", "war2", "oth_draw", "nine_give",
)  # fmt: skip


# points a counter gains per card (red, orc, green, demand); the observation's caps on the
# counters, a duel's points and a seat's lost turns, which play can pass (`engine.COUNTER_HIGH`):
# the loader takes every value the actions played can reach (`Growth`)
COUNTER_STEP = (2, 3, 1, 1)
COUNTER_HIGH = tuple(int(x) for x in k.COUNTER_HIGH)
DUEL_HIGH = k.DUEL_HIGH
LOST_HIGH = k.LOST_HIGH
DECK_CARDS = [kind.id for kind in KINDS for _ in range(kind.copies)]
NAMEABLE = [kind.id for kind in KINDS if kind.function is None]  # what a Dem may name
# the most a Pol, Kaz or combination discards or gives; half_up's Python function, so that an
# import compiles nothing (without JIT, NUMBA_DISABLE_JIT, the kernel is that function)
HALF_DECK = getattr(k.half_up, "py_func", k.half_up)(k.NUM_CARDS)
# decisions only the seat whose turn it is takes (a Giv duel's winner gives, anyone duels,
# reacts and calls)
TURN_SEAT_DECISIONS = (k.D_TURN, k.D_COPIES, k.D_DRAWN, k.D_NINE, k.D_COLOUR, k.D_NAME)
TURN_SEAT_PURPOSES = {
    k.D_SEAT: (k.S_NINE_TO, k.S_WAR_A, k.S_WAR_B, k.S_WAR2_GIVER, k.S_WAR2_RECEIVER, k.S_WAR2_HAND),
    k.D_PICK: (k.P_DISCARD, k.P_KEEP),
}
# decisions of a turn before its play: no effect is queued and no counter is added yet
BEFORE_PLAY = (k.D_TURN, k.D_COPIES, k.D_DRAWN, k.D_NINE)


def names(mask: int, codes: tuple[str, ...]) -> list[str]:
    return [c for i, c in enumerate(codes) if mask >> i & 1]


def kinds_in(row: np.ndarray, start: int, p: int) -> list[int]:
    """Seat p's cards, sorted, from per-kind counts at `start` (hands, FIXED, LATE)."""
    counts = row[start + p * k.NUM_KINDS : start + (p + 1) * k.NUM_KINDS]
    return [int(kind) for kind in np.repeat(np.arange(k.NUM_KINDS), counts)]


def decision(row: np.ndarray, i: int) -> dict:
    """Entry i of the decision stack (0: the bottom) in words."""
    base = k.STACK + i * k.D_WIDTH
    what, seat, a, b, c, d = (int(x) for x in row[base : base + k.D_WIDTH])
    out: dict = {"what": k.DECISION_NAMES[what], "seat": seat}
    if what in (k.D_COPIES, k.D_DRAWN):
        out["kind"] = a
    elif what == k.D_SEAT:
        out["purpose"] = SEAT_PURPOSES[a]
        if a == k.S_GIVE:
            out["count"] = b
        elif a in (k.S_WAR_B, k.S_WAR2_RECEIVER, k.S_WAR2_HAND):
            out["first" if a == k.S_WAR_B else "giver"] = b
        if a == k.S_WAR2_HAND:
            out["receiver"] = c
            out["taken"] = [int(x) for x in row[k.PERM : k.PERM + d]]
    elif what == k.D_PICK:
        out.update(purpose=PICK_PURPOSES[a], left=b)
        if a != k.P_DISCARD:
            out["to"] = c
    elif what == k.D_NINE:
        out["colours_laid"] = names(a, COLOURS)
    elif what == k.D_REACT:
        out.update(window=WINDOWS[a], of=b, asked=c)
    return out


def fields(game: Game, row: np.ndarray) -> dict:
    """The game's part of `state_dict`; `load_fields` reads it back."""
    n = game.num_players
    draw = row[k.DRAW_PILE : k.DRAW_PILE + row[k.DRAW_N]]
    head, count = int(row[k.QUEUE_HEAD]), int(row[k.QUEUE_N])
    effects = []
    for i in range(head, head + count):
        code, seat, a, b = (
            int(x) for x in row[k.QUEUE + i * k.E_WIDTH : k.QUEUE + (i + 1) * k.E_WIDTH]
        )
        effects.append({"effect": EFFECTS[code], "seat": seat, "a": a, "b": b})
    duel = None
    if row[k.DUEL_ON]:
        duel = {
            "kind": FUNCTIONS[int(row[k.DUEL_FN]) - 1],
            "points": int(row[k.DUEL_POINTS]),
            "folded": [p for p in range(n) if row[k.DUEL_FOLDED] >> p & 1],
        }
    demand = None
    if row[k.COUNTERS + k.C_DEMAND]:
        demand = {"kind": int(row[k.DEMAND_KIND]), "by": int(row[k.DEMAND_BY])}
    winner = int(row[k.WINNER])
    decisions = [decision(row, i) for i in range(row[k.STACK_N])]
    return {
        "num_players": n,
        "current_player": int(row[layout.PLAYER]),
        "phase": decisions[-1] if decisions else None,
        "decisions": decisions,
        "hands": [kinds_in(row, k.HANDS, p) for p in range(n)],
        "draw_pile": [int(x) for x in draw[::-1]],  # the next card drawn first
        "discard_pile": [int(x) for x in row[k.DISCARD_PILE : k.DISCARD_PILE + row[k.DISCARD_N]]],
        "given_colours": names(int(row[k.GIVEN_COLOURS]), COLOURS),
        "given_classes": names(int(row[k.GIVEN_CLASSES]), CLASSES),
        "counters": {c: int(row[k.COUNTERS + i]) for i, c in enumerate(COUNTER_NAMES)},
        "demand": demand,
        "last_named": int(row[k.DEMAND_KIND]),  # the latest Dem's kind, shown while renamed
        "numbers": [int(x) for x in row[k.NUMBERS : k.NUMBERS + n]],
        "turn_seat": int(row[k.TURN_SEAT]),
        "lost_turns": [int(x) for x in row[k.LOST : k.LOST + n]],
        "duel": duel,
        "effects": effects,
        "win_rounds": [p for p in range(n) if row[k.ASKED] >> p & 1],
        "turns": int(row[k.TURNS]),
        "winner": winner if winner >= 0 and row[layout.STATUS] == layout.TERMINATED else None,
        "done": bool(row[layout.STATUS] != layout.RUNNING),
        "reshuffled": bool(row[k.RESHUFFLED]),
        "fixed": [kinds_in(row, k.FIXED, p) for p in range(n)],
        "late": [kinds_in(row, k.LATE, p) for p in range(n)],
    }


# --- reading a dict back -------------------------------------------------------------------------
class Entry(Reader):
    """One mapping inside a state dict (a decision, an effect, the duel, ...), read with the
    Reader's checks; errors name `<key>.<field>`, and a field never read is refused."""

    def __init__(self, r: Reader, key: str, value: Any) -> None:
        if not isinstance(value, dict):
            r.fail(key, f"{value!r} is not a mapping")
        self.env_id, self.d, self.key, self.seen = r.env_id, value, key, set()

    def fail(self, key: str, message: str) -> None:
        raise StateDictError(f"{self.env_id} state dict: {self.key}.{key}: {message}")

    def get(self, key: str) -> Any:
        self.seen.add(key)
        return super().get(key)

    def done(self) -> None:
        for key in self.d:
            if key not in self.seen:
                self.fail(key, f"unknown key; this one has {sorted(self.seen)}")


def read_names(r: Reader, key: str, codes: tuple[str, ...]) -> int:
    """A list of distinct codes (colours or classes) as a bit mask."""
    items = r.get(key)
    if not isinstance(items, list):
        r.fail(key, f"{items!r} is not a list")
    mask = 0
    for i, name in enumerate(items):
        if name not in codes:
            r.fail(f"{key}[{i}]", f"{name!r} is not one of {list(codes)}")
        if mask >> codes.index(name) & 1:
            r.fail(key, f"{name!r} is there twice")
        mask |= 1 << codes.index(name)
    return mask


def read_sorted(r: Reader, key: str, high: int, value: Any = FIELD, distinct: bool = False):
    """A list of ints in 0..high in increasing order (a set or a multiset: the dict's one
    way of writing it)."""
    items = r.ints(key, 0, high, value=value)
    if items != sorted(set(items) if distinct else items):
        r.fail(key, f"{items}: list {'distinct ' * distinct}items in increasing order")
    return items


def read_cards(r: Reader, key: str, n: int) -> list[list[int]]:
    """A list of kinds per seat."""
    seats = r.per_seat(key, n)
    return [read_sorted(r, f"{key}[{p}]", k.NUM_KINDS - 1, value=v) for p, v in enumerate(seats)]


@dataclass
class Position:
    """A state dict's primary fields, read and checked one by one, before the checks that
    tie them together and the row."""

    status: int
    hands: list[list[int]]
    draw: list[int]
    discard: list[int]
    colours: int
    classes: int
    numbers: list[int]
    turn_seat: int
    lost: list[int]
    counters: list[int]
    demand_by: int  # -1: no demand stands
    last_named: int
    duel: tuple[int, int, int] | None  # function code, points, folded seats (mask)
    effects: list[tuple[int, int, int, int]]  # code, seat, a, b
    stack: list[tuple[int, int, int, int, int, int]]  # what, seat, a, b, c, d
    taken: list[int]  # two War: the hands chosen so far
    win_rounds: list[int]
    winner: int
    turns: int
    player: int
    reshuffled: bool
    fixed: list[list[int]]
    late: list[list[int]]

    @property
    def n(self) -> int:
        return len(self.hands)

    def after(self, seat: int, i: int) -> int:
        """The seat i places after `seat` in the order of play."""
        return self.numbers.index((self.numbers[seat] + i) % self.n)

    def place(self, seat: int) -> int:
        """How many places after the turn's seat `seat` plays."""
        return (self.numbers[seat] - self.numbers[self.turn_seat]) % self.n


def load_fields(game: Game, r: Reader, row: np.ndarray) -> None:
    """Read the primary fields, check that they make a position the game can be in, write
    the row (see the module docstring)."""
    pos = read(game, r, int(row[layout.STATUS]), int(row[layout.TURN]))
    check_table(r, pos)
    check_stack(game, r, pos)
    check_end(game, r, pos)
    write(pos, row)
    check_top(game, r, pos, row)


def read(game: Game, r: Reader, status: int, actions: int) -> Position:
    """Every primary field, each checked on its own (ranges, lengths, names), and the cards
    partitioned; `actions` (the header's `turn`) bounds the counts that grow with them."""
    n = game.num_players
    running = status == layout.RUNNING
    hands = read_cards(r, "hands", n)
    draw = r.ints("draw_pile", 0, k.NUM_KINDS - 1)[::-1]  # the row's order: next drawn last
    discard = r.ints("discard_pile", 0, k.NUM_KINDS - 1)
    held = [c for hand in hands for c in hand]
    r.partition({"hands": held, "draw_pile": draw, "discard_pile": discard}, DECK_CARDS)
    if not discard:
        r.fail("discard_pile", "is empty; its top card is always there")
    numbers = r.ints("numbers", 0, n - 1, length=n)
    if len(set(numbers)) != n:
        r.fail("numbers", f"{numbers} is not an order of play (each of 0..{n - 1} once)")
    counters = read_counters(r, actions)
    demand_by, last_named = read_demand(r, n, counters[k.C_DEMAND] > 0)
    lost = r.per_seat("lost_turns", n)
    lost_high = Growth(LOST_HIGH, int(k.COUNTER_PER_ACTION[k.C_GREEN]), actions)
    duel_high = Growth(DUEL_HIGH, k.DUEL_PER_ACTION, actions)
    winner = r.get("winner")
    stack, taken = read_decisions(r, n)
    if running != bool(stack):
        r.fail("decisions", "a running game has a decision pending, a finished one none")
    return Position(
        status=status,
        hands=hands,
        draw=draw,
        discard=discard,
        colours=read_names(r, "given_colours", COLOURS),
        classes=read_names(r, "given_classes", CLASSES),
        numbers=numbers,
        turn_seat=r.int("turn_seat", 0, n - 1),
        lost=[lost_high.read(r, f"lost_turns[{p}]", value=v) for p, v in enumerate(lost)],
        counters=counters,
        demand_by=demand_by,
        last_named=last_named,
        duel=read_duel(r, n, duel_high),
        effects=read_effects(r, n, duel_high),
        stack=stack,
        taken=taken,
        win_rounds=read_sorted(r, "win_rounds", n - 1, distinct=True),
        winner=-1 if winner is None else r.int("winner", 0, n - 1),
        turns=r.int("turns", 0, game.config["max_turns"]),
        # while the game runs the seat to act is the top decision's (compared afterwards)
        player=stack[-1][1] if running else r.int("current_player", 0, n - 1),
        reshuffled=r.bool("reshuffled"),
        fixed=read_cards(r, "fixed", n),
        late=read_cards(r, "late", n),
    )


@dataclass
class Growth:
    """The highest value of a count that can pass its observation cap `high` by at most
    `per_action` each action (a counter, a duel's points, lost turns), after `actions`
    actions (the header's `turn`)."""

    high: int
    per_action: int
    actions: int

    def read(self, r: Reader, key: str, low: int = 0, value: Any = FIELD) -> int:
        v = r.get(key) if value is FIELD else value
        top = self.high + self.per_action * self.actions
        if isinstance(v, (int, np.integer)) and not isinstance(v, bool) and not low <= v <= top:
            r.fail(
                key,
                f"{v} is not in {low}..{top} ({self.high}, and {self.per_action} more per "
                f"action played: turn {self.actions})",
            )
        return r.int(key, low, top, v)


def read_counters(r: Reader, actions: int) -> list[int]:
    e = Entry(r, "counters", r.get("counters"))
    values = []
    for i, name in enumerate(COUNTER_NAMES):
        v = Growth(COUNTER_HIGH[i], int(k.COUNTER_PER_ACTION[i]), actions).read(e, name)
        if v % COUNTER_STEP[i]:
            e.fail(name, f"{v} is not a multiple of {COUNTER_STEP[i]}, the points of one card")
        values.append(v)
    e.done()
    if sum(v > 0 for v in values) > 1:
        r.fail("counters", "at most one of them is above zero")
    return values


def read_demand(r: Reader, n: int, stands: bool) -> tuple[int, int]:
    """(the demanding seat or -1, the kind last named or -1)."""
    last = r.int("last_named", -1, k.NUM_KINDS - 1)
    if last >= 0 and last not in NAMEABLE:
        r.fail("last_named", f"kind {last} has a function; a Dem names one of the 81 without")
    demand = r.get("demand")
    if (demand is not None) != stands:
        r.fail("demand", "a demand (kind and by) is given exactly while demand points stand")
    if demand is None:
        return -1, last
    e = Entry(r, "demand", demand)
    by = e.int("by", 0, n - 1)
    if e.int("kind", -1, k.NUM_KINDS - 1) != last:
        e.fail("kind", f"is not last_named {last}: a standing demand is the latest named")
    e.done()
    return by, last


def read_duel(r: Reader, n: int, high: Growth) -> tuple[int, int, int] | None:
    duel = r.get("duel")
    if duel is None:
        return None
    e = Entry(r, "duel", duel)
    fn = e.choice("kind", ("Oth", "Giv"))
    points = high.read(e, "points", 1)
    folded = read_sorted(e, "folded", n - 1, distinct=True)
    e.done()
    if len(folded) > n - 2:
        e.fail("folded", f"{folded}: a duel ends when one seat is left")
    return (k.F_OTH, k.F_GIV)[fn], points, sum(1 << p for p in folded)


def read_effects(r: Reader, n: int, duel_high: Growth) -> list[tuple[int, int, int, int]]:
    """The effect queue, each effect with the arguments its play gives it (an Oth duel's
    draws: its points)."""
    items = r.get("effects")
    if not isinstance(items, list) or len(items) > k.QUEUE_CAP - k.QUEUE_START:
        r.fail("effects", f"must be a list of at most {k.QUEUE_CAP - k.QUEUE_START} effects")
    out = []
    for i, item in enumerate(items):
        e = Entry(r, f"effects[{i}]", item)
        code = e.choice("effect", EFFECTS)
        seat = e.int("seat", 0, n - 1)
        if code == k.E_ADD:
            a = e.int("a", 0, 3)
            b = e.int("b", COUNTER_STEP[a], COUNTER_STEP[a] * k.MAX_COPIES)
            if b % COUNTER_STEP[a]:
                e.fail("b", f"{b} is not a multiple of {COUNTER_STEP[a]}")
        elif code == k.E_DUEL:
            a = e.int("a", k.F_OTH, k.F_GIV)
            b = e.int("b", 1, k.MAX_COPIES)
        elif code == k.E_OTH_DRAW:
            a, b = e.int("a", 0, 0), duel_high.read(e, "b", 1)
        elif code in (k.E_DISCARD, k.E_GIVE):
            a, b = e.int("a", 0, 0), e.int("b", 1, HALF_DECK)
        else:
            a, b = e.int("a", 0, 0), e.int("b", 0, 0)
        e.done()
        out.append((code, seat, a, b))
    return out


def read_decisions(r: Reader, n: int) -> tuple[list[tuple[int, ...]], list[int]]:
    """The decision stack, bottom to top, and the two-War hands chosen so far."""
    items = r.get("decisions")
    if not isinstance(items, list) or len(items) > k.STACK_DEPTH:
        r.fail("decisions", f"must be a list of at most {k.STACK_DEPTH} decisions")
    stack, taken = [], []
    for i, item in enumerate(items):
        e = Entry(r, f"decisions[{i}]", item)
        what = e.choice("what", k.DECISION_NAMES)
        seat = e.int("seat", 0, n - 1)
        a = b = c = d = 0
        if what in (k.D_COPIES, k.D_DRAWN):
            a = e.int("kind", 0, k.NUM_KINDS - 1)
        elif what == k.D_SEAT:
            a = e.choice("purpose", SEAT_PURPOSES)
            if a == k.S_GIVE:
                b = e.int("count", 1, k.NUM_CARDS)
            elif a == k.S_WAR_B:
                b = e.int("first", 0, n - 1)
            elif a in (k.S_WAR2_RECEIVER, k.S_WAR2_HAND):
                b = e.int("giver", 0, n - 1)
            if a == k.S_WAR2_HAND:
                c = e.int("receiver", 0, n - 1)
                taken = e.ints("taken", 0, n - 1)
                d = len(taken)
                if c == b:
                    e.fail("receiver", f"is the giver {b}; they are two different seats")
                if len(set(taken)) != d or d >= n:
                    e.fail("taken", f"{taken}: each hand is taken once, the last one unasked")
        elif what == k.D_PICK:
            a = e.choice("purpose", PICK_PURPOSES)
            b = e.int("left", 1, 1 if a == k.P_KEEP else k.NUM_CARDS)
            c = -1 if a == k.P_DISCARD else e.int("to", 0, n - 1)
            if c == seat:
                e.fail("to", f"is the deciding seat {seat}; cards go to another seat")
        elif what == k.D_NINE:
            a = read_names(e, "colours_laid", COLOURS)
            b = a.bit_count()  # each card laid is of one colour, a new one
            if b == len(COLOURS):
                e.fail("colours_laid", "all nine are laid: the 9 kolorow is over")
        elif what == k.D_REACT:
            a = e.choice("window", WINDOWS)
            b = e.int("of", 0, n - 1)
            c = e.int("asked", 1, n - 1)
        e.done()
        stack.append((what, seat, a, b, c, d))
    return stack, taken


# --- checks that tie the fields together ---------------------------------------------------------
def check_table(r: Reader, pos: Position) -> None:
    """The given colours and classes are the top card's (the colour maybe chosen by an Orc or
    Cch on top); what others know of a hand is in it; a standing demand's naming."""
    top = pos.discard[-1]
    if pos.classes != k.KIND_CLASSES[top]:
        r.fail("given_classes", f"are not those of the top card (kind {top})")
    chosen = k.KIND_FUNCTION[top] in (k.F_ORC, k.F_CCH) and pos.colours.bit_count() == 1
    if pos.colours != k.KIND_COLOURS[top] and not chosen:
        r.fail("given_colours", f"are not those of the top card (kind {top}), nor one chosen")
    for p, hand in enumerate(pos.hands):
        known = Counter(pos.fixed[p]) + Counter(pos.late[p])
        if known - Counter(hand):
            r.fail(f"fixed[{p}]", f"with late[{p}] holds cards not in hands[{p}]")
        if pos.late[p] and not pos.reshuffled:
            r.fail(f"late[{p}]", "cards are late (drawn since a refill) only after a refill")


def check_stack(game: Game, r: Reader, pos: Position) -> None:
    """At most one decision under the calls, which take the order of play from the turn's
    seat; the decision fits the table (whose turn, the queue, the duel, the win rounds)."""
    calls = [i for i, e in enumerate(pos.stack) if e[0] == k.D_CALL]
    below = len(pos.stack) - len(calls)
    if below > 1 or calls != list(range(below, len(pos.stack))):
        r.fail("decisions", "only the calls of 'Codziennie niskie ceny' lie on a decision")
    for i in calls:
        seat = pos.stack[i][1]
        if not game.config["explicit_call"]:
            r.fail(f"decisions[{i}]", "calls are asked only with explicit_call")
        if len(pos.hands[seat]) != 1:
            r.fail(f"decisions[{i}]", f"seat {seat} calls with {len(pos.hands[seat])} cards, not 1")
        if i > below and pos.place(seat) >= pos.place(pos.stack[i - 1][1]):
            r.fail(f"decisions[{i}]", "calls go in order of play from the turn's seat, top first")
    base = pos.stack[0] if below else None
    if base is not None:
        check_base(game, r, pos, base)
    if (pos.duel is not None) != (base is not None and base[0] == k.D_DUEL):
        r.fail("duel", "a duel is on exactly while a duel move is pending")
    what = -1 if base is None else base[0]
    if pos.effects and (what in BEFORE_PLAY or (what == k.D_REACT and base[2] == k.W_WIN)):
        r.fail("effects", f"no effect is queued while a {k.DECISION_NAMES[what]} is pending")
    if pos.win_rounds and pos.status == layout.RUNNING:
        if pos.effects or pos.duel is not None or what not in (-1, k.D_REACT):
            r.fail("win_rounds", "a turn's end comes when its effects and duel are over")
    draws = [e for e in pos.effects if e[0] == k.E_OTH_DRAW]
    if pos.effects[: len(draws)] != draws or len({e[1] for e in draws}) != len(draws):
        r.fail("effects", "an Oth duel's draws come first, one for each other seat")
    if len({e[3] for e in draws}) > 1:
        r.fail("effects", "an Oth duel's draws are all of its points")
    for i, (_, seat, _, _) in enumerate(pos.effects[len(draws) :], len(draws)):
        if seat != pos.turn_seat:
            r.fail(f"effects[{i}].seat", f"{seat}: a play's effects are the turn's seat's")
    if pos.counters[k.C_DEMAND] and pos.last_named < 0:
        naming = what == k.D_NAME or (pos.effects and pos.effects[0][0] == k.E_NAME)
        if not naming:
            r.fail("last_named", "a standing demand names a kind once its naming is over")


def check_base(game: Game, r: Reader, pos: Position, base: tuple[int, ...]) -> None:
    """The decision under the calls: its seat and context fit the table."""
    what, seat, a, b, c, _ = base
    key = "decisions[0]"
    hand = pos.hands[seat]
    on_turn = what in TURN_SEAT_DECISIONS or a in TURN_SEAT_PURPOSES.get(what, ())
    if on_turn and seat != pos.turn_seat:
        r.fail(f"{key}.seat", f"{seat}: a {k.DECISION_NAMES[what]} is the turn's seat's")
    if what in BEFORE_PLAY and pos.duel is not None:
        r.fail(key, "no duel is on before the turn's play")
    if what in (k.D_DRAWN, k.D_NINE) and any(pos.counters):
        r.fail(key, f"a {k.DECISION_NAMES[what]} comes only on a turn with no counter")
    if what == k.D_TURN:
        if pos.lost[seat]:
            r.fail("lost_turns", f"seat {seat} is at its turn, so it has no turn still to lose")
        if pos.counters[k.C_DEMAND] and pos.demand_by == seat:
            r.fail("demand", f"ended when the demander {seat}'s turn came round")
    elif what == k.D_COPIES and hand.count(a) < 2:
        r.fail(f"{key}.kind", f"seat {seat} holds {hand.count(a)} of kind {a}, so plays it at once")
    elif what == k.D_DRAWN:
        if not game.config["play_drawn"]:
            r.fail(f"{key}.what", "a drawn card is a decision only with play_drawn")
        if a not in hand:
            r.fail(f"{key}.kind", f"seat {seat} holds no card of kind {a}")
    elif what == k.D_NAME and pos.demand_by != seat:
        r.fail("demand", f"seat {seat} names a kind after adding a demand point")
    elif what == k.D_SEAT and a == k.S_GIVE and not 1 <= b <= len(hand):
        r.fail(f"{key}.count", f"{b}: seat {seat} gives some of its {len(hand)} cards")
    elif what == k.D_PICK and b > len(hand):
        r.fail(f"{key}.left", f"{b}: seat {seat} holds {len(hand)} cards")
    elif what == k.D_REACT:
        if seat != pos.after(b, c):
            r.fail(f"{key}.seat", f"{seat} is not {c} place(s) after seat {b}")
        if a != k.W_WIN and b != pos.turn_seat:
            r.fail(f"{key}.of", f"{b}: a play or a 9 kolorow is the turn's seat's")
        if a == k.W_PLAY and (not pos.effects or pos.effects[0][0] == k.E_OTH_DRAW):
            r.fail("effects", "a play's reaction window holds the play's effects")
        if a == k.W_NINE and pos.effects != [(k.E_NINE_GIVE, b, 0, 0)]:
            r.fail("effects", "a 9 kolorow's reaction window holds its give alone")
        if a == k.W_WIN and (b not in pos.win_rounds or pos.hands[b]):
            r.fail(f"{key}.of", f"seat {b}'s win round is one of win_rounds, of an empty hand")
    elif what == k.D_DUEL and pos.duel is not None and pos.duel[2] >> seat & 1:
        r.fail(f"{key}.seat", f"seat {seat} has folded in the duel")


def check_end(game: Game, r: Reader, pos: Position) -> None:
    """How the game stands: the winner, the turn cap."""
    cap = game.config["max_turns"]
    won = pos.status == layout.TERMINATED
    if won != (pos.winner >= 0):
        r.fail("winner", "there is a winner exactly when the game is terminated")
    if won and (pos.hands[pos.winner] or pos.winner not in pos.win_rounds):
        r.fail("winner", f"seat {pos.winner} wins its win round with an empty hand")
    if pos.status != layout.RUNNING and (pos.effects or pos.duel is not None):
        r.fail("effects" if pos.effects else "duel", "a finished game has nothing pending")
    if pos.status == layout.TRUNCATED and (pos.turns != cap or pos.win_rounds):
        r.fail("turns", f"a truncated game stops at the turn cap {cap}, between turns")
    if pos.status == layout.RUNNING and pos.turns == cap and not pos.win_rounds:
        r.fail("turns", f"{cap} turns reach the cap: the game stops after them")


def write(pos: Position, row: np.ndarray) -> None:
    """The row of a checked position; caches (sizes, counts) rebuilt, stale slots cleared."""
    n = pos.n
    row[layout.PLAYER] = pos.player
    row[k.GIVEN_COLOURS] = pos.colours
    row[k.GIVEN_CLASSES] = pos.classes
    row[k.COUNTERS : k.COUNTERS + 4] = pos.counters
    row[k.DEMAND_KIND] = pos.last_named
    row[k.DEMAND_BY] = pos.demand_by
    row[k.TURN_SEAT] = pos.turn_seat
    row[k.TURNS] = pos.turns
    row[k.WINNER] = pos.winner
    row[k.ASKED] = sum(1 << p for p in pos.win_rounds)
    row[k.ENDING] = int(bool(pos.win_rounds))
    if pos.duel is not None:
        row[k.DUEL_ON] = 1
        row[k.DUEL_FN], row[k.DUEL_POINTS], row[k.DUEL_FOLDED] = pos.duel
    row[k.DRAW_N] = len(pos.draw)
    row[k.DISCARD_N] = len(pos.discard)
    row[k.DRAW_PILE : k.DRAW_PILE + len(pos.draw)] = pos.draw
    row[k.DISCARD_PILE : k.DISCARD_PILE + len(pos.discard)] = pos.discard
    row[k.PLAYED : k.PLAYED + k.NUM_KINDS] = np.bincount(pos.discard, minlength=k.NUM_KINDS)
    row[k.NUMBERS : k.NUMBERS + n] = pos.numbers
    row[k.LOST : k.LOST + n] = pos.lost
    for p in range(n):
        for start, cards in ((k.HANDS, pos.hands), (k.FIXED, pos.fixed), (k.LATE, pos.late)):
            counts = np.bincount(np.array(cards[p], dtype=np.int64), minlength=k.NUM_KINDS)
            row[start + p * k.NUM_KINDS : start + (p + 1) * k.NUM_KINDS] = counts
    sizes = [len(hand) for hand in pos.hands]
    row[k.HAND_N : k.HAND_N + n] = sizes
    row[k.SIZES : k.SIZES + n] = sizes  # every stop of the game follows a call check
    row[k.RESHUFFLED] = int(pos.reshuffled)
    row[k.STACK_N] = len(pos.stack)
    for i, entry in enumerate(pos.stack):
        row[k.STACK + i * k.D_WIDTH : k.STACK + (i + 1) * k.D_WIDTH] = entry
    row[k.PERM : k.PERM + len(pos.taken)] = pos.taken
    row[k.QUEUE_HEAD] = k.QUEUE_START
    row[k.QUEUE_N] = len(pos.effects)
    for i, effect in enumerate(pos.effects):
        base = k.QUEUE + (k.QUEUE_START + i) * k.E_WIDTH
        row[base : base + k.E_WIDTH] = effect


def check_top(game: Game, r: Reader, pos: Position, row: np.ndarray) -> None:
    """The built row's pending decision has a legal action (two with `skip_forced`, which
    takes a lone one unasked); a copies choice is of a kind the turn could play."""
    if pos.status != layout.RUNNING:
        return
    mask = np.zeros(k.NUM_ACTIONS, dtype=np.int8)
    k.legal(row, mask)
    least = 2 if game.config["skip_forced"] else 1
    if mask.sum() < least:
        r.fail("phase", f"has {mask.sum()} legal action(s); the game asks with {least} or more")
    what, seat, a = pos.stack[0][:3]
    if what == k.D_COPIES:
        turn = row.copy()
        turn[k.STACK_N] = 1
        turn[k.STACK : k.STACK + k.D_WIDTH] = (k.D_TURN, seat, 0, 0, 0, 0)
        k.legal(turn, mask)
        if not mask[k.KIND + a]:
            r.fail("decisions[0].kind", f"kind {a} cannot be played on this turn")

"""Plain-Python Super Zwierzaki: legal actions and the next state, the oracle of the engine's
tests. Written from the rule text, the rulings and docs/rules/super_zwierzaki.md only; it
imports nothing from `card_envs` (the deck file is read as plain JSON).

The game is a stack of pending decisions and a queue of effects. `legal(g)` lists the actions
of the decision on top; `act(g, a)` takes one and runs the game on until the next decision
(or the end). Random events (draws after a reshuffle, the two-War random half) use the
state's own `random.Random`, so a cross-check with the engine compares what does not depend
on it, or replays the engine's outcome.

Action ids (one Discrete space; the decision on top gives them their meaning):
KIND k (0..115), COPIES c (1..5), COLOUR c (0..8), SEAT d (seat (deciding seat + d) mod N, by
seat index), DRAW, PASS, NINE, CALL.
"""

from __future__ import annotations

import json
import random
from collections import Counter, deque
from dataclasses import dataclass, field
from pathlib import Path

DECK_FILE = Path(__file__).parents[3] / "card_envs" / "games" / "super_zwierzaki" / "deck.json"
_KINDS = json.loads(DECK_FILE.read_text(encoding="utf-8"))["kinds"]
NUM_KINDS = len(_KINDS)
COLOURS = ["LB", "LG", "R", "DB", "V", "O", "DG", "Y", "P"]
COPIES_OF = [k["copies"] for k in _KINDS]
FUNCTION_OF = [k["function"] for k in _KINDS]
COLOUR_OF = [k["colour"] for k in _KINDS]  # "ALL" for a Wielka 5
CLASS_OF = [k["class"] for k in _KINDS]  # "all" for a Wielka 5
ALL_COLOURS = frozenset(COLOURS)
ALL_CLASSES = frozenset(c for c in CLASS_OF if c != "all")
PLAIN_KINDS = [k for k in range(NUM_KINDS) if FUNCTION_OF[k] is None]

MAX_PLAYERS = 12
KIND, COPIES, COLOUR = 0, NUM_KINDS, NUM_KINDS + 5
SEAT = COLOUR + len(COLOURS)
DRAW = SEAT + MAX_PLAYERS
PASS, NINE, CALL = DRAW + 1, DRAW + 2, DRAW + 3
NUM_ACTIONS = CALL + 1


def colours_of(kind: int) -> frozenset:
    return ALL_COLOURS if COLOUR_OF[kind] == "ALL" else frozenset([COLOUR_OF[kind]])


def classes_of(kind: int) -> frozenset:
    return ALL_CLASSES if CLASS_OF[kind] == "all" else frozenset([CLASS_OF[kind]])


def kinds_with(function: str) -> list[int]:
    return [k for k in range(NUM_KINDS) if FUNCTION_OF[k] == function]


def half_up(h: int) -> int:
    return (h + 1) // 2


@dataclass
class Rules:
    num_players: int
    explicit_call: bool = False  # "Codziennie niskie ceny" must be called, or draw two
    skip_forced: bool = False  # take decisions with a single legal action automatically
    play_drawn: bool = False  # a card drawn on a normal turn may be played at once
    max_turns: int = 1000


@dataclass
class Decision:
    what: str  # turn, copies, colour, name, seat, pick, nine, react, duel, call, drawn
    seat: int
    ctx: dict = field(default_factory=dict)


@dataclass
class Game:
    rules: Rules
    hands: list[Counter]
    draw_pile: list[int]  # next card drawn: the last
    discard: list[int]  # bottom to top
    colours: frozenset
    classes: frozenset
    numbers: list[int]
    rng: random.Random
    counters: dict = field(default_factory=lambda: dict(red=0, orc=0, green=0, demand=0))
    demand_kind: int = -1
    demand_by: int = -1
    lost: list[int] = field(default_factory=list)
    turn_seat: int = 0
    turns: int = 0
    duel: dict | None = None
    decisions: list[Decision] = field(default_factory=list)  # top: the last
    effects: deque = field(default_factory=deque)
    winner: int = -1
    truncated: bool = False
    ending: bool = False  # the turn is over; its win rounds are under way
    asked: set = field(default_factory=set)  # seats whose win round this turn end held
    sizes: list[int] = field(default_factory=list)  # hand sizes at the last call check

    @property
    def n(self) -> int:
        return self.rules.num_players

    @property
    def done(self) -> bool:
        return self.winner >= 0 or self.truncated

    def cards(self) -> int:
        return sum(sum(h.values()) for h in self.hands) + len(self.draw_pile) + len(self.discard)

    def after(self, seat: int, k: int = 1) -> int:
        """The seat k places after `seat` in the order of play (game numbers)."""
        target = (self.numbers[seat] + k) % self.n
        return self.numbers.index(target)


def new_game(rules: Rules, seed: int) -> Game:
    """Deal: 5 cards each, the top card of the draw pile turned up (its function does not
    apply), game numbers a random permutation, number 0 to act."""
    rng = random.Random(seed)
    deck = [k for k in range(NUM_KINDS) for _ in range(COPIES_OF[k])]
    rng.shuffle(deck)
    n = rules.num_players
    hands = [Counter() for _ in range(n)]
    for p in range(n):
        for _ in range(5):
            hands[p][deck.pop()] += 1
    top = deck.pop()
    numbers = list(range(n))
    rng.shuffle(numbers)
    g = Game(rules, hands, deck, [top], colours_of(top), classes_of(top), numbers, rng)
    g.lost = [0] * n
    g.sizes = [5] * n
    g.turn_seat = numbers.index(0)
    g.decisions.append(Decision("turn", g.turn_seat))
    _run(g)
    return g


# --- basic moves -----------------------------------------------------------------------------
def _draw(g: Game, seat: int, count: int) -> list[int]:
    """Up to `count` cards into the seat's hand; returns the kinds drawn."""
    drawn = []
    for _ in range(count):
        if not g.draw_pile and len(g.discard) > 1:
            rest = g.discard[:-1]
            g.discard = g.discard[-1:]
            g.rng.shuffle(rest)
            g.draw_pile = rest
        if g.draw_pile:
            drawn.append(g.draw_pile.pop())
            g.hands[seat][drawn[-1]] += 1
    return drawn


def _lay(g: Game, seat: int, kind: int, count: int = 1) -> None:
    """Cards played on top: they set the given colours and classes."""
    g.hands[seat][kind] -= count
    g.hands[seat] += Counter()  # drop zero counts
    g.discard += [kind] * count
    g.colours, g.classes = colours_of(kind), classes_of(kind)


def _matches(g: Game, kind: int) -> bool:
    return bool(colours_of(kind) & g.colours or classes_of(kind) & g.classes)


def _reset_counters(g: Game) -> None:
    for key in g.counters:
        g.counters[key] = 0


def _counter(g: Game) -> str | None:
    live = [key for key, v in g.counters.items() if v]
    assert len(live) <= 1, g.counters
    return live[0] if live else None


# --- legal actions ---------------------------------------------------------------------------
def _responses(g: Game, counter: str) -> set[int]:
    """Kinds that answer a counter at the start of a turn (no colour or class needed)."""
    kinds = set(kinds_with("Cyr"))
    if counter == "red":
        kinds |= set(kinds_with("Red")) | set(kinds_with("All"))
    elif counter == "orc":
        kinds |= set(kinds_with("Orc"))
    elif counter == "green":
        kinds |= set(kinds_with("Stp"))
    else:
        kinds |= set(kinds_with("Dem")) | {g.demand_kind}
    return kinds


def _nine_possible(g: Game, seat: int) -> bool:
    hand = g.hands[seat]
    held = {COLOUR_OF[k] for k in hand if COLOUR_OF[k] != "ALL"}
    return held == ALL_COLOURS and any(_matches(g, k) for k in hand if COLOUR_OF[k] != "ALL")


def _duel_kinds(g: Game) -> set[int]:
    kinds = set(kinds_with("Red")) | set(kinds_with(g.duel["kind"])) | set(kinds_with("Cyr"))
    if FUNCTION_OF[g.discard[-1]] == "Red":
        kinds |= set(kinds_with("All"))
    return kinds


def legal(g: Game) -> list[int]:
    if g.done:
        return []
    d = g.decisions[-1]
    hand = g.hands[d.seat]
    out: list[int] = []
    if d.what == "turn":
        counter = _counter(g)
        ok = _responses(g, counter) if counter else {k for k in hand if _matches(g, k)}
        out = [KIND + k for k in sorted(hand) if k in ok]
        if counter is None and _nine_possible(g, d.seat):
            out.append(NINE)
        out.append(DRAW)
    elif d.what == "copies":
        out = [COPIES + c - 1 for c in range(1, hand[d.ctx["kind"]] + 1)]
    elif d.what == "colour":
        out = [COLOUR + c for c in range(len(COLOURS))]
    elif d.what == "name":
        out = [KIND + k for k in PLAIN_KINDS]
    elif d.what == "seat":
        out = [SEAT + k for k in range(g.n) if _seat_ok(g, d, (d.seat + k) % g.n)]
    elif d.what == "pick":
        out = [KIND + k for k in sorted(hand)]
    elif d.what == "nine":
        used = {COLOUR_OF[k] for k in d.ctx["laid"]}
        out = [
            KIND + k
            for k in sorted(hand)
            if COLOUR_OF[k] not in used | {"ALL"} and (used or _matches(g, k))
        ]
    elif d.what == "react":
        allowed = {"Cyr"} if d.ctx["on"] == "play" else {"Cyr", "Dzi"}
        out = [KIND + k for k in sorted(hand) if FUNCTION_OF[k] in allowed] + [PASS]
    elif d.what == "duel":
        ok = _duel_kinds(g)
        out = [KIND + k for k in sorted(hand) if k in ok] + [PASS]
    elif d.what == "call":
        out = [CALL, PASS]
    elif d.what == "drawn":
        out = [KIND + d.ctx["kind"]] if _matches(g, d.ctx["kind"]) else []
        out.append(PASS)
    return out


def _seat_ok(g: Game, d: Decision, seat: int) -> bool:
    purpose = d.ctx["purpose"]
    if purpose in ("give_to", "nine_to"):
        return seat != d.seat
    if purpose == "war_b":
        return seat != d.ctx["first"]
    if purpose == "war2_receiver":
        return seat != d.ctx["giver"]
    if purpose == "war2_hand":
        return seat not in d.ctx["taken"]
    return True  # war_a, war2_giver: any seat, the acting one included


# --- taking an action ------------------------------------------------------------------------
def act(g: Game, action: int) -> None:
    if action not in legal(g):
        raise ValueError(f"illegal action {action}; legal: {legal(g)}")
    d = g.decisions.pop()
    _decide(g, d, action)
    _run(g)


def _decide(g: Game, d: Decision, a: int) -> None:
    s = d.seat
    if d.what == "turn":
        if a == DRAW:
            counter = _counter(g)
            if counter:
                _penalty(g, s, counter)
                return
            drawn = _draw(g, s, 1)
            if g.rules.play_drawn and drawn:  # asked even when it cannot be played
                g.decisions.append(Decision("drawn", s, {"kind": drawn[0]}))
        elif a == NINE:
            g.decisions.append(Decision("nine", s, {"laid": []}))
        else:
            _choose_kind(g, s, a - KIND)
    elif d.what == "copies":
        _play(g, s, d.ctx["kind"], a - COPIES + 1)
    elif d.what == "colour":
        g.colours = frozenset([COLOURS[a - COLOUR]])
    elif d.what == "name":
        g.demand_kind = a - KIND
    elif d.what == "seat":
        _seat_chosen(g, d, (s + a - SEAT) % g.n)
    elif d.what == "pick":
        _picked(g, d, a - KIND)
    elif d.what == "nine":
        _nine_card(g, d, a - KIND)
    elif d.what == "react":
        _reacted(g, d, a)
    elif d.what == "duel":
        _duel_move(g, d, a)
    elif d.what == "call":
        if a == PASS:
            _draw(g, s, 2)
    elif d.what == "drawn" and a != PASS:
        _choose_kind(g, s, a - KIND)


def _penalty(g: Game, seat: int, counter: str) -> None:
    """The player takes the penalty of the counter it starts its turn with; it resets."""
    if counter == "red" or counter == "orc":
        _draw(g, seat, g.counters[counter])
    elif counter == "green":
        g.lost[seat] += g.counters["green"] - 1  # this turn is the first lost one
    else:
        _draw(g, seat, 1)
    g.counters[counter] = 0


def _choose_kind(g: Game, seat: int, kind: int) -> None:
    if g.hands[seat][kind] > 1:
        g.decisions.append(Decision("copies", seat, {"kind": kind}))
    else:
        _play(g, seat, kind, 1)


def _play(g: Game, seat: int, kind: int, count: int) -> None:
    """A play of `count` cards of one kind on a turn: laid, then a reaction window when it
    has effects, then its effects."""
    h = sum(g.hands[seat].values())
    _lay(g, seat, kind, count)
    effects = _effects(kind, count, seat, h)
    single_stopper = count == 1 and FUNCTION_OF[kind] in ("Dzi", "Cyr")
    if (FUNCTION_OF[kind] is not None or count >= 2) and not single_stopper:
        _open_window(g, seat, "play", effects)
    else:
        g.effects.extend(effects)


def _effects(kind: int, k: int, seat: int, h: int) -> list[tuple]:
    """The effects of k cards of a kind played by `seat` holding h cards before the play."""
    f = FUNCTION_OF[kind]
    out: list[tuple] = []
    if f == "Red":
        out.append(("add", seat, "red", 2 * k))
    elif f == "Orc":
        out += [("add", seat, "orc", 3 * k), ("colour", seat)]
    elif f == "Stp":
        out.append(("add", seat, "green", k))
    elif f == "Dem":
        out += [("add", seat, "demand", k), ("name", seat)]
    elif f == "Cch":
        out.append(("colour", seat))
    elif f == "Mch":
        out += [("reverse",)] * k
    elif f in ("Oth", "Giv"):
        out.append(("duel", seat, f, k))
    elif f == "All":
        out.append(("zero_red",))
    elif f == "Pol":
        out += [("discard", seat, half_up(h))] * k
    elif f == "Kaz":
        out += [("give", seat, half_up(h))] * k
    elif f == "War" and k != 2:
        out += [("war", seat)] * k
    elif f == "Cyr":
        out.append(("reset",))
    if f == "War" and k == 2:
        out.append(("war2", seat))
    elif k == 2:
        out.append(("discard", seat, 1))
    elif k == 3:
        out.append(("discard", seat, half_up(h)))
    elif k == 4:
        out.append(("give", seat, half_up(h)))
    elif k == 5:
        out.append(("keep_one", seat))
    return out


def _open_window(g: Game, seat: int, on: str, effects: list[tuple], for_seat: int = -1) -> None:
    """Every other seat, in order from the next, may answer with a stopper card."""
    askers = [g.after(seat, i) for i in range(1, g.n)]
    ctx = {"on": on, "by": seat, "effects": effects, "for": for_seat, "queue": askers}
    _ask_next_reactor(g, ctx)


def _ask_next_reactor(g: Game, ctx: dict) -> None:
    if ctx["queue"]:
        g.decisions.append(Decision("react", ctx["queue"].pop(0), ctx))
    elif ctx["on"] == "win":
        g.winner = ctx["for"]
    else:
        g.effects.extend(ctx["effects"])


def _reacted(g: Game, d: Decision, a: int) -> None:
    ctx = d.ctx
    if a == PASS:
        _ask_next_reactor(g, ctx)
        return
    kind = a - KIND
    _lay(g, d.seat, kind)
    if FUNCTION_OF[kind] == "Cyr":
        _reset_counters(g)
    if ctx["on"] == "win":
        _draw(g, ctx["for"], 1)


def _run_effect(g: Game, e: tuple) -> None:
    name = e[0]
    if name == "add":
        g.counters[e[2]] += e[3]
        if e[2] == "demand":
            g.demand_by = e[1]
    elif name == "colour":
        g.decisions.append(Decision("colour", e[1]))
    elif name == "name":
        g.decisions.append(Decision("name", e[1]))
    elif name == "reverse":
        g.numbers = [(1 - x) % g.n for x in g.numbers]
    elif name == "zero_red":
        g.counters["red"] = 0
    elif name == "reset":
        _reset_counters(g)
    elif name == "duel":
        _start_duel(g, e[1], e[2], e[3])
    elif name in ("discard", "give", "keep_one"):
        _start_picks(g, e)
    elif name == "war":
        g.decisions.append(Decision("seat", e[1], {"purpose": "war_a"}))
    elif name == "war2":
        g.decisions.append(Decision("seat", e[1], {"purpose": "war2_giver"}))
    elif name == "oth_draw":
        _draw(g, e[1], e[2])


def _start_picks(g: Game, e: tuple) -> None:
    name, seat = e[0], e[1]
    have = sum(g.hands[seat].values())
    if name == "keep_one":
        count = max(0, have - 1)
        name = "discard"
    else:
        count = min(e[2], have)
    if count == 0:
        return
    if name == "give":
        g.decisions.append(Decision("seat", seat, {"purpose": "give_to", "count": count}))
    else:
        g.decisions.append(Decision("pick", seat, {"purpose": "discard", "left": count}))


def _picked(g: Game, d: Decision, kind: int) -> None:
    s = d.seat
    if d.ctx["purpose"] == "keep":  # 9 kolorow: the rest of the hand goes to the recipient
        g.hands[d.ctx["to"]] += g.hands[s] - Counter({kind: 1})
        g.hands[s] = Counter({kind: 1})
        return
    g.hands[s][kind] -= 1
    g.hands[s] += Counter()
    if d.ctx["purpose"] == "discard":
        g.discard.insert(len(g.discard) - 1, kind)  # under the top card: nothing changes
    else:
        g.hands[d.ctx["to"]][kind] += 1
    left = d.ctx["left"] - 1
    if left > 0 and g.hands[s]:
        g.decisions.append(Decision("pick", s, dict(d.ctx, left=left)))


def _seat_chosen(g: Game, d: Decision, seat: int) -> None:
    purpose, s = d.ctx["purpose"], d.seat
    if purpose == "give_to":
        g.decisions.append(
            Decision("pick", s, {"purpose": "give", "left": d.ctx["count"], "to": seat})
        )
    elif purpose == "nine_to":
        g.decisions.append(Decision("pick", s, {"purpose": "keep", "left": 1, "to": seat}))
    elif purpose == "war_a":
        g.decisions.append(Decision("seat", s, {"purpose": "war_b", "first": seat}))
    elif purpose == "war_b":
        a = d.ctx["first"]
        g.hands[a], g.hands[seat] = g.hands[seat], g.hands[a]
    elif purpose == "war2_giver":
        g.decisions.append(Decision("seat", s, {"purpose": "war2_receiver", "giver": seat}))
    elif purpose == "war2_receiver":
        ctx = {"purpose": "war2_hand", "giver": d.ctx["giver"], "receiver": seat}
        ctx.update(taken=[], order=[g.after(s, i) for i in range(g.n)])
        g.decisions.append(Decision("seat", s, ctx))
    elif purpose == "war2_hand":
        taken = d.ctx["taken"] + [seat]
        if len(taken) < g.n:
            g.decisions.append(Decision("seat", s, dict(d.ctx, taken=taken)))
        else:
            _two_war(g, d.ctx, taken)


def _two_war(g: Game, ctx: dict, taken: list[int]) -> None:
    """The giver gives a random half of its hand to the receiver; then every seat of `order`
    gets the hand the seat `taken[i]` holds."""
    giver, receiver = ctx["giver"], ctx["receiver"]
    cards = list(g.hands[giver].elements())
    g.rng.shuffle(cards)
    moved = Counter(cards[: half_up(len(cards))])
    g.hands[giver] -= moved
    g.hands[receiver] += moved
    old = [g.hands[t] for t in taken]
    for seat, hand in zip(ctx["order"], old, strict=True):
        g.hands[seat] = hand


def _nine_card(g: Game, d: Decision, kind: int) -> None:
    _lay(g, d.seat, kind)
    laid = d.ctx["laid"] + [kind]
    if len(laid) < len(COLOURS):
        g.decisions.append(Decision("nine", d.seat, {"laid": laid}))
        return
    give = ("nine_give", d.seat)
    _open_window(g, d.seat, "nine", [give])


# --- duels -----------------------------------------------------------------------------------
def _start_duel(g: Game, causer: int, kind: str, points: int) -> None:
    g.duel = {"kind": kind, "points": points, "causer": causer, "folded": set(), "next": causer}
    g.decisions.append(Decision("duel", causer))


def _duel_move(g: Game, d: Decision, a: int) -> None:
    duel = g.duel
    if a == PASS:
        duel["folded"].add(d.seat)
    else:
        kind = a - KIND
        f = FUNCTION_OF[kind]
        on_red = FUNCTION_OF[g.discard[-1]] == "Red"
        _lay(g, d.seat, kind)
        if f == "Cyr" or (f == "All" and on_red):
            duel["points"] = 0
            if f == "Cyr":
                _reset_counters(g)
        else:
            duel["points"] += 2 if f == "Red" else 1
    alive = [p for p in range(g.n) if p not in duel["folded"]]
    if duel["points"] == 0:
        g.duel = None
        return
    if len(alive) == 1:
        g.duel = None
        _duel_won(g, duel, alive[0])
        return
    nxt = g.after(d.seat)
    while nxt in duel["folded"]:
        nxt = g.after(nxt)
    g.decisions.append(Decision("duel", nxt))


def _duel_won(g: Game, duel: dict, winner: int) -> None:
    points = duel["points"]
    if duel["kind"] == "Oth":  # before the play's other effects
        for i in range(g.n - 1, 0, -1):
            g.effects.appendleft(("oth_draw", g.after(winner, i), points))
        return
    have = sum(g.hands[winner].values())
    count = min(points, have - 1) if have > 1 else have
    if count > 0:
        g.decisions.append(Decision("seat", winner, {"purpose": "give_to", "count": count}))


# --- turns -----------------------------------------------------------------------------------
def _end_turn(g: Game) -> None:
    """Win rounds, one at a time, for every empty hand (from the turn's seat on, including
    hands emptied by a stopper played in an earlier round); then the next seat's turn
    (lost turns pass by, each counted as a turn)."""
    if not g.ending:
        g.ending = True
        g.turns += 1
    for i in range(g.n):
        seat = g.after(g.turn_seat, i)
        if not g.hands[seat] and seat not in g.asked:
            g.asked.add(seat)
            _open_window(g, seat, "win", [], for_seat=seat)
            return
    g.ending = False
    g.asked.clear()
    while not g.truncated:
        g.truncated = g.turns >= g.rules.max_turns
        g.turn_seat = g.after(g.turn_seat)
        if g.counters["demand"] and g.demand_by == g.turn_seat:
            g.counters["demand"] = 0
        if g.lost[g.turn_seat] == 0:
            break
        g.lost[g.turn_seat] -= 1
        g.turns += 1
    if not g.truncated:
        g.decisions.append(Decision("turn", g.turn_seat))


def _check_calls(g: Game) -> None:
    """Explicit-call option: every seat left with exactly one card since the last check
    decides at once (the first in order from the turn's seat decides first)."""
    sizes = [sum(h.values()) for h in g.hands]
    if g.rules.explicit_call:
        for i in range(g.n - 1, -1, -1):
            seat = g.after(g.turn_seat, i)
            if sizes[seat] == 1 and g.sizes[seat] != 1:
                g.decisions.append(Decision("call", seat))
    g.sizes = sizes


def _run(g: Game) -> None:
    """Run effects and turns until a decision is pending or the game is over."""
    while not g.done:
        _check_calls(g)
        if g.decisions:
            if g.rules.skip_forced and len(legal(g)) == 1:
                act_forced = legal(g)[0]
                d = g.decisions.pop()
                _decide(g, d, act_forced)
                continue
            return
        if g.effects:
            e = g.effects.popleft()
            if e[0] == "nine_give":
                if g.hands[e[1]]:
                    g.decisions.append(Decision("seat", e[1], {"purpose": "nine_to"}))
            else:
                _run_effect(g, e)
            continue
        _end_turn(g)

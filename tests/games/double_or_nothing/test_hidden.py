"""Double or Nothing's conformance hooks.

`check_invariants` holds along random games and names each law broken by a hand-made
corruption. `resample_hidden` keeps what the seat sees, redraws the opponent's hand in a good
share of positions and is exact: `SeatView` below, written from the rules and the seat's own
observations only, turns everything the seat has seen into integer constraints over the
counts it never saw, and scipy's MILP solver decides whether a resampled state could have
been reached with the same observations.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import coo_matrix

from card_envs.core import layout
from card_envs.games.double_or_nothing import engine as k
from card_envs.games.double_or_nothing.spec import DoubleOrNothing

N = 8  # numbers 1..8
RANGES = [(lo, hi) for lo in range(1, N + 1) for hi in range(lo, N + 1)]  # action i
PASS = len(RANGES)


# --- playing ---------------------------------------------------------------------------------
def observe(row: np.ndarray, seat: int) -> np.ndarray:
    out = np.empty(k.OBS_SIZE, dtype=np.float32)
    k.observe(row, seat, out)
    return out


def mask_of(row: np.ndarray) -> np.ndarray:
    out = np.empty(k.NUM_RANGES + 1, dtype=np.int8)
    k.legal(row, out)
    return out


def choose(row: np.ndarray, rng: np.random.Generator, style: str) -> int:
    """A random legal action: uniform, pass-happy or never passing when a play is legal."""
    legal = np.flatnonzero(mask_of(row))
    can_pass = legal[-1] == PASS
    if style == "pass" and can_pass and rng.random() < 0.6:
        return PASS
    if style == "play" and can_pass and len(legal) > 1:
        legal = legal[:-1]
    return int(rng.choice(legal))


def running(row: np.ndarray) -> bool:
    return int(row[layout.STATUS]) == layout.RUNNING


def new_game(game: DoubleOrNothing, seed: int) -> np.ndarray:
    row = game.new_row()
    game.reset_row(row, seed)
    return row


def step(row: np.ndarray, action: int) -> None:
    k.step(row, action, np.zeros(2, dtype=np.float32))


def play_out(row: np.ndarray, rng: np.random.Generator) -> None:
    """Random legal play to the end, the laws checked after every step."""
    while running(row):
        step(row, choose(row, rng, "uniform"))
        assert k.check_invariants(row) == 0, k.INVARIANT_ERRORS[k.check_invariants(row)]


# --- check_invariants ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("config", "games"),
    [
        (dict(stage=1), 40),
        (dict(stage=2, first_leader=1), 12),
        (dict(stage=3, reward="zero_sum"), 6),
        (dict(stage=1, max_turns=40), 40),  # mostly truncated
    ],
    ids=["stage1", "stage2", "stage3", "truncated"],
)
def test_the_laws_hold_along_random_games(config, games):
    game = DoubleOrNothing(**config)
    ends = Counter()
    for g in range(games):
        rng = np.random.default_rng(g)
        style = ("uniform", "pass", "play")[g % 3]
        row = new_game(game, g)
        assert game.invariant_error(row) is None
        turns = 0
        while running(row):
            step(row, choose(row, rng, style))
            turns += 1
            code = int(k.check_invariants(row))
            assert code == 0, f"game {g}, turn {turns}: {k.INVARIANT_ERRORS[code]}"
        ends[int(row[layout.STATUS])] += 1
    if "max_turns" in config:
        assert ends[layout.TRUNCATED] > games // 2
    else:
        assert ends[layout.TERMINATED] == games


def mid_game() -> np.ndarray:
    """A stage-1 position with a play to beat, a partly drawn top segment and several
    segments in each deck."""
    game = DoubleOrNothing(stage=1)
    rng = np.random.default_rng(5)
    row = new_game(game, 5)
    while True:
        step(row, choose(row, rng, "uniform"))
        assert running(row)
        segments_ok = all(0 < row[k.TOP_N + p] < row[k.SIZE + p] for p in (0, 1))
        if row[k.BEAT_COPIES] > 0 and row[k.HANDS_PLAYED] >= 2 and segments_ok:
            assert k.check_invariants(row) == 0
            return row


def second_segment(row: np.ndarray, p: int) -> int:
    """Length slot of the first whole segment of p's deck."""
    return k.deck_slot(row, p, int(row[k.TOP_N + p])) + 2 * int(row[k.CAP])


def _hand_to_deck(row):
    """The seat not to act puts its whole hand under its deck, as a segment would go."""
    o = 1 - int(row[layout.PLAYER])
    k.put_under(row, o, k.HAND + k.NUM_NUMBERS * o)


def _trick_card_from_hand(row):
    p = int(row[layout.PLAYER])
    v = int(np.flatnonzero(row[k.HAND + 8 * p : k.HAND + 8 * p + 8])[0])
    row[k.HAND + 8 * p + v] -= 1
    row[k.TRICK + v] += 1
    row[k.BEAT_COPIES] = 0  # a lead, with a card in the play area
    row[k.LEADER] = p


def _put(slot, value):
    """A corruption writing `value` at `slot`; either may be a function of the row."""

    def corrupt(row):
        at = slot(row) if callable(slot) else slot
        row[at] = value(row) if callable(value) else value

    return corrupt


def _add(slot, delta):
    return _put(slot, lambda row: row[slot] + delta)


def _top_card(p, i=0):
    return lambda row: k.deck_slot(row, p, i)


CORRUPTIONS = [
    (1, "capacity", _add(k.CAP, 1)),
    (1, "stage", _put(k.CFG_STAGE, 0)),
    (2, "seat to act", _put(layout.PLAYER, 2)),
    (2, "status", _put(layout.STATUS, 3)),
    (2, "leader", _put(k.LEADER, -1)),
    (3, "turns past the cap", _put(layout.TURN, lambda row: row[k.CFG_MAX_TURNS])),
    (3, "truncated below the cap", _put(layout.STATUS, layout.TRUNCATED)),
    (3, "more hands than turns", _put(k.HANDS_PLAYED, lambda row: row[layout.TURN] + 1)),
    (4, "deck size", _put(k.SIZE, lambda row: row[k.CAP] + 1)),
    (4, "deck head", _put(k.HEAD + 1, lambda row: row[k.CAP])),
    (5, "deck card 9", _put(_top_card(0), 9)),
    (5, "deck card 0", _put(_top_card(1, 3), 0)),
    (6, "negative trick count", _put(k.TRICK + 7, -1)),
    (6, "negative hand count", _put(k.HAND + 8 + 2, -1)),
    (7, "a card changed", _put(_top_card(0), lambda row: row[_top_card(0)(row)] % 8 + 1)),
    (7, "a card lost", _add(k.SIZE + 1, -1)),
    (8, "copies above the trick", _add(k.BEAT_COPIES, 40)),
    (8, "range upside down", _put(k.BEAT_LO, lambda row: row[k.BEAT_HI] + 1)),
    (8, "cards in the play area on a lead", _trick_card_from_hand),
    (9, "an empty hand", _hand_to_deck),
    (10, "ended with cards in hand", _put(layout.STATUS, layout.TERMINATED)),
    (11, "pinned numbers", _put(k.PINNED, 256)),
    (11, "negative fresh count", _put(k.FRESH + k.BOOK + 3, -1)),
    (12, "top segment counts", _add(k.TOP_LEFT + 5, 1)),
    (12, "top segment longer than the deck", _put(k.TOP_N, lambda row: row[k.SIZE] + 1)),
    (12, "a segment of length 0", _put(lambda row: second_segment(row, 1), 0)),
    (12, "segments past the deck", _put(lambda row: second_segment(row, 0), 10**4)),
]


@pytest.mark.parametrize(
    ("law", "corrupt"),
    [(law, f) for law, _, f in CORRUPTIONS],
    ids=[f"{law}-{name.replace(' ', '_')}" for law, name, _ in CORRUPTIONS],
)
def test_each_broken_law_is_named(law, corrupt):
    row = mid_game()
    corrupt(row)
    code = int(k.check_invariants(row))
    assert code == law, f"got {code}: {k.INVARIANT_ERRORS[code]!r}"
    assert DoubleOrNothing(stage=1).invariant_error(row) == k.INVARIANT_ERRORS[law]


def test_every_law_has_a_message_and_a_test():
    assert k.INVARIANT_ERRORS[0] == ""
    assert {law for law, _, _ in CORRUPTIONS} == set(range(1, len(k.INVARIANT_ERRORS)))


# --- resample_hidden: what the seat sees ------------------------------------------------------
@pytest.mark.parametrize(
    ("config", "games"),
    [
        (dict(stage=1), 4),
        (dict(stage=2, first_leader=1), 2),
        (dict(stage=3), 1),
        (dict(stage=1, max_turns=40), 6),
    ],
    ids=["stage1", "stage2", "stage3", "truncated"],
)
def test_resampling_keeps_what_the_seat_sees(config, games):
    """Same observation (and mask for the seat to act), laws kept, the new row plays on to
    the end; the opponent's hand changes in a good share of positions, the seat's own deck
    order in most."""
    game = DoubleOrNothing(**config)
    rng = np.random.default_rng(1)
    seen = hand_changed = order_changed = 0
    for g in range(games):
        row = new_game(game, 100 + g)
        turns = 0
        while running(row):
            if turns % 5 == 0:
                to_act = int(row[layout.PLAYER])
                for seat in (0, 1):
                    o = 1 - seat
                    new = game.resample_hidden(row, seat, int(rng.integers(1 << 62)))
                    assert k.check_invariants(new) == 0, game.invariant_error(new)
                    np.testing.assert_array_equal(observe(new, seat), observe(row, seat))
                    if seat == to_act:
                        np.testing.assert_array_equal(mask_of(new), mask_of(row))
                    seen += 1
                    hand = slice(k.HAND + 8 * o, k.HAND + 8 * o + 8)
                    hand_changed += bool((new[hand] != row[hand]).any())
                    before, after = game.state_dict(row), game.state_dict(new)
                    order_changed += after["decks"][seat] != before["decks"][seat]
                    if turns % 30 == 0:
                        play_out(new, rng)
            step(row, choose(row, rng, "uniform"))
            turns += 1
    assert seen >= 40
    assert hand_changed >= 0.35 * seen, f"the opponent's hand changed in {hand_changed}/{seen}"
    assert order_changed >= 0.8 * seen, f"the own deck order changed in {order_changed}/{seen}"


def test_resampling_is_seeded_and_leaves_the_row_alone():
    game = DoubleOrNothing(stage=1)
    row = mid_game()
    copy = row.copy()
    a, b = game.resample_hidden(row, 0, 7), game.resample_hidden(row, 0, 7)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(row, copy)
    assert any((game.resample_hidden(row, 0, s) != a).any() for s in range(8, 12))


# --- resample_hidden: exactness --------------------------------------------------------------
class Lin:
    """A linear expression over the unknowns of a SeatView: {unknown: coefficient} + constant."""

    def __init__(self, const: int = 0, terms: dict[int, int] | None = None) -> None:
        self.const = const
        self.terms = terms or {}

    def __add__(self, other: Lin | int) -> Lin:
        if not isinstance(other, Lin):
            return Lin(self.const + other, self.terms)
        terms = dict(self.terms)
        for x, a in other.terms.items():
            terms[x] = terms.get(x, 0) + a
        return Lin(self.const + other.const, terms)

    def __sub__(self, other: Lin | int) -> Lin:
        if not isinstance(other, Lin):
            return Lin(self.const - other, self.terms)
        return self + Lin(-other.const, {x: -a for x, a in other.terms.items()})


def known(counts) -> list[Lin]:
    return [Lin(int(c)) for c in counts]


class Segment:
    """Cards put under a deck together (a fresh deck, a trick, a trick with the loser's
    hand): what they are, and what has been drawn of them."""

    def __init__(self, content: list[Lin], size: int) -> None:
        self.content = content
        self.left = size
        self.drawn = [Lin() for _ in range(N)]


class SeatView:
    """What `seat` knows of a game it has watched from the deal, from its own observations
    and the public actions only.

    Each deck is the list of its segments; each draw takes its cards segment by segment, and
    how many of each number it took from each segment is an unknown (known sums: the draw's
    size; for the seat's own draws, what it saw arrive in hand). The opponent's hand is a
    linear expression in those unknowns; each of its plays (copies, lo, hi) requires it held
    at least `copies` of each number of the range and exactly `copies` of one of them. A hand
    the opponent loses becomes part of a segment under the seat's deck. `possible(state)`
    then asks whether some values of the unknowns give `state`'s hands and, segment by
    segment, its deck contents: if so, shuffles exist that deal `state` with every
    observation the same (a segment's order is uniform and unseen).
    """

    def __init__(self, stage: int, seat: int, obs: np.ndarray) -> None:
        self.s = 1 << (stage - 1)
        self.seat = seat
        self.ub: list[int] = []  # bound of each unknown
        self.rows: list[tuple[dict[int, int], float, float]] = []  # lo <= terms <= hi
        fresh = [Segment(known([4 * self.s] * N), 32 * self.s) for _ in (0, 1)]
        self.decks = [[fresh[0]], [fresh[1]]]  # what is left, top first
        self.segments = [[fresh[0]], [fresh[1]]]  # all ever made
        self.seen = self._read(obs)
        self.draw(seat, 10 * self.s, self.seen["own"])
        self.opp = self.draw(1 - seat, 10 * self.s)  # its hand, per number
        self.opp_size = 10 * self.s
        self._check_sizes()

    def _read(self, obs: np.ndarray) -> dict:
        c = np.rint(np.asarray(obs, dtype=np.float64) * self.s).astype(int)
        own_deck, opp_deck = int(c[9]), int(c[10])
        return {
            "own": c[0:8].tolist(),
            "opp_size": int(c[8]),
            "deck": [own_deck, opp_deck] if self.seat == 0 else [opp_deck, own_deck],
            "copies": int(c[11]),
            "trick": c[29:37].tolist(),
        }

    def unknown(self, ub: int) -> Lin:
        self.ub.append(ub)
        return Lin(0, {len(self.ub) - 1: 1})

    def require(self, expr: Lin, lo: float, hi: float) -> None:
        self.rows.append((expr.terms, lo - expr.const, hi - expr.const))

    def draw(self, p: int, n: int, seen: list[int] | None = None) -> list[Lin]:
        """p draws n cards, segment by segment; `seen`: their counts if p is the seat."""
        got = [Lin() for _ in range(N)]
        while n:
            seg = self.decks[p][0]
            take = min(n, seg.left)
            if seen is not None and take == n == sum(seen):  # all from one segment: seen
                xs = known(seen)
            elif take == seg.left:  # the rest of the segment
                xs = [c - d for c, d in zip(seg.content, seg.drawn, strict=True)]
            else:
                xs = [self.unknown(take) for _ in range(N)]
            total = Lin()
            for v in range(N):
                self.require(xs[v], 0, np.inf)
                total += xs[v]
                seg.drawn[v] += xs[v]
                got[v] += xs[v]
            self.require(total, take, take)
            seg.left -= take
            n -= take
            if not seg.left:
                self.decks[p].pop(0)
        if seen is not None:
            for v in range(N):
                self.require(got[v], seen[v], seen[v])
        return got

    def under(self, p: int, content: list[Lin], size: int) -> None:
        seg = Segment(content, size)
        self.decks[p].append(seg)
        self.segments[p].append(seg)

    def step(self, actor: int, action: int, obs: np.ndarray, ended: bool) -> None:
        """One public action and the seat's observation after it; `ended`: the game ended by
        the rules (a short deck), which both players see."""
        before, after = self.seen, self._read(obs)
        seat, opp, s = self.seat, 1 - self.seat, self.s
        if action == PASS:
            n = min(2 * s, before["deck"][actor])
            if actor == seat:
                self.draw(
                    seat, n, [a - b for a, b in zip(after["own"], before["own"], strict=True)]
                )
            else:
                self.opp = [h + d for h, d in zip(self.opp, self.draw(opp, n), strict=True)]
                self.opp_size += n
            self.under(1 - actor, known(before["trick"]), sum(before["trick"]))
        else:
            lo, hi = RANGES[action]
            held = sum(before["own"]) if actor == seat else before["opp_size"]
            hand_won = sum(after["trick"]) == 0  # any other play stays in the play area
            copies = held // (hi - lo + 1) if hand_won else after["copies"]
            trick = list(before["trick"])
            ran_out = Lin()
            for v in range(lo - 1, hi):
                trick[v] += copies
                if actor == opp:
                    self.require(self.opp[v], copies, np.inf)
                    if lo < hi:  # z = 1 only if this number ran out; some number did
                        z = self.unknown(1)
                        ran_out += z
                        big = 64 * s
                        self.require(self.opp[v] + Lin(0, {next(iter(z.terms)): big}), -np.inf,
                                     copies + big)  # fmt: skip
                    else:  # a set plays every copy
                        self.require(self.opp[v], copies, copies)
                    self.opp[v] -= copies
                    self.opp_size -= copies
            if actor == opp and lo < hi:
                self.require(ran_out, 1, np.inf)
            if hand_won:
                loser = 1 - actor
                hand = known(before["own"]) if loser == seat else self.opp
                size = sum(before["own"]) if loser == seat else self.opp_size
                self.under(
                    actor, [Lin(t) + h for t, h in zip(trick, hand, strict=True)], sum(trick) + size
                )
                self.opp, self.opp_size = [Lin() for _ in range(N)], 0
                if not ended:
                    self.draw(seat, 10 * s, after["own"])
                    self.opp, self.opp_size = self.draw(opp, 10 * s), 10 * s
        self.seen = after
        self._check_sizes()

    def _check_sizes(self) -> None:
        for p in (0, 1):
            assert sum(seg.left for seg in self.decks[p]) == self.seen["deck"][p]
        assert self.opp_size == self.seen["opp_size"]

    def possible(self, state: dict) -> bool:
        """Whether `state` (a state_dict) agrees with everything the seat has seen."""
        seat, opp = self.seat, 1 - self.seat
        if state["hands"][seat] != self.seen["own"] or state["trick"] != self.seen["trick"]:
            return False
        rows = list(self.rows)

        def equal(expr: Lin, value: int) -> None:
            rows.append((expr.terms, value - expr.const, value - expr.const))

        for p in (0, 1):
            cards = state["decks"][p]
            if len(cards) != self.seen["deck"][p]:
                return False
            left, i = {}, 0
            for seg in self.decks[p]:
                span = cards[i : i + seg.left]
                left[id(seg)] = [span.count(v + 1) for v in range(N)]
                i += seg.left
            for seg in self.segments[p]:
                rest = left.get(id(seg), [0] * N)
                for v in range(N):
                    equal(seg.content[v] - seg.drawn[v], rest[v])
        for v in range(N):
            equal(self.opp[v], state["hands"][opp][v])
        r, c, a = [], [], []
        for i, (terms, _, _) in enumerate(rows):
            for x, coef in terms.items():
                r.append(i)
                c.append(x)
                a.append(coef)
        n = len(self.ub)
        result = milp(
            np.zeros(n),
            constraints=LinearConstraint(
                coo_matrix((a, (r, c)), shape=(len(rows), n)).tocsr(),
                [row[1] for row in rows],
                [row[2] for row in rows],
            ),
            integrality=np.ones(n),
            bounds=Bounds(np.zeros(n), np.array(self.ub, dtype=float)),
        )
        assert result.status in (0, 2), result.message  # solved: feasible or infeasible
        return result.status == 0


def watched_positions(stage: int, seed: int, style: str, turns: int, every: int):
    """(game, row, views) at every `every`-th turn of a seeded game, up to `turns` turns;
    views[seat] has watched the game from seat's side."""
    game = DoubleOrNothing(stage=stage)
    rng = np.random.default_rng(seed)
    row = new_game(game, seed)
    views = [SeatView(stage, seat, observe(row, seat)) for seat in (0, 1)]
    for turn in range(turns):
        if not running(row):
            return
        if turn % every == 0:
            yield game, row, views
        actor, action = int(row[layout.PLAYER]), choose(row, rng, style)
        step(row, action)
        ended = int(row[layout.STATUS]) == layout.TERMINATED
        for seat in (0, 1):
            views[seat].step(actor, action, observe(row, seat), ended)


@pytest.mark.parametrize(
    ("stage", "seed", "style", "turns", "every"),
    [
        (1, 4, "uniform", 150, 8),
        (1, 3, "pass", 120, 7),
        (1, 7, "play", 150, 8),
        (2, 6, "uniform", 100, 12),
    ],
)
def test_resampled_states_are_possible(stage, seed, style, turns, every):
    """Every resampled state (and a resample of a resample) agrees with all the seat has
    seen; so does the true state (the check's own sanity)."""
    rng = np.random.default_rng(seed)
    checked = 0
    for game, row, views in watched_positions(stage, seed, style, turns, every):
        for seat in (0, 1):
            view = views[seat]
            if seat == 0:
                assert view.possible(game.state_dict(row)), "the true state is ruled out"
            new = game.resample_hidden(row, seat, int(rng.integers(1 << 62)))
            assert view.possible(game.state_dict(new)), f"seat {seat} can rule this state out"
            if seat == 1:
                again = game.resample_hidden(new, seat, int(rng.integers(1 << 62)))
                assert view.possible(game.state_dict(again)), "a resample of a resample"
            checked += 1
    assert checked >= 10


def test_the_check_rules_out_a_complete_redraw():
    """Dealing the opponent's hand and deck again from all their cards is what the seat can
    rule out in most positions: the check has teeth, and such a redraw would not be exact."""
    rng = np.random.default_rng(0)
    ruled_out = total = 0
    for game, row, views in watched_positions(1, 8, "uniform", 120, 8):
        seat = int(row[layout.PLAYER])
        o = 1 - seat
        state = game.state_dict(row)
        cards = [v + 1 for v in range(N) for _ in range(state["hands"][o][v])] + state["decks"][o]
        rng.shuffle(cards)
        held = sum(state["hands"][o])
        state["hands"][o] = [cards[:held].count(v + 1) for v in range(N)]
        state["decks"][o] = cards[held:]
        total += 1
        ruled_out += not views[seat].possible(state)
    assert ruled_out >= 0.7 * total, f"{ruled_out} of {total}"


def test_a_number_a_play_used_up_does_not_come_back():
    """Right after the opponent plays every copy of a number it must hold none: putting one
    in its hand (from its own top segment) is ruled out, and resampling never does it."""
    found = 0
    for seed in range(40):
        for game, row, views in watched_positions(1, seed, "uniform", 60, 1):
            seat = int(row[layout.PLAYER])
            o = 1 - seat
            copies, lo, hi = int(row[k.BEAT_COPIES]), int(row[k.BEAT_LO]), int(row[k.BEAT_HI])
            top = int(row[k.TOP_N + o])
            hand = row[k.HAND + 8 * o : k.HAND + 8 * o + 8]
            deck = game.state_dict(row)["decks"][o][:top]
            if not (copies and lo == hi and lo in deck):
                continue  # wanted: the opponent just played a set of `lo`s
            other = next((v for v in range(N) if hand[v] and v + 1 != lo), None)
            if other is None:
                continue
            state = game.state_dict(row)
            state["hands"][o][other] -= 1
            state["hands"][o][lo - 1] += 1
            state["decks"][o][deck.index(lo)] = other + 1
            assert not views[seat].possible(state)
            for s in range(5):
                new = game.resample_hidden(row, seat, s)
                assert new[k.HAND + 8 * o + lo - 1] == 0
            found += 1
            break
        if found >= 3:
            return
    raise AssertionError("no position found")


_HOOK_TRACE = """
import numpy as np
from card_envs.games.double_or_nothing import engine as k
from card_envs.games.double_or_nothing.spec import DoubleOrNothing


def hook_trace():
    # check_invariants along two short seeded games, and rows resampled along them
    out = []
    for stage in (1, 2):
        game = DoubleOrNothing(stage=stage)
        rng = np.random.default_rng(stage)
        row = game.new_row()
        game.reset_row(row, stage)
        mask = np.zeros(k.NUM_RANGES + 1, dtype=np.int8)
        for turn in range(60):
            if row[5] != 0:  # layout.STATUS: the game is over
                break
            if turn % 10 == 0:
                out.append(game.resample_hidden(row, turn % 20 // 10, turn).tolist())
            k.legal(row, mask)
            k.step(row, int(rng.choice(np.flatnonzero(mask))), np.zeros(2, dtype=np.float32))
            out.append(int(k.check_invariants(row)))
    return out
"""


def test_the_hooks_run_the_same_without_jit():
    done = subprocess.run(
        [sys.executable, "-c", _HOOK_TRACE + "\nimport json\nprint(json.dumps(hook_trace()))"],
        env={**os.environ, "NUMBA_DISABLE_JIT": "1"},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    here: dict = {}
    exec(_HOOK_TRACE, here)
    assert json.loads(done.stdout) == here["hook_trace"]()

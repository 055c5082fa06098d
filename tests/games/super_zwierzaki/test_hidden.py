"""Super Zwierzaki's `resample_hidden`: what a seat knows of other hands stays put, the rest
is dealt again.

Hand-made situations show each kind of knowledge (cards the seat gave, a hand swapped by
War, cards drawn from a refilled draw pile, a pending copies choice, `skip_forced`). Over
random play, `Knowledge` below follows, from the actions alone and seat by seat, the cards
each seat knows to be in each other hand (a lower bound, written apart from the engine's
FIXED/LATE bookkeeping); every resampled row must keep them and draw the seat the same table
(`Game.scene`). The conformance suite checks the rest (observations, masks and renders
unchanged, laws kept, games play on).
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from card_envs.core import layout
from card_envs.games.super_zwierzaki import engine as k
from card_envs.games.super_zwierzaki.spec import SuperZwierzaki
from tests.games.super_zwierzaki.helpers import (
    ALIGATOR,
    CZAPLA,
    GRIZZLY,
    KANGUR,
    KAZ,
    KOALA,
    MAMBA,
    SOKOL,
    TYGRYS,
    WAR,
    ZAJAC,
    discard_pile,
    hands,
    situation,
)
from tests.games.super_zwierzaki.reference import Rules

NUM_KINDS = k.NUM_KINDS
# a draw pile of many kinds, so that a redeal shows
VARIED = [kind for kind in range(NUM_KINDS) if k.KIND_FUNCTION[kind] == 0][:40]


def resampled(row: np.ndarray, seat: int, seed: int) -> np.ndarray:
    """`Game.resample_hidden` of a hand-made row (it reads no option from the game)."""
    return SuperZwierzaki(num_players=int(row[layout.NUM_PLAYERS])).resample_hidden(row, seat, seed)


def within(small: Counter, big: Counter) -> bool:
    return not small - big


# --- hand-made situations ---------------------------------------------------------------------
def test_cards_a_seat_gave_stay_in_the_receivers_hand_the_rest_is_redrawn():
    """Seat 0's Kaz gives Mamba and Sokol to seat 1: in every resample they stay in seat 1's
    hand; seat 1's other cards and seat 2's hand are dealt again with the draw pile."""
    t = situation(
        "engine",
        [[KAZ, MAMBA, SOKOL, KOALA], [ALIGATOR] * 5, [GRIZZLY] * 5],
        top=CZAPLA,  # a bird: the Kaz (a red bird) matches it
        draw=VARIED,
    )
    t.play(k.KIND + KAZ, k.PASS, k.PASS, k.SEAT + 1, k.KIND + MAMBA, k.KIND + SOKOL)
    row = t.row
    assert hands(row, 3)[1] == Counter({ALIGATOR: 5, MAMBA: 1, SOKOL: 1})
    others_redrawn = set()
    for seat in range(3):
        for seed in range(20):
            new = hands(resampled(row, seat, seed), 3)
            assert new[seat] == hands(row, 3)[seat]
            assert [sum(h.values()) for h in new] == [1, 7, 5]
            if seat != 1:
                assert within(Counter({MAMBA: 1, SOKOL: 1}), new[1])
                others_redrawn.add(new[1][ALIGATOR] < 5)
    assert True in others_redrawn


def test_after_a_war_the_old_hand_stays_and_later_draws_are_redrawn():
    """Two players: seat 0's War swaps the hands, so seat 0 knows seat 1's hand (its own
    old one); the card seat 1 draws next is unknown to seat 0 and is redrawn."""
    t = situation("engine", [[WAR, MAMBA, SOKOL], [GRIZZLY, GRIZZLY]], top=ALIGATOR, draw=VARIED)
    t.play(k.KIND + WAR, k.PASS, k.SEAT + 0, k.SEAT + 1)  # the window, then seats 0 and 1
    assert t.hands == [Counter({GRIZZLY: 2}), Counter({MAMBA: 1, SOKOL: 1})]
    t.play(k.DRAW, k.DRAW)  # seat 1, then seat 0
    drawn = t.hands[1] - Counter({MAMBA: 1, SOKOL: 1})
    seen = set()
    for seed in range(30):
        new = hands(resampled(t.row, 0, seed), 2)
        assert within(Counter({MAMBA: 1, SOKOL: 1}), new[1]) and sum(new[1].values()) == 3
        seen.add(tuple(sorted((new[1] - Counter({MAMBA: 1, SOKOL: 1})).elements())))
    assert len(seen) > 1 and tuple(drawn.elements()) in seen


def test_after_a_refill_old_cards_and_cards_drawn_since_are_redrawn_apart():
    """Seat 1 holds five cards from the deal and draws one from the refilled pile (the old
    discard pile but its top card: Sokol x3, Czapla x3, everyone saw them). For seat 0 the
    drawn card and the new pile come from exactly those cards; the five stay (there is no
    other hand to exchange them with)."""
    old = Counter({GRIZZLY: 3, KOALA: 2})
    discard = [SOKOL, CZAPLA] * 3
    t = situation(
        "engine",
        [[MAMBA, TYGRYS], list(old.elements())],
        top=KANGUR,
        draw=[ZAJAC],
        discard=discard,
    )
    t.play(k.DRAW)  # seat 0 takes the last card of the draw pile
    t.play(k.DRAW)  # seat 1's draw refills the pile from the discard pile
    assert t.discard == [KANGUR] and len(t.draw_pile) == 5
    refill = Counter(discard)
    seen = set()
    for seed in range(30):
        new = resampled(t.row, 0, seed)
        hand = hands(new, 2)[1]
        assert within(old, hand) and sum(hand.values()) == 6
        late = hand - old
        pile = Counter(int(c) for c in new[k.DRAW_PILE : k.DRAW_PILE + new[k.DRAW_N]])
        assert late + pile == refill
        seen.add(tuple(late.elements()))
    assert seen == {(SOKOL,), (CZAPLA,)}


def test_before_a_refill_dealt_cards_mix_with_the_draw_pile():
    t = situation("engine", [[MAMBA, TYGRYS], [GRIZZLY] * 5], top=KANGUR, draw=VARIED)
    changed = [hands(resampled(t.row, 0, seed), 2)[1] != t.hands[1] for seed in range(10)]
    assert all(changed)


def test_the_hand_of_a_seat_choosing_copies_stays():
    t = situation("engine", [[SOKOL, SOKOL, KOALA], [GRIZZLY] * 5], top=MAMBA, draw=VARIED)
    t.play(k.KIND + SOKOL)
    assert t.what == "copies"
    for seed in range(10):
        assert hands(resampled(t.row, 1, seed), 2)[0] == t.hands[0]


def test_with_skip_forced_every_hand_stays_and_the_draw_pile_is_reordered():
    t = situation(
        "engine", [[MAMBA, TYGRYS], [GRIZZLY] * 5], top=KANGUR, draw=VARIED,
        rules=Rules(2, skip_forced=True),
    )  # fmt: skip
    orders = set()
    for seed in range(5):
        new = resampled(t.row, 0, seed)
        assert hands(new, 2) == t.hands
        orders.add(tuple(new[k.DRAW_PILE : k.DRAW_PILE + new[k.DRAW_N]]))
    assert len(orders) == 5
    assert not SuperZwierzaki(num_players=2, skip_forced=True).resamples_hands()


# --- random play --------------------------------------------------------------------------------
class Knowledge:
    """`known[x][q]`: cards seat x knows to be in seat q's hand, followed from the actions:
    cards x gave to q (picks, 9 kolorow), and after a War the whole old hand of x in q. Cards
    leaving q's hand take their kind's knowledge down by as many (and by every card drawn in
    the same step, if that kind was laid or picked then: one may have been drawn back); a
    two-War keeps only what the old owners know of the hands they handed on. A lower bound
    of what x knows."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.known = [[Counter() for _ in range(n)] for _ in range(n)]

    def step(self, row: np.ndarray, action: int, rewards: np.ndarray) -> None:
        n = self.n
        what, p, a, b, c, d = (int(v) for v in k._top(row))
        before, pile, discard = hands(row, n), int(row[k.DRAW_N]), Counter(discard_pile(row))
        k.step(row, action, rewards)
        after = hands(row, n)
        drawn = pile - int(row[k.DRAW_N])
        laid = Counter(discard_pile(row)) - discard  # kinds that may have left a hand
        if drawn < 0 or discard - Counter(discard_pile(row)) or (pile == 0 and any(
            sum(after[q].values()) > sum(before[q].values()) for q in range(n)
        )):  # fmt: skip
            drawn = 10**6  # the pile was refilled: any card may have been drawn
        if what == k.D_PICK:
            laid[action - k.KIND] += 1  # a pick gives or discards a card of that kind
        if what == k.D_SEAT and a == k.S_WAR_B:  # the knowledge goes with the hands
            first, second = b, (p + action - k.SEAT) % n
            for x in range(n):
                known = self.known[x]
                known[first], known[second] = known[second], known[first]
            before[first], before[second] = before[second], before[first]
        for x in range(n):
            for q in range(n):
                if before[q] != after[q]:
                    for kind in list(self.known[x][q]):
                        left = max(0, before[q][kind] - after[q][kind])
                        left += drawn if laid[kind] else 0  # drawn again in the same step
                        self.known[x][q][kind] = max(0, self.known[x][q][kind] - left)
        if what == k.D_PICK and a == k.P_GIVE:
            self.known[p][c][action - k.KIND] += 1
        elif what == k.D_PICK and a == k.P_KEEP:
            self.known[p][c] += before[p] - Counter({action - k.KIND: 1})
        elif what == k.D_SEAT and a == k.S_WAR_B:
            self.known[first][second] += before[second]  # first's old hand
            self.known[second][first] += before[first]
        elif what == k.D_SEAT and a == k.S_WAR2_HAND and d + 1 == n:
            self.known = [[Counter() for _ in range(n)] for _ in range(n)]
            for i in range(n):
                seat, owner = k.after(row, p, i), int(row[k.PERM + i])
                if owner != seat:
                    self.known[owner][seat] = Counter(after[seat])
        for x in range(n):
            self.known[x][x] = Counter()
            for q in range(n):
                self.known[x][q] = +self.known[x][q]


@pytest.mark.parametrize("num_players", [2, 3, 5])
def test_every_resample_keeps_what_each_seat_knows_of_other_hands(num_players):
    n = num_players
    game = SuperZwierzaki(num_players=n, max_turns=400)
    rewards = np.zeros(k.MAX_PLAYERS, dtype=np.float32)
    mask = np.zeros(k.NUM_ACTIONS, dtype=np.int8)
    checked = redrawn = knowing = 0
    for seed in range(8):
        row = game.new_row()
        game.reset_row(row, seed)
        rng = np.random.default_rng(seed)
        tracker = Knowledge(n)
        step = 0
        while row[layout.STATUS] == layout.RUNNING:
            if step % 5 == 0:
                for seat in range(n):
                    new = game.resample_hidden(row, seat, int(rng.integers(1 << 40)))
                    now, then = hands(new, n), hands(row, n)
                    assert now[seat] == then[seat]
                    assert game.scene(new, seat) == game.scene(row, seat), (seed, step, seat)
                    for q in range(n):
                        assert within(tracker.known[seat][q], now[q]), (seed, step, seat, q)
                        knowing += bool(tracker.known[seat][q])
                    redrawn += any(now[q] != then[q] for q in range(n) if q != seat)
                    checked += 1
            k.legal(row, mask)
            tracker.step(row, int(rng.choice(np.flatnonzero(mask))), rewards)
            step += 1
    assert knowing > checked // 10  # the test meets knowledge often
    assert redrawn > checked // 2  # and the other hands are redrawn in most positions


def test_a_copies_choice_shows_as_a_turn_to_the_other_seats():
    """Whether a hand holds more copies of the kind it plays is its own: while seat 0 chooses
    how many Sokols to play, seat 1 sees seat 0 at its turn, seat 0 sees the copies choice."""
    t = situation("engine", [[SOKOL, SOKOL, KOALA], [GRIZZLY] * 5], top=MAMBA, draw=VARIED)
    start, _ = k.obs_slices(2)["decision"]
    out = np.zeros(k.obs_size(2), dtype=np.float32)
    for seat, shown in ((0, k.D_TURN), (1, k.D_TURN)):
        k.observe(t.row, seat, out)
        assert np.flatnonzero(out[start : start + len(k.DECISION_NAMES)]).tolist() == [shown]
    t.play(k.KIND + SOKOL)
    assert t.what == "copies"
    for seat, shown in ((0, k.D_COPIES), (1, k.D_TURN)):
        k.observe(t.row, seat, out)
        assert np.flatnonzero(out[start : start + len(k.DECISION_NAMES)]).tolist() == [shown]

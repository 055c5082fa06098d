"""The Super Zwierzaki engine against the plain-Python reference game, in lockstep over random
play: after every action the same legal actions, hands, piles, given colours and classes,
counters, numbers, lost turns and pending decision. The engine's random events are replayed
into the reference (a reshuffled draw pile in the engine's order); after a two-War's random
half the reference takes the engine's hands."""

import random
from collections import Counter

import numpy as np
import pytest
import test_super_zwierzaki_reference as ref  # its situations and kind names
from reference_super_zwierzaki import (
    CLASS_OF,
    COLOURS,
    Decision,
    Game,
    Rules,
    _run,
    act,
    legal,
)

from card_envs.core import layout
from card_envs.core.rng import seed_row
from card_envs.games.super_zwierzaki import deck
from card_envs.games.super_zwierzaki import engine as k

NUM_KINDS = deck.NUM_KINDS


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


def colour_set(mask: int) -> frozenset:
    return frozenset(c for i, c in enumerate(COLOURS) if mask >> i & 1)


def class_set(mask: int) -> frozenset:
    return frozenset(c for i, c in enumerate(deck.CLASSES) if mask >> i & 1)


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
        [int(c) for c in row[k.DRAW_PILE : k.DRAW_PILE + row[k.DRAW_N]]],
        [int(c) for c in row[k.DISCARD_PILE : k.DISCARD_PILE + row[k.DISCARD_N]]],
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


def differences(row: np.ndarray, g: Game) -> list[str]:
    n = g.n
    out = []
    checks = {
        "hands": (hands(row, n), g.hands),
        "draw pile": (
            [int(c) for c in row[k.DRAW_PILE : k.DRAW_PILE + row[k.DRAW_N]]],
            g.draw_pile,
        ),
        "discard pile": (
            [int(c) for c in row[k.DISCARD_PILE : k.DISCARD_PILE + row[k.DISCARD_N]]],
            g.discard,
        ),
        "colours": (colour_set(row[k.GIVEN_COLOURS]), g.colours),
        "classes": (class_set(row[k.GIVEN_CLASSES]), g.classes),
        "counters": (
            [int(x) for x in row[k.COUNTERS : k.COUNTERS + 4]],
            [g.counters[c] for c in ("red", "orc", "green", "demand")],
        ),
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
        mask = np.zeros(k.NUM_ACTIONS, dtype=np.int8)
        k.legal(row, mask)
        checks["legal"] = (np.flatnonzero(mask).tolist(), sorted(legal(g)))
    for name, (engine, reference) in checks.items():
        if engine != reference:
            out.append(f"{name}: engine {engine} reference {reference}")
    return out


def _take_engine_hands(row: np.ndarray, g: Game) -> None:
    g.hands = hands(row, g.n)


@pytest.mark.parametrize("num_players", [2, 3, 5, 8, 12])
@pytest.mark.parametrize(
    "options",
    [{}, {"explicit_call": True}, {"skip_forced": True}, {"play_drawn": True}],
    ids=["default", "explicit_call", "skip_forced", "play_drawn"],
)
def test_the_engine_plays_as_the_reference(num_players, options):
    rewards = np.zeros(k.MAX_PLAYERS, dtype=np.float32)
    for seed in range(6):
        rules = Rules(num_players, max_turns=250, **options)
        row = new_row(rules, seed)
        replay = Replay()
        g = reference_of(row, rules, replay)
        assert differences(row, g) == []
        rng = random.Random(seed)
        history = []
        while not g.done:
            a = rng.choice(legal(g))
            history.append(a)
            war2 = g.decisions[-1].ctx.get("purpose") == "war2_hand"
            k.step(row, a, rewards)
            replay.row = row
            act(g, a)
            if war2:
                _take_engine_hands(row, g)
            diff = differences(row, g)
            assert diff == [], f"seed {seed}, actions {history}: {diff}"
        assert row[layout.STATUS] != layout.RUNNING


def test_classes_are_the_decks():
    assert set(CLASS_OF) - {"all"} == set(deck.CLASSES)


# --- hand-made situations, played by both --------------------------------------------------
def row_of(g: Game) -> np.ndarray:
    """An engine row holding the reference's position at the start of a turn."""
    n = g.n
    row = np.zeros(k.STATE_SIZE, dtype=np.int64)
    row[layout.NUM_PLAYERS] = n
    row[k.CFG_EXPLICIT_CALL] = g.rules.explicit_call
    row[k.CFG_SKIP_FORCED] = g.rules.skip_forced
    row[k.CFG_PLAY_DRAWN] = g.rules.play_drawn
    row[k.CFG_MAX_TURNS] = g.rules.max_turns
    seed_row(row, 0)
    for p in range(n):
        for kind, c in g.hands[p].items():
            row[k.HANDS + p * NUM_KINDS + kind] = c
        row[k.HAND_N + p] = sum(g.hands[p].values())
        row[k.SIZES + p] = g.sizes[p]
        row[k.NUMBERS + p] = g.numbers[p]
        row[k.LOST + p] = g.lost[p]
    row[k.DRAW_PILE : k.DRAW_PILE + len(g.draw_pile)] = g.draw_pile
    row[k.DRAW_N] = len(g.draw_pile)
    row[k.DISCARD_PILE : k.DISCARD_PILE + len(g.discard)] = g.discard
    row[k.DISCARD_N] = len(g.discard)
    row[k.GIVEN_COLOURS] = sum(1 << COLOURS.index(c) for c in g.colours)
    row[k.GIVEN_CLASSES] = sum(1 << deck.CLASSES.index(c) for c in g.classes)
    for i, c in enumerate(("red", "orc", "green", "demand")):
        row[k.COUNTERS + i] = g.counters[c]
    row[k.DEMAND_KIND] = g.demand_kind
    row[k.DEMAND_BY] = g.demand_by
    row[k.TURN_SEAT] = g.turn_seat
    row[k.WINNER] = -1
    row[k.QUEUE_HEAD] = k.QUEUE_START
    row[layout.STATUS] = layout.RUNNING
    row[layout.PLAYER] = g.turn_seat
    assert [d.what for d in g.decisions] == ["turn"]
    k._push(row, k.D_TURN, g.turn_seat, 0, 0, 0, 0)
    return row


def lockstep(g: Game, actions: list[int]) -> np.ndarray:
    """Play `actions` on the reference situation and on the engine, comparing each step."""
    row = row_of(g)
    assert differences(row, g) == []
    rewards = np.zeros(k.MAX_PLAYERS, dtype=np.float32)
    for i, a in enumerate(actions):
        war2 = g.decisions[-1].ctx.get("purpose") == "war2_hand"
        k.step(row, a, rewards)
        act(g, a)
        if war2:
            _take_engine_hands(row, g)
        assert differences(row, g) == [], f"after action {i} ({a})"
    return row


def test_two_war_moves_the_hands_as_chosen():
    g = ref.situation(
        [[ref.WAR, ref.WAR, ref.MAMBA, ref.ZAJAC], [ref.KOALA], [ref.SOKOL] * 2 + [ref.CZAPLA] * 2],
        top=ref.GRIZZLY,
    )
    actions = [ref.KIND + ref.WAR, ref.COPIES + 1, ref.PASS, ref.PASS]
    actions += [ref.SEAT + 2, ref.SEAT + 1, ref.SEAT + 1, ref.SEAT + 2, ref.SEAT + 0]
    row = lockstep(g, actions)
    assert row[k.HAND_N] == 3 and row[k.HAND_N + 1] == 2 and row[k.HAND_N + 2] == 2


def test_nine_colours_stopped_and_given():
    nine = [ref.MAMBA, ref.KOALA, ref.RED, ref.ALIGATOR, ref.GRIZZLY, ref.POL, ref.CZAPLA]
    nine += [ref.MCH, ref.CYR]
    g = ref.situation([nine + [ref.ZAJAC, ref.SOKOL], [ref.KOALA]], top=ref.SOKOL)
    lockstep(
        g,
        [ref.NINE] + [ref.KIND + c for c in nine] + [ref.PASS, ref.SEAT + 1, ref.KIND + ref.ZAJAC],
    )
    g = ref.situation([nine + [ref.ZAJAC], [ref.DZI, ref.KOALA]], top=ref.SOKOL)
    lockstep(g, [ref.NINE] + [ref.KIND + c for c in nine] + [ref.KIND + ref.DZI])


def test_duels_win_rounds_and_calls():
    g = ref.situation(
        [[ref.OTH, ref.OTH, ref.MAMBA], [ref.RED, ref.KOALA], [ref.ZAJAC]], top=ref.ALIGATOR
    )
    lockstep(g, [ref.KIND + ref.OTH, ref.COPIES, ref.PASS, ref.PASS, ref.KIND + ref.OTH])
    g = ref.situation(
        [[ref.GIV, ref.GIV, ref.MAMBA, ref.ZAJAC, ref.SOKOL], [ref.KOALA] * 2], top=ref.MAMBA
    )
    lockstep(g, [ref.KIND + ref.GIV, ref.COPIES, ref.PASS, ref.KIND + ref.GIV, ref.PASS])
    g = ref.situation([[ref.MAMBA], [ref.DZI]], top=ref.ZAJAC, draw=[ref.SOKOL])
    lockstep(g, [ref.KIND + ref.MAMBA, ref.KIND + ref.DZI, ref.PASS])
    g = ref.situation([[ref.RED], [ref.CYR, ref.KOALA]], top=ref.ZAJAC, red=2)
    lockstep(g, [ref.KIND + ref.RED, ref.PASS, ref.KIND + ref.CYR])
    rules = Rules(2, explicit_call=True)
    g = ref.situation([[ref.MAMBA, ref.ZAJAC], [ref.KOALA]], top=ref.SOKOL, rules=rules)
    lockstep(g, [ref.KIND + ref.MAMBA, ref.PASS])


# --- conservation laws and the outcome --------------------------------------------------------
def test_random_play_keeps_every_conservation_law_and_scores_the_winner():
    mask = np.zeros(k.NUM_ACTIONS, dtype=np.int8)
    rewards = np.zeros(k.MAX_PLAYERS, dtype=np.float32)
    scores = np.zeros(k.MAX_PLAYERS)
    wins = np.zeros(k.MAX_PLAYERS)
    ended = Counter()
    for n in (2, 4, 8, 12):
        for seed in range(30):
            row = new_row(Rules(n, max_turns=300), seed)
            rng = np.random.default_rng(seed)
            total = np.zeros(k.MAX_PLAYERS)
            while row[layout.STATUS] == layout.RUNNING:
                assert k.check_invariants(row) == 0
                k.legal(row, mask)
                rewards[:] = 0
                k.step(row, rng.choice(np.flatnonzero(mask)), rewards)
                total += rewards
            assert k.check_invariants(row) == 0
            k.outcome(row, scores, wins)
            assert list(scores[:n]) == [-row[k.HAND_N + s] for s in range(n)]
            if row[layout.STATUS] == layout.TERMINATED:
                w = int(row[k.WINNER])
                assert row[k.HAND_N + w] == 0 and wins[w] == 1 and wins[:n].sum() == 1
                assert total[w] == 1 and (total[:n] == -1).sum() == n - 1
                ended["won"] += 1
            else:  # no rewards; the win is shared by the fewest cards (the leader by time)
                sizes = row[k.HAND_N : k.HAND_N + n]
                leaders = sizes == sizes.min()
                assert not total.any() and (wins[:n] == leaders / leaders.sum()).all()
                ended["truncated"] += 1
    assert ended["won"] > 0 and ended["truncated"] > 0  # a check on the test itself


@pytest.mark.parametrize(
    ("corrupt", "law"),
    [
        (lambda r: r.__setitem__(k.HANDS + 3, r[k.HANDS + 3] + 1), 3),  # size no longer matches
        (
            lambda r: (
                r.__setitem__(k.HANDS + 3, r[k.HANDS + 3] + 1),
                r.__setitem__(k.HAND_N, r[k.HAND_N] + 1),
            ),
            2,
        ),
        (lambda r: r.__setitem__(k.DRAW_PILE, (r[k.DRAW_PILE] + 1) % NUM_KINDS), 2),
        (lambda r: (r.__setitem__(k.COUNTERS, 2), r.__setitem__(k.COUNTERS + 1, 3)), 4),
        (lambda r: r.__setitem__(k.NUMBERS + 1, r[k.NUMBERS]), 5),
        (lambda r: r.__setitem__(k.GIVEN_CLASSES, 0), 6),
        (lambda r: r.__setitem__(k.DISCARD_N, 0), 1),
        (lambda r: r.__setitem__(k.STACK_N, 0), 1),
    ],
)
def test_a_broken_row_names_the_broken_law(corrupt, law):
    row = new_row(Rules(3), 5)
    assert k.check_invariants(row) == 0
    corrupt(row)
    assert k.check_invariants(row) == law, k.INVARIANT_ERRORS[k.check_invariants(row)]


# --- the observation --------------------------------------------------------------------------
def _redeal_hidden(row: np.ndarray, seat: int, rng: np.random.Generator) -> np.ndarray:
    """The row with every card `seat` cannot see (other hands, the draw pile) dealt again,
    each hand keeping its size (also what `seat` could know from the past: the resampling
    bookkeeping is cleared)."""
    out = row.copy()
    out[k.FIXED : k.STATE_SIZE] = 0
    n = int(row[layout.NUM_PLAYERS])
    others = [q for q in range(n) if q != seat]
    pool = [int(c) for c in row[k.DRAW_PILE : k.DRAW_PILE + row[k.DRAW_N]]]
    for q in others:
        for kind in range(NUM_KINDS):
            pool += [kind] * int(row[k.HANDS + q * NUM_KINDS + kind])
            out[k.HANDS + q * NUM_KINDS + kind] = 0
    rng.shuffle(pool)
    for q in others:
        for _ in range(int(row[k.HAND_N + q])):
            out[k.HANDS + q * NUM_KINDS + pool.pop()] += 1
    out[k.DRAW_PILE : k.DRAW_PILE + len(pool)] = pool
    assert k.check_invariants(out) == 0
    return out


def test_the_observation_shows_only_the_own_hand_and_public_facts():
    mask = np.zeros(k.NUM_ACTIONS, dtype=np.int8)
    rewards = np.zeros(k.MAX_PLAYERS, dtype=np.float32)
    for n in (2, 5):
        size = k.obs_size(n)
        a, b = np.zeros(size, dtype=np.float32), np.zeros(size, dtype=np.float32)
        sl = k.obs_slices(n)
        for seed in range(4):
            row = new_row(Rules(n, max_turns=200, play_drawn=True), seed)
            rng = np.random.default_rng(seed)
            while row[layout.STATUS] == layout.RUNNING:
                for seat in range(n):
                    k.observe(row, seat, a)
                    k.observe(_redeal_hidden(row, seat, rng), seat, b)
                    assert np.array_equal(a, b), (seed, seat)
                seat = int(row[layout.PLAYER])
                k.observe(row, seat, a)
                start, length = sl["hand"]
                own = row[k.HANDS + seat * NUM_KINDS : k.HANDS + (seat + 1) * NUM_KINDS]
                assert list(a[start : start + length]) == list(own)
                start, length = sl["hand_sizes"]
                assert a[start] == row[k.HAND_N + seat] and a[start : start + length].sum() == (
                    row[k.HAND_N : k.HAND_N + n].sum()
                )
                start, length = sl["piles"]
                assert start + length == size and a[start] == row[k.DRAW_N]
                k.legal(row, mask)
                k.step(row, rng.choice(np.flatnonzero(mask)), rewards)

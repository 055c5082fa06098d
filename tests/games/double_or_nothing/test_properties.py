"""Double or Nothing property tests: random deals, stages and legal play, checked against the
reference game at every step; the helper functions against the reference on random input."""

from __future__ import annotations

import random

import numpy as np
from hypothesis import event, given, settings
from hypothesis import strategies as st

import card_envs
from card_envs.agents import make_agent
from card_envs.games.double_or_nothing import computer_move, play_for_range, stronger
from tests.games.double_or_nothing.helpers import rule_fields
from tests.games.double_or_nothing.reference import (
    PASS,
    RANGES,
    RefDoubleOrNothing,
    counts_of,
    engine_order,
    hand_size,
    heuristic_move,
    legal_actions,
    range_action,
    scale,
    strength,
)
from tests.games.double_or_nothing.reference import computer_move as ref_computer_move
from tests.games.double_or_nothing.reference import play_for_range as ref_play_for_range
from tests.games.double_or_nothing.reference import stronger as ref_stronger

ENV_ID = "double_or_nothing_v0"
SEEDS = st.integers(min_value=-(2**63), max_value=2**64)
ALL_PLAYS = [(c, lo, hi) for c in range(1, 6) for lo, hi in RANGES]
COUNTS = st.lists(st.integers(0, 6), min_size=8, max_size=8)


def check_conservation(s: dict) -> None:
    g = scale(s["stage"])
    per_number = list(s["trick"])
    for p in (0, 1):
        deck = counts_of(s["decks"][p])
        for v in range(8):
            per_number[v] += s["hands"][p][v] + deck[v]
    assert per_number == [8 * g] * 8
    assert sum(s["cards"]) + sum(s["trick"]) == 64 * g
    assert min(min(h) for h in s["hands"]) >= 0


def choose(legal: list[int], rng: random.Random, style: str) -> int:
    """Random legal play in one of three styles: uniform, pass-happy, never-pass."""
    if style == "pass" and PASS in legal and rng.random() < 0.7:
        return PASS
    if style == "play" and len(legal) > 1 and PASS in legal:
        legal = [a for a in legal if a != PASS]
    return rng.choice(legal)


@settings(max_examples=60, deadline=None)
@given(
    seed=SEEDS,
    play_seed=st.integers(0, 2**32 - 1),
    stage=st.sampled_from([1, 1, 2, 2, 3, 4]),
    first_leader=st.integers(0, 1),
    style=st.sampled_from(["uniform", "pass", "play"]),
    reward=st.sampled_from(["win", "zero_sum"]),
    max_turns=st.sampled_from([15, 60, 2000, 2000, 2000]),
)
def test_random_games_match_the_reference(
    seed, play_seed, stage, first_leader, style, reward, max_turns
):
    """Every step: the engine's whole state equals the reference replay (deck orders read
    from the engine only where the engine shuffled), cards are conserved, the masks and the
    observations of both seats agree; the game ends or is truncated in time."""
    env = card_envs.make(
        ENV_ID, stage=stage, first_leader=first_leader, reward=reward, max_turns=max_turns
    )
    env.reset(seed=seed)
    s = env.state_dict()
    ref = RefDoubleOrNothing.from_state(s, max_turns=max_turns, reward=reward)
    assert s["current_player"] == first_leader
    rng = random.Random(play_seed)
    limit = max_turns * scale(stage)
    hands_seen = 0
    while not ref.done:
        check_conservation(s)
        seat = ref.player
        for q in (0, 1):
            o = env.observe(f"player_{q}")
            np.testing.assert_array_equal(
                o["observation"], np.array(ref.observation(q), np.float32)
            )
            assert np.flatnonzero(o["action_mask"]).tolist() == (
                ref.legal_actions() if q == seat else []
            )
        action = choose(ref.legal_actions(), rng, style)
        env.step(action)
        s = env.state_dict()
        ref.step(action, engine_order(s))
        assert rule_fields(s) == ref.state()
        if ("hand_won", seat) in ref.events:
            hands_seen += 1
            if not ref.done:  # both drew a full hand; the winner leads
                assert [sum(h) for h in s["hands"]] == [hand_size(stage)] * 2
                assert s["current_player"] == s["leader"] == seat
        assert s["turns"] <= limit
    check_conservation(s)
    assert s["done"] and s["hands_played"] == hands_seen
    event(f"stage {stage}, {'truncated' if s['truncated'] else 'terminated'}")
    if s["truncated"]:
        assert s["turns"] == limit
        assert all(env.truncations.values()) and not any(env.terminations.values())
    else:
        # at the end of a game every card is in a deck, so exactly one deck is short: the
        # short player has fewer cards and loses (no draw is possible)
        assert all(env.terminations.values()) and not any(env.truncations.values())
        assert sum(len(d) for d in s["decks"]) == 64 * scale(stage)
        short = [p for p in (0, 1) if len(s["decks"][p]) < hand_size(stage)]
        assert len(short) == 1 and ref.winner() == 1 - short[0]
    assert [env.rewards[a] for a in env.possible_agents] == ref.rewards()
    assert [env.infos[a]["win"] for a in env.possible_agents] == ref.wins()
    assert [env.infos[a]["score"] for a in env.possible_agents] == ref.cards()


@settings(max_examples=6, deadline=None)
@given(seed=SEEDS, stage=st.sampled_from([1, 2]))
def test_consecutive_games_without_reseeding(seed, stage):
    """reset() without a seed deals a fresh valid game each time, from the env's own stream."""
    env = card_envs.make(ENV_ID, stage=stage)
    env.reset(seed=seed)
    twin = card_envs.make(ENV_ID, stage=stage)
    twin.reset(seed=seed)
    deals = set()
    for _ in range(3):
        s = env.state_dict()
        check_conservation(s)
        assert [sum(h) for h in s["hands"]] == [hand_size(stage)] * 2
        deals.add(json_key(s))
        assert twin.state_dict() == s
        env.reset()
        twin.reset()
    assert len(deals) == 3


def json_key(s: dict) -> tuple:
    return (tuple(map(tuple, s["hands"])), tuple(map(tuple, s["decks"])))


# --- the helper functions against the reference --------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(counts=COUNTS, lo=st.integers(1, 8), span=st.integers(0, 7))
def test_play_for_range_matches_reference(counts, lo, span):
    hi = min(8, lo + span)
    assert play_for_range(counts, lo, hi) == ref_play_for_range(counts, lo, hi)


def test_stronger_is_the_strength_order_on_every_pair():
    """All plays of 1..5 copies over every range, every pair: stronger() is the order of
    (cards, range size, highest number), a strict total order on distinct plays."""
    keys = {p: strength(p) for p in ALL_PLAYS}
    for a in ALL_PLAYS:
        for b in ALL_PLAYS:
            assert stronger(a, b) == ref_stronger(a, b) == (keys[a] > keys[b]), (a, b)
    assert len(set(keys.values())) == len(ALL_PLAYS)


@settings(max_examples=300, deadline=None)
@given(
    counts=COUNTS,
    to_beat=st.none() | st.sampled_from(ALL_PLAYS),
)
def test_computer_move_matches_reference(counts, to_beat):
    move = computer_move(counts, to_beat)
    assert move == ref_computer_move(counts, to_beat)
    legal = legal_actions(counts, to_beat)
    if move is None:
        assert legal in ([PASS], [])  # passes only without a legal play
    else:
        assert range_action(move[1], move[2]) in legal
        # no legal play is weaker
        for a in legal:
            if a != PASS:
                other = ref_play_for_range(counts, *RANGES[a])
                assert not ref_stronger(move, other)


@settings(max_examples=15, deadline=None)
@given(seed=SEEDS, stage=st.sampled_from([1, 2, 3]), play_seed=st.integers(0, 2**32 - 1))
def test_computer_and_heuristic_agents_follow_their_definitions(seed, stage, play_seed):
    """Through random games: the computer agent (reading only the observation) plays the
    reference computer's move and the heuristic agent the documented heuristic's move."""
    env = card_envs.make(ENV_ID, stage=stage)
    computer = make_agent("computer", ENV_ID, stage=stage)
    heuristic = make_agent("heuristic", ENV_ID, stage=stage)
    env.reset(seed=seed)
    rng = random.Random(play_seed)
    for _ in range(120):
        s = env.state_dict()
        if s["done"]:
            break
        p = s["current_player"]
        o = env.observe(f"player_{p}")
        play = tuple(s["current_play"]) if s["current_play"] else None
        for agent, policy in ((computer, ref_computer_move), (heuristic, heuristic_move)):
            expected = policy(s["hands"][p], play)
            action = agent.act(o["observation"], o["action_mask"])
            assert o["action_mask"][action] == 1
            assert action == (PASS if expected is None else range_action(*expected[1:]))
        env.step(choose(np.flatnonzero(o["action_mask"]).tolist(), rng, "uniform"))

"""Rummidrez property tests: seeded games played by a mix of random legal actions and a
scripted melding policy, checked step by step against the plain-Python game flow of
`reference` (legal actions, the next state, rewards, the end).

The melding policy asks the exact solver (`largest_valid_subset`) for the largest part of its
hand that opens (7+ cards in groups of their own) or joins the table, and places it one card
at a time, so tables grow and the reference's brute force decides every END_MELD on real
tables. It stops adding once the table holds `TABLE_CAP` cards, and asks the solver only
while hand and table hold `SOLVER_CAP` cards together: the brute force is exponential in the
worst case, and so is the solver's largest addition on big hands (seconds for a hand of 25
cards and a table of 33 with neutrals); these sizes keep a game around a second.
"""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

import card_envs
from card_envs.games.rummidrez import largest_valid_subset
from tests.games.rummidrez.reference import (
    DRAW,
    END_MELD,
    NEUTRAL,
    PLACE,
    UNDO,
    Rules,
    advance,
    cards_conserved,
    legal_actions,
    matches,
    norm,
    share_by_points,
    target_points,
)

ENV_ID = "rummidrez_v0"
SEEDS = st.integers(min_value=0, max_value=2**63 - 1)
TABLE_CAP = 36  # the melding policy adds nothing that would make the table larger
DETOUR_CAP = 24  # random placements (then undone) only on tables up to this size
SOLVER_CAP = 48  # hand + table cards up to which the melding policy asks the solver


def grid(cards) -> tuple[np.ndarray, int]:
    counts = np.zeros((6, 9), dtype=np.int64)
    for c in cards:
        if c != NEUTRAL:
            counts[c // 9, c % 9] += 1
    return counts, list(cards).count(NEUTRAL)


def solver_meld(state: dict, neutral_at_ends: bool) -> list[int]:
    """The largest part of the hand of the seat to act that the solver can lay: an opening
    of 7+ cards in groups of their own, or after opening an addition to the table."""
    p = state["current_player"]
    counts, neutrals = grid(state["hands"][p])
    if state["opened"][p]:
        got = largest_valid_subset(counts, neutrals, *grid(state["table"]), neutral_at_ends)
    else:
        got = largest_valid_subset(counts, neutrals, None, 0, neutral_at_ends)
    chosen, chosen_neutrals = got
    cards = [int(c) for c in np.repeat(np.arange(54), chosen.reshape(-1))]
    cards += [NEUTRAL] * chosen_neutrals
    if not state["opened"][p] and len(cards) < 7:
        return []
    return cards


class Seat:
    """One seat's policy: "meld" (the solver's meld every turn), "random" (the solver's
    meld one turn in five, else a few random placements) or "never" (no meld). All sometimes
    place random cards and undo them first, and discard at random; they take from the
    discard pile in three turns of ten ("never": one)."""

    def __init__(self, style: str, rng: random.Random, rules: Rules):
        self.style, self.rng, self.rules = style, rng, rules
        self.script: list[int] = []

    def _plan(self, s: dict) -> list[int]:
        rng, hand = self.rng, s["hands"][s["current_player"]]
        script = []
        if len(s["table"]) <= DETOUR_CAP and rng.random() < 0.3:
            script += [PLACE + c for c in rng.sample(hand, min(len(hand), rng.randint(1, 3)))]
            script.append(UNDO)
        if self.style == "never":
            pass
        elif len(s["table"]) + len(hand) > SOLVER_CAP:
            pass
        elif self.style == "meld" or rng.random() < 0.2:
            cards = solver_meld(s, self.rules.neutral_at_ends)
            if len(s["table"]) + len(cards) <= TABLE_CAP:
                rng.shuffle(cards)
                if cards and rng.random() < 0.15:
                    cards.pop()  # one card short: END_MELD may turn illegal
                script += [PLACE + c for c in cards]
        elif len(s["table"]) <= DETOUR_CAP and rng.random() < 0.5:
            script += [PLACE + c for c in rng.sample(hand, min(len(hand), rng.randint(1, 4)))]
        return script + [END_MELD]

    def act(self, s: dict, legal: list[int]) -> int:
        rng = self.rng
        if s["phase"] == "draw":
            takes = [a for a in legal if a != DRAW]
            odds = 0.1 if self.style == "never" else 0.3
            if takes and (DRAW not in legal or rng.random() < odds):
                return rng.choice(takes[:3] + takes[-1:])  # the top 1-3, or the whole pile
            return DRAW
        if s["phase"] == "discard":
            return rng.choice(legal)
        if not s["placed"] and s["placements"] == 0 and not self.script:
            self.script = self._plan(s)
        while self.script:
            a = self.script.pop(0)
            if a in legal:
                if a == END_MELD:
                    self.script = []
                return a
            if a in (UNDO, END_MELD):  # a planned card is gone (the cap): stop the plan
                break
        self.script = [END_MELD]
        return END_MELD if END_MELD in legal else UNDO


def run_game(seed: int, play_seed: int, rules: Rules, styles: list[str]) -> Counter:
    """Play one episode, checking the engine against the reference after every action;
    return what happened (the reference's events, counted)."""
    config = {
        "num_players": rules.num_players,
        "reward": rules.reward,
        "match": rules.match,
        "rediscard": rules.rediscard,
        "max_turns": rules.max_turns,
        "max_placements": rules.max_placements,
        "neutral_at_ends": rules.neutral_at_ends,
    }
    env = card_envs.make(ENV_ID, **config)
    env.reset(seed=seed)
    s = norm(env.state_dict(), rules.neutral_at_ends)
    assert s["first_player"] == s["current_player"] and s["winner"] is None
    assert s["taken"] == [] and not s["refilled"]
    rng = random.Random(play_seed)
    seats = [Seat(style, random.Random(rng.random()), rules) for style in styles]
    events: Counter = Counter()
    total = [0.0] * rules.num_players
    turn_actions = 0
    while not s["done"]:
        assert cards_conserved(s)
        legal = legal_actions(s, rules)
        for agent in env.possible_agents:
            mask = np.flatnonzero(env.observe(agent)["action_mask"]).tolist()
            assert mask == (legal if agent == env.agent_selection else [])
        assert env.agent_selection == f"player_{s['current_player']}"
        action = seats[s["current_player"]].act(s, legal)
        predicted = advance(s, action, rules)
        env.step(action)
        assert env.game.invariant_error(env._row) is None
        s = norm(env.state_dict(), rules.neutral_at_ends)
        assert matches(predicted.state, s) == [], env.game.action_name(action)
        step_rewards = [env.rewards[a] for a in env.possible_agents]
        assert step_rewards == pytest.approx(predicted.rewards)
        total = [a + b for a, b in zip(total, step_rewards, strict=True)]
        events.update(predicted.events)
        # every turn ends: at most a draw, max_placements placements and as many undos,
        # END_MELD and a discard
        turn_actions = 0 if s["phase"] == "draw" else turn_actions + 1
        assert turn_actions <= 2 * rules.max_placements + 3
        assert s["hand_turns"] <= rules.max_turns
    assert cards_conserved(s)
    # the end: the reference's points and shares, the env's terminations and infos
    assert all(env.truncations.values()) == s["truncated"]
    assert all(env.terminations.values()) == (not s["truncated"])
    assert [env.infos[a]["score"] for a in env.possible_agents] == [float(v) for v in s["points"]]
    assert [env.infos[a]["win"] for a in env.possible_agents] == share_by_points(s["points"])
    wins = events["won"]
    if rules.reward == "score":  # every point was paid as a reward, at the end of its hand
        assert total == [float(v) for v in s["points"]]
    else:  # the shares of the win, once, at the end; nothing on truncation
        shares = [0.0] * rules.num_players if s["truncated"] else share_by_points(s["points"])
        assert total == pytest.approx(shares)
    if s["truncated"]:
        assert s["hand_turns"] == rules.max_turns
    else:
        assert s["winner"] is not None and wins >= 1
        if rules.match:
            assert max(s["points"]) >= target_points(rules.num_players)
    # a hand with no winner cannot come from a deal (see test_rules.py::
    # test_no_winner_when_the_draw_pile_cannot_be_refilled): it never happens in play
    assert events["no_winner"] == 0
    return events


@settings(max_examples=30, deadline=None)
@given(
    seed=SEEDS,
    play_seed=st.integers(0, 2**32 - 1),
    num_players=st.sampled_from([2, 2, 3, 4]),
    reward=st.sampled_from(["win", "score"]),
    match=st.booleans(),
    rediscard=st.booleans(),
    neutral_at_ends=st.booleans(),
    max_placements=st.sampled_from([112, 112, 12, 7]),
    max_turns=st.sampled_from([6, 20, 40, 60]),
    styles=st.lists(st.sampled_from(["meld", "meld", "random"]), min_size=4, max_size=4),
)
def test_games_match_the_reference(
    seed,
    play_seed,
    num_players,
    reward,
    match,
    rediscard,
    neutral_at_ends,
    max_placements,
    max_turns,
    styles,
):
    """Every step: the masks of all seats are the reference's legal actions, the next state
    is the reference's prediction (the table as a multiset split into valid groups), the
    rewards agree, the 112 cards are all there and the row obeys its invariants; at the end
    the points, the shares of the win and the kind of ending agree."""
    rules = Rules(
        num_players=num_players,
        reward=reward,
        match=match,
        rediscard=rediscard,
        max_turns=max_turns,
        max_placements=max_placements,
        neutral_at_ends=neutral_at_ends,
    )
    events = run_game(seed, play_seed, rules, styles[:num_players])
    event("won" if events["won"] else "truncated")
    if events["new_hand"]:
        event("a match over several hands")


@settings(max_examples=8, deadline=None)
@given(
    seed=SEEDS,
    play_seed=st.integers(0, 2**32 - 1),
    num_players=st.sampled_from([2, 3]),
    rediscard=st.booleans(),
    max_turns=st.integers(100, 160),
)
def test_long_games_refill_the_draw_pile(seed, play_seed, num_players, rediscard, max_turns):
    """Seats that never meld (random placements, then undone) run the draw pile out: it is
    refilled from the discard pile as the reference says, and play goes on to the turn cap."""
    rules = Rules(num_players=num_players, rediscard=rediscard, max_turns=max_turns)
    events = run_game(seed, play_seed, rules, ["never"] * num_players)
    assert events["truncated"] == 1 and events["won"] == 0
    event(f"{events['refill']} refill(s)")
    if num_players == 2 and max_turns >= 120:
        assert events["refill"] >= 1


def test_melders_win_hands_and_matches():
    """Fixed seeds, every seat melding: hands are won (by the last discard or by melding
    everything) and matches go on to further hands, all checked against the reference."""
    seen: Counter = Counter()
    for seed in range(10):
        n = 2 + seed % 3
        rules = Rules(num_players=n, match=True, reward="score", max_turns=40)
        events = run_game(seed, seed, rules, ["meld"] * n)
        seen.update(events)
    assert seen["won"] >= 3 and seen["new_hand"] >= 1, seen

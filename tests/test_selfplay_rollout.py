"""All-seat self-play's credit and advantages (training/selfplay/rollout.py) against a plain
reference that sees the whole trace at once: random traces of turns, rewards on any seat's
step, ends (terminated or cut off) and rollout boundaries, and the rules of the module doc."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from card_envs.training.selfplay.rollout import SeatRollout

GAMMA, LAM = 0.9, 0.8


def make_trace(seed: int, rows: int, seats: int, steps: int, network_share: float):
    """A random trace: per step and row the seat to act, whether it is the network's, that
    step's rewards per seat, and how the game ended after it (0 running, 1 terminated,
    2 cut off, with the value of every seat's final observation)."""
    rng = np.random.default_rng(seed)
    acting = rng.integers(seats, size=(steps, rows))
    network = rng.random((steps, rows, seats)) < network_share  # redrawn per game below
    rewards = np.where(rng.random((steps, rows, seats)) < 0.3,
                       rng.normal(size=(steps, rows, seats)), 0.0).astype(np.float32)  # fmt: skip
    ends = rng.choice(3, size=(steps, rows), p=[0.8, 0.12, 0.08])
    boot = rng.normal(size=(steps, rows, seats)).astype(np.float32)
    values = rng.normal(size=(steps, rows)).astype(np.float32)
    owners = np.empty((steps, rows, seats), dtype=bool)  # each game keeps its first draw
    for r in range(rows):
        current = network[0, r]
        for t in range(steps):
            owners[t, r] = current
            if ends[t, r]:
                current = network[t, r]
    return acting, owners, rewards, ends, boot, values


def reference(trace, rollout_len: int):
    """{(step, row): (advantage, return)} of every decision closed by the trace's last
    rollout boundary, from the whole trace: chains per row, seat and game."""
    acting, owners, rewards, ends, boot, values = trace
    steps, rows, seats = rewards.shape
    out = {}
    for r in range(rows):
        game_start = 0
        for t_end in range(steps):
            if not ends[t_end, r] and t_end != steps - 1:
                continue
            span = range(game_start, t_end + 1)
            for s in range(seats):
                chain = [t for t in span if acting[t, r] == s and owners[t, r, s]]
                if not chain:
                    continue
                got = {}
                for t in span:  # a reward goes to the latest decision at or before it
                    before = [c for c in chain if c <= t]
                    owner = before[-1] if before else chain[0]
                    got[owner] = got.get(owner, 0.0) + float(rewards[t, r, s])
                ended = bool(ends[t_end, r])
                for i, c in enumerate(chain):
                    nxt = chain[i + 1] if i + 1 < len(chain) else None
                    if nxt is None and not ended:
                        continue  # open at the last boundary: not trained yet
                    # trained at the first boundary after its successor came (or its end)
                    closing = nxt if nxt is not None else t_end
                    boundary = (closing // rollout_len + 1) * rollout_len - 1
                    if boundary >= steps:
                        continue
                    out[(c, r)] = _truncated_gae(chain[i:], got, values[:, r], boundary,
                                                 ended, t_end, float(boot[t_end, r, s]),
                                                 ends[t_end, r] == 2)  # fmt: skip
            game_start = t_end + 1
    return out


def _truncated_gae(chain, got, values, boundary, ended, t_end, boot, cut):
    """(advantage, return) of chain[0], the chain cut at the rollout `boundary`."""
    seen = [c for c in chain if c <= boundary]
    adv = 0.0
    for i in range(len(seen) - 1, -1, -1):
        c = seen[i]
        if i + 1 < len(seen):
            next_value, next_adv = values[seen[i + 1]], adv
        elif i + 1 == len(chain) and ended and t_end <= boundary:  # the seat's last
            next_value, next_adv = (boot if cut else 0.0), 0.0
        else:  # the last one seen is open at the boundary: it bootstraps the one before
            adv = 0.0
            continue
        adv = got.get(c, 0.0) + GAMMA * next_value - values[c] + GAMMA * LAM * next_adv
    return adv, adv + values[chain[0]]


def run_rollouts(trace, rollout_len: int):
    """The same trace through SeatRollout, rollout by rollout: {(step, row): (adv, ret)}."""
    acting, owners, rewards, ends, boot, values = trace
    steps, rows, seats = rewards.shape
    ro = SeatRollout(rows, seats, 2, 3, rollout_len)
    out = {}
    for t in range(steps):
        sel = np.flatnonzero(owners[t, np.arange(rows), acting[t]])
        obs = np.column_stack([np.full(len(sel), t), sel]).astype(np.float32)  # a tag
        ro.add(
            sel,
            acting[t, sel],
            obs,
            np.ones((len(sel), 3), bool),
            np.zeros(len(sel), np.int64),
            np.zeros(len(sel), np.float32),
            values[t, sel],
        )
        ro.credit(rewards[t])
        cut = np.flatnonzero(ends[t] == 2)
        r, s = ro.seats_to_close(cut)
        ro.end_games(cut, boot[t, r, s])
        ro.end_games(np.flatnonzero(ends[t] == 1))
        if t % rollout_len == rollout_len - 1:
            samples = ro.finish(GAMMA, LAM)
            for tag, adv, ret in zip(samples.observations, samples.advantages, samples.returns,
                                     strict=True):  # fmt: skip
                key = (int(tag[0]), int(tag[1]))
                assert key not in out, f"decision {key} trained twice"
                out[key] = (float(adv), float(ret))
    return out


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    rows=st.integers(1, 4),
    seats=st.integers(2, 5),
    rollout_len=st.integers(1, 6),
    network_share=st.sampled_from([1.0, 0.6]),
)
def test_every_decision_gets_the_reference_advantage_once(
    seed, rows, seats, rollout_len, network_share
):
    trace = make_trace(seed, rows, seats, 4 * rollout_len + 3, network_share)
    got = run_rollouts(trace, rollout_len)
    want = reference(trace, rollout_len)
    assert got.keys() == want.keys()
    for key, (adv, ret) in want.items():
        assert got[key] == pytest.approx((adv, ret), rel=1e-4, abs=1e-4), key


def test_a_reward_before_a_seats_first_decision_goes_to_that_decision():
    """Seat 1 gets 2.0 on seat 0's first step, then acts, then the game ends."""
    ro = SeatRollout(1, 2, 1, 1, 4)
    zeros, row = np.zeros(1, np.float32), np.array([0])
    ro.add(row, np.array([0]), zeros[:, None], np.ones((1, 1), bool), row, zeros, zeros)
    ro.credit(np.array([[0.0, 2.0]], np.float32))
    ro.add(row, np.array([1]), zeros[:, None], np.ones((1, 1), bool), row, zeros, zeros)
    ro.credit(np.array([[-1.0, 1.0]], np.float32))
    ro.end_games(row)
    samples = ro.finish(1.0, 1.0)
    assert samples.returns.tolist() == [-1.0, 3.0]  # seat 0: -1; seat 1: 2 early + 1


def test_an_open_decision_is_carried_and_its_value_bootstraps_the_one_before():
    ro = SeatRollout(1, 2, 1, 1, 2)
    ones, row = np.ones((1, 1), bool), np.array([0])
    for value in (0.5, 0.25):  # seat 0 twice, the game still running
        ro.add(row, np.array([0]), np.zeros((1, 1)), ones, row, np.zeros(1), np.array([value]))
        ro.credit(np.array([[0.1, 0.0]], np.float32))
    first = ro.finish(1.0, 1.0)
    assert first.returns.tolist() == pytest.approx([0.1 + 0.25])  # reward + next value
    assert ro.size == 1  # the second decision waits for its game
    ro.credit(np.array([[1.0, 0.0]], np.float32))
    ro.end_games(row)
    second = ro.finish(1.0, 1.0)
    assert second.returns.tolist() == pytest.approx([0.1 + 1.0])
    assert second.values.tolist() == [0.25]

"""Agents, and agents playing each other in batch (card_envs.evaluation)."""

import numpy as np
import pytest

import card_envs
from card_envs.agents import Agent, HeuristicAgent, RandomAgent, make_agent
from card_envs.evaluation import evaluate


def test_random_agent_is_uniform_over_legal_actions():
    masks = np.zeros((20000, 5), dtype=np.int8)
    masks[:, [1, 3, 4]] = 1
    actions = RandomAgent(seed=0).act_batch(np.zeros((20000, 1), np.float32), masks)
    counts = np.bincount(actions, minlength=5)
    assert counts[[0, 2]].sum() == 0
    assert np.all(np.abs(counts[[1, 3, 4]] / 20000 - 1 / 3) < 0.02)


def test_agent_specs():
    assert isinstance(make_agent("random", "no_thanks_v0"), RandomAgent)
    assert isinstance(make_agent("heuristic", "no_thanks_v0", num_players=5), HeuristicAgent)
    mine = RandomAgent(1)
    assert make_agent(mine, "no_thanks_v0") is mine
    with pytest.raises(ValueError, match="'nonsense'.*random"):
        make_agent("nonsense", "no_thanks_v0")


def test_heuristic_takes_a_card_that_extends_a_run_and_refuses_a_costly_one():
    env = card_envs.make("no_thanks_v0")
    env.reset(seed=0)
    obs = env.observe("player_0")["observation"].copy()
    agent = make_agent("heuristic", "no_thanks_v0")
    obs[0:33] = 0
    obs[30 - 3] = 1  # card 30 on offer, no tokens on it
    obs[33] = 0
    obs[34] = 11
    obs[35:68] = 0
    mask = np.array([1, 1], np.int8)
    assert agent.act(obs, mask) == 1  # 30 points for nothing: no thanks
    obs[35 + 31 - 3] = 1  # holding 31: taking 30 lowers the score by one
    assert agent.act(obs, mask) == 0
    obs[35 + 31 - 3] = 0
    assert agent.act(obs, np.array([1, 0], np.int8)) == 0  # no tokens: must take


def test_win_shares_follow_the_lowest_score_and_equal_win_rewards():
    field = [RandomAgent(k) for k in range(3)]
    res = evaluate("no_thanks_v0", field, 201, seed=2, workers=1, progress=False).results
    best = res.scores == res.scores.min(axis=1, keepdims=True)
    np.testing.assert_allclose(res.win_share, best / best.sum(axis=1, keepdims=True))
    np.testing.assert_allclose(res.win_share, res.rewards)  # reward="win" pays the win share


class _Recorder(Agent):
    """Plays the first legal action and remembers every batch size it was asked for (not
    copied into chunks, so the test sees what it was asked)."""

    def __init__(self):
        self.batches = []

    def __deepcopy__(self, memo):
        return self

    def act_batch(self, observations, masks):
        self.batches.append(len(observations))
        return np.argmax(masks, axis=1)


@pytest.mark.parametrize("num_players", [3, 4, 7])
def test_seats_rotate_evenly_and_agents_are_asked_in_batches(num_players):
    rec = _Recorder()
    field = [rec] + [RandomAgent(k) for k in range(num_players - 1)]
    games = 4 * num_players
    res = evaluate(
        "no_thanks_v0", field, games, seed=5, workers=1, progress=False, chunk_games=8
    ).results
    for a in range(num_players):
        seats = np.nonzero(res.agent_of_seat == a)[1]
        assert np.array_equal(np.bincount(seats, minlength=num_players), [4] * num_players)
    assert max(rec.batches) > 1
    assert np.allclose(res.win_share.sum(axis=1), 1)
    assert np.all(res.lengths >= 24)  # every one of the 24 cards turned up was taken


def test_games_are_deterministic_and_heuristic_beats_random():
    def run():
        field = ["heuristic", "random", "random"]
        return evaluate("no_thanks_v0", field, 300, seed=11, workers=1, progress=False)

    a, b = run(), run()
    assert np.array_equal(a.results.scores, b.results.scores)
    assert np.array_equal(a.results.lengths, b.results.lengths)
    assert a[0].win_rate > 0.8


def test_truncated_games_are_counted_and_stop_at_the_cap():
    # Double or Nothing, stage 1, truncated after 40 actions: random play rarely ends sooner
    ev = evaluate("double_or_nothing_v0", ["random", "random"], 40, seed=1, workers=1,
                  progress=False, stage=1, max_turns=40)  # fmt: skip
    res = ev.results
    assert 0 < ev.truncated == res.truncated.sum() < 40
    assert (res.lengths[res.truncated] == 40).all() and (res.lengths[~res.truncated] < 40).all()
    assert f"({ev.truncated} truncated)" in ev.table().splitlines()[0]

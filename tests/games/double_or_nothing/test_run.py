"""double_or_nothing_run_v0: one agent against the built-in computer through games 1, 2, ..."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import card_envs
from card_envs.agents import make_agent
from card_envs.core import layout
from card_envs.games.double_or_nothing import engine as k
from card_envs.games.double_or_nothing.run_env import DoubleOrNothingRun
from tests.games.double_or_nothing.helpers import rule_fields
from tests.games.double_or_nothing.reference import (
    NUM_ACTIONS,
    OBS_SIZE,
    PASS,
    RefDoubleOrNothing,
    computer_move,
    engine_order,
    hand_size,
    range_action,
    scale,
)

RUN_ID = "double_or_nothing_run_v0"
OBS_OWN_DECK, OBS_OPP_DECK, OBS_LED, OBS_STAGE = 9, 10, 37, 38


def heuristic_policy(stage_hint: int = 1):
    agent = make_agent("heuristic", "double_or_nothing_v0", stage=stage_hint)
    return lambda env, obs: agent.act(obs, env.action_masks().astype(np.int8))


def run_state(env) -> dict:
    """The state_dict of the game the run env is playing."""
    return rule_fields(env._games[env.stage - 1].state_dict(env._row))


def find_won_game(max_seeds: int = 60):
    """A run env (and its seed) in which the heuristic wins game 1: stepped up to the action
    that wins it; returns (env, seed, obs) just before that action."""
    policy = heuristic_policy()
    for seed in range(max_seeds):
        env = card_envs.make(RUN_ID)
        obs, _ = env.reset(seed=seed)
        twin = card_envs.make(RUN_ID)
        twin.reset(seed=seed)
        steps = 0
        while True:
            _, reward, term, trunc, info = twin.step(policy(twin, twin._observe()))
            steps += 1
            if reward == 1.0:
                for _ in range(steps - 1):
                    obs, *_ = env.step(policy(env, obs))
                return env, seed, obs
            if term or trunc:
                break
    raise AssertionError("the heuristic won no game 1 in any seed")


# --- Gymnasium conformance ---------------------------------------------------------------------


def test_check_env_penalize():
    env = card_envs.make(RUN_ID, illegal_action="penalize")
    check_env(env, skip_render_check=True)


def test_check_env_direct_penalize():
    check_env(DoubleOrNothingRun(illegal_action="penalize"), skip_render_check=True)


def test_make_passes_illegal_action_to_the_run_env():
    """`card_envs.make(RUN_ID, illegal_action="penalize")` must give a penalizing env."""
    env = card_envs.make(RUN_ID, illegal_action="penalize")
    env.reset(seed=0)
    assert env.illegal_action == "penalize"
    _, reward, term, trunc, info = env.step(PASS)  # pass when leading: illegal
    assert (reward, term, trunc) == (-1.0, True, False) and info["illegal_action"]


def test_penalize_gives_minus_one_and_ends_the_episode():
    env = DoubleOrNothingRun(illegal_action="penalize")
    obs, _ = env.reset(seed=0)
    before = run_state(env)
    obs2, reward, term, trunc, info = env.step(PASS)
    assert (reward, term, trunc) == (-1.0, True, False)
    assert info["illegal_action"] is True
    assert run_state(env) == before  # the illegal action was not applied
    np.testing.assert_array_equal(obs2, obs)


@pytest.mark.parametrize("bad", [PASS, NUM_ACTIONS, -1])
def test_default_raises_on_an_illegal_action(bad):
    env = card_envs.make(RUN_ID)
    env.reset(seed=1)
    before = run_state(env)
    with pytest.raises(ValueError, match="illegal action"):
        env.step(bad)
    assert run_state(env) == before
    env.step(int(np.flatnonzero(env.action_masks())[0]))  # still usable


def test_unmasked_sampling_gives_legal_actions():
    """The action space's plain sample() draws legal actions only (so samplers that know no
    masks, like Gymnasium's checker, never hit the error)."""
    env = card_envs.make(RUN_ID)
    env.reset(seed=2)
    env.action_space.seed(0)
    for _ in range(200):
        a = env.action_space.sample()
        assert env.action_masks()[a]
        _, _, term, trunc, _ = env.step(a)
        if term or trunc:
            env.reset()


def test_spaces_and_reset():
    env = card_envs.make(RUN_ID)
    assert env.observation_space.shape == (OBS_SIZE,)
    assert env.action_space.n == NUM_ACTIONS
    obs, info = env.reset(seed=3)
    assert env.observation_space.contains(obs)
    assert info == {"stage": 1, "games_won": 0}
    assert obs[OBS_STAGE] == 1 and obs[OBS_LED] == 1  # the agent leads game 1
    mask = env.action_masks()
    assert mask.dtype == bool and mask.shape == (NUM_ACTIONS,) and not mask[PASS]
    s = run_state(env)
    assert s["current_player"] == 0 and [sum(h) for h in s["hands"]] == [10, 10]


def test_step_before_reset_raises():
    with pytest.raises(RuntimeError, match="reset"):
        card_envs.make(RUN_ID).step(0)


def test_seeded_runs_are_reproducible():
    policy = heuristic_policy()

    def trace(seed):
        env = card_envs.make(RUN_ID)
        obs, _ = env.reset(seed=seed)
        out = [np.append(obs, [0.0, 0.0, 0.0])]
        for _ in range(300):
            obs, reward, term, trunc, info = env.step(policy(env, obs))
            out.append(np.append(obs, [reward, term, trunc]))
            if term or trunc:
                break
        return np.array(out)

    np.testing.assert_array_equal(trace(7), trace(7))
    assert trace(7).shape != trace(8).shape or (trace(7) != trace(8)).any()


# --- the computer and the course of a run ------------------------------------------------------


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_the_computer_plays_the_original_policy(seed):
    """Game 1 of a run, replayed in a seeded AEC game and in the reference: the agent's
    moves as given, seat 1's chosen by the reference computer. The run's game (same seed,
    so the same deal and shuffles) must equal the replay after every agent step."""
    env = card_envs.make(RUN_ID)
    obs, _ = env.reset(seed=seed)
    twin = card_envs.make("double_or_nothing_v0")
    twin.reset(seed=seed)
    assert run_state(env) == rule_fields(twin.state_dict())
    ref = RefDoubleOrNothing.from_state(twin.state_dict())
    rng = np.random.default_rng(seed)
    computer_steps = 0
    while True:
        legal = np.flatnonzero(env.action_masks())
        assert legal.tolist() == ref.legal_actions()
        action = int(rng.choice(legal))
        obs, reward, term, trunc, info = env.step(action)
        twin.step(action)
        ref.step(action, engine_order(twin.state_dict()))
        while not ref.done and ref.player == 1:  # the computer's turn(s)
            play = computer_move(ref.hands[1], ref.current_play)
            a = PASS if play is None else range_action(play[1], play[2])
            twin.step(a)
            ref.step(a, engine_order(twin.state_dict()))
            computer_steps += 1
        assert rule_fields(twin.state_dict()) == ref.state()
        if term or trunc or reward:
            break
        assert run_state(env) == ref.state()
        np.testing.assert_array_equal(obs, np.array(ref.observation(0), np.float32))
    assert ref.done and computer_steps > 5
    assert info["won"] == (ref.winner() == 0)


def test_a_won_game_moves_the_run_to_stage_two():
    env, seed, obs = find_won_game()
    mask = env.action_masks()
    policy = heuristic_policy()
    obs, reward, term, trunc, info = env.step(policy(env, obs))
    assert mask.any()
    assert (reward, term, trunc) == (1.0, False, False)
    assert info["stage"] == 2 and info["games_won"] == 1 and env.stage == 2
    # the next game starts from fresh stage-2 decks, the agent to lead
    s = run_state(env)
    g = scale(2)
    assert s["stage"] == 2 and s["turns"] == 0 and s["hands_played"] == 0
    assert [sum(h) for h in s["hands"]] == [hand_size(2)] * 2 == [20, 20]
    assert [len(d) for d in s["decks"]] == [22 * g, 22 * g]
    assert s["cards"] == [64, 64]
    assert s["current_player"] == 0 and s["current_play"] is None
    assert obs[OBS_STAGE] == 2 and obs[:8].sum() == 10 and obs[OBS_OWN_DECK] == 22
    assert env._row[k.CFG_MAX_TURNS] == 2000 * g
    assert not env.action_masks()[PASS]


def test_the_episode_ends_at_a_lost_game():
    """Run many seeded runs of the random-ish agent: every run ends at a game that is not
    won (terminated, reward 0) or after winning game max_stage; the rewards add up to the
    games won."""
    rng = np.random.default_rng(3)
    losses = 0
    for seed in range(8):
        env = card_envs.make(RUN_ID, max_stage=2)
        env.reset(seed=seed)
        total = 0.0
        while True:
            legal = np.flatnonzero(env.action_masks())
            obs, reward, term, trunc, info = env.step(int(rng.choice(legal)))
            total += reward
            assert reward in (0.0, 1.0)
            if term or trunc:
                break
            assert not env.action_masks()[PASS] or run_state(env)["current_play"]
        assert total == info["games_won"]
        if not info["won"]:
            losses += 1
            assert term and not trunc and reward == 0.0
            s = run_state(env)
            assert s["done"] and not s["truncated"]
            assert s["cards"][0] <= s["cards"][1]  # the agent did not win that game
            assert len(s["decks"][0]) < hand_size(info["stage"])
        else:
            assert info["stage"] == 2 and total == 2.0
        assert not env.action_masks().any()
    assert losses > 0


def test_max_stage_one_ends_after_the_first_win():
    env, seed, obs = find_won_game()
    run = card_envs.make(RUN_ID, max_stage=1)
    obs, _ = run.reset(seed=seed)
    policy = heuristic_policy()
    while True:
        obs, reward, term, trunc, info = run.step(policy(run, obs))
        if term or trunc:
            break
    assert (reward, term, trunc) == (1.0, True, False)
    assert info["won"] and info["games_won"] == 1 and info["stage"] == 1


def test_a_truncated_game_ends_the_run_as_truncated():
    env = card_envs.make(RUN_ID, max_turns=1)
    env.reset(seed=0)
    obs, reward, term, trunc, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert (reward, term, trunc) == (0.0, False, True)
    assert type(term) is bool and type(trunc) is bool  # Python bools, as Gymnasium asks
    assert info["won"] is False and info["games_won"] == 0
    assert env._row[layout.STATUS] == layout.TRUNCATED


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"max_stage": 0}, "max_stage"),
        ({"max_stage": 11}, "max_stage"),
        ({"max_turns": 0}, "max_turns"),
        ({"stage": 2}, "stage"),
        ({"render_mode": "human"}, "human"),
        ({"illegal_action": "ignore"}, "ignore"),
    ],
)
def test_bad_run_config_raises(kwargs, name):
    with pytest.raises(ValueError, match=name):
        DoubleOrNothingRun(**kwargs)


def test_render_ansi():
    env = card_envs.make(RUN_ID, render_mode="ansi")
    env.reset(seed=0)
    assert "Stage 1" in env.render()


# --- learning ------------------------------------------------------------------------------


def test_maskable_ppo_learns_on_the_run():
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.wrappers import ActionMasker

    env = ActionMasker(DoubleOrNothingRun(), lambda e: e.unwrapped.action_masks())
    model = MaskablePPO("MlpPolicy", env, n_steps=128, batch_size=64, n_epochs=2, seed=0)
    model.learn(384)
    assert model.num_timesteps >= 384
    run = card_envs.make(RUN_ID)
    obs, _ = run.reset(seed=5)
    for _ in range(100):
        mask = run.action_masks()
        action, _ = model.predict(obs, action_masks=mask, deterministic=True)
        assert mask[int(action)]
        obs, _, term, trunc, _ = run.step(int(action))
        if term or trunc:
            obs, _ = run.reset()


def test_maskable_ppo_uses_the_env_action_masks_directly():
    from sb3_contrib import MaskablePPO

    env = card_envs.make(RUN_ID)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64, n_epochs=1, seed=1)
    model.learn(128)
    assert model.num_timesteps >= 128


def test_computer_agent_on_the_run_observation():
    """The computer agent given the run's observation plays what the reference computer
    would in the agent's seat (the run reuses the same observation layout)."""
    env = card_envs.make(RUN_ID)
    obs, _ = env.reset(seed=4)
    agent = make_agent("computer", "double_or_nothing_v0")
    s = run_state(env)
    expected = computer_move(s["hands"][0], None)
    assert agent.act(obs, env.action_masks().astype(np.int8)) == range_action(*expected[1:])


def test_reset_without_a_seed_continues_the_stream():
    a, b = card_envs.make(RUN_ID), card_envs.make(RUN_ID)
    a.reset(seed=21)
    b.reset(seed=21)
    first = run_state(a)
    a.reset()
    b.reset()
    assert run_state(a) == run_state(b) != first


def test_the_run_has_no_batched_env():
    with pytest.raises(ValueError, match="single-agent"):
        card_envs.make_vec(RUN_ID, 2)


def test_evaluate_episodes_matches_playing_the_runs_one_by_one():
    """Side-by-side episodes give each run exactly what a plain sequential loop gives."""
    from card_envs.evaluation import evaluate_episodes

    stats = evaluate_episodes(RUN_ID, "computer", episodes=12, seed=40)
    agent = make_agent("computer", "double_or_nothing_v0")
    for e in range(12):
        env = card_envs.make(RUN_ID)
        obs, _ = env.reset(seed=40 + e)
        total, done = 0.0, False
        while not done:
            obs, reward, terminated, truncated, _ = env.step(agent.act(obs, env.action_masks()))
            total += reward
            done = terminated or truncated
        assert stats.returns[e] == total
    assert stats.returns.max() >= 1  # some runs won a game
    assert stats.episodes == 12 and stats.mean_return == stats.returns.mean()
    assert stats.mean_return_ci[0] <= stats.mean_return <= stats.mean_return_ci[1]


def test_evaluate_episodes_rejects_bad_input():
    from card_envs.evaluation import evaluate_episodes

    with pytest.raises(ValueError, match="episodes must be a positive int, got 0"):
        evaluate_episodes(RUN_ID, "computer", episodes=0)
    with pytest.raises(ValueError, match="double_or_nothing_v0 is not a single-agent env"):
        evaluate_episodes("double_or_nothing_v0", "computer", episodes=2)

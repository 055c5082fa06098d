"""What other libraries do with the envs: copy them (SB3, RLlib and Tianshou pickle envs into
workers), step them with numpy actions, read `state()`, run them as Parallel envs, make them
by Gymnasium id or from PettingZoo-style modules, and run their env checkers."""

import copy
import importlib
import pickle
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env, data_equivalence
from pettingzoo import ParallelEnv

import card_envs
from card_envs.core.aec import CardEnv
from card_envs.testing.faces import (
    COPIES,
    play_gym,
    play_vec,
    same_future,
)
from card_envs.wrappers import SingleAgentEnv, SingleAgentVecEnv

RUN_ID = "double_or_nothing_run_v0"
SOLO_ID = "rummidrez_solo_v0"
SINGLE_AGENT_IDS = sorted(set(card_envs.env_ids()) - set(card_envs.multi_agent_env_ids()))


# --- copies of the single-agent views ----------------------------------------------------------

SINGLE_AGENT_VIEWS = {
    "SingleAgentEnv": lambda: SingleAgentEnv("no_thanks_v0", "random", seed=0, num_players=4),
    "SingleAgentEnv-heuristic": lambda: SingleAgentEnv("surfosaurus_max_v0", "heuristic", seed=1),
    "run": lambda: card_envs.make(RUN_ID),
    "solo": lambda: card_envs.make(SOLO_ID),
}


def _started(env):
    if isinstance(env, SingleAgentVecEnv):
        env.reset()
    else:
        env.reset(seed=3)
    return env


@pytest.mark.parametrize("name", SINGLE_AGENT_VIEWS)
def test_gymnasium_views_copied_mid_game_play_on_like_the_original(name):
    env = _started(SINGLE_AGENT_VIEWS[name]())
    play_gym(env, 5, seed=1)
    same_future(env, play_gym, name, steps=120, seed=2)


def test_the_vec_env_copied_mid_game_plays_on_like_the_original():
    venv = _started(SingleAgentVecEnv("surfosaurus_max_v0", 4, opponents="random", seed=0))
    play_vec(venv, 5, seed=1)
    same_future(venv, play_vec, "SingleAgentVecEnv", steps=80, seed=2)


@pytest.mark.parametrize("how", COPIES)
@pytest.mark.parametrize("name", ["SingleAgentEnv-heuristic", "run", "solo", "vec"])  # many actions
def test_a_copy_samples_the_legal_actions_of_its_own_game(how, name):
    """The action space of a copy draws from the copy's masks, with the original's stream
    (games where most actions are illegal, so that drawing from any other mask shows)."""
    if name == "vec":
        env = _started(SingleAgentVecEnv("surfosaurus_max_v0", 2, seed=0))
        play, mask = play_vec, lambda e: e.action_masks()[0]
    else:
        env = _started(SINGLE_AGENT_VIEWS[name]())
        play, mask = play_gym, lambda e: e.action_masks()
    env.action_space.seed(7)
    twin = COPIES[how](env)
    assert [twin.action_space.sample() for _ in range(20)] == [
        env.action_space.sample() for _ in range(20)
    ]
    play(twin, 3, seed=0)
    for _ in range(20):
        assert mask(twin)[twin.action_space.sample()]


def test_a_copied_batched_env_has_live_views_of_its_own_buffers():
    venv = card_envs.make_vec("no_thanks_v0", 3, seed=0)
    venv.reset()
    for twin in (copy.deepcopy(venv), pickle.loads(pickle.dumps(venv))):
        for view, buffer in ((twin.observations, twin._obs), (twin.action_masks, twin._masks)):
            assert np.shares_memory(view, buffer) and not view.flags.writeable
        assert not np.shares_memory(twin.states, venv.states)
        assert twin._batch_step is venv._batch_step  # the kernel itself, not a recompiled copy


# --- numpy actions ------------------------------------------------------------------------------

GYM_ENVS = {
    "SingleAgentEnv": lambda: SingleAgentEnv("surfosaurus_max_v0", "heuristic", seed=0),
    "run": lambda: card_envs.make(RUN_ID),
    "solo": lambda: card_envs.make(SOLO_ID),
}


def _step_after_reset(name, action):
    env = GYM_ENVS[name]()
    env.reset(seed=4)
    return env.step(action)


@pytest.mark.parametrize("name", GYM_ENVS)
def test_single_agent_envs_take_numpy_integers_and_0d_arrays(name):
    env = GYM_ENVS[name]()
    env.reset(seed=4)
    a = int(np.flatnonzero(env.action_masks())[0])
    want = _step_after_reset(name, a)
    for action in (np.int64(a), np.int16(a), np.array(a), np.array(a, dtype=np.uint8)):
        got = _step_after_reset(name, action)
        assert data_equivalence(got, want, exact=True)


@pytest.mark.parametrize("name", GYM_ENVS)
@pytest.mark.parametrize(
    "bad", [1.0, np.float32(1), np.array(1.0), True, np.bool_(True), np.array([1]), "1"]
)
def test_single_agent_envs_refuse_what_is_not_one_integer(name, bad):
    env = GYM_ENVS[name]()
    env.reset(seed=4)
    with pytest.raises(ValueError, match="must be an int") as err:
        env.step(bad)
    assert repr(bad) in str(err.value)


def test_the_run_env_steps_with_what_maskable_ppo_predicts():
    from sb3_contrib import MaskablePPO

    env = card_envs.make(RUN_ID)
    obs, _ = env.reset(seed=0)
    model = MaskablePPO("MlpPolicy", env, seed=0)
    for _ in range(20):
        action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
        assert isinstance(action, np.ndarray) and action.shape == ()
        obs, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            obs, _ = env.reset()


# --- state() ------------------------------------------------------------------------------------


def test_state_is_every_seats_observation_in_seat_order():
    env = card_envs.make("surfosaurus_max_v0", num_players=3)
    with pytest.raises(RuntimeError, match="reset"):
        env.state()
    env.reset(seed=0)
    size = env.game.obs_size
    state = env.state()
    assert state.dtype == np.float32 and env.state_space.shape == (3 * size,)
    parts = [state[seat * size : (seat + 1) * size] for seat in range(3)]
    for part, agent in zip(parts, env.possible_agents, strict=True):
        assert np.array_equal(part, env.observe(agent)["observation"])
    assert len({part.tobytes() for part in parts}) == 3  # three different hands


# --- Parallel envs ------------------------------------------------------------------------------


@pytest.mark.parametrize("env_id", card_envs.multi_agent_env_ids())
def test_make_parallel_gives_a_parallel_env_over_the_aec_env(env_id):
    par = card_envs.make_parallel(env_id, illegal_action="penalize")
    assert isinstance(par, ParallelEnv) and isinstance(par.unwrapped, CardEnv)
    assert par.unwrapped.illegal_action == "penalize" and par.state_space.shape[0] > 0


@pytest.mark.parametrize("env_id", [*SINGLE_AGENT_IDS, "no_such_v0"])
def test_make_parallel_refuses_ids_without_a_multi_agent_env(env_id):
    with pytest.raises(ValueError, match=env_id) as err:
        card_envs.make_parallel(env_id)
    assert "no_thanks_v0" in str(err.value)  # names the ids that work


# --- Gymnasium ids ------------------------------------------------------------------------------


@pytest.mark.parametrize("env_id", card_envs.env_ids())
def test_every_id_is_registered_with_gymnasium_and_passes_its_checker(env_id):
    """Gymnasium's checker samples actions before a seeded reset, so that they may be illegal
    after it: it passes with illegal_action="penalize". The default opponents play at
    random: its determinism checks need reset(seed) to restart their streams too."""
    env = gymnasium.make(card_envs.gym_id(env_id), illegal_action="penalize")
    single = env_id in SINGLE_AGENT_IDS  # the env itself, not a view of a multi-agent env
    assert (
        env.spec.id
        == card_envs.gym_id(env_id)
        == f"card_envs/{env_id}" + ("" if single else "-single")
    )
    expected = type(card_envs.make(env_id)) if single else SingleAgentEnv
    assert type(env.unwrapped) is expected
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the checker's notes on our Box bounds and wrappers
        check_env(env.unwrapped, skip_render_check=True)


def test_gymnasium_make_passes_opponents_seat_and_game_options():
    env = gymnasium.make(
        "card_envs/no_thanks_v0-single", opponents="heuristic", seat=2, num_players=5, seed=0
    )
    _, info = env.reset()
    assert info["seat"] == 2 and env.unwrapped._venv.num_players == 5
    run = gymnasium.make("card_envs/double_or_nothing_run_v0", max_stage=2)
    assert run.unwrapped.config["max_stage"] == 2
    with pytest.raises(ValueError, match="num_players"):
        gymnasium.make("card_envs/no_thanks_v0-single", num_players=9)


# --- PettingZoo-style modules -------------------------------------------------------------------


def test_from_card_envs_import_a_game_module():
    from card_envs import no_thanks_v0

    env = no_thanks_v0.env(num_players=4, illegal_action="penalize")
    assert isinstance(env, CardEnv) and len(env.possible_agents) == 4
    assert env.illegal_action == "penalize"


@pytest.mark.parametrize("env_id", card_envs.multi_agent_env_ids())
def test_every_multi_agent_id_has_a_module(env_id):
    module = importlib.import_module(f"card_envs.{env_id}")
    assert getattr(card_envs, env_id) is module
    for factory in (module.env, module.raw_env):
        env = factory(render_mode="ansi")
        assert isinstance(env, CardEnv) and env.metadata["name"] == env_id
        assert env.render_mode == "ansi"
    assert isinstance(module.parallel_env(), ParallelEnv)
    assert pickle.loads(pickle.dumps(module.env))().metadata["name"] == env_id


@pytest.mark.parametrize("env_id", card_envs.multi_agent_env_ids())
def test_every_multi_agent_id_is_in_pettingzoos_registry(env_id):
    import pettingzoo

    aec = pettingzoo.make("aec", f"card_envs/{env_id}", illegal_action="penalize")
    assert isinstance(aec, CardEnv) and aec.illegal_action == "penalize"
    par = pettingzoo.make("parallel", f"card_envs/{env_id}", render_mode="ansi")
    assert isinstance(par, ParallelEnv) and par.unwrapped.metadata["name"] == env_id

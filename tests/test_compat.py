"""What other libraries do with the envs: step them with numpy actions (SB3's `predict`), read
`state()` (centralised critics)."""

import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence

import card_envs
from card_envs.testing import case_id, cases
from card_envs.testing.faces import (
    check_numpy_actions,
    check_state_vector,
)
from card_envs.wrappers import SingleAgentEnv

RUN_ID = "double_or_nothing_run_v0"


@pytest.mark.parametrize("check", [check_numpy_actions, check_state_vector])
@pytest.mark.parametrize("case", cases(), ids=case_id)
def test_face_checks(check, case):
    check(*case)


# --- numpy actions ------------------------------------------------------------------------------

GYM_ENVS = {
    "SingleAgentEnv": lambda: SingleAgentEnv("surfosaurus_max_v0", "heuristic", seed=0),
    "run": lambda: card_envs.make(RUN_ID),
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

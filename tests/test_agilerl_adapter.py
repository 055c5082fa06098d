"""`FlatParallelEnv` (`make_flat_parallel`), the Parallel env as AgileRL and SuperSuit's
observation wrappers take it: each agent's observation vector alone in a `Box`, its action
mask in `infos[agent]["action_mask"]`, everything else the wrapped Parallel env's. AgileRL
and SuperSuit are not dependencies; docs/compat.md has the calls checked with them."""

import contextlib
import io
import warnings

import gymnasium
import numpy as np
import pytest
from pettingzoo.test import parallel_api_test

import card_envs
from card_envs.testing.faces import same_future
from card_envs.wrappers import FlatParallelEnv, make_flat_parallel

ENV_IDS = card_envs.multi_agent_env_ids()
SHORT = {"rummidrez_v0": {"max_turns": 4}}  # random play rarely ends a hand: truncate it


def _legal(mask: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


def _actions(env, masks: dict, rng: np.random.Generator) -> dict:
    """A random legal action for the seat to act, 0 for the others (ignored)."""
    return {a: _legal(masks[a], rng) if masks[a].any() else 0 for a in env.agents}


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_it_passes_the_parallel_api_test(env_id):
    """Like `make_parallel`, with `illegal_action="penalize"`: the test samples actions
    without a mask when the observation holds none."""
    env = make_flat_parallel(env_id, illegal_action="penalize")
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("error")  # PettingZoo reports API problems as warnings
        warnings.filterwarnings("ignore", ".*illegal action", UserWarning)  # penalize warns
        parallel_api_test(env, num_cycles=200)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_spaces_are_the_observation_box_and_the_wrapped_action_space(env_id):
    plain, flat = card_envs.make_parallel(env_id), make_flat_parallel(env_id)
    assert isinstance(flat, FlatParallelEnv) and flat.unwrapped is not None
    for agent in plain.possible_agents:
        space = flat.observation_space(agent)
        assert isinstance(space, gymnasium.spaces.Box) and space is flat.observation_space(agent)
        assert space == plain.observation_space(agent)["observation"]
        assert flat.action_space(agent) == plain.action_space(agent)
        assert flat.observation_spaces[agent] is space
    assert flat.state_space == plain.state_space
    assert flat.possible_agents == plain.possible_agents and flat.metadata == plain.metadata


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_a_game_plays_as_the_wrapped_env_with_the_masks_in_the_infos(env_id):
    """A whole seeded random legal game side by side with `make_parallel`: the observations
    are its observation vectors, every agent's infos carry its mask on every reset and step
    (all zero for the seats not to act) beside the wrapped env's own infos, and rewards,
    terminations, truncations, agents and `state()` are the same."""
    config = SHORT.get(env_id, {})
    plain, flat = card_envs.make_parallel(env_id, **config), make_flat_parallel(env_id, **config)
    want, want_infos = plain.reset(seed=4)
    got, infos = flat.reset(seed=4)
    rng = np.random.default_rng(4)
    for _ in range(5000):  # or to the end of the game
        assert flat.agents == plain.agents
        assert set(got) == set(want) and set(infos) >= set(want)
        for agent in want:
            assert np.array_equal(got[agent], want[agent]["observation"])
            assert got[agent].dtype == want[agent]["observation"].dtype
            assert flat.observation_space(agent).contains(got[agent])
            mask = infos[agent]["action_mask"]
            assert np.array_equal(mask, want[agent]["action_mask"]) and mask.dtype == np.int8
            assert {k: v for k, v in infos[agent].items() if k != "action_mask"} == want_infos[
                agent
            ]
        assert "action_mask" not in str(flat.unwrapped.infos)  # the AEC env's are left alone
        assert sum(infos[agent]["action_mask"].any() for agent in want) == (1 if flat.agents else 0)
        if not flat.agents:
            return
        assert np.array_equal(flat.state(), plain.state())
        actions = _actions(flat, {a: infos[a]["action_mask"] for a in flat.agents}, rng)
        want, *want_rest, want_infos = plain.step(actions)
        got, *rest, infos = flat.step(actions)
        assert rest == want_rest  # rewards, terminations, truncations
    raise AssertionError(f"{env_id}: no end in 5000 steps")


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_an_illegal_action_raises_as_in_the_wrapped_env(env_id):
    """Both envs play the last legal action until the seat to act has an illegal one (in No
    Thanks a seat that keeps refusing runs out of tokens), then get that illegal action."""
    plain, flat = card_envs.make_parallel(env_id), make_flat_parallel(env_id)
    plain.reset(seed=2)
    _, infos = flat.reset(seed=2)
    for _ in range(500):
        actor = next(a for a in flat.agents if infos[a]["action_mask"].any())
        mask = infos[actor]["action_mask"]
        if not mask.all():
            break
        actions = dict.fromkeys(flat.agents, int(np.flatnonzero(mask)[-1]))
        *_, infos = flat.step(actions)
        plain.step(actions)
    else:
        raise AssertionError(f"{env_id}: every action stayed legal")
    actions = dict.fromkeys(flat.agents, int(np.flatnonzero(mask == 0)[0]))
    with pytest.raises(ValueError) as want:
        plain.step(actions)
    with pytest.raises(ValueError, match="illegal action") as got:
        flat.step(actions)
    assert str(got.value) == str(want.value)


def _play_flat(env: FlatParallelEnv, steps: int, seed: int) -> list:
    """`steps` random legal steps, reset (without a seed) after each game."""
    rng = np.random.default_rng(seed)
    masks = {a: env.unwrapped.observe(a)["action_mask"] for a in env.agents}
    trace = []
    for _ in range(steps):
        result = env.step(_actions(env, masks, rng))
        trace.append(result)
        if not env.agents:
            trace.append(env.reset())
        masks = {a: trace[-1][-1][a]["action_mask"] for a in env.agents}
    return trace


def test_a_copy_mid_game_plays_on_like_the_original():
    """AgileRL's and SuperSuit's vector envs build an env in each worker from a pickled
    constructor; the wrapped env can also be pickled or deep-copied itself."""
    env = make_flat_parallel("surfosaurus_max_v0")
    env.reset(seed=1)
    _play_flat(env, 7, seed=0)
    same_future(env, _play_flat, "FlatParallelEnv", steps=150, seed=3)


def test_it_wraps_any_parallel_env_of_the_package():
    env = FlatParallelEnv(card_envs.make_parallel("no_thanks_v0", num_players=5))
    obs, infos = env.reset(seed=0)
    assert len(env.agents) == 5 and all(obs[a].ndim == 1 for a in env.agents)
    assert all(infos[a]["action_mask"].shape == (2,) for a in env.agents)

"""`history=K`: the last K public actions in every observation (`card_envs/core/history.py`).

The reference here is plain Python: each game's public code written from its docs table
(`docs/envs/<game>.md`), the actions recorded as they are played, and the slice built from
them; the engines must write exactly that, in every face. That the history holds nothing
private is the conformance suite's hidden-information check (`checks._check_history`) on
each game's `history` test config.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import card_envs
from card_envs.core.config import ConfigError
from card_envs.core.loading import StateDictError
from card_envs.registry import make_game, multi_agent_env_ids

EXPERIMENTS = Path(__file__).resolve().parent.parent / "configs" / "experiments"
CONFIGS = {  # one small config per game; the seat one-hot is as wide as the largest table
    "no_thanks_v0": dict(num_players=4),
    "surfosaurus_max_v0": dict(num_players=3),
    "double_or_nothing_v0": dict(stage=1),
    "rummidrez_v0": dict(num_players=3, max_turns=12, max_placements=12),
    "super_zwierzaki_v0": dict(num_players=4, play_drawn=True, max_turns=60),
}
MAX_PLAYERS = {
    "no_thanks_v0": 7,
    "surfosaurus_max_v0": 6,
    "double_or_nothing_v0": 2,
    "rummidrez_v0": 4,
    "super_zwierzaki_v0": 12,
}
CODES = {
    "no_thanks_v0": 2,
    "surfosaurus_max_v0": 84,
    "double_or_nothing_v0": 37,
    "rummidrez_v0": 114,
    "super_zwierzaki_v0": 147,
}


def rummidrez_code(action: int) -> int:
    """Draw 0, take (any count) 1, place card c (111 + c) 2 + c, undo (166) 57, end meld
    (167) 58, discard card c (168 + c) 59 + c."""
    return min(action, 1) if action <= 110 else action - 109


def zwierzaki_code(action: int, decider_obs: np.ndarray, num_players: int) -> int:
    """The action id, but 146 for a kind (0..115) picked to give or keep, laid in 9
    kolorow, or chosen to play (on a turn or as the drawn card) while the hand holds more
    than one copy of it: read from the decider's own observation (its `decision`,
    `purpose` and `hand`)."""
    from card_envs.games.super_zwierzaki.engine import obs_slices

    slices = obs_slices(num_players)
    start, _ = slices["decision"]
    decision = int(np.argmax(decider_obs[start : start + 11]))
    start, _ = slices["purpose"]
    purpose = (
        int(np.argmax(decider_obs[start : start + 10]))
        if decider_obs[start : start + 10].any()
        else -1
    )
    pick_secret = decision == 5 and purpose in (8, 9)  # pick: give or keep
    several = decision in (0, 10) and decider_obs[action] > 1  # turn, drawn: copies asked
    if action < 116 and (decision == 6 or pick_secret or several):  # 6: nine
        return 146
    return action


def public_code(env_id: str, action: int, actor_obs: np.ndarray, num_players: int) -> int:
    if env_id == "rummidrez_v0":
        return rummidrez_code(action)
    if env_id == "super_zwierzaki_v0":
        return zwierzaki_code(action, actor_obs, num_players)
    return action  # No Thanks, Surfosaurus, Double or Nothing: every action as it is


def expected_slice(played: list, seat: int, n: int, k: int, seats: int, codes: int):
    """The history slice for `seat` from the (actor, code) pairs played, newest first."""
    out = np.zeros(k * (seats + codes), dtype=np.float32)
    for j, (actor, code) in enumerate(reversed(played[-k:])):
        out[j * (seats + codes) + (actor - seat) % n] = 1
        out[j * (seats + codes) + seats + code] = 1
    return out


def random_play(env, rng, steps):
    """Random legal actions in an AEC env; yields (actor seat, action, actor observation)
    before each action."""
    for _ in range(steps):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            return
        obs = env.observe(agent)
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        yield int(agent.split("_")[1]), action, obs["observation"]
        env.step(action)


@pytest.mark.parametrize("env_id", multi_agent_env_ids())
def test_the_slice_is_the_recorded_public_actions_newest_first(env_id):
    k, config = 5, CONFIGS[env_id]
    env = card_envs.make(env_id, history=k, **config)
    plain = card_envs.make(env_id, **config)
    n = env.game.num_players
    seats, codes = MAX_PLAYERS[env_id], CODES[env_id]
    assert env.game.obs_size == plain.game.obs_size + k * (seats + codes)
    own = plain.game.obs_size
    for seed in range(3):
        env.reset(seed=seed)
        plain.reset(seed=seed)
        played, rng = [], np.random.default_rng(seed)
        for actor, action, obs in random_play(env, rng, 150):
            for seat in range(n):
                got = env.observe(f"player_{seat}")["observation"]
                want = plain.observe(f"player_{seat}")["observation"]
                np.testing.assert_array_equal(got[:own], want, err_msg="the game's own slots")
                expected = expected_slice(played, seat, n, k, seats, codes)
                np.testing.assert_array_equal(got[own:], expected, err_msg=f"seat {seat}")
            played.append((actor, public_code(env_id, action, obs, n)))
            plain.step(action)
        assert len(played) > k


@pytest.mark.parametrize("env_id", multi_agent_env_ids())
def test_batched_and_aec_observations_agree(env_id):
    config = {**CONFIGS[env_id], "history": 4}
    env = card_envs.make(env_id, **config)
    venv = card_envs.make_vec(env_id, 1, seed=7, **config)
    env.reset(seed=7)
    obs, _ = venv.reset()
    rng = np.random.default_rng(0)
    for _, action, seen in random_play(env, rng, 80):
        np.testing.assert_array_equal(obs[0], seen)
        obs, *_ = venv.step(np.array([action]))


@pytest.mark.parametrize("env_id", multi_agent_env_ids())
def test_the_state_dict_keeps_the_history(env_id):
    config = {**CONFIGS[env_id], "history": 6}
    env = card_envs.make(env_id, **config)
    env.reset(seed=3)
    for _ in random_play(env, np.random.default_rng(3), 20):
        pass
    state = json.loads(json.dumps(env.state_dict()))
    assert len(state["history"]) == 6 and state["config"]["history"] == 6
    twin = card_envs.make(env_id, **config)
    twin.reset(seed=99)
    twin.load_state_dict(state)
    assert twin.state_dict() == state
    for agent in env.possible_agents:
        np.testing.assert_array_equal(
            twin.observe(agent)["observation"], env.observe(agent)["observation"]
        )
    if env.terminations[env.agent_selection]:
        return
    venv = card_envs.make_vec(env_id, 2, seed=0, **config)
    venv.reset()
    venv.set_state(1, state)
    np.testing.assert_array_equal(
        venv.observations[1], env.observe(env.agent_selection)["observation"]
    )


def test_a_state_dict_without_history_loads_with_none_kept_and_bad_entries_are_refused():
    env = card_envs.make("no_thanks_v0", num_players=3, history=2)
    env.reset(seed=1)
    env.step(1)
    state = env.state_dict()
    assert state["history"] == [[0, 1]]
    older = {key: value for key, value in state.items() if key != "history"}
    env.load_state_dict(older)
    assert env.state_dict()["history"] == []
    assert not env.observe("player_1")["observation"][env.game.game_obs_size :].any()
    for bad, named in (
        ([[0, 1]] * 3, "at most 2"),
        ([[3, 1]], "history[0][0]: 3 is not in 0..2"),
        ([[0, 2]], "history[0][1]: 2 is not in 0..1"),
        ([[0]], "history[0]: has 1 items, not 2"),
        ("x", "'x' is not a list"),
    ):
        with pytest.raises(StateDictError, match=named.replace("[", r"\[").replace("]", r"\]")):
            env.load_state_dict({**state, "history": bad})
    plain = card_envs.make("no_thanks_v0", num_players=3)
    plain.reset(seed=1)
    with pytest.raises(StateDictError, match="history=2"):
        plain.load_state_dict(state)
    plain.load_state_dict({**older, "config": {**older["config"], "history": 0}})


@pytest.mark.parametrize("env_id", card_envs.env_ids())
@pytest.mark.parametrize("bad", [-1, 2.5, True, "3", 1025])
def test_the_option_is_validated_naming_the_value(env_id, bad):
    with pytest.raises(ConfigError) as err:
        card_envs.make(env_id, history=bad)
    message = str(err.value)
    assert f"history={bad!r}" in message
    assert "int" in message or "0..1024" in message


def test_the_solo_env_keeps_its_own_actions():
    env = card_envs.make("rummidrez_solo_v0", history=3)
    obs, _ = env.reset(seed=4)
    own = make_game("rummidrez_solo_v0").obs_size
    assert obs.shape == (own + 3 * (1 + 114),)
    played, rng = [], np.random.default_rng(4)
    for _ in range(12):
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        obs, _, done, truncated, _ = env.step(action)
        played.append((0, rummidrez_code(action)))
        if done or truncated:
            break
        np.testing.assert_array_equal(obs[own:], expected_slice(played, 0, 1, 3, 1, 114))


def test_the_run_env_keeps_both_seats_moves():
    env = card_envs.make("double_or_nothing_run_v0", history=4, max_stage=2)
    obs, _ = env.reset(seed=2)
    assert obs.shape == (39 + 4 * (2 + 37),)
    action = int(np.flatnonzero(env.action_masks())[0])
    obs, *_ = env.step(action)
    kept = env.state_dict()["game"]["history"]
    assert kept[0] == [0, action] and all(seat == 1 for seat, _ in kept[1:])
    np.testing.assert_array_equal(obs[39:], expected_slice(kept, 0, 2, 4, 2, 37))
    twin = card_envs.make("double_or_nothing_run_v0", history=4, max_stage=2)
    again, _ = twin.load_state_dict(env.state_dict())
    np.testing.assert_array_equal(again, obs)


def test_training_configs_take_the_option():
    from card_envs.training.config import load_config

    cfg = load_config(EXPERIMENTS / "no_thanks_history_on.yaml")
    assert cfg.config["history"] > 0 and not cfg.config["public_tokens"]
    off = load_config(EXPERIMENTS / "no_thanks_history_off.yaml")
    assert off.config["history"] == 0


# --- ppo agents ---------------------------------------------------------------------------------
def _tiny_model(tmp_path, history: int, pad: bool):
    sb3 = pytest.importorskip("sb3_contrib")
    from card_envs.wrappers import SingleAgentVecEnv

    venv = SingleAgentVecEnv("no_thanks_v0", 8, seed=0, pad=pad, num_players=4, history=history)
    model = sb3.MaskablePPO(
        "MlpPolicy", venv, n_steps=16, batch_size=64, n_epochs=1, seed=0,
        policy_kwargs={"net_arch": [16]}, device="cpu",
    )  # fmt: skip
    model.learn(128)
    path = tmp_path / f"h{history}.zip"
    model.save(path)
    return model, path


def _positions(history: int):
    venv = card_envs.make_vec("no_thanks_v0", 32, seed=5, num_players=4, history=history)
    obs, masks = venv.reset()
    for _ in range(9):
        obs, masks, *_ = venv.step(np.argmax(masks, axis=1))
    return obs.copy(), masks.copy()


@pytest.mark.parametrize("pad", [False, True], ids=["own", "padded"])
def test_a_model_trained_with_history_k_reads_the_k_newest_of_a_longer_one(tmp_path, pad):
    from card_envs.agents import make_agent
    from card_envs.agents.ppo import ModelError
    from card_envs.core.padding import Padding, padded_size

    model, path = _tiny_model(tmp_path, 3, pad)
    obs, masks = _positions(7)
    game = make_game("no_thanks_v0", num_players=4, history=7)
    view = Padding(game, 3, pad)
    expected, _ = model.predict(view(obs), action_masks=masks != 0, deterministic=True)
    agent = make_agent(f"ppo:{path}", "no_thanks_v0", num_players=4, history=7)
    np.testing.assert_array_equal(agent.act_batch(obs, masks), expected)
    assert view(obs).shape[1] == (padded_size(type(game), 3) if pad else 168 + 3 * 9)
    with pytest.raises(ModelError, match="trained with history=3.*history >= 3.*history=2"):
        make_agent(f"ppo:{path}", "no_thanks_v0", num_players=4, history=2)


def test_the_shipped_model_plays_with_history_by_dropping_the_slice():
    pytest.importorskip("sb3_contrib")
    from card_envs.agents import make_agent

    obs, masks = _positions(8)
    own = make_game("no_thanks_v0", num_players=4).obs_size
    with_history = make_agent("ppo", "no_thanks_v0", num_players=4, history=8)
    without = make_agent("ppo", "no_thanks_v0", num_players=4)
    np.testing.assert_array_equal(
        with_history.act_batch(obs, masks), without.act_batch(obs[:, :own], masks)
    )


def test_the_leak_check_catches_a_history_that_tells_a_hidden_card(monkeypatch):
    """The conformance check is not vacuous: a No Thanks engine whose newest history entry
    told the parity of the first card removed face down fails it."""
    from card_envs.core import history, layout
    from card_envs.games.no_thanks import engine as nt
    from card_envs.testing import checks

    cls = type(make_game("no_thanks_v0"))
    real = cls.step_kernel

    def leaky(row, action, rewards):
        real(row, action, rewards)
        base = row[layout.HISTORY]
        newest = (row[base + 1] - 1) % row[base]
        row[base + history.HEAD + history.ENTRY * newest + 1] = row[nt.DECK + nt.NUM_PLAYED] % 2

    checks.check_hidden_information("no_thanks_v0", dict(num_players=3, history=4))  # sound
    monkeypatch.setattr(cls, "step_kernel", staticmethod(leaky))
    with pytest.raises(AssertionError, match="the history of . leaks"):
        checks.check_hidden_information("no_thanks_v0", dict(num_players=3, history=4))

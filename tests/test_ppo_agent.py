"""The trained-policy agent: a MaskablePPO file behind the agent interface (`ppo:path`)."""

import json
import zipfile

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO  # noqa: E402

import card_envs.agents.ppo as ppo  # noqa: E402
from card_envs.agents import make_agent  # noqa: E402
from card_envs.agents.ppo import ModelError, PPOAgent  # noqa: E402
from card_envs.evaluation import evaluate  # noqa: E402
from card_envs.wrappers import SingleAgentVecEnv  # noqa: E402

ENV = "no_thanks_v0"


@pytest.fixture(scope="module")
def model_path(tmp_path_factory):
    """A tiny MaskablePPO trained for a few hundred steps against random opponents."""
    venv = SingleAgentVecEnv(ENV, 8, opponents="random", seat="rotate", seed=0)
    model = MaskablePPO(
        "MlpPolicy",
        venv,
        n_steps=32,
        batch_size=64,
        n_epochs=1,
        seed=0,
        policy_kwargs={"net_arch": [16]},
        device="cpu",
    )
    model.learn(512)
    path = tmp_path_factory.mktemp("models") / "tiny.zip"
    model.save(path)
    return path


def _random_batch(seed, size=256):
    """Observations of real positions and their masks, from a few random games."""
    import card_envs

    venv = card_envs.make_vec(ENV, size, seed=seed)
    obs, masks = venv.reset()
    rng = np.random.default_rng(seed)
    for _ in range(int(rng.integers(5, 30))):
        keys = (masks != 0) * (1 + rng.random(masks.shape))
        obs, masks, *_ = venv.step(np.argmax(keys, axis=1))
    return obs.copy(), masks.copy()


def test_spec_loads_the_model_and_plays_only_legal_actions(model_path):
    agent = make_agent(f"ppo:{model_path}", ENV, seed=0)
    assert isinstance(agent, PPOAgent)
    assert agent.spec == f"ppo:{model_path}" and agent.name == "ppo:tiny"
    obs, masks = _random_batch(1)
    masks[::3, 0] = 0  # force "no thanks" where it is otherwise legal: masks must be obeyed
    masks[::3, 1] = 1
    actions = agent.act_batch(obs, masks)
    assert actions.shape == (len(obs),)
    assert np.all(masks[np.arange(len(obs)), actions] == 1)
    # whole games through the evaluator, which stops on any illegal action
    ev = evaluate(
        ENV, [f"ppo:{model_path}", "random", "random"], games=30, workers=1, progress=False
    )
    assert ev[0].games == 30 and sum(s.win_rate for s in ev) == pytest.approx(1.0)


def test_deterministic_actions_are_the_models_own_masked_predictions(model_path):
    agent = make_agent(f"ppo:{model_path}", ENV)
    model = MaskablePPO.load(model_path, device="cpu")
    obs, masks = _random_batch(2)
    expected, _ = model.predict(obs, action_masks=masks.astype(bool), deterministic=True)
    np.testing.assert_array_equal(agent.act_batch(obs, masks), expected)
    assert agent.act(obs[0], masks[0]) == expected[0]


def test_sampling_is_legal_seeded_and_follows_the_policy(model_path):
    obs, masks = _random_batch(3, size=64)
    a = PPOAgent(model_path, ENV, seed=5, deterministic=False)
    b = PPOAgent(model_path, ENV, seed=5, deterministic=False)
    many_obs = np.repeat(obs[:1], 4000, axis=0)
    many_masks = np.repeat(np.array([[1, 1]], dtype=np.int8), 4000, axis=0)
    draws = a.act_batch(many_obs, many_masks)
    np.testing.assert_array_equal(draws, b.act_batch(many_obs, many_masks))
    p_take = a.action_probabilities(many_obs[:1], many_masks[:1])[0, 0]
    assert abs((draws == 0).mean() - p_take) < 0.03
    legal = a.act_batch(obs, masks)
    assert np.all(masks[np.arange(len(obs)), legal] == 1)


def test_refuses_paths_that_are_not_a_model(model_path, tmp_path):
    with pytest.raises(ModelError, match="does not exist"):
        make_agent(f"ppo:{tmp_path / 'nope.zip'}", ENV)
    text = tmp_path / "notes.zip"
    text.write_text("not a zip")
    with pytest.raises(ModelError, match="not a zip archive"):
        make_agent(f"ppo:{text}", ENV)
    other = tmp_path / "other.zip"
    with zipfile.ZipFile(other, "w") as z:
        z.writestr("readme.txt", "hello")
    with pytest.raises(ModelError, match="not a Stable-Baselines3 model.*'data'"):
        make_agent(f"ppo:{other}", ENV)
    with pytest.raises(ModelError, match="not a file"):
        make_agent(f"ppo:{tmp_path}", ENV)
    with pytest.raises(ValueError, match="needs a path"):  # the spec parser's refusal
        make_agent("ppo:", ENV)


def test_refuses_a_model_of_another_env_or_size(model_path):
    with pytest.raises(ModelError, match=r"shape \[135\].*size 39"):
        make_agent(f"ppo:{model_path}", "double_or_nothing_v0")
    with pytest.raises(ModelError, match=r"shape \[135\].*size 201.*279 padded"):
        make_agent(f"ppo:{model_path}", ENV, num_players=5)


def test_a_model_trained_on_padded_observations_plays_every_config(tmp_path):
    """One model from a mix of 3 and 5 players plays 3..7 players with and without public
    tokens: the agent pads each config's observations as the training env did."""
    from card_envs.core.padding import Padding
    from card_envs.registry import make_game, make_vec
    from card_envs.wrappers import MixedVecEnv

    parts = [
        SingleAgentVecEnv(ENV, 4, opponents="random", seed=n, pad=True, num_players=n)
        for n in (3, 5)
    ]
    venv = MixedVecEnv(parts)
    assert venv.num_envs == 8 and venv.observation_space.shape == (279,)
    model = MaskablePPO(
        "MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=1, seed=0,
        policy_kwargs={"net_arch": [16]}, device="cpu",
    )  # fmt: skip
    model.learn(256)
    path = tmp_path / "mixed.zip"
    model.save(path)
    for n in range(3, 8):
        for public in (False, True):
            agent = make_agent(f"ppo:{path}", ENV, seed=0, num_players=n, public_tokens=public)
            vec = make_vec(ENV, 16, seed=n, num_players=n, public_tokens=public)
            obs, masks = vec.reset()
            padded = Padding(make_game(ENV, num_players=n, public_tokens=public))(obs)
            expected, _ = model.predict(padded, action_masks=masks != 0, deterministic=True)
            np.testing.assert_array_equal(agent.act_batch(obs, masks), expected)
    ev = evaluate(ENV, [f"ppo:{path}"] + ["random"] * 6, games=14, seed=1, num_players=7)
    assert ev[0].games == 14


def _rewrite_data(src, dst, edit):
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for item in zin.infolist():
            blob = zin.read(item.filename)
            if item.filename == "data":
                data = json.loads(blob)
                edit(data)
                blob = json.dumps(data).encode()
            zout.writestr(item, blob)


def test_refuses_a_non_maskable_policy_without_unpickling_it(model_path, tmp_path):
    bad = tmp_path / "plain.zip"

    def edit(data):
        data["policy_class"]["__module__"] = "stable_baselines3.common.policies"
        data["policy_class"][":serialized:"] = "not even base64 - must never be read"

    _rewrite_data(model_path, bad, edit)
    with pytest.raises(ModelError, match=r"MaskableActorCriticPolicy.*loads as sb3:PATH"):
        make_agent(f"ppo:{bad}", ENV)


def test_loading_unpickles_nothing_but_policy_kwargs(model_path, tmp_path):
    """Every cloudpickled entry except policy_kwargs is replaced before SB3 reads it: a file
    whose pickles are garbage still loads, and plays like the original."""
    garbled = tmp_path / "garbled.zip"

    def edit(data):
        for item in data.values():
            if isinstance(item, dict) and ":serialized:" in item:
                item[":serialized:"] = "Z2FyYmFnZQ=="  # base64 of b"garbage"

    _rewrite_data(model_path, garbled, edit)
    obs, masks = _random_batch(4)
    original = make_agent(f"ppo:{model_path}", ENV)
    np.testing.assert_array_equal(
        make_agent(f"ppo:{garbled}", ENV).act_batch(obs, masks), original.act_batch(obs, masks)
    )


def test_plain_ppo_spec_uses_the_model_shipped_for_the_env(model_path, tmp_path, monkeypatch):
    monkeypatch.setattr(ppo, "_models_dir", lambda: tmp_path)
    with pytest.raises(ModelError, match=r"no ppo model is shipped for no_thanks_v0"):
        make_agent("ppo", ENV)
    (tmp_path / f"{ENV}.zip").write_bytes(model_path.read_bytes())
    agent = make_agent("ppo", ENV)
    assert agent.spec == "ppo" and agent.name == "ppo"
    obs, masks = _random_batch(5)
    np.testing.assert_array_equal(
        agent.act_batch(obs, masks), make_agent(f"ppo:{model_path}", ENV).act_batch(obs, masks)
    )
    with pytest.raises(ModelError, match="double_or_nothing_v0"):
        make_agent("ppo", "double_or_nothing_v0")


def test_policy_agent_on_a_frozen_copy_acts_like_the_saved_model_and_stays_frozen(model_path):
    """Self-play snapshots: a frozen copy of a live policy behind PolicyAgent, taken right
    after a training step (when the policy holds tensors of the autograd graph)."""
    import copy

    import torch

    from card_envs.agents.ppo import PolicyAgent, frozen_copy

    live = MaskablePPO.load(model_path, device="cpu")
    obs, masks = _random_batch(3)
    live.policy.get_distribution(torch.as_tensor(obs), action_masks=masks != 0)  # with grad:
    with pytest.raises(RuntimeError):  # the policy now caches tensors of the autograd graph
        copy.deepcopy(live.policy)
    snapshot = PolicyAgent(frozen_copy(live.policy))
    assert not any(p.requires_grad for p in snapshot.policy.parameters())
    from_file = PPOAgent(model_path, ENV)
    before = snapshot.action_probabilities(obs, masks)
    np.testing.assert_allclose(before, from_file.action_probabilities(obs, masks), atol=1e-6)
    with torch.no_grad():  # the learner keeps training: its weights move
        for p in live.policy.parameters():
            p.add_(0.5)
    np.testing.assert_allclose(snapshot.action_probabilities(obs, masks), before, atol=1e-7)
    live_probs = PolicyAgent(live.policy).action_probabilities(obs, masks)
    assert not np.allclose(live_probs, before, atol=1e-3)
    assert masks[np.arange(len(obs)), snapshot.act_batch(obs, masks)].all()


@pytest.mark.parametrize("env_id", ["no_thanks_v0", "surfosaurus_max_v0"])
def test_action_probabilities_equal_sb3s_masked_distribution(env_id):
    """The agent's lean forward pass gives SB3's own masked probabilities."""
    import torch

    import card_envs
    from card_envs.agents.ppo import PolicyAgent

    venv = SingleAgentVecEnv(env_id, 4, opponents="random", seed=1)
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=64, seed=3, device="cpu")
    model.learn(64)  # trained weights, not just the initialisation
    vec = card_envs.make_vec(env_id, 64, seed=2)
    obs, masks = vec.reset()
    for _ in range(6):
        obs, masks, *_ = vec.step(np.argmax(masks, axis=1))
    with torch.no_grad():
        want = model.policy.get_distribution(torch.as_tensor(obs.copy()), action_masks=masks != 0)
        want = want.distribution.probs.numpy()
    got = PolicyAgent(model.policy).action_probabilities(obs, masks)
    np.testing.assert_allclose(got, want, atol=1e-6)
    assert (got[masks == 0] == 0).all() and np.allclose(got.sum(axis=1), 1)


@pytest.mark.parametrize(
    ("env_id", "config"),
    [("surfosaurus_max_v0", {"num_players": 3}), ("rummidrez_v0", {"num_players": 2})],
)
def test_with_hints_off_the_agent_computes_them_from_its_own_view(env_id, config):
    """A padded policy trained with hints plays a config without them exactly as with them:
    the agent observes a copy of each row with `hints` on (the hint is a function of what
    the seat sees), so its actions match the hinted config's on the same positions."""
    from card_envs.core.padding import Padding
    from card_envs.registry import make_game, make_vec

    hinted = {**config, "hints": True}
    venv = SingleAgentVecEnv(env_id, 4, opponents="heuristic", seed=0, pad=True, **hinted)
    model = MaskablePPO("MlpPolicy", venv, n_steps=8, batch_size=32, seed=0,
                        policy_kwargs={"net_arch": [16]}, device="cpu")  # fmt: skip
    padding = Padding(make_game(env_id, **hinted))
    plain = ppo.PolicyAgent(model.policy, padding=Padding(make_game(env_id, **config)),
                            game=make_game(env_id, **config))  # fmt: skip
    assert plain.wants_rows
    with_hints = ppo.PolicyAgent(model.policy, padding=padding, game=make_game(env_id, **hinted))
    assert not with_hints.wants_rows
    vec = make_vec(env_id, 16, seed=3, **config)
    hinted_vec = make_vec(env_id, 16, seed=3, **hinted)
    obs, masks = vec.reset()
    hinted_obs, _ = hinted_vec.reset()
    for _ in range(6):
        mine = plain.act_positions(obs, masks, vec.states)
        np.testing.assert_array_equal(mine, with_hints.act_batch(hinted_obs, masks))
        assert masks[np.arange(16), mine].all()
        obs, masks, *_ = vec.step(mine)
        hinted_obs, *_ = hinted_vec.step(mine)

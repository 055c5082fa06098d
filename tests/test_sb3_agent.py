"""Plain Stable-Baselines3 files as agents (`sb3:PATH`): PPO, A2C and DQN trained on the
Gymnasium single-seat view play their best legal action in the harnesses."""

import gymnasium
import numpy as np
import pytest
import torch

pytest.importorskip("stable_baselines3")

from stable_baselines3 import A2C, DQN, PPO  # noqa: E402

import card_envs  # noqa: E402, F401  (registers the Gymnasium ids)
from card_envs.agents import make_agent  # noqa: E402
from card_envs.agents.ppo import ModelError  # noqa: E402
from card_envs.agents.specs import AgentSpecError, parse_spec  # noqa: E402
from card_envs.evaluation import evaluate  # noqa: E402

ENV = "no_thanks_v0"
CONFIG = {"num_players": 3}


def _env():
    # a plain algorithm knows no mask: an illegal action ends its game with -1
    return gymnasium.make(
        f"card_envs/{ENV}-single", opponents="random", illegal_action="penalize", **CONFIG
    )


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """One small file per algorithm, a few hundred steps each."""
    folder = tmp_path_factory.mktemp("sb3")
    small = {"net_arch": [16]}
    trained = {
        "ppo": PPO("MlpPolicy", _env(), n_steps=64, batch_size=64, n_epochs=1, seed=0,
                   policy_kwargs=small, device="cpu"),
        "a2c": A2C("MlpPolicy", _env(), n_steps=8, seed=0, policy_kwargs=small, device="cpu"),
        "dqn": DQN("MlpPolicy", _env(), learning_starts=32, buffer_size=500, seed=0,
                   policy_kwargs=small, device="cpu"),
    }  # fmt: skip
    paths = {}
    for name, model in trained.items():
        model.learn(128)
        paths[name] = folder / f"{name}.zip"
        model.save(paths[name])
    return paths, trained


def _observations(n):
    env = card_envs.make(ENV, **CONFIG)
    obs, masks = [], []
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    for _ in env.agent_iter():
        o, _, term, trunc, _ = env.last()
        if term or trunc or len(obs) == n:
            break
        obs.append(o["observation"])
        masks.append(o["action_mask"])
        env.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))
    return np.array(obs, dtype=np.float32), np.array(masks)


@pytest.mark.parametrize("name", ["ppo", "a2c"])
def test_an_actor_critic_file_plays_its_best_legal_logit(models, name):
    paths, trained = models
    agent = make_agent(f"sb3:{paths[name]}", ENV, seed=0, **CONFIG)
    obs, masks = _observations(30)
    with torch.no_grad():  # the oracle: SB3's own distribution of the trained model
        dist = trained[name].policy.get_distribution(torch.as_tensor(obs))
        logits = dist.distribution.logits.numpy()
    expected = np.argmax(np.where(masks != 0, logits, -np.inf), axis=1)
    assert agent.act_batch(obs, masks).tolist() == expected.tolist()


def test_a_dqn_file_plays_its_best_legal_q_value(models):
    paths, trained = models
    agent = make_agent(f"sb3:{paths['dqn']}", ENV, seed=0, **CONFIG)
    obs, masks = _observations(30)
    with torch.no_grad():
        q = trained["dqn"].q_net(torch.as_tensor(obs)).numpy()
    expected = np.argmax(np.where(masks != 0, q, -np.inf), axis=1)
    assert agent.act_batch(obs, masks).tolist() == expected.tolist()


def test_every_kind_of_file_plays_whole_games_in_evaluate(models):
    paths, _ = models
    field = [f"sb3:{paths[name]}" for name in ("ppo", "a2c", "dqn")]
    result = evaluate(ENV, field, games=12, seed=0, workers=1, progress=False)
    assert result.games == 12
    assert all(row.games == 12 for row in result.agents)


def test_a_plain_file_is_refused_by_ppo_with_the_kind_that_loads_it(models):
    paths, _ = models
    with pytest.raises(ModelError, match="a plain PPO, A2C or DQN file loads as sb3:PATH"):
        make_agent(f"ppo:{paths['ppo']}", ENV, **CONFIG)


def test_sb3_needs_a_file_of_the_game_it_plays(models):
    paths, _ = models
    with pytest.raises(AgentSpecError, match="needs a model file: sb3:PATH"):
        parse_spec("sb3")
    with pytest.raises(ModelError, match="wrong env or config"):
        make_agent(f"sb3:{paths['ppo']}", ENV, num_players=5)

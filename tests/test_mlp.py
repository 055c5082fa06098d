"""The network inside the search: `core.mlp` against torch, PUCT against its formula, and
`ismcts:N:net` playing by its prior."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import torch  # noqa: E402

from card_envs.agents import make_agent  # noqa: E402
from card_envs.core import ismcts  # noqa: E402
from card_envs.core.mlp import actor_logits, actor_net  # noqa: E402
from card_envs.core.padding import Padding  # noqa: E402
from card_envs.registry import make_vec  # noqa: E402


def policy_for(obs_size: int, num_actions: int, net_arch, activation=torch.nn.Tanh):
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    torch.manual_seed(0)
    return MaskableActorCriticPolicy(
        spaces.Box(0.0, 1.0, (obs_size,), dtype=np.float32),
        spaces.Discrete(num_actions),
        lambda _: 1e-3,
        net_arch=net_arch,
        activation_fn=activation,
    )


def positions(env_id: str, n: int = 32, **config):
    venv = make_vec(env_id, n, seed=4, **config)
    obs, masks = venv.reset()
    for _ in range(9):
        obs, masks, *_ = venv.step(np.argmax(masks, axis=1))
    return venv.game, obs.copy(), masks.copy(), venv.states.copy()


@pytest.mark.parametrize(
    "env_id, config, padded, net_arch",
    [
        ("no_thanks_v0", {"num_players": 4}, False, [32, 16]),
        ("super_zwierzaki_v0", {"num_players": 5}, True, [64]),
        ("no_thanks_v0", {"num_players": 3, "public_tokens": True}, True, [8, 8, 8]),
    ],
)
def test_the_compiled_actor_gives_torchs_logits(env_id, config, padded, net_arch):
    game, obs, _, _ = positions(env_id, **config)
    padding = Padding(game) if padded else None
    size = padding.size if padded else game.obs_size
    policy = policy_for(size, game.num_actions, net_arch)
    index, ones, size, weights, biases = actor_net(policy, padding, game.obs_size)
    assert len(weights) == len(net_arch) + 1
    seen = obs if padding is None else padding(obs)
    with torch.no_grad():
        expected = policy.action_net(policy.mlp_extractor.forward_actor(torch.as_tensor(seen)))
    x = np.empty(size, dtype=np.float32)
    got = np.stack([actor_logits(o, index, ones, x, weights, biases) for o in obs])
    np.testing.assert_allclose(got, expected.numpy(), rtol=1e-4, atol=1e-5)


def test_an_actor_with_another_activation_is_refused():
    policy = policy_for(10, 2, [8], activation=torch.nn.ReLU)
    with pytest.raises(ValueError, match="tanh activations .* ReLU"):
        actor_net(policy, None, 10)


def test_puct_matches_its_formula():
    """A node with four actions, two expanded: each legal action's score is its mean value
    plus c * P * sqrt(availability) / (1 + visits), P the softmax of the logits over the
    legal actions only; an unexpanded one counts its expanded legal siblings' mean value
    (0 when none is) and the node's visits."""
    tree = ismcts.new_tree(8, 4)
    child, visits, avail, value, _ = tree
    child[0, :2] = (1, 2)
    visits[0], visits[1:3] = 30.0, (20.0, 20.0)
    avail[1:3] = (29.0, 25.0)
    value[1:3] = (1.0, 3.0)
    logits = np.array([0.3, -0.4, 1.2, 0.1], dtype=np.float32)
    picked = set()
    for legal in ([0, 1, 2, 3], [0, 1], [1, 3], [0, 2], [1, 2]):
        mask = np.zeros(4, dtype=np.int8)
        mask[legal] = 1
        z = sum(math.exp(logits[a]) for a in legal)
        seen = [child[0, a] for a in legal if child[0, a] >= 0]
        first = sum(value[k] for k in seen) / sum(visits[k] for k in seen) if seen else 0.0
        for c in (0.01, 0.1, 1.0, 5.0):
            score = {}
            for a in legal:
                p = math.exp(logits[a]) / z
                if child[0, a] < 0:
                    score[a] = first + c * p * math.sqrt(visits[0])
                else:
                    k = child[0, a]
                    score[a] = value[k] / visits[k] + c * p * math.sqrt(avail[k]) / (1 + visits[k])
            best = max(legal, key=score.get)
            assert ismcts.puct_action(tree, 0, mask, c, logits) == best
            picked.add(best)
    assert picked == {0, 1, 2, 3}  # the cases tell the terms apart


@pytest.mark.slow  # compiles the search with a network: a minute cold
def test_a_search_with_a_prior_follows_a_confident_network(tmp_path):
    """A network that puts nearly all its mass on one action (TAKE, 0) makes the search try
    it first and visit it most, where the plain search prefers the other now and then; the
    spec names its network."""
    game, obs, masks, rows = positions("no_thanks_v0", num_players=3)
    path = fixed(tmp_path, (8.0, -8.0))
    both = masks.all(axis=1)
    guided = make_agent(f"ismcts:100:net={path}", "no_thanks_v0", seed=1, num_players=3)
    assert guided.spec == f"ismcts:100:heuristic:net={path}"
    moves, shares, _ = guided.act_with_policy(obs[both], masks[both], rows[both])
    assert (moves == 0).all() and (shares[:, 0] > 0.9).all()
    plain = make_agent("ismcts:100", "no_thanks_v0", seed=1, num_players=3)
    assert (plain.act_rows(rows[both], masks[both]) == 1).any()


def test_net_specs_name_their_network_or_are_refused(tmp_path, monkeypatch):
    from card_envs.agents import ppo

    monkeypatch.setattr(ppo, "_models_dir", lambda: tmp_path)
    with pytest.raises(ValueError, match=r"no exit model is shipped .*no_thanks_v0\.exit\.zip"):
        make_agent("ismcts:50:net", "no_thanks_v0")
    for bad in ("ismcts:net=", "ismcts:net:net", "ismcts:nets"):
        with pytest.raises(ValueError, match="net\\[=PATH\\]"):
            make_agent(bad, "no_thanks_v0")
    with pytest.raises(ValueError, match="does not exist"):
        make_agent(f"ismcts:net={tmp_path / 'missing.zip'}", "no_thanks_v0")


@pytest.mark.slow  # compiles the search with a network: a minute cold
def test_network_rollouts_play_the_networks_moves(tmp_path):
    """Without the guide, the tree is UCB1's and only the rollouts read the network: two
    networks (always take, always pass) give other root values from the same seeds, the
    same network the same ones; the spec refuses network rollouts without a network."""
    from card_envs.agents.ismcts import ISMCTSAgent

    game, obs, masks, rows = positions("no_thanks_v0", num_players=3)
    kept = masks.all(axis=1)

    def values(bias, seed=1):
        agent = ISMCTSAgent(game, 40, "network", seed=seed, net=str(fixed(tmp_path, bias)),
                            guide=False)  # fmt: skip
        assert agent.guide is False and agent.spec.startswith("ismcts:40:network")
        return agent.act_with_policy(obs[kept], masks[kept], rows[kept])[2]

    take, take_again, pass_ = values((8.0, -8.0)), values((8.0, -8.0)), values((-8.0, 8.0))
    np.testing.assert_array_equal(take, take_again)
    assert np.mean(take != pass_) > 0.5
    with pytest.raises(ValueError, match="network rollouts need a network"):
        make_agent("ismcts:10:network", "no_thanks_v0")


def fixed(tmp_path, bias) -> str:
    """A No Thanks MaskablePPO file whose policy ignores the observation: logits `bias`."""
    from sb3_contrib import MaskablePPO

    from card_envs.wrappers import SingleAgentVecEnv

    venv = SingleAgentVecEnv("no_thanks_v0", 2, opponents=["random", "random"], seed=0)
    model = MaskablePPO("MlpPolicy", venv, device="cpu", policy_kwargs={"net_arch": [8]})
    with torch.no_grad():
        model.policy.action_net.weight.zero_()
        model.policy.action_net.bias.copy_(torch.tensor(bias))
    path = tmp_path / f"fixed{bias[0]:+g}.zip"
    model.save(path)
    return path

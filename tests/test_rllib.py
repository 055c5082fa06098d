"""The RLlib backend's pieces: the multi-agent env plays the engine's game, and the masked
module never gives an illegal action probability mass."""

import gymnasium as gym
import numpy as np
import pytest
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig

from card_envs.core import layout
from card_envs.registry import make_game
from training.rllib.env import TurnEnv, agent_id, observation_space
from training.rllib.modules import MaskedPPOModule


def test_the_env_plays_the_engines_game_turn_by_turn():
    env = TurnEnv({"env_id": "no_thanks_v0", "num_players": 3})
    game = make_game("no_thanks_v0", num_players=3)
    row = game.new_row()
    obs, _ = env.reset(seed=5)
    game.reset_row(row, 5)
    rng = np.random.default_rng(0)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    rewards = np.zeros(3, dtype=np.float32)
    while True:
        seat = int(row[layout.PLAYER])
        assert list(obs) == [agent_id(seat)]
        mask = obs[agent_id(seat)]["action_mask"]
        action = int(rng.choice(np.flatnonzero(mask)))
        obs, rew, term, trunc, _ = env.step({agent_id(seat): action})
        type(game).step_kernel(row, action, rewards)
        for a, r in rew.items():
            returns[a] += r
        if term["__all__"] or trunc["__all__"]:
            break
    assert set(obs) == set(env.possible_agents)
    _, wins = game.outcome(row)
    assert [returns[agent_id(p)] for p in range(3)] == list(wins.astype(np.float32))


def test_an_illegal_action_is_refused_naming_the_legal_ones():
    env = TurnEnv({"env_id": "surfosaurus_max_v0"})
    obs, _ = env.reset(seed=1)
    ((agent, o),) = obs.items()
    illegal = int(np.flatnonzero(o["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match=rf"illegal action {illegal} .*legal: \["):
        env.step({agent: illegal})


def test_the_masked_module_gives_illegal_actions_no_probability():
    game = make_game("surfosaurus_max_v0")
    space = observation_space(game)
    module = MaskedPPOModule(
        observation_space=space,
        action_space=gym.spaces.Discrete(game.num_actions),
        model_config=DefaultModelConfig(fcnet_hiddens=[32]),
    )
    rng = np.random.default_rng(0)
    n = 64
    obs = torch.tensor(rng.normal(size=(n, game.obs_size)) * 10, dtype=torch.float32)
    mask = torch.tensor(rng.random((n, game.num_actions)) < 0.2, dtype=torch.float32)
    mask[:, 0] = 1.0  # at least one legal action per row
    for forward in (module.forward_inference, module.forward_exploration, module.forward_train):
        out = forward({Columns.OBS: {"observations": obs, "action_mask": mask}})
        probs = torch.softmax(out[Columns.ACTION_DIST_INPUTS], dim=-1)
        assert torch.all(probs[mask == 0] == 0.0)
        assert torch.allclose(probs.sum(-1), torch.ones(n))

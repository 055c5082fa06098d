"""RLModules: the learner (PPO with illegal actions masked out of its logits) and the
project's agents as fixed opponents, so RLlib's policy mapping can seat them.

Masking follows RLlib's action-masking example: the observation is a dict of
`observations` and `action_mask`; the network sees `observations` only, and every illegal
action's logit is set to the lowest float, so its probability is exactly 0 and neither the
env runners nor the learner ever sample it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.rl_module import RLModule

from card_envs.agents.registry import make_agent
from card_envs.core.padding import Padding
from card_envs.registry import make_game

LOWEST = torch.finfo(torch.float32).min


def _split(batch: dict) -> tuple[Any, dict]:
    """(the action mask, the batch with the bare observations as its OBS)."""
    obs = batch[Columns.OBS]
    return obs["action_mask"], {**batch, Columns.OBS: obs["observations"]}


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return torch.where(mask > 0.5, logits, torch.full_like(logits, LOWEST))


class MaskedPPOModule(DefaultPPOTorchRLModule):
    """RLlib's default PPO module on the `observations` part, with masked logits."""

    def __init__(self, *, observation_space=None, **kwargs) -> None:
        self.observation_space_with_mask = observation_space
        super().__init__(observation_space=observation_space["observations"], **kwargs)

    def setup(self) -> None:
        super().setup()
        self.observation_space = self.observation_space_with_mask

    def _masked(self, forward, batch: dict, **kwargs) -> dict:
        mask, bare = _split(batch)
        out = forward(bare, **kwargs)
        out[Columns.ACTION_DIST_INPUTS] = masked_logits(out[Columns.ACTION_DIST_INPUTS], mask)
        return out

    def _forward_inference(self, batch: dict, **kwargs) -> dict:
        return self._masked(super()._forward_inference, batch, **kwargs)

    def _forward_exploration(self, batch: dict, **kwargs) -> dict:
        return self._masked(super()._forward_exploration, batch, **kwargs)

    def _forward_train(self, batch: dict, **kwargs) -> dict:
        return self._masked(super()._forward_train, batch, **kwargs)

    def compute_values(self, batch: dict, embeddings=None):
        obs = batch[Columns.OBS]
        if isinstance(obs, dict):
            batch = {**batch, Columns.OBS: obs["observations"]}
        return super().compute_values(batch, embeddings)


class AgentModule(RLModule):
    """One of the project's agents in one setting (`model_config`: `{"env_id", "config",
    "spec", "seed", "padded"}`) as a module that is never trained: it acts on the
    observation and mask it is given. A scripted agent reads its setting's own observations,
    so with `padded` it takes them back out of the padded ones (the env pads them for the
    learner); the policy mapping seats it in its setting only."""

    def setup(self) -> None:
        cfg = self.model_config
        config = cfg.get("config", {})
        self.agent = make_agent(cfg["spec"], cfg["env_id"], seed=cfg.get("seed"), **config)
        game = make_game(cfg["env_id"], **config)
        self.index = Padding(game).index if cfg.get("padded") else None

    def _forward(self, batch: dict, **kwargs) -> dict:
        obs = batch[Columns.OBS]
        observations = np.asarray(obs["observations"], dtype=np.float32)
        if self.index is not None:
            observations = observations[:, self.index]
        masks = np.asarray(obs["action_mask"]) > 0.5
        actions = self.agent.act_batch(observations, masks.astype(np.int8))
        return {Columns.ACTIONS: np.asarray(actions, dtype=np.int64)}

    def _forward_train(self, batch: dict, **kwargs) -> dict:
        raise NotImplementedError(f"{self.model_config['spec']} is not trained")

"""`rllib:PATH`: a policy trained with `card-envs train --backend rllib`, as an agent.

PATH is the module directory the run writes (`<out>/rllib_module`, an RLModule checkpoint
of the learner). The agent plays the most likely legal action of the module's masked
policy.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from agents.base import Agent
from card_envs.registry import make_game


class RLModuleAgent(Agent):
    """Acts with a masked RLlib module (`training.rllib.modules.MaskedPPOModule`): the
    argmax of its masked logits."""

    def __init__(self, module) -> None:
        self.module = module

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        import torch
        from ray.rllib.core.columns import Columns

        batch = {Columns.OBS: {
            "observations": torch.as_tensor(np.asarray(observations, dtype=np.float32)),
            "action_mask": torch.as_tensor(np.asarray(masks, dtype=np.float32)),
        }}  # fmt: skip
        with torch.no_grad():
            logits = self.module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
        return logits.argmax(-1).numpy().astype(np.int64)


def load_module(path: str | os.PathLike):
    """The RLModule saved at `path`, with a clear error when it is not one."""
    p = Path(path).expanduser()
    if not p.is_dir():
        raise ValueError(f"rllib:{path}: no such module directory (a run's rllib_module/)")
    try:
        from ray.rllib.core.rl_module.rl_module import RLModule
    except ImportError as err:
        raise ImportError("rllib agents need Ray RLlib: pip install 'card_envs[rllib]'") from err
    try:
        return RLModule.from_checkpoint(p)
    except Exception as err:  # RLlib raises many kinds; say which directory and why
        raise ValueError(f"rllib:{path}: not an RLlib module checkpoint ({err})") from err


def make_rllib_agent(spec: str, env_id: str, config: dict) -> RLModuleAgent:
    _, _, path = spec.partition(":")
    if not path:
        raise ValueError("spec 'rllib:' needs the module directory, e.g. rllib:runs/x/rllib_module")
    game = make_game(env_id, **config)
    module = load_module(path)
    size = module.observation_space["observations"].shape[0]
    if size != game.obs_size:
        raise ValueError(
            f"rllib:{path} was trained on observations of size {size}, but {env_id} with "
            f"this config has {game.obs_size}: wrong env or config"
        )
    agent = RLModuleAgent(module)
    agent.spec, agent.name = spec, f"rllib:{Path(path).parent.name or path}"
    return agent

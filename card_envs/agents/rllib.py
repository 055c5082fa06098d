"""`rllib:PATH`: a policy trained with `card-envs train --backend rllib`, as an agent.

PATH is the module directory the run writes (`<out>/rllib_module`, an RLModule checkpoint
of the learner). The agent plays the most likely legal action of the module's masked
policy. The run writes `card_envs.json` into that directory too: the env and the settings
the module was trained on (one, or every combination of a `mix`) and whether it reads
padded observations (`card_envs.core.padding`); the agent plays exactly those settings,
padding the observations when the module reads them padded, and refuses any other config
with an error naming the ones it plays. A module directory without that file (written
before mixes trained on this backend) plays the config whose observation size it reads.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from card_envs.agents.base import Agent
from card_envs.core.padding import Padding
from card_envs.registry import make_game

INFO = "card_envs.json"


class RLModuleAgent(Agent):
    """Acts with a masked RLlib module (`card_envs.training.rllib.modules.MaskedPPOModule`): the
    argmax of its masked logits; with `padding`, the module reads padded observations and
    the agent pads the env's before asking it."""

    def __init__(self, module, padding: Padding | None = None) -> None:
        self.module = module
        self.padding = padding

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        import torch
        from ray.rllib.core.columns import Columns

        obs = np.asarray(observations, dtype=np.float32)
        if self.padding is not None:
            obs = self.padding(obs)
        batch = {Columns.OBS: {
            "observations": torch.as_tensor(obs),
            "action_mask": torch.as_tensor(np.asarray(masks, dtype=np.float32)),
        }}  # fmt: skip
        with torch.no_grad():
            logits = self.module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
        return logits.argmax(-1).numpy().astype(np.int64)


def save_info(path: str | os.PathLike, env_id: str, settings: list[dict], padded: bool) -> None:
    """Write what the module at `path` plays (read back by `make_rllib_agent`)."""
    configs = [make_game(env_id, **s).config for s in settings]
    info = {"env": env_id, "settings": configs, "padded": padded}
    (Path(path) / INFO).write_text(json.dumps(info, indent=2))


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


def _check_setting(path: str, info: dict[str, Any], env_id: str, config: dict) -> None:
    """Refuse an env or config the module was not trained on, naming what it plays."""
    if info["env"] != env_id:
        raise ValueError(f"rllib:{path} was trained on {info['env']}, not {env_id}")
    settings = info["settings"]
    config = json.loads(json.dumps(config))  # as the file holds it (tuples as lists)
    if config in settings:
        return
    varied: dict[str, list] = {}
    for key in settings[0]:
        values = []
        for setting in settings:
            if setting[key] not in values:
                values.append(setting[key])
        if len(values) > 1:
            varied[key] = values
    plays = [f"{k} in {v}" for k, v in varied.items()]
    plays += [f"{k}={v!r}" for k, v in settings[0].items() if k not in varied]
    wrong = {k: v for k, v in config.items() if all(s.get(k) != v for s in settings)}
    raise ValueError(
        f"rllib:{path} plays {env_id} with {', '.join(plays)}; not with "
        + ", ".join(f"{k}={v!r}" for k, v in (wrong or config).items())
    )


def make_rllib_agent(spec: str, env_id: str, config: dict) -> RLModuleAgent:
    _, _, path = spec.partition(":")
    if not path:
        raise ValueError("spec 'rllib:' needs the module directory, e.g. rllib:runs/x/rllib_module")
    game = make_game(env_id, **config)
    module = load_module(path)
    info_file = Path(path).expanduser() / INFO
    padded = False
    if info_file.exists():
        info = json.loads(info_file.read_text())
        _check_setting(path, info, env_id, game.config)
        padded = info["padded"]
    padding = Padding(game) if padded else None
    size = module.observation_space["observations"].shape[0]
    if size != (padding.size if padded else game.obs_size):
        raise ValueError(
            f"rllib:{path} was trained on observations of size {size}, but {env_id} with "
            f"this config has {game.obs_size}: wrong env or config"
        )
    agent = RLModuleAgent(module, padding)
    agent.spec, agent.name = spec, f"rllib:{Path(path).parent.name or path}"
    return agent

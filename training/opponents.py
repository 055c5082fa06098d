"""The opponents inside the training env: scripted agents plus frozen snapshots of the
learner (self-play), drawn per seat and per game by weight."""

from __future__ import annotations

from collections import deque
from pathlib import Path

from agents import Agent, make_agent
from agents.ppo import PolicyAgent, frozen_copy
from card_envs.core.padding import Padding
from card_envs.registry import make_game
from training.config import SELF, TrainConfig


class OpponentPool:
    """Scripted agents with fixed weights and up to `snapshots` frozen copies of the learner
    sharing the weight of `self` equally (newest replaces oldest), for each setting of the
    run (`TrainConfig.settings`: one, or one per combination of `mix`).

    Snapshots sample from their masked policy (not argmax), so the learner meets varied
    play; each has its own numpy generator per setting, seeded from the run's seed and its
    number. With a mix, a snapshot pads each setting's observations as the learner does.
    """

    def __init__(self, config: TrainConfig) -> None:
        self.config = config
        self.settings = config.settings
        self.scripted: list[list[tuple[Agent, float]]] = [[] for _ in self.settings]
        self.self_weight = 0.0
        for k, (spec, weight) in enumerate(config.pool):
            if spec == SELF:
                self.self_weight += weight
                continue
            seed = config.seed + 7919 * (k + 1)
            for part, setting in enumerate(self.settings):
                agent = make_agent(spec, config.env, seed + part, **setting)
                self.scripted[part].append((agent, weight))
        self.paddings = [
            Padding(make_game(config.env, **s)) if config.padded else None for s in self.settings
        ]
        # one agent per setting for each snapshot, all on the same frozen weights
        self.snapshots: deque[list[PolicyAgent]] = deque(maxlen=config.snapshots)
        self.taken = 0  # snapshots taken so far (seeds the next one)

    def add_snapshot(self, policy) -> None:
        """Freeze a copy of `policy` (the learner's, at this moment) into the pool."""
        frozen = frozen_copy(policy)
        self.taken += 1
        seed = self.config.seed * 1_000_003 + self.taken
        self.snapshots.append([
            PolicyAgent(frozen, seed=seed + 101 * part, deterministic=False, padding=padding)
            for part, padding in enumerate(self.paddings)
        ])  # fmt: skip

    def agents_and_weights(self, part: int = 0) -> tuple[list[Agent], list[float]]:
        """The pool of setting `part`."""
        agents = [a for a, _ in self.scripted[part]]
        weights = [w for _, w in self.scripted[part]]
        if self.self_weight > 0 and self.snapshots:
            share = self.self_weight / len(self.snapshots)
            agents += [snapshot[part] for snapshot in self.snapshots]
            weights += [share] * len(self.snapshots)
        return agents, weights

    def install(self, venv) -> None:
        """Make every part of `venv` (a `SingleAgentVecEnv` or `MixedVecEnv`, one part per
        setting) draw its opponents from this pool from the next game on."""
        for part, env in enumerate(venv.parts):
            env.driver.set_pool(*self.agents_and_weights(part))

    def save(self, path: Path) -> None:
        """The snapshots' weights (torch tensors only) and how many were taken."""
        import torch

        state = {
            "taken": self.taken,
            "policies": [snapshot[0].policy.state_dict() for snapshot in self.snapshots],
        }
        torch.save(state, path)

    def load(self, path: Path, policy) -> None:
        """Snapshots from `save`, rebuilt as copies of `policy` with the saved weights."""
        import torch

        state = torch.load(path, weights_only=True)
        self.snapshots.clear()
        for k, weights in enumerate(state["policies"]):
            self.taken = state["taken"] - len(state["policies"]) + k
            self.add_snapshot(policy)
            self.snapshots[-1][0].policy.load_state_dict(weights)  # shared by every setting
        self.taken = state["taken"]

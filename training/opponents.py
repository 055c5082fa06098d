"""The opponents inside the training env: scripted agents plus frozen snapshots of the
learner (self-play), drawn per seat and per game by weight."""

from __future__ import annotations

from collections import deque
from pathlib import Path

from agents import Agent, make_agent
from agents.ppo import PolicyAgent, frozen_copy
from card_envs.wrappers.learner import LearnerSeats
from training.config import SELF, TrainConfig


class OpponentPool:
    """Scripted agents with fixed weights and up to `snapshots` frozen copies of the learner
    sharing the weight of `self` equally (newest replaces oldest).

    Snapshots sample from their masked policy (not argmax), so the learner meets varied
    play; each has its own numpy generator, seeded from the run's seed and its number.
    """

    def __init__(self, config: TrainConfig) -> None:
        self.config = config
        self.scripted: list[tuple[Agent, float]] = []
        self.self_weight = 0.0
        for k, (spec, weight) in enumerate(config.pool):
            if spec == SELF:
                self.self_weight += weight
            else:
                seed = config.seed + 7919 * (k + 1)
                self.scripted.append((make_agent(spec, config.env, seed, **config.config), weight))
        self.snapshots: deque[PolicyAgent] = deque(maxlen=config.snapshots)
        self.taken = 0  # snapshots taken so far (seeds the next one)

    def add_snapshot(self, policy) -> None:
        """Freeze a copy of `policy` (the learner's, at this moment) into the pool."""
        frozen = frozen_copy(policy)
        self.taken += 1
        seed = self.config.seed * 1_000_003 + self.taken
        self.snapshots.append(PolicyAgent(frozen, seed=seed, deterministic=False))

    def agents_and_weights(self) -> tuple[list[Agent], list[float]]:
        agents = [a for a, _ in self.scripted]
        weights = [w for _, w in self.scripted]
        if self.self_weight > 0 and self.snapshots:
            share = self.self_weight / len(self.snapshots)
            agents += list(self.snapshots)
            weights += [share] * len(self.snapshots)
        return agents, weights

    def install(self, driver: LearnerSeats) -> None:
        """Make `driver` draw its opponents from this pool from the next game on."""
        driver.set_pool(*self.agents_and_weights())

    def save(self, path: Path) -> None:
        """The snapshots' weights (torch tensors only) and how many were taken."""
        import torch

        state = {"taken": self.taken, "policies": [a.policy.state_dict() for a in self.snapshots]}
        torch.save(state, path)

    def load(self, path: Path, policy) -> None:
        """Snapshots from `save`, rebuilt as copies of `policy` with the saved weights."""
        import torch

        state = torch.load(path, weights_only=True)
        self.snapshots.clear()
        for k, weights in enumerate(state["policies"]):
            self.taken = state["taken"] - len(state["policies"]) + k
            self.add_snapshot(policy)
            self.snapshots[-1].policy.load_state_dict(weights)
        self.taken = state["taken"]

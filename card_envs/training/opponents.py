"""The opponents inside the training env: scripted agents plus frozen snapshots of the
learner (self-play), drawn per seat and per game by weight.

How the snapshots share the weight of `self` is the config's `opponents.sampling`:
`uniform` (equal shares), or `pfsp`, prioritised fictitious self-play as in AlphaStar's
league: snapshot j gets a share proportional to f(x_j) = (1 - x_j)^2 (their "hard"
weighting), where x_j is the learner's win share in its last `PFSP_WINDOW` games with j at the
table, smoothed towards the fair share by `PFSP_PRIOR_GAMES` pseudo-games (so a new snapshot
starts as if the learner were even with it). Snapshots the learner loses to come up more
often; one it always beats fades, but never to zero while the learner's results are finite.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from card_envs.agents import Agent, make_agent
from card_envs.agents.ppo import PolicyAgent, frozen_copy
from card_envs.core.padding import Padding
from card_envs.registry import make_game
from card_envs.training.config import SELF, TrainConfig

PFSP_POWER = 2.0  # AlphaStar's f_hard(x) = (1 - x)^p with p = 2
PFSP_WINDOW = 1000  # the learner's latest games against a snapshot that count
PFSP_PRIOR_GAMES = 20  # pseudo-games at the fair share behind every snapshot's estimate


def pfsp_weights(results: Sequence[Sequence[float]], fair: float) -> np.ndarray:
    """Shares (summing to 1) of snapshots whose games ended with the learner's win shares
    `results[j]`, weighted (1 - x_j)^PFSP_POWER as the module doc says."""
    x = np.array(
        [(sum(r) + PFSP_PRIOR_GAMES * fair) / (len(r) + PFSP_PRIOR_GAMES) for r in results]
    )
    w = (1.0 - x) ** PFSP_POWER
    return w / w.sum() if w.sum() > 0 else np.full(len(w), 1 / len(w))


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
        # pfsp: the learner's win shares in its latest games against each snapshot
        self.results: deque[deque[float]] = deque(maxlen=config.snapshots)
        self._snapshot_of: dict[str, deque[float]] = {}  # spec -> that snapshot's results

    def add_snapshot(self, policy) -> None:
        """Freeze a copy of `policy` (the learner's, at this moment) into the pool."""
        frozen = frozen_copy(policy)
        self.taken += 1
        seed = self.config.seed * 1_000_003 + self.taken
        agents = [
            PolicyAgent(frozen, seed=seed + 101 * part, deterministic=False, padding=padding)
            for part, padding in enumerate(self.paddings)
        ]
        for agent in agents:  # the name the env reports it by (info["opponents"])
            agent.name = agent.spec = f"self@{self.taken}"
        if len(self.snapshots) == self.snapshots.maxlen:  # the oldest leaves
            del self._snapshot_of[self.snapshots[0][0].spec]
        self.snapshots.append(agents)
        self.results.append(deque(maxlen=PFSP_WINDOW))
        self._snapshot_of[agents[0].spec] = self.results[-1]

    def record(self, opponents: Sequence[str], win: float) -> None:
        """A finished game of the learner's (its win share `win`) against the agents with
        specs `opponents`: each snapshot among them counts it once."""
        for spec in set(opponents) & set(self._snapshot_of):
            self._snapshot_of[spec].append(win)

    def snapshot_shares(self) -> np.ndarray:
        """The snapshots' shares of `self`'s weight, oldest first."""
        if self.config.sampling == "pfsp":
            return pfsp_weights(self.results, 1 / self.config.num_players)
        return np.full(len(self.snapshots), 1 / len(self.snapshots))

    def agents_and_weights(self, part: int = 0) -> tuple[list[Agent], list[float]]:
        """The pool of setting `part`."""
        agents = [a for a, _ in self.scripted[part]]
        weights = [w for _, w in self.scripted[part]]
        if self.self_weight > 0 and self.snapshots:
            agents += [snapshot[part] for snapshot in self.snapshots]
            weights += list(self.self_weight * self.snapshot_shares())
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
            "results": [list(r) for r in self.results],
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
            self.results[-1].extend(state.get("results", [[]] * len(state["policies"]))[k])
        self.taken = state["taken"]

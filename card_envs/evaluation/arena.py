"""The arena: games between agents played in batch, a fixed chunk of games at a time.

This is the one way games between agents are played in batch: `evaluate` (and the
benchmarks and training evaluations built on it) and the tournaments, in local processes or
on Ray, all play their games with `play_chunk`. A `Chunk` names everything its games depend
on (the game, the agents in each seat, the seeds), so a chunk plays the same games wherever
and whenever it is played; `GameBatch` holds what came out.

Seeds: a schedule's chunks and agents take their seeds from `derive_seed` (numpy's
SeedSequence), which depends only on where they are in the schedule. Game i of a chunk is
dealt exactly as an AEC env reset with seed `chunk.seed + i`, and field agent k is built with
seed `chunk.agent_seeds[k]`. Agent objects (rather than spec strings) are copied into each
chunk as they were given, for the same reason: whoever plays a chunk, its games are the same.

Agents are asked for actions in batches, for all the games of a chunk where they are to
act at once; `reset()` is called once per chunk, before its games start, so an agent that
keeps state between its moves keeps it per game: one with `wants_games` gets each row's
game id, the seed it was dealt from (unique within a chunk, and the key to replay it).
Agents that search the game (`wants_rows`) get the instances' state rows
(`Agent.act_positions`). Each agent's wall time per decision is measured
(`GameBatch.think`: a batch call's time shared evenly among its positions; measured on
whatever else the machine runs, so a cost to compare, not a constant).
"""

from __future__ import annotations

import copy
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from card_envs.agents import Agent, make_agent
from card_envs.agents.base import policy_entry
from card_envs.agents.specs import AgentSpec
from card_envs.core.batched import SKIP
from card_envs.registry import make_vec


def check_seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed!r}")
    return int(seed)


def derive_seed(seed: int, *key: int) -> int:
    """A 62-bit seed from (seed, *key) through numpy's SeedSequence: chunks and agents get
    independent streams that depend only on where they are in the schedule."""
    words = np.random.SeedSequence([check_seed(seed), *map(int, key)]).generate_state(2)
    return (int(words[1]) & 0x3FFFFFFF) << 32 | int(words[0])


@dataclass
class GameBatch:
    """Finished games, one row per game, in the order they were scheduled.

    Game g was dealt exactly as an AEC env `reset(seed=seeds[g])` deals; `actions[g]`, when
    recorded, are its actions in order (replaying them reproduces the game).
    """

    agent_of_seat: np.ndarray  # (games, num_players) field index of the agent in each seat
    rewards: np.ndarray  # (games, num_players) total reward of each seat
    scores: np.ndarray  # (games, num_players) final game score of each seat
    win_share: np.ndarray  # (games, num_players) 1/k for each of k tied winners, else 0
    lengths: np.ndarray  # (games,) actions taken
    truncated: np.ndarray  # (games,) whether the game was cut short by a cap
    seeds: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    actions: list[list[int]] | None = None
    # (games, num_players), when measured: each seat's decisions and the seconds its agent
    # spent choosing them (a batch call's time shared evenly among its positions)
    moves: np.ndarray | None = None
    think: np.ndarray | None = None
    # per game, when recorded: each decision's policy (`card_envs.agents.base.policy_entry`;
    # None for an agent without one), in the order of `actions`
    policy: list[list[dict | None]] | None = None

    @staticmethod
    def concat(batches: Sequence[GameBatch]) -> GameBatch:
        def joined(name: str):
            parts = [getattr(b, name) for b in batches]
            if not parts or any(p is None for p in parts):
                return None
            if name in ("actions", "policy"):
                return [a for p in parts for a in p]
            return np.concatenate(parts)

        return GameBatch(
            *(np.concatenate([getattr(b, name) for b in batches]) for name in _ARRAYS),
            seeds=np.concatenate([b.seeds for b in batches]),
            actions=joined("actions"),
            moves=joined("moves"),
            think=joined("think"),
            policy=joined("policy"),
        )


_ARRAYS = ("agent_of_seat", "rewards", "scores", "win_share", "lengths", "truncated")


@dataclass
class Chunk:
    """A fixed piece of a schedule: the games one worker plays in one batched env.

    `agents` is the field (specs or Agent objects); `agent_of_seat[i]` names, for game i, the
    field index in each seat. Game i is dealt from `seeds[i]`, or `seed + i` without them;
    field agent k is built with seed `agent_seeds[k]`. `key` is the caller's label, handed
    back untouched.
    """

    env_id: str
    config: dict
    agents: tuple
    agent_of_seat: np.ndarray
    seed: int
    agent_seeds: tuple[int, ...]
    record: bool = False
    key: Any = None
    starts: tuple[dict, ...] | None = None  # game i starts from state dict starts[i]
    record_policy: bool = False  # with `record`: each decision's policy too
    seeds: tuple[int, ...] | None = None  # game i dealt from seeds[i] (default: seed + i)

    @property
    def num_games(self) -> int:
        return len(self.agent_of_seat)


def _build_agent(spec: str | AgentSpec | Agent, env_id: str, seed: int, config: dict) -> Agent:
    if isinstance(spec, Agent):
        return copy.deepcopy(spec)  # each chunk starts from the agent as it was given
    return make_agent(spec, env_id, seed=seed, **config)


def agent_label(agent: str | AgentSpec | Agent) -> str:
    """How an agent of a field is named in messages and tables: its spec, or its name."""
    if isinstance(agent, str):
        return agent
    if isinstance(agent, AgentSpec):
        return agent.text
    return getattr(agent, "name", type(agent).__name__)


def _illegal(chunk: Chunk, k: int, chosen: np.ndarray, masks: np.ndarray) -> None:
    for action, mask in zip(chosen.tolist(), masks, strict=True):
        if not 0 <= action < len(mask) or not mask[action]:
            raise ValueError(
                f"{chunk.env_id}: agent {agent_label(chunk.agents[k])!r} chose illegal "
                f"action {action}; legal actions were {np.flatnonzero(mask).tolist()}"
            )


def play_chunk(chunk: Chunk) -> GameBatch:
    """Play the chunk's games, each instance of one batched env playing exactly one game;
    every agent is asked once per engine step for all games where it is to act."""
    seats = np.asarray(chunk.agent_of_seat, dtype=np.int64)
    m, n = seats.shape
    venv = make_vec(chunk.env_id, m, **chunk.config)
    if venv.num_players != n:
        raise ValueError(f"{chunk.env_id} has {venv.num_players} seats, the chunk names {n}")
    used = sorted(set(np.unique(seats).tolist()))
    agents: dict[int, Agent] = {
        k: _build_agent(chunk.agents[k], chunk.env_id, chunk.agent_seeds[k], chunk.config)
        for k in used
    }
    for agent in agents.values():
        agent.reset()
    rewards = np.zeros((m, n))
    scores = np.zeros((m, n))
    wins = np.zeros((m, n))
    lengths = np.zeros(m, dtype=np.int64)
    moves = np.zeros((m, n), dtype=np.int64)
    think = np.zeros((m, n))
    truncated = np.zeros(m, dtype=bool)
    done = np.zeros(m, dtype=bool)
    actions = np.full(m, SKIP, dtype=np.int64)
    rows = np.arange(m)
    # each game's seed, which is its id for agents that keep state per game
    ids = chunk.seed + rows if chunk.seeds is None else np.array(chunk.seeds, dtype=np.int64)
    log: list[np.ndarray] = []
    policies = [[] for _ in range(m)] if chunk.record and chunk.record_policy else None
    num_actions = venv.num_actions
    obs, masks = venv.reset(seed=chunk.seed if chunk.seeds is None else chunk.seeds)
    for i, state in enumerate(chunk.starts or ()):  # its chance to come: seeded as the deal
        venv.set_state(i, state, seed=int(ids[i]))
    while not done.all():
        who = np.where(done, -1, seats[rows, venv.current_player])  # field index to act
        actions[:] = SKIP
        for k, agent in agents.items():
            hit = who == k
            if not hit.any():
                continue
            sel = hit.nonzero()[0]
            t0 = time.perf_counter()
            if policies is None:
                chosen = agent.act_positions(obs[sel], masks[sel], venv.states[sel], ids[sel])
            else:
                chosen, probs, values = agent.act_with_policy(
                    obs[sel], masks[sel], venv.states[sel], ids[sel]
                )
                for j, i in enumerate(sel.tolist()):
                    policies[i].append(
                        None if probs is None else policy_entry(probs[j], values[j], chosen[j])
                    )
            chosen = np.asarray(chosen, dtype=np.int64)
            seat = venv.current_player[sel]
            moves[sel, seat] += 1
            think[sel, seat] += (time.perf_counter() - t0) / len(sel)
            if chosen.shape != sel.shape:
                raise ValueError(
                    f"agent {agent_label(chunk.agents[k])!r} returned {chosen.shape} "
                    f"actions for {len(sel)} observations"
                )
            if chosen.min() < 0 or chosen.max() >= num_actions or not masks[sel, chosen].all():
                _illegal(chunk, k, chosen, masks[sel])
            actions[sel] = chosen
        if chunk.record:
            log.append(actions.copy())
        active = who >= 0
        _, _, rew, term, trunc = venv.step(actions)
        rewards += rew
        lengths += active
        ended = (term | trunc) & active
        if ended.any():
            idx = ended.nonzero()[0]
            scores[idx] = venv.final_scores[idx]
            wins[idx] = venv.final_wins[idx]
            truncated[idx] = trunc[idx]
            done[idx] = True
        obs, masks = venv.observations, venv.action_masks
    recorded = None
    if chunk.record:
        table = np.stack(log) if log else np.zeros((0, m), dtype=np.int64)
        recorded = [table[: lengths[i], i].tolist() for i in range(m)]
    return GameBatch(
        seats.copy(),
        rewards,
        scores,
        wins,
        lengths,
        truncated,
        seeds=ids.astype(np.int64),
        actions=recorded,
        moves=moves,
        think=think,
        policy=policies,
    )

"""The decisions of one batched env's rollout, credited per seat, and their advantages.

Every seat of a game keeps its own chain of decisions: a reward that reaches a seat (on
anybody's step) goes to that seat's latest decision in the game, or, before its first, to
the first when it comes. A seat's last decision of a game is its `done`: its next value is
0 when the game ended, or the value of the seat's final observation when it was cut off
(truncated). A decision whose game still runs when the rollout ends is *open*: it has no
next decision yet. It trains in the next rollout instead (it is carried over, with the
rewards it has gathered so far), and the decision before it in its chain bootstraps from
its value, the value of that seat's next own decision: on the states the critic learns,
with nothing stepped twice and nothing thrown away. GAE then runs along each chain
(`seat_gae`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from card_envs.core.jit import njit


@njit(cache=True)
def seat_gae(values, rewards, nxt, done, boot, is_open, gamma, lam, adv):  # pragma: no cover
    """GAE(gamma, lambda) of every decision along its seat's chain (`nxt`: the index of the
    seat's next decision, always a later one); open decisions get 0 and are no samples."""
    for k in range(len(values) - 1, -1, -1):
        if is_open[k]:
            adv[k] = 0.0
        elif done[k]:
            adv[k] = rewards[k] + gamma * boot[k] - values[k]
        else:
            j = nxt[k]
            adv[k] = rewards[k] + gamma * values[j] - values[k] + gamma * lam * adv[j]


@dataclass
class Samples:
    """Closed decisions, as the PPO update reads them."""

    observations: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    log_probs: np.ndarray
    advantages: np.ndarray
    returns: np.ndarray
    values: np.ndarray

    @classmethod
    def concatenate(cls, parts: list[Samples]) -> Samples:
        fields = cls.__dataclass_fields__
        return cls(**{k: np.concatenate([getattr(p, k) for p in parts]) for k in fields})

    def __len__(self) -> int:
        return len(self.actions)


class SeatRollout:
    """The learner's decisions in the games of one batched env of `num_envs` rows and
    `num_players` seats, over rollouts of `steps` steps (with the open decisions carried
    from the rollout before), each decision credited as the module doc says."""

    def __init__(self, num_envs: int, num_players: int, width: int, num_actions: int, steps: int):
        cap = num_envs * (steps + num_players)  # carried (one per row and seat) + the steps'
        self.observations = np.zeros((cap, width), dtype=np.float32)
        self.masks = np.zeros((cap, num_actions), dtype=bool)
        self.actions = np.zeros(cap, dtype=np.int64)
        self.log_probs = np.zeros(cap, dtype=np.float32)
        self.values = np.zeros(cap, dtype=np.float32)
        self.rewards = np.zeros(cap, dtype=np.float32)
        self.next = np.full(cap, -1, dtype=np.int64)
        self.done = np.zeros(cap, dtype=bool)
        self.boot = np.zeros(cap, dtype=np.float32)  # next value after the seat's last decision
        self.size = 0
        self.last = np.full((num_envs, num_players), -1, dtype=np.int64)  # latest decision
        self.early = np.zeros((num_envs, num_players), dtype=np.float32)  # before the first

    def add(self, rows, seats, observations, masks, actions, log_probs, values) -> None:
        """Decisions of the seats `seats` to act in rows `rows`, one per row."""
        k = len(rows)
        ids = np.arange(self.size, self.size + k)
        sl = slice(self.size, self.size + k)
        self.observations[sl] = observations
        self.masks[sl] = masks
        self.actions[sl] = actions
        self.log_probs[sl] = log_probs
        self.values[sl] = values
        self.next[sl] = -1
        self.done[sl] = False
        self.boot[sl] = 0.0
        prev = self.last[rows, seats]
        linked = prev >= 0
        self.next[prev[linked]] = ids[linked]
        first = ~linked
        self.rewards[sl] = np.where(first, self.early[rows, seats], 0.0)
        self.early[rows[first], seats[first]] = 0.0
        self.last[rows, seats] = ids
        self.size += k

    def credit(self, rewards: np.ndarray) -> None:
        """One step's rewards, shape (num_envs, num_players), each to its seat's latest
        decision (before that seat's first decision of the game: to the first, later)."""
        has = self.last >= 0
        self.rewards[self.last[has]] += rewards[has]
        self.early[~has] += rewards[~has]

    def seats_to_close(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(rows, seats) of the games in `rows` (just ended) that hold a decision."""
        r, s = np.nonzero(self.last[rows] >= 0)
        return rows[r], s

    def end_games(self, rows: np.ndarray, boot: np.ndarray | None = None) -> None:
        """The games of `rows` ended: each seat's latest decision is its last (done), with
        next value `boot` (one per pair of `seats_to_close(rows)`, in its order) where given
        (a truncated game), else 0."""
        r, s = self.seats_to_close(rows)
        ids = self.last[r, s]
        self.done[ids] = True
        if boot is not None:
            self.boot[ids] = boot
        self.last[rows] = -1
        self.early[rows] = 0.0

    def finish(self, gamma: float, lam: float) -> Samples:
        """The rollout's closed decisions with their advantages and returns; the open ones
        move to the front, to train in the next rollout."""
        n = self.size
        is_open = np.zeros(n, dtype=bool)
        held = self.last[self.last >= 0]
        is_open[held] = True
        adv = np.zeros(n, dtype=np.float32)
        seat_gae(self.values[:n], self.rewards[:n], self.next[:n], self.done[:n],
                 self.boot[:n], is_open, np.float32(gamma), np.float32(lam), adv)  # fmt: skip
        closed = np.flatnonzero(~is_open)
        out = Samples(
            self.observations[closed], self.masks[closed], self.actions[closed],
            self.log_probs[closed], adv[closed], adv[closed] + self.values[closed],
            self.values[closed].copy(),
        )  # fmt: skip
        self._carry(np.sort(held))
        return out

    def _carry(self, held: np.ndarray) -> None:
        """Open decisions `held` (sorted) become decisions 0.. of the next rollout."""
        k = len(held)
        for arr in (self.observations, self.masks, self.actions, self.log_probs, self.values,
                    self.rewards):  # fmt: skip
            arr[:k] = arr[held]
        self.done[:k] = False  # (their `next` is written when their successor comes)
        self.boot[:k] = 0.0
        where = np.full(max(self.size, 1), -1, dtype=np.int64)
        where[held] = np.arange(k)
        has = self.last >= 0
        self.last[has] = where[self.last[has]]
        self.size = k

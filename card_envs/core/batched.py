"""The batched face: N game instances in one 2-D state array, stepped by one compiled call.

`reset_all` and `step_all` are the one loop every game uses; a game binds its kernels to them
in tiny cached wrappers (`batch_reset(buffers)`, `batch_step(buffers, actions)`), so the
calls are direct and inlined and a call from Python costs about a microsecond. Observations
and masks are those of the seat to act next; finished instances are reset at once
(auto-reset), continuing their own PRNG stream.

With `num_threads=T` above 1 a step goes to the game's third wrapper,
`batch_step_threads(buffers, actions)` (`parallel=True`): `step_threads` deals the rows in
blocks to T of numba's threads (`prange`). The rows share nothing (each has
its PRNG, and the kernels allocate their scratch per call), so every T plays the same games.
Only T > 1 touches numba's threading layer: one-thread envs stay safe to fork.

The generic loops take kernels as arguments, so they are not cached themselves: numba's cache
index of such a function holds an entry per set of kernels it ever saw, and saving a new one
fails ("underlying object has vanished") once an entry names kernels that do not exist in the
process (a game registered by another script, or edited since). They are inlined into each
game's cached wrappers instead (`inline="always"`), so a warm start still compiles nothing, and
a cold one compiles one library less per wrapper (seconds for Rummidrez, whose every library
holds a copy of its solver).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numba
import numpy as np
from numba import prange

from card_envs.core import layout
from card_envs.core.engine import Game
from card_envs.core.jit import njit, package_of, settle
from card_envs.core.prefetch import HINT_FAR, HINT_NEAR
from card_envs.core.rng import seed_row
from card_envs.core.threads import resolve_threads

BLOCK_ROWS = 64  # rows a thread takes at a time in a threaded step (`step_threads`)
SKIP = -1  # action that leaves an instance untouched this step (e.g. it waits for a learner)


@njit(inline="always")  # not cached, inlined: see the module docstring
def reset_all(buffers, reset_fn, observe_fn, legal_fn):
    """Deal a new game in every row (PRNGs already seeded) and observe the seat to act."""
    states, obs, masks, player = buffers[0], buffers[1], buffers[2], buffers[3]
    for i in range(states.shape[0]):
        row = states[i]
        reset_fn(row)
        p = row[layout.PLAYER]
        player[i] = p
        observe_fn(row, p, obs[i])
        legal_fn(row, masks[i])


@njit(inline="always")  # not cached, inlined: see the module docstring
def first_illegal(masks, actions):
    """The first row whose action is neither SKIP nor legal there, or -1."""
    num_actions = masks.shape[1]
    for i in range(masks.shape[0]):
        a = actions[i]
        if a != SKIP and (a < 0 or a >= num_actions or masks[i, a] == 0):
            return i
    return -1


@njit(inline="always")  # not cached, inlined: see the module docstring
def step_rows(
    buffers, actions, lo, hi, reset_fn, step_fn, observe_fn, legal_fn, outcome_fn, hint_fn
):
    """Step rows lo..hi-1 whose action is not SKIP. `hint_fn` names the lines of the rows
    ahead that their steps will read (see `core.prefetch`)."""
    states, obs, masks, player, rewards, terminated, truncated = buffers[:7]
    final_obs, final_scores, final_wins = buffers[7:]
    for i in range(lo, hi):
        if i + HINT_FAR < hi:
            hint_fn(states[i + HINT_FAR], False)
        if i + HINT_NEAR < hi:
            hint_fn(states[i + HINT_NEAR], True)
        rewards[i, :] = 0.0
        terminated[i] = False
        truncated[i] = False
        if actions[i] == SKIP:
            continue
        row = states[i]
        step_fn(row, actions[i], rewards[i])
        status = row[layout.STATUS]
        terminated[i] = status == layout.TERMINATED
        truncated[i] = status == layout.TRUNCATED
        if status != layout.RUNNING:
            for seat in range(rewards.shape[1]):
                observe_fn(row, seat, final_obs[i, seat])
            outcome_fn(row, final_scores[i], final_wins[i])
            reset_fn(row)
        p = row[layout.PLAYER]
        player[i] = p
        observe_fn(row, p, obs[i])
        legal_fn(row, masks[i])


@njit(inline="always")  # not cached, inlined: see the module docstring
def step_all(buffers, actions, reset_fn, step_fn, observe_fn, legal_fn, outcome_fn, hint_fn):
    """Step every row whose action is not SKIP; return the first row whose action is illegal
    (then nothing is stepped), or -1."""
    bad = first_illegal(buffers[2], actions)
    if bad < 0:
        step_rows(
            buffers,
            actions,
            0,
            actions.shape[0],
            reset_fn,
            step_fn,
            observe_fn,
            legal_fn,
            outcome_fn,
            hint_fn,
        )
    return bad


@njit(inline="always")  # inlined into a `parallel=True` wrapper of each game
def step_threads(buffers, actions, reset_fn, step_fn, observe_fn, legal_fn, outcome_fn, hint_fn):
    """`step_all` on numba's threads: the rows go in blocks of BLOCK_ROWS to whichever thread
    is free (a row's step can cost a thousand times another's: a Rummidrez turn that
    searches a full table), after the legality of every action was checked. The caller sets
    the thread count and a chunk size of 1 (`BatchedEnv.step`): set inside, they would make
    the kernel uncacheable (numba keeps ctypes pointers for them)."""
    bad = first_illegal(buffers[2], actions)
    if bad < 0:
        n = actions.shape[0]
        blocks = (n + BLOCK_ROWS - 1) // BLOCK_ROWS
        for b in prange(blocks):
            step_rows(
                buffers,
                actions,
                b * BLOCK_ROWS,
                min(n, (b + 1) * BLOCK_ROWS),
                reset_fn,
                step_fn,
                observe_fn,
                legal_fn,
                outcome_fn,
                hint_fn,
            )
    return bad


def _readonly(a: np.ndarray) -> np.ndarray:
    view = a.view()
    view.flags.writeable = False
    return view


class BatchedEnv:
    """`num_envs` instances of one game, stepped together.

    Returned arrays are read-only views of buffers that the next `step` overwrites: copy
    what you keep. Instance i is seeded with `seed + i`, so it plays the same games as an
    AEC env reset with that seed (and then reset without a seed after each game).
    `num_threads` (1..usable cores, None: all; `core.threads`) steps the rows on that many
    threads, with the same results.
    """

    # derived from the buffers and the game: a copy rebuilds them instead of copying them apart
    _DERIVED = (
        "observations",
        "action_masks",
        "current_player",
        "final_observations",
        "final_scores",
        "final_wins",
        "_views",
        "_buffers",
        "_batch_reset",
        "_batch_step",
        "_batch_step_threads",
    )

    def __init__(
        self, game: Game, num_envs: int, seed: int | None = None, num_threads: int | None = 1
    ) -> None:
        if (
            isinstance(num_envs, bool)
            or not isinstance(num_envs, (int, np.integer))
            or num_envs < 1
        ):
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
        self.game = game
        self.env_id = game.env_id
        self.num_envs = int(num_envs)
        self.num_threads = resolve_threads(num_threads)
        self.num_players = game.num_players
        self.num_actions = game.num_actions
        self.obs_size = game.obs_size
        n, p = self.num_envs, self.num_players
        self.states = np.zeros((n, game.state_size), dtype=np.int64)
        for i in range(n):
            game.write_config(self.states[i])
        self._obs = np.zeros((n, game.obs_size), dtype=np.float32)
        self._masks = np.zeros((n, game.num_actions), dtype=np.int8)
        self._player = np.zeros(n, dtype=np.int64)
        self._rewards = np.zeros((n, p), dtype=np.float32)
        self._terminated = np.zeros(n, dtype=np.bool_)
        self._truncated = np.zeros(n, dtype=np.bool_)
        self._final_obs = np.zeros((n, p, game.obs_size), dtype=np.float32)
        self._final_scores = np.zeros((n, p), dtype=np.float64)
        self._final_wins = np.zeros((n, p), dtype=np.float64)
        self._seed = seed
        self._started = False
        self._bind()

    def _bind(self) -> None:
        """The read-only views of the buffers, the buffer tuple the kernels take, and the
        game's kernels."""
        self.observations = _readonly(self._obs)
        self.action_masks = _readonly(self._masks)
        self.current_player = _readonly(self._player)
        self.final_observations = _readonly(self._final_obs)
        self.final_scores = _readonly(self._final_scores)
        self.final_wins = _readonly(self._final_wins)
        self._views = (
            self.observations,
            self.action_masks,
            _readonly(self._rewards),
            _readonly(self._terminated),
            _readonly(self._truncated),
        )
        self._buffers = (
            self.states,
            self._obs,
            self._masks,
            self._player,
            self._rewards,
            self._terminated,
            self._truncated,
            self._final_obs,
            self._final_scores,
            self._final_wins,
        )
        self._batch_reset = type(self.game).batch_reset_kernel
        self._batch_step = type(self.game).batch_step_kernel
        self._batch_step_threads = type(self.game).batch_step_threads_kernel

    def __getstate__(self) -> dict:
        """Without the views and kernels: pickled or deep-copied, a view would become an array
        of its own that the kernels never update (stale observations and masks), and a kernel
        would be pickled by value and compiled again."""
        return {k: v for k, v in self.__dict__.items() if k not in self._DERIVED}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._bind()

    def reset(self, seed: int | Sequence[int] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """New game everywhere. A seed (here or at construction) seeds instance i with seed+i,
        a sequence of `num_envs` seeds instance i with seeds[i]; without one, each instance
        continues its own random stream (entropy the first time)."""
        seed = self._seed if seed is None else seed
        self._seed = None
        if seed is None and not self._started:
            seed = int(np.random.SeedSequence().entropy % (1 << 63))
        if seed is not None:
            if isinstance(seed, (int, np.integer)):
                seeds = [int(seed) + i for i in range(self.num_envs)]
            else:
                seeds = [int(s) for s in seed]
                if len(seeds) != self.num_envs:
                    raise ValueError(f"reset: {len(seeds)} seeds for {self.num_envs} instances")
            for i, s in enumerate(seeds):
                seed_row(self.states[i], s)
        self._batch_reset(self._buffers)
        self._started = True
        return self.observations, self.action_masks

    def state_dict(self, i: int) -> dict:
        """Instance `i`'s full state (`Game.state_dict`)."""
        return self.game.state_dict(self.states[self._instance(i)])

    def set_state(self, i: int, state: dict, seed: int | None = None) -> None:
        """Continue instance `i` from the position `state`, checked as `Game.load_state_dict`
        says (without an `rng` key, its chance to come is seeded from `seed`). Instances
        always hold running games (a finished one is dealt anew at once), so a finished
        position is refused."""
        i = self._instance(i)
        if not self._started:
            raise RuntimeError(f"{self.env_id}: call reset() before set_state()")
        row = self.game.load_state_dict(state, seed)
        if row[layout.STATUS] != layout.RUNNING:
            raise ValueError(
                f"{self.env_id}: instance {i}: the position is finished ({state['status']}); "
                "batched instances hold running games"
            )
        self.states[i] = row
        kernels = type(self.game)
        self._player[i] = row[layout.PLAYER]
        kernels.observe_kernel(self.states[i], self._player[i], self._obs[i])
        kernels.legal_kernel(self.states[i], self._masks[i])

    def _instance(self, i: Any) -> int:
        if (
            isinstance(i, bool)
            or not isinstance(i, (int, np.integer))
            or not 0 <= i < self.num_envs
        ):
            raise ValueError(f"{self.env_id}: instance {i!r} is not in 0..{self.num_envs - 1}")
        return int(i)

    def step(self, actions: Any) -> tuple[np.ndarray, ...]:
        """Apply one action per instance: (observations, action_masks, rewards, terminations,
        truncations). An action of SKIP (-1) leaves that instance as it is, with zero rewards.
        Rewards have shape (num_envs, num_players); an instance marked
        terminated or truncated has already been reset, and its last observation of every
        seat is in `final_observations`, its scores in `final_scores` and each seat's share
        of the win in `final_wins`."""
        if not self._started:
            raise RuntimeError(f"{self.env_id}: call reset() before step()")
        given = np.asarray(actions)
        if given.shape != (self.num_envs,):
            raise ValueError(
                f"{self.env_id}: actions must have shape ({self.num_envs},), got {given.shape}"
            )
        if given.dtype.kind not in "iu":
            raise ValueError(f"{self.env_id}: actions must be integers, got dtype {given.dtype}")
        acts = np.ascontiguousarray(given, dtype=np.int64)
        if self.num_threads == 1:
            bad = self._batch_step(self._buffers, acts)
        else:  # both settings are per calling thread: set them each time
            # numba's threads must not wait for a boundary's build (core.jit)
            settle(package_of(type(self.game).__module__))
            numba.set_num_threads(self.num_threads)
            chunksize = numba.set_parallel_chunksize(1)  # deal the blocks one at a time
            try:
                bad = self._batch_step_threads(self._buffers, acts)
            finally:
                numba.set_parallel_chunksize(chunksize)
        if bad >= 0:
            legal = np.flatnonzero(self._masks[bad]).tolist()
            raise ValueError(
                f"{self.env_id}: illegal action {int(acts[bad])} in instance {bad} "
                f"(seat {int(self._player[bad])}); legal actions there are {legal}"
            )
        return self._views

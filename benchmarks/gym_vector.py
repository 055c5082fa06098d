"""The `gymnasium.make_vec` loop of the throughput benchmark (its "Gymnasium vector envs"
table): the native vector env over the batched engine (`card_envs.wrappers.gym_vector`) and
Gymnasium's `SyncVectorEnv` of one-instance envs, driven alike.

A runner steps `gymnasium.make_vec(id, num_envs=rows, opponents=...)` (its default mode, or
`vectorization_mode="sync"`) with NEXT_STEP autoreset, a random legal action per row from
`info["action_mask"]` (its time counts: a loop needs it), the opponents' moves inside the
step. It counts the rows' decisions: a row's reset step, the one after its game ended, is
timed but not counted.
"""

from __future__ import annotations

from time import perf_counter

import gymnasium
import numpy as np

from benchmarks.peers import NO_LIMIT, Measured, Runner
from card_envs.registry import gym_id


def legal_actions(rng: np.random.Generator, info: dict, rows: int) -> np.ndarray:
    """A random legal action per row (0 where the row has no mask: its reset step)."""
    masks = info.get("action_mask")
    if masks is None:
        return np.zeros(rows, dtype=np.int64)
    scores = rng.random(masks.shape) * masks
    return scores.argmax(axis=1)


def vector_runner(env_id: str, rows: int, seed: int, opponents: str, sync: bool) -> Runner:
    """`run(seconds, max_steps) -> (decisions, finished games, elapsed)` over one
    `make_vec` env of `rows` rows."""
    mode = {"vectorization_mode": "sync"} if sync else {}
    env = gymnasium.make_vec(gym_id(env_id), rows, opponents=opponents, **mode)
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    state = {"info": info, "ended": np.zeros(rows, dtype=bool)}

    def run(seconds: float, max_steps: int = NO_LIMIT) -> Measured:
        steps = episodes = 0
        info, ended = state["info"], state["ended"]
        start = perf_counter()
        while perf_counter() - start < seconds and steps < max_steps:
            _, _, term, trunc, info = env.step(legal_actions(rng, info, rows))
            steps += rows - int(ended.sum())  # a row that ended last step only reset now
            ended = term | trunc
            episodes += int(ended.sum())
        elapsed = perf_counter() - start
        state["info"], state["ended"] = info, ended
        return steps, episodes, elapsed

    return run

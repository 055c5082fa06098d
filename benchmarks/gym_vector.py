"""`gymnasium.make_vec` on every learner view: the native vector env (the batched engine,
`card_envs.wrappers.gym_vector`) beside Gymnasium's `SyncVectorEnv` of one-instance envs.

    python -m benchmarks.gym_vector [--num-envs 8 64 512] [--seconds 3] [--opponents random]
                                    [--out docs/figures/gym_vector.md]

For each multi-agent id at its default config and each row count: learner steps/s (rows x
steps / wall time) of `gymnasium.make_vec(id, num_envs=N, opponents=...)` in its default
mode and in `vectorization_mode="sync"`, one thread, NEXT_STEP autoreset in both, a random
legal action per row from `info["action_mask"]` (its time counts: a loop needs it), the
opponents' moves inside the step. The ratio is native / sync.
"""

from __future__ import annotations

import argparse
from time import perf_counter

import gymnasium
import numpy as np

from card_envs.registry import gym_id, multi_agent_env_ids
from card_envs.testing.report import command_line, printed, write_page

PROG = "python -m benchmarks.gym_vector"
ABOUT = (
    f"Written by `{PROG}` (see its docstring): learner steps/s of `gymnasium.make_vec` on "
    "each learner view, the native vector env over the batched engine beside Gymnasium's "
    "`SyncVectorEnv` of one-instance envs, one thread, random legal actions."
)


def legal_actions(rng: np.random.Generator, info: dict, rows: int) -> np.ndarray:
    """A random legal action per row (0 where the row has no mask: its reset step)."""
    masks = info.get("action_mask")
    if masks is None:
        return np.zeros(rows, dtype=np.int64)
    scores = rng.random(masks.shape) * masks
    return scores.argmax(axis=1)


def rate(env, rows: int, seconds: float) -> float:
    rng = np.random.default_rng(0)
    _, info = env.reset(seed=0)
    for _ in range(3):  # compile and warm
        _, _, _, _, info = env.step(legal_actions(rng, info, rows))
    steps, t0 = 0, perf_counter()
    while perf_counter() - t0 < seconds:
        _, _, _, _, info = env.step(legal_actions(rng, info, rows))
        steps += 1
    return rows * steps / (perf_counter() - t0)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    parser.add_argument("--num-envs", type=int, nargs="+", default=[8, 64, 512])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--opponents", default="random")
    parser.add_argument("--env", action="append", choices=multi_agent_env_ids())
    parser.add_argument("--out", metavar="PAGE", help="also write the table as a figures page")
    args = parser.parse_args(argv)
    with printed() as tables:
        print(f"\nOpponents: `{args.opponents}`, {args.seconds:g} s per cell.\n")
        print("| env id | rows | native steps/s | sync steps/s | native / sync |")
        print("|---|---:|---:|---:|---:|")
        for env_id in args.env or multi_agent_env_ids():
            for rows in args.num_envs:
                kw = {"opponents": args.opponents}
                native = gymnasium.make_vec(gym_id(env_id), rows, **kw)
                sync = gymnasium.make_vec(gym_id(env_id), rows, vectorization_mode="sync", **kw)
                a, b = rate(native, rows, args.seconds), rate(sync, rows, args.seconds)
                print(f"| {env_id} | {rows} | {a:,.0f} | {b:,.0f} | {a / b:.1f}x |", flush=True)
    if args.out:
        write_page(
            args.out, "Gymnasium vector envs", ABOUT, command_line(PROG, argv), tables.getvalue()
        )


if __name__ == "__main__":
    main()

"""Time to the first answer: a new process, each game's first step on a cold numba cache.

Every measurement is a fresh Python process (`python -c`), as a new user, a fresh CI run or a
new Ray worker starts. Per game:

- cold AEC: `card_envs.make(id)`, `reset`, one `step`, in a process whose `NUMBA_CACHE_DIR` is
  a new empty folder, timed from the interpreter's start of the script;
- built: the cold AEC process again, when every kernel its game may call is ready (a
  boundary kernel builds in a process of its own while the first one compiles the rest, and
  may finish after the first step: `core.jit.settle`);
- cold batched: the same with `card_envs.make_vec(id, 8)` in another new empty cache;
- warm: the cold AEC run again, on the cache it filled: its first step beyond the import;
- import: `import card_envs` in that warm process.

`--pin` runs each process on one core, `--busy` keeps the other cores busy meanwhile (a
spinning process on each), which is how a loaded 2-core machine sees it. The page has one
section per condition; a run replaces its own:

    python -m benchmarks.cold_start --out docs/figures/cold_start.md
    python -m benchmarks.cold_start --pin --busy --out docs/figures/cold_start.md
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from card_envs.registry import multi_agent_env_ids
from card_envs.testing.report import command_line, markdown, write_sections_page

GOALS = {"cold AEC": 10.0, "cold batched": 15.0, "warm": 0.5, "import": 1.0}  # seconds
COLUMNS = ["cold AEC", "built", "cold batched", "warm", "import"]

CHILD = """
import time
start = time.perf_counter()
import json, sys
import numpy as np
import card_envs
imported = time.perf_counter()
env_id, face = sys.argv[1], sys.argv[2]
if face == "aec":
    env = card_envs.make(env_id)
    env.reset(seed=0)
    mask = env.observe(env.agent_selection)["action_mask"]
    env.step(int(np.flatnonzero(mask)[0]))
else:
    venv = card_envs.make_vec(env_id, 8, seed=0)
    venv.reset()
    venv.step(np.array([int(np.flatnonzero(m)[0]) for m in venv.action_masks]))
done = time.perf_counter()
from card_envs.core.jit import settle
settle()
built = time.perf_counter()
print(json.dumps({
    "import": imported - start, "total": done - start, "step": done - imported,
    "built": built - start,
}))
"""


def _spin() -> None:
    while True:
        pass


def run_child(env_id: str, face: str, cache: str, core: int | None) -> dict[str, float]:
    """One fresh process's times (s): the import, the first step after it, and both."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    pin = (lambda: os.sched_setaffinity(0, {core})) if core is not None else None
    out = subprocess.run(
        [sys.executable, "-c", CHILD, env_id, face],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        preexec_fn=pin,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure(env_id: str, core: int | None, repeat: int = 1) -> dict[str, float]:
    """The figures of one game (`COLUMNS`), each from new processes: the median of `repeat`
    rounds (one cold start varies by a fifth or more on a shared machine)."""
    rounds = []
    for _ in range(repeat):
        with (
            tempfile.TemporaryDirectory() as aec_cache,
            tempfile.TemporaryDirectory() as vec_cache,
        ):
            cold = run_child(env_id, "aec", aec_cache, core)
            warm = run_child(env_id, "aec", aec_cache, core)
            batched = run_child(env_id, "batched", vec_cache, core)
        rounds.append({
            "cold AEC": cold["total"],
            "built": cold["built"],
            "cold batched": batched["total"],
            "warm": warm["step"],
            "import": warm["import"],
        })  # fmt: skip
    return {k: statistics.median(r[k] for r in rounds) for k in COLUMNS}


def condition(pin: bool, busy: bool) -> str:
    """The measuring condition: a page section's name, and the line under its header."""
    return ("Pinned to one core" if pin else "Any core") + (
        ", the others busy" if busy else ", nothing else running"
    )


def report(results: dict[str, dict[str, float]], conditions: str, repeat: int = 1) -> str:
    head = ["env", *(f"{k} (s)" for k in COLUMNS)]
    rows = [[env_id, *(f"{r[k]:.2f}" for k in COLUMNS)] for env_id, r in results.items()]
    goal_row = ["goal", *(f"<= {GOALS[k]:g}" if k in GOALS else "" for k in COLUMNS)]
    rounds = f"; each figure the median of {repeat} rounds" if repeat > 1 else ""
    lines = [
        f"- one process at a time; {conditions.lower()}{rounds}",
        "",
        markdown(head, [*rows, goal_row], [False] + [True] * len(COLUMNS)),
        "",
    ]
    for env_id, r in results.items():
        missed = [k for k, goal in GOALS.items() if r[k] > goal]
        verdict = "every goal met" if not missed else "MISSED: " + ", ".join(missed)
        lines.append(f"- {env_id}: {verdict}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--env", action="append", help="env id (repeatable; default all)")
    parser.add_argument("--pin", action="store_true", help="run each process on one core")
    parser.add_argument("--busy", action="store_true", help="keep the other cores busy")
    parser.add_argument("--out", metavar="PAGE", help="also write the report as a page")
    parser.add_argument(
        "--repeat", type=int, default=3, help="rounds per game; each figure their median"
    )
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error(f"--repeat {args.repeat}: give 1 or more")
    cores = sorted(os.sched_getaffinity(0))
    core = cores[0] if args.pin else None
    spinners = []
    if args.busy:
        for other in cores[1:]:
            p = multiprocessing.Process(target=_spin, daemon=True)
            p.start()
            os.sched_setaffinity(p.pid, {other})
            spinners.append(p)
    try:
        results = {}
        for env_id in args.env or multi_agent_env_ids():
            results[env_id] = measure(env_id, core, args.repeat)
            print(env_id, {k: round(v, 2) for k, v in results[env_id].items()}, flush=True)
    finally:
        for p in spinners:
            p.terminate()
    section = condition(args.pin, args.busy)
    body = report(results, section, args.repeat)
    print(body)
    if args.out:  # one section per condition: a run replaces its own
        write_sections_page(
            Path(args.out),
            "Time to the first answer",
            "Written by `python -m benchmarks.cold_start`: every figure from a new Python "
            "process. Cold: a new empty numba cache (`NUMBA_CACHE_DIR`), from the start of "
            "the script to the end of the first `step` of `card_envs.make(id)` (AEC) or "
            "`card_envs.make_vec(id, 8)` (batched); a line on stderr says the kernels are "
            "compiling. Warm: the first step after the import, on the cache the cold run "
            "filled. Import: `import card_envs`, which imports no game until an id is made.",
            command_line("python -m benchmarks.cold_start", argv),
            {section: body},
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

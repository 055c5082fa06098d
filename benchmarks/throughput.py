"""Throughput of every registered env against PettingZoo's own tictactoe_v3.

Run from the repo root:

    python -m benchmarks.throughput [--seconds 3] [--num-envs 4096] [--env ID ...] [--json PATH]
                                    [--vec-rows 8 64 512] [--peers]

Measured in one process for each env id (default config and `Game.speed_configs`), on one
thread unless said:

* AEC steps/s: the usual `agent_iter()` / `last()` / `step()` loop with a uniformly random
  legal action read from the observation's action mask; only steps with a real action are
  counted (not the dead steps with `None`), resets are inside the timed span.
* the same loop with PettingZoo's standard wrapper stack around our env (what tictactoe's
  `env()` applies), to show what the built-in order/legality enforcement saves.
* batched steps/s: `num_envs` instances, a uniformly random legal action per instance picked
  by a small compiled kernel (its time counts), observations, masks and auto-reset included;
  steps/s = instances x batch steps / time.
* threads: the same batched loop with the env on T threads (`make_vec(..., num_threads=T)`)
  for every T of `--threads` (default 1 up to the usable cores), timing the env's `step`
  only (the action choice is one thread's work outside it), and the speed-up over T=1.
* Gymnasium vector envs: learner decisions/s of `gymnasium.make_vec(gym id, num_envs=R,
  opponents="random")` for every R of `--vec-rows`, the native vector env (the ids'
  registered vector entry point, over the batched engine) beside `vectorization_mode="sync"`
  (Gymnasium's `SyncVectorEnv` of one-instance envs), default configs, one thread, a random
  legal action per row from `info["action_mask"]` (benchmarks/gym_vector.py).

The peer is `pettingzoo.classic.tictactoe_v3.env()` (wrappers included, as users get it),
driven by exactly the same AEC loop. With `--peers` (extra `bench`), RLCard, OpenSpiel and
PettingZoo card games are measured in the same rounds too, and a second table sets them
beside our envs with episodes/s (benchmarks/peers.py). See benchmarks/README.md.
"""

from __future__ import annotations

import os

# numpy's BLAS on one thread; must be set before numpy is imported. numba keeps its threads
# (one per core) for the threaded batched env.
for _var in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
from importlib.metadata import PackageNotFoundError, version  # noqa: E402
from statistics import median  # noqa: E402
from time import perf_counter  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402
from numba import njit  # noqa: E402
from pettingzoo.classic import tictactoe_v3  # noqa: E402
from pettingzoo.utils import wrappers  # noqa: E402

import card_envs  # noqa: E402
from benchmarks import cold_start, peers  # noqa: E402
from benchmarks.gym_vector import vector_runner  # noqa: E402
from benchmarks.peers import NO_LIMIT, Runner, aec_runner  # noqa: E402
from card_envs.core.threads import usable_cores  # noqa: E402
from card_envs.registry import game_class  # noqa: E402
from card_envs.testing.report import command_line, machine_info, markdown, write_page  # noqa: E402

PEER = "tictactoe_v3"
PROG = "python -m benchmarks.throughput"
ABOUT = (
    f"Written by `{PROG}` (see benchmarks/README.md): steps per second of every env, AEC and "
    "batched, beside PettingZoo's own `tictactoe_v3` in the same process on one core, and the "
    "batched env's scaling on more threads, and `gymnasium.make_vec`'s native vector env "
    "beside Gymnasium's `SyncVectorEnv`; with "
    "`--peers`, other card-game libraries in the same interleaved rounds. Ratios move by "
    "10-20% between runs on shared machines: compare the rows of one run."
)
# The peers (keys of benchmarks.peers) nearest to a game, named under the peers table.
NEAREST_PEERS: dict[str, list[str]] = {
    "rummidrez_v0": ["rlcard/gin-rummy/obs", "openspiel/gin_rummy/obs"],
    "super_zwierzaki_v0": ["rlcard/uno/obs", "rlcard/uno/no_obs"],
}
Case = tuple[str, str, dict]  # (label, env id, config)
# Games per batched instance needed before `--peers` shows the batched env's episodes/s.
MIN_BATCHED_GAMES = 10


def label_of(env_id: str, config: dict) -> str:
    """`rummidrez_v0 (4 players)`: the env id and what its config changes."""
    changes = [f"{v} players" if k == "num_players" else f"{k} {v}" for k, v in config.items()]
    return f"{env_id} ({', '.join(changes)})" if changes else env_id


def cases_for(env_ids: list[str]) -> list[Case]:
    """Each env id with its default config, then the other configs its game has measured
    (`Game.speed_configs`)."""
    return [
        (label_of(env_id, config), env_id, config)
        for env_id in env_ids
        for config in ({}, *game_class(env_id).speed_configs)
    ]


def targets(env_ids: list[str]) -> dict[str, tuple[float, float]]:
    """The throughput targets of the env ids' games that have them (`Game.speed_targets`)."""
    found = {env_id: game_class(env_id).speed_targets for env_id in env_ids}
    return {env_id: target for env_id, target in found.items() if target is not None}


# --- action choice ------------------------------------------------------------------------
@njit(cache=True)
def pick_legal(masks, rng_state, out):  # pragma: no cover - compiled
    """Write into out[i] a uniformly random legal action of masks[i] (xorshift64* stream in
    rng_state[0]; rows without a legal action get 0)."""
    s = rng_state[0]
    n, m = masks.shape
    for i in range(n):
        count = 0
        for j in range(m):
            if masks[i, j] != 0:
                count += 1
        s ^= s >> np.uint64(12)
        s ^= s << np.uint64(25)
        s ^= s >> np.uint64(27)
        r = (s * np.uint64(0x2545F4914F6CDD1D)) >> np.uint64(32)
        k = np.int64((r * np.uint64(count)) >> np.uint64(32))
        out[i] = 0
        for j in range(m):
            if masks[i, j] != 0:
                if k == 0:
                    out[i] = j
                    break
                k -= 1
    rng_state[0] = s


def _rng_state(seed: int) -> np.ndarray:
    # splitmix64 of the seed: a non-zero xorshift state
    z = (seed + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    z ^= z >> 31
    return np.array([z or 1], dtype=np.uint64)


# --- loops --------------------------------------------------------------------------------
# The AEC loop (`run_aec`, `aec_runner`) and the peers' loops live in benchmarks/peers.py.


def batched_runner(env_id: str, config: dict, num_envs: int, seed: int) -> Runner:
    """`run(seconds, max_steps) -> (instance steps, finished games, elapsed)` over one
    batched env."""
    venv = card_envs.make_vec(env_id, num_envs, seed=seed, **config)
    rng_state = _rng_state(seed)
    actions = np.zeros(num_envs, dtype=np.int64)
    count_nonzero = np.count_nonzero
    _obs, masks = venv.reset()

    def run(seconds: float, max_steps: int = NO_LIMIT) -> tuple[int, int, float]:
        nonlocal masks
        batches = episodes = 0
        start = perf_counter()
        deadline = start + seconds
        while True:
            pick_legal(masks, rng_state, actions)
            _obs, masks, _rewards, term, trunc = venv.step(actions)
            episodes += count_nonzero(term | trunc)
            batches += 1
            now = perf_counter()
            if now >= deadline or batches * num_envs >= max_steps:
                return batches * num_envs, int(episodes), now - start

    return run


def threaded_runner(env_id: str, config: dict, num_envs: int, seed: int, threads: int) -> Runner:
    """`run(seconds, max_steps) -> (instance steps, finished games, seconds in step)` over
    one batched env on `threads` threads; only `step` is timed."""
    venv = card_envs.make_vec(env_id, num_envs, seed=seed, num_threads=threads, **config)
    rng_state = _rng_state(seed)
    actions = np.zeros(num_envs, dtype=np.int64)
    _obs, masks = venv.reset()

    def run(seconds: float, max_steps: int = NO_LIMIT) -> tuple[int, int, float]:
        nonlocal masks
        batches = episodes = 0
        stepping = 0.0
        deadline = perf_counter() + seconds
        while True:
            pick_legal(masks, rng_state, actions)
            start = perf_counter()
            _obs, masks, _rewards, term, trunc = venv.step(actions)
            now = perf_counter()
            stepping += now - start
            episodes += np.count_nonzero(term | trunc)
            batches += 1
            if now >= deadline or batches * num_envs >= max_steps:
                return batches * num_envs, int(episodes), stepping

    return run


def wrapped(env: Any) -> Any:
    """PettingZoo's standard classic wrapper stack, as in `tictactoe_v3.env()`."""
    env = wrappers.TerminateIllegalWrapper(env, illegal_reward=-1)
    env = wrappers.AssertOutOfBoundsWrapper(env)
    return wrappers.OrderEnforcingWrapper(env)


# --- report -------------------------------------------------------------------------------
def _version(pkg: str) -> str:
    try:
        return version(pkg)
    except PackageNotFoundError:
        return "?"


def _rate(x: float | None) -> str:
    return "-" if x is None else f"{x:,.0f}"


def _ratio(x: float | None) -> str:
    return "-" if x is None else f"{x:,.1f}x"


def table(results: dict[str, Any]) -> str:
    peer = results["peer"]["aec_steps_per_s"]
    head = ["env", "AEC steps/s", "AEC x tictactoe", "batched steps/s", "batched x tictactoe AEC"]
    rows = []
    for env_id, r in results["envs"].items():
        rows.append(
            [
                env_id,
                _rate(r["aec_steps_per_s"]),
                _ratio(r["aec_x_tictactoe"]),
                _rate(r["batched_steps_per_s"]),
                _ratio(r["batched_x_tictactoe_aec"]),
            ]
        )
        rows.append(
            [
                f"{env_id} + PettingZoo wrappers",
                _rate(r["aec_wrapped_steps_per_s"]),
                _ratio(r["aec_wrapped_x_tictactoe"]),
                "-",
                "-",
            ]
        )
    rows.append([f"{PEER} (PettingZoo, env())", _rate(peer), _ratio(1.0), "-", "-"])
    return markdown(head, rows, [False, True, True, True, True])


def threads_table(results: dict[str, Any]) -> str:
    counts = results["settings"]["threads"]
    head = ["env", *(f"T={t} steps/s" for t in counts), *(f"T={t} x T=1" for t in counts[1:])]
    rows = []
    for label, r in results["envs"].items():
        rates = [r["threads"][str(t)] for t in counts]
        gains = [r["speedup"][str(t)] for t in counts[1:]]
        rows.append([label, *map(_rate, rates), *(f"{x:.2f}x" for x in gains)])
    return markdown(head, rows, [False] + [True] * (len(head) - 1))


def vector_table(results: dict[str, Any]) -> str:
    head = ["env id", "rows", "native steps/s", "sync steps/s", "native / sync"]
    rows = []
    for env_id, by_rows in results["vector"].items():
        for n, r in by_rows.items():
            native, sync = r["native_steps_per_s"], r["sync_steps_per_s"]
            rows.append([env_id, n, _rate(native), _rate(sync), _ratio(native / sync)])
    return markdown(head, rows, [False, True, True, True, True])


def peer_table(results: dict[str, Any]) -> str:
    head = ["env", "library", "obs each step", "steps/s", "episodes/s", "steps/episode"]
    head.append("x tictactoe AEC")
    rows = []
    for r in results["peers"]["rows"]:
        cells = [r["label"], r["library"], "yes" if r["obs"] else "no"]
        if "missing" in r:
            rows.append(cells + [peers.NOT_INSTALLED, "-", "-", "-"])
            continue
        spe = r["steps_per_episode"]
        rows.append(
            cells
            + [
                _rate(r["steps_per_s"]),
                _rate(r["episodes_per_s"]),
                "-" if spe is None else f"{spe:,.1f}",
                _ratio(r["x_tictactoe"]),
            ]
        )
    return markdown(head, rows, [False, False, False, True, True, True, True])


def report(results: dict[str, Any]) -> str:
    """The whole report: the machine, then `body`."""
    m = results["machine"]
    return "\n".join(
        [
            f"- machine: {m['cpu']} ({m['logical_cpus']} logical CPUs, {m['usable_cpus']} "
            f"usable), {m['platform']}",
            f"- python {m['python']}, numpy {m['numpy']}, numba {m['numba']}, "
            f"card_envs {m['card_envs']}",
            body(results),
        ]
    )


def body(results: dict[str, Any]) -> str:
    """The settings, the tables and what they say: the page under `machine.header`."""
    s = results["settings"]
    lines = [
        f"- pettingzoo {results['machine']['pettingzoo']}; {s['seconds']:g} s per measurement "
        f"in {s['rounds']} interleaved rounds (median rate; after {s['warmup']:g} s warm-up), "
        f"{s['num_envs']} batched instances, seed {s['seed']}; one thread, and below also "
        f"{', '.join(map(str, s['threads'][1:])) or 'no other count'}",
        "",
        table(results),
        "",
    ]
    for label, r in results["envs"].items():
        gain = r["aec_steps_per_s"] / r["aec_wrapped_steps_per_s"]
        line = f"- {label}: built-in enforcement is {gain:.1f}x faster than PettingZoo's wrappers"
        env_id = r.get("env_id", label)
        if env_id in results["targets"]:
            target = results["targets"][env_id]
            aec_target, bat_target = target["aec_x_tictactoe"], target["batched_x_tictactoe_aec"]
            aec_ok = "met" if r["aec_x_tictactoe"] >= aec_target else "MISSED"
            bat_ok = "met" if r["batched_x_tictactoe_aec"] >= bat_target else "MISSED"
            whose = "" if label == env_id else " (those of the default config)"
            line += (
                f"; targets{whose} AEC >= {aec_target:g}x tictactoe {aec_ok}, "
                f"batched >= {bat_target:g}x {bat_ok}"
            )
        lines.append(line)
    lines += [
        "",
        "## Threads",
        "",
        f"The batched env on T threads (`make_vec(..., num_threads=T)`), {s['num_envs']} "
        "instances, in the same rounds; only the env's `step` is timed (the action choice "
        "above is one thread's work outside it). Speed-up: the median over the rounds of T "
        "threads' rate over one thread's, measured back to back. Goal: at least 1.8x at T=2 "
        "with 4096 instances.",
        "",
        threads_table(results),
    ]
    if results["vector"]:
        lines += [
            "",
            "## Gymnasium vector envs",
            "",
            '`gymnasium.make_vec(id, num_envs=rows, opponents="random")` on each learner view '
            "(default config) in the same rounds: the native vector env over the batched engine "
            '(the default) beside `vectorization_mode="sync"` (Gymnasium\'s `SyncVectorEnv` of '
            "one-instance envs), one thread, NEXT_STEP autoreset, a random legal action per row "
            'from `info["action_mask"]`; a row\'s reset step is not counted.',
            "",
            vector_table(results),
        ]
    if "peers" in results:
        v = results["peers"]["versions"]
        lines += [
            "",
            "## Peers",
            "",
            "Measured in the same rounds (x tictactoe AEC: steps/s over tictactoe's AEC "
            "steps/s above); " + ", ".join(f"{pkg} {ver}" for pkg, ver in v.items()) + ".",
            "",
            peer_table(results),
        ]
        lines += nearest_peer_lines(results)
    if "cold_start" in results:
        lines += [
            "",
            "## First answer",
            "",
            "Speed once warm is above; before it, a new process compiles each game's kernels "
            "into numba's cache. Per env, each figure from a new process "
            "(`benchmarks.cold_start`, whose page has the loaded-machine figures too): "
            "the first step on a new empty cache (AEC, batched), the first step on the cache "
            "it filled (warm, after the import) and `import card_envs`.",
            "",
            cold_start.report(results["cold_start"], cold_start.condition(False, False)),
        ]
    return "\n".join(lines)


def nearest_peer_lines(results: dict[str, Any]) -> list[str]:
    """One line per measured game with NEAREST_PEERS: its AEC and batched x tictactoe beside
    those peers' (same run)."""
    by_key = {r["key"]: r for r in results["peers"]["rows"] if "key" in r and "missing" not in r}
    lines = []
    for label, r in results["envs"].items():
        if label != r.get("env_id", label) or label not in NEAREST_PEERS:
            continue
        near = [
            f"{by_key[key]['library']} {by_key[key]['label']} "
            f"({'obs' if by_key[key]['obs'] else 'no obs'}) "
            f"{_ratio(by_key[key]['x_tictactoe'])}"
            for key in NEAREST_PEERS[label]
            if key in by_key
        ]
        if near:
            lines.append(
                f"- {label}: AEC {_ratio(r['aec_x_tictactoe'])} and batched "
                f"{_ratio(r['batched_x_tictactoe_aec'])} tictactoe; nearest peers: "
                + ", ".join(near)
            )
    return [""] + lines if lines else []


def measure(runners: dict[str, Runner], seconds: float, rounds: int) -> dict[str, Any]:
    """Warm every runner up, then time them in `rounds` interleaved rounds of
    `seconds / rounds` each, so that a load change on the machine hits all alike.
    The rate of a runner is the median of its per-round rates."""
    warmup = max(0.2, min(1.0, seconds / 5))
    log = sys.stderr
    for name, runner in runners.items():
        print(f"warming up {name} ...", file=log, flush=True)
        runner(warmup)  # numba compiles / loads its cache on the first calls
    per_round: dict[str, list[tuple[int, int, float]]] = {name: [] for name in runners}
    for i in range(rounds):
        print(f"round {i + 1}/{rounds} ...", file=log, flush=True)
        for name, runner in runners.items():
            per_round[name].append(runner(seconds / rounds))
    out = {}
    for name, runs in per_round.items():
        rates = [steps / elapsed for steps, _, elapsed in runs]
        episode_rates = [episodes / elapsed for _, episodes, elapsed in runs]
        out[name] = {
            "steps_per_s": median(rates),
            "episodes_per_s": median(episode_rates),
            "round_steps_per_s": rates,
            "round_episodes_per_s": episode_rates,
            "steps": sum(steps for steps, _, _ in runs),
            "episodes": sum(episodes for _, episodes, _ in runs),
            "seconds": sum(elapsed for _, _, elapsed in runs),
        }
    return {"warmup": warmup, "results": out}


def speedup(res: dict[str, Any], label: str, threads: int) -> float:
    """The median over rounds of T threads' rate over one thread's in the same round (the
    two run back to back, so a change of load on the machine hits both)."""
    one = res[f"{label}/threads=1"]["round_steps_per_s"]
    more = res[f"{label}/threads={threads}"]["round_steps_per_s"]
    return median(m / o for m, o in zip(more, one, strict=True))


def run(
    cases: list[Case],
    seconds: float,
    num_envs: int,
    seed: int,
    rounds: int,
    with_peers: bool = False,
    threads: list[int] | None = None,
    vec_rows: tuple[int, ...] = (),
) -> dict[str, Any]:
    threads = threads or list(range(1, usable_cores() + 1))
    runners: dict[str, Runner] = {f"{PEER}/aec": aec_runner(tictactoe_v3.env(), seed)}
    for label, env_id, config in cases:
        runners[f"{label}/aec"] = aec_runner(card_envs.make(env_id, **config), seed)
        runners[f"{label}/aec_wrapped"] = aec_runner(
            wrapped(card_envs.make(env_id, **config)), seed
        )
        runners[f"{label}/batched"] = batched_runner(env_id, config, num_envs, seed)
        for t in threads:
            runners[f"{label}/threads={t}"] = threaded_runner(env_id, config, num_envs, seed, t)
    vec_ids = list(dict.fromkeys(env_id for _, env_id, _ in cases))
    for env_id in vec_ids:
        for n in vec_rows:
            for mode in ("native", "sync"):
                runners[f"{env_id}/make_vec/{n}/{mode}"] = vector_runner(
                    env_id, n, seed, "random", sync=mode == "sync"
                )
    missing: dict[str, str] = {}
    if with_peers:
        installed, missing = peers.peer_runners(seed)
        for key, reason in missing.items():
            print(f"{key}: {reason}", file=sys.stderr, flush=True)
        runners.update(installed)
    measured = measure(runners, seconds, rounds)
    res = measured["results"]
    peer = res[f"{PEER}/aec"]
    p = peer["steps_per_s"]
    envs: dict[str, Any] = {}
    for label, env_id, config in cases:
        aec, wrap, bat = (res[f"{label}/{k}"] for k in ("aec", "aec_wrapped", "batched"))
        envs[label] = {
            "env_id": env_id,
            "config": config,
            "aec_steps_per_s": aec["steps_per_s"],
            "aec_x_tictactoe": aec["steps_per_s"] / p,
            "aec_wrapped_steps_per_s": wrap["steps_per_s"],
            "aec_wrapped_x_tictactoe": wrap["steps_per_s"] / p,
            "batched_steps_per_s": bat["steps_per_s"],
            "batched_x_tictactoe_aec": bat["steps_per_s"] / p,
            "threads": {str(t): res[f"{label}/threads={t}"]["steps_per_s"] for t in threads},
            "speedup": {str(t): speedup(res, label, t) for t in threads[1:]},
            "raw": {"aec": aec, "aec_wrapped": wrap, "batched": bat},
        }
    out = {
        "machine": {**machine_info(), "pettingzoo": _version("pettingzoo")},
        "settings": {
            "seconds": seconds,
            "rounds": rounds,
            "warmup": measured["warmup"],
            "num_envs": num_envs,
            "seed": seed,
            "threads": threads,
            "vec_rows": list(vec_rows),
        },
        "peer": {"env": PEER, "aec_steps_per_s": p, "raw": peer},
        "envs": envs,
        "vector": {
            env_id: {
                str(n): {
                    f"{mode}_steps_per_s": res[f"{env_id}/make_vec/{n}/{mode}"]["steps_per_s"]
                    for mode in ("native", "sync")
                }
                for n in vec_rows
            }
            for env_id in vec_ids
            if vec_rows
        },
        "targets": {
            env_id: {"aec_x_tictactoe": a, "batched_x_tictactoe_aec": b}
            for env_id, (a, b) in targets(list(dict.fromkeys(e for _, e, _ in cases))).items()
        },
    }
    if with_peers:
        out["peers"] = peer_rows(cases, res, missing, num_envs)
    return out


def peer_rows(
    cases: list[Case], res: dict[str, Any], missing: dict[str, str], num_envs: int
) -> dict[str, Any]:
    """The side-by-side rows of `--peers`: tictactoe, our envs (AEC and batched), the peers.

    Loops over whole games count their games exactly. The batched env's instances all start
    together and are cut off mid-game at the end, so its games/s are shown only where every
    instance finished at least `MIN_BATCHED_GAMES` games on average in the timed rounds (else
    None: the count would mostly reflect the first synchronized wave of games)."""
    p = res[f"{PEER}/aec"]["steps_per_s"]

    def row(
        label: str, library: str, obs: bool, r: dict[str, Any], games_ok: bool = True
    ) -> dict[str, Any]:
        return {
            "label": label,
            "library": library,
            "obs": obs,
            "steps_per_s": r["steps_per_s"],
            "episodes_per_s": r["episodes_per_s"] if games_ok else None,
            "steps_per_episode": r["steps"] / r["episodes"] if games_ok and r["episodes"] else None,
            "x_tictactoe": r["steps_per_s"] / p,
            "raw": r,
        }

    rows = [row(f"{PEER} (env())", "PettingZoo", True, res[f"{PEER}/aec"])]
    for label, _, _ in cases:
        rows.append(row(f"{label} (AEC)", "card_envs", True, res[f"{label}/aec"]))
        bat = res[f"{label}/batched"]
        games_ok = bat["episodes"] >= MIN_BATCHED_GAMES * num_envs
        rows.append(row(f"{label} (batched, {num_envs})", "card_envs", True, bat, games_ok))
    for peer in peers.peers():
        if peer.key in missing:
            rows.append(
                {
                    "key": peer.key,
                    "label": peer.label,
                    "library": peer.library,
                    "obs": peer.obs,
                    "missing": missing[peer.key],
                }
            )
        else:
            rows.append({"key": peer.key, **row(peer.label, peer.library, peer.obs, res[peer.key])})
    return {"versions": peers.peer_versions(), "rows": rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Steps/s of the card_envs envs (AEC and batched) vs PettingZoo tictactoe_v3.",
    )
    parser.add_argument(
        "--env",
        action="append",
        metavar="ID",
        help="env id to measure (repeatable; default: every registered id)",
    )
    parser.add_argument(
        "--seconds", type=float, default=3.0, help="timed seconds per measurement (default 3)"
    )
    parser.add_argument(
        "--num-envs", type=int, default=4096, help="batched instances (default 4096)"
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="interleaved rounds the seconds are split into; rates are medians (default 3)",
    )
    parser.add_argument(
        "--threads",
        type=int,
        action="append",
        metavar="T",
        help="thread count of the batched env's scaling table (repeatable; default: 1 up to "
        "the usable cores)",
    )
    parser.add_argument(
        "--vec-rows",
        type=int,
        nargs="*",
        default=[8, 64, 512],
        metavar="R",
        help="row counts of the make_vec table (default 8 64 512; none: no table)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of envs and actions")
    parser.add_argument("--json", metavar="PATH", help="also write the numbers as JSON")
    parser.add_argument(
        "--out", metavar="PAGE", help="also write the report as a figures page (Markdown)"
    )
    parser.add_argument(
        "--peers",
        action="store_true",
        help="also measure RLCard, OpenSpiel and PettingZoo card games (extra 'bench')",
    )
    parser.add_argument(
        "--cold-start",
        action="store_true",
        help="also time each env's first step in a new process on a cold cache "
        "(benchmarks.cold_start)",
    )
    args = parser.parse_args(argv)

    known = card_envs.multi_agent_env_ids()
    env_ids = list(dict.fromkeys(args.env)) if args.env else known
    unknown = [e for e in env_ids if e not in known]
    if unknown:
        parser.error(f"unknown multi-agent env id(s) {unknown}; known ids are {known}")
    if args.seconds <= 0:
        parser.error("--seconds must be positive")
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    if args.num_envs < 1:
        parser.error("--num-envs must be at least 1")
    if any(n < 1 for n in args.vec_rows):
        parser.error(f"--vec-rows must be at least 1, got {args.vec_rows}")
    threads = sorted({1, *(args.threads or range(1, usable_cores() + 1))})
    if threads[-1] > usable_cores() or threads[0] < 1:
        parser.error(f"--threads must be in 1..{usable_cores()} (the usable cores)")

    results = run(
        cases_for(env_ids),
        args.seconds,
        args.num_envs,
        args.seed,
        args.rounds,
        args.peers,
        threads,
        tuple(args.vec_rows),
    )
    if args.cold_start:
        results["cold_start"] = {e: cold_start.measure(e, None) for e in env_ids}
    print(report(results))
    if args.out:
        write_page(args.out, "Throughput", ABOUT, command_line(PROG, argv), body(results))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
            f.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Learner steps per second of the training backends on training configs, in one run: the
SB3 path (MaskablePPO on the batched engine) with the env on 1 and on every core's thread
(`num_threads`), RLlib PPO with 1 and 2 env runners, and all-seat self-play beside SB3.

    python -m benchmarks.training_throughput [--config configs/training/no_thanks_rllib.yaml]
                                             [--game no_thanks ...] [--seconds 90]
                                             [--threads 1 2] [--runners 1 2]
                                             [--out docs/figures/training_throughput.md]

`--config` is repeatable (a table each; the RLlib rows on the first config only).
`--game NAME` (repeatable) compares the self-play trainer (`configs/training/selfplay/NAME.yaml`)
with SB3 (`configs/training/NAME.yaml`): each at its shipped config on 1 and 2 threads (torch's
and the env's alike; self-play also with the two counts split), and both at one shared
setting (`shared`: the same network, epochs, minibatch and rollout size) on 1 and 2 threads.
A learner step is a decision that entered a gradient update.
Each variant trains the config for `--seconds` of wall time (periodic evaluations,
checkpoints and the imitation warm start off, the smallest final evaluation) in a temporary
directory; the figure is the run's own `training_steps_per_s` (learner steps over the
training time, start-up excluded).
For RLlib it also prints the env steps each runner sampled per second and the learner's
update time per iteration, the two numbers behind the projection in docs/rllib.md.
`--out PAGE` also writes the report as a figures page, with the date, commit, machine and
command. Needs the `rllib` extra.
"""

from __future__ import annotations

import argparse
import tempfile
from dataclasses import replace
from pathlib import Path

from card_envs.core.threads import usable_cores
from card_envs.testing.report import command_line, printed, write_page
from card_envs.training.config import load_config

DEFAULT_CONFIG = "configs/training/no_thanks_rllib.yaml"
PROG = "python -m benchmarks.training_throughput"
ABOUT = (
    f"Written by `{PROG}` (see its docstring): learner steps per second of the SB3 path, with "
    "its batched env on 1 and on 2 threads (`num_threads`), and of RLlib PPO (the default "
    "`BatchedEnvRunner`, on the first config); then per game all-seat self-play beside SB3, "
    "at their shipped configs and at one shared setting. Each variant trained for the same "
    "wall time in one run."
)
OFF = 10**12  # steps between periodic evaluations / checkpoints: never


def _config(path: str, seconds: float, out: Path, threads: int | None = None, torch=None):
    cfg = load_config(path, total_timesteps=OFF, time_limit_minutes=seconds / 60, out=str(out))
    n = cfg.num_players
    return type(cfg)(**{
        **cfg.__dict__, "eval_every": OFF, "checkpoint_every": OFF, "snapshot_every": OFF,
        "final_eval_games": n, "eval_against": ("random",), "imitation": None,
        "num_threads": cfg.num_threads if threads is None else threads,
        "torch_threads": cfg.torch_threads if torch is None else torch,
    })  # fmt: skip


EVEN = [(1, 1), (2, 2)]  # (env threads, torch threads)
SHARED_GAMES, SHARED_STEPS, SHARED_EPOCHS, SHARED_MINIBATCHES = 4096, 16, 4, 8


def shared(cfg):
    """`cfg` at the shared setting: about 4,096 games (a multiple of its settings) stepped 16
    times a rollout, 4 epochs over 8 minibatches, an MLP of 128 x 128."""
    parts = len(cfg.settings)
    num_envs = parts * (SHARED_GAMES // parts)
    rollout = num_envs * SHARED_STEPS
    ppo = replace(cfg.ppo, n_steps=SHARED_STEPS, n_epochs=SHARED_EPOCHS,
                  batch_size=rollout // SHARED_MINIBATCHES, net_arch=(128, 128))  # fmt: skip
    return replace(cfg, num_envs=num_envs, ppo=ppo)


def _selfplay_rows(game: str, seconds: float) -> list[tuple]:
    """(trainer, setting, env threads, torch threads, config, learner steps/s) per variant."""
    from card_envs.training.ppo.train import train as train_sb3
    from card_envs.training.selfplay.train import train_selfplay

    trainers = {
        "SB3 MaskablePPO": (f"configs/training/{game}.yaml", train_sb3, EVEN),
        "all-seat self-play": (f"configs/training/selfplay/{game}.yaml", train_selfplay,
                               [(1, 1), (1, 2), (2, 1), (2, 2)]),
    }  # fmt: skip
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for setting in ("shipped", "shared"):
            for name, (path, train, splits) in trainers.items():
                for env_threads, torch_threads in splits if setting == "shipped" else EVEN:
                    out = Path(tmp) / f"{name}-{setting}-{env_threads}-{torch_threads}"
                    cfg = _config(path, seconds, out, env_threads, torch_threads)
                    cfg = shared(cfg) if setting == "shared" else cfg
                    res = train(cfg, echo=lambda _: None)
                    rows.append((name, setting, env_threads, torch_threads, cfg,
                                 res["training_steps_per_s"], _update_share(res)))  # fmt: skip
    return rows


def _update_share(res: dict) -> tuple[float, float]:
    """(µs of gradient update, µs of everything else) per learner step of a run."""
    steps = res["timesteps"]
    total = steps / res["training_steps_per_s"]
    update = res["time_split_s"]["update_s"]
    return update / steps * 1e6, (total - update) / steps * 1e6


def _report_selfplay(game: str, rows: list[tuple], seconds: float) -> None:
    base = {(s, e, t): r for name, s, e, t, _, r, _ in rows if name.startswith("SB3")}
    cfg = rows[0][4]
    print(f"{game}: all-seat self-play and SB3 ({cfg.env} {cfg.config}, mix {dict(cfg.mix)}), "
          f"{seconds:g} s per variant\n")  # fmt: skip
    print("| trainer | setting | env threads | torch threads | games x steps, minibatch, "
          "epochs | learner steps/s | x SB3 | update µs/step | rest µs/step |")  # fmt: skip
    print("|---|---|---:|---:|---|---:|---:|---:|---:|")
    for name, setting, env_t, torch_t, c, rate, (update, rest) in rows:
        both = max(env_t, torch_t)
        ratio = rate / base[(setting, both, both)]
        ppo = c.ppo
        size = f"{c.num_envs:,} x {ppo.n_steps}, {ppo.batch_size:,}, {ppo.n_epochs}"
        print(f"| {name} | {setting} | {env_t} | {torch_t} | {size} | {rate:,.0f} | {ratio:.2f}x "
              f"| {update:.1f} | {rest:.1f} |")  # fmt: skip
    print(
        "\nx SB3: against SB3 at the same setting on as many threads (the larger count). "
        "update: the gradient passes (epochs x minibatches) per learner step; rest: the "
        "rollout (engine, opponents, the network's forward passes, bookkeeping).\n"
    )


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog=PROG)
    p.add_argument(
        "--config", action="append", help=f"training config (repeatable; {DEFAULT_CONFIG})"
    )
    p.add_argument("--seconds", type=float, default=90.0, help="wall time of each variant")
    p.add_argument(
        "--threads",
        type=int,
        nargs="+",
        default=sorted({1, usable_cores()}),
        help="the SB3 env's num_threads, one row each (default: 1 and the usable cores)",
    )
    p.add_argument(
        "--runners", type=int, nargs="*", default=[1, 2], help="RLlib env runners (none: skip)"
    )
    p.add_argument("--game", action="append", default=[], help="self-play beside SB3 (repeatable)")
    p.add_argument("--out", metavar="PAGE", help="also write the report as a figures page")
    args = p.parse_args(argv)

    with printed() as report:
        for k, config in enumerate(args.config or ([] if args.game else [DEFAULT_CONFIG])):
            _report(_rows(args, config, rllib=k == 0), config, args.seconds)
        for game in args.game:
            _report_selfplay(game, _selfplay_rows(game, args.seconds), args.seconds)
    if args.out:
        title = "Training throughput"
        write_page(args.out, title, ABOUT, command_line(PROG, argv), report.getvalue())


def _rows(args: argparse.Namespace, config: str, rllib: bool) -> list:
    """(backend, envs, learner steps/s, RLlib results or None) of each variant on `config`."""
    from card_envs.training.ppo.train import train as train_sb3

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for threads in args.threads:
            cfg = _config(config, args.seconds, Path(tmp) / f"sb3-{threads}", threads)
            sb3 = train_sb3(cfg, echo=lambda _: None)
            name = f"SB3 MaskablePPO, env on {threads} thread(s)"
            rows.append((name, f"{cfg.num_envs} envs", sb3["training_steps_per_s"], None))
        if rllib and args.runners:
            rows += _rllib_rows(args, config, Path(tmp))
    return rows


def _rllib_rows(args: argparse.Namespace, config: str, tmp: Path) -> list:
    import ray

    from card_envs.training.rllib.train import train as train_rllib

    rows = []
    ray.init(include_dashboard=False, log_to_driver=False)
    for runners in args.runners:
        cfg = _config(config, args.seconds, tmp / f"rllib{runners}")
        res = train_rllib(cfg, num_env_runners=runners, echo=lambda _: None)
        rows.append((f"RLlib PPO, {runners} env runner(s)",
                     f"{cfg.rllib.num_envs_per_env_runner} envs each",
                     res["training_steps_per_s"], res))  # fmt: skip
    ray.shutdown()
    return rows


def _report(rows: list, config: str, seconds: float) -> None:
    base = rows[0][2]
    cfg = load_config(config)
    print(f"config: {config} ({cfg.env} {cfg.config}), {seconds:g} s per variant\n")
    print("| backend | envs | learner steps/s | x SB3 |")
    print("|---|---|---:|---:|")
    for name, envs, rate, _ in rows:
        print(f"| {name} | {envs} | {rate:,.0f} | {rate / base:.2f}x |")
    print()
    for name, _, _, res in rows:
        if res is None:  # an SB3 row
            continue
        split = res["time_split_s"]
        iterations = max(split["iterations"], 1)
        runners = max(res["num_env_runners"], 1)
        batch = res["env_steps_per_iteration"]
        sample = split["sampling_s"] / iterations
        update = split["update_s"] / iterations
        print(
            f"{name}: {iterations} iterations of {batch:,} env steps; sampling "
            f"{sample:.2f} s ({batch / sample / runners:,.0f} env steps/s per runner), "
            f"learner update {update:.2f} s per iteration"
        )
    print()


if __name__ == "__main__":
    main()

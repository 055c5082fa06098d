"""Train a MaskablePPO baseline from a YAML config.

    python -m card_envs.training.train --config configs/training/no_thanks.yaml
    card-envs train --config configs/training/no_thanks.yaml      # the same

The learner plays one rotating seat of `num_envs` games stepped together by the batched
engine (`SingleAgentVecEnv`); the other seats draw their agent per game from the pool
(scripted agents and frozen snapshots of the learner). Output in the config's `out`:
`model.zip`, `results.json` (final evaluation, targets, throughput, where the time went),
`evaluations.csv`, `training.csv`, `tensorboard/`, `learning_curve.png`, `checkpoints/`, and
with `video_episodes` that many games of the trained agent in `videos/`.
`--resume` continues from the last checkpoint; `--ship` copies the model into the package
(`card_envs/models/<env_id>.zip`), where the agent spec `ppo` finds it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from card_envs.evaluation import evaluate_episodes
from card_envs.registry import make_game, run_env_id
from card_envs.training.config import (
    RUN_OPPONENT,
    UNBOUNDED,
    TrainConfig,
    TrainConfigError,
    load_config,
)
from card_envs.training.curves import Curve, plot_learning_curve
from card_envs.training.run import FINAL_EVAL_SEED_OFFSET, check_resumable, start_run, targets
from card_envs.training.ship import ship

RUN_BASELINES = ("computer", "heuristic")  # play the run env's runs too; the target: heuristic


def training_env(config: TrainConfig, pool):
    """The learner's VecEnv: `config.num_envs` games of `config.config`, or with a mix an
    equal share for every setting with padded observations. Opponents come from `pool`
    (a placeholder in pure self-play until the first snapshot is installed)."""
    from card_envs.wrappers import MixedVecEnv, SingleAgentVecEnv

    parts = []
    settings = config.settings
    for part, setting in enumerate(settings):
        agents, weights = pool.agents_and_weights(part)
        if config.num_players == 1:  # a one-seat game: nobody to draw
            weights = None
        elif not agents:
            agents, weights = ["random"], [1.0]
        parts.append(SingleAgentVecEnv(
            config.env, config.num_envs // len(settings), opponents=agents, seat="rotate",
            seed=config.seed + 7_919 * part, pool_weights=weights, pad=config.padded,
            num_threads=config.num_threads, **setting,
        ))  # fmt: skip
    return MixedVecEnv(parts) if config.padded else parts[0]


def start_model(config: TrainConfig, venv, paths, resume: bool, echo=print):
    """The run's MaskablePPO model, loaded from its checkpoint (refused if the config
    changed) or new, warm-started by imitation when the config asks. Returns the model, the
    checkpoint's state (None when new), the imitation's report and its seconds."""
    from sb3_contrib import MaskablePPO

    if resume:
        state = json.loads(paths.checkpoint_state.read_text())
        check_resumable(config, state["fingerprint"])
        return MaskablePPO.load(paths.checkpoint, env=venv, device="cpu"), state, None, 0.0
    model = MaskablePPO(
        "MlpPolicy", venv, seed=config.seed, device="cpu", verbose=0, **config.ppo.kwargs()
    )
    if config.imitation is None:
        return model, None, None, 0.0
    from card_envs.training.imitation import imitate_policy

    t_imitation = time.perf_counter()
    imitation = imitate_policy(model, config, config.imitation, echo=echo)
    return model, None, imitation, time.perf_counter() - t_imitation


def train(
    config: TrainConfig, resume: bool = False, restart: bool = False, echo=print
) -> dict[str, Any]:
    """Train, evaluate and save as the module doc says; returns results.json's content."""
    from stable_baselines3.common.logger import configure

    from card_envs.training.monitor import (
        EVAL_COLUMNS,
        Monitor,
        keep_rows_until,
    )
    from card_envs.training.opponents import OpponentPool
    from card_envs.training.video import require_moviepy

    require_moviepy(config)
    t_start = time.perf_counter()
    paths = start_run(config, resume, restart)

    pool = OpponentPool(config)
    venv = training_env(config, pool)
    model, state, imitation, elapsed = start_model(config, venv, paths, resume, echo)
    if resume:
        pool.load(paths.checkpoint_pool, model.policy)
        done = model.num_timesteps
        keep_rows_until(paths.evaluations, done)
        keep_rows_until(paths.progress, done)
        elapsed = state["minutes"] * 60
        echo(f"resuming {config.name} at {done:,} steps ({state['minutes']:.1f} min)")
    elif config.uses_self_play:
        pool.add_snapshot(model.policy)  # the starting policy until the first refresh
    if config.num_players > 1:
        pool.install(venv)
    model.set_logger(configure(str(paths.tensorboard), ["tensorboard"]))
    monitor = Monitor(config, paths, pool, elapsed=elapsed, echo=echo)
    remaining = config.total_timesteps - model.num_timesteps
    start_steps = model.num_timesteps
    t0 = time.perf_counter()
    if remaining > 0:
        budget = f"{remaining:,} learner steps"
        if config.time_limit_minutes is not None:
            budget = (
                f"{config.time_limit_minutes:g} min"
                if config.total_timesteps >= UNBOUNDED
                else f"{budget} or {config.time_limit_minutes:g} min, whichever comes first"
            )
        drawn = dict(config.pool)
        echo(f"training {config.name}: {config.env} {config.config}, {budget}, pool {drawn}")
        model.learn(remaining, callback=monitor, reset_num_timesteps=False)
    session = time.perf_counter() - t0
    minutes = elapsed / 60 + session / 60
    model.save(paths.model)
    if remaining > 0:
        monitor.save_checkpoint()

    steps = model.num_timesteps - start_steps
    split = monitor.time_split() if remaining > 0 else {}
    results = {
        "command_minutes": None,  # set below: the whole call, start-up and evaluations included
        "name": config.name,
        "env": config.env,
        "config": config.config,
        "mix": dict(config.mix),
        "timesteps": model.num_timesteps,
        "training_minutes": round(minutes, 2),
        "stopped_by_time_limit": monitor.stopped_by_time,
        "session_steps_per_s": round(steps / session, 1) if steps else None,
        "training_steps_per_s": round(steps / max(session - split.get("eval_s", 0.0), 1e-9), 1)
        if steps
        else None,  # fmt: skip
        "time_split_s": {k: round(v, 1) for k, v in split.items()},
        "imitation": imitation,
    }
    results |= finish(config, paths, model.policy, {"timesteps": model.num_timesteps,
                      "minutes": round(minutes, 3)}, EVAL_COLUMNS, echo=echo)  # fmt: skip
    results["command_minutes"] = round((time.perf_counter() - t_start) / 60, 2)
    paths.results.write_text(json.dumps(results, indent=2, default=float))
    venv.close()
    return results


def train_exit(
    config: TrainConfig, resume: bool = False, restart: bool = False, echo=print
) -> dict[str, Any]:
    """Expert iteration (training/exit.py) as `train` runs PPO: the same output files, with
    one training.csv row and one evaluation per round."""
    from stable_baselines3.common.logger import configure

    from card_envs.training.exit import EXIT_EVAL_COLUMNS, fresh_state, load_start, run_rounds
    from card_envs.training.monitor import keep_rows_until, periodic_evaluation
    from card_envs.training.opponents import OpponentPool
    from card_envs.training.video import require_moviepy

    require_moviepy(config)
    t_start = time.perf_counter()
    paths = start_run(config, resume, restart)
    venv = training_env(config, OpponentPool(config))  # the spaces of the MaskablePPO model
    model, state, imitation, elapsed = start_model(config, venv, paths, resume, echo)
    if resume:
        keep_rows_until(paths.evaluations, state["positions"])
        keep_rows_until(paths.progress, state["positions"])
        echo(f"resuming {config.name} after round {state['round']} ({state['minutes']:.1f} min)")
    else:
        state = fresh_state() | {"minutes": elapsed / 60}  # imitation counts towards the limit
        if config.exit.start is not None:
            echo(f"starting from the network {load_start(model, config)}")
    model.set_logger(configure(str(paths.tensorboard), ["tensorboard"]))

    def evaluate(round_no: int, positions: int, minutes: float) -> None:
        periodic_evaluation(
            config, model.policy, paths, EXIT_EVAL_COLUMNS, model.logger, echo,
            f"round {round_no}", timesteps=positions, minutes=round(minutes, 3), round=round_no,
        )  # fmt: skip

    if not resume:
        evaluate(0, 0, state["minutes"])  # the starting network: where the curve starts
        model.logger.dump(0)
    ex = config.exit
    echo(
        f"expert iteration {config.name}: {config.env} {config.config}, {ex.rounds} rounds of "
        f"{ex.positions:,} decisions searched by {ex.search}"
    )
    stopped = run_rounds(model, config, paths, state, evaluate, echo)
    model.save(paths.model)
    results = {
        "command_minutes": None,  # set below: the whole call, start-up and evaluations included
        "agent": "exit",
        "name": config.name,
        "env": config.env,
        "config": config.config,
        "mix": dict(config.mix),
        "rounds": state["round"],
        "timesteps": state["positions"],  # decisions searched (the PPO path: learner steps)
        "training_minutes": round(state["minutes"], 2),
        "stopped_by_time_limit": stopped,
        "imitation": imitation,
        "start": config.exit.start,
    }
    when = {"timesteps": state["positions"], "minutes": round(state["minutes"], 3),
            "round": state["round"]}  # fmt: skip
    results |= finish(config, paths, model.policy, when, EXIT_EVAL_COLUMNS, EXIT_CURVE, echo)
    results["command_minutes"] = round((time.perf_counter() - t_start) / 60, 2)
    paths.results.write_text(json.dumps(results, indent=2, default=float))
    venv.close()
    return results


EXIT_CURVE = Curve(
    x="round", scale=1, x_label="round", train="agreement",
    train_label="network's move = the search's", train_title="searched decisions, before the fit",
)  # fmt: skip


def finish(
    config: TrainConfig, paths, policy, when: dict, columns: list[str], curve=None, echo=print
) -> dict[str, Any]:
    """What every finished run reports (results.json's part shared by PPO and expert
    iteration): the final evaluation in every setting (its rows logged with `when`), the
    run env's baselines, the videos and the targets; and the learning curve drawn."""
    from card_envs.training.monitor import append_rows, evaluate_policy, policy_learner
    from card_envs.training.video import record_videos

    echo(f"final evaluation: {config.final_eval_games} games per opponent")
    rows = evaluate_policy(
        config, policy, config.final_eval_games,
        config.seed + FINAL_EVAL_SEED_OFFSET, workers=config.eval_workers, every_setting=True,
    )  # fmt: skip
    for row in rows:
        row.update(when, kind="final")
    append_rows(paths.evaluations, columns, rows)
    run_baselines = {}  # games won per run by each baseline agent on the same runs
    for spec in RUN_BASELINES if config.eval_runs else ():
        ep = evaluate_episodes(
            run_env_id(config.env),
            spec,
            config.eval_runs,
            seed=config.seed + FINAL_EVAL_SEED_OFFSET,
        )
        run_baselines[spec] = {
            "mean": ep.mean_return, "ci_low": ep.mean_return_ci[0], "ci_high": ep.mean_return_ci[1]
        }  # fmt: skip
    baseline = run_baselines["heuristic"]["mean"] if run_baselines else None
    videos = (
        record_videos(config, policy_learner(policy), paths.videos) if config.video_episodes else []
    )
    defaults = make_game(config.env).config
    changed = {k: v for k, v in config.config.items() if v != defaults.get(k)}
    plot_learning_curve(
        paths.evaluations, paths.progress, paths.curve,
        f"{config.name}: {config.env} {changed}", baseline, curve,
    )  # fmt: skip
    return {
        "final_evaluation": rows,
        "run_baselines": run_baselines,
        "targets": targets(config, rows, baseline),
        "videos": [str(v.relative_to(paths.out)) for v in videos],
    }


def summary(results: dict) -> str:
    if results.get("agent") == "exit":
        head = (
            f"{results['name']}: {results['rounds']} rounds of expert iteration, "
            f"{results['timesteps']:,} decisions searched in {results['training_minutes']:.1f} min"
        )
    else:
        head = (
            f"{results['name']}: {results['timesteps']:,} learner steps in "
            f"{results['training_minutes']:.1f} min ({results['training_steps_per_s']} steps/s "
            "while training)"
        )
    lines = [head]
    for r in results["final_evaluation"]:
        what = (
            "games won per run" if r["opponent"] == RUN_OPPONENT else f"win rate vs {r['opponent']}"
        )
        if r.get("setting"):
            what = f"{r['setting']}: {what}"
        lines.append(
            f"  {what}: {r['win_rate']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}] "
            f"({r['games']} {'runs' if r['opponent'] == RUN_OPPONENT else 'games'})"
        )
        if r.get("opponent_reward") is not None:  # a one-seat game: the same deals played alone
            lines.append(
                f"    mean reward {r['mean_reward']:.3f}, {r['opponent']}'s "
                f"{r['opponent_reward']:.3f}"
            )
    for spec, b in results["run_baselines"].items():
        lines.append(
            f"  {spec} baseline: {b['mean']:.3f} [{b['ci_low']:.3f}, {b['ci_high']:.3f}] per run"
        )
    for t in results["targets"]:
        lines.append(f"  target {t['target']}: {'met' if t['met'] else 'NOT met'}")
    if results["videos"]:
        lines.append("  videos: " + ", ".join(results["videos"]))
    if results.get("time_split_s"):
        lines.append(
            "  time (s): " + ", ".join(f"{k} {v}" for k, v in results["time_split_s"].items())
        )
    return "\n".join(lines)


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    p = parser or argparse.ArgumentParser(
        prog="python -m card_envs.training.train", description=__doc__
    )
    p.add_argument("--config", required=True, help="YAML file (configs/training/)")
    p.add_argument("--resume", action="store_true", help="continue from the last checkpoint")
    p.add_argument("--restart", action="store_true", help="discard the output directory first")
    p.add_argument("--ship", action="store_true", help="copy the model into card_envs/models")
    p.add_argument("--total-timesteps", type=int, help="override total_timesteps")
    p.add_argument("--time-limit-minutes", type=float, help="override time_limit_minutes")
    p.add_argument("--out", help="override the output directory")
    p.add_argument("--seed", type=int, help="override the seed")
    p.add_argument(
        "--backend", choices=["sb3", "rllib"], default="sb3",
        help="sb3: MaskablePPO on this machine (default); rllib: RLlib PPO on Ray",
    )  # fmt: skip
    p.add_argument("--address", help="rllib: a Ray cluster (auto, ray://host:port)")
    p.add_argument(
        "--num-env-runners",
        type=int,
        help="rllib: Ray actors stepping games (rllib.num_env_runners)",
    )
    return p


def run(args: argparse.Namespace) -> dict:
    if args.resume and args.restart:
        raise TrainConfigError("--resume and --restart exclude each other")
    config = load_config(
        args.config,
        total_timesteps=args.total_timesteps,
        time_limit_minutes=args.time_limit_minutes,
        out=args.out,
        seed=args.seed,
    )
    if args.backend == "sb3" and (args.address or args.num_env_runners is not None):
        raise TrainConfigError("--address and --num-env-runners need --backend rllib")
    if args.backend == "rllib" and config.exit is not None:
        raise TrainConfigError(
            "an exit: section (expert iteration) trains with --backend sb3 only: drop --backend "
            "rllib, or the exit: section"
        )
    if args.backend == "rllib" and args.ship:
        raise TrainConfigError(
            "--ship packages a MaskablePPO model; an rllib run's learner plays as the agent "
            "spec rllib:<out>/rllib_module"
        )
    try:
        if args.backend == "rllib":
            from card_envs.training.rllib.train import train as train_rllib

            results = train_rllib(
                config, args.resume, args.restart, args.address, args.num_env_runners
            )
        elif config.exit is not None:
            results = train_exit(config, resume=args.resume, restart=args.restart)
        else:
            results = train(config, resume=args.resume, restart=args.restart)
    except KeyboardInterrupt:
        print(
            f"\ninterrupted: run the same command with --resume to continue from the last "
            f"checkpoint in {config.out}/checkpoints",
            file=sys.stderr,
        )
        raise SystemExit(130) from None
    print(summary(results))
    if args.backend == "rllib":
        print(f"wrote {config.out}/ (results.json, CSVs, tensorboard/, rllib_module/)")
        print(f"play it: --agents {results['agent_spec']}")
    else:
        print(
            f"wrote {config.out}/ (model.zip, results.json, learning_curve.png, CSVs, tensorboard/)"
        )
    if args.ship:
        print(f"shipped {ship(Path(config.out))}")
    return results


def main(argv: list[str] | None = None) -> None:
    from card_envs.commands import one_line_errors

    args = build_parser().parse_args(argv)
    with one_line_errors("train"):
        run(args)


if __name__ == "__main__":
    main()

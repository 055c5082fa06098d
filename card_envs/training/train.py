"""Train from a YAML config, in the way its sections name (configs/training/, docs/training.md).

    python -m card_envs.training.train --config configs/training/no_thanks.yaml
    card-envs train --config configs/training/no_thanks.yaml      # the same

One folder per way of training, over the shared run machinery (`config`, `run`, `monitor`,
`opponents`, `curves`, `ship`): `training.ppo` (MaskablePPO in one rotating seat, the
default), `training.selfplay` (a `selfplay:` section: every seat is the network), and
`training.exit` (an `exit:` section: expert iteration); `--backend rllib` trains with
`training.rllib`. `--resume` continues from the last checkpoint; `--ship` copies the model
into the package (`card_envs/models/`), where its agent spec finds it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from card_envs.agents.ppo import model_file
from card_envs.training.config import RUN_OPPONENT, TrainConfigError, load_config
from card_envs.training.ship import MODELS, check_overwrite, ship


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


def agent_of(config) -> str:
    """The agent spec a run of `config` ships as: `exit`, `selfplay` or `ppo`."""
    if config.exit is not None:
        return "exit"
    return "ppo" if config.selfplay is None else "selfplay"


def way_of_training(config):
    """The `train` function of the config's way of training (its sections say which)."""
    if config.exit is not None:
        from card_envs.training.exit.train import train_exit

        return train_exit
    if config.selfplay is not None:
        from card_envs.training.selfplay.train import train_selfplay

        return train_selfplay
    from card_envs.training.ppo.train import train

    return train


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    p = parser or argparse.ArgumentParser(
        prog="python -m card_envs.training.train", description=__doc__
    )
    p.add_argument("--config", required=True, help="YAML file (configs/training/)")
    p.add_argument("--resume", action="store_true", help="continue from the last checkpoint")
    p.add_argument("--restart", action="store_true", help="discard the output directory first")
    p.add_argument("--ship", action="store_true", help="copy the model into card_envs/models")
    p.add_argument("--force", action="store_true", help="with --ship: replace a shipped network")
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
    for way, what in (("exit", "expert iteration"), ("selfplay", "all-seat self-play")):
        if args.backend == "rllib" and getattr(config, way) is not None:
            raise TrainConfigError(
                f"a {way}: section ({what}) trains with --backend sb3 only: drop --backend "
                f"rllib, or the {way}: section"
            )
    if args.backend == "rllib" and args.ship:
        raise TrainConfigError(
            "--ship packages a MaskablePPO model; an rllib run's learner plays as the agent "
            "spec rllib:<out>/rllib_module"
        )
    if args.force and not args.ship:
        raise TrainConfigError("--force goes with --ship (it replaces a shipped network)")
    if args.ship:  # before the training, not after the hour
        check_overwrite(
            Path(config.out), MODELS / model_file(config.env, agent_of(config)), args.force
        )
    try:
        if args.backend == "rllib":
            from card_envs.training.rllib.train import train as train_rllib

            results = train_rllib(
                config, args.resume, args.restart, args.address, args.num_env_runners
            )
        else:
            results = way_of_training(config)(config, resume=args.resume, restart=args.restart)
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
        print(f"shipped {ship(Path(config.out), force=args.force)}")
    return results


def main(argv: list[str] | None = None) -> None:
    from card_envs.commands import one_line_errors

    args = build_parser().parse_args(argv)
    with one_line_errors("train"):
        run(args)


if __name__ == "__main__":
    main()

"""Wall time until a trainer's network beats the heuristic, for SB3's MaskablePPO, the
all-seat self-play trainer and the single-file CleanRL-style masked PPO example
(examples/cleanrl_masked_ppo.py), in one run.

    python -m benchmarks.time_to_beat [--game no_thanks ...] [--minutes 60] [--runs DIR]
                                      [--trainer sb3|selfplay|cleanrl ...]
                                      [--out docs/figures/time_to_beat.md]

SB3 and self-play train the game's shipped config (`configs/training/GAME.yaml` and
`configs/training/selfplay/GAME.yaml`) from a new network (no imitation warm start); the
CleanRL example trains its own defaults from a new network, in the learner's seat of the
main config against the heuristic only (the shipped configs train every player count
against a pool of opponents, a wider task). Each has a periodic evaluation of 800 games
against the heuristic at the main config (seat-balanced, the same deals every time), until
the evaluation's 95% interval (its low end) clears the fair share 1/N, or `--minutes` of
wall time (evaluations included) have passed. The figure is the wall time of the first
evaluation that clears it; where none does, the best win rate within the limit. The
evaluations come every `--every-sb3`, `--every-selfplay` and `--every-cleanrl` learner steps
(about half a minute of training each for the first two at the shipped sizes on the 2-core
machine, about ten seconds for the example). Each trainer runs in a process of its own on
one core (torch and the env on one thread each), two at a time: SB3 and self-play side by
side, then the example on the first core to come free, so that a game takes about the longer
of the first two plus the example's time.
`--runs DIR` keeps each run's folder (`DIR/GAME-sb3`, `DIR/GAME-selfplay`: its model.zip
and evaluations; `DIR/GAME-cleanrl`: agent.pt and log.json), so that a run that went the
whole limit can be played against `ppo`. `--trainer` (repeatable) runs only some trainers,
for a look: it cannot write a page, whose game sections always hold every trainer's row from
one run."""

from __future__ import annotations

import argparse
import contextlib
import csv
import importlib.util
import multiprocessing
import tempfile
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

from card_envs.registry import make_game
from card_envs.testing.report import command_line, printed, write_sections_page
from card_envs.training.config import UNBOUNDED, load_config, seat_multiple

PROG = "python -m benchmarks.time_to_beat"
GAMES = ("no_thanks", "surfosaurus_max", "double_or_nothing", "super_zwierzaki", "rummidrez")
TRAINERS = {"sb3": "SB3 MaskablePPO", "selfplay": "all-seat self-play",
            "cleanrl": "CleanRL masked PPO example"}  # fmt: skip
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "cleanrl_masked_ppo.py"
EVAL_GAMES = 800
TITLE = "Time to beat the heuristic"
ABOUT = (
    f"Written by `{PROG}` (see its docstring): wall minutes until a periodic evaluation of "
    f"{EVAL_GAMES} games against the heuristic at the main config clears the fair share "
    "(the low end of its 95% interval above 1/N), for SB3's MaskablePPO and for all-seat "
    "self-play, each from a new network at its shipped config, and for the single-file "
    "CleanRL-style masked PPO example (`examples/cleanrl_masked_ppo.py`, its defaults: the main "
    "config against the heuristic only, a narrower task than the shipped configs' mix of "
    "player counts and opponents), each on a core of its own in one run; a game's section is "
    "replaced by the next run of that game, under that run's header."
)


def _config(path: str, minutes: float, every: int, out: Path):
    cfg = load_config(path, total_timesteps=UNBOUNDED, time_limit_minutes=minutes, out=str(out))
    n = cfg.num_players
    return replace(
        cfg, imitation=None, eval_against=("heuristic",), eval_every=every,
        eval_games=seat_multiple(EVAL_GAMES, n), final_eval_games=n, eval_runs=0,
        checkpoint_every=UNBOUNDED, video_episodes=0, torch_threads=1, num_threads=1,
    )  # fmt: skip


def cleared(rows: list[dict]) -> bool:
    return any(r["opponent"] == "heuristic" and r["ci_low"] > r["fair_share"] for r in rows)


def _run(game: str, trainer: str, minutes: float, every: int, tmp: Path) -> dict:
    """The periodic heuristic evaluations of one trainer's run, and when it cleared."""
    if trainer == "cleanrl":
        return _run_example(game, minutes, every, tmp)
    from card_envs.training.ppo.train import train
    from card_envs.training.selfplay.train import train_selfplay

    path = f"configs/training/{game}.yaml"
    if trainer == "selfplay":
        path = f"configs/training/selfplay/{game}.yaml"
    cfg = _config(path, minutes, every, tmp / f"{game}-{trainer}")
    run = train_selfplay if trainer == "selfplay" else train
    res = run(cfg, echo=lambda _: None, stop_when=cleared)
    with (Path(cfg.out) / "evaluations.csv").open(newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["kind"] == "periodic"]
    rows = [{k: float(r[k]) for k in ("minutes", "timesteps", "win_rate", "ci_low", "ci_high",
                                       "fair_share")} for r in rows]  # fmt: skip
    return _result(cfg.env, cfg.config, rows, res["training_steps_per_s"])


def _result(env: str, config: dict, rows: list[dict], steps_per_s: float | None) -> dict:
    first = next((r for r in rows if r["ci_low"] > r["fair_share"]), None)
    best = max(rows, key=lambda r: r["win_rate"])
    return {"config": SimpleNamespace(env=env, config=config), "rows": rows, "first": first,
            "best": best, "steps_per_s": steps_per_s}  # fmt: skip


def example_main():
    """`main` of examples/cleanrl_masked_ppo.py (a script, not a module of the package)."""
    spec = importlib.util.spec_from_file_location("cleanrl_masked_ppo", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.main


def _run_example(game: str, minutes: float, every: int, tmp: Path) -> dict:
    """The CleanRL example at its defaults, in a seat of the main config (the shipped SB3
    config's evaluation setting) against the heuristic."""
    shipped = load_config(f"configs/training/{game}.yaml")
    n = shipped.num_players
    default = make_game(shipped.env, num_players=n).config
    options = [f"{k}={v!r}" for k, v in shipped.config.items() if default.get(k) != v]
    argv = ["--env-id", shipped.env, "--num-players", str(n), "--env-config", *options,
            "--seed", str(shipped.seed), "--total-timesteps", str(UNBOUNDED),
            "--time-limit-minutes", str(minutes), "--eval-every", str(every),
            "--eval-games", str(seat_multiple(EVAL_GAMES, n)), "--stop-when-beaten",
            "--out", str(tmp / f"{game}-cleanrl")]  # fmt: skip
    log = example_main()(argv)
    rows = [{"timesteps": float(r["step"]), **{k: float(r[k]) for k in ("minutes", "win_rate",
            "ci_low", "ci_high", "fair_share")}} for r in log["evals"]]  # fmt: skip
    return _result(shipped.env, shipped.config, rows, log["steps_per_s"])


def _every(args: argparse.Namespace) -> dict[str, int]:
    return {"sb3": args.every_sb3, "selfplay": args.every_selfplay, "cleanrl": args.every_cleanrl}


def _trainers(game: str, args: argparse.Namespace, tmp: Path) -> dict[str, dict]:
    """The trainers' runs of `game`, each in a process of its own, two at a time (SB3 and
    self-play first, the example on the first core to come free)."""
    every = _every(args)
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = {way: pool.submit(_run, game, way, args.minutes, every[way], tmp)
                   for way in args.trainers}  # fmt: skip
        return {way: f.result() for way, f in futures.items()}


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog=PROG)
    p.add_argument("--game", action="append", choices=GAMES, help="repeatable (default: all)")
    p.add_argument("--minutes", type=float, default=60.0, help="each run's wall-time limit")
    p.add_argument("--every-sb3", type=int, default=250_000, help="SB3's evaluation interval")
    p.add_argument(
        "--every-selfplay", type=int, default=1_000_000, help="self-play's evaluation interval"
    )
    p.add_argument(
        "--every-cleanrl", type=int, default=250_000, help="the example's evaluation interval"
    )
    p.add_argument("--trainer", action="append", choices=list(TRAINERS),
                   help="repeatable (default: all); a subset cannot write --out")  # fmt: skip
    p.add_argument("--runs", metavar="DIR", help="keep the runs here (default: a temp folder)")
    p.add_argument("--out", metavar="PAGE", help="also write the report as a figures page")
    args = p.parse_args(argv)
    args.trainers = [t for t in TRAINERS if t in (args.trainer or TRAINERS)]
    if args.out and len(args.trainers) < len(TRAINERS):
        p.error("--out writes every trainer's row of a game: leave out --trainer")
    games = args.game or list(GAMES)
    runs = contextlib.nullcontext(args.runs) if args.runs else tempfile.TemporaryDirectory()
    with runs as tmp:
        for game in games:
            print(f"\n## {game}")
            with printed() as report:
                print(f"\n{EVAL_GAMES} evaluation games against the heuristic, {args.minutes:g} "
                      "min limit\n")  # fmt: skip
                print("| trainer | config | evaluated every | cleared after | then | best "
                      "within the limit | learner steps/s | x SB3's time |")  # fmt: skip
                print("|---|---|---:|---:|---|---|---:|---:|")
                results = _trainers(game, args, Path(tmp))
                for way, r in results.items():
                    _line(TRAINERS[way], r, _every(args)[way], results.get("sb3"))
            if args.out:  # each game's section as soon as it is measured
                command = command_line(PROG, argv)
                write_sections_page(args.out, TITLE, ABOUT, command, {game: report.getvalue()})


def _line(name: str, r: dict, every: int, sb3: dict | None) -> None:
    cfg = r["config"]
    first, best = r["first"], r["best"]

    def rate(row: dict) -> str:
        return f"{row['win_rate']:.3f} [{row['ci_low']:.3f}, {row['ci_high']:.3f}]"

    when = f"{first['minutes']:.1f} min" if first else "not within the limit"
    then = f"{rate(first)} at {first['timesteps']:,.0f} steps" if first else ""
    ratio = ""
    if first and sb3 and sb3["first"]:
        ratio = f"{first['minutes'] / sb3['first']['minutes']:.2f}x"
    setting = f"{cfg.env} {cfg.config}"
    print(f"| {name} | {setting} | {every:,} | {when} | {then} | {rate(best)} at "
          f"{best['minutes']:.1f} min | {r['steps_per_s'] or 0:,.0f} | {ratio} |")  # fmt: skip


if __name__ == "__main__":
    main()

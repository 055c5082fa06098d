"""A trained network against the shipped `ppo` model, every setting of its training mix: the
decision whether all-seat self-play's network is shipped (docs/selfplay.md).

    python -m benchmarks.selfplay_strength --game no_thanks
        --model runs/training/no_thanks_selfplay/model.zip [--games 400] [--out PAGE]

Per setting of the game's self-play config (`configs/training/selfplay/GAME.yaml`), the
model in one seat and the shipped `ppo` in every other (seat-balanced, `--games` games, the
same deals for every model), and the same against the heuristic for scale. A setting is
cleared where the low end of the win rate's 95% interval is above the fair share 1/N
(benchmarks/exit.py's rule; Super Zwierzaki's goal: the heuristic's in 20 of its 22 settings).
"""

from __future__ import annotations

import argparse

from card_envs.evaluation import evaluate
from card_envs.testing.report import command_line, printed, write_page
from card_envs.training.config import load_config, seat_multiple

PROG = "python -m benchmarks.selfplay_strength"
SEED = 20_261_202
ABOUT = (
    f"Written by `{PROG}` (see its docstring): a network trained by all-seat self-play in one "
    "seat, the shipped `ppo` (and, for scale, the heuristic) in every other, seat-balanced, "
    "every setting of its training mix."
)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog=PROG)
    p.add_argument("--game", required=True, help="a config in configs/training/selfplay/")
    p.add_argument("--model", required=True, help="the trained network (model.zip)")
    p.add_argument("--games", type=int, default=400, help="games per setting and opponent")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--out", metavar="PAGE", help="also write the report as a figures page")
    args = p.parse_args(argv)
    cfg = load_config(f"configs/training/selfplay/{args.game}.yaml")
    mine = f"ppo:{args.model}"
    with printed() as report:
        print(f"{args.game}: `{args.model}` against the shipped ppo, {args.games} games a "
              "setting and opponent\n")  # fmt: skip
        print("| setting | fair share | vs ppo | cleared | vs heuristic | cleared |")
        print("|---|---:|---|---|---|---|")
        cleared = [0, 0]  # against ppo, against the heuristic
        for setting in cfg.settings:
            n = setting["num_players"]
            games = seat_multiple(args.games, n)
            rates = []
            for other in ("ppo", "heuristic"):
                ev = evaluate(cfg.env, [mine] + [other] * (n - 1), games=games, seed=SEED,
                              workers=args.workers, progress=False, **setting)  # fmt: skip
                rates.append(ev[0])
            name = cfg.setting_name(setting) or str(setting)
            cells = [f"| {name} | {1 / n:.3f} "]
            for k, s in enumerate(rates):
                ok = s.win_rate_ci[0] > 1 / n
                cleared[k] += ok
                cells.append(f"| {s.win_rate:.3f} [{s.win_rate_ci[0]:.3f}, "
                             f"{s.win_rate_ci[1]:.3f}] | {'yes' if ok else 'no'} ")  # fmt: skip
            print("".join(cells) + "|")
        print(f"\ncleared against ppo in {cleared[0]} of {len(cfg.settings)} settings, against "
              f"the heuristic in {cleared[1]}\n")  # fmt: skip
    if args.out:
        write_page(args.out, f"Self-play against ppo: {args.game}", ABOUT,
                   command_line(PROG, argv), report.getvalue())  # fmt: skip


if __name__ == "__main__":
    main()

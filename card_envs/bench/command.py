"""`card-envs bench SPEC [SPEC ...]`: bench each agent, write its scorecard, and with
`--page` a figures page holding all of them (docs/figures/bench.md is written so)."""

from __future__ import annotations

import argparse
from pathlib import Path

from card_envs.bench import protocol
from card_envs.bench.run import DEFAULT_DB, Settings, bench, default_out, select
from card_envs.bench.scorecard import Scorecard
from card_envs.commands import resumable
from card_envs.testing.report import command_line, header

ABOUT = (
    "Written by `card-envs bench` (docs/bench.md): the built-in agents' scorecards on "
    f"{protocol.VERSION}, each in one seat against the panel in every other seat, seats "
    "balanced, on the protocol's fixed deals. Bench your agent with the same command and "
    "put its scorecard beside these: the same protocol and agent give the same numbers on "
    "any machine (milliseconds per move excepted)."
)


def build_parser(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    p.add_argument("specs", nargs="+", metavar="SPEC", help="the agents to bench (docs/specs.md)")
    p.add_argument(
        "--env", action="append", help=f"only this game's cells (repeatable): {protocol.ENV_IDS}"
    )
    p.add_argument(
        "--players",
        type=int,
        action="append",
        help="only the cells with this many players (repeatable)",
    )
    p.add_argument("--out", help="scorecard directory (default runs/bench/<spec>; one spec)")
    p.add_argument("--db", default=DEFAULT_DB, help=f"SQLite store (default {DEFAULT_DB})")
    p.add_argument("--backend", choices=["local", "ray"], default="local")
    p.add_argument("--ray-address", help="existing Ray cluster (default: start a local Ray)")
    p.add_argument("--workers", type=int, help="processes / Ray CPUs (default all cores)")
    p.add_argument(
        "--exploit",
        type=float,
        metavar="MINUTES",
        help="also train an exploiter against it for MINUTES per game (at the main "
        "tournament's player count) and report the exploitability bound",
    )
    p.add_argument("--page", help="also write every scorecard to this Markdown page")
    p.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        help="show a progress bar (default: when stderr is a terminal)",
    )
    p.add_argument("--restart", action="store_true", help="discard the stored games first")
    return p


def exploit_bounds(card: Scorecard, minutes: float, out: Path, workers: int | None) -> None:
    """The exploitability bound of the candidate on each multi-seat game it was benched on."""
    from card_envs.training.exploit import exploit, make_request, summary

    for env_id in card.env_ids:
        if env_id not in protocol.EXPLOIT:
            continue
        request = make_request(
            env_id, protocol.EXPLOIT[env_id], card.spec, minutes, seed=protocol.SEED % 2**31,
            out=str(out / "exploit" / env_id),
        )  # fmt: skip
        results = exploit(request, workers=workers or 1)
        print(summary(results))
        card.exploit.append(results["exploit"])


def run(args: argparse.Namespace) -> list[Scorecard]:
    if args.out and len(args.specs) > 1:
        raise ValueError("--out names one scorecard's directory: bench one spec, or leave it out")
    select(args.env, players=args.players)  # an unknown env id fails before anything runs
    settings = Settings(
        args.db, args.backend, args.workers, args.ray_address, args.progress, args.restart
    )
    cards = []
    for spec in args.specs:
        with resumable(args.db):
            card = bench(spec, env_ids=args.env, settings=settings, players=args.players)
        out = Path(args.out) if args.out else default_out(card.spec)
        if args.exploit is not None:
            exploit_bounds(card, args.exploit, out, args.workers)
        print()
        print(card.markdown())
        files = card.write(out)
        print(f"wrote {', '.join(map(str, files))}")
        cards.append(card)
    if args.page:
        write_page(Path(args.page), cards, command_line("card-envs", None))
        print(f"wrote {args.page}")
    return cards


def write_page(path: Path, cards: list[Scorecard], command: str) -> None:
    """The figures page: where it ran, the cells, and each scorecard with its picture (PNGs
    in a folder beside the page)."""
    pictures = path.with_suffix("")
    pictures.mkdir(parents=True, exist_ok=True)
    lines = [f"# Scorecards of the built-in agents ({protocol.VERSION})", "", ABOUT, ""]
    lines += [*header(command), ""]
    for card in cards:
        picture = card.plot(pictures / f"{default_out(card.spec).name}.png")
        lines += [card.markdown(), f"![{card.spec}]({pictures.name}/{picture.name})", ""]
    path.write_text("\n".join(lines))

"""The `card-envs` command line."""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from typing import TYPE_CHECKING

from card_envs.agents.registry import SPEC_HELP
from card_envs.agents.specs import split_entries, split_name
from card_envs.commands import one_line_errors, parse_config_pairs, resumable
from card_envs.registry import env_ids

if TYPE_CHECKING:
    from card_envs.evaluation import Evaluation


def _evaluate(args: argparse.Namespace, workers: int | None, **kwargs) -> Evaluation:
    """Run `evaluate` for `play` / `evaluate`, its warnings printed as notes, and print the
    table."""
    from card_envs.evaluation import evaluate

    entries = [split_name(item) for item in args.agents]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ev = evaluate(
            args.env_id,
            [spec for _, spec in entries],
            names=[name for name, _ in entries],
            games=args.games,
            seed=args.seed,
            workers=workers,
            progress=args.progress,
            **kwargs,
            **parse_config_pairs(args.config),
        )
    for w in caught:
        print(f"note: {w.message}")
    print(ev.table())
    if getattr(args, "out", None):  # evaluate --out
        print(f"wrote {ev.write(args.out)}")
    return ev


def cmd_play(args: argparse.Namespace) -> None:
    if "human" in args.agents:
        from card_envs.play import Quit, play

        try:
            play(
                args.env_id,
                args.agents,
                parse_config_pairs(args.config),
                args.seed,
                args.games or 1,
            )
        except (Quit, KeyboardInterrupt):
            print("\nYou left the game; goodbye.")
        return
    args.games = args.games or 1000
    ev = _evaluate(args, workers=1, chunk_games=args.num_envs)
    steps = int(ev.results.lengths.sum())
    print(f"{steps} steps in {ev.seconds:.2f} s ({steps / ev.seconds:,.0f} steps/s, incl. agents)")


def cmd_evaluate(args: argparse.Namespace) -> None:
    if args.positions:
        args.games = args.games or len(args.agents)
        states = _positions_for(args)
        ev = _evaluate(args, workers=args.workers, positions=states)
        print(f"{ev.games} games from {len(states)} position(s) in {ev.seconds:.2f} s")
        return
    args.games = args.games or 1000
    ev = _evaluate(args, workers=args.workers)
    print(f"{ev.games} games in {ev.seconds:.2f} s")


def _positions_for(args: argparse.Namespace) -> list[dict]:
    """The running positions of `--positions FILE` that this command's env and config play
    (a file may hold several games and configs)."""
    from card_envs.positions import read_file
    from card_envs.registry import make_game

    config = {"num_players": len(args.agents), **parse_config_pairs(args.config)}
    game = make_game(args.env_id, **config)
    found = read_file(args.positions)
    mine = [
        p for p in found
        if p.env_id == game.env_id and p.config == game.config and p.state["status"] == "running"
    ]  # fmt: skip
    if not mine:
        have = sorted({f"{p.env_id} {p.config} ({p.state['status']})" for p in found})
        raise ValueError(
            f"{args.positions}: no running position of {game.env_id} {game.config}; "
            f"the file has {have}"
        )
    if len(mine) < len(found):
        print(f"note: playing {len(mine)} of the file's {len(found)} positions (this config's)")
    return [p.state for p in mine]


def _event_from_flags(args: argparse.Namespace) -> dict:
    agents = []
    for item in args.agents:  # name=spec enters a spec under its own name
        name, spec = split_name(item)
        agents.append(spec if name is None else {"name": name, "spec": spec})
    event: dict = {"env": args.env, "agents": agents}
    if args.env_config:
        event["config"] = parse_config_pairs(args.env_config)
    for key in ("format", "games", "tables", "rank_by"):
        value = getattr(args, key)
        if value is not None:
            event[key] = value
    return event


_EVENT_FLAGS = ("env", "agents", "env_config", "format", "games", "tables", "rank_by")


def cmd_tournament(args: argparse.Namespace) -> None:
    from card_envs.tournament import (
        format_table,
        load_config,
        parse_config,
        run_tournament,
    )

    top = {
        "name": args.name,
        "seed": args.seed,
        "db": args.db,
        "out": args.out,
        "backend": args.backend,
        "workers": args.workers,
        "ray_address": args.ray_address,
        "chunk_games": args.chunk_games,
        "records": True if args.records else None,
        "record_policy": True if args.record_policy else None,
        "progress": args.progress,
    }
    if args.config_file:
        given = [f"--{f.replace('_', '-')}" for f in _EVENT_FLAGS if getattr(args, f)]
        if given:
            raise ValueError(
                f"{', '.join(given)} cannot be combined with --config: put them in the file, "
                "or leave out --config"
            )
        config = load_config(args.config_file, **top)
    elif args.env and args.agents:
        raw = {k: v for k, v in top.items() if v is not None}
        raw["events"] = [_event_from_flags(args)]
        config = parse_config(raw, source="command line", default_name=args.env)
    else:
        raise ValueError("tournament needs --config FILE, or --env ID and --agents a,b,...")
    start = time.perf_counter()
    with resumable(config.db):
        result = run_tournament(config, restart=args.restart, echo=print)
    for board in result.leaderboards:
        print()
        print(format_table(board))
    print()
    print(f"wrote {', '.join(str(f) for f in result.files)}")
    print(
        f"{result.played} games played, {result.already_stored} were already in {config.db}; "
        f"{time.perf_counter() - start:.1f} s"
    )


def cmd_replay(args: argparse.Namespace) -> None:
    from card_envs.tournament import check_replay, moves_text, read_jsonl

    checked = 0
    bad = 0
    for rec in read_jsonl(args.records):
        if args.limit is not None and checked >= args.limit:
            break
        if args.show:
            print(moves_text(rec))
        diffs = check_replay(rec)
        checked += 1
        if diffs:
            bad += 1
            where = f"{rec['event']} table {rec['table']} game {rec['game']}"
            print(f"MISMATCH {where}: " + "; ".join(diffs))
    print(f"{checked} games replayed into the AEC env, {checked - bad} reproduce their results")
    if bad:
        raise SystemExit(1)


def cmd_serve(args: argparse.Namespace) -> None:
    from card_envs.web.server import App, make_server
    from card_envs.web.sources import Sources

    agents = {}
    for item in args.agents:
        name, spec = split_name(item)
        agents[name or spec] = spec
    app = App(Sources(args.records, args.store), agents=agents)
    server = make_server(app, args.host, args.port)
    host, port = server.server_address[:2]
    print(f"card-envs: serving on http://{host}:{port}/ (Ctrl-C stops)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("\nstopped")
    finally:
        server.server_close()


def cmd_mcp(args: argparse.Namespace) -> None:
    from card_envs.mcp_server import run

    agents = {}
    for item in args.agents:
        name, spec = split_name(item)
        agents[name or spec] = spec
    run(agents)


def cmd_train(args: argparse.Namespace) -> None:
    from card_envs.training.train import run

    run(args)


def cmd_dataset(args: argparse.Namespace) -> None:
    from card_envs.dataset import run

    run(args)


def cmd_bench(args: argparse.Namespace) -> None:
    from card_envs.bench.command import run

    run(args)


def cmd_exploit(args: argparse.Namespace) -> None:
    from card_envs.training.exploit import run

    run(args)


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive int, got {text}")
    return value


def _specs(text: str) -> list[str]:
    return split_entries(text)


AGENT_HELP = f"comma-separated agent specs: {SPEC_HELP}"


def _progress_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        help="show a progress bar (--no-progress: never; default: when stderr is a terminal)",
    )


def _lineup_parser(sub, name: str, help: str) -> argparse.ArgumentParser:
    """A parser for `play` or `evaluate`: both take one line-up of agents."""
    p = sub.add_parser(name, help=help)
    p.add_argument("env_id", help=f"one of {env_ids()}")
    p.add_argument("--agents", type=_specs, required=True, help=AGENT_HELP + ", one per seat")
    p.add_argument(
        "--games", type=_positive_int, help="default 1000; 1 when a human plays (play only)"
    )
    p.add_argument("--seed", type=int, default=0)
    _progress_flag(p)
    p.add_argument(
        "--env-config",
        "--config",  # the older name, kept: these commands read no YAML file
        dest="config",
        nargs="*",
        default=[],
        help="game options as key=value (--config: the same)",
    )
    return p


def build_parser() -> argparse.ArgumentParser:
    """The whole command line (the docs' commands are checked against it)."""
    parser = argparse.ArgumentParser(prog="card-envs", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list the env ids")
    p = _lineup_parser(
        sub,
        "play",
        "play in the terminal (--agents human,...: a person in a seat, several for hot seat), "
        "or seat-rotated games between agents in this process: results and steps/s",
    )
    p.add_argument("--num-envs", type=_positive_int, default=256, help="instances stepped together")
    e = _lineup_parser(
        sub, "evaluate", "seat-balanced evaluation with confidence intervals, on all cores"
    )
    e.add_argument("--workers", type=_positive_int, default=None, help="default: all cores")
    e.add_argument(
        "--positions",
        help="a positions YAML file (docs/evaluation.md): play from each of its positions of "
        "this env and config, --games times (default: once from every seat)",
    )
    e.add_argument(
        "--out",
        help="also write the result to FILE.json or FILE.csv: the table, the intervals, the "
        "config, the seeds and each agent's digest",
    )

    t = sub.add_parser(
        "tournament",
        help="a tournament from a YAML config (or flags): SQLite, resumable, leaderboards",
        description="Run a tournament: every finished game goes to SQLite, and running the "
        "same command again resumes it. See docs/tournaments.md.",
    )
    t.add_argument("--config", dest="config_file", help="YAML file (configs/tournaments/)")
    t.add_argument("--env", help="quick use without a file: the env id")
    t.add_argument(
        "--agents",
        type=_specs,
        help=AGENT_HELP + "; name=spec enters a spec again under another name (the field)",
    )
    t.add_argument("--env-config", nargs="*", default=[], help="game options as key=value")
    t.add_argument("--format", choices=["round_robin", "random_tables"])
    t.add_argument("--games", type=_positive_int, help="games per table (per pairing)")
    t.add_argument("--tables", type=_positive_int, help="random tables to draw")
    t.add_argument("--rank-by", choices=["win", "score_low", "score_high"])
    t.add_argument("--name", help="tournament name in the database")
    t.add_argument("--seed", type=int)
    t.add_argument("--db", help="SQLite file (default runs/tournaments.sqlite)")
    t.add_argument("--out", help="output directory (default runs/tournaments/<name>)")
    t.add_argument("--backend", choices=["local", "ray"])
    t.add_argument("--ray-address", help="existing Ray cluster (default: start a local Ray)")
    t.add_argument("--workers", type=_positive_int, help="processes / Ray CPUs (default all)")
    t.add_argument("--chunk-games", type=_positive_int, help="games per task")
    t.add_argument("--records", action="store_true", help="write JSONL game records")
    t.add_argument(
        "--record-policy",
        action="store_true",
        help="store each decision's top action probabilities and value (ppo, ismcts)",
    )
    _progress_flag(t)
    t.add_argument("--restart", action="store_true", help="discard the stored games first")

    tr = sub.add_parser(
        "train",
        help="train a MaskablePPO baseline, or by expert iteration with an exit: section, "
        "from a YAML config (needs the train extra)",
        description="Train a MaskablePPO baseline (docs/training.md), or a network by expert "
        "iteration when the config has an exit: section (docs/exit.md).",
    )
    from card_envs.training.train import build_parser

    build_parser(tr)

    x = sub.add_parser(
        "exploit",
        help="a lower bound on an agent's exploitability: train against it, then evaluate",
        description="Train a fresh learner against a frozen target; see docs/evaluation.md.",
    )
    from card_envs.training.exploit import build_parser as build_exploit_parser

    build_exploit_parser(x)

    b = sub.add_parser(
        "bench",
        help="the standard benchmark: an agent through bench-v1's fixed cells, a scorecard",
        description="Bench agents on the versioned protocol (every game, player count and "
        "panel agent); resumable. See docs/bench.md.",
    )
    from card_envs.bench.command import build_parser as build_bench_parser

    build_bench_parser(b)

    d = sub.add_parser(
        "dataset",
        help="played games as a Minari dataset for offline RL (needs the data extra)",
        description="Write per-seat trajectories as a Minari dataset; see docs/datasets.md.",
    )
    from card_envs.dataset import build_parser as build_dataset_parser

    build_dataset_parser(d)

    r = sub.add_parser("replay", help="replay JSONL game records into the AEC env and check")
    r.add_argument("records", help="a .jsonl file written by a tournament (--records)")
    r.add_argument("--limit", type=_positive_int, help="replay only the first N records")
    r.add_argument(
        "--show", action="store_true", help="print each game move by move: ids and names"
    )

    s = sub.add_parser(
        "serve",
        help="the browser app: play against agents, watch them, replay recorded games",
        description="Serve the web app on this machine; see docs/play.md.",
    )
    s.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    s.add_argument("--port", type=int, default=8000, help="port (default 8000; 0: a free one)")
    s.add_argument(
        "--records", nargs="*", default=[], help="JSONL record files the replay page may open"
    )
    s.add_argument(
        "--store", nargs="*", default=[], help="tournament SQLite files the replay page may open"
    )
    s.add_argument(
        "--agents",
        type=_specs,
        default=[],
        help="more agents the browser may seat, besides the built-in ones (a browser picks "
        f"one by its name, never names code): {SPEC_HELP}",
    )

    m = sub.add_parser(
        "mcp",
        help="an MCP server on stdio (needs the mcp extra): an LLM client plays a seat "
        "against the built-in agents",
        description="Serve the games over the Model Context Protocol on stdin/stdout, for a "
        "client such as Claude Desktop to start; see card_envs/mcp_server.py.",
    )
    m.add_argument(
        "--agents",
        type=_specs,
        default=[],
        help="more agents a client may seat, besides the built-in ones (a "
        f"client picks one by its name, never names code): {SPEC_HELP}",
    )

    from card_envs.testing import conformance

    c = sub.add_parser("conformance", help=conformance.DESCRIPTION)
    conformance.add_arguments(c)
    return parser


def cmd_conformance(args: argparse.Namespace) -> None:
    from card_envs.testing.conformance import run

    if run(args):
        raise SystemExit(1)


def main(argv: list[str] | None = None) -> None:
    if hasattr(sys.stdout, "reconfigure"):  # a log gets each line as it is printed
        sys.stdout.reconfigure(line_buffering=True)
    args = build_parser().parse_args(argv)
    commands = {
        "serve": cmd_serve,
        "mcp": cmd_mcp,
        "play": cmd_play,
        "evaluate": cmd_evaluate,
        "tournament": cmd_tournament,
        "replay": cmd_replay,
        "train": cmd_train,
        "exploit": cmd_exploit,
        "bench": cmd_bench,
        "dataset": cmd_dataset,
        "conformance": cmd_conformance,
    }
    if args.command == "list":
        print("\n".join(env_ids()))
        return
    with one_line_errors("card-envs"):
        commands[args.command](args)


if __name__ == "__main__":
    main()

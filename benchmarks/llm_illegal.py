"""The illegal-answer rate of a tiny language model behind a real OpenAI-compatible server.

The servers and the model are the tests' (`card_envs.testing.tiny_llm`): a Llama of random
weights with a tokenizer trained on the fly, so nothing is downloaded and the figures measure the
agent's path (prompt, HTTP, reading, retries, fallback) and the server's constraint, not a
model's play; served by `transformers serve` (the `llm` extra), which ignores
`response_format`, and by llama-cpp-python's server (installed by hand: it builds llama.cpp
from source), which constrains the answer to the schema. The `llm:` agent plays No Thanks in
one seat of three against `random`, seats balanced, with the default prompt (the rules, the
seat's view, its legal moves) and retries, asking for constrained output (`schema=auto`)
and not (`schema=off`); the page has the answers, the illegal ones, the decisions the
fallback played and the time an answer took.

    python -m benchmarks.llm_illegal --server transformers --server llama-cpp \
        --out docs/figures/llm.md
    python -m benchmarks.llm_illegal --games 6 --max-tokens 8   # quicker, printed only
"""

from __future__ import annotations

import argparse
import importlib.metadata
import tempfile
import time

from card_envs.agents.llm import usage_counts
from card_envs.evaluation import evaluate
from card_envs.testing.report import command_line, markdown, printed, write_page

PROG = "python -m benchmarks.llm_illegal"
ENV_ID, CONFIG = "no_thanks_v0", {"num_players": 3}
TITLE = "Illegal answers of a tiny language model"
ABOUT = (
    "Written by `benchmarks/llm_illegal.py`: the `llm:` agent against real "
    "OpenAI-compatible servers (`transformers serve`, llama-cpp-python's server) serving a "
    "model built on the spot (a Llama of random weights, hidden size 32, 2 layers; a "
    "byte-level BPE tokenizer trained on the games' rules), in one seat of No Thanks (3 "
    "players) against `random`, with the default prompt and retries. A model of random "
    "weights answers noise: these figures measure the agent's path and the server's "
    "constraint, not a model's play."
)
PACKAGES = {"transformers": ("transformers", "torch"), "llama-cpp": ("llama_cpp_python",)}


def measure(server, games: int, schema: str, max_tokens: int, seed: int) -> tuple:
    """The counts of `games` games with `schema`, the games played (a multiple of the
    players) and the seconds they took."""
    spec = f"llm:{server.model}:schema={schema}:max_tokens={max_tokens}:base_url={server.url}"
    t0 = time.perf_counter()
    with usage_counts() as usage:
        ev = evaluate(ENV_ID, [spec, "random", "random"], games=games, seed=seed, workers=1,
                      progress=False, **CONFIG)  # fmt: skip
    return usage.total(), ev.games, time.perf_counter() - t0


def report(rows: list[tuple], max_tokens: int) -> str:
    table = []
    for server, schema, c, games, seconds in rows:
        table.append([
            server, f"`schema={schema}`", str(games), f"{c.decisions:,}", f"{c.answers:,}",
            f"{c.illegal:,}", f"{100 * c.illegal_rate:.1f}%", f"{c.fallbacks:,}",
            f"{100 * c.fallbacks / c.decisions:.1f}%", f"{1000 * seconds / c.answers:.0f}",
        ])  # fmt: skip
    head = ["server", "asked", "games", "decisions", "answers", "illegal answers",
            "illegal rate", "fallback moves", "of decisions", "ms/answer"]  # fmt: skip
    used = dict.fromkeys(p for server, *_ in rows for p in PACKAGES[server])
    versions = ", ".join(f"{p} {importlib.metadata.version(p)}" for p in used)
    lines = [
        f"{versions}; `max_tokens={max_tokens}`, `retries=2`, `temperature=0`, `fallback=random`.",
        "",
        markdown(head, table, [False, False] + [True] * 8),
        "",
        "An answer is illegal when `Game.parse_action` reads no legal move in it (an id, "
        '`{"move": ID}`, a move\'s words); each decision takes one answer and up to two '
        "more after illegal ones, then the fallback plays a random legal move. With "
        "`schema=auto` the agent asks for the legal ids as a JSON-schema enum: "
        '`transformers serve` takes `response_format` and ignores it (it logs "Ignoring '
        "unsupported fields\"), so its answers are free text; llama-cpp-python's server "
        "refuses OpenAI's `json_schema` form and takes the `json_object` form with a "
        "`schema`, and its grammar lets the model write nothing but a legal move.",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    p.add_argument("--server", action="append", choices=list(PACKAGES),
                   help="the servers (repeatable; default transformers)")  # fmt: skip
    p.add_argument("--games", type=int, default=21, help="games per setting (default 21)")
    p.add_argument("--max-tokens", type=int, default=16, help="tokens an answer (default 16)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", help="also write the page (e.g. docs/figures/llm.md)")
    args = p.parse_args(argv)
    from card_envs.testing.tiny_llm import start_server

    rows = []
    for name in args.server or ["transformers"]:
        with tempfile.TemporaryDirectory(prefix="llm_illegal_") as folder:
            server = start_server(folder, name)
            try:
                for schema in ("off", "auto"):
                    counts = measure(server, args.games, schema, args.max_tokens, args.seed)
                    rows.append((name, schema, *counts))
            finally:
                server.stop()
    with printed() as kept:
        print(report(rows, args.max_tokens))
    if args.out:
        write_page(args.out, TITLE, ABOUT, command_line(PROG, argv), kept.getvalue())


if __name__ == "__main__":
    main()

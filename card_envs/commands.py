"""What every command line of card_envs shares (`card-envs`, and the modules that are also
`card-envs` commands: `python -m card_envs.training.train`, `.exploit`, the dataset writer):
`--config key=value` pairs and one-line errors. Below every layer, so that each can use it."""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from contextlib import contextmanager


def parse_config_pairs(pairs: list[str]) -> dict:
    config = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise SystemExit(f"--config takes key=value, got {pair!r}")
        try:
            config[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError):  # true/false as YAML configs write them, or a word
            config[key] = {"true": True, "false": False}.get(value.lower(), value)
    return config


@contextmanager
def one_line_errors(prog: str) -> Iterator[None]:
    """Bad input (a ValueError, or an ImportError naming a missing extra) ends the command
    with one line `<prog>: error: ...` and exit status 2; `python -m card_envs.training.train`
    and the other modules that are also `card-envs` commands end the same way."""
    try:
        yield
    except (ValueError, ImportError) as err:
        print(f"{prog}: error: {err}", file=sys.stderr)
        raise SystemExit(2) from None


@contextmanager
def resumable(db: object) -> Iterator[None]:
    """Ctrl-C ends a command that stores its games as it goes (tournament, bench) with one
    line saying where they are and how to go on."""
    try:
        yield
    except KeyboardInterrupt:
        print(
            f"\ninterrupted: the finished games are in {db}; run the same command again to resume",
            file=sys.stderr,
        )
        raise SystemExit(130) from None

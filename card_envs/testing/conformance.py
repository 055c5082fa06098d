"""The whole conformance suite on one env id in one call, as `pettingzoo.test.api_test(env)`
checks a PettingZoo env: `check_game(env_id)`, or from a shell
`python -m card_envs.testing.conformance ENV_ID`.

`check_game` runs every check that `tests/test_conformance.py` runs on the id (the groups
below, which that file parametrizes), on each of its game's `test_configs` or on the configs
given, and stops at the first failure with an `AssertionError` naming the check, the env id,
the config and the seed, and the call that reruns that check alone. It returns a `Report` of
what ran. `quick=True` (the default) leaves out the two slow checks (`SLOW`): the games
played again without JIT in a subprocess, and the hypothesis-drawn state dicts (hypothesis is
a development dependency).
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import os
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from card_envs.commands import one_line_errors, parse_config_pairs
from card_envs.registry import (
    batched_env_ids,
    env_ids,
    make_game,
    multi_agent_env_ids,
    register_game,
)
from card_envs.testing import checks, corners, faces

DESCRIPTION = (
    "Run the conformance suite on one env id; exits 1 at the first failed check, naming it, "
    "the config and the seed."
)
Config = dict[str, Any]
Check = Callable[..., None]

# Each check runs on an env id and a config, in the groups' order. A multi-agent id gets
# MULTI_AGENT and GAMES on each config, then PER_ENV_ID; the solo game (a single-agent id over
# a game of its own) GAMES and SINGLE_AGENT; another single-agent id SINGLE_AGENT on `{}`.
MULTI_AGENT: tuple[Check, ...] = (  # the multi-agent ids' configs (`cases()`)
    checks.check_games,
    checks.check_actions,
    checks.check_lifecycle,
    checks.check_state_dict,
    checks.check_load_state_dict,
    checks.check_batched_matches_aec,
    checks.check_hidden_information,
    checks.check_padding,
    checks.check_render,
    checks.check_scene,
    checks.check_pettingzoo,
    checks.check_penalize,
    faces.check_parallel,
    faces.check_copies,
    faces.check_numpy_actions,
    faces.check_state_vector,
    corners.check_state_dict_mutations,
)
GAMES: tuple[Check, ...] = (  # every game the engine plays (`game_cases()`)
    corners.check_stress,
    corners.check_describe_action,
    checks.check_text_faces,
    checks.check_threads_match,
)
SINGLE_AGENT: tuple[Check, ...] = (corners.check_state_dict_mutations,)  # their own dicts
PER_ENV_ID: tuple[Check, ...] = (  # the multi-agent ids, once each (no_jit: every config)
    checks.check_config_errors,
    checks.check_named_positions,
    checks.check_no_jit,
)
SLOW: tuple[Check, ...] = (corners.check_state_dict_mutations, checks.check_no_jit)


def check_name(check: Check) -> str:
    """How the docs and the reports name a check: `check_games`, `corners.check_stress`."""
    module = check.__module__.rpartition(".")[2]
    return check.__name__ if module == "checks" else f"{module}.{check.__name__}"


def default_configs(env_id: str) -> list[Config]:
    """The configs the suite checks `env_id` on: its game's `test_configs` (`{}` for a
    single-agent id without a game of its own)."""
    if env_id not in env_ids():
        raise ValueError(f"unknown env id {env_id!r}; known ids are {env_ids()}")
    if env_id not in batched_env_ids():
        return [{}]
    return [dict(c) for c in type(make_game(env_id)).test_configs]


def suite(env_id: str) -> tuple[list[Check], list[Check]]:
    """The checks the suite runs on `env_id`: (per config, per env id), each in its groups'
    order with the slow ones last."""
    multi = env_id in multi_agent_env_ids()
    groups = [*([MULTI_AGENT] if multi else []), *([GAMES] if env_id in batched_env_ids() else [])]
    per_config = list(dict.fromkeys(c for group in [*groups, SINGLE_AGENT] for c in group))
    per_id = list(PER_ENV_ID) if multi else []
    return sorted(per_config, key=lambda c: c in SLOW), sorted(per_id, key=lambda c: c in SLOW)


@dataclass
class Report:
    """What `check_game` ran, all of it passed: each check with its config (None: once for
    the env id) and the slow checks that `quick=True` left out."""

    env_id: str
    configs: list[Config]
    ran: list[tuple[str, Config | None]] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def checks(self) -> list[str]:
        """The names of the checks that ran, each once, in the order they first ran."""
        return list(dict.fromkeys(name for name, _ in self.ran))

    def __str__(self) -> str:
        def count(n: int, noun: str) -> str:
            return f"{n} {noun}{'s' * (n != 1)}"

        lines = [
            f"{self.env_id}: {count(len(self.checks), 'check')} passed on "
            f"{count(len(self.configs), 'config')} ({count(len(self.ran), 'run')}, "
            f"{self.seconds:.1f} s)"
        ]
        if len(self.configs) > 1:
            lines.append(f"  configs: {', '.join(map(str, self.configs))}")
        alike: dict[tuple[str, ...], list[str]] = {}  # the configs that ran the same checks
        for config in self.configs:
            names = tuple(name for name, c in self.ran if c == config)
            if names:
                alike.setdefault(names, []).append(str(config))
        for names, configs in alike.items():
            on = "each config" if len(configs) == len(self.configs) > 1 else "; ".join(configs)
            lines.append(f"  {on}: {', '.join(names)}")
        once = [name for name, config in self.ran if config is None]
        if once:
            lines.append(f"  per env id: {', '.join(once)}")
        if self.left_out:
            lines.append(f"  left out (quick=True): {', '.join(self.left_out)}")
        return "\n".join(lines)


def _select(every: list[Check], only: Iterable[str]) -> set[Check]:
    """The checks of `every` that `only` names (`check_games` or `games`)."""
    names = {check_name(c): c for c in every}
    names |= {c.__name__.removeprefix("check_"): c for c in every}
    wanted = [only] if isinstance(only, str) else list(only)
    unknown = [name for name in wanted if name not in names]
    if unknown:
        raise ValueError(f"unknown check(s) {unknown}; the checks are {sorted(names)}")
    return {names[name] for name in wanted}


def _call(
    check: Check, env_id: str, config: Config | None, configs: list[Config], seed: int | None
):
    """Run one check; any failure becomes an `AssertionError` naming the check, the env id,
    the config and the seed, and the call that runs the check alone."""
    params = inspect.signature(check).parameters
    args: list[Any] = [env_id]
    if "config" in params:
        args.append(config)
    elif "configs" in params:  # check_no_jit: every config in one subprocess
        args.append(configs)
    if seed is None and "seed" in params:
        seed = params["seed"].default
    kwargs = {"seed": seed} if "seed" in params else {}
    try:
        check(*args, **kwargs)
    except Exception as err:  # noqa: BLE001 - any exception is the check failing
        on = " ".join([env_id, *(repr(a) for a in args[1:])])
        seeded = f"seed {seed}" if kwargs else "seeds of its own"
        call = ", ".join([*map(repr, args), *(f"{k}={v!r}" for k, v in kwargs.items())])
        raise AssertionError(
            f"{check_name(check)} failed on {on}, {seeded}: {type(err).__name__}: {err}\n"
            f"rerun it alone: {check.__module__}.{check.__name__}({call})"
        ) from err


def check_game(
    env_id: str,
    configs: Iterable[Config] | None = None,
    *,
    quick: bool = True,
    seed: int | None = None,
    only: Iterable[str] | None = None,
    progress: bool = False,
) -> Report:
    """Run every check of the conformance suite on the registered `env_id`: each per-config
    check on each config (the game's `test_configs` when `configs` is None), then the
    per-env-id checks, raising at the first failure an `AssertionError` that names the check,
    the env id, the config and the seed. `quick` leaves out the slow checks (`SLOW`); `seed`
    replaces each seeded check's own seed (None: the suite's); `only` names the checks to run
    (`check_games` or `games`, `corners.check_stress` or `stress`; slow ones too);
    `progress` prints each check to stderr as it passes. Returns the `Report` of what ran."""
    known = default_configs(env_id)  # raises for an unknown id, naming the ids
    configs = known if configs is None else [dict(c) for c in configs]
    if not configs:
        raise ValueError(f"{env_id}: no config to check")
    per_config, per_id = suite(env_id)
    if only is not None:
        chosen = _select(per_config + per_id, only)
        per_config = [c for c in per_config if c in chosen]
        per_id = [c for c in per_id if c in chosen]
    slow = [c for c in per_config + per_id if c in SLOW] if quick and only is None else []
    report = Report(env_id, configs, left_out=[check_name(c) for c in slow])
    steps = [(c, config) for config in configs for c in per_config if c not in slow]
    steps += [(c, None) for c in per_id if c not in slow]
    start = time.perf_counter()
    for check, config in steps:
        began = time.perf_counter()
        _call(check, env_id, config, configs, seed)
        report.ran.append((check_name(check), config))
        if progress:
            took = time.perf_counter() - began
            print(f"ok {check_name(check)} {config or ''} ({took:.1f} s)", file=sys.stderr)
    report.seconds = time.perf_counter() - start
    return report


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's arguments (`card-envs conformance` and `python -m` this module)."""
    parser.add_argument(
        "game",
        metavar="ENV_ID|MODULE:CLASS",
        help="a registered env id, or a Game subclass of your own to register first "
        "(my_game:MyGame, importable from here)",
    )
    parser.add_argument(
        "--env-config",
        "--config",
        dest="config",
        nargs="*",
        default=[],
        metavar="KEY=VALUE",
        help="game options as key=value: check this one config instead of the test configs",
    )
    parser.add_argument(
        "--full", action="store_true", help="also run the slow checks (no-JIT, hypothesis)"
    )
    parser.add_argument(
        "--only", action="append", metavar="CHECK", help="run only this check (repeatable)"
    )
    parser.add_argument(
        "--seed", type=int, help="seed of every seeded check (default: each check's own)"
    )


def run(args: argparse.Namespace) -> int:
    """Check the game `args` name; 0 when every check passed, 1 at the first failure."""
    env_id = args.game
    if ":" in args.game:
        module, _, name = args.game.partition(":")
        if "" not in sys.path and os.getcwd() not in sys.path:
            sys.path.insert(0, os.getcwd())  # `card-envs` (a script) does not look here
        game = getattr(importlib.import_module(module), name)
        register_game(game)
        env_id = game.env_id
    configs = [parse_config_pairs(args.config)] if args.config else None
    try:
        report = check_game(
            env_id, configs, quick=not args.full, seed=args.seed, only=args.only, progress=True
        )
    except AssertionError as err:
        print(f"FAIL {err}", file=sys.stderr)
        return 1
    print(report)
    return 0


def main(argv: list[str] | None = None) -> int:
    prog = "python -m card_envs.testing.conformance"
    parser = argparse.ArgumentParser(prog=prog, description=DESCRIPTION)
    add_arguments(parser)
    args = parser.parse_args(argv)
    with one_line_errors(prog):
        return run(args)


if __name__ == "__main__":
    raise SystemExit(main())

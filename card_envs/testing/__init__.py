"""Conformance checks that any registered env passes by being registered (like `pettingzoo.test`).

Each check takes an env id and a config and raises `AssertionError` saying what broke. A
sixth game gets them all by declaring its `test_configs`; `tests/test_conformance.py` runs
every check over `cases()`, and `check_game(env_id)` (`conformance`) runs them all on one id
in one call.
"""

from __future__ import annotations

from typing import Any

from card_envs.registry import batched_env_ids, game_class, make_game, multi_agent_env_ids


def __getattr__(name: str) -> Any:
    """`check_game` and `Report`, imported from `conformance` on first use (so that
    `python -m card_envs.testing.conformance` finds that module not yet imported)."""
    if name in ("check_game", "Report"):
        from card_envs.testing import conformance

        return getattr(conformance, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def cases() -> list[tuple[str, dict[str, Any]]]:
    """(env id, config) for every registered multi-agent env and each of its test configs."""
    return [
        (env_id, dict(c))
        for env_id in multi_agent_env_ids()
        for c in game_class(env_id).test_configs
    ]


def game_cases() -> list[tuple[str, dict[str, Any]]]:
    """`cases()` and the single-agent ids that serve a `Game` of their own (the solo game)
    with each of its test configs: every game the engine checks (`corners`) can play."""
    return [
        (env_id, dict(c))
        for env_id in batched_env_ids()
        for c in type(make_game(env_id)).test_configs
    ]


def case_id(case: tuple[str, dict[str, Any]]) -> str:
    """A short pytest id: `no_thanks_v0-num_players=3-public_tokens=True`."""
    env_id, config = case
    return "-".join([env_id, *(f"{k}={v}" for k, v in config.items())])

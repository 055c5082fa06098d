"""Conformance checks that any registered env passes by being registered (like `pettingzoo.test`).

Each check takes an env id and a config and raises `AssertionError` saying what broke. A
sixth game gets them all by declaring its `test_configs`; `tests/test_conformance.py` runs
every check over `cases()`.
"""

from __future__ import annotations

from typing import Any

from card_envs.registry import game_class, multi_agent_env_ids


def cases() -> list[tuple[str, dict[str, Any]]]:
    """(env id, config) for every registered multi-agent env and each of its test configs."""
    return [
        (env_id, dict(c))
        for env_id in multi_agent_env_ids()
        for c in game_class(env_id).test_configs
    ]


def case_id(case: tuple[str, dict[str, Any]]) -> str:
    """A short pytest id: `no_thanks_v0-num_players=3-public_tokens=True`."""
    env_id, config = case
    return "-".join([env_id, *(f"{k}={v}" for k, v in config.items())])

"""Every registered env and each of its declared test configs passes the conformance suite."""

from __future__ import annotations

import pytest

from card_envs.registry import game_class, multi_agent_env_ids
from card_envs.testing import case_id, cases, checks

CASES = cases()
IDS = [case_id(c) for c in CASES]
PER_CASE = [
    checks.check_pettingzoo,
    checks.check_games,
    checks.check_batched_matches_aec,
    checks.check_actions,
    checks.check_penalize,
    checks.check_state_dict,
    checks.check_render,
    checks.check_hidden_information,
]


@pytest.mark.parametrize("check", PER_CASE, ids=lambda c: c.__name__.removeprefix("check_"))
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_conformance(case, check):
    env_id, config = case
    check(env_id, config)


@pytest.mark.parametrize("env_id", multi_agent_env_ids())
def test_no_jit_plays_the_same_games(env_id):
    checks.check_no_jit(env_id, list(game_class(env_id).test_configs))

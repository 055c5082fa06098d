"""Every registered env and each of its declared test configs passes the conformance suite."""

from __future__ import annotations

import pytest

import card_envs
from card_envs.registry import (
    game_class,
    multi_agent_env_ids,
    single_agent_env_ids,
)
from card_envs.testing import case_id, cases, checks, conformance, game_cases


def tiered(case_list: list[tuple[str, dict]]) -> list:
    """The cases as pytest params: each env id's first test config (its default, or the
    nearest to it) in the fast tier, its other configs marked `slow`, so that
    `pytest -m "not slow"` checks every env id once and the full run every config."""
    seen: set[str] = set()
    out = []
    for case in case_list:
        marks = pytest.mark.slow if case[0] in seen else ()
        seen.add(case[0])
        out.append(pytest.param(case, id=case_id(case), marks=marks))
    return out


CASES = tiered(cases())
# the checks and where each runs: the groups of `card_envs.testing.conformance`, which
# `check_game(env_id)` runs on one id in one call
PER_CASE = conformance.MULTI_AGENT


@pytest.mark.parametrize("check", PER_CASE, ids=lambda c: c.__name__.removeprefix("check_"))
@pytest.mark.parametrize("case", CASES)
def test_conformance(case, check):
    env_id, config = case
    check(env_id, config)


GAME_CASES = game_cases()  # `CASES` and the solo game's configs: every game the engine plays


@pytest.mark.parametrize("check", conformance.GAMES)
@pytest.mark.parametrize("case", tiered(GAME_CASES))
def test_every_game(case, check):
    env_id, config = case
    check(env_id, config)


SINGLE = [
    (env_id, config)
    for env_id in single_agent_env_ids()
    for config in conformance.default_configs(env_id)
]


@pytest.mark.parametrize("case", tiered(SINGLE))
def test_single_agent_state_dicts_take_any_json(case):
    """The single-agent envs' own state dicts (`corners.check_state_dict_mutations`), the
    solo game's corner positions among them."""
    for check in conformance.SINGLE_AGENT:
        check(*case)


@pytest.mark.slow
@pytest.mark.parametrize("env_id", multi_agent_env_ids())
def test_no_jit_plays_the_same_games(env_id):
    checks.check_no_jit(env_id, list(game_class(env_id).test_configs))


@pytest.mark.parametrize("env_id", multi_agent_env_ids())
def test_config_errors_name_the_value(env_id):
    checks.check_config_errors(env_id)


@pytest.mark.parametrize("env_id", multi_agent_env_ids())
def test_named_positions(env_id):
    """Each game's positions file (`card_envs.positions`): every entry in both faces."""
    checks.check_named_positions(env_id)


def test_unknown_env_id_names_it_and_lists_the_ids():
    for factory in (card_envs.make, lambda name: card_envs.make_vec(name, 2)):
        with pytest.raises(ValueError) as err:
            factory("no_such_game_v9")
        assert "no_such_game_v9" in str(err.value)
        assert all(env_id in str(err.value) for env_id in card_envs.env_ids())

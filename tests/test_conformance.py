"""Every registered env and each of its declared test configs passes the conformance suite."""

from __future__ import annotations

import pytest

import card_envs
from card_envs.registry import (
    batched_env_ids,
    game_class,
    make_game,
    multi_agent_env_ids,
    single_agent_env_ids,
)
from card_envs.testing import case_id, cases, checks, corners, faces, game_cases


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
PER_CASE = [
    checks.check_pettingzoo,
    checks.check_games,
    checks.check_batched_matches_aec,
    checks.check_actions,
    checks.check_penalize,
    checks.check_state_dict,
    checks.check_render,
    checks.check_scene,
    checks.check_padding,
    checks.check_lifecycle,
    checks.check_hidden_information,
    checks.check_load_state_dict,
    corners.check_state_dict_mutations,
    faces.check_copies,
    faces.check_numpy_actions,
    faces.check_state_vector,
    faces.check_parallel,
]


@pytest.mark.parametrize("check", PER_CASE, ids=lambda c: c.__name__.removeprefix("check_"))
@pytest.mark.parametrize("case", CASES)
def test_conformance(case, check):
    env_id, config = case
    check(env_id, config)


GAME_CASES = game_cases()  # `CASES` and the solo game's configs: every game the engine plays
GAME_IDS = batched_env_ids()


@pytest.mark.parametrize(
    "check", [corners.check_stress, corners.check_describe_action, checks.check_threads_match]
)
@pytest.mark.parametrize("case", tiered(GAME_CASES))
def test_every_game(case, check):
    env_id, config = case
    check(env_id, config)


SINGLE = [
    (env_id, dict(config))
    for env_id in single_agent_env_ids()
    for config in (type(make_game(env_id)).test_configs if env_id in GAME_IDS else [{}])
]


@pytest.mark.parametrize("case", tiered(SINGLE))
def test_single_agent_state_dicts_take_any_json(case):
    """The single-agent envs' own state dicts (`corners.check_state_dict_mutations`), the
    solo game's corner positions among them."""
    corners.check_state_dict_mutations(*case)


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

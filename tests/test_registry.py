"""The registry: ids known before their game is imported, the game imported on first use."""

import subprocess
import sys

import pytest

import card_envs
from card_envs import registry


def test_import_card_envs_imports_no_game_until_an_id_is_made():
    code = (
        "import sys, card_envs\n"
        "games = lambda: sorted(m for m in sys.modules if m.startswith('card_envs.games.'))\n"
        "assert games() == [], games()\n"
        "card_envs.make('no_thanks_v0')\n"
        "assert {m.split('.')[2] for m in games()} == {'no_thanks'}, games()\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_command_imports_neither_the_picture_drawer_nor_pytest_until_it_needs_them():
    """matplotlib and Pillow (rgb_array frames) and pytest (PettingZoo's own tests) cost a
    command's start a quarter of a second; they come in when a frame or a check is asked."""
    code = (
        "import sys\n"
        "from card_envs.cli import build_parser\n"
        "build_parser()\n"
        "heavy = {'matplotlib', 'PIL', 'pytest'} & set(sys.modules)\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("env_id", registry.single_agent_env_ids())
def test_the_single_agent_table_says_what_its_class_says(env_id):
    single = registry._SINGLE_AGENT[env_id]
    cls = registry.single_agent_env_class(env_id)
    assert cls.env_id == env_id
    assert single.agent_env == cls.agent_env
    assert single.own_game == (getattr(cls, "game_type", None) is not None)


@pytest.mark.parametrize("env_id", registry.multi_agent_env_ids())
def test_each_lazily_named_game_is_the_class_of_its_id(env_id):
    assert registry.game_class(env_id).env_id == env_id


@pytest.mark.parametrize("bad", ["chess_v0", None, 3])
def test_an_unknown_id_is_refused_with_the_known_ids(bad):
    with pytest.raises(ValueError, match="unknown env id.*no_thanks_v0"):
        card_envs.make_vec(bad, 2)
    with pytest.raises(ValueError, match="unknown env id"):
        card_envs.pettingzoo_module(bad)


def test_a_single_agent_id_is_refused_where_a_multi_agent_one_is_needed():
    with pytest.raises(ValueError, match="single-agent Gymnasium env.*multi-agent ids"):
        card_envs.make_parallel("double_or_nothing_run_v0")

"""The command line: `card-envs play`, `list`, the agent specs in --help, replay's errors."""

import json
import subprocess
import sys

import pytest

from card_envs.agents.registry import SPEC_HELP
from card_envs.cli import main


def test_play_prints_a_results_table(capsys):
    main(["play", "no_thanks_v0", "--agents", "heuristic,random,random", "--games", "60"])
    out = capsys.readouterr().out
    rows = [r for r in map(str.split, out.splitlines()) if r[1:2] in (["heuristic"], ["random"])]
    assert [r[1] for r in rows] == ["heuristic", "random", "random"]
    win_rates = [float(r[2]) for r in rows]
    assert sum(win_rates) == pytest.approx(1.0, abs=1e-6)
    assert win_rates[0] > max(win_rates[1:])
    assert "60 games, seats balanced" in out and " steps/s, incl. agents)" in out


def test_list_and_errors(capsys):
    main(["list"])
    assert "no_thanks_v0" in capsys.readouterr().out
    with pytest.raises(SystemExit) as err:
        main(["play", "uno_v9", "--agents", "random"])
    assert err.value.code == 2
    assert "uno_v9" in capsys.readouterr().err


def test_module_entry_point_runs():
    out = subprocess.run(
        [sys.executable, "-m", "card_envs", "list"], capture_output=True, text=True, check=True
    ).stdout
    assert "no_thanks_v0" in out.split()


@pytest.mark.parametrize("command", ["play", "evaluate", "tournament"])
def test_help_lists_every_agent_spec_of_the_registry(command, capsys):
    with pytest.raises(SystemExit) as done:
        main([command, "--help"])
    assert done.value.code == 0
    # argparse rewraps the help anywhere (at spaces, after hyphens, before '=')
    text = "".join(capsys.readouterr().out.split())
    assert "".join(SPEC_HELP.split()) in text
    for form in ("random,", "heuristic,", "computer,", "ppo,ppo:PATH", "py:PATH.py:NAME"):
        assert form in text


def _replay_error(args, capsys) -> str:
    with pytest.raises(SystemExit) as err:
        main(["replay", *args])
    message = capsys.readouterr().err
    assert err.value.code == 2 and message.count("\n") == 1, message
    return message


def test_replay_errors_are_one_line(tmp_path, capsys):
    missing = tmp_path / "missing.jsonl"
    assert _replay_error([str(missing)], capsys) == (
        f"card-envs: error: {missing}: no such records file\n"
    )
    record = {"tournament": "t", "event": "e", "config": {}, "table": 0, "game": 0, "seed": 1,
              "seats": [], "agents": [], "actions": [], "rewards": [], "scores": [],
              "wins": [], "length": 0, "truncated": False}  # fmt: skip
    lines = tmp_path / "records.jsonl"
    lines.write_text("\n" + json.dumps(record) + "\n")
    message = _replay_error([str(lines)], capsys)
    assert f"{lines}:2: not a game record, missing keys ['env_id']" in message
    lines.write_text("[1, 2]\n")
    assert f"{lines}:1: a record is a JSON object, got list" in _replay_error([str(lines)], capsys)


def test_config_values_are_python_or_yaml_literals():
    """`--config` takes what a Python literal or a YAML config would write: `true` is True."""
    from card_envs.commands import parse_config_pairs

    parsed = parse_config_pairs(["skip_forced=true", "play_drawn=False", "num_players=3", "x=word"])
    assert parsed == {"skip_forced": True, "play_drawn": False, "num_players": 3, "x": "word"}


@pytest.mark.parametrize("command", ["play", "evaluate"])
def test_game_options_are_env_config_here_too_and_config_still_works(command):
    from card_envs.cli import build_parser

    def options(flag: str) -> list[str]:
        args = [command, "no_thanks_v0", "--agents", "random", flag, "public_tokens=false"]
        return build_parser().parse_args(args).config

    assert options("--env-config") == options("--config") == ["public_tokens=false"]

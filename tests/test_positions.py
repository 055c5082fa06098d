"""Named positions (`card_envs.positions`): bad files are refused with the position and
field named, and `evaluate --positions` plays every position from every seat. That every
built-in one loads in both faces and plays to the end is the conformance suite's
`checks.check_named_positions`."""

from __future__ import annotations

import pytest
import yaml

from card_envs import positions
from card_envs.cli import main as cli_main
from card_envs.evaluation import evaluate
from card_envs.positions import PositionError


def test_a_position_plays_on_as_written():
    env = positions.load("no_thanks/last-card").make_env()
    assert env.agent_selection == "player_1"
    assert env.observe("player_1")["action_mask"].tolist() == [1, 0]  # no tokens: must take
    env.step(0)  # the last card: the game ends
    assert all(env.terminations.values())


def write(tmp_path, doc) -> str:
    path = tmp_path / "p.yaml"
    path.write_text(yaml.safe_dump(doc) if not isinstance(doc, str) else doc)
    return str(path)


def good_entry() -> dict:
    return yaml.safe_load((positions.HERE / "no_thanks.yaml").read_text())["last-card"]


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ("a: [1, 2", "not valid YAML"),
        ([1, 2], "a positions file maps names to positions"),
        ({"x": 5}, "position x: an entry must be a mapping"),
        ({"x": {"env": "no_thanks_v0"}}, "position x: keys .*; an entry has env, state"),
        ({"x": {**good_entry(), "env": "chess_v0"}}, "position x: .*chess_v0"),
        ({"x": {**good_entry(), "config": {"num_players": 9}}}, "position x: .*num_players"),
        (
            {"x": {**good_entry(), "state": {**good_entry()["state"], "pot": 5}}},
            r"position x: no_thanks_v0 state dict: tokens: .* make 34, not 33",
        ),
    ],
)
def test_bad_positions_files_are_refused_naming_the_position(tmp_path, doc, message):
    with pytest.raises(PositionError, match=message):
        positions.read_file(write(tmp_path, doc))


def test_unknown_names_and_files_are_refused():
    with pytest.raises(PositionError, match=r"unknown position 'no_thanks/nope'; known: \["):
        positions.load("no_thanks/nope")
    with pytest.raises(PositionError, match="unknown position 'chess/x'"):
        positions.load("chess/x")
    with pytest.raises(PositionError, match="no such positions file"):
        positions.read_file("/nowhere.yaml")


def test_evaluate_plays_each_position_from_every_seat():
    states = [positions.load("no_thanks/take-and-go-again").state]
    ev = evaluate(
        "no_thanks_v0", ["heuristic", "random", "random", "random"], games=8,
        positions=states, workers=1, **positions.load("no_thanks/take-and-go-again").config,
    )  # fmt: skip
    assert ev.games == 8 and all(s.seat_games == (2, 2, 2, 2) for s in ev)
    # every game continued from the position: 19 cards and the offer were still to take
    assert (ev.results.lengths >= 20).all()
    with pytest.raises(ValueError, match="position 0 is a finished game"):
        finished = positions.load("no_thanks/rule-text-scoring")
        evaluate("no_thanks_v0", ["random"] * 3, games=3, positions=[finished.state], workers=1)


def test_cli_evaluate_positions(capsys):
    path = str(positions.HERE / "no_thanks.yaml")
    cli_main(["evaluate", "no_thanks_v0", "--agents", "heuristic,random,random",
              "--positions", path, "--workers", "1"])  # fmt: skip
    out = capsys.readouterr().out
    # the running 3-player ones: last-card, two-cards-left, tied-winners, last-token
    assert "note: playing 4 of the file's 7 positions" in out
    assert "12 games from 4 position(s)" in out  # each once from every seat
    with pytest.raises(SystemExit):
        cli_main(["evaluate", "no_thanks_v0", "--agents", "random,random,random,random,random",
                  "--positions", path])  # fmt: skip
    assert "no running position of no_thanks_v0" in capsys.readouterr().err


def test_of_env_reads_the_files_naming_the_env():
    names = [p.name for p in positions.of_env("no_thanks_v0")]
    assert names == [n for n in positions.names() if n.startswith("no_thanks/")]
    assert positions.of_env("chess_v0") == []


def test_every_is_each_named_position_as_load_reads_it():
    every = positions.every()
    assert [p.name for p in every] == positions.names()
    for p in every[:: max(1, len(every) // 6)]:  # a few, one file read per load
        assert positions.load(p.name) == p

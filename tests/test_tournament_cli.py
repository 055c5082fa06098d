"""The tournament, evaluate and replay commands, and the shipped tournament configs."""

import json
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import card_envs
from card_envs.agents.ppo import has_shipped_model
from card_envs.cli import main
from card_envs.tournament import check_replay, load_config

ROOT = Path(__file__).resolve().parent.parent


def test_shipped_configs_are_valid():
    for path in sorted((ROOT / "configs" / "tournaments").glob("*.yaml")):
        cfg = load_config(path)
        assert cfg.events and not any("rounded" in n for n in cfg.notes), path
    main_cfg = load_config(ROOT / "configs" / "tournaments" / "main.yaml")
    assert {e.env for e in main_cfg.events} == set(card_envs.multi_agent_env_ids())
    assert "computer" in main_cfg.events[2].specs
    search_cfg = load_config(ROOT / "configs" / "tournaments" / "search.yaml")
    for event, searched in zip(main_cfg.events, search_cfg.events, strict=True):
        assert "ppo" in event.specs  # the trained models everywhere, the search beside them
        assert ("exit" in event.specs) == has_shipped_model(event.env, "exit"), event.env
        assert not any(s.startswith("ismcts:") for s in event.specs)  # a quick cold start
        added = [s for s in searched.specs if s not in event.specs]
        assert len(added) == 1 and added[0].startswith("ismcts:"), searched.name


def test_cli_quick_tournament_and_replay(tmp_path, capsys):
    db, out = tmp_path / "q.sqlite", tmp_path / "q"
    main(["tournament", "--env", "double_or_nothing_v0", "--agents", "random,computer,heuristic",
          "--games", "10", "--seed", "3", "--db", str(db), "--out", str(out), "--workers", "1",
          "--no-progress", "--records"])  # fmt: skip
    text = capsys.readouterr().out
    lines = [line.split() for line in text.splitlines()]
    board = [r for r in lines if len(r) > 2 and r[0] in "123" and r[1] in
             ("random", "computer", "heuristic")]  # fmt: skip
    assert [r[1] for r in board][0] == "heuristic" and len(board) == 3
    assert "Elo" in text and "30 games played" in text
    assert (out / "double_or_nothing_v0.csv").exists()
    main(["replay", str(out / "double_or_nothing_v0.jsonl")])
    assert "30 games replayed into the AEC env, 30 reproduce their results" in (
        capsys.readouterr().out
    )
    # each record names its actions beside the ids; replay --show prints them move by move
    path = out / "double_or_nothing_v0.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines()]
    first = records[0]
    assert len(first["action_names"]) == len(first["actions"]) == first["length"]
    assert first["action_names"][0].startswith("play ")
    main(["replay", str(path), "--limit", "1", "--show"])
    shown = capsys.readouterr().out.splitlines()
    assert shown[1] == f"     1. player_0: {first['actions'][0]} ({first['action_names'][0]})"
    # a record written before the names (or with wrong ones) still replays, or is caught
    old = tmp_path / "old.jsonl"
    old.write_text(json.dumps({k: v for k, v in first.items() if k != "action_names"}) + "\n")
    main(["replay", str(old), "--show"])
    assert "1 games replayed into the AEC env, 1 reproduce" in capsys.readouterr().out
    wrong = dict(first, action_names=["pass", *first["action_names"][1:]])
    assert check_replay(wrong) == [
        f"action_names: step 1 recorded ['pass'], replayed {first['action_names'][0]!r}"
    ]
    with sqlite3.connect(db) as conn:
        (config_json,) = conn.execute("SELECT config FROM tournaments").fetchone()
    assert json.loads(config_json)["seed"] == 3


def test_cli_quick_n_player_tournament_with_named_copies(tmp_path, capsys):
    main(["tournament", "--env", "no_thanks_v0", "--env-config", "num_players=3",
          "--agents", "heuristic,random,random_b=random,heuristic_b=heuristic",
          "--tables", "8", "--games", "3", "--rank-by", "score_low", "--db",
          str(tmp_path / "n.sqlite"), "--out", str(tmp_path / "n"), "--workers", "1",
          "--no-progress"])  # fmt: skip
    out = capsys.readouterr().out
    names = re.findall(r"^ ?\d+ (\w+) +-?\d+\.\d\d ", out, flags=re.M)
    assert sorted(names) == ["heuristic", "heuristic_b", "random", "random_b"]
    assert "24 games played" in out and "Elo" not in out


def test_cli_errors(tmp_path, capsys):
    with pytest.raises(SystemExit) as err:
        main(["tournament", "--config", "x.yaml", "--env", "no_thanks_v0"])
    assert err.value.code == 2 and "--env cannot be combined with --config" in (
        capsys.readouterr().err
    )
    with pytest.raises(SystemExit):
        main(["tournament"])
    assert "needs --config FILE, or --env ID and --agents" in capsys.readouterr().err
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nevents:\n  - env: no_thanks_v0\n    agents: [random]\n    games: -3\n")
    with pytest.raises(SystemExit) as err:
        main(["tournament", "--config", str(bad), "--db", str(tmp_path / "db.sqlite")])
    message = capsys.readouterr().err
    assert err.value.code == 2 and "bad.yaml: events[0]" in message and "at least 3" in message


def test_cli_evaluate(capsys):
    main(["evaluate", "no_thanks_v0", "--agents", "heuristic,random,random", "--games", "20",
          "--workers", "1", "--no-progress", "--seed", "1"])  # fmt: skip
    out = capsys.readouterr().out
    assert "playing 21 games instead of 20" in out
    rows = [line.split() for line in out.splitlines() if line.split()[1:2] == ["heuristic"]]
    assert len(rows) == 1 and float(rows[0][2]) > 0.5 and rows[0][-2] == "21"  # then ms/move


def test_progress_bars_stay_out_of_logs_unless_asked_for(tmp_path):
    cmd = [sys.executable, "-m", "card_envs", "tournament", "--env", "double_or_nothing_v0",
           "--agents", "random,computer", "--games", "4", "--workers", "1",
           "--db", str(tmp_path / "p.sqlite"), "--out", str(tmp_path / "p")]  # fmt: skip

    def stderr_of(*flags: str) -> bytes:
        log = tmp_path / "stderr.log"
        with log.open("wb") as f:  # stderr to a file, as when a run is logged
            subprocess.run([*cmd, *flags], stdout=subprocess.DEVNULL, stderr=f, check=True)
        return log.read_bytes()

    assert b"\r" not in stderr_of()
    assert b"\r" in stderr_of("--progress", "--restart")  # --restart: play the games again


def test_a_logged_run_says_when_each_event_is_stored(tmp_path, capsys):
    config = tmp_path / "two.yaml"
    config.write_text(
        "name: two\nprogress: false\nworkers: 1\nevents:\n"
        "  - {env: double_or_nothing_v0, agents: [random, computer], games: 4}\n"
        "  - {env: no_thanks_v0, agents: [random, heuristic, random_b], games: 3}\n"
    )
    config.write_text(config.read_text().replace("random_b", "{name: r2, spec: random}"))
    main(["tournament", "--config", str(config), "--db", str(tmp_path / "t.sqlite"),
          "--out", str(tmp_path / "out")])  # fmt: skip
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("event ")]
    assert [line.split(":")[0] for line in lines] == [
        "event double_or_nothing_v0",
        "event no_thanks_v0",
    ]
    assert "all 4 games stored" in lines[0] and "all 3 games stored" in lines[1]

"""Killing a tournament and running the same command again loses and repeats no game."""

import os
import signal
import sqlite3
import subprocess
import sys
import time

from card_envs.tournament import load_config, run_tournament

CONFIG = """\
name: resume
seed: 11
workers: 1
chunk_games: 12
progress: false
events:
  - name: nt
    env: no_thanks_v0
    config: {num_players: 3}
    agents:
      - heuristic
      - random
      - {name: random_b, spec: random}
      - {name: heuristic_b, spec: heuristic}
    tables: 300
    games: 6
    rank_by: score_low
"""
TOTAL = 300 * 6

COLUMNS = "event, table_index, game, chunk, seed, seats, agents, rewards, scores, wins, length, "
COLUMNS += "truncated, actions"


def count(db):
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return conn.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    except sqlite3.OperationalError:  # not created yet
        return 0


def rows(db):
    with sqlite3.connect(db) as conn:
        return conn.execute(
            f"SELECT {COLUMNS} FROM games ORDER BY event, table_index, game"
        ).fetchall()


def test_killed_run_resumes_and_equals_an_uninterrupted_run(tmp_path):
    path = tmp_path / "resume.yaml"
    path.write_text(CONFIG)
    db, out = tmp_path / "killed.sqlite", tmp_path / "out"
    cmd = [sys.executable, "-m", "card_envs", "tournament", "--config", str(path), "--db", str(db),
           "--out", str(out)]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while count(db) < 36 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    stored = count(db)
    assert 0 < stored < TOTAL, f"kill landed at {stored} of {TOTAL} games"
    assert stored % 12 == 0  # whole chunks only
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)

    # Ctrl-C: stops with a message, keeps what was finished
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    while count(db) < stored + 36 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.01)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted: the finished games are in" in err and "to resume" in err
    interrupted = count(db)
    assert stored < interrupted < TOTAL and interrupted % 12 == 0

    again = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert f"{interrupted} already in {db}, {TOTAL - interrupted} to play" in again.stdout
    assert f"{TOTAL - interrupted} games played" in again.stdout
    resumed = rows(db)
    assert len(resumed) == TOTAL
    assert len({r[:3] for r in resumed}) == TOTAL  # every scheduled game exactly once

    # the same config without interruption, into another database
    clean = load_config(path, db=str(tmp_path / "clean.sqlite"), out=str(tmp_path / "clean"))
    result = run_tournament(clean)
    assert rows(clean.db) == resumed
    board = (out / "nt.csv").read_text()
    assert board == (tmp_path / "clean" / "nt.csv").read_text()
    assert result.leaderboards[0].games == TOTAL

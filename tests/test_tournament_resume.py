"""Killing a tournament and running the same command again loses and repeats no game.

The interrupted runs are the tournament command run by PAUSE, which stops the run in the
middle of a chunk once a given number of chunks are stored, says so and waits; the test then
sends SIGKILL or SIGINT itself. So the test decides where each run stops: nothing races a
clock.
"""

import signal
import sqlite3
import subprocess
import sys

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
    tables: 40
    games: 6
    rank_by: score_low
"""
TOTAL, CHUNK = 40 * 6, 12

# argv: the number of chunks to store before pausing, then the command's arguments. Every
# table seats a random agent (3 of a field of 4 with 2 random), so each chunk asks one.
PAUSE = """\
import signal, sys
from card_envs.agents.random_agent import RandomAgent
from card_envs.cli import main
from card_envs.tournament.store import Store

signal.signal(signal.SIGINT, signal.default_int_handler)  # Ctrl-C as in a terminal
pause_after, stored = int(sys.argv[1]), 0
add_chunk, act_batch = Store.add_chunk, RandomAgent.act_batch

def counting_add_chunk(self, *args):
    global stored
    add_chunk(self, *args)
    stored += 1

def pausing_act_batch(self, observations, masks):
    if stored == pause_after:  # the next chunk is being played
        print("paused", flush=True)
        sys.stdin.readline()  # returns only if the test ends without signalling
        sys.exit("released without a signal")
    return act_batch(self, observations, masks)

Store.add_chunk, RandomAgent.act_batch = counting_add_chunk, pausing_act_batch
main(sys.argv[2:])
"""

COLUMNS = "event, table_index, game, chunk, seed, seats, agents, rewards, scores, wins, length, "
COLUMNS += "truncated, actions"


def count(db):
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT COUNT(*) FROM games").fetchone()[0]


def rows(db):
    with sqlite3.connect(db) as conn:
        return conn.execute(
            f"SELECT {COLUMNS} FROM games ORDER BY event, table_index, game"
        ).fetchall()


def start_paused(args, chunks, stderr):
    """The tournament command with `args`, stopped in the middle of a chunk after storing
    `chunks` chunks, waiting for a signal."""
    proc = subprocess.Popen(
        [sys.executable, "-c", PAUSE, str(chunks), "tournament", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
    )
    for line in proc.stdout:
        if line == "paused\n":
            return proc
    proc.stdin.close()
    proc.wait()
    stderr.seek(0)
    raise AssertionError(f"the run ended ({proc.returncode}) without pausing: {stderr.read()}")


def test_killed_run_resumes_and_equals_an_uninterrupted_run(tmp_path):
    path = tmp_path / "resume.yaml"
    path.write_text(CONFIG)
    db, out = tmp_path / "killed.sqlite", tmp_path / "out"
    args = ["--config", str(path), "--db", str(db), "--out", str(out)]

    # SIGKILL, three chunks stored, the fourth half played
    with open(tmp_path / "killed.err", "w+") as err, start_paused(args, 3, err) as proc:
        proc.kill()
        assert proc.wait() == -signal.SIGKILL
    assert count(db) == 3 * CHUNK  # whole chunks only, none of the one being played
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)

    # Ctrl-C after three more chunks: stops with a message, keeps what was finished
    with open(tmp_path / "interrupted.err", "w+") as err, start_paused(args, 3, err) as proc:
        proc.send_signal(signal.SIGINT)
        assert proc.wait() == 130
        err.seek(0)
        message = err.read()
    assert "interrupted: the finished games are in" in message and "to resume" in message
    interrupted = count(db)
    assert interrupted == 6 * CHUNK

    again = subprocess.run(
        [sys.executable, "-m", "card_envs", "tournament", *args], capture_output=True, text=True
    )
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

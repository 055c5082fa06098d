"""The Ray backend: chunks as Ray tasks on a local Ray (2 CPUs) give the local results."""

import sqlite3

import pytest

ray = pytest.importorskip("ray")  # the `ray` extra (part of `dev`)

from card_envs.tournament import parse_config, run_tournament  # noqa: E402

pytestmark = pytest.mark.slow  # see pyproject's markers: out of the fast tier

MINE = """
import numpy as np
from card_envs.agents import Agent

class Mine(Agent):
    def __init__(self, env_id, seed=None, config=None, low=False):
        self.low = low
    def act_batch(self, observations, masks):
        return np.argmax(masks, axis=1) if self.low else masks.shape[1] - 1 - np.argmax(
            masks[:, ::-1], axis=1)
"""


@pytest.fixture(autouse=True)
def _user_agent_here(tmp_path, monkeypatch):
    """A user's agent in a file of the current directory: a Ray worker, which has another
    working directory, must load it by the absolute path the driver made of it."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.py").write_text(MINE)


def _config(tmp_path, backend, **top):
    return parse_config(
        {
            "name": "r",
            "seed": 5,
            "db": str(tmp_path / f"{backend}.sqlite"),
            "out": str(tmp_path / backend),
            "backend": backend,
            "workers": 2,
            "chunk_games": 40,
            "progress": False,
            "events": [
                {
                    "name": "nt",
                    "env": "no_thanks_v0",
                    "agents": [
                        "heuristic",
                        "random",
                        {"name": "random_b", "spec": "random"},
                        {"name": "heuristic_b", "spec": "heuristic"},
                        {"name": "mine", "spec": "py:mine.py:Mine", "options": {"low": True}},
                    ],
                    "tables": 12,
                    "games": 6,
                    "rank_by": "score_low",
                },
                {"env": "double_or_nothing_v0", "agents": ["heuristic", "computer"], "games": 50},
            ],
            **top,
        }
    )


def _rows(db):
    with sqlite3.connect(db) as conn:
        return conn.execute(
            "SELECT event, table_index, game, chunk, seed, seats, rewards, scores, wins, length, "
            "actions FROM games ORDER BY event, table_index, game"
        ).fetchall()


def test_ray_backend_plays_the_same_games_as_the_local_backend(tmp_path):
    local = _config(tmp_path, "local")
    remote = _config(tmp_path, "ray")
    assert local.schedule_hash() == remote.schedule_hash()  # the backend is not the schedule
    run_tournament(local, write_files=False)
    assert not ray.is_initialized()
    result = run_tournament(remote)  # starts a local Ray with num_cpus=2 and shuts it down
    assert not ray.is_initialized()
    assert result.played == 12 * 6 + 50
    assert _rows(remote.db) == _rows(local.db)
    assert (tmp_path / "ray" / "nt.csv").exists()

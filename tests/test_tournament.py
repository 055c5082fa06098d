"""Tournaments: configs, table drawing, ratings, storage, reports, records, the CLI."""

import csv
import math
import sqlite3

import numpy as np
import pytest

from card_envs.agents.specs import parse_spec
from card_envs.tournament import (
    Store,
    TournamentConfigError,
    TournamentMismatch,
    check_replay,
    load_config,
    parse_config,
    read_jsonl,
    run_tournament,
)
from card_envs.tournament.ratings import (
    ELO_SCALE,
    bradley_terry,
    pairwise_counts,
    seat_ranks,
)
from card_envs.tournament.report import format_table
from card_envs.tournament.schedule import chunks_of, plan

FIELD4 = [
    "heuristic",
    "random",
    {"name": "heuristic_b", "spec": "heuristic"},
    {"name": "random_b", "spec": "random"},
    {"name": "random_c", "spec": "random"},
]


def config(tmp_path, events, **top):
    raw = {
        "name": "t",
        "db": str(tmp_path / "games.sqlite"),
        "out": str(tmp_path / "out"),
        "progress": False,
        "workers": 1,
        "events": events,
        **top,
    }
    return parse_config(raw)


def db_rows(path, tournament="t"):
    with sqlite3.connect(path) as conn:
        rows = conn.execute(
            "SELECT event, table_index, game, chunk, seed, seats, agents, rewards, scores, "
            "wins, length, truncated, actions FROM games WHERE tournament = ? "
            "ORDER BY event, table_index, game",
            (tournament,),
        ).fetchall()
    return rows


# --- schedule -----------------------------------------------------------------------------
@pytest.mark.parametrize("n,field,tables", [(3, 4, 40), (4, 5, 57), (3, 7, 20), (4, 4, 9)])
def test_random_tables_balance_games_and_seats(tmp_path, n, field, tables):
    agents = [{"name": f"r{k}", "spec": "random"} for k in range(field)]
    ev = {"env": "no_thanks_v0", "config": {"num_players": n}, "agents": agents,
          "format": "random_tables", "tables": tables, "games": 2 * n}  # fmt: skip
    (p,) = plan(config(tmp_path, [ev]))
    per_agent = np.bincount(np.array(p.members()).ravel(), minlength=field)
    assert per_agent.max() - per_agent.min() <= 1  # tables per agent within one
    assert all(len(set(t)) == n for t in p.members())  # nobody twice at a table
    for a in range(field):
        seats = np.nonzero(p.agent_of_seat == a)[1]
        counts = np.bincount(seats, minlength=n)
        assert (counts == counts[0]).all() and counts[0] == 2 * per_agent[a]
    assert p.num_games == tables * 2 * n
    again = plan(config(tmp_path, [ev]))[0]
    assert again.tables == p.tables  # the draw is seeded
    other = plan(config(tmp_path, [ev], seed=99))[0]
    assert other.tables != p.tables or field == n


def test_round_robin_plays_every_pairing_with_seats_alternating(tmp_path):
    ev = {"env": "double_or_nothing_v0", "agents": ["random", "heuristic", "computer"],
          "games": 5}  # fmt: skip
    cfg = config(tmp_path, [ev])
    assert any("games=5 rounded up to 6" in note for note in cfg.notes)
    (p,) = plan(cfg)
    # every pairing, in field order; a table's members in name order (computer first)
    assert p.members() == [(1, 0), (2, 0), (2, 1)]
    for t, (a, b) in enumerate(p.members()):
        seats = p.agent_of_seat[p.table_of == t]
        assert len(seats) == 6
        assert (seats[:, 0] == a).sum() == 3 and (seats[:, 0] == b).sum() == 3


def test_chunks_cover_the_schedule_once(tmp_path):
    ev = {"env": "no_thanks_v0", "agents": FIELD4, "tables": 11, "games": 6}
    (p,) = plan(config(tmp_path, [ev], chunk_games=16))
    parts = chunks_of(np.arange(p.num_games), 16)
    assert np.concatenate(parts).tolist() == list(range(p.num_games))
    assert max(len(c) for c in parts) == 16
    assert len(set(p.seeds.tolist())) == p.num_games  # every game its own deal
    chunk = p.chunk(parts[1], 0, False)
    assert list(chunk.seeds) == p.seeds[parts[1]].tolist()


def test_relative_paths_reach_workers_as_absolute_paths(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)

    def portable(text: str) -> str:
        return parse_spec(text).portable().text

    assert portable("ppo:models/a.zip") == f"ppo:{tmp_path / 'models' / 'a.zip'}"
    assert portable("ppo:/abs/a.zip") == "ppo:/abs/a.zip"
    assert portable("ppo") == "ppo" and portable("random") == "random"
    assert portable("ismcts:50:net=n/a.zip") == f"ismcts:50:net={tmp_path / 'n' / 'a.zip'}"
    assert portable("py:me/a.py:A:k=1") == f"py:{tmp_path / 'me' / 'a.py'}:A:k=1"
    assert portable("py:mypkg.agents:A") == "py:mypkg.agents:A"  # a module: sys.path finds it


# --- config validation ------------------------------------------------------------------
GOOD_EVENT = {
    "env": "no_thanks_v0",
    "agents": ["heuristic", "random", {"name": "random_b", "spec": "random"}],
}


@pytest.mark.parametrize(
    "raw,message",
    [
        ({"events": [GOOD_EVENT], "gamez": 3}, r"unknown key 'gamez'; allowed keys are \[.*"),
        ({"events": [{**GOOD_EVENT, "tabels": 3}]}, r"events\[0\]: unknown key 'tabels'"),
        ({"events": [{"agents": ["random"]}]}, r"missing key 'env'"),
        ({"events": [{**GOOD_EVENT, "env": "uno_v0"}]}, r"env='uno_v0' is not a multi-agent"),
        (
            {"events": [{**GOOD_EVENT, "env": "double_or_nothing_run_v0"}]},
            r"not a multi-agent env id; allowed: \['double_or_nothing_v0'",
        ),
        (
            {"events": [{**GOOD_EVENT, "config": {"num_players": 9}}]},
            r"events\[0\]\.config: no_thanks_v0: option num_players=9 is outside",
        ),
        (
            {"events": [{**GOOD_EVENT, "config": {"colour": "red"}}]},
            r"unknown option\(s\) \['colour'\]; allowed options are",
        ),
        ({"events": [{"env": "no_thanks_v0"}]}, r"missing key 'agents'"),
        (
            {"events": [{**GOOD_EVENT, "agents": ["random", "random", "genius"]}]},
            r"agents\[2\]: agent 'genius': unknown agent spec 'genius'; known kinds are",
        ),
        (
            {"events": [{**GOOD_EVENT, "agents": ["random", "computer", "heuristic"]}]},
            r"agents\[1\]: agent 'computer': no_thanks_v0 has no computer player",
        ),
        (
            {"events": [{**GOOD_EVENT, "agents": ["random", "random", "heuristic"]}]},
            r"agent name 'random' appears twice; give copies their own names",
        ),
        (
            {"events": [{**GOOD_EVENT, "agents": ["random", {"spec": "random", "nam": "x"}]}]},
            r"agents\[1\]: unknown key 'nam'",
        ),
        (
            {"events": [{**GOOD_EVENT, "agents": ["random", "heuristic"]}]},
            r"num_players=3 needs at least 3 agents, got 2",
        ),
        (
            {"events": [{**GOOD_EVENT, "format": "swiss"}]},
            r"format='swiss' is not one of \['round_robin', 'random_tables'\]",
        ),
        (
            {"events": [{**GOOD_EVENT, "rank_by": "luck"}]},
            r"rank_by='luck' is not one of \['win', 'score_low', 'score_high'\]",
        ),
        ({"events": [{**GOOD_EVENT, "games": 0}]}, r"games=0 must be an int >= 1"),
        ({"events": [{**GOOD_EVENT, "games": "many"}]}, r"games='many' must be an int >= 1"),
        (
            {"events": [{**GOOD_EVENT, "format": "round_robin", "tables": 4}]},
            r"tables is only for format random_tables",
        ),
        ({"events": [GOOD_EVENT], "backend": "spark"}, r"backend='spark' is not one of"),
        ({"events": [GOOD_EVENT], "seed": -1}, r"seed=-1 must be an int >= 0"),
        ({"events": [GOOD_EVENT], "workers": 0}, r"workers=0 must be an int >= 1 or null"),
        (
            {"events": [GOOD_EVENT], "progress": "yes"},
            r"progress='yes' must be true, false or auto",
        ),
        ({"events": [GOOD_EVENT], "name": "a b"}, r"name='a b' may only use letters"),
        ({"events": []}, r"events=\[\] must be a non-empty list"),
        ({"seed": 1}, r"missing key 'events'"),
        ({"events": [GOOD_EVENT, GOOD_EVENT]}, r"event name 'no_thanks_v0' is used twice"),
        (
            {"events": [GOOD_EVENT], "records": True, "record_actions": False},
            r"records: true needs record_actions: true",
        ),
        ([1, 2], r"a tournament config must be a mapping"),
    ],
)
def test_bad_configs_stop_with_a_message_naming_the_key(raw, message):
    with pytest.raises(TournamentConfigError, match=message):
        parse_config(raw, source="my.yaml")


def test_progress_is_true_false_or_auto():
    assert parse_config({"events": [GOOD_EVENT]}).progress is None  # auto by default
    assert parse_config({"events": [GOOD_EVENT], "progress": "auto"}).progress is None
    assert parse_config({"events": [GOOD_EVENT], "progress": True}).progress is True
    assert parse_config({"events": [GOOD_EVENT], "progress": False}).progress is False


def test_bad_yaml_files(tmp_path):
    with pytest.raises(TournamentConfigError, match="no such config file"):
        load_config(tmp_path / "missing.yaml")
    broken = tmp_path / "broken.yaml"
    broken.write_text("events: [\n  - env: no_thanks_v0\n  agents: {")
    with pytest.raises(TournamentConfigError, match="broken.yaml: not valid YAML"):
        load_config(broken)
    typo = tmp_path / "typo.yaml"
    typo.write_text("events:\n  - env: no_thanks_v0\n    agent: [random]\n")
    with pytest.raises(TournamentConfigError, match=r"typo.yaml: events\[0\]: unknown key 'agent'"):
        load_config(typo)


# --- ratings ------------------------------------------------------------------------------
def test_seat_ranks():
    scores = np.array([[10.0, 3.0, 7.0, 3.0], [5, 9, 9, 1]])
    wins = np.array([[0, 0.5, 0, 0.5], [1, 0, 0, 0]])
    assert seat_ranks(scores, wins, "win").tolist() == [[1, 0, 1, 0], [0, 1, 1, 1]]
    assert seat_ranks(scores, wins, "score_low").tolist() == [[2, 0, 1, 0], [0, 2, 2, 1]]
    assert seat_ranks(scores, wins, "score_high").tolist() == [[1, 0, 2, 0], [0, 1, 1, 2]]


def bt_reference(wins, games, prior_draws=1.0, iters=200):
    """Newton's method on the Bradley-Terry log-likelihood, in plain Python loops."""
    k = len(wins)
    w = [[wins[i][j] + (prior_draws / 2 if games[i][j] else 0) for j in range(k)] for i in range(k)]
    n = [[games[i][j] + (prior_draws if games[i][j] else 0) for j in range(k)] for i in range(k)]
    theta = [0.0] * k
    for _ in range(iters):
        grad = [0.0] * k
        hess = [[0.0] * k for _ in range(k)]
        for i in range(k):
            for j in range(k):
                if i == j or not n[i][j]:
                    continue
                p = 1 / (1 + math.exp(theta[j] - theta[i]))
                grad[i] += w[i][j] - n[i][j] * p
                hess[i][i] += n[i][j] * p * (1 - p)
                hess[i][j] -= n[i][j] * p * (1 - p)
        step = np.linalg.lstsq(np.array(hess), np.array(grad), rcond=None)[0]
        theta = [t + s for t, s in zip(theta, step, strict=True)]
        mean = sum(theta) / k
        theta = [t - mean for t in theta]
    cov = np.linalg.pinv(np.array(hess))
    return np.array(theta), np.sqrt(np.diag(cov))


def test_bradley_terry_matches_a_plain_maximum_likelihood_fit():
    # agent 0 beats 1 mostly, 1 beats 2 mostly, draws count half; 0 never lost to 2
    seats = np.array([[0, 1]] * 30 + [[1, 2]] * 40 + [[2, 0]] * 10 + [[0, 2]] * 10)
    share = np.array(
        [[1, 0]] * 21 + [[0, 1]] * 7 + [[0.5, 0.5]] * 2
        + [[1, 0]] * 25 + [[0, 1]] * 15
        + [[0, 1]] * 10 + [[1, 0]] * 10
    )  # fmt: skip
    wins, games = pairwise_counts(3, seats, share)
    assert wins[0, 1] == 22 and wins[1, 0] == 8 and games[0, 2] == 20 and wins[2, 0] == 0
    theta, se = bradley_terry(wins, games)
    ref_theta, ref_se = bt_reference(wins.tolist(), games.tolist())
    np.testing.assert_allclose(theta, ref_theta, atol=1e-6)
    np.testing.assert_allclose(se, ref_se, rtol=1e-4)
    assert theta[0] > theta[1] > theta[2] and np.isfinite(theta).all()
    assert ELO_SCALE == pytest.approx(173.7178, abs=1e-4)


def test_bradley_terry_needs_a_connected_field():
    wins = np.array([[0, 3, 0, 0], [1, 0, 0, 0], [0, 0, 0, 2], [0, 0, 2, 0]], float)
    games = np.array([[0, 4, 0, 0], [4, 0, 0, 0], [0, 0, 0, 4], [0, 0, 4, 0]], float)
    theta, _ = bradley_terry(wins, games)
    assert np.isnan(theta).all()


# --- running ------------------------------------------------------------------------------
def small_events():
    return [
        {"name": "nt", "env": "no_thanks_v0", "config": {"num_players": 3}, "agents": FIELD4,
         "tables": 30, "games": 6, "rank_by": "score_low"},
        {"name": "don", "env": "double_or_nothing_v0",
         "agents": ["heuristic", "random", "computer"], "games": 40},
    ]  # fmt: skip


def test_tournament_stores_every_game_rates_and_reports(tmp_path, capsys):
    cfg = config(tmp_path, small_events(), chunk_games=50, records=True)
    res = run_tournament(cfg, echo=print)
    assert res.scheduled == 30 * 6 + 3 * 40 == res.played and res.already_stored == 0
    rows = db_rows(cfg.db)
    assert len(rows) == res.scheduled
    assert len({r[:3] for r in rows}) == len(rows)  # (event, table, game) once each
    nt, don = res.leaderboards
    # the heuristics lead both fields; ratings, Elo and win rates agree on it
    assert {s.name for s in nt.standings[:2]} == {"heuristic", "heuristic_b"}
    assert [s.name for s in don.standings] == ["heuristic", "computer", "random"]
    assert don.standings[0].elo > don.standings[1].elo > don.standings[2].elo
    assert nt.standings[0].elo is None and not nt.has_elo
    for board, ev in ((nt, cfg.events[0]), (don, cfg.events[1])):
        assert sum(s.games for s in board.standings) == board.games * ev.num_players
        for s in board.standings:
            assert s.win_rate_low <= s.win_rate <= s.win_rate_high
            assert len(set(s.seat_games)) == 1  # every seat equally often
        with open(tmp_path / "out" / f"{board.event}.csv") as f:
            table = list(csv.DictReader(f))
        assert [r["name"] for r in table] == [s.name for s in board.standings]
        assert float(table[0]["mu"]) == pytest.approx(board.standings[0].mu, abs=1e-6)
        png = (tmp_path / "out" / f"{board.event}.png").read_bytes()
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000
    # JSONL records: one per game, and replaying each into the AEC env reproduces it
    records = list(read_jsonl(tmp_path / "out" / "don.jsonl"))
    assert len(records) == 120 and records[0]["agents"][0] in ("heuristic", "random", "computer")
    nt_records = list(read_jsonl(tmp_path / "out" / "nt.jsonl"))
    for rec in records[:40] + nt_records[::5]:
        assert check_replay(rec) == []
    tampered = dict(nt_records[0], actions=nt_records[0]["actions"][:-1])
    assert "not over" in check_replay(tampered)[0]
    changed = dict(records[0], seed=records[0]["seed"] + 1)
    assert check_replay(changed) != []
    # a second run finds everything stored and plays nothing
    again = run_tournament(cfg)
    assert again.played == 0 and again.already_stored == res.scheduled
    assert [s.mu for s in again.leaderboards[0].standings] == [s.mu for s in nt.standings]


def test_same_seed_same_games_with_one_or_two_workers(tmp_path):
    one = config(tmp_path / "a", small_events(), chunk_games=32, workers=1)
    two = config(tmp_path / "b", small_events(), chunk_games=32, workers=2)
    run_tournament(one, write_files=False)
    run_tournament(two, write_files=False)
    assert db_rows(one.db) == db_rows(two.db)


def test_a_changed_config_is_refused_until_restart(tmp_path):
    events = [{"env": "double_or_nothing_v0", "agents": ["random", "computer"], "games": 4}]
    run_tournament(config(tmp_path, events), write_files=False)
    changed = config(tmp_path, events, seed=5)
    with pytest.raises(TournamentMismatch, match="its seed is 0, not 5; rerun with --restart"):
        run_tournament(changed, write_files=False)
    res = run_tournament(changed, restart=True, write_files=False)
    assert res.played == 4 and res.already_stored == 0
    with Store(changed.db) as store:
        assert store.count("t") == 4


def test_a_search_agent_plays_and_its_time_per_move_is_reported(tmp_path):
    ev = {"name": "nt", "env": "no_thanks_v0", "agents": ["ismcts:20", "heuristic", "random"],
          "games": 6}  # fmt: skip
    (board,) = run_tournament(config(tmp_path, [ev])).leaderboards
    assert all(math.isfinite(s.ms_per_move) and s.ms_per_move >= 0 for s in board.standings)
    assert "ms/move" in format_table(board)


def test_a_database_of_an_earlier_version_gets_the_time_columns(tmp_path):
    """Games stored before moves and think times were kept rate as before, time unknown."""
    ev = {"name": "nt", "env": "no_thanks_v0", "agents": FIELD4[:3], "games": 6}
    cfg = config(tmp_path, [ev])
    run_tournament(cfg, write_files=False)
    with sqlite3.connect(cfg.db) as conn:  # back to the old schema: drop the new columns
        conn.execute("ALTER TABLE games DROP COLUMN moves")
        conn.execute("ALTER TABLE games DROP COLUMN think")
    (board,) = run_tournament(cfg, write_files=False).leaderboards
    assert board.games == 6 and all(math.isnan(s.ms_per_move) for s in board.standings)
    with sqlite3.connect(cfg.db) as conn:
        columns = {r[1] for r in conn.execute("PRAGMA table_info(games)")}
    assert {"moves", "think"} <= columns

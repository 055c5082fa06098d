"""Growing tournaments: entrants, events, games and tables added later play only the games
that are new; a changed entrant, seed or format is refused with what to do."""

from __future__ import annotations

import sqlite3

import pytest

from card_envs.tournament import TournamentMismatch, parse_config, run_tournament
from card_envs.tournament.schedule import plan


def _config(tmp_path, agents, **event):
    raw = {
        "name": "grow",
        "db": str(tmp_path / "grow.sqlite"),
        "workers": 1,
        "progress": False,
        "chunk_games": 16,
        "events": [{"agents": agents, **event}],
    }
    return parse_config(raw)


def _stored(tmp_path) -> dict[tuple, tuple]:
    """Every stored game by (event, table key, game): its seed, seats, scores and time."""
    with sqlite3.connect(tmp_path / "grow.sqlite") as conn:
        rows = conn.execute(
            "SELECT event, table_index, game, seed, seats, scores, finished_at FROM games"
        ).fetchall()
    return {r[:3]: r[3:] for r in rows}


def _pairs(rows: dict) -> set[frozenset]:
    return {frozenset(eval(v[1])) for v in rows.values()}


DON = {"env": "double_or_nothing_v0", "games": 4}


def test_a_round_robin_of_three_then_four_plays_only_the_new_pairings(tmp_path):
    three = ["random", "heuristic", "computer"]
    first = run_tournament(_config(tmp_path, three, **DON), write_files=False)
    assert first.played == 12 and first.already_stored == 0
    before = _stored(tmp_path)
    four = run_tournament(_config(tmp_path, [*three, "ismcts:20"], **DON), write_files=False)
    assert four.already_stored == 12 and four.played == 12  # 3 new pairings of 4 games
    after = _stored(tmp_path)
    assert len(after) == 24 and all(after[k] == v for k, v in before.items())  # untouched
    assert len(_pairs(after)) == 6
    board = four.leaderboards[0]
    assert board.games == 24 and {s.name for s in board.standings} == {*three, "ismcts:20"}
    assert all(s.games == 12 for s in board.standings)  # 3 pairings x 4 games each


def test_a_grown_round_robin_deals_what_a_fresh_one_deals(tmp_path):
    three = ["random", "heuristic", "computer"]
    run_tournament(_config(tmp_path, three, **DON), write_files=False)
    run_tournament(_config(tmp_path, [*three, "ismcts:20"], **DON), write_files=False)
    grown = _stored(tmp_path)
    fresh_dir = tmp_path / "fresh"
    fresh_dir.mkdir()
    run_tournament(_config(fresh_dir, [*three, "ismcts:20"], **DON), write_files=False)
    fresh = _stored(fresh_dir)
    assert {k: v[0] for k, v in grown.items()} == {k: v[0] for k, v in fresh.items()}  # deals
    deterministic = {k for k, v in fresh.items() if "random" not in v[1]}
    assert all(grown[k][:2] == fresh[k][:2] for k in deterministic)
    assert all(grown[k][2] == fresh[k][2] for k in deterministic if "ismcts" not in fresh[k][1])


NT = {"env": "no_thanks_v0", "config": {"num_players": 3}, "format": "random_tables",
      "tables": 8, "games": 3}  # fmt: skip
FIELD = [
    "random",
    "heuristic",
    {"name": "r2", "spec": "random"},
    {"name": "h2", "spec": "heuristic"},
]


def test_random_tables_keep_their_games_and_seat_a_newcomer_as_often(tmp_path):
    first = run_tournament(_config(tmp_path, FIELD, **NT), write_files=False)
    assert first.played == 24
    before = _stored(tmp_path)
    grown = _config(tmp_path, [*FIELD, "ismcts:20"], **NT)
    second = run_tournament(grown, write_files=False)
    after = _stored(tmp_path)
    assert second.already_stored == 24 and all(after[k] == v for k, v in before.items())
    assert second.played == len(after) - 24 > 0
    sat = {}
    for seats in (eval(v[1]) for v in after.values()):
        for name in seats:
            sat[name] = sat.get(name, 0) + 1
    assert max(sat.values()) - min(sat.values()) <= 3  # tables within one: 3 games a table
    assert {s.name for s in second.leaderboards[0].standings} == set(sat)
    again = run_tournament(grown, write_files=False)  # nothing new: a resume
    assert again.played == 0 and again.already_stored == len(after)


def test_raising_games_and_tables_plays_only_the_difference(tmp_path):
    run_tournament(_config(tmp_path, FIELD, **NT), write_files=False)
    more = run_tournament(_config(tmp_path, FIELD, **{**NT, "games": 6}), write_files=False)
    assert more.played == 24 and more.already_stored == 24
    wider = run_tournament(
        _config(tmp_path, FIELD, **{**NT, "games": 6, "tables": 10}), write_files=False
    )
    assert wider.played == 12 and len(_stored(tmp_path)) == 60


def test_a_removed_entrant_keeps_its_games_out_of_the_ratings(tmp_path):
    run_tournament(_config(tmp_path, [*FIELD, "ismcts:20"], **NT), write_files=False)
    stored = len(_stored(tmp_path))
    fewer = run_tournament(_config(tmp_path, FIELD, **NT), write_files=False)
    assert len(_stored(tmp_path)) == stored + fewer.played  # nothing deleted
    board = fewer.leaderboards[0]
    assert "ismcts:20" not in {s.name for s in board.standings}
    with_it = sum(1 for v in _stored(tmp_path).values() if "ismcts:20" in v[1])
    assert board.games == len(_stored(tmp_path)) - with_it > 0


def test_an_added_event_plays_alone(tmp_path):
    run_tournament(_config(tmp_path, ["random", "computer"], **DON), write_files=False)
    events = [{"agents": ["random", "computer"], **DON}, {"agents": FIELD, **NT}]
    db = str(tmp_path / "grow.sqlite")
    raw = {"name": "grow", "db": db, "workers": 1, "progress": False, "events": events}
    res = run_tournament(parse_config(raw), write_files=False)
    assert res.already_stored == 4 and res.played == 24


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"agents": [{"name": "random", "spec": "heuristic"}, "computer"]},
         "entrant 'random' of event 'double_or_nothing_v0' changed: its spec was 'random', now "
         "'heuristic'.*another name.*--restart"),
        ({"format": "random_tables", "tables": 2},
         "event 'double_or_nothing_v0' was played with format 'round_robin'"),
        ({"rank_by": "score_high"}, "was played with rank_by 'win'"),
    ],
)  # fmt: skip
def test_a_changed_entrant_or_format_is_refused_with_what_to_do(tmp_path, change, message):
    run_tournament(_config(tmp_path, ["random", "computer"], **DON), write_files=False)
    event = {"agents": ["random", "computer"], **DON, **change}
    with pytest.raises(TournamentMismatch, match=message):
        run_tournament(_config(tmp_path, **event), write_files=False)


def test_the_plan_is_the_same_whatever_the_field_order_in_round_robin(tmp_path):
    a = plan(_config(tmp_path, ["random", "heuristic", "computer"], **DON))[0]
    b = plan(_config(tmp_path, ["computer", "random", "heuristic"], **DON))[0]
    assert sorted(a.seeds.tolist()) == sorted(b.seeds.tolist())


def test_an_entrant_entered_again_gets_its_stored_tables_back(tmp_path):
    with_it = _config(tmp_path, [*FIELD, "ismcts:20"], **NT)
    first = run_tournament(with_it, write_files=False)
    run_tournament(_config(tmp_path, FIELD, **NT), write_files=False)
    stored = len(_stored(tmp_path))
    back = run_tournament(with_it, write_files=False)
    assert len(_stored(tmp_path)) == stored + back.played
    assert back.leaderboards[0].games == len(_stored(tmp_path))  # everyone entered again
    mine = [s for s in back.leaderboards[0].standings if s.name == "ismcts:20"][0]
    was = [s for s in first.leaderboards[0].standings if s.name == "ismcts:20"][0]
    assert mine.games >= was.games  # its old tables count again

"""The standard benchmark: the protocol is frozen and playable, a user's file agent is
benched on 2 workers with the numbers a plain count of the stored games gives, the deals do
not depend on the candidate, a rerun resumes, an edited file is benched afresh, and the
scorecard and the reference page are written."""

from __future__ import annotations

import dataclasses
import json
import math
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from card_envs.agents import make_agent
from card_envs.bench import CELLS, BenchError, Settings, bench, protocol
from card_envs.bench import run as bench_run
from card_envs.bench.command import write_page
from card_envs.cli import main
from card_envs.evaluation.stats import wilson_interval
from card_envs.registry import agent_env_id, make, make_game

ROOT = Path(__file__).resolve().parents[1]

AGENT = """
import numpy as np
from card_envs.agents import Agent


class Lowest(Agent):
    def __init__(self, env_id, seed=None, config=None, shift=0):
        self.shift = shift

    def act_batch(self, observations, masks):
        return np.argmax(masks, axis=1) + self.shift
"""

# a small slice of the protocol: two multi-seat settings, the one-seat ids, few games
GAMES = {"seats": 6, "same_deals": 4}
PANEL = ("random", "heuristic", "computer", "ppo")
PICKED = ("no_thanks_v0", "double_or_nothing_v0", "rummidrez_solo_v0", "double_or_nothing_run_v0")


def small_cells() -> list:
    cells = []
    for c in CELLS:
        if c.env_id not in PICKED or c.options.get("stage", 1) > 1:
            continue
        if c.options.get("num_players", 1) > 3 or c.panel not in PANEL:
            continue
        cells.append(dataclasses.replace(c, size=GAMES[c.kind]))
    return cells


@pytest.fixture
def agent_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "lowest.py").write_text(AGENT)
    return tmp_path / "lowest.py"


def quiet(_: str) -> None:
    pass


# --- the protocol -------------------------------------------------------------------------
def test_the_panel_networks_are_the_protocols():
    digests = bench_run.panel_digests(CELLS)  # raises if a shipped network is not the frozen one
    assert {k: v for k, v in digests.items() if k in protocol.NETWORKS} == protocol.NETWORKS


def test_every_cell_is_a_valid_game_with_a_buildable_panel():
    names = [c.name for c in CELLS]
    assert len(set(names)) == len(names)
    for c in CELLS:
        env_id = agent_env_id(c.env_id)
        if c.env_id == env_id:
            game = make_game(c.env_id, **c.options)
            assert game.num_players == c.num_players
        else:
            make(c.env_id, **c.options)
        assert c.games % c.num_players == 0 and c.games >= protocol.GAMES
        config = c.options if c.env_id == env_id else {}
        make_agent(c.panel, env_id, seed=0, **config)
    players = {c.num_players for c in CELLS if c.env_id == "super_zwierzaki_v0"}
    assert players == set(range(2, 13))  # each player count the game allows


def test_docs_hold_the_cells_table():
    assert protocol.cells_table() in (ROOT / "docs/bench.md").read_text()


def test_a_reshipped_panel_network_is_refused(monkeypatch):
    monkeypatch.setitem(protocol.NETWORKS, ("no_thanks_v0", "ppo"), "0" * 16)
    with pytest.raises(BenchError, match="no_thanks_v0 is not bench-v1's.*new protocol version"):
        bench("heuristic", cells=small_cells(), settings=Settings(db=":memory:"), echo=quiet)


def test_an_unknown_env_id_names_the_protocols():
    with pytest.raises(BenchError, match="'nope_v0': bench-v1 has cells of"):
        bench_run.select(["nope_v0"])


# --- a user's agent -----------------------------------------------------------------------
def stored(db: Path, tournament: str) -> list[dict]:
    conn = sqlite3.connect(db)
    rows = conn.execute(
        "SELECT event, table_index, game, seed, seats, wins, rewards, moves FROM games "
        "WHERE tournament = ?",
        (tournament,),
    ).fetchall()
    conn.close()
    keys = ("event", "table", "game", "seed", "seats", "wins", "rewards", "moves")
    out = [dict(zip(keys, r, strict=True)) for r in rows]
    for r in out:
        for k in ("seats", "wins", "rewards", "moves"):
            r[k] = json.loads(r[k])
    return out


@pytest.mark.slow
def test_a_file_agent_is_benched_on_two_workers(agent_file, tmp_path):
    db = tmp_path / "bench.sqlite"
    cells = small_cells()
    lines: list[str] = []
    card = bench(
        "py:lowest.py:Lowest", cells=cells, settings=Settings(db=str(db), workers=2),
        echo=lines.append,
    )  # fmt: skip
    assert not card.reads_rows and not card.skipped and not card.complete
    name = f"bench-v1:{card.spec}:{card.digest}"
    assert card.spec == f"py:{agent_file}:Lowest"  # the path made absolute for workers
    rows = stored(db, name)
    assert len(rows) == sum(c.games * (1 if c.kind == "seats" else 2) for c in cells)
    for cell, result in zip(cells, card.cells, strict=True):
        mine = [r for r in rows if r["event"] == cell.name]
        if cell.kind == "seats":  # the oracle: the candidate's win shares, counted plainly
            n = cell.num_players
            share = [r["wins"][r["seats"].index("candidate")] for r in mine]
            assert result.win_rate == pytest.approx(np.mean(share))
            assert result.win_rate_ci == pytest.approx(wilson_interval(np.mean(share), len(mine)))
            assert result.fair_share == pytest.approx(1 / n)
            seats = [r["seats"].index("candidate") for r in mine]
            assert np.bincount(seats, minlength=n).tolist() == [len(mine) // n] * n
            assert all(r["seats"].count(cell.panel) == n - 1 for r in mine)
        else:  # the same deals, compared one by one
            by_seed: dict[int, dict[str, float]] = {}
            for r in mine:
                by_seed.setdefault(r["seed"], {})[r["seats"][0]] = r["rewards"][0]
            assert len(by_seed) == cell.games
            a = np.array([d["candidate"] for d in by_seed.values()])
            b = np.array([d[cell.panel] for d in by_seed.values()])
            assert result.win_rate == pytest.approx(np.mean((a > b) + 0.5 * (a == b)))
            assert result.mean_score == pytest.approx(a.mean())
        assert result.games == cell.games and result.ms_per_move > 0
    assert any("event no_thanks_v0[num_players=3] vs heuristic: all 6 games" in x for x in lines)

    # the same agent and protocol: the same numbers, with one worker, in another store
    again = bench(
        "py:lowest.py:Lowest", cells=cells, settings=Settings(db=str(tmp_path / "b.sqlite"),
        workers=1), echo=quiet,
    )  # fmt: skip
    strip = [dataclasses.replace(c, ms_per_move=0.0) for c in card.cells]
    assert [dataclasses.replace(c, ms_per_move=0.0) for c in again.cells] == strip

    # a rerun plays nothing; a lost chunk is played again, with the same numbers
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("DELETE FROM games WHERE event = ?", (cells[0].name,))
    conn.close()
    resumed: list[str] = []
    third = bench(
        "py:lowest.py:Lowest", cells=cells, settings=Settings(db=str(db), workers=1),
        echo=resumed.append,
    )  # fmt: skip
    assert any(f"{len(rows) - cells[0].games} games already in" in x for x in resumed)
    assert any(f"{cells[0].games} to play" in x for x in resumed)
    assert [dataclasses.replace(c, ms_per_move=0.0) for c in third.cells] == strip

    # an edited file is another agent: benched afresh, the old games kept
    agent_file.write_text(AGENT.replace("shift=0", "shift=0, unused=1"))
    edited = bench("py:lowest.py:Lowest", cells=cells[:2], settings=Settings(db=str(db)),
                   echo=quiet)  # fmt: skip
    assert edited.digest != card.digest
    assert len(stored(db, name)) == len(rows)
    assert len(stored(db, f"bench-v1:{edited.spec}:{edited.digest}")) == sum(
        c.games for c in cells[:2]
    )

    # every candidate meets the same deals in a cell
    other = bench("random", cells=cells[:1], settings=Settings(db=str(db)), echo=quiet)
    seeds = {r["seed"] for r in stored(db, f"bench-v1:random:{other.digest}")}
    assert seeds == {r["seed"] for r in rows if r["event"] == cells[0].name}

    files = card.write(tmp_path / "card")
    assert [f.name for f in files] == ["scorecard.md", "scorecard.json", "scorecard.png"]
    data = json.loads(files[1].read_text())
    assert data["protocol"] == "bench-v1" and len(data["cells"]) == len(cells)
    text = files[0].read_text()
    assert "partial: " in text and "plays from its observations only" in text
    for env_id in PICKED:
        assert f"- {env_id}: above the fair share in " in text


def test_a_searching_candidate_is_marked_and_sits_out_the_run(tmp_path):
    cells = [c for c in small_cells() if c.panel == "random"]
    card = bench("ismcts:4", cells=cells, settings=Settings(db=str(tmp_path / "b.sqlite")),
                 echo=quiet)  # fmt: skip
    assert card.reads_rows
    assert [s.cell.env_id for s in card.skipped] == ["double_or_nothing_run_v0"]
    assert {s.reason for s in card.skipped} == {"a Gymnasium env hands an agent no state rows"}
    assert "**reads state rows**" in card.markdown()
    assert "double_or_nothing_run_v0" not in card.env_ids


def test_the_exploit_bound_is_asked_per_multi_seat_game(tmp_path, monkeypatch):
    from card_envs.bench import command
    from card_envs.training import exploit as exploit_module

    cells = [c for c in small_cells() if c.panel == "random"]
    card = bench("heuristic", cells=cells, settings=Settings(db=str(tmp_path / "b.sqlite")),
                 echo=quiet)  # fmt: skip
    asked = []

    def fake_exploit(request, workers=1):
        asked.append(request)
        fair = 1 / request.num_players
        return {"exploit": {
            "env": request.env, "config": request.config, "target": request.target,
            "learner_steps": 1000, "exploiter_win_rate": fair, "exploiter_ci": [0.0, 1.0],
            "fair_share": fair, "bound_points": 0.0, "bound_points_ci": [-10.0, 10.0],
        }, "training_minutes": 0.1}  # fmt: skip

    monkeypatch.setattr(exploit_module, "exploit", fake_exploit)
    monkeypatch.setattr(exploit_module, "summary", lambda results: "summary")
    command.exploit_bounds(card, 2.0, tmp_path / "out", 1)
    assert [(r.env, r.config["num_players"], r.minutes) for r in asked] == [
        ("no_thanks_v0", 4, 2.0), ("double_or_nothing_v0", 2, 2.0),
    ]  # fmt: skip
    assert all(r.target == "heuristic" and "out/exploit" in r.out for r in asked)
    assert "## Exploitability" in card.markdown().replace("###", "##")


def test_the_command_writes_the_scorecard_and_the_page(agent_file, tmp_path, capsys):
    run_cells = [c for c in small_cells() if c.env_id == "double_or_nothing_run_v0"]
    assert len(run_cells) == 3
    page = tmp_path / "figures" / "bench.md"
    cards = []
    for spec in ("py:lowest.py:Lowest", "heuristic"):
        cards.append(bench(spec, cells=run_cells, settings=Settings(db="b.sqlite"), echo=quiet))
    write_page(page, cards, "card-envs bench py:lowest.py:Lowest heuristic")
    text = page.read_text()
    assert text.startswith("# Scorecards of the built-in agents (bench-v1)")
    assert "- command: `card-envs bench py:lowest.py:Lowest heuristic`" in text
    for card in cards:
        assert f"`{card.spec}` on bench-v1" in text
        png = page.with_suffix("") / f"{bench_run.default_out(card.spec).name}.png"
        assert png.stat().st_size > 1000 and f"(bench/{png.name})" in text
    # the command line: a bad env id is one line naming what is allowed
    with pytest.raises(SystemExit):
        main(["bench", "heuristic", "--env", "nope_v0"])
    err = capsys.readouterr().err
    assert err.startswith("card-envs: error: --env 'nope_v0': bench-v1 has cells of")
    assert math.isfinite(cards[0].cells[0].win_rate)


def test_a_network_candidate_is_built_at_each_cells_config(tmp_path):
    """The shipped solo network plays only its training config (hints): the candidate is
    built at the cell's config, as its games are."""
    cells = [c for c in small_cells() if c.env_id == "rummidrez_solo_v0" and c.panel == "random"]
    card = bench("ppo", cells=cells, settings=Settings(db=str(tmp_path / "b.sqlite")), echo=quiet)
    assert card.cells[0].win_rate > 0.5  # the network finishes with less than random does


PARTIAL = """
from card_envs.agents import Agent


class ThreePlayerNoThanks(Agent):
    def __init__(self, env_id, seed=None, config=None):
        if env_id != "no_thanks_v0" or config["num_players"] != 3:
            raise ValueError(f"plays 3-player No Thanks only, not {env_id} {config}")

    def act_batch(self, observations, masks):
        return masks.argmax(axis=1)
"""


def test_an_agent_for_one_config_plays_its_cells_and_lists_the_others(tmp_path, monkeypatch):
    """Built at every cell's config before any game: the cells it refuses are listed with
    its reason, the rest are played (a one-config model refuses the same way: ModelError)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "partial.py").write_text(PARTIAL)
    cells = [c for c in small_cells() if c.panel == "random"]
    card = bench("py:partial.py:ThreePlayerNoThanks", cells=cells,
                 settings=Settings(db="b.sqlite"), echo=quiet)  # fmt: skip
    assert [(c.env_id, c.setting) for c in card.cells] == [("no_thanks_v0", "3 players")]
    assert card.cells[0].games == GAMES["seats"]
    skipped = {(s.cell.env_id, s.cell.setting) for s in card.skipped}
    assert skipped == {(c.env_id, c.setting) for c in cells} - {("no_thanks_v0", "3 players")}
    assert all("plays 3-player No Thanks only" in s.reason for s in card.skipped)
    text = card.markdown()
    assert f"- not played ({len(card.skipped)} cells):" in text
    assert any(
        line.startswith("  - double_or_nothing_v0 ") and ": plays 3-player No Thanks only" in line
        for line in text.splitlines()
    )
    data = card.as_dict()["skipped"]
    assert {d["cell"] for d in data} == {s.cell.name for s in card.skipped}
    # an agent that plays none of the cells asked for is an error, with its reason
    with pytest.raises(BenchError, match="can play none of the cells asked for: .*plays 3-player"):
        bench("py:partial.py:ThreePlayerNoThanks", cells=cells, players=[2],
              settings=Settings(db="b.sqlite"), echo=quiet)  # fmt: skip


def test_the_player_filter_picks_cells_and_names_the_counts_there_are():
    chosen = bench_run.select(["no_thanks_v0"], players=[3, 5])
    assert {c.num_players for c in chosen} == {3, 5} and {c.env_id for c in chosen} == {
        "no_thanks_v0"
    }
    with pytest.raises(BenchError, match=r"--players \[9\]: the cells asked for have \[3, 4"):
        bench_run.select(["no_thanks_v0"], players=[9])

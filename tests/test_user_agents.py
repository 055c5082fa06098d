"""A user's own agent through every door: the spec grammar, `py:` files and modules,
`py-policy:`, entry-point kinds, workers, identity and per-game state."""

from __future__ import annotations

import sys
import textwrap

import numpy as np
import pytest

from card_envs.agents import Agent, make_agent
from card_envs.agents.specs import (
    AgentSpec,
    AgentSpecError,
    parse_spec,
    spec_digest,
    spec_table,
    split_entries,
    split_name,
)
from card_envs.cli import main
from card_envs.evaluation import evaluate
from card_envs.tournament import parse_config, run_tournament

AGENT_FILE = """
import multiprocessing

import numpy as np

from card_envs.agents import Agent


class Greedy(Agent):
    '''Takes the highest legal action, or the lowest with low=True.'''

    def __init__(self, env_id, seed=None, config=None, low=False):
        self.low = low
        self.players = config["num_players"]

    def act_batch(self, observations, masks):
        if self.low:
            return np.argmax(masks, axis=1)
        return masks.shape[1] - 1 - np.argmax(masks[:, ::-1], axis=1)


def make_greedy(env_id, seed=None, config=None, **options):
    return Greedy(env_id, seed, config, **options)


def first_legal(observations, masks, offset=0):
    return np.argmax(masks, axis=1) + offset


def not_an_agent(env_id, seed=None, config=None):
    return "hello"


def only_in_the_parent(env_id, seed=None, config=None):
    if multiprocessing.current_process().name != "MainProcess":
        raise RuntimeError("built in a worker")
    return Greedy(env_id, seed, config)
"""


@pytest.fixture
def agent_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "myagent.py").write_text(AGENT_FILE)
    return tmp_path / "myagent.py"


# --- the grammar --------------------------------------------------------------------------
def test_parts_and_options_follow_one_grammar():
    spec = parse_spec("py:pkg.mod:Name:temperature=0.5:depth=3:label=fast:on=true")
    assert spec.kind == "py" and spec.args == ("pkg.mod", "Name")
    assert spec.option_dict == {"temperature": 0.5, "depth": 3, "label": "fast", "on": True}
    assert parse_spec(spec.text) == spec
    ismcts = parse_spec("ismcts:50:random:depth=40:net=runs/a:b/model.zip")
    assert ismcts.args == ("50", "random")
    assert ismcts.option_dict == {"depth": "40", "net": "runs/a:b/model.zip"}  # path keeps ':'
    assert parse_spec("ppo:runs/x:y/model.zip").args == ("runs/x:y/model.zip",)
    assert parse_spec("py:a.py:A", {"sizes": [1, 2]}).text == "py:a.py:A:sizes=[1, 2]"


def test_a_name_is_split_off_only_before_the_first_colon():
    assert split_name("ismcts:50:depth=40") == (None, "ismcts:50:depth=40")
    assert split_name("deep=ismcts:50:depth=40") == ("deep", "ismcts:50:depth=40")
    assert split_name("me=py:my.py:A:k=1") == ("me", "py:my.py:A:k=1")
    assert split_name("random") == (None, "random")
    assert split_entries("heuristic, random,ismcts:50:depth=40") == [
        "heuristic",
        "random",
        "ismcts:50:depth=40",
    ]


@pytest.mark.parametrize(
    ("text", "options", "message"),
    [
        ("genius", None, "unknown agent spec 'genius'; known kinds are random, heuristic"),
        ("heuristic:x", None, "heuristic takes no parts"),
        ("ismcts:50:foo=1", None, r"unknown options \['foo'\]; ismcts takes \['depth', 'net'\]"),
        ("ppo:", None, "needs a path after the colon"),
        ("py:myagent.py", None, "must name a module or file and a name in it"),
        ("py:a.py:A:k=1:stray", None, "positional part 'stray' after an option"),
        ("py:a.py:A:k=1:k=2", None, "gives option 'k' twice"),
        ("py:a.py:A:k=1", {"k": 2}, r"options \['k'\] are given twice"),
        ("random", {"k": 2}, r"unknown options \['k'\]; random takes none"),
        ("", None, "must be a non-empty string"),
    ],
)
def test_bad_specs_are_refused_naming_what_is_allowed(text, options, message):
    with pytest.raises(AgentSpecError, match=message):
        parse_spec(text, options)


def test_the_spec_table_of_the_docs_is_the_parsers():
    from pathlib import Path

    page = (Path(__file__).parent.parent / "docs" / "specs.md").read_text()
    assert spec_table() in page


# --- building -----------------------------------------------------------------------------
def test_a_file_agent_and_its_options(agent_file):
    high = make_agent("py:myagent.py:Greedy", "no_thanks_v0", seed=1, num_players=3)
    low = make_agent("py:myagent.py:make_greedy:low=True", "no_thanks_v0", num_players=3)
    masks = np.array([[1, 1]], dtype=np.int8)
    assert isinstance(high, Agent) and high.players == 3
    assert high.act_batch(None, masks).tolist() == [1] and low.act_batch(None, masks) == [0]
    assert high.spec == "py:myagent.py:Greedy" and high.name == "Greedy"
    same = make_agent("py:myagent.py:Greedy", "no_thanks_v0", options={"low": True}, num_players=3)
    assert same.low


def test_a_module_is_found_from_the_current_directory(agent_file, monkeypatch):
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(agent_file.parent))])
    monkeypatch.delitem(sys.modules, "myagent", raising=False)
    agent = make_agent("py:myagent:Greedy", "no_thanks_v0", num_players=3)
    assert type(agent).__name__ == "Greedy"


def test_a_batch_policy_comes_in_by_its_own_kind(agent_file):
    agent = make_agent("py-policy:myagent.py:first_legal:offset=1", "no_thanks_v0")
    assert agent.act_batch(None, np.array([[1, 0, 0]], dtype=np.int8)).tolist() == [1]
    with pytest.raises(AgentSpecError, match="returned str, not a card_envs.agents.Agent"):
        make_agent("py:myagent.py:not_an_agent", "no_thanks_v0")


def test_user_code_that_fails_is_named_with_its_error(agent_file):
    (agent_file.parent / "broken.py").write_text("def Broken(\n")
    with pytest.raises(AgentSpecError, match="'py:broken.py:Broken' cannot be built: Syntax"):
        make_agent("py:broken.py:Broken", "no_thanks_v0")
    with pytest.raises(AgentSpecError, match=r"has no 'Nope'; it has \['Agent', 'Greedy'"):
        make_agent("py:myagent.py:Nope", "no_thanks_v0")
    with pytest.raises(AgentSpecError, match="no file 'missing.py'"):
        make_agent("py:missing.py:A", "no_thanks_v0")


def test_an_edited_file_is_another_digest_and_is_loaded_again(agent_file):
    before = spec_digest("py:myagent.py:Greedy", "no_thanks_v0")
    assert before == spec_digest(f"py:{agent_file}:make_greedy", "no_thanks_v0")  # the file
    agent_file.write_text(AGENT_FILE.replace("low=False", "low=True"))
    assert spec_digest("py:myagent.py:Greedy", "no_thanks_v0") != before
    assert make_agent("py:myagent.py:Greedy", "no_thanks_v0", num_players=3).low


def test_an_installed_package_adds_a_kind_but_cannot_shadow_one(tmp_path, monkeypatch):
    (tmp_path / "plugagents.py").write_text(
        textwrap.dedent(
            """
            import numpy as np
            from card_envs.agents import Agent

            class Last(Agent):
                def __init__(self, *args, env_id, seed, config, **options):
                    self.args, self.options = args, options
                def act_batch(self, observations, masks):
                    return masks.shape[1] - 1 - np.argmax(masks[:, ::-1], axis=1)
            """
        )
    )
    info = tmp_path / "plugagents-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: plugagents\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[card_envs.agents]\nlast = plugagents:Last\nrandom = plugagents:Last\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    agent = make_agent("last:7:x=2", "no_thanks_v0")
    assert type(agent).__name__ == "Last" and agent.args == ("7",) and agent.options == {"x": 2}
    assert type(make_agent("random", "no_thanks_v0")).__name__ == "RandomAgent"
    assert spec_digest("last", "no_thanks_v0") != ""
    ev = evaluate("no_thanks_v0", ["last", "random", "random"], games=6, workers=1)
    assert ev.games == 6


# --- through the harnesses ------------------------------------------------------------------
def test_evaluate_builds_a_file_agent_in_two_workers(agent_file, capsys):
    spec = "py:myagent.py:Greedy:low=True"
    main(["evaluate", "no_thanks_v0", "--agents", f"{spec},heuristic,heuristic", "--games", "60",
          "--workers", "2", "--no-progress"])  # fmt: skip
    out = capsys.readouterr().out
    assert spec in out and "60 games" in out
    py = evaluate("no_thanks_v0", [spec, "heuristic", "heuristic"], games=60, workers=1)
    two = evaluate("no_thanks_v0", [spec, "heuristic", "heuristic"], games=60, workers=2)
    assert np.array_equal(py.results.scores, two.results.scores)


def test_an_agent_that_fails_in_a_worker_stops_the_run_with_one_line(agent_file, capsys):
    agents = "py:myagent.py:only_in_the_parent,random,random"
    args = ["evaluate", "no_thanks_v0", "--agents", agents, "--games", "300", "--workers", "2",
            "--no-progress"]  # fmt: skip
    with pytest.raises(SystemExit) as done:
        main(args)
    err = capsys.readouterr().err
    assert done.value.code == 2 and err.count("\n") == 1
    assert (
        "'py:myagent.py:only_in_the_parent' cannot be built: RuntimeError: built in a worker" in err
    )


def test_a_tournament_takes_user_agents_with_options_from_yaml_and_flags(agent_file, capsys):
    raw = {
        "name": "mine",
        "db": str(agent_file.parent / "t.sqlite"),
        "out": str(agent_file.parent / "out"),
        "workers": 2,
        "progress": False,
        "events": [
            {
                "env": "no_thanks_v0",
                "config": {"num_players": 3},
                "agents": [
                    "heuristic",
                    {"name": "low", "spec": "py:myagent.py:Greedy", "options": {"low": True}},
                    {"name": "high", "spec": "py:myagent.py:Greedy"},
                    "ismcts:20:depth=10",
                ],
                "tables": 4,
                "games": 3,
            }
        ],
    }
    config = parse_config(raw)
    entry = config.events[0].agents[1]
    assert entry.options == {"low": True} and entry.digest == spec_digest(entry.spec, "x")
    result = run_tournament(config, write_files=False)
    assert result.played == 12 and {s.name for s in result.leaderboards[0].standings} >= {
        "low",
        "high",
    }
    main(["tournament", "--env", "no_thanks_v0", "--agents",
          "heuristic,random,ismcts:20:depth=10,me=py:myagent.py:Greedy", "--games", "3",
          "--tables", "4", "--db", str(agent_file.parent / "f.sqlite"), "--out",
          str(agent_file.parent / "f"), "--workers", "2", "--no-progress"])  # fmt: skip
    out = capsys.readouterr().out
    assert "ismcts:20:depth=10" in out and " me " in out


class _Remembers(Agent):
    """Keeps each game's moves by the game id."""

    wants_games = True

    def __init__(self) -> None:
        self.seen: dict[int, int] = {}
        self.resets = 0

    def reset(self) -> None:
        self.resets += 1

    def act_batch(self, observations, masks, games=None):
        for g in games.tolist():
            self.seen[g] = self.seen.get(g, 0) + 1
        return np.argmax(masks, axis=1)


def test_an_agent_that_keeps_state_gets_each_rows_game(monkeypatch):
    import card_envs.evaluation.arena as arena

    spy = _Remembers()
    build = arena._build_agent
    monkeypatch.setattr(arena, "_build_agent", lambda s, *a: spy if s == "spy" else build(s, *a))
    seats = np.array([[0, 1, 2], [1, 2, 0], [2, 0, 1], [0, 2, 1]])
    chunk = arena.Chunk("no_thanks_v0", {"num_players": 3}, ("spy", "random", "random"), seats,
                        100, (1, 2, 3))  # fmt: skip
    played = arena.play_chunk(chunk)
    assert played.seeds.tolist() == [100, 101, 102, 103] and spy.resets == 1
    assert sorted(spy.seen) == played.seeds.tolist()  # every game, by the seed it was dealt
    mine = seats == 0
    assert [spy.seen[100 + i] for i in range(4)] == played.moves[mine].tolist()


def test_an_agent_that_wants_games_is_refused_where_none_are_given():
    with pytest.raises(ValueError, match="wants game ids"):
        _Remembers().act_positions(np.zeros((1, 3)), np.ones((1, 3), dtype=np.int8), None)


def test_agent_spec_objects_pickle_for_workers():
    import pickle

    spec = parse_spec("py:a.py:A:k=[1, 2]")
    assert pickle.loads(pickle.dumps(spec)) == spec and isinstance(spec, AgentSpec)


def test_the_browser_seats_agents_named_on_the_command_line_by_name_only(agent_file):
    from tests.helpers_web import start_app

    app, server, client = start_app(agents={"mine": "py:myagent.py:Greedy"})
    try:
        status, data = client.json("GET", "/api/games")
        games = {g["env_id"]: g["agents"] for g in data["games"]}
        assert "mine" in games["no_thanks_v0"] and "mine" in games["surfosaurus_max_v0"]
        body = {"env_id": "no_thanks_v0", "config": {"num_players": 3},
                "agents": ["mine", "heuristic", "random"]}  # fmt: skip
        status, data = client.json("POST", "/api/matches", body)
        assert status == 200 and app.sessions.get(data["id"]).specs[0] == "mine"
        status, data = client.json("POST", f"/api/matches/{data['id']}/step", {"viewer": "0"})
        assert status == 200
        body["agents"] = ["py:myagent.py:Greedy", "heuristic", "random"]  # code: never
        status, data = client.json("POST", "/api/matches", body)
        assert status == 400 and "is not one of" in data["error"] and "mine" in data["error"]
    finally:
        server.shutdown()
        server.server_close()


def test_a_browser_agent_may_not_take_a_built_in_name():
    from card_envs.web.server import App
    from card_envs.web.sources import Sources

    with pytest.raises(ValueError, match=r"\['heuristic'\] are names of the built-in agents"):
        App(Sources(), agents={"heuristic": "random"})


@pytest.mark.parametrize("suffix", [".json", ".csv"])
def test_evaluate_out_keeps_the_table_the_setting_seeds_and_digests(agent_file, suffix, capsys):
    import csv
    import json

    out = agent_file.parent / f"result{suffix}"
    main(["evaluate", "no_thanks_v0", "--agents", "me=py:myagent.py:Greedy,heuristic,random",
          "--games", "30", "--seed", "4", "--workers", "1", "--no-progress", "--out",
          str(out)])  # fmt: skip
    assert f"wrote {out}" in capsys.readouterr().out
    ev = evaluate("no_thanks_v0", ["py:myagent.py:Greedy", "heuristic", "random"], games=30,
                  seed=4, workers=1)  # fmt: skip
    digest = spec_digest("py:myagent.py:Greedy", "no_thanks_v0")
    if suffix == ".json":
        data = json.loads(out.read_text())
        assert data["config"] == {"num_players": 3} and data["seed"] == 4
        assert data["game_seeds"] == ev.results.seeds.tolist()
        me = data["agents"][0]
        assert (me["name"], me["spec"], me["digest"]) == ("me", "py:myagent.py:Greedy", digest)
        assert [a["win_rate"] for a in data["agents"]] == [a.win_rate for a in ev]
        assert data["agents"][1]["win_rate_ci"] == list(ev[1].win_rate_ci)
    else:
        rows = list(csv.DictReader(out.open()))
        assert [r["agent"] for r in rows] == ["me", "heuristic", "random"]
        assert rows[0]["digest"] == digest and rows[1]["digest"] == ""
        assert [float(r["win_rate_low"]) for r in rows] == [a.win_rate_ci[0] for a in ev]
        assert {r["games_played"] for r in rows} == {"30"} and rows[0]["seed"] == "4"


def test_evaluate_out_refuses_another_suffix(agent_file):
    ev = evaluate("no_thanks_v0", ["random"] * 3, games=3, workers=1)
    with pytest.raises(ValueError, match="must end in .json or .csv"):
        ev.write(agent_file.parent / "result.txt")


def test_exploit_trains_against_a_file_agent_and_keeps_its_digest(agent_file):
    pytest.importorskip("sb3_contrib")
    from card_envs.training.exploit import exploit, make_request

    spec = "py:myagent.py:Greedy"
    request = make_request("no_thanks_v0", {"num_players": 3}, spec, minutes=60, steps=1024,
                           games=12, out=str(agent_file.parent / "run"))  # fmt: skip
    trainer = {"num_envs": 16, "ppo": {"n_steps": 64, "batch_size": 256, "net_arch": [16]}}
    request = type(request)(**{**request.__dict__, "trainer": trainer})
    e = exploit(request, workers=2, echo=lambda _: None)["exploit"]
    assert e["target"] == spec and e["games"] == 12
    assert e["target_networks"] == spec_digest(spec, "no_thanks_v0") != ""


def test_a_dataset_of_a_file_agents_games_in_two_workers(agent_file, capsys):
    pytest.importorskip("minari")
    from card_envs import dataset

    main(["dataset", "--env", "no_thanks_v0", "--agents", "py:myagent.py:Greedy,heuristic,random",
          "--games", "6", "--workers", "2", "--out", str(agent_file.parent / "data"),
          "--name", "mine"])  # fmt: skip
    assert "wrote card_envs/no_thanks_v0/mine-v0" in capsys.readouterr().out
    ds = dataset.load(agent_file.parent / "data", "card_envs/no_thanks_v0/mine-v0")
    assert ds.total_episodes == 18  # every seat of every game


def test_a_tournament_refuses_an_entrant_whose_file_changed(agent_file):
    from card_envs.tournament import TournamentMismatch

    agents = ["heuristic", "random", "py:myagent.py:Greedy"]
    event = {"env": "no_thanks_v0", "agents": agents, "games": 3}
    db = str(agent_file.parent / "e.sqlite")
    raw = {"name": "edit", "db": db, "workers": 1, "progress": False, "events": [event]}
    assert run_tournament(parse_config(raw), write_files=False).played == 3
    assert run_tournament(parse_config(raw), write_files=False).played == 0  # resumes
    agent_file.write_text(AGENT_FILE + "\n# tuned\n")
    with pytest.raises(TournamentMismatch, match="rerun with --restart"):
        run_tournament(parse_config(raw), write_files=False)


def test_play_seats_a_file_agent(agent_file, capsys):
    main(["play", "no_thanks_v0", "--agents", "py:myagent.py:Greedy,heuristic,heuristic",
          "--games", "9", "--no-progress"])  # fmt: skip
    out = capsys.readouterr().out
    assert "py:myagent.py:Greedy" in out and "steps/s" in out


def test_a_browser_agent_that_builds_for_no_game_stops_the_server_with_why(agent_file):
    from card_envs.web.server import App
    from card_envs.web.sources import Sources

    with pytest.raises(ValueError, match="serve --agents mine=py:nope.py:X: .*no file 'nope.py'"):
        App(Sources(), agents={"mine": "py:nope.py:X"})

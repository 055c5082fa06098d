"""The browser app's server, through HTTP: playing, watching, starting from positions,
replaying, hiding, errors."""

from __future__ import annotations

import copy
import http.client
import json
import socket
import threading

import numpy as np
import pytest

from card_envs import positions
from card_envs.agents.ppo import has_shipped_model
from card_envs.core.scene import strip_actions
from card_envs.games.no_thanks import NoThanks
from card_envs.registry import multi_agent_env_ids, single_agent_env_ids
from card_envs.tournament import read_jsonl
from card_envs.web.match import Match
from card_envs.web.server import DRAINED, MAX_BODY, make_server
from card_envs.web.sessions import Sessions
from tests.helpers_web import SHORT, recorded_tournament, start_app


@pytest.fixture
def app():
    app, server, client = start_app()
    yield app, client
    server.shutdown()
    server.server_close()


def _moves(view: dict) -> list[int]:
    """The actions the page lets the person make: clickable items and buttons."""
    clicks = [it["action"] for it in view["scene"]["items"] if "action" in it]
    return clicks + [b["action"] for b in view["buttons"]]


def _resampled_view(match: Match, viewer: int, seed: int) -> dict:
    """The view `viewer` would get if everything it cannot see were dealt again."""
    other = copy.copy(match)
    other.row = match.game.resample_hidden(match.row, viewer, seed)
    return other.view(viewer)


def test_the_games_list_names_every_game_its_options_and_agents(app):
    _, client = app
    status, data = client.json("GET", "/api/games")
    assert status == 200
    games = {g["env_id"]: g for g in data["games"]}
    assert sorted(games) == sorted(multi_agent_env_ids() + single_agent_env_ids())
    assert [g["env_id"] for g in data["games"] if g["single"]] == single_agent_env_ids()
    nt = games["no_thanks_v0"]
    assert {o["name"] for o in nt["options"]} >= {"num_players", "public_tokens", "reward"}
    assert "ppo" in nt["agents"] and "heuristic" in nt["agents"]
    assert all("ismcts" in games[env_id]["agents"] for env_id in multi_agent_env_ids())
    assert "computer" in games["double_or_nothing_v0"]["agents"]
    assert "computer" not in nt["agents"]
    assert set(data["look"]) >= {"felt", "back", "mark"}
    for env_id in multi_agent_env_ids():  # exit where its network is shipped
        assert ("exit" in games[env_id]["agents"]) == has_shipped_model(env_id, "exit")


def test_the_games_list_offers_exit_where_its_network_is_shipped(tmp_path, monkeypatch):
    from card_envs.agents import ppo
    from card_envs.web.server import games

    shipped = ppo.shipped_model("no_thanks_v0")
    for name in ("no_thanks_v0.zip", "no_thanks_v0.exit.zip"):
        (tmp_path / name).write_bytes(shipped.read_bytes())
    note = shipped.parent.joinpath("no_thanks_v0.json").read_text()
    (tmp_path / "no_thanks_v0.json").write_text(note)  # the config ppo was trained with
    monkeypatch.setattr(ppo, "_models_dir", lambda: tmp_path)
    agents = {g["env_id"]: g["agents"] for g in games()}
    assert agents["no_thanks_v0"][-2:] == ["ppo", "exit"]
    assert "exit" not in agents["surfosaurus_max_v0"] and "ppo" not in agents["surfosaurus_max_v0"]


def test_the_positions_list_names_every_built_in_position(app):
    _, client = app
    status, listed = client.json("GET", "/api/positions")
    assert status == 200
    assert [p["name"] for p in listed] == positions.names()
    by_name = {p["name"]: p for p in listed}
    last = by_name["no_thanks/last-card"]
    assert last["env_id"] == "no_thanks_v0" and last["config"]["num_players"] == 3
    assert "must take it" in last["description"] and not last["finished"]
    assert by_name["no_thanks/rule-text-scoring"]["finished"]
    assert all(set(p) == {"name", "description", "env_id", "config", "finished"} for p in listed)


def test_a_person_plays_on_from_a_position(app):
    _, client = app
    body = {"env_id": "no_thanks_v0", "agents": ["random", "human", "random"]}
    status, data = client.json("POST", "/api/matches", {**body, "position": "no_thanks/last-card"})
    assert status == 200, data
    view = data["view"]
    assert view["to_act"] == 1 and view["step"] == 0 and not view["over"]
    assert view["log"] == [
        {"who": "start", "text": "the game started from position no_thanks/last-card"}
    ]
    labels = [it.get("label") for it in view["scene"]["items"]]
    assert "35" in labels  # the card on offer
    assert _moves(view) == [0] and view["buttons"] == []  # take (the card): no tokens to pay
    status, view = client.json("POST", f"/api/matches/{data['id']}/play", {"action": 0})
    assert status == 200 and view["over"]  # the last card taken ends the game
    assert [m["text"] for m in view["log"]][1:] == ["take 35 (4 tokens)"]


def test_agents_are_watched_from_a_position(app):
    _, client = app
    body = {
        "env_id": "no_thanks_v0",
        "agents": ["random"] * 4,
        "position": "no_thanks/take-and-go-again",
    }
    status, data = client.json("POST", "/api/matches", body)
    assert status == 200 and data["view"]["to_act"] == 0 and data["view"]["step"] == 0
    status, view = client.json("POST", f"/api/matches/{data['id']}/step", {"viewer": "all"})
    assert status == 200 and view["step"] == 1
    assert view["log"][0]["who"] == "start" and view["log"][1]["who"] == "player_0"


def test_a_finished_position_opens_over_to_be_looked_at(app):
    _, client = app
    for agents in (["human", "random", "random"], ["random"] * 3):
        body = {
            "env_id": "no_thanks_v0",
            "agents": agents,
            "position": "no_thanks/rule-text-scoring",
        }
        status, data = client.json("POST", "/api/matches", body)
        assert status == 200 and data["view"]["over"] and data["view"]["step"] == 0
        assert _moves(data["view"]) == []
        assert data["view"]["result"]["scores"][0] == 46 - 11  # the rule text's cards, 11 tokens
    status, err = client.json("POST", f"/api/matches/{data['id']}/step", {})
    assert status == 409 and "over" in err["error"]


def _play_to_end(app, body: dict, check=None) -> dict:
    """Start a match from `body` and play the person's moves at random until it ends; at
    every move the page offers exactly the legal moves, and `check(match, view, turns)`
    holds. Returns the last view."""
    the_app, client = app
    status, data = client.json("POST", "/api/matches", body)
    assert status == 200, data
    key, view = data["id"], data["view"]
    rng = np.random.default_rng(0)
    turns = 0
    while not view["over"]:
        match = the_app.sessions.get(key)
        assert sorted(set(_moves(view))) == match.legal().tolist()  # twins share an action
        if check:
            check(match, view, turns)
        action = int(rng.choice(_moves(view)))
        status, view = client.json("POST", f"/api/matches/{key}/play", {"action": action})
        assert status == 200, view
        turns += 1
    assert turns > 0 and _moves(view) == []
    return view


@pytest.mark.parametrize("env_id", multi_agent_env_ids())
def test_a_person_plays_a_whole_game_seeing_only_their_seat(app, env_id):
    """Seat 1 is the person's; every answer is the same as if the cards the person cannot
    see were dealt again, the page offers exactly the legal moves, and the game ends with a
    result."""
    config = SHORT[env_id]
    n = config.get("num_players", 2)
    agents = ["random"] * n
    agents[1] = "human"
    seeds = np.random.default_rng(1)

    def sees_only_seat_1(match, view, turns):
        assert view["to_act"] == 1 and view["viewer"] == 1
        assert view == _resampled_view(match, 1, int(seeds.integers(1 << 60))), f"leak at {turns}"

    body = {"env_id": env_id, "config": config, "agents": agents, "seed": 3}
    view = _play_to_end(app, body, sees_only_seat_1)
    assert view["result"]["text"] and len(view["result"]["wins"]) == n
    assert abs(sum(view["result"]["wins"]) - 1) < 1e-9


@pytest.mark.parametrize("env_id", single_agent_env_ids())
def test_a_person_plays_a_single_agent_game_to_its_end(app, env_id):
    """Double or Nothing's run against the computer and Rummidrez solo: the person's moves
    and the computer's are in the log, the legal moves are offered, the end has a result."""
    view = _play_to_end(app, {"env_id": env_id, "config": SHORT[env_id], "agents": ["human"]})
    assert view["result"]["text"].startswith("return")
    whos = {m["who"] for m in view["log"]}
    assert whos == ({"you", "computer"} if env_id.startswith("double") else {"you"})
    status, err = app[1].json("POST", "/api/matches", {"env_id": env_id, "agents": ["random"]})
    assert status == 400 and "played alone" in err["error"]


@pytest.mark.parametrize("env_id", multi_agent_env_ids())
def test_watching_steps_the_agents_from_any_seat_or_with_all_cards(app, env_id):
    the_app, client = app
    config = SHORT[env_id]
    n = config.get("num_players", 2)
    status, data = client.json(
        "POST", "/api/matches", {"env_id": env_id, "config": config, "agents": ["random"] * n}
    )
    key = data["id"]
    assert status == 200 and data["view"]["viewer"] is None and data["view"]["step"] == 0
    for step in range(1, 6):
        viewer = step % n
        status, view = client.json("POST", f"/api/matches/{key}/step", {"viewer": str(viewer)})
        assert status == 200 and view["step"] == step and view["viewer"] == viewer
        assert _moves(view) == []  # nobody clicks in a watched game
        match = the_app.sessions.get(key)
        assert view == _resampled_view(match, viewer, step)
        status, everything = client.json("GET", f"/api/matches/{key}?viewer=all")
        assert status == 200 and everything["scene"] == strip_actions(match.game.scene(match.row))
        assert [m["text"] for m in everything["log"]] == [m["words"]["all"] for m in match.moves]
        assert everything["log"][-1]["who"] == f"player_{match.moves[-1]['seat']}"


def test_ismcts_plays_at_the_games_fixed_budget_and_no_other(app):
    _, client = app
    body = {"env_id": "no_thanks_v0", "agents": ["ismcts", "random", "random"], "seed": 1}
    status, data = client.json("POST", "/api/matches", body)
    assert status == 200 and data["view"]["seats"][0] == NoThanks.ismcts_10ms
    for step in range(1, 4):
        status, view = client.json("POST", f"/api/matches/{data['id']}/step", {"viewer": "0"})
        assert status == 200 and view["step"] == step
    for spec in ("ismcts:100000", "ismcts:random"):
        body["agents"] = [spec, "random", "random"]
        status, err = client.json("POST", "/api/matches", body)
        assert status == 400 and spec in err["error"]


def _policy_lines(log: list[dict]) -> list[bool]:
    return ["policy" in line for line in log]


def test_watched_agents_show_their_policy_to_all_cards_and_their_own_seat(app):
    """ppo and ismcts moves carry their top actions with probabilities and the value; a
    random agent has none; a seat sees only its own agent's (they hang on its cards)."""
    the_app, client = app
    body = {"env_id": "no_thanks_v0", "agents": ["ppo", "ismcts", "random"], "seed": 4}
    _, data = client.json("POST", "/api/matches", body)
    key = data["id"]
    for _ in range(9):
        status, _ = client.json("POST", f"/api/matches/{key}/step", {"viewer": "all"})
        assert status == 200
    match = the_app.sessions.get(key)
    _, everything = client.json("GET", f"/api/matches/{key}?viewer=all")
    assert _policy_lines(everything["log"]) == [m["seat"] != 2 for m in match.moves]
    for line in everything["log"]:
        if "policy" in line:
            top = line["policy"]["top"]
            assert line["text"] in [t["text"] for t in top]  # the move made is among them
            assert sum(t["p"] for t in top) == pytest.approx(1, abs=1e-3)  # both actions
            value = line["policy"]["value"]
            assert value is None or 0 <= value <= 1.5
    for seat in range(3):
        _, own = client.json("GET", f"/api/matches/{key}?viewer={seat}")
        assert _policy_lines(own["log"]) == [m["seat"] == seat != 2 for m in match.moves]
    body["agents"] = ["ppo", "human", "ismcts"]  # the person sees no agent's policy
    _, data = client.json("POST", "/api/matches", body)
    _, data = client.json("POST", f"/api/matches/{data['id']}/play", {"action": 1})
    assert len(data["log"]) >= 2 and not any(_policy_lines(data["log"]))


def test_a_replay_shows_the_policies_its_record_kept(tmp_path):
    db, path = recorded_tournament(tmp_path)  # the No Thanks event keeps ppo's policies
    rec = next(read_jsonl(path))
    _, server, client = start_app(records=[path], stores=[db])
    try:
        for source, tournament in ((0, ""), (1, "&tournament=t")):
            query = (f"/api/replay?source={source}{tournament}&event=nt&table={rec['table']}"
                     f"&game={rec['game']}&step={rec['length']}&viewer=all")  # fmt: skip
            status, view = client.json("GET", query)
            assert status == 200
            lines = view["log"][-len(rec["policy"]) :]
            entries = rec["policy"][-len(lines) :]
            assert _policy_lines(lines) == [e is not None for e in entries]
            assert any(_policy_lines(lines))
            for line, entry in zip(lines, entries, strict=True):
                if entry is not None:
                    want = [{"text": name, "p": p} for _, name, p in entry["top"]]
                    assert line["policy"] == {"top": want, "value": entry["value"]}
    finally:
        server.shutdown()
        server.server_close()


def test_a_person_cannot_look_at_other_seats_or_move_for_them(app):
    _, client = app
    body = {"env_id": "no_thanks_v0", "agents": ["random", "human", "random"]}
    _, data = client.json("POST", "/api/matches", body)
    key = data["id"]
    status, err = client.json("GET", f"/api/matches/{key}?viewer=all")
    assert status == 403 and "player_1" in err["error"]
    status, err = client.json("POST", f"/api/matches/{key}/step", {})
    assert status == 409
    legal = _moves(data["view"])
    illegal = next(a for a in range(2) if a not in legal) if len(legal) < 2 else None
    if illegal is not None:
        status, err = client.json("POST", f"/api/matches/{key}/play", {"action": illegal})
        assert status == 400 and "not legal" in err["error"]


def test_replays_record_files_and_stored_games_named_on_the_command_line(tmp_path):
    db, path = recorded_tournament(tmp_path)
    the_app, server, client = start_app(records=[path], stores=[db])
    try:
        status, sources = client.json("GET", "/api/records")
        assert status == 200 and [s["kind"] for s in sources] == ["records", "store"]
        records = list(read_jsonl(path))
        assert len(sources[0]["games"]) == len(records)
        assert {g["event"] for g in sources[1]["games"]} == {"nt", "don"}
        rec = records[1]
        base = f"/api/replay?source=0&event=nt&table={rec['table']}&game={rec['game']}"
        for step in (0, 5, rec["length"]):
            status, view = client.json("GET", f"{base}&step={step}&viewer=all")
            assert status == 200 and view["step"] == step and view["length"] == rec["length"]
            assert [m["text"] for m in view["log"]] == rec["action_names"][:step][-40:]
        assert view["over"] and view["result"]["wins"] == rec["wins"]
        g = next(g for g in sources[1]["games"] if g["event"] == "don")
        status, view = client.json(
            "GET",
            f"/api/replay?source=1&tournament=t&event=don&table={g['table']}&game={g['game']}"
            f"&step={g['length']}&viewer=0",
        )
        assert status == 200 and view["over"] and view["viewer"] == 0
        status, err = client.json("GET", f"{base}&step={rec['length'] + 1}")
        assert status == 400 and "outside" in err["error"]
        status, err = client.json("GET", "/api/replay?source=0&event=nt&table=99&game=0&step=0")
        assert status == 404
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(
    "method,path,body,status,words",
    [
        ("GET", "/api/nothing", None, 404, "no such API"),
        ("GET", "/etc/passwd", None, 404, "no page"),
        ("GET", "/static/../../pyproject.toml", None, 404, "no page"),
        ("POST", "/api/matches", b"{not json", 400, "not JSON"),
        ("POST", "/api/matches", b"[1, 2]", 400, "JSON object"),
        ("POST", "/api/matches", b"[" * 50_000, 400, "nested too deep"),
        ("POST", "/api/matches", {"env_id": "chess_v9", "agents": ["human"]}, 400, "chess_v9"),
        ("POST", "/api/matches", {"env_id": "no_thanks_v0"}, 400, "agents must be a list"),
        (
            "POST",
            "/api/matches",
            {"env_id": "no_thanks_v0", "agents": ["human", "random", "ppo:/etc/passwd"]},
            400,
            "ppo:/etc/passwd",
        ),
        (
            "POST",
            "/api/matches",
            {"env_id": "no_thanks_v0", "agents": ["human", "human", "random"]},
            400,
            "one person",
        ),
        (
            "POST",
            "/api/matches",
            {"env_id": "no_thanks_v0", "config": {"num_players": 9}, "agents": ["random"] * 3},
            400,
            "num_players=9",
        ),
        (
            "POST",
            "/api/matches",
            {"env_id": "no_thanks_v0", "config": {"colour": 1}, "agents": ["random"] * 3},
            400,
            "colour",
        ),
        ("POST", "/api/matches", {"env_id": "no_thanks_v0", "agents": ["random"] * 3, "seed": -1},
         400, "seed"),
        ("POST", "/api/matches", {"env_id": "no_thanks_v0", "agents": ["random"] * 3,
          "position": "no_thanks/nonesuch"}, 400, "no_thanks/last-card"),
        ("POST", "/api/matches", {"env_id": "no_thanks_v0", "agents": ["random"] * 3,
          "position": "../../../etc/passwd"}, 400, "unknown position"),
        ("POST", "/api/matches", {"env_id": "no_thanks_v0", "agents": ["random"] * 3,
          "position": "no_thanks"}, 400, "unknown position"),
        ("POST", "/api/matches", {"env_id": "no_thanks_v0", "agents": ["random"] * 3,
          "position": ["no_thanks/last-card"]}, 400, "unknown position"),
        ("POST", "/api/matches", {"env_id": "surfosaurus_max_v0", "agents": ["random"] * 3,
          "position": "no_thanks/last-card"}, 400, "is a game of no_thanks_v0"),
        ("POST", "/api/matches", {"env_id": "no_thanks_v0", "agents": ["random"] * 4,
          "position": "no_thanks/last-card"}, 400, "has 3 players, not 4"),
        ("POST", "/api/matches", {"env_id": "no_thanks_v0", "agents": ["random"] * 3,
          "config": {"public_tokens": True}, "position": "no_thanks/last-card"}, 400,
         "played with config"),
        ("GET", "/api/matches/nosuchgame", None, 404, "no game"),
        ("POST", "/api/matches/nosuchgame/play", {"action": 0}, 404, "no game"),
        ("DELETE", "/api/matches", None, 405, "DELETE is not allowed"),
        ("PUT", "/api/matches/nosuchgame", None, 405, "PUT is not allowed"),
        ("GET", "/api/matches/nosuchgame/play", None, 405, "GET /api/matches/nosuchgame/play"),
        ("GET", "/api/replay?source=0", None, 400, "event"),
        ("GET", "/api/replay?source=x&event=a&table=0&game=0&step=0", None, 400, "source"),
        ("GET", "/api/replay?source=0&event=a&table=0&game=0&step=0", None, 404, "no source"),
    ],
)  # fmt: skip
def test_bad_requests_get_a_4xx_and_a_message(app, method, path, body, status, words):
    _, client = app
    raw = body if isinstance(body, bytes) else None
    got, headers, data = client.request(method, path, None if raw else body, raw=raw)
    assert got == status and headers["Content-Type"] == "application/json"
    if words is not None:
        assert words in json.loads(data)["error"]


@pytest.mark.parametrize(
    "request_line,words",
    [
        (b"HELLO", "Bad request syntax ('HELLO')"),
        (b"GET / HTTP/9.9", "Invalid HTTP version"),
        (b"GET / FTP/1.0", "Bad request version"),
        (b"BREW /api/matches HTTP/1.0", "BREW is not allowed"),
    ],
)
def test_a_request_http_server_cannot_parse_is_a_4xx_in_json(app, request_line, words):
    """The errors http.server answers itself (before the API sees the request) get a
    status line, a 4xx and the JSON error every other answer has."""
    status, headers, body = app[1].exchange(request_line + b"\r\n\r\n")
    assert 400 <= status < 500 and headers["Content-Type"] == "application/json"
    assert words in json.loads(body)["error"]
    if status == 405:
        assert headers["Allow"] == "GET, POST"


def test_a_too_large_body_is_refused(app):
    """With a 413, also when the client sends all of it before reading the answer (urllib):
    the server reads it (up to DRAINED bytes) so that the connection is not reset."""
    _, client = app
    for size in (MAX_BODY + 1, DRAINED):
        got, _, data = client.request("POST", "/api/matches", raw=b" " * size)
        assert got == 413 and f"over {MAX_BODY} bytes" in json.loads(data)["error"]


@pytest.mark.parametrize(
    "head,body,status,words",
    [
        (b"Content-Length: 99", b'{"env_id"', 400, "the body ended after 9 of its 99 bytes"),
        (b"Content-Length: lots", b"{}", 400, "Content-Length must be a number"),
        (b"Content-Length: \xb2", b"{}", 400, "Content-Length must be a number"),  # "²"
        (b"Content-Length: -1", b"{}", 400, "Content-Length must be a number"),
    ],
)
def test_a_body_that_is_not_what_its_length_says_is_a_400(app, head, body, status, words):
    request = b"POST /api/matches HTTP/1.0\r\n" + head + b"\r\n\r\n" + body
    got, _, data = app[1].exchange(request)
    assert got == status and words in json.loads(data)["error"]


def test_a_client_that_stops_sending_is_answered_and_let_go():
    """A body that stops coming gets a 408 after the server's timeout, and a connection
    that sends nothing is closed: neither holds a server thread for ever."""
    from card_envs.web.server import App
    from card_envs.web.sources import Sources

    server = make_server(App(Sources()), port=0, timeout=0.2)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with socket.create_connection(server.server_address, timeout=60) as sock:
            sock.sendall(b'POST /api/matches HTTP/1.0\r\nContent-Length: 99\r\n\r\n{"env')
            response = http.client.HTTPResponse(sock)
            response.begin()  # blocks until the server gives up on the rest
            assert response.status == 408
            assert "did not come within 0.2 s" in json.loads(response.read())["error"]
        with socket.create_connection(server.server_address, timeout=60) as sock:
            assert sock.recv(1024) == b""  # closed by the server
    finally:
        server.shutdown()
        server.server_close()


def test_an_unexpected_failure_is_a_500_without_a_traceback(app, monkeypatch, capsys):
    the_app, client = app

    def broken(query):
        raise RuntimeError("the secret inside")

    monkeypatch.setattr(the_app, "replay", broken)
    got, _, data = client.request("GET", "/api/replay")
    assert got == 500
    assert b"secret" not in data and b"Traceback" not in data
    assert "the secret inside" in capsys.readouterr().err  # the server's log has it


def test_the_page_and_its_two_files_are_all_it_serves(app):
    _, client = app
    for path, kind in (("/", "text/html"), ("/app.js", "javascript"), ("/style.css", "css")):
        got, headers, data = client.request("GET", path)
        assert got == 200 and kind in headers["Content-Type"] and data
    assert client.request("GET", "/index.html")[0] == 404
    assert client.request("GET", "/static/app.js")[0] == 404


def test_closing_a_game_frees_it(app):
    the_app, client = app
    _, data = client.json(
        "POST", "/api/matches", {"env_id": "no_thanks_v0", "agents": ["random"] * 3}
    )
    assert len(the_app.sessions) == 1
    assert client.json("POST", f"/api/matches/{data['id']}/close")[0] == 200
    assert len(the_app.sessions) == 0
    assert client.json("GET", f"/api/matches/{data['id']}")[0] == 404


def test_games_left_idle_finished_or_beyond_the_limit_are_dropped():
    now = [0.0]
    sessions = Sessions(idle=100, ended_idle=10, limit=3, clock=lambda: now[0])
    keys = [sessions.add(Match.new("no_thanks_v0", {}, ["random"] * 3)) for _ in range(3)]
    now[0] = 60
    sessions.get(keys[0])  # asked about: stays
    now[0] = 120
    assert len(sessions) == 1  # the two left since 0 are gone
    finished = sessions.get(keys[0])
    while not finished.over:
        finished.step_agent()
    now[0] = 125
    assert len(sessions) == 1  # a finished game stays a little, to be looked at
    now[0] = 130
    assert len(sessions) == 0
    more = [sessions.add(Match.new("no_thanks_v0", {}, ["random"] * 3)) for _ in range(4)]
    assert len(sessions) == 3  # the limit: the least recently asked about went first
    with pytest.raises(ValueError, match="no game"):
        sessions.get(more[0])
    assert all(sessions.get(k) for k in more[1:])


def test_the_server_listens_on_localhost_by_default():
    from card_envs.web.server import App
    from card_envs.web.sources import Sources

    server = make_server(App(Sources()), port=0)
    try:
        assert server.server_address[0] == "127.0.0.1"
    finally:
        server.server_close()


def test_the_server_queues_a_burst_of_connections_before_it_accepts_them():
    """64 clients connecting at once (the load test's sessions) all get through the
    handshake while the server is busy: none has its SYN dropped to retry a second later."""
    from card_envs.web.server import App
    from card_envs.web.sources import Sources

    server = make_server(App(Sources()), port=0)  # listening, not accepting
    try:
        socks = [socket.create_connection(server.server_address, timeout=30) for _ in range(64)]
        for sock in socks:
            sock.close()
    finally:
        server.server_close()


def test_serve_refuses_a_missing_records_file(tmp_path):
    from card_envs.cli import main

    with pytest.raises(SystemExit) as err:
        main(["serve", "--port", "0", "--records", str(tmp_path / "none.jsonl")])
    assert err.value.code == 2


def test_the_app_keeps_the_sessions_it_is_given_even_when_empty():
    from card_envs.web.server import App
    from card_envs.web.sources import Sources

    given = Sessions()  # empty, so falsy: `sessions or Sessions()` had replaced it
    assert App(Sources(), given).sessions is given

"""Shared pieces of the web app's tests: a small recorded tournament, a running server."""

from __future__ import annotations

import http.client
import json
import socket
import urllib.error
import urllib.request
from urllib.parse import urlsplit

from card_envs.tournament import parse_config, run_tournament
from card_envs.web.server import App, serve_in_thread
from card_envs.web.sessions import Sessions
from card_envs.web.sources import Sources

# a game config per env that a person clicking random moves finishes in a few hundred moves
SHORT = {
    "no_thanks_v0": {"num_players": 3},
    "surfosaurus_max_v0": {"num_players": 2},
    "double_or_nothing_v0": {"max_turns": 60},
    "rummidrez_v0": {"num_players": 2, "max_turns": 12},
    "super_zwierzaki_v0": {"num_players": 3, "max_turns": 40},
    "double_or_nothing_run_v0": {"max_stage": 2, "max_turns": 60},
    "rummidrez_solo_v0": {"max_placements": 7},
}


def recorded_tournament(tmp_path) -> tuple[str, str]:
    """A few No Thanks and Double or Nothing games stored in SQLite and written as JSONL,
    with the policies of the No Thanks ppo agent: (db path, records path of No Thanks)."""
    raw = {
        "name": "t",
        "db": str(tmp_path / "games.sqlite"),
        "out": str(tmp_path / "out"),
        "progress": False,
        "workers": 1,
        "records": True,
        "record_policy": True,
        "events": [
            {"name": "nt", "env": "no_thanks_v0", "config": {"num_players": 3},
             "agents": ["ppo", "random", {"name": "random_b", "spec": "random"}], "games": 2},
            {"name": "don", "env": "double_or_nothing_v0", "agents": ["heuristic", "random"],
             "games": 2},
        ],
    }  # fmt: skip
    run_tournament(parse_config(raw))
    return raw["db"], str(tmp_path / "out" / "nt.jsonl")


class Client:
    """JSON requests to a running app: `(status, body)`; errors are answers, not raises."""

    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")

    def request(self, method: str, path: str, body=None, raw: bytes | None = None):
        data = raw if raw is not None else None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req) as resp:
                return resp.status, resp.headers, resp.read()
        except urllib.error.HTTPError as err:
            return err.code, err.headers, err.read()

    def exchange(self, data: bytes) -> tuple[int, http.client.HTTPMessage, bytes]:
        """`data` sent on a socket as it is (what urllib would not send) and nothing more,
        then the answer read to its end and parsed: (status, headers, body)."""
        host, port = urlsplit(self.url).hostname, urlsplit(self.url).port
        with socket.create_connection((host, port), timeout=60) as sock:
            sock.sendall(data)
            sock.shutdown(socket.SHUT_WR)
            response = http.client.HTTPResponse(sock)
            response.begin()
            return response.status, response.headers, response.read()

    def json(self, method: str, path: str, body=None):
        status, _, data = self.request(method, path, body)
        return status, json.loads(data)


def start_app(records=(), stores=(), sessions: Sessions | None = None, agents=None):
    """An app on a free port of 127.0.0.1 in a thread: (app, server, client); `agents` as
    `serve --agents` names them (name -> spec)."""
    app = App(Sources(list(records), list(stores)), sessions, agents)
    server, url = serve_in_thread(app)
    return app, server, Client(url)


def click_move(page, target) -> None:
    """Click a move on the page (a button, or a card by its top left corner, which stays
    visible where the next card overlaps it) and wait for the answer to be drawn."""
    step = page.evaluate("document.body.dataset.step")
    if target.evaluate("e => e.tagName") == "BUTTON":
        target.click()
    else:
        target.click(position={"x": 4, "y": 6})
    page.wait_for_function(
        f"document.body.dataset.state === 'ready' && document.body.dataset.step !== '{step}'"
    )

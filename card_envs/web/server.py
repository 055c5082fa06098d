"""`card-envs serve`: the browser app to play, watch and replay games.

Standard library only (`http.server`): a JSON API over `Match` plus three static files.
It listens on 127.0.0.1 unless told otherwise. The browser gets only what its seat may
know (`Match.view`), and only names games, seats and indices: agent specs come from a fixed
list (no `ppo:path`; `ismcts` is the game's search at about 10 ms a move, no other
budget), positions from the package's own (read at start, asked for by name), replays from
the files named on the command line (`Sources`). A bad request is a 4xx with
`{"error": message}`; an unexpected failure is a 500 without a traceback (that goes to the
server's log).

API (JSON in and out):
- `GET /api/games`: `{games, look}`: the games, their options and the agents that can sit
  at them; the colours of `core.scene`.
- `GET /api/positions`: the built-in named positions (`card_envs.positions`): name,
  description, env_id, config and whether the game there is finished.
- `POST /api/matches` `{env_id, config, agents, seed, position}`: a new game, `agents` one
  spec per seat, "human" for the person's seat (none: a game to watch); `position`
  (optional) a built-in position's name to play on from instead of a deal, with its config
  (a `config` sent along must agree) and its number of seats. A finished position opens
  over, to be looked at. Returns `{id, view}`.
- `GET /api/matches/<id>?viewer=all|k`: the view (a game with a person: that seat only).
- `POST /api/matches/<id>/play` `{action}`: the person's move, then the agents' moves.
- `POST /api/matches/<id>/step` `{viewer}`: one agent move of a watched game.
- `POST /api/matches/<id>/close`: free the game (sent when the page is left).
- `GET /api/records`: the recorded games that can be replayed.
- `GET /api/replay?source=&tournament=&event=&table=&game=&step=&viewer=`: a recorded
  game's view after `step` moves, and its length.

A view's `log` lines are `{who, text}`, plus `policy: {top: [{text, p}], value}` for a move
of an agent with a policy (watched, or recorded with `record_policy`), when the viewer sees
every card or is the seat that moved (`Match.view`).
"""

from __future__ import annotations

import importlib.resources
import json
import re
import sys
import threading
import traceback
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from card_envs import positions
from card_envs.agents import make_agent
from card_envs.agents.ppo import has_shipped_model, shipped_config
from card_envs.core.config import Option
from card_envs.core.scene import LOOK
from card_envs.positions import Position
from card_envs.registry import (
    env_options,
    game_class,
    multi_agent_env_ids,
    single_agent_env_ids,
)
from card_envs.web.match import HUMAN, Match, MatchError, SoloMatch
from card_envs.web.sessions import Sessions
from card_envs.web.sources import Sources

MAX_BODY = 64 * 1024
DRAINED = 256 * MAX_BODY  # a body over MAX_BODY is read and dropped up to this size
TIMEOUT = 30.0  # seconds a connection may keep its handler thread waiting for its request
STATIC = {  # path -> (file, content type): the only files the server sends
    "/": ("index.html", "text/html; charset=utf-8"),
    "/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/style.css": ("style.css", "text/css; charset=utf-8"),
}
# ismcts plays at Game.ismcts_10ms; ppo and exit where a model is shipped
BROWSER_SPECS = ("random", "heuristic", "computer", "ismcts", "ppo", "exit", "selfplay")
REQUEST_FAULTS = {  # http.server's 5xx for what is wrong with the request, as the 4xx it is
    HTTPStatus.NOT_IMPLEMENTED: HTTPStatus.METHOD_NOT_ALLOWED,  # a method other than GET, POST
    HTTPStatus.HTTP_VERSION_NOT_SUPPORTED: HTTPStatus.BAD_REQUEST,  # HTTP/2.0 and up
}
MATCH_PATH = re.compile(r"^/api/matches/([A-Za-z0-9_-]{1,40})(/play|/step|/close)?$")


class RequestError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def _option(name: str, opt: Option) -> dict:
    kind = "json" if opt.validate else type(opt.default).__name__
    if opt.choices is not None and kind != "bool":
        kind = "choice"
    return {
        "name": name,
        "default": opt.default,
        "doc": opt.doc,
        "type": kind,
        "choices": list(opt.choices) if opt.choices and kind == "choice" else None,
        "low": opt.low,
        "high": opt.high,
    }


def _builds(spec: str, env_id: str, config: dict) -> bool:
    try:
        make_agent(spec, env_id, seed=0, **config)
    except (ValueError, ImportError, OSError):
        return False
    return True


def games(extra: dict[str, str] | None = None) -> list[dict]:
    """Each game with its options and the agents that can play it; where a trained model is
    shipped, the options default to the config it was trained with. The single-agent ids
    (`single`: a person alone, or against the built-in computer) are played, not watched.
    `extra` are the agents named on the command line (name -> spec), listed for the games
    they build for at those options."""
    out = []
    for env_id in multi_agent_env_ids():
        cls = game_class(env_id)
        options = [_option(name, opt) for name, opt in cls.options.items()]
        agents = ["random", "heuristic"]
        if cls.computer_kernel is not None:
            agents.append("computer")
        if cls.ismcts_10ms is not None:
            agents.append("ismcts")
        trained = shipped_config(env_id) if has_shipped_model(env_id) else None
        if trained is not None:  # the page starts from the config `ppo` can play
            agents.append("ppo")
            for opt in options:
                opt["default"] = trained.get(opt["name"], opt["default"])
        agents += [kind for kind in ("exit", "selfplay") if has_shipped_model(env_id, kind)]
        defaults = {opt["name"]: opt["default"] for opt in options}
        agents += [name for name, spec in (extra or {}).items() if _builds(spec, env_id, defaults)]
        out.append(
            {
                "env_id": env_id,
                "title": cls.title,
                "options": options,
                "agents": agents,
                "single": False,
            }
        )
    for env_id in single_agent_env_ids():
        options = [_option(n, o) for n, o in env_options(env_id).items() if n != "num_players"]
        title = env_id.removesuffix("_v0").replace("_", " ").capitalize()
        out.append(
            {"env_id": env_id, "title": title, "options": options, "agents": [], "single": True}
        )
    return out


def _listed(position: Position) -> dict:
    """A position as the new-game form offers it (its state stays on the server)."""
    return {
        "name": position.name,
        "description": position.description,
        "env_id": position.env_id,
        "config": position.state["config"],  # as JSON has it
        "finished": position.state["status"] != "running",
    }


class App:
    """What the handler threads share: the matches, the replay sources and the built-in
    positions (read once, so a request picks one by name and never names a file)."""

    def __init__(
        self,
        sources: Sources,
        sessions: Sessions | None = None,
        agents: dict[str, str] | None = None,
    ) -> None:
        """`agents`: the agents named on the command line (`serve --agents`), name -> spec;
        a browser picks one by its name, never by a spec."""
        self.sources = sources
        self.sessions = Sessions() if sessions is None else sessions  # an empty one is falsy
        self.agents = dict(agents or {})
        clash = sorted(set(self.agents) & {HUMAN, *BROWSER_SPECS})
        if clash:
            raise ValueError(
                f"serve --agents: {clash} are names of the built-in agents; name yours "
                "another way (NAME=SPEC)"
            )
        self.games = games(self.agents)
        listed = {name for g in self.games for name in g["agents"]}
        for name, spec in self.agents.items():
            if name not in listed:  # it builds for no game: say why, for the first one
                env_id = multi_agent_env_ids()[0]
                try:
                    make_agent(spec, env_id, seed=0)
                except (ValueError, ImportError, OSError) as err:
                    raise ValueError(f"serve --agents {name}={spec}: {err}") from None
                raise ValueError(f"serve --agents {name}={spec}: it plays none of the games")
        self.positions = {p.name: p for p in positions.every()}

    # --- matches ------------------------------------------------------------------------
    def new_match(self, body: dict) -> dict:
        env_id = _field(body, "env_id", str)
        specs = _field(body, "agents", list)
        config = body.get("config", {})
        seed = body.get("seed", 0)
        if not isinstance(config, dict):
            raise RequestError(400, f"config must be an object, got {config!r}")
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**63:
            raise RequestError(400, f"seed must be an int in 0..2^63-1, got {seed!r}")
        allowed = [HUMAN, *BROWSER_SPECS, *self.agents]
        for spec in specs:
            if not isinstance(spec, str) or spec not in allowed:
                raise RequestError(400, f"agent {spec!r} is not one of {allowed}")
        asked = list(specs)
        specs = [self.agents.get(s, s) for s in specs]
        position = self._position(body.get("position"), env_id, config, len(specs))
        if position is not None:
            config = position.state["config"]
        if "ismcts" in specs:  # one fixed budget per game: about 10 ms a move
            budget = _ismcts_10ms(env_id)
            if budget is None:
                raise RequestError(400, f"{env_id} has no ismcts agent")
            specs = [budget if s == "ismcts" else s for s in specs]
        if env_id in single_agent_env_ids():
            if specs != [HUMAN]:
                raise RequestError(400, f"{env_id} is played alone: agents must be ['human']")
            match = SoloMatch(env_id, config, seed)
            return {"id": self.sessions.add(match), "view": match.view(0)}
        names = [a if a in self.agents else s for a, s in zip(asked, specs, strict=True)]
        match = Match.new(env_id, config, specs, seed, names)
        if position is not None:
            match.start_from(position.name, position.state)
        if match.human is not None:  # the seats before the person's move; a watched game waits
            match.run_agents()
        key = self.sessions.add(match)
        return {"id": key, "view": match.view(match.human)}

    def _position(self, name: Any, env_id: str, config: dict, seats: int) -> Position | None:
        """The built-in position `name` (None: a fresh deal), checked against the game asked
        for: its env, the options given and the number of seats."""
        if name is None:
            return None
        if not isinstance(name, str) or name not in self.positions:
            raise RequestError(
                400, f"unknown position {name!r}; the positions are {list(self.positions)}"
            )
        position = self.positions[name]
        own = position.state["config"]
        if position.env_id != env_id:
            raise RequestError(400, f"position {name} is a game of {position.env_id}, not {env_id}")
        if {**own, **config} != own:
            raise RequestError(400, f"position {name} is played with config {own}, not {config}")
        if seats != own["num_players"]:
            raise RequestError(
                400, f"position {name} has {own['num_players']} players, not {seats} agents"
            )
        return position

    def match_view(self, key: str, query: dict) -> dict:
        match = self.sessions.get(key)
        with match.lock:
            return match.view(_viewer(match, query.get("viewer")))

    def play(self, key: str, body: dict) -> dict:
        match = self.sessions.get(key)
        action = _field(body, "action", int)
        with match.lock:
            match.play(action)
            match.run_agents()
            return match.view(match.human)

    def step(self, key: str, body: dict) -> dict:
        match = self.sessions.get(key)
        with match.lock:
            if match.human is not None:
                raise MatchError("a game with a person moves when the person plays", 409)
            viewer = _viewer(match, body.get("viewer"))
            match.step_agent()
            return match.view(viewer)

    # --- replays ------------------------------------------------------------------------
    def replay(self, query: dict) -> dict:
        record = self.sources.record(
            _int(query, "source"),
            _text(query, "event"),
            _int(query, "table"),
            _int(query, "game"),
            query.get("tournament"),
        )
        step = _int(query, "step")
        match = Match.replay(record, step)
        view = match.view(_viewer(match, query.get("viewer")))
        return {**view, "length": len(record["actions"])}


def _ismcts_10ms(env_id: str) -> str | None:
    """The `ismcts` spec the browser plays in `env_id`: its game's budget of about 10 ms a
    move (`Game.ismcts_10ms`); None for a game without one and for any other id."""
    return game_class(env_id).ismcts_10ms if env_id in multi_agent_env_ids() else None


def _field(body: dict, name: str, kind: type) -> Any:
    value = body.get(name)
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise RequestError(400, f"{name} must be a {kind.__name__}, got {value!r}")
    return value


def _int(query: dict, name: str) -> int:
    text = _text(query, name)
    # a table key has up to 19 digits; SQLite's integers are 64-bit
    if not re.fullmatch(r"-?\d{1,19}", text) or abs(int(text)) >= 2**63:
        raise RequestError(400, f"{name} must be a 64-bit integer, got {text!r}")
    return int(text)


def _text(query: dict, name: str) -> str:
    if name not in query:
        raise RequestError(400, f"missing query parameter {name!r}")
    return query[name]


def _viewer(match: Match, text: Any) -> int | None:
    """The seat a view is for: "all" (every card; not in a game with a person) or a seat."""
    if match.human is not None:
        if text not in (None, str(match.human), match.human):
            raise RequestError(403, f"in your game you see from your seat, player_{match.human}")
        return match.human
    if text in (None, "all"):
        return None
    n = match.game.num_players
    if str(text) not in [str(p) for p in range(n)]:
        raise RequestError(400, f"viewer must be 'all' or a seat 0..{n - 1}, got {text!r}")
    return int(text)


class Handler(BaseHTTPRequestHandler):
    app: App  # set on the subclass `make_server` builds
    server_version = "card-envs"
    timeout = TIMEOUT  # a client that sends nothing does not hold its thread for ever

    def do_GET(self) -> None:
        self._answer("GET")

    def do_POST(self) -> None:
        self._answer("POST")

    def log_message(self, format: str, *args: Any) -> None:  # quiet: errors only
        pass

    def _answer(self, method: str) -> None:
        try:
            url = urlsplit(self.path)
            query = {k: v[-1] for k, v in parse_qs(url.query).items()}
            if method == "GET" and url.path in STATIC:
                return self._static(*STATIC[url.path])
            status, data = HTTPStatus.OK, json.dumps(self._route(method, url.path, query))
        except (RequestError, MatchError) as err:
            status, data = err.status, json.dumps({"error": str(err)})
        except ValueError as err:  # a bad config or agent for the game
            status, data = HTTPStatus.BAD_REQUEST, json.dumps({"error": str(err)})
        except Exception:
            traceback.print_exc(file=sys.stderr)
            status, data = 500, json.dumps({"error": "internal error (the server's log has it)"})
        self._send(status, data.encode(), "application/json")

    def _route(self, method: str, path: str, query: dict) -> Any:
        app = self.app
        if path == "/api/games" and method == "GET":
            return {"games": app.games, "look": LOOK}
        if path == "/api/positions" and method == "GET":
            return [_listed(p) for p in app.positions.values()]
        if path == "/api/records" and method == "GET":
            return app.sources.listing()
        if path == "/api/replay" and method == "GET":
            return app.replay(query)
        if path == "/api/matches" and method == "POST":
            return app.new_match(self._body())
        m = MATCH_PATH.match(path)
        if m:
            key, verb = m.groups()
            if method == "GET" and verb is None:
                return app.match_view(key, query)
            if method == "POST" and verb == "/play":
                return app.play(key, self._body())
            if method == "POST" and verb == "/step":
                return app.step(key, self._body())
            if method == "POST" and verb == "/close":
                app.sessions.close(key)
                return {"closed": key}
            raise RequestError(405, f"{method} {path} is not allowed")
        if path.startswith("/api/") or method != "GET":
            raise RequestError(404, f"no such API: {method} {path}")
        raise RequestError(404, f"no page {path}")

    def _body(self) -> dict:
        length = self.headers.get("Content-Length", "0")
        if not (length.isascii() and length.isdigit()):
            raise RequestError(400, "Content-Length must be a number")
        size = int(length)
        if size > MAX_BODY:
            self._discard(size)
            raise RequestError(413, f"the body is over {MAX_BODY} bytes")
        try:
            raw = self.rfile.read(size)
        except TimeoutError:
            raise RequestError(408, f"the body did not come within {self.timeout:g} s") from None
        if len(raw) < size:
            raise RequestError(400, f"the body ended after {len(raw)} of its {size} bytes")
        try:
            body = json.loads(raw or b"{}")
        except (json.JSONDecodeError, UnicodeDecodeError) as err:
            raise RequestError(400, f"the body is not JSON: {err}") from None
        except RecursionError:  # the parser recurses once per level: `[[[...` 64 KB deep
            raise RequestError(400, "the body's JSON is nested too deep") from None
        if not isinstance(body, dict):
            raise RequestError(400, "the body must be a JSON object")
        return body

    def _discard(self, size: int) -> None:
        """Read and drop a body too large to take, up to DRAINED bytes: a client that sends
        its whole body before it reads the answer (urllib, curl) then gets the 413, where a
        socket closed with data unread would reset the connection under it."""
        left = min(size, DRAINED)
        try:
            while left > 0 and (chunk := self.rfile.read(min(left, 1 << 16))):
                left -= len(chunk)
        except OSError:  # a timeout, the client gone: the 413 is sent if it can be
            pass

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """http.server's own answers (a request line or header that does not parse, a method
        without a `do_` handler) as JSON like every other one, and as 4xx since the request
        is at fault (`REQUEST_FAULTS`). With a status line even when the request line did not
        parse (http.server then answers as to HTTP/0.9: a bare body)."""
        code = REQUEST_FAULTS.get(code, code)
        if code == HTTPStatus.METHOD_NOT_ALLOWED:
            message = f"{self.command} is not allowed: the API takes GET and POST"
        self.request_version = self.protocol_version
        self.close_connection = True
        error = json.dumps({"error": message or HTTPStatus(code).phrase})
        self._send(code, error.encode(), "application/json")

    def _static(self, name: str, kind: str) -> None:
        data = importlib.resources.files("card_envs.web").joinpath("static", name).read_bytes()
        self._send(HTTPStatus.OK, data, kind)

    def _send(self, status: int, data: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        if status == HTTPStatus.METHOD_NOT_ALLOWED:
            self.send_header("Allow", "GET, POST")
        self.end_headers()
        self.wfile.write(data)


class Server(ThreadingHTTPServer):
    """A thread per connection, and a listen queue for a burst of connections: with
    socketserver's 5, the SYN of a client connecting while a few others wait to be accepted
    is dropped and sent again a second later (the load test's 64 clients saw p99 latencies
    of 1 and 3 s, the kernel's retries)."""

    daemon_threads = True
    request_queue_size = 128


SHUTDOWN_POLL = 0.05  # seconds between a served thread's checks for shutdown()


def make_server(
    app: App, host: str = "127.0.0.1", port: int = 8000, timeout: float = TIMEOUT
) -> Server:
    """The server, bound but not yet serving (`serve_forever` in a thread or the caller);
    port 0 picks a free port (`server.server_address`); `timeout`: seconds a connection may
    keep the server waiting for (a part of) its request."""
    handler = type("BoundHandler", (Handler,), {"app": app, "timeout": timeout})
    return Server((host, port), handler)


def serve_in_thread(app: App, host: str = "127.0.0.1", port: int = 0):
    """A server running in a daemon thread (tests, notebooks): returns (server, its URL).
    It checks for `shutdown()` every 50 ms rather than socketserver's 0.5 s, so that stopping
    it (a test's teardown) takes no noticeable time."""
    server = make_server(app, host, port)
    threading.Thread(target=server.serve_forever, args=(SHUTDOWN_POLL,), daemon=True).start()
    h, p = server.server_address[:2]
    return server, f"http://{h}:{p}/"

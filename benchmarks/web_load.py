"""The browser app under load: concurrent players with bad requests mixed in, bounded.

Run from the repo root:

    python -m benchmarks.web_load [--sessions 64] [--games 600] [--requests 400000]
                                  [--minutes 13] [--seed 0] [--out docs/figures/web_load.md]
                                  [--url http://127.0.0.1:PORT [--pid PID]]

It starts `python -m card_envs serve --port 0` from this checkout on 127.0.0.1 (or uses the
server at `--url`, which must be on 127.0.0.1; `--pid` names its process for the memory
figures) and runs `--sessions` client threads against its JSON API with the standard library
(`http.client`; a connection per request, as the server speaks HTTP/1.0). Each client plays
whole games one after another, the env ids the server lists (`GET /api/games`) taken in turn
so that every one gets its share, with its options' defaults as the page sends them (but
for `CONFIGS`, games a random clicker would drag out to thousands of moves):

* played: one "human" seat, the other seats the game's built-in agents drawn at random; the
  person's moves are random ones among those the page lets a person click, until the end;
* watched: every other round of a multi-agent env id, agents only, `/step` by `/step`,
  seen from a seat or with every card;
* then `/close`, except one game in `ABANDON_EVERY`, left open (mid-game or at its end) as by
  a tab closed without a word: the server then holds more matches than its cap and must
  evict (`card_envs.web.sessions`); at the end, no more than the cap may be still held. A
  client whose own match was evicted starts its next one.

Mixed in, each checked for its 4xx status and a JSON `{"error": ...}` naming the problem
(`bad_requests`, `Player.probe_start`): malformed bodies, wrong types, unknown env ids,
agents, match ids and paths, wrong methods, oversized and truncated bodies, a request line
that does not parse; and out of order: an illegal action, a step in a game with a person, a
look at another seat, a move in a watched game, after the end and after the close.

It stops by itself at `--games` games, `--requests` requests or `--minutes`, whichever comes
first, and only ever connects to 127.0.0.1. The report (stdout, and the Markdown page
`--out`): requests/s, latency p50/p99 overall and per kind of request, 4xx and 5xx counts,
games per env id, and the server's resident memory when it started, after a warm-up (a match
of every env id with every agent), at the middle of the run and at the end. Exit status 1 on
any 5xx, failed connection, unexpected answer or traceback in the server's log, or on memory
that still grows in the second half of the run (by then the run has opened many times more
matches than the cap holds: a leak per match would show).
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from time import perf_counter
from typing import Any
from urllib.parse import urlsplit

from card_envs.testing.report import header, markdown, rss_bytes
from card_envs.web.server import DRAINED, MAX_BODY
from card_envs.web.sessions import MATCH_LIMIT

ROOT = Path(__file__).resolve().parent.parent  # the checkout the served app runs from
HOST = "127.0.0.1"  # the only address this benchmark talks to
SESSIONS = 64
GAMES = 600
REQUESTS = 400_000
MINUTES = 13.0
REQUEST_TIMEOUT = 120.0  # seconds without an answer: a failure (the server hangs)
ABANDON_EVERY = 5  # game k is left open when k % ABANDON_EVERY == ABANDON_EVERY - 1
VIEW_EVERY = 8  # about one move in VIEW_EVERY is followed by a look at the view
PROBES_PER_GAME = 2  # bad requests a client sends after each of its games
MAX_LATE_GROWTH = 0.10  # of resident memory from the middle of the run to its end
CHECKED_OVER = 4  # memory is checked when the run opens more than this many caps of matches
SAMPLE_SECONDS = 1.0  # between samples of the server's resident memory
OVERSIZED = (MAX_BODY + 1, 1 << 20, DRAINED)  # body sizes over the limit
# the page's defaults, but for the two games where a person clicking at random makes
# thousands of moves (Rummidrez's placements and rearrangements): about 300 and 1,400
CONFIGS = {"rummidrez_v0": {"max_turns": 24}, "rummidrez_solo_v0": {"max_placements": 12}}


# --- what the clients count ---------------------------------------------------------------
@dataclass
class Answer:
    status: int  # 0: no answer (the connection failed or timed out)
    body: Any  # the JSON, or None when it was not JSON
    text: str  # the first bytes, for messages


class Tally:
    """What every client counts, under one lock."""

    def __init__(self) -> None:
        self.latency: dict[str, list[float]] = defaultdict(list)  # kind -> seconds
        self.statuses: dict[str, Counter] = defaultdict(Counter)  # kind -> status class
        self.games: dict[str, Counter] = defaultdict(Counter)  # env id -> what happened
        self.probes: Counter = Counter()  # bad request -> sent
        self.probes_ok: Counter = Counter()  # bad request -> answered as expected
        self.problems: list[str] = []
        self.left_open: list[str] = []  # the paths of the matches left open
        self.requests = 0
        self.lock = threading.Lock()

    def request(self, kind: str, status: int, seconds: float) -> None:
        with self.lock:
            self.latency[kind].append(seconds)
            self.statuses[kind][status_class(status)] += 1
            self.requests += 1

    def game(self, env_id: str, what: str) -> None:
        with self.lock:
            self.games[env_id][what] += 1

    def leave(self, env_id: str, path: str) -> None:
        """The match at `path` is left open, as by a tab closed without a word."""
        with self.lock:
            self.games[env_id]["left open"] += 1
            self.left_open.append(path)

    def probed(self, name: str, ok: bool) -> None:
        with self.lock:
            self.probes[name] += 1
            self.probes_ok[name] += ok

    def problem(self, text: str) -> None:
        with self.lock:
            self.problems.append(text)

    def count(self, cls: str) -> int:
        return sum(c[cls] for c in self.statuses.values())


def status_class(status: int) -> str:
    return "failed" if status == 0 else f"{status // 100}xx"


@dataclass
class Run:
    """The bounds of a run, shared by its clients: a game number for each game until
    `games`, and no request after the budget or the deadline."""

    games: int
    requests: int
    deadline: float  # perf_counter() time
    tally: Tally
    _numbers: Iterator[int] = field(default_factory=itertools.count)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def over(self) -> bool:
        return self.tally.requests >= self.requests or perf_counter() >= self.deadline

    def next_game(self) -> int | None:
        with self._lock:
            number = next(self._numbers)
        return None if number >= self.games or self.over() else number


# --- one client ---------------------------------------------------------------------------
class Client:
    """JSON requests to the server at 127.0.0.1:`port`, each timed into `tally` under a kind."""

    def __init__(self, port: int, tally: Tally) -> None:
        self.port = port
        self.tally = tally

    def call(
        self, kind: str, method: str, path: str, body: Any = None, raw: bytes | None = None
    ) -> Answer:
        data = raw if raw is not None else None if body is None else json.dumps(body).encode()
        headers = {} if data is None else {"Content-Type": "application/json"}
        conn = http.client.HTTPConnection(HOST, self.port, timeout=REQUEST_TIMEOUT)
        start = perf_counter()
        try:
            conn.request(method, path, body=data, headers=headers)
            response = conn.getresponse()
            status, payload = response.status, response.read()
        except (OSError, http.client.HTTPException) as err:
            status, payload = 0, f"{type(err).__name__}: {err}".encode()
        finally:
            conn.close()
        self.tally.request(kind, status, perf_counter() - start)
        return _answer(status, payload)

    def exchange(self, kind: str, data: bytes) -> Answer:
        """Bytes sent as they are (what `http.client` would not send) and nothing more, the
        answer read to its end."""
        start = perf_counter()
        try:
            with socket.create_connection((HOST, self.port), timeout=REQUEST_TIMEOUT) as sock:
                sock.sendall(data)
                sock.shutdown(socket.SHUT_WR)
                chunks = iter(lambda: sock.recv(1 << 16), b"")
                reply = b"".join(chunks)
            line, _, rest = reply.partition(b"\r\n")
            status = int(line.split()[1]) if line.startswith(b"HTTP/1.") else 0
            payload = rest.partition(b"\r\n\r\n")[2] if status else reply
        except (OSError, IndexError, ValueError) as err:
            status, payload = 0, f"{type(err).__name__}: {err}".encode()
        self.tally.request(kind, status, perf_counter() - start)
        return _answer(status, payload)


def _answer(status: int, payload: bytes) -> Answer:
    try:
        body = json.loads(payload)
    except ValueError:
        body = None
    return Answer(status, body, " ".join(payload[:300].decode(errors="replace").split()))


def page_moves(view: dict) -> list[int]:
    """The actions the page lets the person click: scene items and buttons."""
    clicks = [it["action"] for it in view["scene"]["items"] if "action" in it]
    return clicks + [b["action"] for b in view["buttons"]]


class Player:
    """One client thread: plays games of `games` (as `GET /api/games` lists them, with
    `configs` overriding their options' defaults) and sends the bad requests."""

    def __init__(self, client: Client, games: list[dict], configs: dict, seed: int) -> None:
        self.client = client
        self.tally = client.tally
        self.games = games
        self.configs = configs
        self.seed = seed
        self.bad_requests = bad_requests(client, games[0]["env_id"])

    # --- checks -----------------------------------------------------------------------
    def ok(self, answer: Answer, what: str) -> bool:
        """A 200 with JSON; anything else is a problem of the run."""
        if answer.status == 200 and answer.body is not None:
            return True
        self.tally.problem(f"{what}: {answer.status} {answer.text}")
        return False

    def probe(self, name: str, answer: Answer, status: int, words: str) -> None:
        """A bad request's answer: `status` with a JSON error naming the problem (`words`)."""
        error = answer.body.get("error") if isinstance(answer.body, dict) else None
        ok = answer.status == status and isinstance(error, str) and words.lower() in error.lower()
        self.tally.probed(name, ok)
        if not ok:
            self.tally.problem(
                f"{name}: expected {status} naming {words!r}, got {answer.status} {answer.text}"
            )

    def send_probe(self, k: int, rng: random.Random) -> None:
        """Bad request number `k` of `bad_requests` (they are taken in turn)."""
        name, send, status, words = self.bad_requests[k % len(self.bad_requests)]
        self.probe(name, send(rng), status, words)

    # --- games ------------------------------------------------------------------------
    def config(self, game: dict) -> dict:
        """The config the page sends: every option's default, with this run's overrides."""
        defaults = {o["name"]: o["default"] for o in game["options"]}
        return {**defaults, **self.configs.get(game["env_id"], {})}

    def play_game(self, number: int, run: Run) -> None:
        """Game `number` of the run. Its env id, whether it is watched or left open, and the
        agents follow from the number and the seed: every env id gets its share."""
        game = self.games[number % len(self.games)]
        env_id, rng = game["env_id"], random.Random(self.seed * 1_000_003 + number)
        config = self.config(game)
        watched = not game["single"] and number // len(self.games) % 2 == 1
        if game["single"]:
            agents = ["human"]
        else:
            agents = [rng.choice(game["agents"]) for _ in range(config["num_players"])]
            if not watched:
                agents[rng.randrange(len(agents))] = "human"
        left = number % ABANDON_EVERY == ABANDON_EVERY - 1
        leave_at = rng.randrange(1, 40) if left and number // ABANDON_EVERY % 2 else None
        body = {"env_id": env_id, "config": config, "agents": agents, "seed": rng.randrange(2**32)}
        answer = self.client.call("new", "POST", "/api/matches", body)
        if not self.ok(answer, f"new {env_id} {agents}"):
            return
        key, view = answer.body["id"], answer.body["view"]
        path = f"/api/matches/{key}"
        self.tally.game(env_id, "watched" if watched else "played")
        self.probe_start(path, view, watched)
        verb, seats = ("step", ["all", *map(str, range(len(agents)))]) if watched else ("play", [])
        while not view["over"]:
            if run.over() or leave_at == 0:
                self.tally.leave(env_id, path)
                return
            leave_at = None if leave_at is None else leave_at - 1
            move = rng.choice(seats) if watched else rng.choice(page_moves(view))
            body = {"viewer": move} if watched else {"action": move}
            answer = self.client.call(verb, "POST", f"{path}/{verb}", body)
            if answer.status == 404 and "no game" in answer.text:
                self.tally.game(env_id, "evicted")  # the cap made room for another match
                return
            if not self.ok(answer, f"{verb} in {env_id} {agents}"):
                return
            view = answer.body
            self.tally.game(env_id, "moves")
            if rng.randrange(VIEW_EVERY) == 0:
                seen = "all" if watched else view["viewer"]
                self.ok(self.client.call("view", "GET", f"{path}?viewer={seen}"), "view")
        self.tally.game(env_id, "finished")
        answer = self.client.call("bad", "POST", f"{path}/{verb}", {"action": 0})
        self.probe("move after the end", answer, 409, "over")
        if left:
            self.tally.leave(env_id, path)
            return
        self.ok(self.client.call("close", "POST", f"{path}/close"), "close")
        answer = self.client.call("bad", "POST", f"{path}/{verb}", {"action": 0})
        self.probe("move after the close", answer, 404, "no game")

    def probe_start(self, path: str, view: dict, watched: bool) -> None:
        """Out-of-order requests at the start of the game at `path`."""
        call = self.client.call
        if watched:
            answer = call("bad", "POST", f"{path}/play", {"action": 0})
            self.probe("move in a watched game", answer, 409, "not yours")
            return
        if view["over"]:
            return
        legal = page_moves(view)
        illegal = next(a for a in itertools.count() if a not in legal)
        answer = call("bad", "POST", f"{path}/play", {"action": illegal})
        self.probe("illegal action", answer, 400, "not legal")
        answer = call("bad", "POST", f"{path}/play", {"action": str(legal[0])})
        self.probe("action of the wrong type", answer, 400, "action must be")
        answer = call("bad", "POST", f"{path}/step", {})
        self.probe("step in a game with a person", answer, 409, "person")
        other = (view["viewer"] + 1) % max(2, len(view["seats"]))
        answer = call("bad", "GET", f"{path}?viewer={other}")
        self.probe("look at another seat", answer, 403, "your seat")


Send = Callable[[random.Random], Answer]


def bad_requests(client: Client, env_id: str) -> list[tuple[str, Send, int, str]]:
    """The bad requests sent between games: (name, send it, the status expected, words its
    error must contain)."""
    call, exchange = client.call, client.exchange
    human = {"env_id": env_id, "agents": ["human"]}
    post = b"POST /api/matches HTTP/1.0\r\nContent-Length: "

    def new(body: Any = None, raw: bytes | None = None) -> Send:
        return lambda rng: call("bad", "POST", "/api/matches", body, raw)

    def get(path: str, method: str = "GET") -> Send:
        return lambda rng: call("bad", method, path)

    def sent(data: bytes) -> Send:
        return lambda rng: exchange("bad", data)

    def oversized(rng: random.Random) -> Answer:
        body = json.dumps({**human, "pad": ""}).encode()
        padded = body[:-2] + b" " * rng.choice(OVERSIZED) + body[-2:]
        return call("bad", "POST", "/api/matches", raw=padded)

    return [
        ("body not JSON", new(raw=b'{"env_id": '), 400, "not JSON"),
        ("body JSON nested too deep", new(raw=b"[" * 50_000), 400, "JSON"),
        ("body not an object", new(raw=b"[1, 2]"), 400, "JSON object"),
        ("field of the wrong type", new({**human, "env_id": 7}), 400, "env_id must be"),
        ("unknown env id", new({**human, "env_id": "poker_v9"}), 400, "unknown env id"),
        ("unknown agent", new({**human, "agents": ["human", "ppo:x"]}), 400, "not one of"),
        ("unknown option", new({**human, "config": {"colour": 1}}), 400, "colour"),
        ("unknown match id", get("/api/matches/nosuchgame"), 404, "no game"),
        ("unknown API path", get("/api/nothing"), 404, "no such API"),
        ("unknown page", get("/../pyproject.toml"), 404, "no page"),
        ("wrong method for the path", get("/api/matches/x/play"), 405, "not allowed"),
        ("method the API has not", get("/api/matches", "DELETE"), 405, "not allowed"),
        ("oversized body", oversized, 413, "bytes"),
        ("body shorter than its length", sent(post + b'99\r\n\r\n{"env_id"'), 400, "body"),
        ("Content-Length not a number", sent(post + b"lots\r\n\r\n{}"), 400, "Content-Length"),
        ("request line that does not parse", sent(b"HELLO\r\n\r\n"), 400, "request"),
        ("HTTP version it does not speak", sent(b"GET / HTTP/9.9\r\n\r\n"), 400, "version"),
    ]


def client_loop(player: Player, run: Run) -> None:
    """Games and bad requests until the run is over; an exception is a problem, not a hang."""
    try:
        while (number := run.next_game()) is not None:
            player.play_game(number, run)
            rng = random.Random(number)
            for i in range(PROBES_PER_GAME):
                player.send_probe(number * PROBES_PER_GAME + i, rng)
    except Exception as err:  # a bug of the benchmark, or an answer of an unexpected shape
        player.tally.problem(f"client crashed: {type(err).__name__}: {err}")


# --- a run --------------------------------------------------------------------------------
@dataclass
class Memory:
    """The server's resident memory (bytes; 0: not measured) at the points of the run."""

    start: int = 0
    warm: int = 0
    middle: int = 0
    peak: int = 0
    end: int = 0

    @property
    def late_growth(self) -> float:
        return self.end / self.middle - 1 if self.middle else 0.0


@dataclass
class LoadResult:
    sessions: int
    seconds: float
    tally: Tally
    memory: Memory
    opened: int  # matches opened by the run (warm-up included)
    held: int  # of the matches left open, those the server still held at the end
    env_ids: list[str]
    load: float  # the machine's load average (1 min) when the load started: other jobs
    server_errors: int = 0  # tracebacks in the server's log
    server_log: Path | None = None  # kept when it has tracebacks

    @property
    def server_log_text(self) -> str:
        if self.server_log is None:
            return "not read (a server this run did not start)"
        kept = f" (kept: {self.server_log})" if self.server_errors else ""
        return f"{self.server_errors}{kept}"

    def problems(self) -> list[str]:
        out = []
        if self.tally.count("5xx") or self.tally.count("failed"):
            out.append(f"{self.tally.count('5xx')} 5xx, {self.tally.count('failed')} failed")
        if self.tally.problems:
            out.append(f"{len(self.tally.problems)} unexpected answers")
        if self.server_errors > 0:
            out.append(f"{self.server_errors} tracebacks in the server's log")
        if self.held > MATCH_LIMIT:
            out.append(f"{self.held} matches left open still held, over the cap")
        if self.memory_checked and self.memory.late_growth > MAX_LATE_GROWTH:
            out.append(f"memory grew {self.memory.late_growth:+.1%} in the second half")
        unfinished = [e for e in self.env_ids if not self.tally.games[e]["finished"]]
        if unfinished:
            out.append(f"no game finished of {unfinished}")
        return out

    @property
    def memory_checked(self) -> bool:
        """Only a run that has opened several times the cap's matches by its middle says
        whether memory is bounded by the cap."""
        return self.memory.middle > 0 and self.opened > CHECKED_OVER * MATCH_LIMIT


def warm_up(player: Player) -> int:
    """A match of every env id with every agent the server lists for it, the person in the
    last seat (the agents move first), one move, closed: the server has then loaded every
    kernel and model the games need. Returns the matches opened."""
    opened, call = 0, player.client.call
    for game in player.games:
        config = player.config(game)
        others = config.get("num_players", 1) - 1
        for agents in [[a] * others + ["human"] for a in game["agents"]] or [["human"]]:
            body = {"env_id": game["env_id"], "config": config, "agents": agents}
            answer = call("warm-up", "POST", "/api/matches", body)
            if not player.ok(answer, f"warm-up {body}"):
                continue
            opened += 1
            path, view = f"/api/matches/{answer.body['id']}", answer.body["view"]
            if not view["over"]:
                move = {"action": page_moves(view)[0]}
                player.ok(call("warm-up", "POST", f"{path}/play", move), "warm-up move")
            player.ok(call("warm-up", "POST", f"{path}/close"), "warm-up close")
    return opened


def run_load(
    port: int,
    sessions: int = SESSIONS,
    games: int = GAMES,
    requests: int = REQUESTS,
    minutes: float = MINUTES,
    seed: int = 0,
    configs: dict[str, dict] = CONFIGS,
    rss: Callable[[], int] = lambda: 0,
) -> LoadResult:
    """The load against the server on 127.0.0.1:`port` (see the module docstring); `rss`
    reads the server's resident memory."""
    tally = Tally()
    client = Client(port, tally)
    memory = Memory(start=rss())
    listed = client.call("games", "GET", "/api/games")
    if listed.status != 200:
        raise RuntimeError(f"GET /api/games: {listed.status} {listed.text}")
    catalogue = listed.body["games"]
    opened = warm_up(Player(client, catalogue, configs, seed))
    memory.warm = memory.peak = rss()
    load = os.getloadavg()[0]
    start = perf_counter()
    run = Run(games, requests, start + minutes * 60, tally)
    players = [Player(Client(port, tally), catalogue, configs, seed) for _ in range(sessions)]
    threads = [threading.Thread(target=client_loop, args=(p, run)) for p in players]
    for t in threads:
        t.start()
    samples = _sample_memory(threads, rss)
    seconds = perf_counter() - start
    if samples:
        memory.middle = min(samples, key=lambda s: abs(s[0] - seconds / 2))[1]
        memory.peak = max(memory.peak, *(m for _, m in samples))
    memory.end = rss()
    opened += sum(c["played"] + c["watched"] for c in tally.games.values())
    held = sum(client.call("left open?", "GET", path).status == 200 for path in tally.left_open)
    env_ids = [g["env_id"] for g in catalogue]
    return LoadResult(sessions, seconds, tally, memory, opened, held, env_ids, load)


def _sample_memory(threads: list[threading.Thread], rss: Callable[[], int]) -> list[tuple]:
    """(seconds, resident bytes) every SAMPLE_SECONDS until the client threads end."""
    start, samples = perf_counter(), []
    for t in threads:
        while t.is_alive():
            t.join(SAMPLE_SECONDS)
            samples.append((perf_counter() - start, rss()))
    return samples


# --- the server -----------------------------------------------------------------------------
@contextmanager
def served(log: Path) -> Iterator[tuple[int, int]]:
    """`python -m card_envs serve` of this checkout on a free port of 127.0.0.1, its stderr
    to `log`: (port, pid). Ready when it prints its address; interrupted at the end."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    command = [sys.executable, "-m", "card_envs", "serve", "--host", HOST, "--port", "0"]
    with log.open("wb") as err:
        proc = subprocess.Popen(
            command, cwd=ROOT, stdout=subprocess.PIPE, stderr=err, text=True,
            env={**os.environ, "PYTHONPATH": path},
        )  # fmt: skip
    try:
        line = proc.stdout.readline()
        found = re.search(rf"http://{re.escape(HOST)}:(\d+)/", line)
        if found is None:
            raise RuntimeError(f"the server did not start ({line!r}); its log: {log}")
        yield int(found.group(1)), proc.pid
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def loopback_port(url: str) -> int:
    """The port of `--url`; anything but http://127.0.0.1:PORT is refused."""
    parts = urlsplit(url)
    if parts.scheme != "http" or parts.hostname != HOST or parts.port is None:
        raise ValueError(f"--url must be http://{HOST}:PORT (this load stays on this machine)")
    return parts.port


# --- report -------------------------------------------------------------------------------
def _ms(values: list[float], q: float) -> str:
    """The `q` quantile (nearest rank) in milliseconds."""
    if not values:
        return "-"
    ordered = sorted(values)
    return f"{ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))] * 1000:,.1f}"


def _mb(x: int) -> str:
    return f"{x / 2**20:,.0f}" if x else "-"


def request_table(result: LoadResult) -> str:
    t = result.tally
    head = ["requests", "count", "2xx", "4xx", "5xx", "failed", "p50 ms", "p99 ms", "max ms"]
    rows = []
    everything = [x for v in t.latency.values() for x in v]
    kinds = [(k, t.latency[k], t.statuses[k]) for k in sorted(t.latency)]
    total = Counter()
    for c in t.statuses.values():
        total.update(c)
    for kind, values, counts in [*kinds, ("**all**", everything, total)]:
        cells = [f"{counts[c]:,}" for c in ("2xx", "4xx", "5xx", "failed")]
        times = [_ms(values, q) for q in (0.5, 0.99, 1.0)]
        rows.append([kind, f"{len(values):,}", *cells, *times])
    return markdown(head, rows, [False, *[True] * 8])


def game_table(result: LoadResult) -> str:
    head = ["env id", "played", "watched", "finished", "left open", "evicted", "moves"]
    keys = ["played", "watched", "finished", "left open", "evicted", "moves"]
    rows = [[e, *(f"{result.tally.games[e][k]:,}" for k in keys)] for e in result.env_ids]
    sums = [f"**{sum(result.tally.games[e][k] for e in result.env_ids):,}**" for k in keys]
    return markdown(head, [*rows, ["**all**", *sums]], [False, *[True] * 6])


def probe_table(result: LoadResult) -> str:
    t = result.tally
    rows = [[name, f"{n:,}", f"{t.probes_ok[name]:,}"] for name, n in sorted(t.probes.items())]
    return markdown(["bad request", "sent", "answered as expected"], rows, [False, True, True])


def summary(result: LoadResult) -> list[str]:
    t, m = result.tally, result.memory
    rate = t.requests / result.seconds if result.seconds else 0
    everything = [x for v in t.latency.values() for x in v]
    growth = f"{m.late_growth:+.1%}" if m.middle else "-"
    checked = (
        f"at most {MAX_LATE_GROWTH:.0%} allowed"
        if result.memory_checked
        else f"not checked: needs more than {CHECKED_OVER * MATCH_LIMIT} matches opened"
    )
    problems = result.problems()
    return [
        f"- the machine's load average when the load started: {result.load:.2f} (other jobs)",
        f"- {result.sessions} sessions, {t.requests:,} requests in {result.seconds:,.1f} s: "
        f"**{rate:,.0f} requests/s**, latency p50 {_ms(everything, 0.5)} ms, "
        f"p99 {_ms(everything, 0.99)} ms",
        f"- {t.count('4xx'):,} 4xx (all asked for), **{t.count('5xx')} 5xx**, "
        f"{t.count('failed')} failed connections",
        f"- {result.opened:,} matches opened against a cap of {MATCH_LIMIT} held at once; of "
        f"the {len(t.left_open)} left open, {len(t.left_open) - result.held} were gone by the "
        f"end (evicted for newer ones, or expired) and {result.held} still held",
        f"- server resident memory (MB): {_mb(m.start)} at start, {_mb(m.warm)} after the "
        f"warm-up, {_mb(m.middle)} at the middle, {_mb(m.peak)} at the peak, {_mb(m.end)} at "
        f"the end; growth over the second half {growth} ({checked})",
        f"- tracebacks in the server's log: {result.server_log_text}",
        "",
        "**FAIL**: " + "; ".join(problems) if problems else "**PASS**",
    ]


def report(result: LoadResult, command: str) -> str:
    """The docs page: what was run where, the verdict and the tables."""
    problems = result.tally.problems[:20]
    return "\n".join(
        [
            "# The web app under load",
            "",
            "Written by `python -m benchmarks.web_load` (see its docstring): concurrent "
            "clients play whole games of every env id through `card-envs serve`'s JSON API "
            "against the built-in agents, watch agents play, leave some games open, and mix "
            "in malformed, oversized and out-of-order requests, each of which must get its "
            "4xx and a JSON error naming the problem.",
            "",
            *header(command),
            "",
            *summary(result),
            "",
            "## Requests",
            "",
            request_table(result),
            "",
            "## Games",
            "",
            game_table(result),
            "",
            "## Bad requests",
            "",
            probe_table(result),
            "",
        ]
        + (["## Unexpected answers (the first 20)", "", *(f"- {p}" for p in problems), ""])
        * bool(problems)
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.web_load",
        description="Load test of `card-envs serve` on 127.0.0.1; exits 1 on any 5xx, "
        "failure, unexpected answer or memory growth.",
    )
    parser.add_argument("--sessions", type=int, default=SESSIONS, help="concurrent clients")
    parser.add_argument("--games", type=int, default=GAMES, help="games in all")
    parser.add_argument("--requests", type=int, default=REQUESTS, help="request budget")
    parser.add_argument("--minutes", type=float, default=MINUTES, help="wall-clock cap")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--url", help=f"a running server, http://{HOST}:PORT (default: start one)")
    parser.add_argument("--pid", type=int, help="with --url: its process, for the memory figures")
    parser.add_argument(
        "--out", default="docs/figures/web_load.md", help="the Markdown page to write"
    )
    args = parser.parse_args(argv)
    if min(args.sessions, args.games, args.requests) < 1 or args.minutes <= 0:
        parser.error("--sessions, --games, --requests and --minutes must be positive")
    command = " ".join(["python -m benchmarks.web_load", *(sys.argv[1:] if argv is None else argv)])
    bounds = (args.sessions, args.games, args.requests, args.minutes, args.seed)
    if args.url:
        try:
            port = loopback_port(args.url)
        except ValueError as err:
            parser.error(str(err))
        result = run_load(port, *bounds, rss=lambda: rss_bytes(args.pid) if args.pid else 0)
    else:
        log = Path(tempfile.mkstemp(prefix="web_load_server_", suffix=".log")[1])
        with served(log) as (port, pid):
            result = run_load(port, *bounds, rss=lambda: rss_bytes(pid))
        result.server_errors = log.read_text(errors="replace").count("Traceback")
        result.server_log = log
        if not result.server_errors:
            log.unlink()
    page = report(result, command)
    Path(args.out).write_text(page)
    print(page, flush=True)
    return 1 if result.problems() else 0


if __name__ == "__main__":
    raise SystemExit(main())

"""`llm:` agents: a language model behind any OpenAI-compatible chat-completions endpoint.

    llm:MODEL[:KEY=VALUE...][:base_url=URL]

For each decision the model is sent the game's rules (`Game.rules_summary`) and the answer
format as the system message, and what the seat to act sees (`Game.view_text`, which shows
nothing hidden from that seat) with its legal moves as `id: text` (`Game.legal_moves`) as
the user message; it is asked for `{"move": ID}`. Its answer is read by `Game.parse_action`
(an id, the JSON, or a move's words), also from a JSON object inside a longer answer. An
illegal or unparseable answer is counted, told to the model with the list of legal moves,
and asked again, up to `retries` times; then the `fallback` plays:

- `random` (the default): a legal move drawn from the agent's own seeded stream;
- `illegal`: the agent hands the harness an illegal action (the id the model named, or the
  lowest illegal id), so the harness's own rule for an illegal action applies: an AEC or
  Gymnasium env made with `illegal_action="penalize"` ends the game with -1 for the seat,
  one with `"raise"` (the default) raises, and the arena (`evaluate`, tournaments, `bench`)
  stops with its error naming the agent and the action;
- `raise`: an `LLMError` naming the model's answers stops the harness at once.

Options (`:KEY=VALUE`, or a tournament entry's `options`):

- `base_url=URL`: the endpoint, up to `/v1` (it holds colons, so it ends the spec); else
  `$CARD_ENVS_LLM_BASE_URL`, else `$OPENAI_BASE_URL`, else `http://127.0.0.1:8000/v1`;
- `key_env=VAR`: the environment variable that holds the API key (default
  `OPENAI_API_KEY`; none is sent when it is unset). The key itself never goes in a spec;
- `temperature=T` (default 0), `max_tokens=N` (default 256), `timeout=S` seconds a request
  (default 60), `retries=K` (default 2);
- `schema=auto|on|off`: ask for JSON-schema constrained output, the legal ids as an enum.
  Servers take it in one of two forms (`SCHEMA_FORMS`): OpenAI's `response_format`
  `{"type": "json_schema", ...}` (OpenAI, vLLM, llama.cpp's `llama-server`, Ollama) or
  `{"type": "json_object", "schema": ...}` (llama-cpp-python's server). The first request
  tries them in that order, and the form the server answers is kept for the agent's life; a
  form is refused by HTTP 400, 415, 422, 500 or 501. `auto` (the default) then asks for free
  text; `on` makes it an error. A server that takes the field and ignores it (as
  `transformers serve` does) is not told apart: its answers are free text;
- `template=PATH`: the prompt as a text file: the user message, or the system message, a
  line `---`, and the user message; `str.format` fields `{title}`, `{env_id}`, `{seat}`,
  `{rules}`, `{view}`, `{moves}`, `{answer}` (the answer format, as the default asks);
- `log=PATH`: append each decision to a JSONL transcript (the messages, each answer and what
  it was read as, the move played, whether the fallback played it). Each process writes
  its own file, the process id put before the suffix (`games.jsonl` -> `games.1234.jsonl`);
- `parallel=N`: ask about up to N positions of a batch at once, in threads that live only
  for the call (default 1). The moves are the same as one at a time.

HTTP errors (no connection, a timeout, a 5xx or 429 answer) are counted and retried within
the same `retries`; a decision that got no answer at all raises `LLMError`, and so does a
refusal (401, 403, 404, another 4xx), with the server's words.

Counters (`LLMAgent.counts`): decisions, answers, illegal answers, fallbacks, HTTP errors.
Harnesses play in worker processes, so a process also adds its agents' counts to a file
in the folder `$CARD_ENVS_LLM_STATS` when that is set; `usage_counts()` sets it for a run
and sums the files afterwards (the bench's scorecard line is made so). Every process of a
local run is counted, the warm-up games a pool plays to compile its kernels included; Ray
workers are not.

The HTTP connection is made per request (urllib), so an agent holds nothing that a worker
could not build from its spec.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from card_envs.agents.base import Agent
from card_envs.agents.specs import AgentSpec, AgentSpecError
from card_envs.core import layout
from card_envs.core.engine import Game
from card_envs.core.views import agent_name

BASE_URL_ENV = "CARD_ENVS_LLM_BASE_URL"
DEFAULT_BASE_URL = "http://127.0.0.1:8000/v1"
DEFAULT_KEY_ENV = "OPENAI_API_KEY"
STATS_ENV = "CARD_ENVS_LLM_STATS"
FALLBACKS = ("random", "illegal", "raise")
SCHEMA_MODES = ("auto", "on", "off")
DEFAULTS = {
    "key_env": DEFAULT_KEY_ENV,
    "temperature": 0.0,
    "retries": 2,
    "fallback": "random",
    "schema": "auto",
    "max_tokens": 256,
    "timeout": 60.0,
    "parallel": 1,
}
TRANSIENT = (408, 429, 500, 502, 503, 504)  # HTTP answers worth asking again
# how servers refuse a form of `response_format` they do not take (llama-cpp-python: 500)
FORM_REFUSED = (400, 415, 422, 500, 501)
# the forms of JSON-schema constrained output, in the order asked: OpenAI's (OpenAI, vLLM,
# llama.cpp's llama-server, Ollama, ...), then `json_object` with a `schema`
# (llama-cpp-python's server, Together, Anyscale)
SCHEMA_FORMS = ("json_schema", "json_object")
UNKNOWN = "?"  # the form a server takes, until one request was answered
_PROBING = threading.Lock()

ANSWER = (
    'Answer with one JSON object {"move": ID} and nothing else, where ID is the id of the '
    "move you choose."
)
SYSTEM = (
    "You are playing {title}, a card game, as one of the players. The rules:\n\n{rules}\n\n"
    "Each turn you are shown the table as you see it and your legal moves, one a line as "
    "`id: move`. {answer}"
)
USER = "{view}\n\nYour legal moves (id: move):\n{moves}\n\nYour move?"
RETRY = (
    "That answer is not a legal move: {error}\n"
    'Answer again with one JSON object {{"move": ID}}, ID one of the ids listed.'
)
FIELDS = ("title", "env_id", "seat", "rules", "view", "moves", "answer")


class LLMError(ValueError):
    """The model could not be asked (no answer, a refused request) or, with
    `fallback=raise`, gave no legal answer."""


@dataclass
class Counts:
    """What an agent (or a run) asked and got. `answers` counts the model's answers, legal
    or not: a decision takes `retries` + 1 at most, a legal one ends it; with no HTTP error,
    answers = decisions + illegal - fallbacks."""

    decisions: int = 0
    answers: int = 0
    illegal: int = 0
    fallbacks: int = 0
    http_errors: int = 0
    schema_refused: int = 0  # requests whose `response_format` the server refused

    def add(self, other: Counts) -> None:
        for name, value in asdict(other).items():
            setattr(self, name, getattr(self, name) + value)

    @property
    def illegal_rate(self) -> float:
        return self.illegal / self.answers if self.answers else float("nan")


@dataclass
class _Decision:
    """One decision's exchange, for the counters and the transcript."""

    messages: list[dict]
    answers: list[dict] = field(default_factory=list)
    counts: Counts = field(default_factory=Counts)
    move: int = -1
    fallback: bool = False


class _Transient(Exception):
    """A request that may succeed if asked again."""


class _Status(Exception):
    """An HTTP error answer."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def _options(spec: AgentSpec) -> dict[str, Any]:
    """The spec's options, typed and checked, with the defaults."""
    given = spec.option_dict
    out = {**DEFAULTS, **given}

    def number(name: str, kind: type, low: float) -> None:
        try:
            value = kind(out[name])
        except (TypeError, ValueError):
            value = None
        if value is None or isinstance(out[name], bool) or value < low:
            what = "a whole number" if kind is int else "a number"
            raise AgentSpecError(
                f"agent {spec.text!r}: {name} must be {what} >= {low}, got {out[name]!r}"
            )
        out[name] = value

    number("temperature", float, 0.0)
    number("retries", int, 0)
    number("max_tokens", int, 1)
    number("timeout", float, 0.001)
    number("parallel", int, 1)
    for name, allowed in (("fallback", FALLBACKS), ("schema", SCHEMA_MODES)):
        if out[name] not in allowed:
            raise AgentSpecError(
                f"agent {spec.text!r}: {name} must be one of {list(allowed)}, got {out[name]!r}"
            )
    url = out.get("base_url") or os.environ.get(BASE_URL_ENV) or os.environ.get("OPENAI_BASE_URL")
    out["base_url"] = str(url or DEFAULT_BASE_URL).rstrip("/")
    if not re.match(r"https?://", out["base_url"]):
        raise AgentSpecError(
            f"agent {spec.text!r}: base_url must be an http(s) URL, got {out['base_url']!r}"
        )
    return out


def read_template(path: str | os.PathLike, where: str = "") -> tuple[str, str]:
    """(system, user) message templates from a file: the user message, or the system
    message, a line `---`, and the user message. Fields other than `FIELDS` are refused."""
    try:
        text = Path(path).expanduser().read_text()
    except OSError as err:
        raise AgentSpecError(f"{where}template {path!r} cannot be read: {err}") from None
    parts = re.split(r"^---[ \t]*$\n?", text, maxsplit=1, flags=re.M)
    system, user = (parts[0].strip(), parts[1].strip()) if len(parts) == 2 else (SYSTEM, text)
    dummy = {name: "" for name in FIELDS}
    for part in (system, user):
        try:
            part.format_map(dummy)
        except (KeyError, IndexError, ValueError) as err:
            raise AgentSpecError(
                f"{where}template {path!r}: {type(err).__name__}: {err}; its fields are "
                f"{', '.join('{' + f + '}' for f in FIELDS)} (write a brace as {{{{ or }}}})"
            ) from None
    return system, user


class LLMAgent(Agent):
    """A language model at an OpenAI-compatible endpoint, asked for each move in words (see
    the module doc). It reads each position's state row only through the game's view of
    the seat to act (`views_only`): it sees what that seat sees, no hidden card."""

    wants_rows = True
    views_only = True  # reads rows through `Game.view_text` / `legal_moves` only

    def __init__(self, game: Game, spec: AgentSpec, seed: int | None = None) -> None:
        if not spec.args or not all(spec.args):
            raise AgentSpecError(f"agent {spec.text!r} needs a model: llm:MODEL[:KEY=VALUE...]")
        self.game = game
        self.spec = spec.text
        self.model = ":".join(spec.args)
        self.name = f"llm:{self.model}"
        opts = _options(spec)
        self.base_url: str = opts["base_url"]
        self.key_env: str = str(opts["key_env"])
        self.temperature: float = opts["temperature"]
        self.retries: int = opts["retries"]
        self.fallback: str = opts["fallback"]
        self.schema: str = opts["schema"]
        self.max_tokens: int = opts["max_tokens"]
        self.timeout: float = opts["timeout"]
        self.parallel: int = opts["parallel"]
        self.log: str | None = str(opts["log"]) if opts.get("log") else None
        self.system, self.user = SYSTEM, USER
        if opts.get("template"):
            self.system, self.user = read_template(opts["template"], f"agent {spec.text!r}: ")
        # the form of `response_format` the server took (None: none); UNKNOWN until asked
        self.format: str | None = None if self.schema == "off" else UNKNOWN
        self.counts = Counts()
        self.reseed(seed)

    def reseed(self, seed: int | None) -> None:
        self._rng = np.random.default_rng(seed)

    # --- decisions ----------------------------------------------------------------------
    def act_rows(self, rows: np.ndarray, masks: np.ndarray) -> np.ndarray:
        seeds = self._rng.integers(0, 2**63 - 1, size=len(rows)).tolist()
        jobs = list(zip(rows, masks, seeds, strict=True))
        if self.parallel > 1 and len(jobs) > 1:
            with ThreadPoolExecutor(min(self.parallel, len(jobs))) as pool:
                decisions = list(pool.map(lambda job: self.decide(*job), jobs))
        else:
            decisions = [self.decide(*job) for job in jobs]
        delta = Counts()
        for d in decisions:
            delta.add(d.counts)
        self.counts.add(delta)
        _add_to_process_stats(self.spec, delta)
        if self.log:
            self._write_log(decisions)
        return np.array([d.move for d in decisions], dtype=np.int64)

    def prompt(self, row: np.ndarray) -> list[dict]:
        """The first two messages of a decision in `row`: system and user."""
        seat = int(row[layout.PLAYER])
        return messages(
            self.game, seat, self.game.view_text(row, seat), self.game.legal_moves(row),
            self.system, self.user,
        )  # fmt: skip

    def decide(self, row: np.ndarray, mask: np.ndarray, seed: int) -> _Decision:
        """One decision in `row`: ask, read, ask again, then the fallback."""
        rng = np.random.default_rng(seed)
        legal = np.flatnonzero(mask)
        d = _Decision(self.prompt(row))
        d.counts.decisions = 1
        messages = list(d.messages)
        last_error = ""
        for _ in range(self.retries + 1):
            try:
                text = self._complete(messages, legal.tolist(), int(rng.integers(2**31)), d)
            except _Transient as err:
                d.counts.http_errors += 1
                last_error = str(err)
                d.answers.append({"http_error": last_error})
                continue
            d.counts.answers += 1
            try:
                move = self.read(row, mask, text)
            except ValueError as err:
                d.counts.illegal += 1
                d.answers.append({"text": text, "error": str(err)})
                messages += [
                    {"role": "assistant", "content": text},
                    {"role": "user", "content": RETRY.format(error=err)},
                ]
                continue
            d.answers.append({"text": text, "move": move})
            d.move = move
            break
        else:
            if not d.counts.answers:
                raise LLMError(
                    f"agent {self.spec!r}: no answer from {self.base_url} in "
                    f"{self.retries + 1} tries: {last_error}"
                )
            d.fallback = True
            d.counts.fallbacks = 1
            d.move = self._fallback(legal, mask, d, rng)
        d.messages = messages
        return d

    def read(self, row: np.ndarray, mask: np.ndarray, text: str) -> int:
        """The legal action `text` names (`Game.parse_action`: an id, JSON, a move's
        words), or in a longer answer the last JSON object that names one; else the
        ValueError of the whole text, which lists the legal moves."""
        try:
            action = self.game.parse_action(row, text)
        except ValueError as whole:
            for found in reversed(re.findall(r"\{[^{}]*\}", text)):
                if found.strip() == text.strip():
                    continue
                try:
                    action = self.game.parse_action(row, found)
                    break
                except ValueError:
                    continue
            else:
                raise whole from None
        if not 0 <= action < len(mask) or not mask[action]:  # parse_action gives legal ones
            raise ValueError(f"move {action} is not legal here")
        return int(action)

    def _fallback(self, legal: np.ndarray, mask: np.ndarray, d: _Decision, rng) -> int:
        if self.fallback == "random":
            return int(rng.choice(legal))
        said = [a.get("text") for a in d.answers if "text" in a]
        if self.fallback == "raise":
            raise LLMError(
                f"agent {self.spec!r}: no legal answer in {self.retries + 1} tries; the "
                f"model said {said!r}"
            )
        for text in reversed(said):  # illegal: the id it named, if it named one in range
            m = re.search(r"-?\d+", text or "")
            if m and 0 <= int(m.group()) < len(mask) and not mask[int(m.group())]:
                return int(m.group())
        illegal = np.flatnonzero(mask == 0)
        if not len(illegal):
            raise LLMError(
                f"agent {self.spec!r}: no legal answer, and every action is legal here, so "
                f"no illegal one can be played; the model said {said!r}"
            )
        return int(illegal[0])

    # --- HTTP ---------------------------------------------------------------------------
    def _complete(self, messages: list[dict], legal: list[int], seed: int, d: _Decision) -> str:
        """The model's answer to `messages`, with the schema of the legal ids as asked: in
        the form the server took before, else each form in turn until one is answered."""
        body = {
            "model": self.model,
            "messages": messages,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "seed": seed,
        }
        if self.format != UNKNOWN:
            return self._ask(body, legal, self.format)
        with _PROBING:  # one decision at a time finds the form (`parallel`)
            if self.format != UNKNOWN:
                return self._ask(body, legal, self.format)
            forms = [*SCHEMA_FORMS, None] if self.schema == "auto" else list(SCHEMA_FORMS)
            refusals = []
            for form in forms:
                try:
                    text = self._post(with_format(body, legal, form))
                except _Status as err:
                    if err.status not in FORM_REFUSED or form is None:
                        raise self._error(err) from None
                    refusals.append(str(err))
                    d.counts.schema_refused += 1
                    continue
                self.format = form
                return text
            raise LLMError(
                f"agent {self.spec!r}: schema=on, and the server took no form of "
                f"`response_format` ({', '.join(SCHEMA_FORMS)}): {refusals[-1]}"
            )

    def _ask(self, body: dict, legal: list[int], form: str | None) -> str:
        try:
            return self._post(with_format(body, legal, form))
        except _Status as err:
            raise self._error(err) from None

    def _error(self, err: _Status) -> Exception:
        """A status worth asking again as `_Transient`, any other as `LLMError`."""
        if err.status in TRANSIENT:
            return _Transient(str(err))
        return LLMError(f"agent {self.spec!r}: {err}")

    def _post(self, body: dict) -> str:
        url = f"{self.base_url}/chat/completions"
        request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST")
        request.add_header("Content-Type", "application/json")
        key = os.environ.get(self.key_env)
        if key:
            request.add_header("Authorization", f"Bearer {key}")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                data = json.loads(response.read())
        except urllib.error.HTTPError as err:
            said = err.read().decode(errors="replace")[:500]
            raise _Status(err.code, f"{url} answered HTTP {err.code}: {said}") from None
        except (urllib.error.URLError, OSError, TimeoutError, ValueError) as err:
            raise _Transient(f"{url}: {type(err).__name__}: {err}") from None
        try:
            content = data["choices"][0]["message"].get("content")
        except (KeyError, IndexError, TypeError, AttributeError):
            raise _Transient(f"{url} answered no choices: {str(data)[:300]}") from None
        return content if isinstance(content, str) else ""

    # --- transcripts --------------------------------------------------------------------
    def _write_log(self, decisions: list[_Decision]) -> None:
        path = process_path(self.log)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a") as f:
            for d in decisions:
                record = {
                    "spec": self.spec,
                    "env_id": self.game.env_id,
                    "model": self.model,
                    "messages": d.messages,
                    "answers": d.answers,
                    "move": d.move,
                    "fallback": d.fallback,
                    "schema": self.format if self.format != UNKNOWN else None,
                    "illegal": d.counts.illegal,
                    "http_errors": d.counts.http_errors,
                }
                f.write(json.dumps(record) + "\n")


def messages(
    game: Game, seat: int, view: str, moves: list[dict], system: str = SYSTEM, user: str = USER
) -> list[dict]:
    """The system and user messages of a decision: `seat`'s `view` (`Game.view_text`) and
    its legal `moves` (`Game.legal_moves`), in the templates' words. `dataset --format text`
    writes the same messages, so that a model tuned on them is asked as it learnt."""
    fields = {
        "title": game.title,
        "env_id": game.env_id,
        "seat": agent_name(seat),
        "rules": game.rules_summary.strip(),
        "view": view,
        "moves": "\n".join(f"{m['id']}: {m['text']}" for m in moves),
        "answer": ANSWER,
    }
    return [
        {"role": "system", "content": system.format_map(fields)},
        {"role": "user", "content": user.format_map(fields)},
    ]


def answer_text(move: int) -> str:
    """The answer the prompt asks for, for a chosen move."""
    return json.dumps({"move": int(move)})


def move_schema(legal: list[int], form: str = "json_schema") -> dict:
    """The `response_format` that allows only `{"move": ID}` with ID a legal id, in one of
    the `SCHEMA_FORMS`."""
    schema = {
        "type": "object",
        "properties": {"move": {"type": "integer", "enum": [int(a) for a in legal]}},
        "required": ["move"],
        "additionalProperties": False,
    }
    if form == "json_object":
        return {"type": "json_object", "schema": schema}
    return {
        "type": "json_schema",
        "json_schema": {"name": "move", "strict": True, "schema": schema},
    }


def with_format(body: dict, legal: list[int], form: str | None) -> dict:
    """The request `body` asking for `form` of constrained output (None: free text)."""
    return body if form is None else {**body, "response_format": move_schema(legal, form)}


def process_path(path: str | os.PathLike) -> Path:
    """`path` with this process's id before its suffix: one file per process."""
    p = Path(path)
    return p.with_name(f"{p.stem}.{os.getpid()}{p.suffix}")


def make_llm_agent(spec: AgentSpec, game: Game, seed: int | None) -> LLMAgent:
    return LLMAgent(game, spec, seed)


# --- counts across processes -------------------------------------------------------------
_process_counts: dict[str, Counts] = {}
_process_key: tuple[int, str] | None = None


def _add_to_process_stats(spec: str, delta: Counts) -> None:
    """Add `delta` to this process's counts of `spec` and write them all to its file in
    `$CARD_ENVS_LLM_STATS` (nothing when that is unset)."""
    global _process_key
    folder = os.environ.get(STATS_ENV)
    if not folder:
        return
    key = (os.getpid(), folder)
    if _process_key != key:  # a forked worker starts afresh, and so does a new run
        _process_counts.clear()
        _process_key = key
    _process_counts.setdefault(spec, Counts()).add(delta)
    path = Path(folder) / f"llm-{os.getpid()}.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({s: asdict(c) for s, c in _process_counts.items()}))
    os.replace(tmp, path)


class Usage(dict):
    """The counts of a run by spec (`usage_counts`), summed over its processes."""

    def read(self, folder: str | os.PathLike) -> None:
        for path in sorted(Path(folder).glob("llm-*.json")):
            for spec, counts in json.loads(path.read_text()).items():
                self.setdefault(spec, Counts()).add(Counts(**counts))

    def total(self) -> Counts:
        out = Counts()
        for counts in self.values():
            out.add(counts)
        return out


@contextmanager
def usage_counts() -> Iterator[Usage]:
    """Count what the `llm:` agents of a run ask, in this process and in every process it
    starts: `with usage_counts() as usage: evaluate(...)`, then `usage[spec]` (a `Counts`)
    once the block has ended."""
    old = os.environ.get(STATS_ENV)
    usage = Usage()
    with tempfile.TemporaryDirectory(prefix="card_envs_llm_") as folder:
        os.environ[STATS_ENV] = folder
        try:
            yield usage
        finally:
            if old is None:
                os.environ.pop(STATS_ENV, None)
            else:
                os.environ[STATS_ENV] = old
            usage.read(folder)


def endpoint(spec: AgentSpec) -> tuple[str, str]:
    """(model, base URL) of an `llm:` spec, the URL as the agent would resolve it here."""
    return ":".join(spec.args), _options(spec)["base_url"]

"""The `llm:` agent: its spec, and its whole path (prompt, HTTP, constrained or free answer,
reading, retries, fallback, transcripts, counters) against a scripted server in this
process, where each test decides every answer; then against a real OpenAI-compatible server
(`transformers serve`, the `llm` extra) with a tiny model built here
(`card_envs.testing.tiny_llm`), through `evaluate` for every game, a tournament and the
browser app."""

from __future__ import annotations

import json
import os
import re
import threading
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

import card_envs
from card_envs.agents import LLMAgent, make_agent
from card_envs.agents.llm import (
    ANSWER,
    STATS_ENV,
    Counts,
    LLMError,
    move_schema,
    process_path,
    usage_counts,
)
from card_envs.agents.specs import AgentSpecError, parse_spec, spec_digest
from card_envs.core import layout
from card_envs.evaluation import evaluate
from card_envs.registry import batched_env_ids, make_game

NO_THANKS = {"num_players": 3}
LISTED = re.compile(r"^\s*(\d+): ", re.M)


# --- a scripted server ----------------------------------------------------------------------
def first_listed(body: dict) -> str:
    """A legal answer: the first id listed in the last message that lists moves."""
    for message in reversed(body["messages"]):
        ids = LISTED.findall(message["content"])
        if message["role"] == "user" and ids:
            return json.dumps({"move": int(ids[0])})
    raise AssertionError("no message lists the moves")


class Scripted:
    """What the server answers: `script` in order (a str is the answer's content, an int an
    HTTP error status, a callable maps the request body to a content), then `default`."""

    def __init__(self, script=(), default=first_listed) -> None:
        self.script = list(script)
        self.default = default
        self.requests: list[tuple[dict, dict]] = []  # (body, headers)
        self.lock = threading.Lock()

    def answer(self, body: dict, headers: dict) -> tuple[int, dict]:
        with self.lock:
            self.requests.append((body, headers))
            step = self.script.pop(0) if self.script else self.default
        if callable(step):
            step = step(body)
        if isinstance(step, int):
            return step, {"error": {"message": f"scripted error {step}"}}
        return 200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": step}}]}


@pytest.fixture
def server():
    """A chat-completions endpoint in a thread of this process: (url, scripted answers)."""
    scripted = Scripted()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if self.path != "/v1/chat/completions":
                status, data = 404, {"error": "no such path"}
            else:
                status, data = scripted.answer(body, dict(self.headers))
            raw = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", scripted
    finally:
        httpd.shutdown()
        httpd.server_close()


def position(env_id: str = "no_thanks_v0", seed: int = 1, **config):
    """A dealt game's (game, row, mask of the seat to act)."""
    game = make_game(env_id, **(config or NO_THANKS))
    row = game.new_row()
    game.reset_row(row, seed)
    return game, row, mask_of(game, row)


def mask_of(game, row) -> np.ndarray:
    mask = np.zeros(game.num_actions, dtype=np.int8)
    type(game).legal_kernel(row, mask)
    return mask


def agent(url: str, options: str = "", env_id: str = "no_thanks_v0", seed=0, **config):
    spec = f"llm:tiny{options}:base_url={url}"
    return make_agent(spec, env_id, seed=seed, **(config or NO_THANKS))


def one_move(a: LLMAgent, game, row, mask) -> int:
    return int(a.act_rows(row[None], mask[None])[0])


# --- the spec -------------------------------------------------------------------------------
def test_the_spec_takes_a_model_with_colons_a_url_last_and_checked_options(tmp_path, monkeypatch):
    spec = parse_spec("llm:qwen2.5:7b:temperature=0.2:base_url=http://host:8080/v1")
    assert spec.args == ("qwen2.5", "7b")
    assert spec.option_dict == {"temperature": "0.2", "base_url": "http://host:8080/v1"}
    built = make_agent(spec, "no_thanks_v0", **NO_THANKS)
    assert isinstance(built, LLMAgent) and built.model == "qwen2.5:7b"
    assert built.base_url == "http://host:8080/v1" and built.temperature == 0.2
    assert built.wants_rows and built.views_only
    # YAML options: typed, and the URL still ends the spec's text, which parses back
    yaml = parse_spec("llm:m", {"base_url": "http://h:1/v1", "retries": 0, "schema": "off"})
    assert yaml.text == "llm:m:retries=0:schema=off:base_url=http://h:1/v1"
    assert parse_spec(yaml.text).option_dict == {
        "retries": "0", "schema": "off", "base_url": "http://h:1/v1"
    }  # fmt: skip
    again = make_agent(yaml, "no_thanks_v0", **NO_THANKS)
    assert (again.retries, again.schema, again.fallback) == (0, "off", "random")
    for bad, why in [
        ("llm", "needs a model"),
        ("llm:m:fallback=guess", "fallback must be one of"),
        ("llm:m:schema=maybe", "schema must be one of"),
        ("llm:m:temperature=hot", "temperature must be a number >= 0.0"),
        ("llm:m:retries=-1", "retries must be a whole number >= 0"),
        ("llm:m:seed=3", "unknown options"),
        ("llm:m:base_url=ftp://x", "base_url must be an http"),
    ]:
        with pytest.raises(AgentSpecError, match=why):
            make_agent(bad, "no_thanks_v0", **NO_THANKS)
    # a relative template or log is made absolute for workers; the template is its digest
    (tmp_path / "t.txt").write_text("{view}\n{moves}")
    monkeypatch.chdir(tmp_path)
    portable = parse_spec("llm:m:template=t.txt:log=out/t.jsonl").portable()
    assert portable.option_dict == {
        "template": str(tmp_path / "t.txt"), "log": str(tmp_path / "out/t.jsonl")
    }  # fmt: skip
    digest = spec_digest("llm:m:template=t.txt", "no_thanks_v0")
    assert digest and spec_digest("llm:m", "no_thanks_v0") == ""
    (tmp_path / "t.txt").write_text("{view}\n\n{moves}")
    assert spec_digest("llm:m:template=t.txt", "no_thanks_v0") != digest


def test_the_url_and_key_come_from_the_environment(server, monkeypatch):
    url, scripted = server
    monkeypatch.setenv("CARD_ENVS_LLM_BASE_URL", url)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    game, row, mask = position()
    a = make_agent("llm:tiny", "no_thanks_v0", **NO_THANKS)
    assert a.base_url == url
    one_move(a, game, row, mask)
    assert "Authorization" not in scripted.requests[-1][1]  # no key: none sent
    monkeypatch.setenv("MY_KEY", "sk-test")
    one_move(make_agent("llm:tiny:key_env=MY_KEY", "no_thanks_v0", **NO_THANKS), game, row, mask)
    assert scripted.requests[-1][1]["Authorization"] == "Bearer sk-test"


# --- one decision ---------------------------------------------------------------------------
def test_the_prompt_shows_the_seats_view_and_moves_and_asks_for_the_legal_ids(server):
    url, scripted = server
    game, row, mask = position()
    a = agent(url, ":temperature=0.5:max_tokens=7", seed=3)
    move = one_move(a, game, row, mask)
    body, _ = scripted.requests[0]
    seat = int(row[layout.PLAYER])
    system, user = body["messages"]
    assert game.rules_summary.strip() in system["content"] and ANSWER in system["content"]
    assert game.view_text(row, seat) in user["content"]
    legal = game.legal_moves(row)
    for m in legal:
        assert f"{m['id']}: {m['text']}" in user["content"]
    assert body["model"] == "tiny" and body["temperature"] == 0.5 and body["max_tokens"] == 7
    assert body["response_format"] == move_schema([m["id"] for m in legal])
    assert body["response_format"]["json_schema"]["schema"]["properties"]["move"]["enum"] == [
        int(i) for i in np.flatnonzero(mask)
    ]
    assert move == legal[0]["id"]
    assert a.counts == Counts(decisions=1, answers=1)


@pytest.mark.parametrize(
    "answer",
    [
        "take 8 (0 tokens)",  # the move's words
        "0",  # its id
        '{"move": "take 8 (0 tokens)"}',
        'I take it.\n```json\n{"move": 0}\n```',  # JSON inside a longer answer
    ],
)
def test_an_answer_is_read_as_an_id_json_or_words(server, answer):
    url, scripted = server
    game, row, mask = position()
    assert game.legal_moves(row)[0] == {"id": 0, "text": "take 8 (0 tokens)"}
    scripted.script = [answer]
    assert one_move(agent(url), game, row, mask) == 0


def test_an_illegal_answer_is_told_the_legal_moves_and_asked_again(server):
    url, scripted = server
    game, row, mask = position()
    scripted.script = ["I pass", '{"move": 99}']
    a = agent(url)
    assert one_move(a, game, row, mask) == 0  # the third answer: the first legal id
    assert a.counts == Counts(decisions=1, answers=3, illegal=2)
    third = scripted.requests[2][0]["messages"]
    assert [m["role"] for m in third] == [
        "system",
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
    ]
    assert third[2]["content"] == "I pass" and third[4]["content"] == '{"move": 99}'
    assert (
        "not a legal move" in third[3]["content"] and "0: take 8 (0 tokens)" in third[3]["content"]
    )


def test_no_legal_answer_in_k_retries_plays_a_seeded_random_move(server):
    url, scripted = server
    game, row, mask = position()
    scripted.default = lambda body: "zzz"
    moves = []
    for seed in range(8):
        a = agent(url, ":retries=1", seed=seed)
        moves.append(one_move(a, game, row, mask))
        assert a.counts == Counts(decisions=1, answers=2, illegal=2, fallbacks=1)
        assert mask[moves[-1]]
    assert len(set(moves)) == 2  # both legal moves come up, from the agent's own stream
    again = [one_move(agent(url, ":retries=1", seed=s), game, row, mask) for s in range(8)]
    assert again == moves
    assert len(scripted.requests) == 2 * 16


def test_fallback_illegal_hands_the_env_its_illegal_move(server):
    url, scripted = server
    surf = {"num_players": 2}
    scripted.default = lambda body: '{"move": 5}'  # in range, not legal in this deal
    env = card_envs.make("surfosaurus_max_v0", illegal_action="penalize", **surf)
    env.reset(seed=1)
    a = agent(url, ":retries=0:fallback=illegal", "surfosaurus_max_v0", **surf)
    offender = env.agent_selection
    mask = env.observe(offender)["action_mask"]
    assert not mask[5]
    action = one_move(a, env.unwrapped.game, env.unwrapped._row, mask)
    assert action == 5 and a.counts == Counts(decisions=1, answers=1, illegal=1, fallbacks=1)
    env.step(action)  # the env's illegal_action mode decides: -1 and the game is over
    assert env.rewards[offender] == -1 and all(env.terminations.values())
    # the arena refuses an illegal action: evaluate stops, naming the agent
    with pytest.raises(ValueError, match="chose illegal action 5"):
        evaluate(
            "surfosaurus_max_v0",
            [f"llm:tiny:retries=0:fallback=illegal:base_url={url}", "random"],
            games=2,
            workers=1,
            progress=False,
            **surf,
        )
    scripted.default = lambda body: "zzz"  # no id at all: the lowest illegal one
    game, row, mask = position("surfosaurus_max_v0", **surf)
    got = one_move(agent(url, ":retries=0:fallback=illegal", "surfosaurus_max_v0", **surf),
                   game, row, mask)  # fmt: skip
    assert got == int(np.flatnonzero(mask == 0)[0])


def test_fallback_raise_names_the_answers(server):
    url, scripted = server
    game, row, mask = position()
    scripted.default = lambda body: "no idea"
    with pytest.raises(LLMError, match=r"no legal answer in 2 tries; the model said \['no idea'"):
        one_move(agent(url, ":retries=1:fallback=raise"), game, row, mask)


def test_http_errors_are_counted_and_retried_and_no_answer_at_all_is_an_error(server):
    url, scripted = server
    game, row, mask = position()
    scripted.script = [500, 503]  # (free text: a 500 to a request with a schema could be a
    a = agent(url, ":schema=off")  # refusal of its form: the schema tests)
    assert one_move(a, game, row, mask) == 0
    assert a.counts == Counts(decisions=1, answers=1, http_errors=2)
    scripted.script = [502, 503, 504]
    with pytest.raises(LLMError, match=r"no answer from .* in 3 tries: .*HTTP 504"):
        one_move(agent(url), game, row, mask)
    scripted.script = [401]  # a refusal is not asked again
    with pytest.raises(LLMError, match="HTTP 401: .*scripted error 401"):
        one_move(agent(url), game, row, mask)
    assert not scripted.script
    closed = url.rsplit(":", 1)[0] + ":9/v1"  # nothing listens on port 9
    with pytest.raises(LLMError, match="no answer from http://127.0.0.1:9/v1 in 1 tries"):
        one_move(agent(closed, ":retries=0"), game, row, mask)


def form_of(body: dict) -> str | None:
    return body.get("response_format", {}).get("type")


@pytest.mark.parametrize("refusal", [400, 422, 500])
def test_schema_auto_finds_the_form_the_server_takes_and_keeps_it(server, refusal):
    url, scripted = server
    game, row, mask = position()

    def takes(*forms):
        def answer(body):
            return first_listed(body) if form_of(body) in forms else refusal

        return answer

    scripted.default = takes("json_object")  # llama-cpp-python's server's form
    a = agent(url)
    assert one_move(a, game, row, mask) == 0 and one_move(a, game, row, mask) == 0
    assert [form_of(b) for b, _ in scripted.requests] == ["json_schema", "json_object"] * 1 + [
        "json_object"
    ]
    assert a.format == "json_object" and a.counts == Counts(
        decisions=2, answers=2, schema_refused=1
    )
    assert scripted.requests[1][0]["response_format"] == move_schema([0, 1], "json_object")
    scripted.requests.clear()
    scripted.default = takes(None)  # no form at all: auto asks for free text from then on
    b = agent(url)
    assert one_move(b, game, row, mask) == 0 and one_move(b, game, row, mask) == 0
    assert [form_of(b) for b, _ in scripted.requests] == ["json_schema", "json_object", None, None]
    assert b.format is None and b.counts.schema_refused == 2
    with pytest.raises(LLMError, match="schema=on, and the server took no form"):
        one_move(agent(url, ":schema=on"), game, row, mask)
    scripted.requests.clear()
    one_move(agent(url, ":schema=off"), game, row, mask)
    assert [form_of(b) for b, _ in scripted.requests] == [None]
    scripted.default = takes("json_schema")  # OpenAI's form, the first asked
    c = agent(url)
    one_move(c, game, row, mask)
    assert c.format == "json_schema" and c.counts.schema_refused == 0


def test_an_error_after_the_form_is_known_is_an_error_again(server):
    url, scripted = server
    game, row, mask = position()
    a = agent(url)
    one_move(a, game, row, mask)
    assert a.format == "json_schema"
    scripted.script = [500, 422]  # a transient error is asked again; a refusal stops
    with pytest.raises(LLMError, match="HTTP 422"):
        one_move(a, game, row, mask)
    assert [form_of(b) for b, _ in scripted.requests] == ["json_schema"] * 3


def test_a_template_words_the_prompt_and_a_bad_one_is_refused(server, tmp_path):
    url, scripted = server
    game, row, mask = position()
    (tmp_path / "t.txt").write_text("Play {title} as {seat}. {answer}\n---\n{view}\n{moves}\n")
    one_move(agent(url, f":template={tmp_path / 't.txt'}"), game, row, mask)
    system, user = scripted.requests[0][0]["messages"]
    seat = int(row[layout.PLAYER])
    assert system["content"] == f"Play No Thanks! as player_{seat}. {ANSWER}"
    assert user["content"].startswith(game.view_text(row, seat)) and "0: take 8" in user["content"]
    (tmp_path / "bad.txt").write_text("{view} {hand}")
    with pytest.raises(AgentSpecError, match=r"'hand'.*its fields are \{title\}"):
        agent(url, f":template={tmp_path / 'bad.txt'}")


def test_transcripts_are_jsonl_one_file_per_process(server, tmp_path):
    url, scripted = server
    game, row, mask = position()
    scripted.script = ["zzz"]
    log = tmp_path / "t.jsonl"
    a = agent(url, f":log={log}")
    one_move(a, game, row, mask)
    one_move(a, game, row, mask)
    path = process_path(log)
    assert path.name == f"t.{os.getpid()}.jsonl"
    first, second = [json.loads(line) for line in path.read_text().splitlines()]
    assert first["spec"] == a.spec and first["env_id"] == "no_thanks_v0"
    assert first["model"] == "tiny" and first["move"] == 0 and not first["fallback"]
    assert first["illegal"] == 1 and first["http_errors"] == 0
    assert first["answers"][0]["text"] == "zzz"
    assert "'zzz' is not a legal move here" in first["answers"][0]["error"]
    assert first["answers"][1] == {"text": '{"move": 0}', "move": 0}
    assert [m["role"] for m in first["messages"]] == ["system", "user", "assistant", "user"]
    assert second["illegal"] == 0 and len(second["messages"]) == 2


def test_parallel_asks_give_the_same_moves(server):
    url, scripted = server

    def some_garbage(body):  # the answer depends on the position alone
        view = body["messages"][1]["content"]
        return "zzz" if zlib.crc32(view.encode()) % 2 else first_listed(body)

    scripted.default = some_garbage
    game = make_game("no_thanks_v0", **NO_THANKS)
    rows = np.stack([position(seed=s)[1] for s in range(12)])
    masks = np.stack([mask_of(game, r) for r in rows])
    one = agent(url, ":retries=0", seed=5).act_rows(rows, masks)
    many = agent(url, ":retries=0:parallel=4", seed=5)
    assert many.act_rows(rows, masks).tolist() == one.tolist()
    assert many.counts.decisions == 12 and 0 < many.counts.fallbacks < 12


# --- the harnesses --------------------------------------------------------------------------
def hashed(body):
    """Garbage for a decision whose position hashes odd, then legal on the retry: the counts
    depend on the games alone, not on which process asked first."""
    if len(body["messages"]) == 2 and zlib.crc32(body["messages"][1]["content"].encode()) % 2:
        return "zzz"
    return first_listed(body)


def test_counts_come_back_from_evaluates_worker_processes(server):
    url, scripted = server
    scripted.default = hashed
    spec = f"llm:tiny:base_url={url}"
    assert STATS_ENV not in os.environ
    with usage_counts() as usage:
        ev = evaluate("no_thanks_v0", [spec, "random", "random"], games=6, workers=2,
                      chunk_games=3, progress=False, **NO_THANKS)  # fmt: skip
    assert STATS_ENV not in os.environ
    counts = usage[spec]
    moves = int(ev.results.moves[ev.results.agent_of_seat == 0].sum())
    # every decision of the games, and those of the pool's warm-up games (discarded)
    assert counts.decisions >= moves > 0
    assert counts.illegal > 0 and counts.fallbacks == 0
    assert counts.answers == counts.decisions + counts.illegal


@pytest.mark.parametrize("env_id", sorted(set(batched_env_ids())))
def test_every_env_id_is_played_to_the_end_through_evaluate(server, env_id):
    url, scripted = server
    scripted.default = hashed
    config = {**GAMES.get(env_id, {}), **({"max_placements": 7} if "rummidrez" in env_id else {})}
    n = config.get("num_players", make_game(env_id, **config).num_players)
    spec = f"llm:tiny:retries=0:base_url={url}"
    with usage_counts() as usage:
        ev = evaluate(env_id, [spec] + ["random"] * (n - 1), games=n, workers=1,
                      progress=False, **config)  # fmt: skip
    counts = usage[spec]
    assert counts.decisions == ev.results.moves[ev.results.agent_of_seat == 0].sum() > 0
    assert 0 < counts.fallbacks == counts.illegal < counts.answers == counts.decisions


def test_the_bench_scorecard_names_the_model_and_its_illegal_answers(server, tmp_path):
    from card_envs.bench import CELLS, Settings, bench
    from card_envs.bench.scorecard import Scorecard

    url, scripted = server
    scripted.default = hashed
    cells = [
        c.__class__(c.env_id, c.config, c.panel, c.kind, size=6)
        for c in CELLS
        if c.env_id in ("no_thanks_v0", "double_or_nothing_run_v0")
        and c.options.get("num_players", 3) == 3
        and c.options.get("stage", 1) == 1
        and c.panel == "random"
    ]
    assert {c.env_id for c in cells} == {"no_thanks_v0", "double_or_nothing_run_v0"}
    spec = f"llm:tiny:base_url={url}"
    card = bench(spec, cells=cells, settings=Settings(db=str(tmp_path / "b.sqlite"), workers=1),
                 echo=lambda _: None)  # fmt: skip
    assert not card.reads_rows  # its rows only through the seat's view
    assert [s.cell.env_id for s in card.skipped] == ["double_or_nothing_run_v0"]
    m = card.language_model
    assert m["model"] == "tiny" and m["base_url"] == url
    assert m["decisions"] == sum(len(b["messages"]) == 2 for b, _ in scripted.requests)
    assert m["answers"] == len(scripted.requests) == m["decisions"] + m["illegal"]
    text = card.markdown()
    rate = 100 * m["illegal"] / m["answers"]
    assert (
        f"- language model `tiny` at {url}: illegal answers {m['illegal']} of {m['answers']} "
        f"({rate:.1f}%); 0 of {m['decisions']} decisions played by its fallback" in text
    )
    assert "plays from its seat's view in words only" in text
    assert isinstance(card, Scorecard) and card.as_dict()["language_model"] == m
    # a rerun reads every game from the store: no answers in this run
    again = bench(spec, cells=cells, settings=Settings(db=str(tmp_path / "b.sqlite"), workers=1),
                  echo=lambda _: None)  # fmt: skip
    assert again.played == 0 and "no answers in this run" in again.markdown()


def test_a_person_plays_a_model_in_the_browser(server):
    from tests.helpers_web import start_app

    url, scripted = server
    scripted.default = lambda body: json.dumps(
        {"move": int(LISTED.findall(body["messages"][-1]["content"])[-1])}
    )  # the last move listed: no thanks, mostly
    app, httpd, client = start_app(agents={"model": f"llm:tiny:base_url={url}"})
    try:
        status, data = client.json("GET", "/api/games")
        assert "model" in {g["env_id"]: g["agents"] for g in data["games"]}["no_thanks_v0"]
        assert not scripted.requests  # listing the games asks the model nothing
        body = {"env_id": "no_thanks_v0", "config": NO_THANKS, "seed": 2,
                "agents": ["model", "human", "model"]}  # fmt: skip
        status, data = client.json("POST", "/api/matches", body)
        assert status == 200, data
        match = app.sessions.get(data["id"])
        moved = len(match.moves)
        assert match.to_act == 1 and moved == len(scripted.requests) >= 1  # seat 0 moved
        legal = match.legal()
        status, data = client.json("POST", f"/api/matches/{data['id']}/play",
                                   {"action": int(legal[0])})  # fmt: skip
        assert status == 200, data
        assert match.over or match.to_act == 1
        assert len(scripted.requests) == len(match.moves) - 1  # one answer a move of theirs
    finally:
        httpd.shutdown()
        httpd.server_close()


# --- a real server --------------------------------------------------------------------------
# every game at a config that ends in a few dozen of the model's decisions
GAMES = {
    "no_thanks_v0": {"num_players": 3},
    "surfosaurus_max_v0": {"num_players": 2},
    "double_or_nothing_v0": {"max_turns": 30},
    "rummidrez_v0": {"num_players": 2, "max_turns": 2, "max_placements": 7},
    "super_zwierzaki_v0": {"num_players": 2, "max_turns": 16},
}
TEMPLATE = "You play {title}. {answer}\n---\n{view}\nMoves:\n{moves}\n"  # a short prompt


@pytest.fixture(scope="module")
def real_server(tmp_path_factory):
    pytest.importorskip("transformers", reason="the llm extra: pip install -e '.[llm]'")
    from card_envs.testing.tiny_llm import start_server

    server = start_server(tmp_path_factory.mktemp("llm"))
    try:
        yield server
    finally:
        server.stop()


@pytest.mark.slow
def test_a_real_server_plays_every_game_through_evaluate_and_a_tournament(real_server, tmp_path):
    from card_envs.tournament import parse_config, run_tournament

    (tmp_path / "t.txt").write_text(TEMPLATE)
    log = tmp_path / "t.jsonl"
    spec = (
        f"llm:{real_server.model}:max_tokens=3:retries=1:template={tmp_path / 't.txt'}:"
        f"log={log}:base_url={real_server.url}"
    )
    total = Counts()
    for env_id, config in GAMES.items():
        n = config.get("num_players", 2)
        with usage_counts() as usage:
            ev = evaluate(env_id, [spec] + ["random"] * (n - 1), games=n, workers=1,
                          progress=False, **config)  # fmt: skip
        counts = usage[spec]
        moves = ev.results.moves[ev.results.agent_of_seat == 0].sum()
        assert ev.games == n and (ev.results.lengths > 0).all(), env_id
        assert counts.decisions == moves > 0, env_id  # every move legal: the arena checks
        # random weights, free text (transformers serve ignores `response_format`): every
        # answer is read; an illegal one is asked once more, then the fallback plays
        assert counts.http_errors == 0 and counts.answers == counts.decisions + counts.illegal - (
            counts.fallbacks
        ), env_id
        assert counts.illegal >= 2 * counts.fallbacks, env_id
        total.add(counts)
    records = [json.loads(line) for line in process_path(log).read_text().splitlines()]
    assert len(records) == total.decisions
    assert sum(r["fallback"] for r in records) == total.fallbacks
    assert sum(r["illegal"] for r in records) == total.illegal
    assert {r["env_id"] for r in records} == set(GAMES)
    assert all(r["messages"][0]["role"] == "system" for r in records)

    raw = {
        "name": "llm", "db": str(tmp_path / "t.sqlite"), "out": str(tmp_path / "out"),
        "progress": False, "workers": 1, "records": True,
        "events": [{
            "name": "nt", "env": "no_thanks_v0", "config": {"num_players": 3}, "games": 3,
            "agents": [
                {"name": "model", "spec": f"llm:{real_server.model}",
                 "options": {"max_tokens": 3, "retries": 0, "template": str(tmp_path / "t.txt"),
                             "base_url": real_server.url}},
                "heuristic", "random",
            ],
        }],
    }  # fmt: skip
    with usage_counts() as usage:
        result = run_tournament(parse_config(raw))
    assert result.played == 3
    assert "model" in {s.name for s in result.leaderboards[0].standings}
    assert usage.total().decisions > 0 and usage.total().answers == usage.total().decisions
    games = [json.loads(line) for line in (tmp_path / "out" / "nt.jsonl").read_text().splitlines()]
    assert len(games) == 3 and all(g["actions"] for g in games)

    # a person against the model in the browser app
    from tests.helpers_web import start_app

    app, httpd, client = start_app(agents={"model": spec})
    try:
        body = {"env_id": "surfosaurus_max_v0", "config": {"num_players": 2}, "seed": 1,
                "agents": ["model", "human"]}  # fmt: skip
        status, data = client.json("POST", "/api/matches", body)
        assert status == 200, data
        match = app.sessions.get(data["id"])
        assert match.moves and match.to_act == 1  # the model moved first
        status, data = client.json(
            "POST", f"/api/matches/{data['id']}/play", {"action": int(match.legal()[0])}
        )
        assert status == 200 and (match.over or match.to_act == 1), data
        assert [m["seat"] for m in match.moves][:3] == [0, 1, 0]
    finally:
        httpd.shutdown()
        httpd.server_close()

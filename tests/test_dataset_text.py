"""`card-envs dataset --format text`: one JSON line per decision, in words, for tuning a
language model: the seat's view, its legal moves, the move played, the `llm:` agent's
messages with the answer, the seat's reward in that game. No Minari needed."""

from __future__ import annotations

import json
import sys

import pytest

import card_envs
from card_envs import dataset
from card_envs.agents import llm
from card_envs.cli import main as cli_main

AGENTS = ["heuristic", "random", "random"]


def read(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_every_decision_is_a_line_that_replays_its_game(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "minari", None)  # the text format does without it
    cli_main(["dataset", "--env", "no_thanks_v0", "--agents", ",".join(AGENTS), "--games", "6",
              "--format", "text", "--out", str(tmp_path), "--name", "nt"])  # fmt: skip
    path = tmp_path / "no_thanks_v0" / "nt.jsonl"
    assert f"wrote {path}" in capsys.readouterr().out
    rows = read(path)
    records = dataset.played_records("no_thanks_v0", AGENTS, 6, seed=0, config={})
    assert len(rows) == sum(len(r["actions"]) for r in records)
    games: dict[int, list[dict]] = {}
    for row in rows:
        games.setdefault(row["seed"], []).append(row)
    assert sorted(games) == sorted(r["seed"] for r in records)
    for record in records:
        env = card_envs.make("no_thanks_v0", **record["config"])
        env.reset(seed=record["seed"])
        returns = dict.fromkeys(env.possible_agents, 0.0)
        lines = games[record["seed"]]
        for turn, (row, action) in enumerate(zip(lines, record["actions"], strict=True)):
            seat = env.agent_selection
            assert (row["turn"], row["seat"], row["move"]["id"]) == (turn, seat, action)
            assert row["agent"] == record["agents"][env.possible_agents.index(seat)]
            assert row["view"] == env.view() and row["view_text"] == env.view_text()
            assert row["legal_moves"] == env.legal_moves() and row["move"] in row["legal_moves"]
            env.step(action)
            for name in returns:
                returns[name] += env.rewards[name]
        assert all(row["reward"] == returns[row["seat"]] for row in lines)
        assert sum(returns.values()) == pytest.approx(1.0)  # the win's shares


def test_the_messages_are_the_llm_agents_with_the_answer_it_asks_for(tmp_path):
    record = dataset.played_records("no_thanks_v0", AGENTS, 1, seed=3, config={})[0]
    for row in dataset.text_records(record):
        system, user, answer = row["messages"]
        game = card_envs.make("no_thanks_v0").game
        seat = int(row["seat"].removeprefix("player_"))
        assert [system, user] == llm.messages(game, seat, row["view_text"], row["legal_moves"])
        assert game.rules_summary.strip() in system["content"]
        assert row["view_text"] in user["content"]
        assert all(f"{m['id']}: {m['text']}" in user["content"] for m in row["legal_moves"])
        assert answer == {"role": "assistant", "content": json.dumps({"move": row["move"]["id"]})}


def test_a_seats_view_holds_no_other_seats_tokens(tmp_path):
    """The views are the seat's own (public_tokens is off by default): another seat's
    tokens appear nowhere in its line."""
    record = dataset.played_records("no_thanks_v0", AGENTS, 1, seed=5, config={})[0]
    for row in dataset.text_records(record):
        others = [p for p in row["view"]["players"] if p["player"] != row["seat"]]
        assert others and all("tokens" not in p for p in others)
        assert "other players' tokens are hidden" in row["view_text"]


def test_one_text_dataset_holds_one_env(tmp_path):
    nt = dataset.played_records("no_thanks_v0", AGENTS, 1, seed=0, config={})
    don = dataset.played_records("double_or_nothing_v0", ["random", "random"], 1, 0, config={})
    with pytest.raises(ValueError, match="one text dataset holds one env"):
        dataset.write_text(nt + don, tmp_path, "mixed")

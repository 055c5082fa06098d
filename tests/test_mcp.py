"""`card-envs mcp` (card_envs/mcp_server.py) driven by the `mcp` SDK's own client over stdio:
the tools listed, a whole No Thanks game against heuristics played by the first legal move
with only the caller's seat in view, refusals (an illegal move leaves the game as it was,
an unknown id, a spec that runs code), an agent the server names, and a game of every id.

Nothing here waits on time: the client's read timeout is only a safety net (the first run
may compile the engines)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")

import anyio  # noqa: E402  (the SDK's dependency)
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

from card_envs.mcp_server import GameError, Tables, served_env_ids  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 300.0
TOOLS = {"list_games", "rules", "new_game", "view", "play", "end_game"}
# every id the server serves, with a small config and its opponents: each game well under a
# second when the caller plays its last legal move (the solo game's first one places and
# takes back for long)
GAMES = {
    "no_thanks_v0": ("heuristic", {}),
    "surfosaurus_max_v0": ("random", {}),
    "double_or_nothing_v0": ("computer", {"max_turns": 40}),
    "rummidrez_v0": ("heuristic", {"max_turns": 4}),
    "rummidrez_solo_v0": ([], {}),
    "super_zwierzaki_v0": (["random", "random"], {"max_turns": 25}),
}


def serve(*args: str) -> StdioServerParameters:
    """`python -m card_envs mcp ARGS` as the client starts it, in this environment."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return StdioServerParameters(
        command=sys.executable, args=["-m", "card_envs", "mcp", *args], env=env, cwd=str(ROOT)
    )


def session_run(scenario, *args: str) -> None:
    """Run `scenario(call, session)` against a fresh server; `call(tool, **arguments)`
    returns the tool's JSON result, or the error text of a refused call as `("error", text)`."""

    async def main() -> None:
        async with stdio_client(serve(*args)) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=TIMEOUT) as session:
                await session.initialize()

                async def call(tool: str, **arguments):
                    result = await session.call_tool(tool, arguments)
                    text = result.content[0].text
                    if result.is_error:
                        return ("error", text)
                    assert result.structured_content == json.loads(text)
                    return result.structured_content

                await scenario(call, session)

    anyio.run(main)


async def play_out(call, game: dict, pick: int = 0) -> tuple[dict, int]:
    """Play `game` to its end by the legal move `pick` of each view (0: the first); the last
    result and the number of moves made."""
    moves = 0
    while not game["done"]:
        assert game["your_turn"] and game["legal_moves"], game
        game = await call("play", game_id=game["game_id"], move=game["legal_moves"][pick]["id"])
        assert not isinstance(game, tuple), game
        moves += 1
    return game, moves


def test_a_whole_game_of_no_thanks_against_heuristics():
    async def scenario(call, session):
        tools = await session.list_tools()
        assert {t.name for t in tools.tools} == TOOLS
        listed = await call("list_games")
        ids = [g["env_id"] for g in listed["games"]]
        assert ids == served_env_ids() and "no_thanks_v0" in ids
        no_thanks = listed["games"][ids.index("no_thanks_v0")]
        assert no_thanks["players"] == {"default": 3, "min": 3, "max": 7}
        assert {"random", "heuristic"} <= set(no_thanks["agents"])
        public = {o["name"]: o for o in no_thanks["options"]}["public_tokens"]
        assert public["default"] is False
        rules = await call("rules", env_id="no_thanks_v0")
        assert "No Thanks" in rules["rules"]

        game = await call(
            "new_game", env_id="no_thanks_v0", opponents=["heuristic", "heuristic"], seat=1, seed=7
        )
        gid = game["game_id"]
        assert game["you"] == "player_1" and game["players"]["player_1"] == "you"
        assert [m["player"] for m in game["opponents_moved"]] == ["player_0"]
        assert game["your_turn"] and game["to_act"] == "player_1"

        # an illegal id, and words naming no move: refused, naming the legal moves; unchanged
        before = await call("view", game_id=gid)
        for wrong in (99, "xyzzy"):
            refused = await call("play", game_id=gid, move=wrong)
            assert refused[0] == "error" and repr(wrong).strip("'") in refused[1], refused
            for move in before["legal_moves"]:
                assert move["text"] in refused[1]
        assert await call("view", game_id=gid) == before

        # a move by its words
        words = before["legal_moves"][-1]["text"]
        game = await call("play", game_id=gid, move=words)
        assert game["you_played"] == words

        seen = [game]
        while not game["done"]:
            game = await call("play", game_id=gid, move=game["legal_moves"][0]["id"])
            seen.append(game)
            for m in game["opponents_moved"]:
                assert m["player"] != "player_1" and m["agent"] == "heuristic" and m["move"]
        for state in seen:  # the other seats' tokens stay hidden (public_tokens is off)
            for p in state["view"]["players"]:
                assert ("tokens" in p) == (p["player"] == "player_1"), p
            assert "other players' tokens are hidden" in state["text"]
        out = game["outcome"]
        assert set(out["scores"]) == {"player_0", "player_1", "player_2"}
        assert out["winners"] and out["you_won"] == ("player_1" in out["winners"])
        assert out["result"].startswith("Game over") and game["legal_moves"] == []
        assert game["text"].splitlines()[1] in out["result"]  # "Game over after ..."
        assert game["view"]["outcome"]["scores"] == out["scores"]
        over = await call("play", game_id=gid, move=0)
        assert over[0] == "error" and "is over" in over[1]
        assert (await call("end_game", game_id=gid))["open_games"] == []
        gone = await call("view", game_id=gid)
        assert gone[0] == "error" and repr(gid) in gone[1]

    session_run(scenario)


def test_unknown_ids_code_and_bad_values_are_refused_naming_what_is_allowed():
    async def scenario(call, session):
        cases = [
            ({"env_id": "chess_v0"}, ["'chess_v0'", "no_thanks_v0"]),
            ({"env_id": "double_or_nothing_run_v0"}, ["double_or_nothing_v0", "computer"]),
            ({"env_id": "no_thanks_v0", "opponents": "py:os:system"}, ["refused", "heuristic"]),
            ({"env_id": "no_thanks_v0", "opponents": "py-policy:x.py:f"}, ["refused"]),
            ({"env_id": "no_thanks_v0", "opponents": "ppo:/tmp/model.zip"}, ["not a file"]),
            ({"env_id": "no_thanks_v0", "opponents": "ismcts:net=/tmp/n.zip"}, ["net="]),
            ({"env_id": "no_thanks_v0", "opponents": "ismcts:99999999"}, ["1..20000"]),
            ({"env_id": "no_thanks_v0", "opponents": "computer"}, ["computer"]),
            ({"env_id": "no_thanks_v0", "opponents": "human"}, ["refused"]),
            ({"env_id": "no_thanks_v0", "opponents": "nosuch"}, ["'nosuch'", "heuristic"]),
            ({"env_id": "no_thanks_v0", "config": {"public_tokens": 3}}, ["public_tokens=3"]),
            ({"env_id": "no_thanks_v0", "config": {"colour": 1}}, ["'colour'", "num_players"]),
            ({"env_id": "no_thanks_v0", "opponents": ["random"]}, ["num_players=2", "3..7"]),
            ({"env_id": "no_thanks_v0", "seat": 3}, ["seat", "0..2", "3"]),
        ]
        for arguments, words in cases:
            result = await call("new_game", **arguments)
            assert result[0] == "error", (arguments, result)
            for word in words:
                assert word in result[1], (arguments, result[1])
        missing = await call("rules", env_id="chess_v0")
        assert missing[0] == "error" and "no_thanks_v0" in missing[1]
        assert (await call("list_games"))["open_games"] == []  # nothing was started

    session_run(scenario)


def test_an_agent_the_server_names_may_run_code(tmp_path):
    """`--agents NAME=SPEC`: the client seats it by its name (here a `py-policy:` file)."""
    (tmp_path / "mine.py").write_text(
        "def first(observations, masks):\n    return masks.argmax(axis=1)\n"
    )
    spec = f"py-policy:{tmp_path / 'mine.py'}:first"

    async def scenario(call, session):
        listed = await call("list_games")
        assert all("first" in g["agents"] for g in listed["games"] if g["agents"])
        game = await call("new_game", env_id="no_thanks_v0", opponents="first", seed=1)
        assert game["players"] == {"player_0": "you", "player_1": "first", "player_2": "first"}
        game, _ = await play_out(call, game)
        assert game["outcome"]["winners"]
        refused = await call("new_game", env_id="no_thanks_v0", opponents=spec)
        assert refused[0] == "error" and "first" in refused[1]  # by its name only

    session_run(scenario, "--agents", f"first={spec}")


def test_a_game_of_every_id_to_its_end():
    assert sorted(GAMES) == served_env_ids()

    async def scenario(call, session):
        for env_id, (opponents, config) in GAMES.items():
            game = await call("new_game", env_id=env_id, opponents=opponents, seed=3, config=config)
            assert not isinstance(game, tuple), (env_id, game)
            assert game["view"]["game"] == env_id and game["text"]
            game, moves = await play_out(call, game, pick=-1)  # the last: short games
            assert moves > 0 and game["done"], env_id
            assert game["outcome"]["winners"] and game["outcome"]["result"], env_id
            await call("end_game", game_id=game["game_id"])

    session_run(scenario)


def test_at_most_max_games_are_open():
    """In this process (no SDK): a full table list drops a finished game, else refuses."""
    tables = Tables(max_games=2)
    first = tables.new_game("no_thanks_v0", seed=1)
    tables.new_game("no_thanks_v0", seed=2)
    with pytest.raises(GameError, match=r"2 games are open.*\['g1', 'g2'\]"):
        tables.new_game("no_thanks_v0", seed=3)
    while not first["done"]:
        first = tables.play("g1", first["legal_moves"][0]["id"])
    third = tables.new_game("no_thanks_v0", seed=3)
    assert sorted(tables.games) == ["g2", third["game_id"]]
    with pytest.raises(ValueError, match="built-in agents"):
        Tables({"heuristic": "random"})

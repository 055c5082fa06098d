"""`card-envs play` with a scripted person in a real pseudo-terminal (pexpect): a whole game
of every env id, wrong input refused and asked again, a move typed by name, `q`, and a
hot-seat game of two people with the pass-the-screen pause.

Nothing here waits on time: every step expects a prompt; the timeout is only a safety net
(the first run may compile the engines)."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

pexpect = pytest.importorskip("pexpect")

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 300
MOVE = r"Your move \(1-(\d+), a name, or q to quit\): "
PASS = r"Pass the screen to (player_\d+), then press Enter\. "
OVER = r"=== (Game|Episode) over ==="

# every env id with a small config: each game a few seconds
GAMES = {
    "no_thanks_v0": ("human,heuristic,random", []),
    "surfosaurus_max_v0": ("human,random", []),
    "double_or_nothing_v0": ("human,computer", ["max_turns=40"]),
    "double_or_nothing_run_v0": ("human", ["max_stage=1", "max_turns=40"]),
    "rummidrez_v0": ("human,heuristic", ["max_turns=4"]),
    "rummidrez_solo_v0": ("human", []),
    "super_zwierzaki_v0": ("human,random,random", ["max_turns=25"]),
}


def spawn(env_id: str, agents: str, config: list[str], seed: int = 1):
    args = ["-m", "card_envs", "play", env_id, "--agents", agents, "--seed", str(seed)]
    if config:
        args += ["--config", *config]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8"}
    child = pexpect.spawn(
        sys.executable, args, cwd=str(ROOT), env=env, encoding="utf-8", timeout=TIMEOUT
    )
    child.setwinsize(200, 200)
    child.delaybeforesend = None  # pexpect sleeps 50 ms before each line by default
    return child


def first_option(view: str) -> str:
    """The text of move 1 of the list in `view`."""
    return re.search(r"^\s+1\. (.*?)\r?$", view, re.M).group(1)


def finish(child) -> str:
    """Play on, always the last move of the list, to the end; the text after the end."""
    while child.expect([MOVE, OVER]) == 0:
        child.sendline(child.match.group(1))
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    return child.before


@pytest.mark.parametrize("env_id", sorted(GAMES))
def test_a_person_plays_a_whole_game(env_id):
    agents, config = GAMES[env_id]
    child = spawn(env_id, agents, config)
    child.expect(MOVE)
    moves = int(child.match.group(1))
    view = child.before
    assert "your move" in view and "Your moves:" in view
    for wrong, refusal in (
        (str(moves + 1), f"There is no move {moves + 1}: type a number from 1 to {moves}."),
        ("xyzzy", "No move is called 'xyzzy'"),
        ("", "Type a move's number"),
        ("0", "There is no move 0"),
    ):
        child.sendline(wrong)
        child.expect_exact(refusal)
        child.expect(MOVE)  # asked again
    name = first_option(view)
    child.sendline(name.upper())  # a move by its name, in any case
    end = finish(child)
    if env_id in ("double_or_nothing_run_v0", "rummidrez_solo_v0"):
        assert re.search(r"Return -?\d+", end)
    else:
        assert "Scores:" in end and re.search(r"Result: .*(won|share the win|a draw)\.", end)
        assert "player_0 (human)" in end


def test_the_others_moves_are_shown_in_words():
    child = spawn("no_thanks_v0", "human,random,random", [], seed=3)
    child.expect(MOVE)
    child.sendline("no")  # a prefix only "no thanks" has
    child.expect(MOVE)
    assert re.search(r"Since your last move:\s+player_1: (take \d+|no thanks)", child.before)
    child.sendline("q")
    child.expect_exact("You left the game; goodbye.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_q_quits_cleanly():
    child = spawn("super_zwierzaki_v0", "human,heuristic", [])
    child.expect(MOVE)
    child.sendline("q")
    child.expect_exact("You left the game; goodbye.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0 and "Traceback" not in child.before


def test_hot_seat_pauses_before_another_persons_turn():
    """Two people at Rummidrez: before a person's turn that follows the other person's, the
    screen is cleared and waits for Enter; every move prompt until the next pause is the
    same person's (draw, meld and discard are several prompts of one turn)."""
    child = spawn("rummidrez_v0", "human,human", ["max_turns=3"])
    passes, prompts = [], 0
    while (i := child.expect([PASS, MOVE, OVER])) != 2:
        if i == 0:
            assert child.before.endswith("\x1b[2J\x1b[H")  # the screen was cleared first
            passes.append(child.match.group(1))
            child.sendline("")
        else:
            assert re.findall(r"--- (player_\d+), your move ---", child.before) == passes[-1:]
            prompts += 1
            child.sendline(child.match.group(1))
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert len(passes) >= 3 and passes[0] == "player_0"
    assert all(
        a != b for a, b in zip(passes[:-1], passes[1:], strict=True)
    )  # a pause only at a change
    assert prompts > len(passes) and "Scores:" in child.before

"""A game is its folder: `card_envs/games/no_thanks/` copied to a package of its own, given
an env id, and registered at run time with `card_envs.register_game`, runs the conformance
suite, the test warm-up, `evaluate` with every built-in agent, a tournament and the
browser's game list, with nothing outside the folder edited (docs/adding_a_game.md)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import card_envs
from card_envs.agents.ppo import shipped_model
from card_envs.games import no_thanks

PACKAGE = "sixth_game"
ENV_ID = "sixth_game_v0"
ROOT = Path(card_envs.__file__).parents[1]

# Run in a subprocess (the registry is global), with the env id, the model shipped for No
# Thanks (it plays the copy too: the same observations and actions) and an output folder.
SCRIPT = """
import sys

import pytest

import card_envs
from card_envs.agents import agent_kinds, make_agent
from card_envs.evaluation import evaluate
from card_envs.registry import kernel_groups
from card_envs.testing.warm import warm_caches
from card_envs.tournament import check_replay, parse_config, read_jsonl, run_tournament
from card_envs.web.server import games
from sixth_game import NoThanks as SixthGame

ENV_ID, MODEL, OUT = sys.argv[1:4]
card_envs.register_game(SixthGame)
for again, error in [(SixthGame, "is already registered"), (int, "subclass of card_envs")]:
    try:
        card_envs.register_game(again)
    except ValueError as err:
        assert error in str(err), err
    else:
        raise AssertionError(f"register_game took {again}")
CONFIG = dict(SixthGame.test_configs[0])
SEATS = CONFIG["num_players"]

# the conformance suite, unchanged, on the new game's cases
code = pytest.main(["-q", "-p", "no:cacheprovider", "-k", ENV_ID, "tests/test_conformance.py"])
assert code == 0, f"the conformance suite on {ENV_ID} exited with {code}"

# the test warm-up compiles the new folder as a group of its own, beside the other games
assert (ENV_ID,) in kernel_groups(), kernel_groups()
warm_caches(processes=2)

# every built-in agent kind: played in `evaluate` (two worker processes), or refused for the
# reason it cannot apply to a new game
PLAYED = ["random", "heuristic", "ismcts:20", "ppo:" + MODEL, "sb3:" + MODEL,
          f"py:{OUT}/user_agent.py:First", f"py-policy:{OUT}/user_agent.py:first"]  # fmt: skip
REFUSED = {
    "computer": "has no computer player",  # No Thanks has no computer of its own
    "ppo": "no ppo model is shipped for " + ENV_ID,  # until one is trained and shipped
    "exit": "no exit model is shipped for " + ENV_ID,  # the same, by expert iteration
    "selfplay": "no selfplay model is shipped for " + ENV_ID,  # the same, by self-play
}
NOT_EVALUATED = {  # agents that need what a new game has not got
    "rllib": "an RLlib module trained on the game (card-envs train --backend rllib)",
    "human": "a person at the terminal (card-envs play)",
    "llm": "a language model's server (tests/test_llm_agent.py plays every game with one)",
}
kinds = {spec.partition(":")[0] for spec in PLAYED} | set(REFUSED) | set(NOT_EVALUATED)
assert kinds == set(agent_kinds()), agent_kinds()
for spec in PLAYED:
    field = [spec, "heuristic", "random", "random"][:SEATS]
    ev = evaluate(ENV_ID, field, games=6, seed=1, workers=2, progress=False, **CONFIG)
    assert ev.games == ev[0].games == 6, ev
for kind, reason in REFUSED.items():
    try:
        make_agent(kind, ENV_ID, seed=0, **CONFIG)
    except ValueError as err:
        assert reason in str(err), err
    else:
        raise AssertionError(f"{kind} was not refused")

# a tournament with game records, each replayed
event = {"name": "sixth", "env": ENV_ID, "config": CONFIG, "games": 6,
         "agents": ["heuristic", "random", "ismcts:20", "random"][:SEATS]}
raw = {"name": "sixth", "db": OUT + "/games.sqlite", "out": OUT, "progress": False,
       "workers": 1, "records": True, "events": [event]}
result = run_tournament(parse_config(raw))
assert result.played == 6 and len(result.leaderboards) == 1, result
records = list(read_jsonl(OUT + "/sixth.jsonl"))
assert len(records) == 6 and not any(check_replay(r) for r in records)

# the browser's game list offers it with the agents it has
listed = {g["env_id"]: g for g in games()}
assert listed[ENV_ID]["title"] == SixthGame.title, listed[ENV_ID]
assert listed[ENV_ID]["agents"] == ["random", "heuristic", "ismcts"], listed[ENV_ID]
print("every harness ran", ENV_ID)
"""
# the copy's one test config, which keeps the test quick
TEST_CONFIGS = "test_configs = (dict(num_players=3),)"


def copy_game(target: Path) -> None:
    """What a contributor does first: copy the No Thanks folder, point its imports of itself
    at the copy, and give the game an env id, a title and its test configs."""
    shutil.copytree(
        Path(no_thanks.__file__).parent, target, ignore=shutil.ignore_patterns("__pycache__")
    )
    for path in target.glob("*.py"):
        path.write_text(path.read_text().replace("card_envs.games.no_thanks", target.name))
    spec = target / "spec.py"
    configs = re.compile(r"\n    test_configs = \(\n.*?\n    \)\n", re.S)
    text, found = configs.subn(f"\n    {TEST_CONFIGS}\n", spec.read_text())
    assert found == 1, "no_thanks/spec.py declares its test configs in another form"
    for old, new in [("no_thanks_v0", ENV_ID), ('"No Thanks!"', '"Sixth game"')]:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    spec.write_text(text)


USER_AGENT = """
import numpy as np

from card_envs.agents import Agent


class First(Agent):
    def __init__(self, env_id, seed=None, config=None):
        pass

    def act_batch(self, observations, masks):
        return np.argmax(masks, axis=1)


def first(observations, masks):
    return np.argmax(masks, axis=1)
"""


@pytest.mark.slow  # compiles a whole game's kernels afresh in a subprocess: about 25 s
def test_a_copied_game_folder_runs_every_harness(tmp_path):
    copy_game(tmp_path / PACKAGE)
    (tmp_path / "user_agent.py").write_text(USER_AGENT)  # a user's agent plays the new game
    path = os.pathsep.join([str(tmp_path), str(ROOT), os.environ.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, ENV_ID, str(shipped_model("no_thanks_v0")), tmp_path],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    assert f"every harness ran {ENV_ID}" in done.stdout

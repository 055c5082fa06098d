"""NUMBA_DISABLE_JIT=1 runs everything, and plays exactly the games the compiled engine plays."""

import json
import os
import subprocess
import sys

SCRIPT = """
import json, numpy as np, card_envs
from agents import RandomAgent
from card_envs.evaluation import evaluate
out = []
env = card_envs.make("no_thanks_v0", num_players=4, public_tokens=True)
env.reset(seed=7)
for agent in env.agent_iter():
    obs, r, term, trunc, info = env.last()
    env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[-1]))
    if env.agents:
        out.append(env.state_dict())
agents = [RandomAgent(0), RandomAgent(1), RandomAgent(2)]
res = evaluate("no_thanks_v0", agents, 6, seed=3, workers=1, progress=False, chunk_games=3).results
out.append(res.scores.tolist())
print(json.dumps(out))
"""


def _run(disable_jit: bool) -> list:
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1" if disable_jit else "0"}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def test_pure_python_engine_plays_the_same_games():
    compiled, plain = _run(False), _run(True)
    assert len(compiled) > 30
    assert compiled == plain

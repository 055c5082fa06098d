"""examples/cleanrl_masked_ppo.py, the single-file masked PPO over `gymnasium.make_vec`: a
short run exits cleanly with its evaluation and finite losses, its masked policy never puts
probability on an illegal action, and the saved network plays in the harness as a
`py-policy:` spec (docs/cleanrl.md)."""

from __future__ import annotations

import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path

import gymnasium
import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.slow  # a training run (see pyproject's markers), about 7 s

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "cleanrl_masked_ppo.py"


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    """A short run: 16 rows x 32 steps a rollout, 8 updates, one evaluation of 40 games."""
    out = tmp_path_factory.mktemp("cleanrl")
    argv = ["--num-envs", "16", "--num-steps", "32", "--total-timesteps", "4096",
            "--eval-every", "4096", "--eval-games", "40", "--out", str(out)]  # fmt: skip
    proc = subprocess.run([sys.executable, str(EXAMPLE), *argv], capture_output=True, text=True,
                          cwd=EXAMPLE.parent.parent, timeout=300)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "vs heuristic: " in proc.stdout
    return out


@pytest.fixture(scope="module")
def example():
    torch.set_num_threads(1)  # as the example runs: one core
    spec = importlib.util.spec_from_file_location("cleanrl_masked_ppo", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_short_run_logs_its_evaluation_and_finite_losses(run):
    log = json.loads((run / "log.json").read_text())
    assert [u["step"] for u in log["updates"]] == [512 * k for k in range(1, 9)]
    for update in log["updates"]:
        assert all(math.isfinite(update[k]) for k in ("pg_loss", "v_loss", "entropy"))
    (row,) = log["evals"]
    assert row["step"] == 4096 and row["games"] == 40 and row["fair_share"] == 0.25
    assert 0 <= row["ci_low"] <= row["win_rate"] <= row["ci_high"] <= 1
    assert row["minutes"] > 0 and row["steps_per_s"] > 0
    assert (run / "agent.pt").is_file()


def test_the_masked_policy_gives_illegal_actions_no_probability(run, example):
    net = example.load(str(run / "agent.pt")).net
    envs = gymnasium.make_vec("card_envs/no_thanks_v0-single", num_envs=16, opponents="heuristic",
                              num_players=4, seed=1, autoreset_mode="same_step")  # fmt: skip
    obs = torch.from_numpy(envs.reset(seed=1)[0])
    illegal_rows = 0
    for _ in range(150):  # sampled play: the env would raise on an illegal action
        mask = torch.from_numpy(envs.action_masks())
        with torch.no_grad():
            action, *_ = net.get_action_and_value(obs, mask)
            probs = torch.softmax(net.masked_logits(obs, mask), dim=1)
        assert torch.all(probs[~mask] == 0) and torch.allclose(probs.sum(1), torch.ones(16))
        assert mask[torch.arange(16), action].all()
        illegal_rows += int((~mask).any(1).sum())
        obs = torch.from_numpy(envs.step(action.numpy())[0])
    assert illegal_rows > 0  # the test saw masks that forbid something
    only_take = torch.tensor([[True, False]]).repeat(len(obs), 1)  # passing forbidden
    dist = torch.distributions.Categorical(logits=net.masked_logits(obs, only_take))
    assert torch.all(dist.probs[:, 1] == 0) and torch.all(dist.sample((50,)) == 0)


def test_the_saved_network_plays_in_the_harness_as_a_py_policy(run, example):
    from card_envs.evaluation import evaluate

    spec = f"py-policy:{EXAMPLE}:act:weights={run / 'agent.pt'}"
    ev = evaluate("no_thanks_v0", [spec, "heuristic", "heuristic", "heuristic"], games=8,
                  workers=1, progress=False)  # fmt: skip
    assert ev[0].games == 8 and ev.digests[0]  # the digest of the example's file
    masks = np.array([[1, 1], [1, 0], [1, 0]], dtype=np.int8)
    observations = np.zeros((3, 168), dtype=np.float32)
    actions = example.act(observations, masks, weights=str(run / "agent.pt"))
    assert actions.tolist()[1:] == [0, 0]

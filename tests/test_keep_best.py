"""`evaluation.keep_best`: a run ends with the network of its best periodic evaluation against
that opponent as model.zip (the last one as last_model.zip), in the PPO and the self-play
trainer alike; a resumed run forgets a best network from after its checkpoint."""

from __future__ import annotations

import csv
import json

import pytest

pytest.importorskip("sb3_contrib")

import torch  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402

from card_envs.training.config import TrainConfigError, parse_config  # noqa: E402
from card_envs.training.monitor import Paths, resume_at  # noqa: E402
from card_envs.training.ppo.train import train  # noqa: E402
from card_envs.training.selfplay.train import train_selfplay  # noqa: E402

TINY = {
    "env": "no_thanks_v0",
    "config": {"num_players": 3},
    "total_timesteps": 2400,
    "num_envs": 12,
    "ppo": {
        "n_steps": 8,
        "batch_size": 48,
        "n_epochs": 2,
        "net_arch": [16],
        "learning_rate": 0.01,
    },  # fmt: skip
    "evaluation": {
        "every": 400,
        "games": 12,
        "final_games": 6,
        "against": ["random"],
        "keep_best": "random",
    },  # fmt: skip
    "checkpoint_every": 400,
}


@pytest.mark.parametrize("way", ["ppo", "selfplay"])
def test_the_run_ends_with_its_best_periodic_network(way, tmp_path):
    raw = {**TINY, "out": str(tmp_path / "run")}
    if way == "selfplay":
        raw["selfplay"] = {}
    res = (train_selfplay if way == "selfplay" else train)(parse_config(raw), echo=lambda _: None)
    with (tmp_path / "run" / "evaluations.csv").open(newline="") as f:
        periodic = [r for r in csv.DictReader(f) if r["kind"] == "periodic"]
    assert len(periodic) >= 4
    rates = [float(r["win_rate"]) for r in periodic]
    first_best = periodic[rates.index(max(rates))]  # a later tie does not replace it
    assert res["best"]["win_rate"] == max(rates)
    assert res["best"]["timesteps"] == int(first_best["timesteps"])
    paths = Paths(tmp_path / "run")
    assert json.loads(paths.best_note.read_text()) == res["best"]
    kept = torch.load(paths.best, weights_only=True)
    shipped = MaskablePPO.load(paths.model, device="cpu").policy.state_dict()
    last = MaskablePPO.load(paths.last_model, device="cpu").policy.state_dict()
    assert all(torch.equal(kept[k], shipped[k]) for k in kept)
    assert any(not torch.equal(kept[k], last[k]) for k in kept) == (
        res["best"]["timesteps"] != res["timesteps"]
    )


def test_without_keep_best_the_last_network_is_the_model(tmp_path):
    ev = {k: v for k, v in TINY["evaluation"].items() if k != "keep_best"}
    raw = {**TINY, "evaluation": ev, "selfplay": {}, "out": str(tmp_path / "run")}
    res = train_selfplay(parse_config(raw), echo=lambda _: None)
    paths = Paths(tmp_path / "run")
    assert res["best"] is None and not paths.last_model.exists() and not paths.best.exists()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"evaluation": {**TINY["evaluation"], "keep_best": "heuristic"}},
         r"keep_best='heuristic' is not one of against=\['random'\]"),
        ({"exit": {}}, "evaluation.keep_best: expert iteration ends with its last round"),
    ],
)  # fmt: skip
def test_bad_keep_best_is_named(change, message):
    with pytest.raises(TrainConfigError, match=message):
        parse_config({**TINY, **change})


def test_a_resumed_run_forgets_a_best_network_after_its_checkpoint(tmp_path):
    paths = Paths(tmp_path)
    paths.best.parent.mkdir()
    for checkpoint, kept in ((800, True), (400, False)):
        paths.best.write_bytes(b"weights")
        paths.best_note.write_text(json.dumps({"timesteps": 800, "win_rate": 0.5}))
        resume_at(paths, checkpoint)
        assert paths.best_note.exists() == kept and paths.best.exists() == kept

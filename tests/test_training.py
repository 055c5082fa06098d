"""Training: config validation, a short run of every shipped config (the CI smoke test),
outputs, self-play snapshots, checkpoints and resume, the time limit, the CLI."""

from __future__ import annotations

import csv
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
import yaml

pytest.importorskip("sb3_contrib")

from card_envs.agents import make_agent  # noqa: E402
from card_envs.cli import main as cli_main  # noqa: E402
from card_envs.core.threads import usable_cores  # noqa: E402
from card_envs.training import monitor  # noqa: E402
from card_envs.training.config import TrainConfigError, load_config, parse_config  # noqa: E402
from card_envs.training.opponents import OpponentPool, pfsp_weights  # noqa: E402
from card_envs.training.ppo.train import train  # noqa: E402
from card_envs.training.run import targets  # noqa: E402
from card_envs.training.ship import MODELS, ROLLOUT_STATE, ShipError, ship  # noqa: E402
from card_envs.training.train import main as train_main  # noqa: E402

pytestmark = pytest.mark.slow  # see pyproject's markers: out of the fast tier

CONFIGS = sorted(Path(__file__).resolve().parent.parent.glob("configs/training/*.yaml"))
TINY = {
    "total_timesteps": 1024,
    "num_envs": 8,
    "ppo": {"n_steps": 64, "batch_size": 256, "n_epochs": 1, "net_arch": [16]},
    "evaluation": {"every": 512, "games": 8, "final_games": 16},
    "checkpoint_every": 512,
}


def tiny(raw: dict, tmp_path: Path, **extra) -> dict:
    """`raw` shrunk to a run of seconds, writing into tmp_path."""
    out = {**raw, **TINY, "out": str(tmp_path / "run"), **extra}
    evaluation = {**raw.get("evaluation", {}), **TINY["evaluation"]}
    if evaluation.get("runs"):
        evaluation["runs"] = 4
    out["evaluation"] = evaluation
    opponents = dict(raw.get("opponents", {}))
    opponents["snapshot_every"] = 256
    out["opponents"] = opponents
    if raw.get("imitation"):
        out["imitation"] = {**raw["imitation"], "samples": 2048, "epochs": 1}
    if raw.get("mix"):  # two settings: the first two values of the first option
        first, *rest = raw["mix"]
        out["mix"] = {first: raw["mix"][first][:2], **{k: raw["mix"][k][:1] for k in rest}}
    return out


def agent_batch(cfg) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of a few positions of cfg's game."""
    from card_envs.registry import make_vec

    venv = make_vec(cfg.env, 64, seed=5, **cfg.config)
    obs, masks = venv.reset()
    for _ in range(7):
        obs, masks, *_ = venv.step(np.argmax(masks, axis=1))
    return obs.copy(), masks.copy()


def read_csv(path: Path) -> list[dict]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


# --- configs ----------------------------------------------------------------------------
def test_there_is_a_training_config_for_every_game():
    envs = {yaml.safe_load(p.read_text())["env"] for p in CONFIGS}
    from card_envs.registry import batched_env_ids

    assert envs == set(batched_env_ids())  # the solo variant included


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.stem)
def test_shipped_configs_validate_and_fit_a_2_core_machine(path):
    cfg = load_config(path)
    assert cfg.name == path.stem and cfg.out == f"runs/training/{path.stem}"
    # one command under 30 minutes: the training's limit plus start-up and final evaluation
    assert cfg.torch_threads == 1 and cfg.time_limit_minutes <= 25
    assert cfg.eval_workers <= 2
    assert (cfg.num_envs * cfg.ppo.n_steps) % cfg.ppo.batch_size == 0


BASE = {"env": "no_thanks_v0", "total_timesteps": 1000}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"lr": 1}, r"unknown key 'lr'; allowed keys are \["),
        ({"env": "chess_v0"}, r"env='chess_v0' is not one of \["),
        ({"config": {"num_players": 9}}, r"config: .*num_players.*9"),
        ({"total_timesteps": 0}, r"total_timesteps=0 must be an int >= 1"),
        ({"opponents": {"pool": {"heurstic": 1}}}, r"agent 'heurstic': unknown agent spec"),
        ({"opponents": {"pool": {"random": -1}}}, r"random=-1 must be a number in \[0.0"),
        ({"opponents": {"pool": {"random": 0, "self": 0}}}, "are all zero"),
        ({"opponents": {"snapshots": 0}}, "snapshots=0 must be an int >= 1"),
        ({"opponents": {"sampling": "elo"}}, r"sampling='elo' is not one of \['uniform', 'pfsp'\]"),
        (
            {"opponents": {"sampling": "pfsp"}},
            "sampling=pfsp draws among snapshots: the pool needs",
        ),
        ({"ppo": {"learning_rate": "fast"}}, r"learning_rate='fast' must be a number"),
        ({"ppo": {"gamma": 1.5}}, r"gamma=1.5 must be a number in \[0.0, 1.0\]"),
        ({"ppo": {"net_arch": []}}, "net_arch=.* must be a list of layer sizes"),
        ({"ppo": {"batch_size": 1000}}, "batch_size=1000 must divide n_steps x num_envs"),
        ({"evaluation": {"against": []}}, "against=.* must be a non-empty list"),
        ({"evaluation": {"against": ["computer"]}}, "agent 'computer'"),
        ({"evaluation": {"runs": 10}}, "runs=10: no_thanks_v0 has no run env"),
        ({"env": "double_or_nothing_run_v0"}, r"env='double_or_nothing_run_v0' is not one of"),
        (
            {"env": "rummidrez_solo_v0", "opponents": {"pool": {"random": 1}}},
            "rummidrez_solo_v0 has one seat: it takes no opponents pool",
        ),
        ({"time_limit_minutes": 0}, "time_limit_minutes=0 must be a number"),
        ({"video_episodes": -1}, "video_episodes=-1 must be an int >= 0"),
        ({"video_episodes": 1.5}, "video_episodes=1.5 must be an int >= 0"),
        ({"num_threads": 0}, r"num_threads must be an int in 1\.\.\d+ .*got 0"),
        ({"num_threads": 999}, r"num_threads must be an int in 1\.\.\d+ .*got 999"),
        ({"device": "gpu"}, r"device='gpu' must be one of cpu, cuda, cuda:N"),
        ({"device": "cuda:x"}, r"device='cuda:x' must be one of"),
        ({"device": 0}, r"device=0 must be one of"),
    ],
)
def test_bad_config_values_are_named_with_what_is_allowed(change, message):
    with pytest.raises(TrainConfigError, match=message):
        parse_config({**BASE, **change})


def test_config_defaults_and_yaml_spellings(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text("env: no_thanks_v0\ntotal_timesteps: 1_000\nppo: {learning_rate: 3e-4}\n")
    cfg = load_config(path)
    assert cfg.total_timesteps == 1000 and cfg.ppo.learning_rate == 3e-4  # 3e-4 is a str in YAML
    assert cfg.name == "mine" and cfg.pool == (("random", 1.0),) and not cfg.uses_self_play
    assert cfg.config == {"num_players": 3, "public_tokens": False, "reward": "win", "history": 0}
    assert load_config(path, seed=5, total_timesteps=None).seed == 5
    assert cfg.num_threads == 1
    assert parse_config({**BASE, "num_threads": None}).num_threads == usable_cores()
    rounded = parse_config({**BASE, "evaluation": {"games": 8, "final_games": 10}})
    assert (rounded.eval_games, rounded.final_eval_games) == (9, 12)  # multiples of 3 seats
    with pytest.raises(TrainConfigError, match="missing.yaml: no such config file"):
        load_config(tmp_path / "missing.yaml")


# --- targets ------------------------------------------------------------------------------
def test_targets_follow_the_issue():
    def at(n: int, setting: str = "", **row) -> dict:
        return {"num_players": n, "setting": setting, **row}

    two = parse_config({**BASE, "env": "double_or_nothing_v0", "evaluation": {"runs": 5}})
    rows = [
        at(2, opponent="random", win_rate=0.9, ci_low=0.88),
        at(2, opponent="heuristic", win_rate=0.56, ci_low=0.5),  # CI touches 0.5: not met
        at(2, opponent="run", win_rate=1.2, ci_low=1.0),
    ]
    assert [t["met"] for t in targets(two, rows, baseline=1.2)] == [True, False, False]
    four = parse_config({**BASE, "config": {"num_players": 4}})
    rows = [
        at(4, opponent="random", win_rate=0.49, ci_low=0.45),  # 2/N = 0.5
        at(4, opponent="heuristic", win_rate=0.3, ci_low=0.26),
    ]
    assert [t["met"] for t in targets(four, rows, None)] == [False, True]
    mixed = parse_config({**BASE, "mix": {"num_players": [3, 7]}, "num_envs": 32})
    rows = [  # each setting by its own player count: 0.3 beats 1/7 but not 1/3
        at(3, "num_players=3", opponent="heuristic", win_rate=0.35, ci_low=0.3),
        at(7, "num_players=7", opponent="heuristic", win_rate=0.35, ci_low=0.3),
    ]
    found = targets(mixed, rows, None)
    assert [t["met"] for t in found] == [False, True]
    assert found[1]["target"] == "num_players=7: vs heuristic: 95% CI above 0.143"
    solo = parse_config({**BASE, "env": "rummidrez_solo_v0"})
    rows = [  # one seat: a mean reward at least the agent's on the same deals
        at(1, opponent="random", win_rate=0.9, mean_reward=-80.0, opponent_reward=-140.0),
        at(1, opponent="heuristic", win_rate=0.4, mean_reward=-75.5, opponent_reward=-74),
    ]
    assert [t["met"] for t in targets(solo, rows, None)] == [True, False]


# --- the pool -------------------------------------------------------------------------------
def test_snapshots_share_the_self_weight_and_survive_save_and_load(tmp_path):
    import torch
    from sb3_contrib import MaskablePPO

    from card_envs.wrappers import SingleAgentVecEnv

    cfg = parse_config(
        {**BASE, "opponents": {"pool": {"random": 1, "heuristic": 1, "self": 2}, "snapshots": 2}}
    )
    pool = OpponentPool(cfg)
    assert pool.agents_and_weights()[1] == [1.0, 1.0]  # no snapshot yet: self not drawn
    venv = SingleAgentVecEnv("no_thanks_v0", 4, opponents="random", seed=0)
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=64, seed=0)
    torch.manual_seed(0)
    for _ in range(3):
        pool.add_snapshot(model.policy)
        with torch.no_grad():
            for p in model.policy.parameters():
                p.add_(torch.randn_like(p))  # the learner moves on; snapshots must not
    agents, weights = pool.agents_and_weights()
    assert len(agents) == 4 and weights == [1.0, 1.0, 1.0, 1.0]  # 2 newest share 2
    obs = venv.reset()
    masks = venv.action_masks()
    before = [a.action_probabilities(obs, masks) for a in (s[0] for s in pool.snapshots)]
    assert np.abs(before[0] - before[1]).max() > 0.01  # taken at different moments
    pool.save(tmp_path / "pool.pt")
    other = OpponentPool(cfg)
    other.load(tmp_path / "pool.pt", model.policy)
    assert other.taken == 3
    for a, b in zip((s[0] for s in other.snapshots), before, strict=True):
        np.testing.assert_allclose(a.action_probabilities(obs, masks), b, atol=1e-6)


def test_pfsp_weights_favour_the_snapshots_the_learner_loses_to():
    # x = (wins + 20 * fair) / (games + 20), weight (1 - x)^2; by hand with fair 0.5:
    # 80 losses: x = 10/100, 0.81; 80 wins: x = 90/100, 0.01; no games: x = 0.5, 0.25
    shares = pfsp_weights([[0.0] * 80, [1.0] * 80, []], fair=0.5)
    np.testing.assert_allclose(shares, np.array([0.81, 0.01, 0.25]) / 1.07)
    # four players: an even record (the fair share 0.25) weighs as a new snapshot
    np.testing.assert_allclose(pfsp_weights([[1, 0, 0, 0] * 10, []], fair=0.25), [0.5, 0.5])
    # ties share a game's win: half a win counts half
    assert pfsp_weights([[0.5] * 40, [1.0] * 20], fair=0.5)[0] > 0.5


def test_pfsp_pool_draws_snapshots_by_the_learners_results_and_saves_them(tmp_path):
    from sb3_contrib import MaskablePPO

    from card_envs.wrappers import SingleAgentVecEnv

    raw = {**BASE, "opponents": {"pool": {"random": 1, "self": 3}, "snapshots": 3}}
    venv = SingleAgentVecEnv("no_thanks_v0", 4, opponents="random", seed=0)
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=64, seed=0)
    pools = {}
    for sampling in ("uniform", "pfsp"):
        cfg = parse_config({**raw, "opponents": {**raw["opponents"], "sampling": sampling}})
        pool = pools[sampling] = OpponentPool(cfg)
        for _ in range(4):  # the first leaves: 3 slots
            pool.add_snapshot(model.policy)
        scripted = pool.scripted[0][0][0].spec
        old, mid, new = (s[0].spec for s in pool.snapshots)
        assert (old, mid, new) == ("self@2", "self@3", "self@4")
        for _ in range(30):
            pool.record([old, scripted, new], 0.0)  # the learner loses to old and new
            pool.record([mid, mid, scripted], 1.0)  # beats mid (one game, counted once)
        assert [len(r) for r in pool.results] == [30, 30, 30]
    assert pools["uniform"].agents_and_weights()[1] == [1.0, 1.0, 1.0, 1.0]
    agents, weights = pools["pfsp"].agents_and_weights()
    assert weights[0] == 1.0 and sum(weights[1:]) == pytest.approx(3.0)
    assert weights[1] == pytest.approx(weights[3]) and weights[1] > 10 * weights[2]
    pool = pools["pfsp"]
    pool.save(tmp_path / "pool.pt")
    again = OpponentPool(pool.config)
    again.load(tmp_path / "pool.pt", model.policy)
    assert [list(r) for r in again.results] == [list(r) for r in pool.results]
    np.testing.assert_allclose(again.agents_and_weights()[1], weights)


def test_pfsp_training_run_records_its_games_and_resumes(tmp_path):
    import torch

    raw = tiny(
        {"env": "no_thanks_v0",
         "opponents": {"pool": {"random": 1, "self": 1}, "sampling": "pfsp"}},
        tmp_path,
    )  # fmt: skip
    first = parse_config(raw)
    train(first, echo=lambda _: None)
    saved = torch.load(Path(first.out) / "checkpoints" / "latest_pool.pt", weights_only=True)
    assert sum(len(r) for r in saved["results"]) > 0  # games against snapshots were counted
    longer = parse_config({**raw, "total_timesteps": 2048})
    messages = []
    results = train(longer, resume=True, echo=messages.append)
    assert messages[0].startswith("resuming training at 1,024 steps")
    assert results["timesteps"] == 2048
    with pytest.raises(TrainConfigError, match="the config differs"):  # sampling is part of it
        uniform = {**raw, "opponents": {**raw["opponents"], "sampling": "uniform"}}
        train(parse_config(uniform), resume=True)


# --- runs ---------------------------------------------------------------------------------
@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.stem)
def test_short_run_of_each_shipped_config_writes_everything(path, tmp_path):
    raw = yaml.safe_load(path.read_text())
    cfg = parse_config(tiny(raw, tmp_path), default_name=path.stem)
    results = train(cfg, echo=lambda _: None)
    out = Path(cfg.out)
    assert results["timesteps"] == 1024 and results["training_steps_per_s"] > 0
    saved = json.loads((out / "results.json").read_text())
    assert saved["targets"] == results["targets"] and len(saved["targets"]) >= 2
    assert set(saved["time_split_s"]) == {
        "engine_s", "opponents_s", "learner_act_s", "update_s", "eval_s"
    }  # fmt: skip
    evals = read_csv(out / "evaluations.csv")
    kinds = [(r["kind"], int(r["timesteps"])) for r in evals]
    per = len(cfg.eval_against) + (1 if cfg.eval_runs else 0)
    # the final evaluation plays every setting of a mix (and the run env once)
    final = len(cfg.eval_against) * len(cfg.settings) + (1 if cfg.eval_runs else 0)
    assert (
        kinds
        == [("periodic", t) for t in (0, 512, 1024) for _ in range(per)] + [("final", 1024)] * final
    )
    progress = read_csv(out / "training.csv")
    assert [int(r["timesteps"]) for r in progress] == [512, 1024]
    assert list((out / "tensorboard").rglob("events.out.tfevents.*"))
    assert (out / "learning_curve.png").stat().st_size > 10_000
    assert json.loads((out / "checkpoints" / "latest.json").read_text())["timesteps"] == 1024
    agent = make_agent(f"ppo:{out / 'model.zip'}", cfg.env, **cfg.config)  # loads as an agent
    assert agent.spec.endswith("model.zip")
    shipped = ship(out, models=tmp_path / "models")
    assert shipped.name == f"{cfg.env}.zip"
    assert shipped.stat().st_size < (out / "model.zip").stat().st_size  # no optimizer moments
    with zipfile.ZipFile(shipped) as archive:
        kept = set(json.loads(archive.read("data")))
    assert "observation_space" in kept and not kept & set(ROLLOUT_STATE)  # no last rollout
    obs, masks = agent_batch(cfg)
    np.testing.assert_array_equal(  # plays exactly like the trained model
        make_agent(f"ppo:{shipped}", cfg.env, **cfg.config).act_batch(obs, masks),
        agent.act_batch(obs, masks),
    )
    note = json.loads(shipped.with_suffix(".json").read_text())
    assert note["config"] == json.loads(json.dumps(cfg.config))
    assert note["final_evaluation"] == results["final_evaluation"]
    with pytest.raises(ShipError, match=f"needs --force.*ppo:{out / 'model.zip'}"):
        ship(out, models=tmp_path / "models")  # a shipped network is not replaced silently
    assert ship(out, models=tmp_path / "models", force=True) == shipped


def test_resume_continues_from_the_checkpoint_and_refuses_a_changed_config(tmp_path, monkeypatch):
    import torch

    raw = tiny({"env": "double_or_nothing_v0", "opponents": {"pool": {"random": 1, "self": 1}}},
               tmp_path)  # fmt: skip
    first = parse_config(raw)
    train(first, echo=lambda _: None)
    with pytest.raises(TrainConfigError, match="already holds a training run: pass --resume"):
        train(first)
    changed = parse_config({**raw, "ppo": {**raw["ppo"], "ent_coef": 0.02}})
    with pytest.raises(TrainConfigError, match="the config differs"):
        train(changed, resume=True)
    messages = []
    # training longer is allowed, on other threads (the same games) and another device
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)  # auto: the CPU here
    longer = parse_config(
        {**raw, "total_timesteps": 2048, "num_threads": usable_cores(), "device": "auto"}
    )
    results = train(longer, resume=True, echo=messages.append)
    assert messages[0].startswith("resuming training at 1,024 steps")
    assert results["timesteps"] == 2048 and results["device"] == "cpu"
    out = Path(first.out)
    progress = [int(r["timesteps"]) for r in read_csv(out / "training.csv")]
    assert progress == [512, 1024, 1536, 2048]  # nothing logged twice
    evals = [(r["kind"], int(r["timesteps"])) for r in read_csv(out / "evaluations.csv")]
    assert ("final", 1024) not in evals and evals[-1] == ("final", 2048)  # superseded
    fresh = train(first, restart=True, echo=lambda _: None)
    assert fresh["timesteps"] == 1024


def test_the_device_is_cpu_unless_asked_and_a_missing_gpu_is_named(monkeypatch):
    import torch

    from card_envs.training.run import torch_device

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert parse_config(BASE).device == "cpu"
    assert torch_device(parse_config({**BASE, "device": "auto"})) == "cpu"
    with pytest.raises(TrainConfigError, match=r"device='cuda'.* sees 0 GPU\(s\); use device: cpu"):
        torch_device(parse_config({**BASE, "device": "cuda"}))
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    assert torch_device(parse_config({**BASE, "device": "auto"})) == "cuda"
    assert torch_device(parse_config({**BASE, "device": "cuda:1"})) == "cuda:1"
    with pytest.raises(TrainConfigError, match="device='cuda:2'.* sees 2 GPU"):
        torch_device(parse_config({**BASE, "device": "cuda:2"}))


class _SlowClock:
    """A clock on which every reading is a minute after the last: the test, not the machine,
    decides when a time limit runs out."""

    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        self.now += 60.0
        return self.now


def test_resume_after_an_interrupted_run_reaches_the_total(tmp_path, monkeypatch):
    raw = tiny({"env": "no_thanks_v0"}, tmp_path, total_timesteps=2048)
    cfg = parse_config(raw)
    with monkeypatch.context() as patch:
        patch.setattr(monitor, "time", _SlowClock())
        stopped = train(
            type(cfg)(**{**cfg.__dict__, "time_limit_minutes": 1.0}), echo=lambda _: None
        )  # stops at the first step: a stand-in for a killed run with a checkpoint
    assert stopped["stopped_by_time_limit"] and stopped["timesteps"] < 2048
    resumed = train(cfg, resume=True, echo=lambda _: None)
    rollout = cfg.num_envs * cfg.ppo.n_steps  # SB3 stops at the end of a rollout
    assert 2048 <= resumed["timesteps"] < 2048 + rollout
    steps = [int(r["timesteps"]) for r in read_csv(Path(cfg.out) / "training.csv")]
    assert steps == sorted(set(steps)) and steps[-1] == resumed["timesteps"]


@pytest.mark.parametrize(
    ("config", "model"),
    [
        ("configs/training/no_thanks.yaml", "no_thanks_v0.zip"),
        ("configs/training/selfplay/no_thanks.yaml", "no_thanks_v0.selfplay.zip"),
    ],
)
def test_ship_of_a_frozen_network_is_refused_before_training(tmp_path, config, model, capsys):
    """The package's networks are frozen by bench-v1 and the tournaments: `--ship` without
    `--force` stops before the first step, naming the spec that plays the run's own model."""
    assert (MODELS / model).exists()
    out = tmp_path / "run"
    with pytest.raises(SystemExit) as exit_info:
        train_main(["--config", config, "--out", str(out), "--ship"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert f"{MODELS / model} is a shipped network" in err and "--force" in err
    assert f"ppo:{out / 'model.zip'}" in err
    assert not out.exists()  # nothing trained
    with pytest.raises(SystemExit):
        train_main(["--config", config, "--out", str(out), "--force"])
    assert "--force goes with --ship" in capsys.readouterr().err


def test_ship_refuses_an_unfinished_run(tmp_path):
    with pytest.raises(FileNotFoundError, match="not a finished training run"):
        ship(tmp_path, models=tmp_path / "models")


def test_cli_train_and_its_errors(tmp_path, capsys):
    raw = tiny({"env": "no_thanks_v0"}, tmp_path, total_timesteps=512)
    path = tmp_path / "cli.yaml"
    path.write_text(yaml.safe_dump(raw))
    cli_main(["train", "--config", str(path)])
    out = capsys.readouterr().out
    assert "win rate vs random" in out and "target vs heuristic" in out
    with pytest.raises(SystemExit) as exit_info:
        cli_main(["train", "--config", str(path)])
    assert exit_info.value.code == 2
    assert "pass --resume" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli_main(["train", "--config", str(path), "--resume", "--restart"])
    assert "exclude each other" in capsys.readouterr().err


# --- videos ---------------------------------------------------------------------------------
def test_video_episodes_save_the_trained_agents_games_as_videos(tmp_path):
    from moviepy.video.io.VideoFileClip import VideoFileClip

    cfg = parse_config(tiny({"env": "no_thanks_v0", "name": "nt", "video_episodes": 2}, tmp_path))
    results = train(cfg, echo=lambda _: None)
    assert results["videos"] == ["videos/nt-episode-0.mp4", "videos/nt-episode-1.mp4"]
    assert sorted(p.name for p in (tmp_path / "run" / "videos").iterdir()) == [
        "nt-episode-0.mp4",
        "nt-episode-1.mp4",
    ]
    video = VideoFileClip(str(tmp_path / "run" / results["videos"][0]))
    assert video.size[0] == 960 and video.duration >= 5  # a game of 3 players: 10+ moves
    video.close()
    assert parse_config({**BASE}).video_episodes == 0  # by default no video


def test_video_episodes_without_moviepy_fail_before_training(tmp_path, monkeypatch):
    import importlib.util

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name: None if name == "moviepy" else find_spec(name)
    )
    cfg = parse_config(tiny({"env": "no_thanks_v0", "video_episodes": 1}, tmp_path))
    with pytest.raises(ImportError, match="video_episodes=1 needs moviepy"):
        train(cfg, echo=lambda _: None)
    assert not (tmp_path / "run").exists()


# --- imitation ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("imitation", "message"),
    [
        ({"samples": 10}, "give one of the keys 'teacher' .* and 'dataset'"),
        ({"teacher": "genius"}, "agent 'genius': unknown agent spec"),
        ({"teacher": "heuristic", "rounds": 2}, "unknown key 'rounds'"),
        ({"teacher": "heuristic", "epochs": 0}, "epochs=0 must be an int >= 1"),
    ],
)
def test_bad_imitation_settings_are_named(imitation, message):
    with pytest.raises(TrainConfigError, match=message):
        parse_config({**BASE, "imitation": imitation})


def test_imitation_data_are_the_teachers_legal_moves_with_their_outcomes():
    from card_envs.training.imitation import collect

    cfg = parse_config({**BASE, "imitation": {"teacher": "heuristic", "samples": 3000}})
    data = collect(cfg, cfg.imitation)
    assert 0 < len(data.actions) <= 3000
    assert data.masks[np.arange(len(data.actions)), data.actions].all()
    assert set(np.unique(data.returns)) <= {0.0, 0.5, 1.0}  # win shares of finished games
    heuristic = make_agent("heuristic", "no_thanks_v0")
    np.testing.assert_array_equal(
        heuristic.act_batch(data.observations, data.masks.astype(np.int8)), data.actions
    )


def test_imitation_makes_the_policy_play_like_the_teacher():
    from sb3_contrib import MaskablePPO

    from card_envs.agents.ppo import PolicyAgent
    from card_envs.training.imitation import collect, imitate_policy
    from card_envs.wrappers import SingleAgentVecEnv

    cfg = parse_config(
        {**BASE, "imitation": {"teacher": "heuristic", "samples": 20_000, "epochs": 4}}
    )
    venv = SingleAgentVecEnv("no_thanks_v0", 8, opponents="random", seed=0)
    model = MaskablePPO("MlpPolicy", venv, seed=0, device="cpu")
    info = imitate_policy(model, cfg, cfg.imitation, echo=lambda _: None)
    assert info["agreement"] > 0.9 and info["samples"] > 15_000
    fresh = collect(parse_config({**BASE, "seed": 9, "imitation": {"teacher": "heuristic",
                                  "samples": 2000}}), cfg.imitation)  # fmt: skip
    copied = PolicyAgent(model.policy).act_batch(fresh.observations, fresh.masks)
    assert (copied == fresh.actions).mean() > 0.85  # on deals it never saw


# --- imitation from a dataset ---------------------------------------------------------------
@pytest.fixture(scope="module")
def datasets(tmp_path_factory) -> Path:
    """A Minari datasets root: `teach`, 3-player No Thanks games of three heuristics (written
    by the CLI, as a user would), and `other`, a few Double or Nothing games."""
    pytest.importorskip("minari")
    root = tmp_path_factory.mktemp("datasets")
    cli_main(["dataset", "--env", "no_thanks_v0", "--agents", "heuristic,heuristic,heuristic",
              "--games", "150", "--seed", "3", "--out", str(root), "--name", "teach"])  # fmt: skip
    cli_main(["dataset", "--env", "double_or_nothing_v0", "--agents", "random,random",
              "--games", "2", "--out", str(root), "--name", "other"])  # fmt: skip
    return root


def dataset_decisions(path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Observations, masks and actions of every decision of a dataset, read with Minari."""
    from minari.dataset.minari_dataset import MinariDataset

    episodes = list(MinariDataset(path / "data").iterate_episodes())
    return (
        np.concatenate([e.observations[:-1] for e in episodes]),
        np.concatenate([e.infos["action_mask"][:-1] for e in episodes]),
        np.concatenate([e.actions for e in episodes]),
    )


def test_a_dataset_warm_start_makes_a_short_run_play_its_moves(datasets, tmp_path):
    teach = datasets / "card_envs/no_thanks_v0/teach-v0"
    imitation = {"dataset": str(teach), "epochs": 4}
    cfg = parse_config({**tiny(BASE, tmp_path), "imitation": imitation})  # every decision
    train(cfg, echo=lambda _: None)
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    obs, masks, actions = dataset_decisions(teach)
    assert results["imitation"]["dataset"] == str(teach)
    assert results["imitation"]["samples"] == len(actions) > 5000  # every decision
    agent = make_agent(f"ppo:{tmp_path / 'run' / 'model.zip'}", "no_thanks_v0")
    agreement = (agent.act_batch(obs, masks) == actions).mean()
    chance = (1 / masks.sum(axis=1)).mean()  # a uniform pick among the legal actions
    assert chance < 0.6 and agreement > 0.8  # measured: 0.88 against 0.52


def test_a_dataset_is_found_by_its_id_in_the_minari_root_and_padded_for_a_mix(
    datasets, monkeypatch
):
    from card_envs.core.padding import Padding
    from card_envs.registry import make_game
    from card_envs.training.imitation import collect

    monkeypatch.setenv("MINARI_DATASETS_PATH", str(datasets))
    imitation = {"dataset": "card_envs/no_thanks_v0/teach-v0", "samples": 500}
    cfg = parse_config({**BASE, "mix": {"num_players": [3, 4]}, "imitation": imitation})
    data = collect(cfg, cfg.imitation)
    obs, masks, actions = dataset_decisions(datasets / "card_envs/no_thanks_v0/teach-v0")
    pad = Padding(make_game("no_thanks_v0", num_players=3))
    np.testing.assert_array_equal(data.observations, pad(obs[:500]))
    np.testing.assert_array_equal(data.masks, masks[:500] != 0)
    np.testing.assert_array_equal(data.actions, actions[:500])
    assert set(np.unique(data.returns)) <= {0.0, 0.5, 1.0}  # the seat's win share


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"teacher": "heuristic", "dataset": "x"}, "give one of the keys 'teacher'.*not both"),
        ({"epochs": 2}, "give one of the keys 'teacher'.*not neither"),
        ({"dataset": "{root}/nowhere"}, "neither a dataset directory .* nor a dataset id"),
        ({"dataset": "{root}/card_envs/double_or_nothing_v0/other-v0"},
         "holds double_or_nothing_v0 games; the run trains no_thanks_v0"),
        ({"dataset": "{root}/card_envs/no_thanks_v0/teach-v0", "config": {"num_players": 4}},
         r"holds games of \{'num_players': 3.*the run trains \{'num_players': 4"),
        ({"dataset": "{root}/card_envs/no_thanks_v0/teach-v0", "mix": {"num_players": [4, 5]}},
         "the run trains the settings of its mix"),
    ],
)  # fmt: skip
def test_a_dataset_that_does_not_fit_the_run_is_refused(datasets, change, message):
    change = {k: v.format(root=datasets) if isinstance(v, str) else v for k, v in change.items()}
    top = {k: change.pop(k) for k in ("config", "mix") if k in change}
    with pytest.raises(TrainConfigError, match=message):
        parse_config({**BASE, **top, "imitation": change})

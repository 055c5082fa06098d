"""All-seat self-play PPO (card_envs/training/selfplay/): its config section, the seats of a
table, cut-off games' bootstraps, a short run's outputs, resume, the stop hook, the network
in the harnesses, and a short run of each shipped config."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
import yaml

pytest.importorskip("sb3_contrib")

from card_envs.agents import make_agent  # noqa: E402
from card_envs.evaluation import evaluate  # noqa: E402
from card_envs.training.config import TrainConfigError, load_config, parse_config  # noqa: E402
from card_envs.training.selfplay.table import Table  # noqa: E402
from card_envs.training.selfplay.train import train_selfplay  # noqa: E402
from card_envs.training.train import build_parser, run  # noqa: E402

TRAINING = Path(__file__).resolve().parent.parent / "configs/training"
CONFIGS = sorted(TRAINING.glob("selfplay/*.yaml"))
# warm-started designs that trained a shipped `selfplay` network (docs/selfplay.md)
WARM = sorted(TRAINING.glob("selfplay/warm/*.yaml"))
TINY = {
    "env": "no_thanks_v0",
    "config": {"num_players": 3},
    "total_timesteps": 1200,
    "num_envs": 12,
    "selfplay": {},
    "ppo": {"n_steps": 8, "batch_size": 64, "n_epochs": 2, "net_arch": [16]},
    "evaluation": {"every": 400, "games": 6, "final_games": 6, "against": ["random"]},
    "checkpoint_every": 400,
}


def read_csv(path: Path) -> list[dict]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"selfplay": {"share": 1}}, r"unknown key 'share'; allowed keys are \['opponent_seats'\]"),
        ({"selfplay": {"opponent_seats": 1.5}}, r"opponent_seats=1.5 must be a number in \[0.0"),
        ({"env": "rummidrez_solo_v0", "config": {}}, "a one-seat game has no other seats"),
        ({"exit": {}}, "exit: and selfplay: are two ways of training: give one"),
    ],
)
def test_bad_selfplay_sections_are_named(change, message):
    with pytest.raises(TrainConfigError, match=message):
        parse_config({**TINY, **change})


def test_the_rllib_backend_refuses_a_selfplay_section(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({**TINY, "out": str(tmp_path / "run")}))
    args = build_parser().parse_args(["--config", str(path), "--backend", "rllib"])
    with pytest.raises(TrainConfigError, match="a selfplay: section .* --backend sb3 only"):
        run(args)


def table(change: dict | None = None, num_envs: int = 400, seed: int = 3) -> Table:
    cfg = parse_config({**TINY, **(change or {})})
    return Table(cfg, cfg.config, num_envs, seed)


def test_pool_seats_come_at_their_share_and_leave_the_network_a_seat_of_every_game():
    t = table({"selfplay": {"opponent_seats": 0.8}, "opponents": {"pool": {"heuristic": 1}}})
    t.set_pool([make_agent("heuristic", "no_thanks_v0", seed=0, num_players=3)], [1.0])
    t.reset()
    assert t.network.any(axis=1).all()
    # each seat the pool's with chance 0.8, redrawn when all three were (then one is not)
    want = (0.8 - 0.8**3 / 3) / 1
    assert abs((~t.network).mean() - want) < 0.03
    rows, seats = t.to_decide()
    assert t.network[rows, seats].all()
    acted = np.full(t.venv.num_envs, -1)
    t.pool_actions(acted)
    theirs = ~t.network[np.arange(t.venv.num_envs), t.venv.current_player]
    assert (acted[theirs] >= 0).all() and (acted[~theirs] == -1).all()


def test_a_cut_off_game_bootstraps_each_seat_from_its_final_observation():
    """Super Zwierzaki cut at 6 turns: every seat's last decision is done with the value of
    that seat's own final observation (here a stand-in value: the observation's sum)."""
    cfg = parse_config({**TINY, "env": "super_zwierzaki_v0",
                        "config": {"num_players": 3, "max_turns": 6}})  # fmt: skip
    t = Table(cfg, cfg.config, 8, 1)
    t.reset()
    seen = []

    def value_of(obs):
        seen.append(obs.copy())
        return obs.sum(axis=1)

    rng = np.random.default_rng(0)
    for step in range(16):
        if step == 8:  # a rollout's end: the open decisions move to the front
            t.rollout.finish(1.0, 0.95)
        rows, seats = t.to_decide()
        n = len(rows)
        t.rollout.add(
            rows,
            seats,
            t.venv.observations[rows],
            t.venv.action_masks[rows] != 0,
            np.zeros(n, np.int64),
            np.zeros(n, np.float32),
            np.zeros(n, np.float32),
        )
        masks = t.venv.action_masks
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        before = t.rollout.last.copy()
        t.step(actions, value_of)
        cut = np.flatnonzero(t.venv._truncated)
        for r in cut:
            for s in np.flatnonzero(before[r] >= 0):
                k = before[r, s]
                assert t.rollout.done[k]
                want = t.venv.final_observations[r, s].sum()
                assert t.rollout.boot[k] == pytest.approx(want)
    assert seen, "no game was cut off"


def test_a_short_run_writes_every_output_and_plays_as_a_ppo_file(tmp_path):
    cfg = parse_config({**TINY, "out": str(tmp_path / "run")})
    res = train_selfplay(cfg, echo=lambda _: None)
    out = tmp_path / "run"
    for name in ("model.zip", "results.json", "evaluations.csv", "training.csv",
                 "learning_curve.png", "checkpoints/latest.zip", "config.json"):  # fmt: skip
        assert (out / name).is_file(), name
    assert any((out / "tensorboard").iterdir())
    assert res["agent"] == "selfplay" and res["timesteps"] >= 1200
    assert json.loads((out / "results.json").read_text())["timesteps"] == res["timesteps"]
    progress = read_csv(out / "training.csv")
    assert [int(r["timesteps"]) for r in progress] == sorted(int(r["timesteps"]) for r in progress)
    periodic = [r for r in read_csv(out / "evaluations.csv") if r["kind"] == "periodic"]
    assert [int(r["timesteps"]) for r in periodic][0] == 0 and len(periodic) >= 3
    agent = make_agent(f"ppo:{out}/model.zip", "no_thanks_v0", seed=0, num_players=3)
    result = evaluate("no_thanks_v0", [agent, "random", "random"], games=6, seed=1,
                      num_players=3)  # fmt: skip
    assert result.results.rewards.shape == (6, 3)


def test_resume_goes_on_from_the_checkpoint(tmp_path):
    raw = {**TINY, "out": str(tmp_path / "run")}
    first = train_selfplay(parse_config({**raw, "total_timesteps": 800}), echo=lambda _: None)
    state = json.loads((tmp_path / "run/checkpoints/latest.json").read_text())
    assert state["timesteps"] == first["timesteps"]
    lines = []
    res = train_selfplay(parse_config(raw), resume=True, echo=lines.append)
    assert any(line.startswith("resuming ") for line in lines)
    assert res["timesteps"] >= 1200 > first["timesteps"]
    rows = read_csv(tmp_path / "run/training.csv")
    steps = [int(r["timesteps"]) for r in rows]
    assert steps == sorted(set(steps))  # nothing logged twice
    finals = [r for r in read_csv(tmp_path / "run/evaluations.csv") if r["kind"] == "final"]
    assert {int(r["timesteps"]) for r in finals} == {res["timesteps"]}
    with pytest.raises(TrainConfigError, match="the config differs"):
        changed = {**raw, "ppo": {**raw["ppo"], "n_epochs": 3}}
        train_selfplay(parse_config(changed), resume=True, echo=lambda _: None)


def test_stop_when_ends_the_run_after_the_evaluation_it_accepts(tmp_path):
    cfg = parse_config({**TINY, "out": str(tmp_path / "run"), "total_timesteps": 10**6})
    told = []

    def stop(rows):
        told.append(rows)
        return len(told) == 2

    res = train_selfplay(cfg, echo=lambda _: None, stop_when=stop)
    assert len(told) == 2 and res["stopped_by_evaluation"]
    assert 400 <= res["timesteps"] < 800 + 12 * 8


def test_pool_seats_train_nothing_and_the_run_counts_only_the_networks_decisions(tmp_path):
    """12 games x 8 steps a rollout: 96 decisions, all samples in pure self-play; with every
    seat the pool's but the one kept for the network, about a third at 3 players."""
    per_rollout = {}
    for share in (0.0, 1.0):
        raw = {
            **TINY, "out": str(tmp_path / f"run{share}"), "total_timesteps": 1000,
            "selfplay": {"opponent_seats": share}, "opponents": {"pool": {"random": 1}},
        }  # fmt: skip
        res = train_selfplay(parse_config(raw), echo=lambda _: None)
        rows = read_csv(tmp_path / f"run{share}/training.csv")
        per_rollout[share] = res["timesteps"] / len(rows)
        wins = [r["train_win_rate"] for r in rows]
        assert all(w == "nan" for w in wins) if share == 0 else "nan" not in wins[-1:]
    assert 86 <= per_rollout[0.0] <= 96
    assert 20 <= per_rollout[1.0] <= 45


def test_cli_dispatches_a_selfplay_section(tmp_path, capsys):
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({**TINY, "out": str(tmp_path / "run")}))
    run(build_parser().parse_args(["--config", str(path)]))
    out = capsys.readouterr().out
    assert "learner steps in" in out and "wrote" in out
    assert json.loads((tmp_path / "run/results.json").read_text())["agent"] == "selfplay"


def test_shipped_selfplay_configs_cover_every_multi_seat_game_and_fit_an_hour():
    from card_envs.registry import batched_env_ids, make_game

    envs = {load_config(p).env for p in CONFIGS}
    assert envs == {e for e in batched_env_ids() if make_game(e).num_players > 1}
    for p in CONFIGS:
        cfg = load_config(p)
        assert cfg.selfplay is not None and cfg.imitation is None
        assert cfg.time_limit_minutes <= 55 and cfg.torch_threads + cfg.num_threads <= 4


@pytest.mark.slow  # training runs of every shipped config, as in test_training: 30 s
@pytest.mark.parametrize("path", CONFIGS + WARM, ids=lambda p: f"{p.parent.name}-{p.stem}")
def test_a_short_run_of_each_shipped_selfplay_config(path, tmp_path):
    raw = yaml.safe_load(path.read_text())
    first, *rest = raw["mix"]
    raw |= {
        "out": str(tmp_path / "run"), "total_timesteps": 600, "time_limit_minutes": None,
        "mix": {first: raw["mix"][first][:2], **{k: raw["mix"][k][:1] for k in rest}},
        "num_envs": 8, "ppo": {**raw["ppo"], "n_steps": 8, "batch_size": 64},
        "evaluation": {**raw["evaluation"], "every": 300, "games": 4, "final_games": 4,
                       "runs": 2 if raw["evaluation"].get("runs") else 0},
        "opponents": {**raw["opponents"], "snapshot_every": 200},
    }  # fmt: skip
    if "imitation" in raw:
        raw["imitation"] = {**raw["imitation"], "samples": 64, "epochs": 1}
    res = train_selfplay(parse_config(raw, default_name=path.stem), echo=lambda _: None)
    assert res["timesteps"] >= 600 and res["final_evaluation"]
    assert (tmp_path / "run/model.zip").is_file()


SHIPPED = {  # the shipped `selfplay` networks and the configs that trained them
    "no_thanks_v0": "selfplay/no_thanks.yaml",
    "double_or_nothing_v0": "selfplay/warm/double_or_nothing.yaml",
}


@pytest.mark.parametrize("env_id", SHIPPED)
def test_each_shipped_selfplay_network_plays_its_spec_and_names_its_config(env_id):
    from card_envs.agents.ppo import has_shipped_model, model_file
    from card_envs.training.ship import MODELS

    assert has_shipped_model(env_id, "selfplay")
    # its note names the config that trained it, and that config's mix is what it plays
    note = json.loads((MODELS / model_file(env_id, "selfplay")).with_suffix(".json").read_text())
    cfg = load_config(TRAINING / SHIPPED[env_id])
    assert note["name"] == cfg.name and note["env"] == env_id
    assert note["mix"] == {option: list(values) for option, values in cfg.mix}
    for setting in (cfg.settings[0], cfg.settings[-1]):
        n = setting["num_players"]
        agent = make_agent("selfplay", env_id, seed=0, **setting)
        assert agent.spec == "selfplay"
        result = evaluate(env_id, [agent] + ["random"] * (n - 1), games=2 * n, seed=3, **setting)
        assert result[0].games == 2 * n


def test_video_episodes_without_moviepy_fail_before_training(tmp_path, monkeypatch):
    import importlib.util

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name: None if name == "moviepy" else find_spec(name)
    )
    cfg = parse_config({**TINY, "out": str(tmp_path / "run"), "video_episodes": 1})
    with pytest.raises(ImportError, match="video_episodes=1 needs moviepy"):
        train_selfplay(cfg, echo=lambda _: None)
    assert not (tmp_path / "run").exists()

"""Expert iteration (card_envs/training/exit/): the config section, the search targets,
the recorded positions, a whole run with its outputs and resume, and the `exit` agent."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from card_envs.agents import make_agent, ppo  # noqa: E402
from card_envs.core import layout  # noqa: E402
from card_envs.registry import make_game, make_vec  # noqa: E402
from card_envs.training.config import TrainConfigError, parse_config  # noqa: E402
from card_envs.training.decisions import record  # noqa: E402
from card_envs.training.exit.rounds import PositionPlayers, play_and_search, search_targets  # noqa: E402

RUN = {
    "env": "no_thanks_v0",
    "config": {"num_players": 3},
    "num_envs": 16,
    "ppo": {"net_arch": [32, 32]},
    "evaluation": {"games": 12, "final_games": 12, "against": ["heuristic"]},
    "exit": {
        "rounds": 2, "positions": 96, "search": "ismcts:40", "workers": 1, "epochs": 2,
        "guide": "none",  # the plain search compiles fast; the guided ones are slow tests
    },
}  # fmt: skip


def config(tmp_path: Path, **exit_keys):
    return parse_config({**RUN, "out": str(tmp_path / "run"), "exit": {**RUN["exit"], **exit_keys}})


# --- the config section -------------------------------------------------------------------
def test_an_exit_section_needs_no_timesteps_and_searches_at_the_games_10ms_spec(tmp_path):
    raw = {**RUN, "exit": {"rounds": 3}}
    cfg = parse_config(raw)
    assert cfg.exit.search == make_game("no_thanks_v0").ismcts_10ms
    assert cfg.exit.guide == "prior"  # the network as the search's prior (docs/exit.md)
    sz = parse_config({**raw, "env": "super_zwierzaki_v0", "config": {}})
    assert sz.exit.search == "ismcts:1000:depth=40"
    with pytest.raises(TrainConfigError, match="total_timesteps"):  # PPO still needs it
        parse_config({k: v for k, v in raw.items() if k != "exit"})


@pytest.mark.parametrize(
    "bad, match",
    [
        ({"search": "heuristic"}, "search='heuristic' must be an ismcts spec"),
        ({"search": "ismcts:many"}, "bad ismcts spec"),
        ({"share": 0}, "share=0 searches no decision"),
        ({"share": 1.5}, "share"),
        ({"heuristic_seats": -0.1}, "heuristic_seats"),
        ({"workers": 0}, "workers=0"),
        ({"rounds": 0}, "rounds=0"),
        ({"simulations": 100}, "simulations"),
        ({"guide": "policy"}, r"guide='policy' is not one of \['none', 'prior'"),
        ({"targets": "shares"}, r"targets='shares' is not one of \['visits', 'move'\]"),
    ],
)
def test_a_wrong_exit_value_is_refused_naming_it(bad, match):
    with pytest.raises(TrainConfigError, match=match):
        parse_config({**RUN, "exit": {**RUN["exit"], **bad}})


def test_the_fingerprint_lets_a_run_grow_and_move_but_not_learn_otherwise(tmp_path):
    base = config(tmp_path).fingerprint()
    assert config(tmp_path, rounds=9).fingerprint() == base
    assert config(tmp_path, workers=2).fingerprint() == base
    assert config(tmp_path, positions=97).fingerprint() != base
    assert config(tmp_path, search="ismcts:41").fingerprint() != base


def test_rllib_does_not_take_an_exit_section(tmp_path):
    import yaml

    from card_envs.training.train import build_parser, run

    path = tmp_path / "exit.yaml"
    path.write_text(yaml.safe_dump({**RUN, "out": str(tmp_path / "run")}))
    args = build_parser().parse_args(["--config", str(path), "--backend", "rllib"])
    with pytest.raises(TrainConfigError, match="--backend sb3 only"):
        run(args)


# --- targets and positions ----------------------------------------------------------------
def test_targets_are_the_visit_shares_or_the_move_of_a_flat_root():
    shares = np.array(
        [
            [0.0, 0.7, 0.2, 0.1],  # a tree search: its shares
            [0.0, 0.5, 0.5, 0.0],  # two candidates with the same visits (PAIRED): the move
            [0.0, 0.0, 1.0, 0.0],  # a forced move
            [0.25, 0.25, 0.25, 0.25],
        ]
    )
    moves = np.array([1, 2, 2, 3])
    out = search_targets(shares, moves)
    np.testing.assert_allclose(out[0], shares[0])
    np.testing.assert_array_equal(out[1], [0, 0, 1, 0])
    np.testing.assert_array_equal(out[2], [0, 0, 1, 0])
    np.testing.assert_array_equal(out[3], [0, 0, 0, 1])
    assert out.dtype == np.float32
    moved = search_targets(shares, moves, "move")  # targets: move: every row its move, one-hot
    np.testing.assert_array_equal(moved, np.eye(4, dtype=np.float32)[moves])
    assert moved.dtype == np.float32


@pytest.mark.parametrize("env_id", ["no_thanks_v0", "super_zwierzaki_v0"])
def test_recorded_positions_are_the_rows_the_observations_come_from(env_id):
    """Each kept decision's row observes to its observation, its legal actions are its mask,
    and the move played there was legal."""
    venv = make_vec(env_id, 12, seed=3)
    game = venv.game
    players = PositionPlayers(venv, _untrained_policy(env_id), None, 0.5, seed=1)
    ends = []

    def ended(instances: np.ndarray) -> None:
        ends.append(len(instances))
        players.new_games(instances)

    d = record(venv, players, 150, None, 0.3, np.random.default_rng(0), True, ended)
    assert players.games == sum(ends) > 0
    obs = np.zeros(game.obs_size, dtype=np.float32)
    mask = np.zeros(game.num_actions, dtype=np.int8)
    for row, seen, legal, action in zip(d.rows, d.observations, d.masks, d.actions, strict=True):
        type(game).observe_kernel(row, row[layout.PLAYER], obs)
        type(game).legal_kernel(row, mask)
        np.testing.assert_array_equal(obs, seen)
        np.testing.assert_array_equal(mask != 0, legal)
        assert legal[action]
    assert len({r.tobytes() for r in d.rows}) > 100  # from many positions, not a few


def test_a_kept_decisions_return_is_what_its_seat_got_when_that_game_ended():
    """Oracle: the game played on from the kept row by the same (deterministic) players,
    one row in plain Python; No Thanks pays its win share at the end only."""
    venv = make_vec("no_thanks_v0", 10, seed=8, num_players=4)
    game = venv.game
    heuristic = make_agent("heuristic", "no_thanks_v0", num_players=4)
    d = record(venv, heuristic.act_positions, 120, None, 0.2, np.random.default_rng(2), True)
    kernels = type(game)
    obs = np.zeros((1, game.obs_size), dtype=np.float32)
    mask = np.zeros((1, game.num_actions), dtype=np.int8)
    for row, got in zip(d.rows, d.returns, strict=True):
        row, seat, total = row.copy(), row[layout.PLAYER], 0.0
        rewards = np.zeros(game.num_players, dtype=np.float32)
        while row[layout.STATUS] == layout.RUNNING:
            kernels.observe_kernel(row, row[layout.PLAYER], obs[0])
            kernels.legal_kernel(row, mask[0])
            kernels.step_kernel(row, int(heuristic.act_batch(obs, mask)[0]), rewards)
            total += rewards[seat]
        assert got == pytest.approx(total), row


def _untrained_model(env_id: str, net_arch=(16,), seed: int = 0, **config):
    """A MaskablePPO model for a config of `env_id`, as the loop builds it."""
    from sb3_contrib import MaskablePPO

    from card_envs.wrappers import SingleAgentVecEnv

    venv = SingleAgentVecEnv(env_id, 2, opponents="random", seed=0, **config)
    kwargs = {"net_arch": list(net_arch)}
    return MaskablePPO("MlpPolicy", venv, seed=seed, device="cpu", policy_kwargs=kwargs)


def _untrained_policy(env_id: str, **config):
    return _untrained_model(env_id, **config).policy


def test_a_run_starts_from_a_model_file_with_its_layers_and_refuses_others(tmp_path):
    """`exit.start` copies a file's weights into the run's new network; a file with other
    layers is refused naming the run's; a start that is no file or shipped model, or
    given beside an imitation, is refused by the config."""
    import torch

    from card_envs.training.exit.rounds import load_start

    source = _untrained_model("no_thanks_v0", (32, 32), seed=1, num_players=3)
    source.save(tmp_path / "start.zip")
    run = _untrained_model("no_thanks_v0", (32, 32), seed=0, num_players=3)
    cfg = config(tmp_path, start=str(tmp_path / "start.zip"))
    assert load_start(run, cfg) == str(tmp_path / "start.zip")
    ours, theirs = run.policy.state_dict(), source.policy.state_dict()
    assert ours.keys() == theirs.keys() and all(torch.equal(ours[k], theirs[k]) for k in ours)

    _untrained_model("no_thanks_v0", (16,), num_players=3).save(tmp_path / "small.zip")
    with pytest.raises(ValueError, match=r"other layers than ppo.net_arch=\[32, 32\]"):
        load_start(run, config(tmp_path, start=str(tmp_path / "small.zip")))
    with pytest.raises(TrainConfigError, match="start='nowhere.zip' is neither ppo, exit nor"):
        config(tmp_path, start="nowhere.zip")
    with pytest.raises(TrainConfigError, match="exit.start and imitation are both"):
        parse_config({**RUN, "exit": {**RUN["exit"], "start": "ppo"},
                      "imitation": {"teacher": "heuristic"}})  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("env_id", ["no_thanks_v0", "rummidrez_v0"])
def test_searched_targets_are_distributions_over_legal_moves_led_by_the_searchs(env_id, tmp_path):
    """Rummidrez's meld decisions are PAIRED (every candidate the same visits): one-hot."""
    search = {**RUN["exit"], "search": "ismcts:16", "positions": 64}
    cfg = parse_config({**RUN, "env": env_id, "config": {}, "out": str(tmp_path), "exit": search})
    searched, times = play_and_search(cfg, _untrained_policy(env_id), 1)
    t = searched.targets
    assert len(t) == 64 and set(times) == {"play_s", "search_s"}
    np.testing.assert_allclose(t.sum(axis=1), 1.0, rtol=1e-5)
    assert not (t * ~searched.masks).any()  # nothing on an illegal move
    assert 0.0 <= searched.agreement <= 1.0 and searched.games > 0


def _rows(path: Path, drop=("minutes", "play_s", "search_s", "fit_s", "eval_s")) -> list[dict]:
    with path.open(newline="") as f:
        return [{k: v for k, v in r.items() if k not in drop} for r in csv.DictReader(f)]


@pytest.mark.slow
def test_a_run_writes_everything_resumes_as_one_and_ships_as_the_exit_agent(tmp_path, monkeypatch):
    from card_envs.training.exit.train import train_exit
    from card_envs.training.ship import ship

    quiet = dict(echo=lambda _: None)
    whole = train_exit(config(tmp_path / "whole", rounds=3, workers=2), **quiet)
    assert whole["rounds"] == 3 and whole["timesteps"] == 3 * 96 and whole["agent"] == "exit"
    out = tmp_path / "whole" / "run"
    for name in ("model.zip", "results.json", "learning_curve.png", "config.json"):
        assert (out / name).is_file(), name
    assert list((out / "tensorboard").rglob("events.out.tfevents.*"))
    evals = _rows(out / "evaluations.csv")
    assert [(r["round"], r["kind"]) for r in evals] == [
        ("0", "periodic"), ("1", "periodic"), ("2", "periodic"), ("3", "periodic"), ("3", "final")
    ]  # fmt: skip
    assert sorted(p.stem for p in (out / "checkpoints" / "positions").glob("*.npz")) == [
        "1",
        "2",
        "3",
    ]  # fmt: skip  (window 3)

    # two rounds, then one more after a resume, on one worker: the same rounds
    train_exit(config(tmp_path / "parts", rounds=2), **quiet)
    resumed = train_exit(config(tmp_path / "parts", rounds=3), resume=True, **quiet)
    parts = tmp_path / "parts" / "run"
    assert _rows(parts / "training.csv") == _rows(out / "training.csv")
    assert _rows(parts / "evaluations.csv") == evals
    assert [{**r, "minutes": 0} for r in resumed["final_evaluation"]] == [
        {**r, "minutes": 0} for r in whole["final_evaluation"]
    ]

    models = tmp_path / "models"
    shipped = ship(out, models=models)
    assert shipped.name == "no_thanks_v0.exit.zip"
    assert json.loads(shipped.with_suffix(".json").read_text())["config"]["num_players"] == 3
    monkeypatch.setattr(ppo, "_models_dir", lambda: models)
    agent = make_agent("exit", "no_thanks_v0", num_players=3)
    from_path = make_agent(f"exit:{out / 'model.zip'}", "no_thanks_v0", num_players=3)
    assert (agent.spec, from_path.name) == ("exit", "exit:model")
    venv = make_vec("no_thanks_v0", 64, seed=2, num_players=3)
    obs, masks = venv.reset()
    np.testing.assert_array_equal(agent.act_batch(obs, masks), from_path.act_batch(obs, masks))


def test_the_exit_spec_without_a_shipped_model_names_the_file(tmp_path, monkeypatch):
    monkeypatch.setattr(ppo, "_models_dir", lambda: tmp_path)
    with pytest.raises(ppo.ModelError, match=r"no exit model is shipped .*no_thanks_v0\.exit\.zip"):
        make_agent("exit", "no_thanks_v0")
    with pytest.raises(ValueError, match="'exit:' needs a path"):
        make_agent("exit:", "no_thanks_v0")


EXIT_CONFIGS = sorted(Path(__file__).resolve().parent.parent.glob("configs/training/exit/*.yaml"))


def test_every_batched_game_has_an_exit_config_that_validates():
    from card_envs.registry import batched_env_ids
    from card_envs.training.config import load_config

    configs = [load_config(path) for path in EXIT_CONFIGS]
    assert sorted(c.env for c in configs) == sorted(batched_env_ids())
    for c in configs:
        assert c.exit is not None and c.time_limit_minutes <= 60, c.name


@pytest.mark.slow
@pytest.mark.parametrize("guide", ["prior", "rollout", "both"])
def test_a_guided_search_reads_the_current_network_and_gives_the_same_targets_anywhere(
    guide, tmp_path
):
    """The searches read this round's network (their targets differ from the plain
    search's) and one worker or two give the same targets."""
    cfg = config(tmp_path, guide=guide, positions=64)
    policy = _untrained_policy("no_thanks_v0", num_players=3)
    one, _ = play_and_search(cfg, policy, 1)
    two, _ = play_and_search(config(tmp_path, guide=guide, positions=64, workers=2), policy, 1)
    np.testing.assert_array_equal(one.targets, two.targets)
    plain, _ = play_and_search(config(tmp_path, positions=64), policy, 1)
    assert not np.array_equal(one.targets, plain.targets)

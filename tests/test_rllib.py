"""The RLlib backend's pieces: the multi-agent env plays the engine's game (every setting of
a mix in turn, padded), the masked module never gives an illegal action probability mass,
and runs train with every key of the SB3 path's configs (mix, imitation, videos)."""

import csv
import dataclasses
import importlib.resources
import importlib.util
import zlib
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
import torch
import yaml
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig

from card_envs.agents import make_agent
from card_envs.agents.rllib import RLModuleAgent
from card_envs.core import layout
from card_envs.core.padding import Padding
from card_envs.core.threads import usable_cores
from card_envs.evaluation import evaluate
from card_envs.registry import make_game, make_vec, multi_agent_env_ids
from card_envs.training.config import TrainConfigError, parse_config
from card_envs.training.imitation import collect
from card_envs.training.rllib.batched import BatchedEnvRunner
from card_envs.training.rllib.env import TurnEnv, agent_id, observation_space, parse_agent_id
from card_envs.training.rllib.modules import AgentModule, MaskedPPOModule
from card_envs.training.rllib.train import (
    LEARNER,
    SeatMapping,
    algorithm_config,
    copy_learner,
    pool_modules,
    restore,
    train,
    warm_start,
)
from card_envs.training.train import build_parser, run

pytestmark = pytest.mark.slow  # see pyproject's markers: out of the fast tier


def test_the_env_plays_the_engines_game_turn_by_turn():
    env = TurnEnv({"env_id": "no_thanks_v0", "settings": [{"num_players": 3}]})
    game = make_game("no_thanks_v0", num_players=3)
    row = game.new_row()
    obs, _ = env.reset(seed=5)
    game.reset_row(row, 5)
    rng = np.random.default_rng(0)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    rewards = np.zeros(3, dtype=np.float32)
    while True:
        seat = int(row[layout.PLAYER])
        assert list(obs) == [agent_id(seat)]
        mask = obs[agent_id(seat)]["action_mask"]
        action = int(rng.choice(np.flatnonzero(mask)))
        obs, rew, term, trunc, _ = env.step({agent_id(seat): action})
        type(game).step_kernel(row, action, rewards)
        for a, r in rew.items():
            returns[a] += r
        if term["__all__"] or trunc["__all__"]:
            break
    assert set(obs) == set(env.possible_agents)
    _, wins = game.outcome(row)
    assert [returns[agent_id(p)] for p in range(3)] == list(wins.astype(np.float32))


def test_an_illegal_action_is_refused_naming_the_legal_ones():
    env = TurnEnv({"env_id": "surfosaurus_max_v0", "settings": [{}]})
    obs, _ = env.reset(seed=1)
    ((agent, o),) = obs.items()
    illegal = int(np.flatnonzero(o["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match=rf"illegal action {illegal} .*legal: \["):
        env.step({agent: illegal})


def test_a_mixed_env_plays_its_settings_in_turn_with_padded_observations():
    """Every reset starts the next setting's game (an equal share of the games), its agents
    name the setting, and their observations are the game's own scattered by `Padding`."""
    settings = [{"num_players": 3}, {"num_players": 4, "public_tokens": True}]
    env = TurnEnv({"env_id": "no_thanks_v0", "settings": settings, "padded": True})
    games = [make_game("no_thanks_v0", **s) for s in settings]
    space = observation_space(games[0], padded=True)
    assert all(s == space for s in env.observation_spaces.values())
    assert len(env.possible_agents) == 7
    rng = np.random.default_rng(0)
    played = []
    for episode in range(6):
        obs, _ = env.reset(seed=4 if episode == 0 else None)  # 4: setting 0 first
        part = parse_agent_id(next(iter(obs)))[0]
        played.append(part)
        game = games[part]
        row = game.new_row()
        row[:] = env._row
        while True:
            ((agent, o),) = obs.items()
            own = np.zeros(game.obs_size, dtype=np.float32)
            type(game).observe_kernel(row, int(row[layout.PLAYER]), own)
            assert agent == agent_id(int(row[layout.PLAYER]), part)
            assert space.contains(o) and np.array_equal(o["observations"], Padding(game)(own))
            action = int(rng.choice(np.flatnonzero(o["action_mask"])))
            obs, _, term, trunc, _ = env.step({agent: action})
            type(game).step_kernel(row, action, np.zeros(game.num_players, np.float32))
            if term["__all__"] or trunc["__all__"]:
                assert set(obs) == {agent_id(p, part) for p in range(game.num_players)}
                break
    assert played == [0, 1, 0, 1, 0, 1]
    with pytest.raises(ValueError, match="2 settings need padded observations"):
        TurnEnv({"env_id": "no_thanks_v0", "settings": settings})


class _Episode:
    def __init__(self, id_: str) -> None:
        self.id_ = id_


def test_the_mapping_seats_the_learner_at_a_real_seat_of_the_settings_table():
    """With settings of 3 and 5 players, every game has the learner at exactly one seat,
    each seat of its table in turn; scripted opponents are their setting's module."""
    pool = [(["agent_0_s0", "agent_0_s1"], 1.0, "random"), (["snapshot_0"] * 2, 1.0, "self")]
    mapping = SeatMapping([3, 5], pool, seed=0)
    for part, n in enumerate([3, 5]):
        seats = []
        for game in range(200):
            modules = [mapping(agent_id(p, part), _Episode(f"g{game}")) for p in range(n)]
            assert modules.count(LEARNER) == 1
            assert set(modules) - {LEARNER} <= {f"agent_0_s{part}", "snapshot_0"}
            seats.append(modules.index(LEARNER))
        assert sorted(set(seats)) == list(range(n))


def test_an_agent_module_plays_its_settings_own_observations_out_of_padded_ones():
    game = make_game("no_thanks_v0", num_players=4, public_tokens=True)
    cfg = {"env_id": game.env_id, "config": game.config, "spec": "heuristic", "padded": True}
    module = AgentModule(
        observation_space=observation_space(game, padded=True),
        action_space=gym.spaces.Discrete(game.num_actions),
        model_config=cfg,
    )
    venv = make_vec(game.env_id, 64, seed=3, **game.config)
    heuristic = make_agent("heuristic", game.env_id, **game.config)
    obs, masks = venv.reset()
    for _ in range(20):
        padded = {"observations": Padding(game)(obs), "action_mask": masks.astype(np.float32)}
        actions = module.forward_inference({Columns.OBS: padded})[Columns.ACTIONS]
        assert np.array_equal(actions, heuristic.act_batch(obs, masks))
        obs, masks, *_ = venv.step(actions)


def test_the_masked_module_gives_illegal_actions_no_probability():
    game = make_game("surfosaurus_max_v0")
    space = observation_space(game)
    module = MaskedPPOModule(
        observation_space=space,
        action_space=gym.spaces.Discrete(game.num_actions),
        model_config=DefaultModelConfig(fcnet_hiddens=[32]),
    )
    rng = np.random.default_rng(0)
    n = 64
    obs = torch.tensor(rng.normal(size=(n, game.obs_size)) * 10, dtype=torch.float32)
    mask = torch.tensor(rng.random((n, game.num_actions)) < 0.2, dtype=torch.float32)
    mask[:, 0] = 1.0  # at least one legal action per row
    for forward in (module.forward_inference, module.forward_exploration, module.forward_train):
        out = forward({Columns.OBS: {"observations": obs, "action_mask": mask}})
        probs = torch.softmax(out[Columns.ACTION_DIST_INPUTS], dim=-1)
        assert torch.all(probs[mask == 0] == 0.0)
        assert torch.allclose(probs.sum(-1), torch.ones(n))


TINY = {
    "env": "no_thanks_v0",
    "config": {"num_players": 3},
    "seed": 0,
    "total_timesteps": 12_000,
    "num_envs": 32,
    "opponents": {"pool": {"random": 0.7, "self": 0.3}, "snapshot_every": 4_000, "snapshots": 2},
    "ppo": {"n_steps": 32, "batch_size": 512, "n_epochs": 4, "net_arch": [64, 64]},
    "evaluation": {"every": 6_000, "games": 30, "final_games": 300, "against": ["random"]},
    "checkpoint_every": 6_000,
    "rllib": {"num_env_runners": 2, "num_envs_per_env_runner": 16},
}


def _batched_runner(tmp_path, num_envs: int, **changes) -> BatchedEnvRunner:
    """The driver's batched env runner of TINY."""
    rllib = {"num_env_runners": 0, "num_envs_per_env_runner": num_envs}
    return BatchedEnvRunner(config=algorithm_config(_config(tmp_path, rllib=rllib, **changes), 0))


def _finished_games(chunks: list) -> dict[str, dict]:
    """The games that ended among episode chunks, by episode id: per agent its observations,
    masks, actions, rewards and module (the chunks joined), and whether it terminated."""
    games: dict[str, dict] = {}
    for ep in chunks:
        game = games.setdefault(ep.id_, {"agents": {}, "terminated": None})
        if ep.is_done:
            game["terminated"] = ep.is_terminated
        for aid, sa in ep.agent_episodes.items():
            obs = sa.get_observations(slice(0, len(sa) + 1))
            rec = game["agents"].setdefault(
                aid, {"obs": [], "masks": [], "actions": [], "rewards": [], "module": sa.module_id}
            )
            if rec["obs"]:  # a chunk starts with the observation the last one ended with
                assert np.array_equal(obs["observations"][0], rec["obs"][-1])
            start = 1 if rec["obs"] else 0
            rec["obs"] += list(obs["observations"][start:])
            rec["masks"] += list(obs["action_mask"][start:])
            rec["actions"] += list(sa.get_actions())
            rec["rewards"] += list(sa.get_rewards())
    return {i: g for i, g in games.items() if g["terminated"] is not None}


def _replay(env: TurnEnv, seed: int | None, game_id: str, game: dict, part: int = 0) -> None:
    """Play a joined game of setting `part` on `env`, which plays that setting alone: the
    agents are that setting's, with the same observations and masks at every turn, the same
    last observations and rewards per seat; the learner in the seat `SeatMapping` gives, the
    other seats that setting's modules."""
    n = env.game.num_players
    agents = {parse_agent_id(a)[1]: rec for a, rec in game["agents"].items()}
    assert set(game["agents"]) == {agent_id(seat, part) for seat in agents}
    assert set(agents) <= set(range(n))
    learner = zlib.crc32(game_id.encode()) % n
    assert [seat for seat, rec in agents.items() if rec["module"] == LEARNER] == [learner]
    for rec in agents.values():
        assert rec["module"] in {LEARNER, f"agent_0_s{part}", "snapshot_0", "snapshot_1"}
    obs, _ = env.reset(seed=seed)
    turn = dict.fromkeys(agents, 0)
    returns = dict.fromkeys(agents, 0.0)
    while True:
        ((aid, o),) = obs.items()
        seat = parse_agent_id(aid)[1]
        rec, t = agents[seat], turn[seat]
        assert np.array_equal(o["observations"], rec["obs"][t])
        assert np.array_equal(o["action_mask"], rec["masks"][t])
        turn[seat] += 1
        obs, rewards, term, trunc, _ = env.step({aid: int(rec["actions"][t])})
        for a, r in rewards.items():
            returns[parse_agent_id(a)[1]] += r
        if term["__all__"] or trunc["__all__"]:
            break
    assert game["terminated"] == term["__all__"]
    for seat, rec in agents.items():
        assert turn[seat] == len(rec["actions"]) == len(rec["rewards"])
        assert np.array_equal(obs[agent_id(seat)]["observations"], rec["obs"][-1])
        assert not rec["masks"][-1].any()
        assert sum(rec["rewards"]) == pytest.approx(returns[seat])


@pytest.mark.parametrize(
    ("mix", "threads"), [(None, 1), ({"num_players": [3, 4]}, 1), (None, usable_cores())]
)
def test_the_batched_runner_plays_the_engines_games(tmp_path, mix, threads):
    """Three games asked for, sampled in short chunks (cut mid-game); each row's games,
    joined, replay on a one-setting `TurnEnv` seeded as the row (the runner's seed + row).
    With a mix of 3 and 4 players, the 3 games round up to 2 per setting (rows 0-1 and
    2-3), their agents name the setting, and the observations are padded by that setting's
    `Padding` (as `TurnEnv` pads them: tested above). The config's `num_threads` steps the
    runner's env on that many threads, and the games replay the same."""
    changes = {"num_threads": threads, **({"mix": mix} if mix else {})}
    runner = _batched_runner(tmp_path, num_envs=3, **changes)
    assert [part.num_threads for part in runner.env.parts] == [threads] * len(runner.env.parts)
    settings = runner.config.env_config["settings"]
    per = runner.num_envs // len(settings)
    assert (runner.num_envs, per) == ((4, 2) if mix else (3, 3))
    chunks, row_of = [], {}
    for _ in range(12):
        chunks += runner.sample(num_timesteps=30, explore=True)
        row_of |= {g.episode.id_: i for i, g in enumerate(runner._games)}  # games under way
    games = _finished_games(chunks)
    assert set(games) <= set(row_of)
    for row in range(runner.num_envs):
        part = row // per
        env = TurnEnv({
            "env_id": "no_thanks_v0", "settings": [settings[part]], "padded": bool(mix),
        })  # fmt: skip
        ids = [i for i in games if row_of[i] == row]  # in the order they were played
        assert ids
        for k, game_id in enumerate(ids):
            seed = runner._seed + row if k == 0 else None
            _replay(env, seed, game_id, games[game_id], part)


def test_the_batched_runner_passes_illegal_actions_to_the_engine_which_refuses_them(tmp_path):
    runner = _batched_runner(tmp_path, num_envs=2, opponents={"pool": {"random": 1}})
    agent = runner.module["agent_0_s0"].agent
    agent.act_batch = lambda obs, masks: np.full(len(obs), masks.shape[1])  # out of range
    with pytest.raises(ValueError, match="illegal action 2 in instance"):
        runner.sample(num_timesteps=50, explore=True)


@pytest.fixture(scope="module")
def local_ray():
    import ray

    ray.init(num_cpus=3, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def _config(tmp_path, **changes):
    return parse_config({**TINY, "out": str(tmp_path / "run"), **changes})


def test_a_short_run_learns_to_beat_random(local_ray, tmp_path):
    """Two env runners, a fixed seed: the trained policy beats random players clearly more
    often than the untrained one, in the project's own evaluation."""
    cfg = _config(tmp_path)
    untrained = algorithm_config(cfg, 0).build_algo()
    agent = RLModuleAgent(untrained.get_module(LEARNER))
    before = evaluate(cfg.env, [agent, "random", "random"], 300, 1, progress=False, **cfg.config)
    untrained.stop()
    results = train(cfg, echo=lambda _: None)
    after = results["final_evaluation"][0]
    assert after["opponent"] == "random" and after["games"] == 300
    assert after["ci_low"] > before[0].win_rate_ci[1], (before[0].win_rate, after["win_rate"])
    out = Path(cfg.out)
    assert (out / "rllib_module").is_dir() and (out / "training.csv").exists()
    assert list((out / "tensorboard").iterdir())
    played = make_agent(results["agent_spec"], cfg.env, **cfg.config)
    again = evaluate(cfg.env, [played, "random", "random"], 300, 2, progress=False, **cfg.config)
    assert again[0].win_rate > before[0].win_rate_ci[1]


def test_a_resumed_run_continues_from_its_checkpoint(local_ray, tmp_path):
    """The first run samples on the driver, the resumed one on an env runner (a new scale);
    short evaluations: what is checked is the run's record, not its strength."""
    short = {"every": 6_000, "games": 6, "final_games": 6, "against": ["random"]}
    cfg = _config(tmp_path, total_timesteps=6_000, evaluation=short)
    first = train(cfg, num_env_runners=0, echo=lambda _: None)
    with pytest.raises(TrainConfigError, match="already holds a training run"):
        train(cfg)
    changed = _config(tmp_path, total_timesteps=6_000, seed=1, evaluation=short)
    with pytest.raises(TrainConfigError, match="the config differs"):
        train(changed, resume=True)
    saved = _weights(Path(cfg.out) / "rllib_module")
    messages = []
    longer = _config(tmp_path, total_timesteps=9_000, evaluation=short)
    resumed = train(longer, resume=True, num_env_runners=1, echo=messages.append)
    assert messages[0].startswith(f"resuming {cfg.name} at {first['timesteps']:,} learner steps")
    assert resumed["timesteps"] >= 9_000 and resumed["num_env_runners"] == 1  # a new scale
    steps = [int(r["timesteps"]) for r in _rows(Path(cfg.out) / "training.csv")]
    assert steps == sorted(set(steps)) and steps[-1] == resumed["timesteps"]
    assert any(s == first["timesteps"] for s in steps)  # the first run's rows are kept
    assert _weights(Path(cfg.out) / "rllib_module") != saved  # it trained on from there


def _rows(path: Path) -> list[dict]:
    with path.open() as f:
        return list(csv.DictReader(f))


def _weights(module_dir: Path) -> list[float]:
    from ray.rllib.core.rl_module.rl_module import RLModule

    module = RLModule.from_checkpoint(module_dir)
    return [float(p.detach().sum()) for p in module.parameters()]


@pytest.mark.parametrize("env_id", multi_agent_env_ids())
def test_every_multi_agent_env_trains_and_its_agent_plays(local_ray, tmp_path, env_id):
    """A few updates of every game at its smallest table, then the trained module plays a
    game through the agent spec the run names."""
    game = make_game(env_id)
    n = min(c.get("num_players", game.num_players) for c in type(game).test_configs)
    cfg = _config(
        tmp_path, env=env_id, config={"num_players": n}, total_timesteps=600, num_envs=8,
        ppo={"n_steps": 16, "batch_size": 128, "n_epochs": 1, "net_arch": [16]},
        evaluation={"every": 10**9, "games": n, "final_games": n, "against": ["random"]},
        opponents={"pool": {"heuristic": 1, "self": 1}, "snapshot_every": 300, "snapshots": 1},
        rllib={"num_env_runners": 0, "num_envs_per_env_runner": 4},
    )  # fmt: skip
    results = train(cfg, echo=lambda _: None)
    assert results["timesteps"] >= 600 and results["final_evaluation"][0]["games"] == n
    agent = make_agent(results["agent_spec"], env_id, **cfg.config)
    ev = evaluate(env_id, [agent] + ["random"] * (n - 1), n, 0, progress=False, **cfg.config)
    assert ev.games == n


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--address", "auto"], "need --backend rllib"),
        (["--num-env-runners", "2"], "need --backend rllib"),
        (["--backend", "rllib", "--ship"], "rllib:<out>/rllib_module"),
    ],
)
def test_backend_flags_are_checked(tmp_path, argv, words):
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({**TINY, "out": str(tmp_path / "run")}))
    with pytest.raises(TrainConfigError, match=words):
        run(build_parser().parse_args(["--config", str(path), *argv]))


@pytest.mark.parametrize(
    ("rllib", "words"),
    [
        ({"num_env_runners": -1}, r"rllib: num_env_runners=-1 must be an int >= 0"),
        ({"num_learners": -1}, r"rllib: num_learners=-1 must be an int >= 0"),
        ({"num_learners": 1.5}, r"rllib: num_learners=1.5 must be an int >= 0"),
        ({"num_gpus_per_learner": -1}, r"rllib: num_gpus_per_learner=-1"),
        ({"runners": 2}, "unknown key"),
    ],
)
def test_bad_rllib_keys_are_refused_by_name(tmp_path, rllib, words):
    with pytest.raises(TrainConfigError, match=words):
        _config(tmp_path, rllib=rllib)


def test_pfsp_sampling_is_refused_by_name(tmp_path):
    opponents = {"pool": {"random": 1, "self": 1}, "sampling": "pfsp"}
    with pytest.raises(TrainConfigError, match="sampling: pfsp needs the sb3 backend"):
        train(_config(tmp_path, opponents=opponents), echo=lambda _: None)


def test_keep_best_is_refused_by_name(tmp_path):
    cfg = dataclasses.replace(_config(tmp_path), keep_best="random")
    with pytest.raises(TrainConfigError, match="evaluation.keep_best needs the sb3 backend"):
        train(cfg, echo=lambda _: None)


def test_a_training_device_is_refused_for_rllib_by_name(tmp_path):
    cfg = dataclasses.replace(_config(tmp_path), device="auto")
    with pytest.raises(TrainConfigError, match="rllib.num_gpus_per_learner"):
        train(cfg, echo=lambda _: None)


def test_num_learners_splits_the_batch_over_the_learners(tmp_path):
    """RLlib's batch sizes are per learner: each learner takes its share, so the update is
    the same whatever the count."""
    cfg = _config(tmp_path, rllib={**TINY["rllib"], "num_learners": 2})
    algo_config = algorithm_config(cfg, 0)
    assert algo_config.num_learners == 2
    assert algo_config.train_batch_size_per_learner * 2 == 3 * 32 * 32
    assert algo_config.minibatch_size * 2 == 512
    assert _config(tmp_path).fingerprint() == cfg.fingerprint()  # where it runs, not how


HAS_MOVIEPY = importlib.util.find_spec("moviepy") is not None


def test_a_mix_trains_one_module_that_plays_every_setting(local_ray, tmp_path):
    """A mix of 3 and 4 players on the batched runner with a remote learner, a tiny
    imitation and a video: the final evaluation has a row per setting, results.json reports
    the warm start, and the run's agent plays both settings and refuses the 5-player game,
    naming what it plays."""
    cfg = _config(
        tmp_path, total_timesteps=1_500, mix={"num_players": [3, 4]},
        ppo={"n_steps": 16, "batch_size": 256, "n_epochs": 1, "net_arch": [32]},
        evaluation={"every": 1_000, "games": 12, "final_games": 24, "against": ["random"]},
        imitation={"teacher": "heuristic", "samples": 2_000, "epochs": 1},
        video_episodes=1 if HAS_MOVIEPY else 0,
        rllib={"num_env_runners": 1, "num_envs_per_env_runner": 4, "num_learners": 1},
    )  # fmt: skip
    assert algorithm_config(cfg, 1).env_runner_cls is BatchedEnvRunner
    results = train(cfg, echo=lambda _: None)
    rows = results["final_evaluation"]
    assert [(r["setting"], r["num_players"], r["games"]) for r in rows] == [
        ("num_players=3", 3, 24),
        ("num_players=4", 4, 24),
    ]
    periodic = [r for r in _rows(Path(cfg.out) / "evaluations.csv") if r["kind"] == "periodic"]
    assert periodic and {r["num_players"] for r in periodic} == {"3"}  # `config` only
    assert results["mix"] == {"num_players": (3, 4)} and results["num_learners"] == 1
    assert results["imitation"]["teacher"] == "heuristic"
    assert results["imitation"]["samples"] == 2_000
    for n in (3, 4):
        agent = make_agent(results["agent_spec"], cfg.env, num_players=n)
        ev = evaluate(cfg.env, [agent] + ["random"] * (n - 1), 2 * n, 0, progress=False,
                      num_players=n)  # fmt: skip
        assert ev.games == 2 * n
    with pytest.raises(ValueError, match=r"plays no_thanks_v0 with num_players in \[3, 4\].*"
                       r"not with num_players=5"):  # fmt: skip
        make_agent(results["agent_spec"], cfg.env, num_players=5)
    if HAS_MOVIEPY:
        assert results["videos"] == ["videos/training-episode-0.mp4"]
        assert (Path(cfg.out) / results["videos"][0]).stat().st_size > 0


def test_the_warm_start_puts_the_teachers_policy_everywhere(local_ray, tmp_path):
    """After the warm start, the module on the env runners picks the heuristic's move on
    most held-out decisions that leave a choice (games of another seed; Super Zwierzaki,
    where no move is more than a few percent of them), with at most half the untrained
    module's disagreements, and the learner holds the same weights."""
    cfg = _config(
        tmp_path, env="super_zwierzaki_v0", config={"num_players": 3},
        mix={"num_players": [3, 4]},
        imitation={"teacher": "heuristic", "samples": 16_000, "epochs": 4, "batch_size": 512},
        rllib={"num_env_runners": 1, "num_envs_per_env_runner": 4},
    )  # fmt: skip
    held_out = collect(dataclasses.replace(cfg, seed=cfg.seed + 1), cfg.imitation)
    choice = held_out.masks.sum(1) > 1
    algo = algorithm_config(cfg, 1).build_algo()

    def agreement() -> float:
        agent = RLModuleAgent(algo.get_module(LEARNER))  # the observations are padded
        picks = agent.act_batch(held_out.observations[choice], held_out.masks[choice])
        return float(np.mean(picks == held_out.actions[choice]))

    before = agreement()
    info = warm_start(algo, cfg, echo=lambda _: None)
    after = agreement()
    copies = _copies(algo, LEARNER)
    algo.stop()
    assert after > 0.8 and 1 - after < (1 - before) / 2, (before, after)
    assert info["agreement"] > 0.8 and info["samples"] == 16_000
    assert all(_same(copy, copies[0]) for copy in copies[1:])


def test_the_warm_start_from_a_dataset_fits_its_decisions_in_a_mix(local_ray, tmp_path):
    """A dataset of heuristic games (3 players), in a run on the mix of 3 and 4 players:
    after the warm start, the env runners' module picks the dataset's move on most of its
    decisions that leave a choice, reading them padded."""
    pytest.importorskip("minari")
    from card_envs import dataset

    records = dataset.played_records("no_thanks_v0", ["heuristic"] * 3, 90, seed=2, config={})
    ds = dataset.write(records, tmp_path, "teach")
    cfg = _config(
        tmp_path, mix={"num_players": [3, 4]},
        imitation={"dataset": str(tmp_path / "card_envs/no_thanks_v0/teach-v0"), "epochs": 4},
        rllib={"num_env_runners": 1, "num_envs_per_env_runner": 4},
    )  # fmt: skip
    episodes = list(ds.iterate_episodes())
    obs = np.concatenate([e.observations[:-1] for e in episodes])
    masks = np.concatenate([e.infos["action_mask"][:-1] for e in episodes])
    actions = np.concatenate([e.actions for e in episodes])
    choice = masks.sum(1) > 1
    pad = Padding(make_game("no_thanks_v0", num_players=3))
    algo = algorithm_config(cfg, 1).build_algo()
    info = warm_start(algo, cfg, echo=lambda _: None)
    agent = RLModuleAgent(algo.get_module(LEARNER))
    picks = agent.act_batch(pad(obs[choice]), masks[choice])
    algo.stop()
    assert info["dataset"] == cfg.imitation.dataset and info["samples"] == len(actions)
    assert np.mean(picks == actions[choice]) > 0.85


def test_snapshots_are_frozen_copies_that_a_checkpoint_keeps(local_ray, tmp_path):
    """A snapshot slot holds main's policy as it was when copied, on the learner and on every
    env runner; main trains on; a run restored from a checkpoint has the same snapshot."""
    cfg = _config(tmp_path, ppo={**TINY["ppo"], "learning_rate": 0.01})
    algo = algorithm_config(cfg, 1).build_algo()
    algo.train()
    copy_learner(algo, "snapshot_0")
    frozen = _policy(algo, LEARNER)
    algo.train()
    assert not _same(_policy(algo, LEARNER), frozen)  # main moved on
    for copy in _copies(algo, "snapshot_0"):
        assert _same(copy, frozen)
    algo.save_to_path(tmp_path / "checkpoint")
    algo.stop()
    restored = algorithm_config(cfg, 1).build_algo()
    restore(restored, tmp_path / "checkpoint", ["snapshot_0"])
    for copy in _copies(restored, "snapshot_0"):
        assert _same(copy, frozen)
    restored.stop()


def test_pool_agents_are_seated_by_module_ids_of_their_own(local_ray, tmp_path):
    """A spec that is no valid module id (`ppo:path`) still sits in the pool; an agent that
    searches rows cannot act on an RLlib module's observations and is refused."""
    from card_envs.agents.ppo import shipped_model

    with importlib.resources.as_file(shipped_model("no_thanks_v0")) as path:
        cfg = _config(
            tmp_path, total_timesteps=600, num_envs=8,
            ppo={"n_steps": 16, "batch_size": 128, "n_epochs": 1, "net_arch": [16]},
            evaluation={"every": 10**9, "games": 3, "final_games": 3, "against": ["random"]},
            opponents={"pool": {f"ppo:{path}": 1, "random": 1}},
            rllib={"num_env_runners": 0, "num_envs_per_env_runner": 4},
        )  # fmt: skip
        assert [ids for ids, _, _ in pool_modules(cfg)] == [["agent_0_s0"], ["agent_1_s0"]]
        assert train(cfg, echo=lambda _: None)["timesteps"] >= 600
    searcher = _config(tmp_path, opponents={"pool": {"ismcts:8": 1}})
    with pytest.raises(TrainConfigError, match="'ismcts:8' searches the game's rows"):
        train(searcher)


def _policy(algo, module_id: str) -> dict:
    """The learner's weights of a module's policy (its value head left out)."""
    weights = algo.learner_group.get_weights(module_ids=[module_id])[module_id]
    return {k: v for k, v in weights.items() if not k.startswith("vf")}


def _copies(algo, module_id: str) -> list[dict]:
    """The module's policy weights on the learner and on every env runner."""

    def weights(runner):
        state = runner.module[module_id].state_dict()
        return {k: v.numpy() for k, v in state.items() if not k.startswith("vf")}

    runners = algo.env_runner_group.foreach_env_runner(weights, local_env_runner=True)
    return [_policy(algo, module_id), *runners]


def _same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)

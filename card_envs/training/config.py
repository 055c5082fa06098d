"""Training configs (YAML files or dicts), validated like tournament configs: a wrong key or
value stops with a message naming it and what is allowed.

```yaml
name: no_thanks                 # run name (default: the file stem); output in out/
env: no_thanks_v0               # a multi-agent id, or a one-seat game's (rummidrez_solo_v0)
config: {num_players: 4}        # the game's options
mix: {num_players: [3, 4, 5]}   # optional: train one model on every combination of these
                                #   option values at once (padded observations, see below)
seed: 0
out: runs/training/no_thanks    # default runs/training/<name>
total_timesteps: 8_000_000      # learner steps (the learner's own actions)
time_limit_minutes: 20          # optional: stop at this wall time, then evaluate and save
num_envs: 64                    # games stepped together by the batched engine
torch_threads: 1                # torch's intra-op threads
device: cpu                     # where the network trains: cpu, cuda (cuda:N), or auto
                                #   (cuda when torch sees one); envs always run on the CPU
num_threads: 1                  # threads of the batched env (null: every core); see below
opponents:
  pool: {heuristic: 0.5, random: 0.1, self: 0.4}   # per-seat draw weights (none: one seat)
  snapshot_every: 500_000       # steps between new frozen snapshots of the learner
  snapshots: 4                  # the newest this many snapshots share the weight of `self`
  sampling: uniform             # how they share it: uniform, or pfsp (the ones the learner
                                #   does worst against more often; training/opponents.py)
ppo:                            # sb3-contrib MaskablePPO arguments
  n_steps: 128
  batch_size: 2048
  n_epochs: 4
  learning_rate: 3.0e-4
  gamma: 1.0
  gae_lambda: 0.95
  clip_range: 0.2
  ent_coef: 0.01
  vf_coef: 0.5
  max_grad_norm: 0.5
  net_arch: [128, 128]
evaluation:
  every: 1_000_000              # steps between evaluations (and at the end)
  games: 800                    # games per opponent, seat-balanced (rounded up to a
  final_games: 4000             #   multiple of the players); final_games at the end
  against: [random, heuristic]  # each fills every other seat of the table (one seat: each
                                #   plays the same deals alone, see training/monitor.py)
  workers: 1                    # processes for the evaluation games
  runs: 0                       # double_or_nothing: runs of double_or_nothing_run_v0 too
  keep_best: null               # an opponent of `against`: the run ends with the network of
                                #   the periodic evaluation that did best against it as
                                #   model.zip (the last one as last_model.zip)
checkpoint_every: 1_000_000
video_episodes: 2               # optional (default 0): the trained agent's games as videos/
imitation:                      # optional warm start before PPO (training/imitation.py)
  teacher: heuristic            # the agent whose moves the policy first learns, or instead
                                #   dataset: a Minari dataset of card-envs dataset (its
                                #   directory, or its id in the Minari root)
  samples: 1_000_000            # the teacher's decisions in self-play (a dataset's: at most)
  epochs: 3
  batch_size: 2048
  learning_rate: 1.0e-3
rllib:                          # read by --backend rllib only (docs/rllib.md)
  num_env_runners: 1            # Ray actors stepping games (0: in the driver)
  num_envs_per_env_runner: 8
  train_batch_size: null        # env steps per update; null: num_envs x n_steps x seats
  address: null                 # a Ray cluster (auto, ray://...); null: a local Ray
  num_learners: 0               # learner actors (0: the learner in the driver)
  num_gpus_per_learner: 0
```

Pool keys are agent specs (`random`, `heuristic`, `computer`, `ppo:path`) or `self` (the
snapshots). Every seat other than the learner's draws its agent from the pool by weight at
the start of every game.

With `mix`, every combination of its values (over `config`) is a setting that gets an equal
share of the `num_envs` games (with `--backend rllib`: of the games, each env playing the
settings in turn); observations are padded to the layout every config of the game shares
(`card_envs.core.padding`), so the model plays every setting, and the `ppo` and `rllib`
agents pad for it. Periodic evaluations play `config` itself; the final one every setting.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from card_envs.config_file import Checks, ConfigFileError
from card_envs.core.engine import Game
from card_envs.core.threads import check_threads
from card_envs.registry import batched_env_ids, make_game, run_env_id

SELF = "self"
RUN_OPPONENT = "run"  # evaluations.csv rows of the run env: win_rate holds games won per run
DEFAULT_OUT = "runs/training"
UNBOUNDED = 10**12  # steps and intervals that never come: a run its time limit alone stops


class TrainConfigError(ConfigFileError):
    """A training config with a wrong key or value."""


_check = Checks(TrainConfigError)


@dataclass(frozen=True)
class PPOSettings:
    n_steps: int = 128
    batch_size: int = 2048
    n_epochs: int = 4
    learning_rate: float = 3e-4
    gamma: float = 1.0
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    net_arch: tuple[int, ...] = (128, 128)

    def kwargs(self) -> dict[str, Any]:
        """MaskablePPO keyword arguments."""
        out = asdict(self)
        out["policy_kwargs"] = {"net_arch": list(out.pop("net_arch"))}
        return out


@dataclass(frozen=True)
class ImitationSettings:
    """Warm start before PPO: imitate `teacher` (in self-play) or the decisions of a Minari
    `dataset` (one of the two); see training/imitation.py."""

    teacher: str | None = None
    dataset: str | None = None
    samples: int = 1_000_000
    epochs: int = 3
    batch_size: int = 2048
    learning_rate: float = 1e-3


@dataclass(frozen=True)
class ExitSettings:
    """Expert iteration instead of PPO (training/exit/rounds.py): each round searches `positions`
    decisions of games played by the current network with the `search` spec, then fits the
    network to the searches of the last `window` rounds."""

    rounds: int = 10
    positions: int = 20_000  # searched decisions per round, split evenly over the settings
    search: str | None = None  # the ismcts spec that searches them (None: the game's 10 ms one)
    guide: str = "prior"  # how the search reads the current network: none, prior, rollout, both
    targets: str = "visits"  # the policy's target: the root's visit shares, or the chosen move
    share: float = 0.1  # chance that a decision of the position games is searched
    heuristic_seats: float = 0.5  # chance that a seat of a position game is the heuristic's
    window: int = 3  # rounds of searched decisions the fit draws from
    epochs: int = 4
    batch_size: int = 1024
    learning_rate: float = 1e-3
    value_weight: float = 0.5  # the critic's squared error in the loss, against cross-entropy
    workers: int | None = None  # search processes (null: one per core)
    start: str | None = None  # the first network: ppo or exit (the shipped one) or a path


@dataclass(frozen=True)
class SelfPlaySettings:
    """All-seat self-play instead of the one-seat PPO (training/selfplay/): every seat of
    every game is the network being trained, and each of its decisions is a sample; a seat
    is instead drawn from `opponents.pool` with chance `opponent_seats` (per seat and game,
    one seat of every game always the network's), and such a seat's decisions are none."""

    opponent_seats: float = 0.0


@dataclass(frozen=True)
class RLlibSettings:
    """The `rllib:` section, read by `--backend rllib` only (training/rllib/train.py)."""

    num_env_runners: int = 1  # Ray actors stepping games (0: in the driver process)
    num_envs_per_env_runner: int = 8  # games each runner steps in turn
    train_batch_size: int | None = None  # env steps (every seat's) per PPO update; None:
    #   the SB3 path's rollout, num_envs x n_steps learner steps, times the seats
    address: str | None = None  # a Ray cluster (auto, ray://...); None: a local Ray
    num_learners: int = 0  # Ray actors updating the module together (0: in the driver)
    num_gpus_per_learner: float = 0.0  # GPUs of each learner (of the driver's with 0 learners)


@dataclass(frozen=True)
class TrainConfig:
    name: str
    env: str
    config: dict
    num_players: int
    seed: int
    out: str
    total_timesteps: int
    time_limit_minutes: float | None
    num_envs: int
    torch_threads: int
    num_threads: int
    pool: tuple[tuple[str, float], ...]  # (spec or "self", weight)
    snapshot_every: int
    snapshots: int
    ppo: PPOSettings
    eval_every: int
    eval_games: int
    final_eval_games: int
    eval_against: tuple[str, ...]
    eval_workers: int
    eval_runs: int
    checkpoint_every: int
    keep_best: str | None = None  # the opponent whose periodic evaluations pick model.zip
    imitation: ImitationSettings | None = None
    video_episodes: int = 0
    mix: tuple[tuple[str, tuple], ...] = ()  # (option, values) trained on at once
    rllib: RLlibSettings = RLlibSettings()
    sampling: str = "uniform"  # how snapshots share `self`'s weight: uniform or pfsp
    exit: ExitSettings | None = None  # expert iteration instead of PPO (training/exit/rounds.py)
    selfplay: SelfPlaySettings | None = None  # all-seat self-play PPO (training/selfplay/)
    device: str = "cpu"  # where the network trains: cpu, cuda, cuda:N or auto

    @property
    def settings(self) -> list[dict]:
        """The game configs trained on: `config` alone, or each combination of `mix`."""
        names = [name for name, _ in self.mix]
        combos = itertools.product(*(values for _, values in self.mix))
        return [{**self.config, **dict(zip(names, combo, strict=True))} for combo in combos]

    @property
    def padded(self) -> bool:
        """Whether the model reads padded observations (it does when trained on a mix)."""
        return bool(self.mix)

    def setting_name(self, setting: dict) -> str:
        """The mixed options' values of `setting` in words ('' without a mix)."""
        return " ".join(f"{name}={setting[name]}" for name, _ in self.mix)

    @property
    def uses_self_play(self) -> bool:
        return any(spec == SELF for spec, _ in self.pool)

    def as_dict(self) -> dict:
        return asdict(self)

    def fingerprint(self) -> str:
        """What decides how the model trains: resuming checks it is unchanged (the length
        of the run, its time limit, where it is written, its videos and the env's threads,
        which play the same games, may change)."""
        loose = ("time_limit_minutes", "total_timesteps", "out", "video_episodes", "num_threads",
                 "device")  # fmt: skip
        keep = {k: v for k, v in self.as_dict().items() if k not in loose}
        if keep["sampling"] == "uniform":  # runs from before the key existed still resume
            del keep["sampling"]
        for way in ("exit", "selfplay"):  # the same: a one-seat PPO run
            if keep[way] is None:
                del keep[way]
        if "exit" in keep:
            for loose_key in ("workers", "rounds"):  # where it runs; how long (like steps)
                keep["exit"].pop(loose_key)
        scale_keys = ("num_env_runners", "address", "num_learners", "num_gpus_per_learner")
        for scale in scale_keys:  # where it runs, not how it learns
            keep["rllib"].pop(scale)
        blob = json.dumps(keep, sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]


TOP_KEYS = {
    "name": "the run's name (letters, digits, _ . -)",
    "env": f"one of {batched_env_ids()}",
    "config": "mapping of the game's options",
    "seed": "non-negative int",
    "out": "output directory",
    "total_timesteps": "positive int: learner steps",
    "time_limit_minutes": "positive number or null",
    "num_envs": "positive int",
    "torch_threads": "positive int",
    "device": "cpu, cuda, cuda:N or auto: where the network trains",
    "num_threads": "int in 1..usable cores, or null (all): the batched env's threads",
    "opponents": "mapping: pool, snapshot_every, snapshots, sampling",
    "ppo": "mapping of MaskablePPO arguments",
    "evaluation": "mapping: every, games, final_games, against, workers, runs, keep_best",
    "checkpoint_every": "positive int: steps between checkpoints",
    "imitation": "mapping: teacher or dataset, samples, epochs, batch_size, learning_rate "
    "(optional)",
    "video_episodes": "int >= 0: episodes of the trained agent saved as videos",
    "mix": "mapping of option -> list of values: one model for every combination",
    "rllib": "mapping: num_env_runners, num_envs_per_env_runner, train_batch_size, address, "
    "num_learners, num_gpus_per_learner",
    "exit": "mapping: rounds, positions, search, guide, targets, share, heuristic_seats, window, "
    "epochs, batch_size, learning_rate, value_weight, workers, start (optional: expert "
    "iteration)",
    "selfplay": "mapping: opponent_seats (optional: all-seat self-play)",
}
OPPONENT_KEYS = {"pool": "", "snapshot_every": "", "snapshots": "", "sampling": ""}
SAMPLINGS = ("uniform", "pfsp")
EVAL_KEYS = {"every": "", "games": "", "final_games": "", "against": "", "workers": "", "runs": "",
             "keep_best": ""}  # fmt: skip


def _check_spec(where: str, spec: Any, env_id: str, config: dict) -> str:
    from card_envs.agents import make_agent

    spec = _check.str(where, "agent spec", spec)
    try:
        make_agent(spec, env_id, seed=0, **config)
    except (ValueError, ImportError) as err:
        _check.fail(where, f"agent {spec!r}: {err}")
    return spec


def _pool(where: str, raw: Any, env_id: str, config: dict) -> tuple[tuple[str, float], ...]:
    if not isinstance(raw, dict) or not raw:
        _check.fail(where, f"pool={raw!r} must map agent specs (or 'self') to weights")
    out = []
    for spec, weight in raw.items():
        if spec != SELF:
            _check_spec(f"{where}.pool", spec, env_id, config)
        out.append((spec, _check.float(f"{where}.pool", spec, weight)))
    if sum(w for _, w in out) <= 0:
        _check.fail(where, f"pool weights {dict(out)} are all zero")
    return tuple(out)


def _imitation(where: str, raw: Any, env_id: str, config: dict) -> ImitationSettings | None:
    if raw is None:
        return None
    raw = _check.mapping(where, "imitation", raw)
    _check.unknown_keys(where, raw, set(asdict(ImitationSettings())))
    teacher, dataset = raw.get("teacher"), raw.get("dataset")  # null: not given (as_dict)
    if (teacher is None) == (dataset is None):
        _check.fail(
            where,
            "give one of the keys 'teacher' (the agent spec to imitate, e.g. heuristic) and "
            "'dataset' (a Minari dataset of card-envs dataset: its directory or id), "
            f"not {'neither' if teacher is None else 'both'}",
        )
    return ImitationSettings(
        teacher=None if teacher is None else _check_spec(where, teacher, env_id, config),
        dataset=None if dataset is None else _check.str(where, "dataset", dataset),
        samples=_check.int(where, "samples", raw.get("samples", 1_000_000)),
        epochs=_check.int(where, "epochs", raw.get("epochs", 3)),
        batch_size=_check.int(where, "batch_size", raw.get("batch_size", 2048)),
        learning_rate=_check.float(where, "learning_rate", raw.get("learning_rate", 1e-3)),
    )


def _exit(where: str, raw: Any, game: Game) -> ExitSettings | None:
    if raw is None:
        return None
    raw = _check.mapping(where, "exit", raw)
    d = ExitSettings()
    _check.unknown_keys(where, raw, set(asdict(d)))
    if type(game).search_kernel is None:
        _check.fail(where, f"{game.env_id} has no ISMCTS search to learn from")
    workers = raw.get("workers", d.workers)
    search = raw.get("search", type(game).ismcts_10ms or "ismcts")
    if not isinstance(search, str) or search.partition(":")[0] != "ismcts":
        _check.fail(where, f"search={search!r} must be an ismcts spec, e.g. ismcts:300")
    _check_spec(where, search, game.env_id, game.config)

    def share(key: str) -> float:
        return _check.float(where, key, raw.get(key, getattr(d, key)), 0.0, 1.0)

    guide = raw.get("guide", d.guide)
    if guide not in EXIT_GUIDES:
        _check.fail(where, f"guide={guide!r} is not one of {list(EXIT_GUIDES)}")
    targets = raw.get("targets", d.targets)
    if targets not in EXIT_TARGETS:
        _check.fail(where, f"targets={targets!r} is not one of {list(EXIT_TARGETS)}")
    out = ExitSettings(
        **{k: _check.int(where, k, raw.get(k, getattr(d, k))) for k in _EXIT_INTS},
        search=search,
        guide=guide,
        targets=targets,
        share=share("share"),
        heuristic_seats=share("heuristic_seats"),
        learning_rate=_check.float(
            where, "learning_rate", raw.get("learning_rate", d.learning_rate)
        ),
        value_weight=_check.float(where, "value_weight", raw.get("value_weight", d.value_weight)),
        workers=None if workers is None else _check.int(where, "workers", workers),
        start=_exit_start(where, raw.get("start"), game.env_id),
    )
    if out.share == 0.0:
        _check.fail(where, "share=0 searches no decision: give a chance in (0, 1]")
    if out.learning_rate <= 0:
        _check.fail(where, f"learning_rate={out.learning_rate} must be > 0")
    return out


def _exit_start(where: str, start: Any, env_id: str) -> str | None:
    """`exit.start`: `ppo` or `exit` (the network shipped for the env) or a model file."""
    from card_envs.agents.ppo import has_shipped_model

    if start is None:
        return None
    start = _check.str(where, "start", start)
    if start in ("ppo", "exit"):
        if not has_shipped_model(env_id, start):
            _check.fail(where, f"start={start!r}: no {start} model is shipped for {env_id}")
    elif not Path(start).expanduser().is_file():
        _check.fail(where, f"start={start!r} is neither ppo, exit nor a model file")
    return start


EXIT_GUIDES = ("none", "prior", "rollout", "both")  # training/exit/rounds.py's GUIDES
EXIT_TARGETS = ("visits", "move")  # training/exit/rounds.py's search_targets
_EXIT_INTS = ("rounds", "positions", "window", "epochs", "batch_size")


def _selfplay(where: str, raw: Any, num_players: int) -> SelfPlaySettings | None:
    if raw is None:
        return None
    raw = _check.mapping(where, "selfplay", raw)
    _check.unknown_keys(where, raw, set(asdict(SelfPlaySettings())))
    if num_players == 1:
        _check.fail(where, "a one-seat game has no other seats to play itself in: drop selfplay:")
    share = raw.get("opponent_seats", SelfPlaySettings.opponent_seats)
    return SelfPlaySettings(opponent_seats=_check.float(where, "opponent_seats", share, 0.0, 1.0))


DEVICE = re.compile(r"cpu|auto|cuda(:\d+)?")


def _device(where: str, raw: Any) -> str:
    """`device` as written (checked against torch when the run starts: `run.torch_device`)."""
    if not isinstance(raw, str) or not DEVICE.fullmatch(raw):
        _check.fail(where, f"device={raw!r} must be one of cpu, cuda, cuda:N (N a GPU index), auto")
    return raw


def _threads(where: str, raw: Any) -> int:
    """`num_threads` as the batched env takes it (`core.threads.check_threads`)."""
    try:
        return check_threads(raw)
    except ValueError as e:
        _check.fail(where, str(e))


def _mix(where: str, raw: Any, env_id: str, config: dict, num_envs: int):
    """The validated `mix`: options of the game, each with a non-empty list of values, every
    combination a valid config; `num_envs` must split evenly over the combinations."""
    if raw is None:
        return ()
    raw = _check.mapping(where, "mix", raw)
    options = make_game(env_id, **config).options
    out = []
    for name, values in raw.items():
        if name not in options:
            _check.fail(where, f"mix option {name!r} is not one of {sorted(options)}")
        if not isinstance(values, list) or not values:
            _check.fail(where, f"mix {name}={values!r} must be a non-empty list of values")
        out.append((name, tuple(values)))
    combos = list(itertools.product(*(values for _, values in out)))
    for combo in combos:
        try:
            make_game(env_id, **{**config, **dict(zip(raw, combo, strict=True))})
        except (ValueError, TypeError) as err:
            _check.fail(where, f"mix setting {dict(zip(raw, combo, strict=True))}: {err}")
    if num_envs % len(combos):
        _check.fail(
            where, f"num_envs={num_envs} must split evenly over the {len(combos)} mix settings"
        )
    return tuple(out)


def _rllib(where: str, raw: Any) -> RLlibSettings:
    raw = _check.mapping(where, "rllib", raw)
    defaults = RLlibSettings()
    _check.unknown_keys(where, raw, set(asdict(defaults)))
    address = raw.get("address", defaults.address)
    if address is not None:
        address = _check.str(where, "address", address)
    return RLlibSettings(
        num_env_runners=_check.int(
            where, "num_env_runners", raw.get("num_env_runners", defaults.num_env_runners), low=0
        ),
        num_envs_per_env_runner=_check.int(
            where,
            "num_envs_per_env_runner",
            raw.get("num_envs_per_env_runner", defaults.num_envs_per_env_runner),
        ),  # fmt: skip
        train_batch_size=_check.int(
            where, "train_batch_size", raw.get("train_batch_size"), allow_none=True
        ),
        address=address,
        num_learners=_check.int(
            where, "num_learners", raw.get("num_learners", defaults.num_learners), low=0
        ),
        num_gpus_per_learner=_check.float(
            where,
            "num_gpus_per_learner",
            raw.get("num_gpus_per_learner", defaults.num_gpus_per_learner),
        ),  # fmt: skip
    )


def seat_multiple(games: int, n: int) -> int:
    """Evaluation games rounded up to a multiple of the players (seat balance)."""
    return -(-games // n) * n


def _ppo(where: str, raw: Any) -> PPOSettings:
    raw = _check.mapping(where, "ppo", raw)
    defaults = PPOSettings()
    _check.unknown_keys(where, raw, set(asdict(defaults)))
    ints = {"n_steps", "batch_size", "n_epochs"}
    values: dict[str, Any] = {}
    for key, default in asdict(defaults).items():
        value = raw.get(key, default)
        if key in ints:
            values[key] = _check.int(where, key, value)
        elif key == "net_arch":
            if not isinstance(value, (list, tuple)) or not value:
                _check.fail(where, f"net_arch={value!r} must be a list of layer sizes")
            values[key] = tuple(_check.int(where, "net_arch layer", v) for v in value)
        elif key in ("gamma", "gae_lambda"):
            values[key] = _check.float(where, key, value, 0.0, 1.0)
        else:
            values[key] = _check.float(where, key, value)
    if values["learning_rate"] <= 0:
        _check.fail(where, f"learning_rate={values['learning_rate']} must be > 0")
    return PPOSettings(**values)


def parse_config(raw: Any, source: str = "config", default_name: str = "training") -> TrainConfig:
    """A validated TrainConfig from a parsed YAML document (a dict)."""
    if not isinstance(raw, dict):
        _check.fail(source, f"a training config must be a mapping, got {type(raw).__name__}")
    _check.unknown_keys(source, raw, TOP_KEYS)
    if "env" not in raw:
        _check.fail(source, f"missing key 'env' (one of {batched_env_ids()})")
    env_id = raw["env"]
    if env_id not in batched_env_ids():
        _check.fail(source, f"env={env_id!r} is not one of {batched_env_ids()}")
    config = _check.mapping(source, "config", raw.get("config"))
    try:
        game = make_game(env_id, **config)
    except (ValueError, TypeError) as err:
        _check.fail(f"{source}: config", str(err))
    config = dict(game.config)
    name = _check.name(source, "name", raw.get("name", default_name))

    opp_where = f"{source}: opponents"
    opp = _check.mapping(source, "opponents", raw.get("opponents"))
    _check.unknown_keys(opp_where, opp, OPPONENT_KEYS)
    if game.num_players == 1:  # a one-seat game (rummidrez_solo_v0) has nobody to play
        if opp.get("pool"):
            _check.fail(opp_where, f"{env_id} has one seat: it takes no opponents pool")
        pool: tuple[tuple[str, float], ...] = ()
    else:
        pool = _pool(opp_where, opp.get("pool", {"random": 1.0}), env_id, config)
    sampling = opp.get("sampling", "uniform")
    if sampling not in SAMPLINGS:
        _check.fail(opp_where, f"sampling={sampling!r} is not one of {list(SAMPLINGS)}")
    if sampling == "pfsp" and not any(spec == SELF for spec, _ in pool):
        _check.fail(opp_where, "sampling=pfsp draws among snapshots: the pool needs 'self'")

    ev_where = f"{source}: evaluation"
    ev = _check.mapping(source, "evaluation", raw.get("evaluation"))
    _check.unknown_keys(ev_where, ev, EVAL_KEYS)
    against = ev.get("against", ["random", "heuristic"])
    if not isinstance(against, list) or not against:
        _check.fail(ev_where, f"against={against!r} must be a non-empty list of agent specs")
    against = tuple(_check_spec(f"{ev_where}.against", s, env_id, config) for s in against)
    runs = _check.int(ev_where, "runs", ev.get("runs", 0), low=0)
    keep_best = ev.get("keep_best")
    if keep_best is not None and keep_best not in against:
        _check.fail(ev_where, f"keep_best={keep_best!r} is not one of against={list(against)}")
    if runs and run_env_id(env_id) is None:
        _check.fail(
            ev_where, f"runs={runs}: {env_id} has no run env (its game against the computer)"
        )

    ppo = _ppo(f"{source}: ppo", raw.get("ppo"))
    num_envs = _check.int(source, "num_envs", raw.get("num_envs", 64))
    selfplay = _selfplay(f"{source}: selfplay", raw.get("selfplay"), game.num_players)
    if raw.get("exit") is None and selfplay is None and (ppo.n_steps * num_envs) % ppo.batch_size:
        _check.fail(
            f"{source}: ppo",
            f"batch_size={ppo.batch_size} must divide n_steps x num_envs = "
            f"{ppo.n_steps} x {num_envs} (the rollout), or minibatches are truncated",
        )
    n = game.num_players
    exits = raw.get("exit") is not None  # expert iteration counts rounds, not learner steps
    out = TrainConfig(
        name=name,
        env=env_id,
        config=config,
        num_players=game.num_players,
        seed=_check.int(source, "seed", raw.get("seed", 0), low=0),
        out=_check.str(source, "out", raw.get("out", f"{DEFAULT_OUT}/{name}")),
        total_timesteps=_check.int(
            source, "total_timesteps", raw.get("total_timesteps", UNBOUNDED if exits else None)
        ),
        time_limit_minutes=_check.float(
            source, "time_limit_minutes", raw.get("time_limit_minutes"), 1e-3, allow_none=True
        ),
        num_envs=num_envs,
        torch_threads=_check.int(source, "torch_threads", raw.get("torch_threads", 1)),
        device=_device(source, raw.get("device", "cpu")),
        num_threads=_threads(source, raw.get("num_threads", 1)),
        pool=pool,
        snapshot_every=_check.int(opp_where, "snapshot_every", opp.get("snapshot_every", 500_000)),
        snapshots=_check.int(opp_where, "snapshots", opp.get("snapshots", 4)),
        ppo=ppo,
        eval_every=_check.int(ev_where, "every", ev.get("every", 1_000_000)),
        eval_games=seat_multiple(_check.int(ev_where, "games", ev.get("games", 800)), n),
        final_eval_games=seat_multiple(
            _check.int(ev_where, "final_games", ev.get("final_games", 4000)), n
        ),
        eval_against=against,
        eval_workers=_check.int(ev_where, "workers", ev.get("workers", 1)),
        eval_runs=runs,
        keep_best=keep_best,
        checkpoint_every=_check.int(
            source, "checkpoint_every", raw.get("checkpoint_every", 1_000_000)
        ),
        imitation=_imitation(f"{source}: imitation", raw.get("imitation"), env_id, config),
        video_episodes=_check.int(source, "video_episodes", raw.get("video_episodes", 0), low=0),
        mix=_mix(f"{source}: mix", raw.get("mix"), env_id, config, num_envs),
        rllib=_rllib(f"{source}: rllib", raw.get("rllib")),
        sampling=sampling,
        exit=_exit(f"{source}: exit", raw.get("exit"), game),
        selfplay=selfplay,
    )
    if out.exit is not None and out.selfplay is not None:
        _check.fail(source, "exit: and selfplay: are two ways of training: give one")
    if out.exit is not None and out.keep_best is not None:
        _check.fail(source, "evaluation.keep_best: expert iteration ends with its last round")
    if out.exit is not None and out.exit.start is not None and out.imitation is not None:
        _check.fail(source, "exit.start and imitation are both a first network: give one")
    if out.imitation is not None and out.imitation.dataset is not None:
        try:  # a dataset of another game or config is refused before anything runs
            open_matching_dataset(out)
        except (ValueError, ImportError) as err:
            _check.fail(f"{source}: imitation", str(err))
    return out


def load_config(path: str | Path, **overrides: Any) -> TrainConfig:
    """Read and validate a YAML training config; `overrides` (not None) replace top-level
    keys (the command line's flags)."""
    raw = _check.read_yaml(path, overrides)
    return parse_config(raw, source=str(path), default_name=Path(path).stem)


def open_matching_dataset(config: TrainConfig) -> tuple[Any, Game]:
    """The run's imitation dataset and the game (with its config) it was played in. Refused
    when it does not fit the run: another env, a config the run does not train (with a mix,
    any of the mix's settings will do: its observations are padded), other sizes."""
    from card_envs import dataset

    ds = dataset.open_dataset(config.imitation.dataset)
    env_id, ds_config = dataset.game_of(ds)
    name = ds.spec.dataset_id
    if env_id != config.env:
        raise ValueError(f"dataset {name} holds {env_id} games; the run trains {config.env}")
    game = make_game(env_id, **ds_config)
    wanted = [make_game(config.env, **setting).config for setting in config.settings]
    if game.config not in wanted:
        trains = f"the settings of its mix {wanted}" if config.padded else wanted[0]
        raise ValueError(f"dataset {name} holds games of {game.config}; the run trains {trains}")
    sizes = (ds.observation_space.shape, ds.action_space.n)
    if sizes != ((game.obs_size,), game.num_actions):
        raise ValueError(
            f"dataset {name} has observations of shape {sizes[0]} and {sizes[1]} actions; "
            f"{env_id} {game.config} has ({game.obs_size},) and {game.num_actions}"
        )
    return ds, game

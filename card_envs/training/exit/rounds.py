"""Expert iteration (Anthony, Tian & Barber 2017): a network learns the moves of the search.

`card-envs train --config C` runs this loop instead of PPO when the config has an `exit:`
section (training/config.py, `ExitSettings`). Every round:

1. **Play.** Position games in each of the run's settings (a mix's, an equal share each):
   every seat is the current network, sampling its masked policy, or with chance
   `heuristic_seats` (drawn per seat and game) the game's heuristic. Each decision is kept
   with chance `share` until `positions` are kept, with its state row and its seat's total
   reward in that game (`training.decisions`).
2. **Search.** Each kept decision is searched from its row by the `search` spec (default:
   the game's `ismcts_10ms`, about 10 ms a move; `agents.ismcts`: it sees only what the
   seat sees), in worker processes, one per core. With `guide` the search reads the
   current network (`GUIDES`): as its PUCT prior, its rollout policy, or both. The
   root's visit shares are the policy target (`targets: visits`), or the move the search
   chose (`targets: move`). A search that compares its candidates on
   the same number of simulations (Rummidrez's `PAIRED` root: every candidate gets the
   same visits) has no shares to learn: its target is the move it chose.
3. **Fit.** The network, a MaskablePPO policy (actor and critic), is fitted by
   cross-entropy to the targets and squared error of its value head to the returns, over
   the searched decisions of the last `window` rounds (`imitation.fit`).
4. **Evaluate** the network (its most probable legal action) seat-balanced against each
   `evaluation.against` agent, and checkpoint.

The model is a MaskablePPO file like the PPO path's, so `ppo:path` and `exit:path` play it,
`--ship` installs it as the `exit` agent, and PPO can train it further. Output in `out`:
`model.zip`, `results.json`, `evaluations.csv`, `training.csv` (one row per round),
`tensorboard/`, `learning_curve.png`, `checkpoints/` (the last round's model and the
searched decisions the next fit still draws from); `--resume` goes on from the last round.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from card_envs.agents.heuristic import HeuristicAgent
from card_envs.agents.ismcts import ISMCTSAgent, make_ismcts_agent
from card_envs.agents.ppo import PolicyAgent, frozen_copy
from card_envs.core.mlp import actor_net
from card_envs.core.padding import Padding
from card_envs.evaluation.pool import check_workers, init_worker, mp_context
from card_envs.registry import make_game, make_vec
from card_envs.training.config import ExitSettings, TrainConfig
from card_envs.training.decisions import record
from card_envs.training.imitation import fit, policy_heads
from card_envs.training.monitor import EVAL_COLUMNS, append_rows

EXIT_COLUMNS = [
    "timesteps", "minutes", "round", "positions", "games", "play_s", "search_s", "fit_s",
    "eval_s", "agreement", "fitted_agreement", "policy_loss", "value_loss",
]  # fmt: skip
EXIT_EVAL_COLUMNS = ["round", *EVAL_COLUMNS]
CHUNK = 32  # searched decisions per job of the worker pool
ROUND_SEED = 1_000_033  # each round deals other position games


@dataclass
class Searched:
    """One round's searched decisions, as the fit reads them."""

    observations: np.ndarray
    masks: np.ndarray
    targets: np.ndarray  # probabilities over the actions
    returns: np.ndarray
    agreement: float  # share where the network's most probable action is the search's move
    games: int

    def save(self, path: Path) -> None:
        arrays = {k: getattr(self, k) for k in ("observations", "masks", "targets", "returns")}
        np.savez_compressed(path, **arrays, agreement=self.agreement, games=self.games)

    @classmethod
    def load(cls, path: Path) -> Searched:
        with np.load(path) as f:
            return cls(
                f["observations"], f["masks"], f["targets"], f["returns"],
                float(f["agreement"]), int(f["games"]),
            )  # fmt: skip


def search_targets(shares: np.ndarray, moves: np.ndarray, kind: str = "visits") -> np.ndarray:
    """The policy targets of searched decisions: the root's visit shares (`visits`), or the
    chosen move (`move`, and where every candidate got the same visits: a `PAIRED` root)."""
    if kind == "move":
        out = np.zeros(shares.shape, dtype=np.float32)
        out[np.arange(len(moves)), moves] = 1.0
        return out
    visited = shares > 0
    top = shares.max(axis=1)
    low = np.where(visited, shares, np.inf).min(axis=1)
    flat = (visited.sum(axis=1) > 1) & np.isclose(top, low)
    out = shares.astype(np.float32)
    out[flat] = 0.0
    out[flat, moves[flat]] = 1.0
    return out


GUIDES = {  # exit.guide: how the search uses the current network (rollout, guides the tree)
    "none": (None, False),
    "prior": (None, True),
    "rollout": ("network", False),
    "both": ("network", True),
}
_SEARCHERS: dict[str, ISMCTSAgent] = {}  # per setting, in each process
_NETS: dict[str, tuple] = {}  # per setting: the network's arrays (core.mlp), when it guides


def _key(setting: dict) -> str:
    return repr(sorted(setting.items()))


def _search_job(job: tuple) -> tuple[np.ndarray, np.ndarray]:
    """(moves, visit shares) of one chunk of rows, searched from the job's seed."""
    env_id, setting, spec, guide, seed, rows, masks = job
    agent = _searcher(env_id, setting, spec, guide)
    agent.reseed(seed)
    moves, shares, _ = agent.act_with_policy(None, masks, rows)
    return moves, shares


def _searcher(env_id: str, setting: dict, spec: str, guide: str) -> ISMCTSAgent:
    """The search agent of a setting, made once per round and process."""
    key = _key(setting)
    if key not in _SEARCHERS:
        game = make_game(env_id, **setting)
        agent = make_ismcts_agent(spec, game, None)
        rollout, tree = GUIDES[guide]
        if key in _NETS:
            agent = ISMCTSAgent(game, agent.simulations, rollout or agent.rollout,
                                max_depth=agent.max_depth, net=_NETS[key], guide=tree)  # fmt: skip
        _SEARCHERS[key] = agent
    return _SEARCHERS[key]


def _start_searches(nets: dict[str, tuple]) -> None:
    """A round's searchers start anew, with this round's networks."""
    _SEARCHERS.clear()
    _NETS.clear()
    _NETS.update(nets)


def search(
    jobs: list[tuple], workers: int, nets: dict[str, tuple]
) -> list[tuple[np.ndarray, np.ndarray]]:
    """`_search_job` of every job, in `workers` processes (forked after this process has
    loaded the search kernels, so no worker compiles); `nets`: the network per setting."""
    _start_searches(nets)
    for env_id, setting, spec, guide, *_ in jobs:
        _searcher(env_id, setting, spec, guide).reset()
    if workers == 1:
        return [_search_job(job) for job in jobs]
    with mp_context().Pool(workers, initializer=_start_worker, initargs=(nets,)) as pool:
        return pool.map(_search_job, jobs, chunksize=1)


def _start_worker(nets: dict[str, tuple]) -> None:
    init_worker()
    _start_searches(nets)


class PositionPlayers:
    """The chooser of a position game: per game and seat, the network (sampling) or, with
    chance `heuristic_seats`, the heuristic."""

    def __init__(self, venv, policy, padding, heuristic_seats: float, seed: int) -> None:
        game = venv.game
        self.venv = venv
        self.net = PolicyAgent(policy, seed=seed, deterministic=False, padding=padding, game=game)
        self.heuristic = HeuristicAgent(game)
        self.share = heuristic_seats
        self.rng = np.random.default_rng(seed)
        self.theirs = self.rng.random((venv.num_envs, venv.num_players)) < heuristic_seats
        self.games = 0

    def new_games(self, instances: np.ndarray) -> None:
        self.games += len(instances)
        self.theirs[instances] = (
            self.rng.random((len(instances), self.venv.num_players)) < self.share
        )

    def __call__(self, obs: np.ndarray, masks: np.ndarray, states: np.ndarray) -> np.ndarray:
        heuristic = self.theirs[np.arange(len(obs)), self.venv.current_player]
        actions = np.empty(len(obs), dtype=np.int64)
        for agent, rows in ((self.heuristic, heuristic), (self.net, ~heuristic)):
            if rows.any():
                actions[rows] = agent.act_positions(obs[rows], masks[rows], states[rows])
        return actions


def play_and_search(config: TrainConfig, policy, round_no: int) -> tuple[Searched, dict]:
    """Step 1 and 2 of a round: the searched decisions and the seconds each step took."""
    ex: ExitSettings = config.exit
    settings = config.settings
    share = -(-ex.positions // len(settings))
    t0 = time.perf_counter()
    found, jobs, games, nets = [], [], 0, {}
    frozen = frozen_copy(policy)
    for part, setting in enumerate(settings):
        seed = config.seed + ROUND_SEED * round_no + 7_919 * part
        venv = make_vec(config.env, max(8, config.num_envs // len(settings)), seed=seed, **setting)
        padding = Padding(venv.game) if config.padded else None
        players = PositionPlayers(venv, frozen, padding, ex.heuristic_seats, seed)
        rng = np.random.default_rng(seed)
        d = record(venv, players, share, padding, ex.share, rng, keep_rows=True,
                   on_game_end=players.new_games)  # fmt: skip
        found.append(d)
        games += players.games
        if ex.guide != "none":
            nets[_key(setting)] = actor_net(frozen, padding, venv.game.obs_size)
        for start in range(0, share, CHUNK):
            part_rows = slice(start, start + CHUNK)
            jobs.append((
                config.env, setting, ex.search, ex.guide, seed + 31 * start,
                d.rows[part_rows], d.masks[part_rows].astype(np.int8),
            ))  # fmt: skip
    t1 = time.perf_counter()
    results = search(jobs, check_workers(ex.workers), nets)
    moves = np.concatenate([m for m, _ in results])
    shares = np.concatenate([s for _, s in results])
    t2 = time.perf_counter()
    obs = np.concatenate([d.observations for d in found])
    masks = np.concatenate([d.masks for d in found])
    mine = PolicyAgent(frozen).act_batch(obs, masks)  # the network's own choice, before the fit
    searched = Searched(
        obs, masks, search_targets(shares, moves, ex.targets),
        np.concatenate([d.returns for d in found]),
        float(np.mean(mine == moves)), games,
    )  # fmt: skip
    return searched, {"play_s": t1 - t0, "search_s": t2 - t1}


def fit_round(model, config: TrainConfig, window: list[Searched], round_no: int) -> dict:
    """Step 3: the policy fitted to the window's decisions; its losses and agreement."""
    import torch

    ex: ExitSettings = config.exit
    t0 = time.perf_counter()
    data = tuple(
        torch.as_tensor(np.concatenate([getattr(s, k) for s in window]))
        for k in ("observations", "masks", "targets", "returns")
    )
    policy = model.policy
    policy_loss, value_loss = fit(
        policy, lambda o, m: policy_heads(policy, o, m), data, ex.epochs, ex.batch_size,
        ex.learning_rate, config.seed + round_no, ex.value_weight,
    )  # fmt: skip
    newest = window[-1]
    with torch.no_grad():
        logits, _ = policy_heads(
            policy, torch.as_tensor(newest.observations), torch.as_tensor(newest.masks)
        )
    fitted = float(np.mean(logits.argmax(1).cpu().numpy() == newest.targets.argmax(1)))
    return {
        "fit_s": time.perf_counter() - t0,
        "policy_loss": policy_loss,
        "value_loss": value_loss,
        "fitted_agreement": fitted,
    }


def run_rounds(model, config: TrainConfig, paths, state: dict, evaluate, echo=print) -> bool:
    """Rounds from `state["round"]` on until `exit.rounds` or the time limit; after each,
    `evaluate(round, positions, minutes)` and a checkpoint. Returns whether the time limit
    stopped it."""
    ex: ExitSettings = config.exit
    positions_dir = paths.checkpoint.parent / "positions"
    positions_dir.mkdir(parents=True, exist_ok=True)
    window = [Searched.load(positions_dir / f"{r}.npz") for r in state["window"]]
    t_session = time.perf_counter()

    def minutes() -> float:
        return state["minutes"] + (time.perf_counter() - t_session) / 60

    while state["round"] < ex.rounds:
        limit = config.time_limit_minutes
        if limit is not None and minutes() >= limit:
            return True
        r = state["round"] + 1
        searched, times = play_and_search(config, model.policy, r)
        window = (window + [searched])[-ex.window :]
        fitted = fit_round(model, config, window, r)
        state["positions"] += len(searched.targets)
        t_eval = time.perf_counter()
        evaluate(r, state["positions"], minutes())
        row = {
            "timesteps": state["positions"], "minutes": round(minutes(), 3), "round": r,
            "positions": len(searched.targets), "games": searched.games,
            "agreement": round(searched.agreement, 4), **times, **fitted,
            "eval_s": time.perf_counter() - t_eval,
        }  # fmt: skip
        row = {k: round(v, 4) if isinstance(v, float) else v for k, v in row.items()}
        append_rows(paths.progress, EXIT_COLUMNS, [row])
        for key in ("agreement", "fitted_agreement", "policy_loss", "value_loss"):
            model.logger.record(f"exit/{key}", row[key])
        model.logger.dump(r)
        echo(
            f"round {r}: {row['positions']:,} decisions of {row['games']:,} games searched "
            f"(network agreed {row['agreement']:.1%} before the fit, "
            f"{row['fitted_agreement']:.1%} after); play {row['play_s']:.0f} s, search "
            f"{row['search_s']:.0f} s, fit {row['fit_s']:.0f} s"
        )
        searched.save(positions_dir / f"{r}.npz")
        state["round"] = r
        state["window"] = (state["window"] + [r])[-ex.window :]
        for stale in positions_dir.glob("*.npz"):
            if int(stale.stem) not in state["window"]:
                stale.unlink()
        state["minutes"] = minutes()
        t_session = time.perf_counter()
        model.save(paths.checkpoint)
        state["fingerprint"] = config.fingerprint()
        paths.checkpoint_state.write_text(json.dumps(state, indent=2))
    return False


def load_start(model, config: TrainConfig) -> str:
    """Copy the weights of `exit.start` (the shipped `ppo` or `exit` network, or a model
    file) into the run's new network, so the first round searches with a network that
    already plays. The file must have the run's layers and spaces. Returns its name."""
    from card_envs.agents.ppo import load_policy, shipped_policy

    start = config.exit.start
    where = f"exit.start={start!r}"
    game = make_game(config.env, **config.config)
    shipped = start in ("ppo", "exit")
    policy, _ = shipped_policy(game, start) if shipped else load_policy(start, game)
    ours = model.policy
    if policy.observation_space.shape != ours.observation_space.shape:
        raise ValueError(
            f"{where} reads observations of shape {policy.observation_space.shape}, the run's "
            f"network {ours.observation_space.shape} (its mix and config decide the padding)"
        )
    try:
        ours.load_state_dict(policy.state_dict())
    except RuntimeError as err:
        raise ValueError(
            f"{where} has other layers than ppo.net_arch={list(config.ppo.net_arch)}: {err}"
        ) from None
    return start


def fresh_state() -> dict[str, Any]:
    return {"round": 0, "positions": 0, "minutes": 0.0, "window": []}

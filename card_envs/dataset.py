"""Datasets of played games for offline RL and imitation, as Minari datasets.

    card-envs dataset --env no_thanks_v0 --agents heuristic,heuristic,random --games 1000 --out data
    card-envs dataset --records games.jsonl --out data           # a tournament's records
    card-envs dataset --store runs/tournaments.sqlite --tournament main --event no_thanks --out data

Every game becomes one episode per seat: that seat's trajectory through the game, as Minari
keeps single-agent episodes.

- `observations`: the seat's observation at each of its decisions, then once more at the end
  (T + 1 rows).
- `actions`: its T actions.
- `rewards[t]`: everything the seat received after its action t and before it acted again.
  The last reward is its final reward.
- `terminations` / `truncations`: set on the last step of a game that ended by the rules, or
  that was cut by a cap.
- `infos["action_mask"]`: the legal actions at each observation (T + 1 rows; the last row is
  all zero). Minari has no mask of its own, so it travels in the infos.
- `infos["seat"]`: the seat, and `infos["agent"]`: the index of the seat's agent in the
  dataset's `agents` list (see the description), both repeated on each row.

A seat that never acted in a game has no episode. The games are replayed into the AEC env
from their seeds and actions, so any source that has those (the harness's own games, JSONL
records, a tournament store with recorded actions) gives the same trajectories. Datasets are
written under `--out`, Minari's datasets root, with the id `card_envs/<env_id>/<name>-v0`.
Open one with `MINARI_DATASETS_PATH=<out>` and `minari.load_dataset(id)`, or with
`load(out, id)` here. Needs the `data` extra (`pip install -e ".[data]"`: minari with h5py).
"""

from __future__ import annotations

import json
import os
import re
import warnings
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

import card_envs
from card_envs.agents.specs import split_entries, split_name
from card_envs.registry import make_game

NAME_RE = re.compile(r"^[A-Za-z0-9_-]+$")
META_ENV, META_CONFIG = "card_envs_env_id", "card_envs_config"  # keys of the dataset metadata


def dataset_id(env_id: str, name: str) -> str:
    if not NAME_RE.match(name):
        raise ValueError(f"dataset name {name!r} may hold only letters, digits, _ and -")
    return f"card_envs/{env_id}/{name}-v0"


def replay(record: dict) -> Iterator[tuple[Any, str, int]]:
    """A game record (env_id, config, seed, actions) played again in a new AEC env: yields
    (env, the agent to act, its action) before each action is stepped. A record whose game is
    over before its last action, or not over after it, is a `ValueError`.

    What an agent received since it last acted (or since the deal) is
    `env._cumulative_rewards[agent]`, as PettingZoo's `last()` reports it: read at each of its
    actions and once at the end, it splits the agent's rewards by its actions."""
    env = card_envs.make(record["env_id"], **record["config"])
    env.reset(seed=int(record["seed"]))
    for turn, action in enumerate(record["actions"]):
        if not env.agents or all(env.terminations.values()) or all(env.truncations.values()):
            raise ValueError(f"game {record.get('seed')}: over after {turn} of its actions")
        yield env, env.agent_selection, int(action)
        env.step(int(action))
    if not all(env.terminations.values()) and not all(env.truncations.values()):
        raise ValueError(f"game {record.get('seed')}: not over after its actions")


def seat_episodes(record: dict, agents: list[str]) -> Iterator[dict]:
    """The per-seat trajectories of one game given as a record (env_id, config, seed,
    actions, `agents`: the spec of each seat), as dicts of Minari's episode fields."""
    n = len(record["agents"])
    obs: list[list] = [[] for _ in range(n)]
    masks: list[list] = [[] for _ in range(n)]
    acts: list[list[int]] = [[] for _ in range(n)]
    rews: list[list[float]] = [[] for _ in range(n)]
    for env, agent, action in replay(record):
        seat = env.possible_agents.index(agent)
        if rews[seat]:  # its reward since its last action
            rews[seat][-1] = env._cumulative_rewards[agent]
        seen = env.observe(agent)
        obs[seat].append(seen["observation"])
        masks[seat].append(seen["action_mask"])
        acts[seat].append(action)
        rews[seat].append(0.0)
    truncated = any(env.truncations.values()) and not any(env.terminations.values())
    agent_index = {spec: k for k, spec in enumerate(agents)}
    for p, name in enumerate(env.possible_agents):
        steps = len(acts[p])
        if not steps:
            continue
        rews[p][-1] = env._cumulative_rewards[name]
        last = env.observe(name)
        ended = np.zeros(steps, dtype=bool)
        ended[-1] = True
        yield {
            "observations": np.stack([*obs[p], last["observation"]]),
            "actions": np.array(acts[p], dtype=np.int64),
            "rewards": np.array(rews[p], dtype=np.float64),
            "terminations": ended & (not truncated),
            "truncations": ended & truncated,
            "infos": {
                "action_mask": np.stack([*masks[p], np.zeros_like(last["action_mask"])]),
                "seat": np.full(steps + 1, p, dtype=np.int64),
                "agent": np.full(steps + 1, agent_index[record["agents"][p]], dtype=np.int64),
            },
        }


def text_records(record: dict) -> Iterator[dict]:
    """The decisions of one game given as a record, in words: for each move, what the seat
    to act saw (`view`, `view_text`), its legal moves, the move its agent chose, the chat
    messages an `llm:` agent is sent with the answer it is asked for (`messages`), and the
    seat's final reward in that game (to keep, say, the winners' moves only)."""
    from card_envs.agents import llm

    decisions = []
    returns: dict[str, float] = {}
    for turn, (env, agent, action) in enumerate(replay(record)):
        seat = env.possible_agents.index(agent)
        returns[agent] = returns.get(agent, 0.0) + env._cumulative_rewards[agent]
        moves = env.legal_moves()
        chosen = [m for m in moves if m["id"] == action]
        if not chosen:
            raise ValueError(f"game {record.get('seed')}: action {action} is not legal at {turn}")
        text = env.view_text()
        asked = llm.messages(env.game, seat, text, moves)
        answer = {"role": "assistant", "content": llm.answer_text(action)}
        decisions.append({
            "env_id": record["env_id"], "config": env.game.config, "seed": int(record["seed"]),
            "turn": turn, "seat": agent, "agent": record["agents"][seat], "view": env.view(),
            "view_text": text, "legal_moves": moves, "move": chosen[0],
            "messages": [*asked, answer],
        })  # fmt: skip
    for name in env.possible_agents:  # what each received since it last acted
        returns[name] = returns.get(name, 0.0) + env._cumulative_rewards[name]
    for d in decisions:
        d["reward"] = float(returns[d["seat"]])
        yield d


def write_text(records: Iterable[dict], out: str | Path, name: str) -> tuple[Path, int]:
    """The records' decisions (`text_records`) as JSON lines in
    `out/<env_id>/<name>.jsonl`, one env per file; returns the file and the lines written."""
    records = list(records)
    if not records:
        raise ValueError("no games to write")
    env_ids = sorted({r["env_id"] for r in records})
    if len(env_ids) > 1:
        raise ValueError(f"one text dataset holds one env: the records hold {env_ids}")
    path = Path(out) / env_ids[0] / f"{name}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = 0
    with path.open("w") as f:
        for record in records:
            for d in text_records(record):
                f.write(json.dumps(d) + "\n")
                lines += 1
    return path, lines


def played_records(
    env_id: str, agents: list[str], games: int, seed: int, config: dict, workers: int = 1
) -> list[dict]:
    """`games` seat-balanced games between `agents` played by the evaluation harness, as
    records (seed, actions, each seat's agent spec)."""
    from card_envs.evaluation import evaluate

    ev = evaluate(
        env_id, agents, games=games, seed=seed, workers=workers, progress=False, record=True,
        **config,
    )  # fmt: skip
    batch = ev.results
    return [
        {
            "env_id": env_id,
            "config": ev.config,
            "seed": int(batch.seeds[g]),
            "actions": batch.actions[g],
            "agents": [agents[k] for k in batch.agent_of_seat[g]],
        }
        for g in range(len(batch.seeds))
    ]


@contextmanager
def _datasets_root(out: str | Path):
    """Minari reads its datasets root from the environment."""
    before = os.environ.get("MINARI_DATASETS_PATH")
    os.environ["MINARI_DATASETS_PATH"] = str(Path(out).resolve())
    try:
        yield
    finally:
        if before is None:
            del os.environ["MINARI_DATASETS_PATH"]
        else:
            os.environ["MINARI_DATASETS_PATH"] = before


def write(records: Iterable[dict], out: str | Path, name: str, description: str = "") -> Any:
    """A Minari dataset `card_envs/<env_id>/<name>-v0` under `out` of the records' games
    (one env and config); returns it as `minari.load_dataset` opens it."""
    import gymnasium
    import minari
    from minari.data_collector import EpisodeBuffer

    records = list(records)
    if not records:
        raise ValueError("no games to write")
    env_id, config = records[0]["env_id"], records[0]["config"]
    for r in records:
        if r["env_id"] != env_id or r["config"] != config:
            raise ValueError(
                f"one dataset holds one env and config: {env_id} {config}, and also "
                f"{r['env_id']} {r['config']}"
            )
    agents = list(dict.fromkeys(spec for r in records for spec in r["agents"]))
    game = make_game(env_id, **config)
    buffers = [
        EpisodeBuffer(id=k, **episode)
        for k, episode in enumerate(e for r in records for e in seat_episodes(r, agents))
    ]
    low, high = game.obs_bounds()
    ident = dataset_id(env_id, name)
    text = (
        f"{env_id} {game.config}: {len(records)} games, one episode per seat. "
        f"infos['agent'] indexes the agents {agents}; infos['action_mask'] holds the legal "
        "actions. "
    ) + description
    with _datasets_root(out), warnings.catch_warnings():
        # no env spec: an episode is one seat of a multi-agent game, which no single
        # Gymnasium env replays (the single-agent view plays its opponents itself)
        warnings.filterwarnings("ignore", message=".*(env_spec|eval_env).*", category=UserWarning)
        minari.create_dataset_from_buffers(
            ident,
            buffers,
            observation_space=gymnasium.spaces.Box(low, high, dtype=np.float32),
            action_space=gymnasium.spaces.Discrete(game.num_actions),
            algorithm_name=",".join(agents),
            author="card_envs",
            author_email="(none)",
            code_permalink="card_envs",
            description=text,
            data_format="hdf5",
        )
        minari.load_dataset(ident).storage.update_metadata(
            {META_ENV: env_id, META_CONFIG: game.config}
        )  # what `game_of` reads: the imitation warm start checks it against its run
        return minari.load_dataset(ident)


def load(out: str | Path, ident: str) -> Any:
    """The dataset `ident` under the datasets root `out`."""
    import minari

    with _datasets_root(out):
        return minari.load_dataset(ident)


def open_dataset(source: str | Path) -> Any:
    """A dataset by its directory (`<root>/card_envs/<env_id>/<name>-v0`, as `write` makes
    it), or else by its id in Minari's datasets root (`MINARI_DATASETS_PATH`, by default
    ~/.minari/datasets)."""
    import minari
    from minari.dataset.minari_dataset import MinariDataset

    path = Path(source)
    if (path / "data" / "metadata.json").is_file():
        return MinariDataset(path / "data")
    try:
        return minari.load_dataset(str(source))
    except (FileNotFoundError, ValueError) as err:
        raise ValueError(
            f"dataset {str(source)!r} is neither a dataset directory (holding data/metadata.json) "
            f"nor a dataset id in the Minari root: {err}"
        ) from None


def game_of(ds: Any) -> tuple[str, dict]:
    """The env id and config of a dataset that `write` made."""
    meta = ds.storage.metadata
    if META_ENV not in meta or META_CONFIG not in meta:
        raise ValueError(
            f"dataset {ds.spec.dataset_id}: no {META_ENV!r} and {META_CONFIG!r} in its metadata "
            "(not written by card-envs dataset, or by a version before they were stored)"
        )
    return meta[META_ENV], meta[META_CONFIG]


def records_of_store(path: str | Path, tournament: str, event: str | None) -> list[dict]:
    """The games of a tournament store (stored with their actions) as records."""
    from card_envs.tournament.records import record_of
    from card_envs.tournament.store import Store

    if not Path(path).is_file():
        raise ValueError(f"{path}: no such tournament store")
    with Store(path) as store:
        rows = list(store.rows(tournament, event))
    if not rows:
        raise ValueError(f"{path}: no games of tournament {tournament!r}, event {event!r}")
    return [record_of(row) for row in rows]


def build_parser(parser=None):
    import argparse

    p = parser or argparse.ArgumentParser(prog="python -m card_envs.dataset", description=__doc__)
    p.add_argument("--out", required=True, help="the datasets root to write under")
    p.add_argument("--name", default="games", help="dataset name (id card_envs/<env>/<name>-v0)")
    p.add_argument(
        "--format",
        choices=("minari", "text"),
        default="minari",
        help="minari: per-seat trajectories (the data extra); text: one JSON line per "
        "decision, the seat's view in words, its legal moves, the move and chat messages, "
        "in OUT/<env>/<name>.jsonl",
    )
    p.add_argument("--env", help="play new games of this env (with --agents)")
    p.add_argument("--agents", help="comma-separated agent specs, one per seat (seat-rotated)")
    p.add_argument("--games", type=int, default=1000, help="games to play (default 1000)")
    p.add_argument("--env-config", nargs="*", default=[], help="game options as key=value")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=1, help="processes playing the games")
    p.add_argument("--records", help="or: a JSONL records file (a tournament's --records)")
    p.add_argument("--store", help="or: a tournament SQLite store (games with actions)")
    p.add_argument("--tournament", help="with --store: the tournament's name")
    p.add_argument("--event", help="with --store: only this event")
    return p


def require_minari() -> None:
    """Fail before any game is played when the `data` extra is missing: the games would be
    played for nothing."""
    try:
        import minari  # noqa: F401
    except ImportError as err:
        raise ImportError(
            f"dataset writes Minari datasets: install the data extra first "
            f'(pip install -e ".[data]"); {err}'
        ) from None


def run(args) -> Any:
    from card_envs.commands import parse_config_pairs
    from card_envs.tournament.records import read_jsonl

    if args.format == "minari":
        require_minari()
    sources = [s for s in ("env", "records", "store") if getattr(args, s)]
    if len(sources) != 1:
        raise ValueError("give exactly one source: --env with --agents, --records or --store")
    if args.env:
        if not args.agents:
            raise ValueError("--env needs --agents (one spec per seat)")
        agents = split_entries(args.agents)
        named = [a for a in agents if split_name(a)[0] is not None]
        if named:
            raise ValueError(
                f"dataset --agents takes specs, not NAME=SPEC ({named}): a dataset names "
                "each seat's agent by its spec"
            )
        config = parse_config_pairs(args.env_config)
        records = played_records(args.env, agents, args.games, args.seed, config, args.workers)
    elif args.records:
        records = list(read_jsonl(args.records))
    else:
        if not args.tournament:
            raise ValueError("--store needs --tournament (and optionally --event)")
        records = records_of_store(args.store, args.tournament, args.event)
    if args.format == "text":
        path, lines = write_text(records, args.out, args.name)
        print(f"wrote {path}: {lines:,} decisions ({len(records)} games)")
        return path
    ds = write(records, args.out, args.name)
    print(
        f"wrote {ds.spec.dataset_id} under {args.out}: {ds.total_episodes} episodes "
        f"({len(records)} games), {ds.total_steps} steps"
    )
    print(f"open it: MINARI_DATASETS_PATH={args.out} minari.load_dataset({ds.spec.dataset_id!r})")
    return ds


def main(argv: list[str] | None = None) -> None:
    from card_envs.commands import one_line_errors

    args = build_parser().parse_args(argv)
    with one_line_errors("dataset"):
        run(args)


if __name__ == "__main__":
    main()

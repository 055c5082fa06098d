"""Game records as JSONL, and replaying them into the AEC env.

One JSON object per line: tournament, event, env_id, config, table, game, seed, seats (agent
names in seat order), agents (their specs), actions, rewards, scores, wins, length,
truncated, and `action_names`: each action in words, in its seat's context
(`describe_action`), beside the ids; files without it (written before) still replay. With
`record_policy`, also `policy`: per action, null for an agent without a policy, else
`{"top": [[action, name, probability], ...], "value": v}`, the agent's most probable actions
(`card_envs.agents.base.policy_entry`; the chosen one always among them) and its value of the
position for the seat to act (null if none). Records without it load and replay as before.
`replay(record)` deals the game again with `card_envs.make(env_id, **config)` and
`reset(seed=seed)`, plays the recorded actions and returns what the env reports; the batched
engine that played the game and the AEC env share their kernels and their seeding, so the
scores, win shares and rewards come out the same.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np

import card_envs

RECORD_KEYS = (
    "tournament",
    "event",
    "env_id",
    "config",
    "table",
    "game",
    "seed",
    "seats",
    "agents",
    "actions",
    "rewards",
    "scores",
    "wins",
    "length",
    "truncated",
)


def record_of(row: dict) -> dict:
    """A stored game row as a record."""
    if row.get("actions") is None:
        raise ValueError(
            f"game {row['event']}/{row['table_index']}/{row['game']} has no recorded actions "
            "(the tournament ran with record_actions: false)"
        )
    rec = dict(row, table=row["table_index"])
    rec = {k: rec[k] for k in RECORD_KEYS}
    if row.get("policy") is not None:
        rec["policy"] = row["policy"]
    got = replay(rec)
    rec["action_names"] = got["action_names"]
    if "policy" in rec:  # the top actions named, as the seat to act saw them
        rec["policy"] = [
            None if entry is None else {
                "top": [[a, name, p] for (a, *_, p), name in zip(entry["top"], names, strict=True)],
                "value": entry["value"],
            }
            for entry, names in zip(rec["policy"], got["policy_names"], strict=True)
        ]  # fmt: skip
    return rec


def write_jsonl(records: Iterable[dict], path: str | Path) -> int:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with path.open("w") as f:
        for rec in records:
            f.write(json.dumps(rec, separators=(",", ":")) + "\n")
            count += 1
    return count


def read_jsonl(path: str | Path) -> Iterator[dict]:
    """The records of a JSONL file; a missing file, or a line that is not a record with
    every key of RECORD_KEYS, is a ValueError naming the file and line."""
    if not Path(path).is_file():
        raise ValueError(f"{path}: no such records file")
    with Path(path).open() as f:
        for line_no, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as err:
                raise ValueError(f"{path}:{line_no}: not a JSON record: {err}") from None
            if not isinstance(record, dict):
                raise ValueError(
                    f"{path}:{line_no}: a record is a JSON object, got {type(record).__name__}"
                )
            missing = [k for k in RECORD_KEYS if k not in record]
            if missing:
                raise ValueError(f"{path}:{line_no}: not a game record, missing keys {missing}")
            yield record


def replay(record: dict) -> dict:
    """Play a record's actions in a fresh AEC env: its rewards, scores, wins, length, the
    actions in words (`action_names`), the agent that took each (`actors`) and, when the
    record has a `policy`, its top actions in words (`policy_names`)."""
    env = card_envs.make(record["env_id"], **record["config"])
    env.reset(seed=int(record["seed"]))
    agents = env.possible_agents
    rewards = np.zeros(len(agents))
    actions = record["actions"]
    names, actors = [], []
    policy = record.get("policy")
    if policy is not None and len(policy) != len(actions):
        raise ValueError(f"record has {len(actions)} actions but {len(policy)} policy entries")
    policy_names: list[list[str] | None] = []
    for step, action in enumerate(actions):
        if all(env.terminations[a] or env.truncations[a] for a in agents):
            raise ValueError(f"record has {len(actions)} actions but the game ended after {step}")
        names.append(env.describe_action(int(action)))
        if policy is not None:
            entry = policy[step]
            top = None if entry is None else entry["top"]
            policy_names.append(None if top is None else [env.describe_action(t[0]) for t in top])
        actors.append(env.agent_selection)
        env.step(int(action))
        rewards += [env.rewards[a] for a in agents]
    ended = all(env.terminations[a] or env.truncations[a] for a in agents)
    if not ended:
        raise ValueError(f"the game is not over after the record's {len(actions)} actions")
    return {
        "rewards": rewards.tolist(),
        "scores": [env.infos[a]["score"] for a in agents],
        "wins": [env.infos[a]["win"] for a in agents],
        "length": len(actions),
        "truncated": any(env.truncations[a] for a in agents),
        "action_names": names,
        "actors": actors,
        "policy_names": policy_names,
    }


def check_replay(record: dict) -> list[str]:
    """Differences between a record and its replay (empty when they agree); a replay that
    cannot be played (an illegal action, too many or too few actions) is one difference."""
    try:
        got = replay(record)
    except ValueError as err:
        return [f"the replay failed: {err}"]
    diffs = []
    for key in ("scores", "wins", "rewards"):
        if not np.allclose(got[key], record[key], rtol=0, atol=1e-6):
            diffs.append(f"{key}: recorded {record[key]}, replayed {got[key]}")
    names, replayed = record.get("action_names"), got["action_names"]
    if names is not None and names != replayed:
        same = min(len(names), len(replayed))
        step = next((i for i in range(same) if names[i] != replayed[i]), same)
        was = replayed[step] if step < len(replayed) else None
        diffs.append(
            f"action_names: step {step + 1} recorded {names[step : step + 1]}, replayed {was!r}"
        )
    for key in ("length", "truncated"):
        if got[key] != record[key]:
            diffs.append(f"{key}: recorded {record[key]}, replayed {got[key]}")
    return diffs


def moves_text(record: dict) -> str:
    """A record's game move by move: the seat, the action id and its name."""
    got = replay(record)
    lines = [
        f"{record['event']} table {record['table']} game {record['game']} (seed {record['seed']}): "
        + ", ".join(f"player_{p} {name}" for p, name in enumerate(record["seats"]))
    ]
    moves = zip(got["actors"], record["actions"], got["action_names"], strict=True)
    for step, (actor, action, name) in enumerate(moves, 1):
        lines.append(f"  {step:>4}. {actor}: {action} ({name})")
    lines.append(f"  scores {record['scores']}, wins {record['wins']}")
    return "\n".join(lines)

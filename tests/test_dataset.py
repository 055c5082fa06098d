"""`card-envs dataset`: played games as Minari datasets, one episode per seat, checked against
a plain replay of each game in the AEC env; the same dataset from JSONL records; errors."""

from __future__ import annotations

import sys

import numpy as np
import pytest

pytest.importorskip("minari")

import card_envs  # noqa: E402
from card_envs import dataset  # noqa: E402
from card_envs.cli import main as cli_main  # noqa: E402
from card_envs.tournament.records import read_jsonl  # noqa: E402

AGENTS = ["heuristic", "random", "random"]


def replayed(record: dict) -> dict:
    """Per seat, by a plain AEC loop: observations and masks where it acted, its actions,
    and its total reward in the game."""
    env = card_envs.make(record["env_id"], **record["config"])
    env.reset(seed=record["seed"])
    out = {a: {"obs": [], "masks": [], "actions": [], "total": 0.0} for a in env.possible_agents}
    for action in record["actions"]:
        agent = env.agent_selection
        seen = env.observe(agent)
        out[agent]["obs"].append(seen["observation"])
        out[agent]["masks"].append(seen["action_mask"])
        out[agent]["actions"].append(action)
        env.step(action)
        for a in env.possible_agents:
            out[a]["total"] += env.rewards[a]
    for a in env.possible_agents:
        out[a]["final"] = env.observe(a)["observation"]
    return out


def test_a_played_dataset_holds_every_seats_trajectory(tmp_path):
    records = dataset.played_records("no_thanks_v0", AGENTS, 12, seed=4, config={})
    ds = dataset.write(records, tmp_path, "mixed")
    again = dataset.load(tmp_path, "card_envs/no_thanks_v0/mixed-v0")  # as a user opens it
    assert again.total_episodes == ds.total_episodes
    episodes = list(again.iterate_episodes())
    # every seat of every game, in game order (a seat that never acted would have none)
    expected = [(g, seat) for g, r in enumerate(records) for seat in range(3)]
    assert len(episodes) == len(expected)
    agents = list(dict.fromkeys(s for r in records for s in r["agents"]))
    for episode, (g, seat) in zip(episodes, expected, strict=True):
        want = replayed(records[g])[f"player_{seat}"]
        assert episode.infos["seat"].tolist() == [seat] * (len(want["actions"]) + 1)
        assert {agents[k] for k in episode.infos["agent"]} == {records[g]["agents"][seat]}
        np.testing.assert_array_equal(episode.observations, np.stack([*want["obs"], want["final"]]))
        assert episode.actions.tolist() == want["actions"]
        masks = episode.infos["action_mask"]
        np.testing.assert_array_equal(masks[:-1], np.stack(want["masks"]))
        assert not masks[-1].any() and masks[np.arange(len(want["actions"])), episode.actions].all()
        assert episode.rewards.sum() == pytest.approx(want["total"])  # win share at the end
        assert episode.terminations.tolist() == [False] * (len(want["actions"]) - 1) + [True]
        assert not episode.truncations.any()


def test_a_tournaments_records_and_store_give_the_same_dataset(tmp_path):
    db, out = tmp_path / "t.sqlite", tmp_path / "t"
    cli_main(["tournament", "--env", "no_thanks_v0", "--agents", "heuristic,random,r2=random",
              "--games", "6", "--format", "round_robin", "--db", str(db), "--out", str(out),
              "--records", "--name", "tiny", "--workers", "1", "--no-progress"])  # fmt: skip
    jsonl = out / "no_thanks_v0.jsonl"
    cli_main(["dataset", "--records", str(jsonl), "--out", str(tmp_path), "--name", "jsonl"])
    cli_main(["dataset", "--store", str(db), "--tournament", "tiny", "--event", "no_thanks_v0",
              "--out", str(tmp_path), "--name", "store"])  # fmt: skip
    a = list(dataset.load(tmp_path, "card_envs/no_thanks_v0/jsonl-v0").iterate_episodes())
    b = list(dataset.load(tmp_path, "card_envs/no_thanks_v0/store-v0").iterate_episodes())
    records = list(read_jsonl(jsonl))
    assert len(a) == len(b) == 3 * len(records) == 18
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x.observations, y.observations)
        np.testing.assert_array_equal(x.actions, y.actions)
        np.testing.assert_array_equal(x.rewards, y.rewards)
    for g, record in enumerate(records):  # each seat's rewards add up to the recorded ones
        assert [e.rewards.sum() for e in a[3 * g : 3 * g + 3]] == pytest.approx(record["rewards"])


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "give exactly one source"),
        (["--env", "no_thanks_v0"], "--env needs --agents"),
        (["--env", "no_thanks_v0", "--agents", "random,random", "--records", "x"], "exactly one"),
        (["--env", "no_thanks_v0", "--agents", "random,random,random", "--name", "a b"],
         "dataset name 'a b' may hold only"),
        (["--records", "/nowhere.jsonl"], "no such records file"),
        (["--store", "/nowhere.sqlite", "--tournament", "t"], "no such tournament store"),
        (["--store", "/nowhere.sqlite"], "--store needs --tournament"),
        (["--env", "no_thanks_v0", "--agents", "me=random,random,random"],
         "dataset --agents takes specs, not NAME=SPEC (['me=random'])"),
    ],
)  # fmt: skip
def test_bad_requests_stop_with_a_one_line_error(argv, message, tmp_path, capsys):
    with pytest.raises(SystemExit) as code:
        cli_main(["dataset", "--out", str(tmp_path), "--games", "3", *argv])
    assert code.value.code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_one_dataset_holds_one_config(tmp_path):
    three = dataset.played_records("no_thanks_v0", AGENTS, 3, seed=0, config={})
    four = dataset.played_records("no_thanks_v0", AGENTS + ["random"], 4, seed=0, config={})
    with pytest.raises(ValueError, match="one dataset holds one env and config"):
        dataset.write(three + four, tmp_path, "mixed")


def test_a_missing_minari_stops_the_command_before_any_game(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "minari", None)  # `import minari` raises ImportError

    def played(*args, **kwargs):
        raise AssertionError("games were played before minari was checked")

    monkeypatch.setattr(dataset, "played_records", played)
    with pytest.raises(SystemExit) as code:
        cli_main(["dataset", "--env", "no_thanks_v0", "--agents", "random,random,random",
                  "--out", str(tmp_path), "--games", "3"])  # fmt: skip
    assert code.value.code == 2
    err = capsys.readouterr().err
    assert 'install the data extra first (pip install -e ".[data]")' in err

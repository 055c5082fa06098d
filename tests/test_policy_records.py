"""Agents' policies in game records: ppo's masked probabilities and value, ismcts's root
visit shares and value, kept per decision when asked (`record_policy`), named in JSONL
records, absent by default; records without them still load and replay."""

from __future__ import annotations

import json

import numpy as np
import pytest

import card_envs
from card_envs.agents import make_agent
from card_envs.agents.base import TOP_ACTIONS
from card_envs.agents.ismcts import ISMCTSAgent
from card_envs.cli import main as cli_main
from card_envs.evaluation import evaluate
from card_envs.registry import make_game, make_vec
from card_envs.tournament import check_replay, read_jsonl
from card_envs.tournament.store import Store

pytest.importorskip("sb3_contrib")

ENV = "no_thanks_v0"


def decisions(env_id: str, config: dict, seed: int, actions: list[int]):
    """Each decision of a game replayed in the AEC env: (seat, observation, mask)."""
    env = card_envs.make(env_id, **config)
    env.reset(seed=seed)
    for action in actions:
        seen = env.observe(env.agent_selection)
        seat = env.possible_agents.index(env.agent_selection)
        yield seat, seen["observation"], seen["action_mask"]
        env.step(action)


def test_a_recorded_ppo_probability_is_the_models_masked_softmax_and_its_value():
    import torch
    from sb3_contrib import MaskablePPO

    from card_envs.agents.ppo import shipped_model

    ev = evaluate(ENV, ["ppo", "random", "heuristic"], games=3, seed=2, workers=1,
                  progress=False, record_policy=True)  # fmt: skip
    agent = make_agent("ppo", ENV)
    model = MaskablePPO.load(str(shipped_model(ENV)), device="cpu")  # SB3's own loading
    res = ev.results
    checked = 0
    for g in range(len(res.seeds)):
        assert len(res.policy[g]) == len(res.actions[g])
        steps = decisions(ENV, ev.config, int(res.seeds[g]), res.actions[g])
        for entry, action, (seat, obs, mask) in zip(
            res.policy[g], res.actions[g], steps, strict=True
        ):
            if res.agent_of_seat[g, seat] != 0:  # random and heuristic have no policy
                assert entry is None
                continue
            seen = obs[None] if agent.padding is None else agent.padding(obs[None])
            with torch.no_grad():
                t = torch.as_tensor(seen)
                dist = model.policy.get_distribution(t, action_masks=mask[None] != 0)
                probs = dist.distribution.probs.numpy()[0]
                _, value, _ = model.policy.forward(t, True, action_masks=mask[None] != 0)
            top = dict(entry["top"])
            assert action in top and all(mask[a] for a in top)  # legal actions only
            assert len(top) <= TOP_ACTIONS + 1 and sum(top.values()) <= 1 + 1e-3
            for a, p in top.items():
                assert p == pytest.approx(probs[a], abs=1e-4)
            assert entry["value"] == pytest.approx(float(value[0]), abs=1e-4)
            checked += 1
    assert checked > 20


def positions(env_id: str, config: dict, count: int, moves: int) -> tuple[np.ndarray, ...]:
    """State rows, observations and masks of `count` games after `moves` random moves."""
    venv = make_vec(env_id, count, seed=7, **config)
    obs, masks = venv.reset()
    rng = np.random.default_rng(0)
    for _ in range(moves):
        picks = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, masks, *_ = venv.step(picks)
    return venv.states.copy(), obs.copy(), masks.copy()


@pytest.mark.parametrize(("env_id", "config"), [(ENV, {}), ("surfosaurus_max_v0", {})])
def test_ismcts_visit_shares_sum_to_one_and_its_move_is_the_most_visited(env_id, config):
    game = make_game(env_id, **config)
    rows, obs, masks = positions(env_id, config, 12, 9)
    plain = ISMCTSAgent(game, 80, seed=3).act_rows(rows, masks)
    moves, shares, values = ISMCTSAgent(game, 80, seed=3).act_with_policy(obs, masks, rows)
    np.testing.assert_array_equal(moves, plain)  # the same moves as without the policy
    assert (shares[masks == 0] == 0).all()
    np.testing.assert_allclose(shares.sum(axis=1), 1)
    for i in range(len(rows)):
        assert shares[i, moves[i]] == shares[i].max()
        if masks[i].sum() == 1:  # a forced move is not searched
            assert shares[i, moves[i]] == 1 and np.isnan(values[i])
        else:  # a mean win share; visits come in whole simulations
            assert 0 <= values[i] <= 1
            np.testing.assert_allclose(shares[i] * 80, np.round(shares[i] * 80), atol=1e-9)


def test_a_tournament_records_named_policies_when_asked_and_not_by_default(tmp_path):
    common = ["tournament", "--env", ENV, "--agents", "ppo,ismcts:40,heuristic",
              "--games", "3", "--format", "round_robin", "--records", "--workers", "1",
              "--no-progress"]  # fmt: skip
    cli_main([*common, "--db", str(tmp_path / "a.sqlite"), "--out", str(tmp_path / "a"),
              "--name", "with", "--record-policy"])  # fmt: skip
    cli_main([*common, "--db", str(tmp_path / "b.sqlite"), "--out", str(tmp_path / "b"),
              "--name", "without"])  # fmt: skip
    plain = list(read_jsonl(tmp_path / "b" / f"{ENV}.jsonl"))
    assert all("policy" not in r for r in plain)
    with Store(tmp_path / "b.sqlite") as store:
        assert all(row["policy"] is None for row in store.rows("without"))
    records = list(read_jsonl(tmp_path / "a" / f"{ENV}.jsonl"))
    assert [r["actions"] for r in records] == [r["actions"] for r in plain]  # the same games
    for r in records:
        assert check_replay(r) == []
        env = card_envs.make(ENV, **r["config"])
        env.reset(seed=r["seed"])
        for entry, action in zip(r["policy"], r["actions"], strict=True):
            spec = r["agents"][env.possible_agents.index(env.agent_selection)]
            if spec == "heuristic":
                assert entry is None
            else:
                names = {a: name for a, name, _ in entry["top"]}
                assert names == {a: env.describe_action(a) for a in names}
                assert action in names and sum(p for *_, p in entry["top"]) == pytest.approx(1)
                ps = [p for *_, p in entry["top"]]
                assert ps == sorted(ps, reverse=True)
                assert entry["value"] is None or 0 <= entry["value"] <= 1.5
            env.step(action)
    old = {k: v for k, v in records[0].items() if k != "policy"}  # a record from before
    assert check_replay(json.loads(json.dumps(old))) == []

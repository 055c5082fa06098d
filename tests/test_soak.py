"""The soak (`python -m card_envs.testing.soak`): the quick run is clean for every case, and
a broken engine is caught (mid-game and in the final position) and fails the run."""

from __future__ import annotations

import json

import numpy as np
import pytest

from card_envs.core import layout
from card_envs.games.no_thanks import NoThanks
from card_envs.games.no_thanks import batched as nt_batched
from card_envs.games.no_thanks import engine as nt
from card_envs.registry import batched_env_ids, make_game
from card_envs.testing import cases, soak

pytestmark = pytest.mark.slow  # see pyproject's markers: out of the fast tier

TOKENS_LAW = nt.INVARIANT_ERRORS[4]  # tokens are negative or not conserved


@pytest.mark.parametrize("env_id", batched_env_ids())
def test_quick_soak_is_clean_for_every_case(env_id):
    """One env id's cases a test, so that pytest-xdist spreads the soak over its workers."""
    result = soak.soak([env_id], games=soak.QUICK_GAMES, aec_games=soak.QUICK_AEC_GAMES, log=None)
    played = [(c.env_id, c.config) for c in result.cases]
    assert played == [case for case in soak.soak_cases() if case[0] == env_id]
    assert all(case in played for case in cases() if case[0] == env_id)
    for c in result.cases:
        assert c.failures == [], "\n".join(c.failures)
        assert (c.violations, c.crashes) == (0, 0), c.where
        assert c.batched_games >= c.batched_target > 0, c.where
        assert c.aec_games >= c.aec_target > 0, c.where
    batched_games = sum(c.batched_games for c in result.cases)
    assert batched_games >= soak.QUICK_GAMES * type(make_game(env_id)).soak_share
    report = soak.report(result)
    for _, config in played:
        assert env_id in report and soak._config_text(config) in report
    if env_id == "rummidrez_v0":
        assert ("rummidrez_v0", {"num_players": 4}) in played  # whole hands: tables fill
        whole = next(c for c in result.cases if c.where == "rummidrez_v0 {'num_players': 4}")
        assert whole.measured_games >= whole.batched_games + whole.aec_games
        assert whole.measured / whole.measured_games > 10  # cards on the table: the tables fill
        assert "table cards at the end" in report


def test_the_soak_plays_every_batched_id_with_the_solo_game():
    ids = {env_id for env_id, _ in soak.soak_cases()}
    assert ids == set(batched_env_ids()) and "rummidrez_solo_v0" in ids


def _run(capsys, *args: str) -> tuple[int, str]:
    code = soak.main(["--env", "no_thanks_v0", "--games", "220", "--aec-games", "22", *args])
    return code, capsys.readouterr().out


@pytest.mark.parametrize("warm_up", [True, False], ids=["in-warm-up", "in-the-run"])
def test_a_row_broken_mid_game_is_reported_and_fails(monkeypatch, capsys, warm_up):
    """A batched step that slips a token into the pot of instance 1 (at its turn 10): caught
    by the warm-up, or (without it) by the case's own run."""
    if not warm_up:
        monkeypatch.setattr(soak, "warm_up", lambda res, num_envs: None)
    real = NoThanks.batch_step_kernel

    def leaky_batch_step(buffers, actions):
        bad = real(buffers, actions)
        states = buffers[0]
        if len(states) > 1 and states[1, layout.TURN] == 10:
            states[1, nt.POT] += 1
        return bad

    monkeypatch.setattr(NoThanks, "batch_step_kernel", leaky_batch_step)
    code, out = _run(capsys)
    assert code == 1
    assert "VIOLATION no_thanks_v0 {'num_players': 3, 'public_tokens': False}: batched " in out
    assert "instance 1 (seeded 1, its game 0 counted from 0, turn 10)" in out
    assert f"the row after the step: law 4: {TOKENS_LAW}" in out
    assert "state_dict: {" in out and "  row: [" in out
    assert "reproduce: python -m card_envs.testing.soak --env no_thanks_v0 --seed 0" in out
    assert "**FAIL**: " in out and "invariant violation(s)" in out
    assert ("(warm-up) VIOLATION" in out) == warm_up


def test_a_broken_final_position_is_caught_in_both_faces(monkeypatch, capsys):
    """A step kernel that loses a token when it ends the game: the AEC env checks the final
    position, the batched soak replays the last step of each finished instance and checks it."""
    real = NoThanks.step_kernel

    def leaky_last_step(row, action, rewards):
        real(row, action, rewards)
        if row[layout.STATUS] != layout.RUNNING:
            row[nt.POT] -= 1

    monkeypatch.setattr(NoThanks, "step_kernel", leaky_last_step)
    code, out = _run(capsys, "--seed", "3")
    assert code == 1
    assert "its final position, rebuilt by replaying the last step: law 4" in out
    assert "(final position): law 4" in out
    assert "--seed 3" in out


def test_a_crash_is_counted_and_fails(monkeypatch):
    def broken_heuristic(self, observations, masks):
        raise RuntimeError("heuristic broke")

    monkeypatch.setattr(NoThanks, "heuristic_actions", broken_heuristic)
    result = soak.soak(["no_thanks_v0"], games=110, aec_games=11, log=None)
    assert result.crashes >= 1 and result.violations == 0
    assert any(
        "CRASH no_thanks_v0" in f and "heuristic broke" in f
        for c in result.cases
        for f in c.failures
    )
    assert any("crash" in p for p in result.problems())


def test_a_game_without_batch_check_is_checked_row_by_row(monkeypatch):
    """A registered game of one's own may lack the compiled wrapper: the soak still checks."""
    monkeypatch.delattr(nt_batched, "batch_check")
    result = soak.soak(["no_thanks_v0"], games=110, aec_games=11, log=None)
    assert (result.violations, result.crashes) == (0, 0)
    assert all(c.batched_games >= c.batched_target for c in result.cases)


def test_random_legal_picks_only_legal_actions_uniformly():
    rng = np.random.default_rng(0)
    masks = np.zeros((20_000, 5), dtype=np.int8)
    masks[:, [1, 3, 4]] = 1
    picks = soak.random_legal(masks, rng)
    counts = np.bincount(picks, minlength=5)
    assert counts[[0, 2]].sum() == 0
    assert counts[[1, 3, 4]] == pytest.approx([20_000 / 3] * 3, rel=0.05)


def test_options_are_checked():
    with pytest.raises(SystemExit):
        soak.main(["--env", "chess_v0"])
    with pytest.raises(SystemExit):
        soak.main(["--games", "0"])


def test_every_table_has_a_heuristic_seat():
    coins = soak.heuristic_seats(np.random.default_rng(0), 20_000, 3)
    assert coins.any(axis=1).all()
    assert 0 < (~coins).sum() and coins.all(axis=1).any()  # mixed and all-heuristic tables
    assert (~coins).sum(axis=1).max() == 2
    assert soak.heuristic_seats(np.random.default_rng(1), 50, 1).all()  # one seat: heuristic


def test_an_observation_outside_its_space_is_caught_in_both_faces(monkeypatch):
    """Bounds that the tokens observed exceed (the seat's own tokens, slot 0, capped at 5):
    a violation in the batched and in the AEC part."""
    real = NoThanks.obs_bounds

    def tight(self):
        low, high = real(self)
        high = high.copy()
        high[nt.OBS_OWN_TOKENS] = 5
        return low, high

    monkeypatch.setattr(NoThanks, "obs_bounds", tight)
    result = soak.soak(["no_thanks_v0"], games=110, aec_games=11, log=None)
    failures = "\n".join(f for c in result.cases for f in c.failures)
    assert "batched instance" in failures and f"{soak.SPACE_LAW} (the seat to act)" in failures
    assert "AEC game" in failures and soak.SPACE_LAW in failures
    assert result.violations >= 2 and "violation" in "; ".join(result.problems())


def test_a_position_that_does_not_reload_is_caught(monkeypatch):
    """A loader that loses a token of the pot: the rows the soak reloads come back as
    other positions."""
    real = NoThanks.load_state_dict

    def lossy(self, d, seed=None):
        row = real(self, d, seed)
        row[nt.POT] += 1
        return row

    monkeypatch.setattr(NoThanks, "load_state_dict", lossy)
    result = soak.soak(["no_thanks_v0"], games=110, aec_games=11, log=None)
    failures = "\n".join(f for c in result.cases for f in c.failures)
    assert soak.RELOAD_LAW in failures and result.violations >= 1


def test_processes_play_the_same_games_as_one():
    def played(jobs: int) -> list[tuple]:
        result = soak.soak(["no_thanks_v0"], games=220, aec_games=22, log=None, jobs=jobs)
        assert result.problems() == [] and len(result.memory) == jobs
        return [
            (c.where, c.batched_games, c.aec_games, c.batched_truncated, c.measured_games)
            for c in result.cases
        ]

    assert played(2) == played(1)


def test_a_resumed_run_plays_only_the_cases_its_file_lacks(tmp_path, monkeypatch):
    """A run stopped after two cases is taken up again: the second run plays the other cases
    only, and its report covers all of them with the first run's figures."""
    path = tmp_path / "soak.jsonl"
    args = (["no_thanks_v0"], 220, 22)
    cases = soak.plan(*args, seed=0)
    real = soak.run_case
    calls = []

    def stopped_after_two(res, num_envs, log):
        if len(calls) == 2:
            raise KeyboardInterrupt  # the run is killed in its third case
        calls.append(res.where)
        real(res, num_envs, log)

    monkeypatch.setattr(soak, "run_case", stopped_after_two)
    with pytest.raises(KeyboardInterrupt):
        soak.soak(*args, log=None, resume=path)
    first = {c["config_index"]: c for c in map(json.loads, path.read_text().splitlines())}
    assert sorted(first) == [0, 1]

    monkeypatch.setattr(soak, "run_case", real)
    played = []
    monkeypatch.setattr(soak, "run_case", lambda res, *a: played.append(res.where) or real(res, *a))
    result = soak.soak(*args, log=None, resume=path)
    assert played == [c.where for c in cases[2:]]
    assert [c.where for c in result.cases] == [c.where for c in cases]
    assert result.resumed == 2 and result.problems() == []
    for c in result.cases[:2]:
        assert (c.batched_games, c.aec_games) == (
            first[c.config_index]["batched_games"],
            first[c.config_index]["aec_games"],
        )
    assert "2 taken from earlier runs" in soak.report(result)
    assert len(path.read_text().splitlines()) == len(cases)

    played.clear()  # other settings are another run: nothing is taken from the file
    other = soak.soak(["no_thanks_v0"], 330, 22, log=None, resume=path)
    assert other.resumed == 0 and len(played) == len(cases)

"""`card_envs.testing.check_game`: the whole conformance suite on one env id in one call (and
`card-envs conformance`), what a user with a game of their own runs. It
runs every check the suite has, names the check, the config and the seed of a failure, and
docs/conformance.md lists exactly those checks."""

from __future__ import annotations

import inspect
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from card_envs.core import layout
from card_envs.games.no_thanks import NoThanks, engine
from card_envs.testing import Report, check_game, checks, corners, faces
from card_envs.testing.conformance import (
    GAMES,
    MULTI_AGENT,
    PER_ENV_ID,
    SINGLE_AGENT,
    SLOW,
    check_name,
    main,
    suite,
)
from tests.test_sixth_game import ENV_ID, PACKAGE, ROOT, copy_game

CONFIG = {"num_players": 3}
EVERY = [*MULTI_AGENT, *GAMES, *SINGLE_AGENT, *PER_ENV_ID]


def test_every_check_of_the_modules_is_in_the_suite():
    """A check (a `check_*` taking an env id) added to `checks`, `corners` or `faces` runs
    only once it is in a group of `conformance`, which the suite and `check_game` run."""
    found = {
        f
        for module in (checks, corners, faces)
        for name, f in vars(module).items()
        if name.startswith("check_")
        and inspect.isfunction(f)
        and next(iter(inspect.signature(f).parameters)) == "env_id"
    }
    assert found == set(EVERY)
    assert set(SLOW) <= set(EVERY)


def test_the_docs_list_every_check():
    text = (ROOT / "docs" / "conformance.md").read_text()
    rows = set(re.findall(r"^\| `((?:corners\.|faces\.)?check_\w+)`", text, re.M))
    assert rows == {check_name(c) for c in EVERY}


def test_every_check_runs_on_a_real_game():
    """The quick call runs every check but the slow ones on each config and once per env
    id; naming the slow ones runs them."""
    report = check_game("no_thanks_v0", [CONFIG])
    per_config, per_id = suite("no_thanks_v0")
    quick = [c for c in per_config + per_id if c not in SLOW]
    assert report.checks == [check_name(c) for c in quick]
    assert report.ran == [(check_name(c), CONFIG if c in per_config else None) for c in quick]
    assert report.left_out == [check_name(c) for c in SLOW]
    text = str(report)
    assert text.startswith(f"no_thanks_v0: {len(quick)} checks passed on 1 config")
    assert "left out (quick=True): corners.check_state_dict_mutations, check_no_jit" in text
    slow = check_game("no_thanks_v0", [CONFIG], only=["state_dict_mutations", "check_no_jit"])
    assert slow.ran == [("corners.check_state_dict_mutations", CONFIG), ("check_no_jit", None)]
    assert slow.left_out == []


def test_each_id_gets_the_checks_of_its_kind():
    """A multi-agent id gets every check; the solo game its game's and its own state dicts';
    the run env its state dicts only, on `{}`."""
    assert suite("no_thanks_v0") == (
        sorted(dict.fromkeys([*MULTI_AGENT, *GAMES]), key=lambda c: c in SLOW),
        list(PER_ENV_ID),
    )
    assert suite("rummidrez_solo_v0") == ([*GAMES, *SINGLE_AGENT], [])
    report = check_game("double_or_nothing_run_v0")
    assert report.ran == [] and report.left_out == ["corners.check_state_dict_mutations"]
    assert check_game("double_or_nothing_run_v0", quick=False).ran == [
        ("corners.check_state_dict_mutations", {})
    ]
    with pytest.raises(ValueError, match="no_such_game_v9.*no_thanks_v0"):
        check_game("no_such_game_v9")
    with pytest.raises(ValueError, match="'shuffle'.*'games'"):
        check_game("no_thanks_v0", only=["shuffle"])


def _wrong_mask(monkeypatch):
    """`legal` lets a seat without tokens say "no thanks" (`> 0` written `>= 0`)."""
    legal = NoThanks.legal_kernel

    def wrong(row, out):
        legal(row, out)
        out[engine.NO_THANKS] = out[engine.TAKE]

    monkeypatch.setattr(NoThanks, "legal_kernel", wrong)


def _token_from_nowhere(monkeypatch):
    """`step` puts a token on the pot at turn 30: the tokens are no longer conserved."""
    step = NoThanks.step_kernel

    def leaky(row, action, rewards):
        step(row, action, rewards)
        if row[layout.TURN] == 30:
            row[engine.POT] += 1

    monkeypatch.setattr(NoThanks, "step_kernel", leaky)


def _no_redraw(monkeypatch):
    """`resample_hidden` redraws nothing: the removed cards and the deck order stay as dealt."""
    monkeypatch.setattr(engine, "resample_hidden", lambda row, seat: None)


@pytest.mark.parametrize(
    ("break_it", "check", "seed", "what"),
    [
        (_wrong_mask, "check_penalize", 3, "no position with an illegal action"),
        (_token_from_nowhere, "check_games", 0, "step 30: tokens are negative or not conserved"),
        (_no_redraw, "check_hidden_information", 21, "redrawn in only 0 of"),
    ],
    ids=["wrong_mask", "token_from_nowhere", "no_redraw"],
)
def test_a_broken_engine_fails_naming_the_check(monkeypatch, break_it, check, seed, what):
    check_game("no_thanks_v0", [CONFIG], only=[check])  # passes before the break
    break_it(monkeypatch)
    with pytest.raises(AssertionError) as err:
        check_game("no_thanks_v0", [CONFIG])
    message = str(err.value)
    assert message.startswith(f"{check} failed on no_thanks_v0 {CONFIG}, seed {seed}: "), message
    assert what in message
    rerun = f"card_envs.testing.checks.{check}('no_thanks_v0', {CONFIG}, seed={seed})"
    assert message.endswith(f"rerun it alone: {rerun}"), message


def test_the_command_line(capsys, monkeypatch):
    assert main(["no_thanks_v0", "--config", "num_players=3", "--only", "games"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("no_thanks_v0: 1 check passed on 1 config (1 run, ")
    assert f"ok check_games {CONFIG}" in err
    _token_from_nowhere(monkeypatch)
    assert main(["no_thanks_v0", "--config", "num_players=3", "--seed", "0"]) == 1
    assert "FAIL check_games failed on no_thanks_v0" in capsys.readouterr().err
    with pytest.raises(SystemExit) as bad:
        main(["no_thanks_v0", "--only", "shuffle"])
    assert bad.value.code == 2
    assert "error: unknown check(s) ['shuffle']" in capsys.readouterr().err
    assert isinstance(check_game("no_thanks_v0", [CONFIG], only=["padding"]), Report)


@pytest.mark.slow  # the copy's kernels compile afresh, and the slow checks run
def test_a_copied_game_folder_passes_from_the_command_line(tmp_path):
    """A game of one's own, not registered anywhere: the command registers it from
    `module:Class` and runs the whole suite on it, the slow checks too (about 10 s: the copy's
    kernels compile afresh)."""
    copy_game(tmp_path / PACKAGE)
    path = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])  # not tmp_path
    script = shutil.which("card-envs", path=str(Path(sys.executable).parent))
    assert script, "the card-envs script is installed with the package"
    done = subprocess.run(
        [script, "conformance", f"{PACKAGE}:NoThanks", "--full"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    checks_run = len(suite("no_thanks_v0")[0]) + len(PER_ENV_ID)
    assert done.stdout.startswith(f"{ENV_ID}: {checks_run} checks passed on 1 config")
    assert "left out" not in done.stdout

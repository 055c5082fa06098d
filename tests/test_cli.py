"""The command line: `card-envs play` and `card-envs list`."""

import subprocess
import sys

import pytest

from card_envs.cli import main


def test_play_prints_a_results_table(capsys):
    main(["play", "no_thanks_v0", "--agents", "heuristic,random,random", "--games", "60"])
    out = capsys.readouterr().out
    rows = [r for r in map(str.split, out.splitlines()) if r[1:2] in (["heuristic"], ["random"])]
    assert [r[1] for r in rows] == ["heuristic", "random", "random"]
    win_rates = [float(r[2]) for r in rows]
    assert sum(win_rates) == pytest.approx(1.0, abs=1e-6)
    assert win_rates[0] > max(win_rates[1:])


def test_list_and_errors(capsys):
    main(["list"])
    assert "no_thanks_v0" in capsys.readouterr().out
    with pytest.raises(SystemExit) as err:
        main(["play", "uno_v9", "--agents", "random"])
    assert err.value.code == 2
    assert "uno_v9" in capsys.readouterr().err


def test_module_entry_point_runs():
    out = subprocess.run(
        [sys.executable, "-m", "card_envs", "list"], capture_output=True, text=True, check=True
    ).stdout
    assert "no_thanks_v0" in out.split()

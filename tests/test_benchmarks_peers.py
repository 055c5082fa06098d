"""The peers of `python -m benchmarks.throughput --peers` (benchmarks/peers.py).

Every peer is played for a small step budget (never for a time), so nothing here depends on
the machine's speed. The peer libraries come with the dev extra (via `bench`); OpenSpiel 2
and Shimmy exist for Python >= 3.11 only, so below that their peers must be reported as not
installed instead.
"""

import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import peers

pytestmark = pytest.mark.slow  # see pyproject's markers: out of the fast tier

ROOT = Path(__file__).resolve().parents[1]
NEEDS_OPENSPIEL = {"pettingzoo/hanabi_v5"} | {
    p.key for p in peers.peers() if p.library == "OpenSpiel"
}
# Most player decisions one game can have (generous where the rules set no bound).
MAX_STEPS_PER_GAME = {
    "texas_holdem_v4 (env())": 48,
    "hanabi_v5 (env())": 118,
    "uno": 2000,
    "gin-rummy": 210,  # its max_move_count (200) ends the game as a dead hand, then scoring
    "leduc-holdem": 8,
    "limit-holdem": 48,
    "gin_rummy": 300,
    "hearts": 64,
    "hanabi": 118,
    "leduc_poker": 8,
}


def expected_missing() -> set[str]:
    return set() if sys.version_info >= (3, 11) else NEEDS_OPENSPIEL


def test_peer_list():
    keys = [p.key for p in peers.peers()]
    assert len(keys) == len(set(keys)) == 2 + 2 * 4 + 2 * 4
    assert {p.label for p in peers.peers()} == set(MAX_STEPS_PER_GAME)
    for library in ("RLCard", "OpenSpiel"):
        rows = [p for p in peers.peers() if p.library == library]
        assert sum(p.obs for p in rows) == sum(not p.obs for p in rows) == 4


def test_every_peer_with_the_extra_runs():
    runners, missing = peers.peer_runners(seed=0)
    assert set(missing) == expected_missing()
    assert all(reason.startswith(peers.NOT_INSTALLED) for reason in missing.values())
    by_key = {p.key: p for p in peers.peers()}
    for key, run in runners.items():
        steps, episodes, elapsed = run(math.inf, 100)
        # whole games until the budget is reached, each with at least one decision
        assert steps >= 100, key
        assert 1 <= episodes <= steps, key
        assert steps <= episodes * MAX_STEPS_PER_GAME[by_key[key].label], key
        assert elapsed > 0 and steps / elapsed > 0 and episodes / elapsed > 0, key
        # a further call goes on with new games
        more, more_episodes, _ = run(math.inf, 1)
        assert more >= 1 and more_episodes == 1, key


def test_openspiel_reads_the_tensor_rl_environment_reads():
    if sys.version_info < (3, 11):  # no OpenSpiel 2 there: its peers are reported missing
        assert importlib.util.find_spec("pyspiel") is None
        return
    import pyspiel

    info = pyspiel.State.information_state_tensor
    obs = pyspiel.State.observation_tensor
    for name, tensor in (
        ("leduc_poker", info),
        ("hearts", info),
        ("gin_rummy", obs),
        ("hanabi", obs),
    ):
        assert peers.openspiel_tensor(pyspiel.load_game(name)) is tensor, name


def test_with_and_without_observations_play_the_same_games():
    """Same seed, same action stream: the two modes differ only in the observation. (Not
    RLCard's uno, whose raw legal actions repeat a card held twice: the action-id list
    does not, so the random choice differs.)"""
    for library, games, make in (
        ("RLCard", ["gin-rummy", "leduc-holdem", "limit-holdem"], peers.rlcard_runner),
        ("OpenSpiel", peers.OPENSPIEL_GAMES, peers.openspiel_runner),
    ):
        if library == "OpenSpiel" and sys.version_info < (3, 11):
            continue
        for name in games:
            with_obs = make(name, 3, True)(math.inf, 150)
            without = make(name, 3, False)(math.inf, 150)
            assert with_obs[:2] == without[:2], (library, name)


def test_missing_peers_are_reported_not_raised(tmp_path):
    """With the peer libraries unimportable, `--peers` still runs and lists every peer as
    not installed."""
    out = tmp_path / "bench.json"
    code = (
        "import sys\n"
        "sys.modules.update(rlcard=None, pyspiel=None, shimmy=None)\n"
        "from benchmarks.throughput import main\n"
        "raise SystemExit(main(['--peers', '--env', 'no_thanks_v0', '--seconds', '0.01',\n"
        f"    '--rounds', '1', '--num-envs', '8', '--json', {str(out)!r}]))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(out.read_text())["peers"]["rows"]
    missing = [r for r in rows if "missing" in r]
    assert len(missing) == len(peers.peers())
    assert all(r["missing"].startswith(peers.NOT_INSTALLED) for r in missing)
    assert proc.stdout.count(peers.NOT_INSTALLED) == len(peers.peers())
    measured = {r["label"]: r for r in rows if "missing" not in r}
    assert set(measured) == {
        "tictactoe_v3 (env())",
        "no_thanks_v0 (AEC)",
        "no_thanks_v0 (batched, 8)",
    }
    for r in measured.values():
        assert r["steps_per_s"] > 0 and r["x_tictactoe"] > 0
    # AEC loops play whole games, at least one per round
    assert measured["tictactoe_v3 (env())"]["episodes_per_s"] > 0
    assert measured["no_thanks_v0 (AEC)"]["episodes_per_s"] > 0

"""docs/first_hour.md as a newcomer runs it: its files written, its commands run in order in
an empty folder, each checked for what the page says it does."""

from __future__ import annotations

import csv
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from card_envs.cli import main
from tests.test_play_terminal import finish

pytest.importorskip("sb3_contrib")
pexpect = pytest.importorskip("pexpect")

pytestmark = pytest.mark.slow  # two trainings and two benches: out of the fast tier

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "first_hour.md"


def page() -> tuple[dict[str, str], list[str]]:
    """The page's files (the block after `<!-- file: NAME -->`) and its commands (the lines
    of every block after `<!-- run -->`), in the page's order."""
    text = PAGE.read_text()
    files = dict(re.findall(r"<!-- file: (\S+) -->\n```\w+\n(.*?)^```", text, re.S | re.M))
    runs = re.findall(r"<!-- run -->\n```bash\n(.*?)^```", text, re.S | re.M)
    return files, [line for block in runs for line in block.splitlines() if line.strip()]


def play_by_last_moves(args: list[str], cwd: Path) -> str:
    """`card-envs play` with a person who always picks the last move listed."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8"}
    child = pexpect.spawn(sys.executable, ["-m", "card_envs", *args], cwd=str(cwd), env=env,
                          encoding="utf-8", timeout=300)  # fmt: skip
    child.setwinsize(200, 200)
    child.delaybeforesend = None  # pexpect sleeps 50 ms before each line by default
    return finish(child)


def win_rates(out: str) -> dict[str, tuple[float, float]]:
    """agent -> (win rate, low end of its interval) from `evaluate`'s table."""
    rows = re.findall(r"^\s+\d+ (\S+)\s+([\d.]+)\s+\[([\d.]+),", out, re.M)
    return {agent: (float(rate), float(low)) for agent, rate, low in rows}


def test_the_pages_commands_run_as_written(tmp_path, monkeypatch, capsys):
    files, commands = page()
    assert sorted(files) == ["mine.yaml", "train_mine.py"]
    install, play, train, *card_envs_commands = commands
    readme = (ROOT / "README.md").read_text()
    assert f"{install} && python3 -m card_envs tournament" in readme  # the README's first command
    monkeypatch.chdir(tmp_path)
    for name, text in files.items():
        (tmp_path / name).write_text(text)

    assert play.startswith("card-envs play ") and "human" in play
    play_by_last_moves(shlex.split(play)[1:], tmp_path)  # a whole game to its end

    assert train == "python3 train_mine.py"
    subprocess.run([sys.executable, "train_mine.py"], check=True, cwd=tmp_path)
    assert (tmp_path / "mine.zip").exists() and (tmp_path / "plain.zip").exists()

    outs = []
    for command in card_envs_commands:
        args = shlex.split(command)
        assert args[0] == "card-envs", command
        main([*args[1:], "--no-progress"])
        outs.append(capsys.readouterr().out)
    evaluate_mine, evaluate_plain, bench_both, bench_all, tournament = outs

    mine = win_rates(evaluate_mine)["ppo:mine.zip"]
    assert mine[1] > 1 / 3  # 20,000 steps beat random players, as the page says
    assert "sb3:plain.zip" in win_rates(evaluate_plain)

    cards = {}
    for folder in (tmp_path / "runs" / "bench").iterdir():  # runs/bench/<spec, made a name>
        cards[folder.name.split("-")[0]] = json.loads((folder / "scorecard.json").read_text())
    assert sorted(cards) == ["ppo", "sb3"]
    for card in cards.values():
        cells = {(c["env_id"], c["setting"]) for c in card["cells"]}
        assert cells == {("no_thanks_v0", "3 players")} and len(card["cells"]) == 5
    assert bench_both.count("600 to play") == 2
    # the whole protocol: the stored cells read back, every other cell listed with its reason
    assert "0 to play" in bench_all
    skipped = cards["sb3"]["skipped"]  # rewritten by the second command
    assert skipped and all("trained on observations of shape" in s["reason"] for s in skipped)
    assert any(s["cell"].startswith("no_thanks_v0[num_players=4]") for s in skipped)

    board = tmp_path / "runs" / "tournaments" / "mine"
    with (board / "no_thanks_v0.csv").open() as f:
        entrants = {row["name"] for row in csv.DictReader(f)}
    assert {"mine", "plain", "ppo", "heuristic", "random"} <= entrants
    assert "mine" in tournament

"""The docs' commands: every `card-envs ...` line of the README and docs/ parses with the
CLI's own parser, and the agent guide's files and commands run as written."""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from card_envs.cli import build_parser, main

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
COMMAND = re.compile(r"^\s*(?:card-envs|python3? -m card_envs)\s+(.*)$")
INLINE = re.compile(r"`(?:card-envs|python3? -m card_envs) ([^`]*--[^`]*)`")


def _blocks(text: str) -> list[tuple[str, list[tuple[int, str]]]]:
    """(language, [(line number, line)]) of every fenced block, continuation lines joined."""
    out, lang, lines = [], None, []
    for no, line in enumerate(text.splitlines(), 1):
        if line.strip().startswith("```"):
            if lang is None:
                lang, lines = line.strip()[3:], []
            else:
                out.append((lang, lines))
                lang = None
        elif lang is not None:
            if lines and lines[-1][1].endswith("\\"):
                lines[-1] = (lines[-1][0], lines[-1][1][:-1] + " " + line.strip())
            else:
                lines.append((no, line))
    return out


def doc_commands() -> list:
    """Every command line in a shell block, and every inline `card-envs ...` with an option
    (a bare `card-envs train` in prose names the command, it is no line to run). Usage
    synopses stand in `text` blocks."""
    found = []
    for page in PAGES:
        text = page.read_text()
        where = page.relative_to(ROOT)
        for lang, lines in _blocks(text):
            if lang not in ("bash", "sh", "console", "shell"):
                continue
            for no, line in lines:
                m = COMMAND.match(line)
                if m:
                    found.append(pytest.param(m.group(1), id=f"{where}:{no}"))
        for no, line in enumerate(text.splitlines(), 1):
            for m in INLINE.finditer(line):
                found.append(pytest.param(m.group(1), id=f"{where}:{no}:inline"))
    return found


@pytest.mark.parametrize("command", doc_commands())
def test_every_documented_command_parses(command):
    command = re.split(r"\s+#|&&|\|", command)[0].strip()  # a comment, a chained command
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            build_parser().parse_args(shlex.split(command))
    except SystemExit:
        pytest.fail(f"card-envs {command}: {err.getvalue().strip().splitlines()[-1]}")


GUIDE = ROOT / "docs" / "your_agent.md"


def _guide() -> tuple[dict[str, str], list[str]]:
    """The guide's files (a block after `<!-- file: NAME -->`) and commands (the lines of a
    block after `<!-- run -->`)."""
    text = GUIDE.read_text()
    files = dict(re.findall(r"<!-- file: (\S+) -->\n```python\n(.*?)^```", text, re.S | re.M))
    runs = re.findall(r"<!-- run -->\n```bash\n(.*?)^```", text, re.S | re.M)
    return files, [line for block in runs for line in block.splitlines() if line.strip()]


def test_the_agent_guide_has_its_examples():
    files, commands = _guide()
    assert sorted(files) == [
        "counting.py",
        "greedy.py",
        "net_agent.py",
        "save_net.py",
        "torch_policy.py",
    ]
    assert len(commands) == 7
    assert all(c.startswith(("card-envs ", "python3 save_net.py")) for c in commands)


@pytest.mark.parametrize("index", [i for i, c in enumerate(_guide()[1]) if c.startswith("card")])
def test_the_agent_guides_commands_run(index, tmp_path, monkeypatch, capsys):
    pytest.importorskip("torch")
    files, commands = _guide()
    monkeypatch.chdir(tmp_path)
    for name, code in files.items():
        (tmp_path / name).write_text(code)
    for earlier in commands[:index]:  # the guide's scripts that came before, as a reader ran them
        if earlier.startswith("python3 "):
            subprocess.run([sys.executable, *shlex.split(earlier)[1:]], check=True, cwd=tmp_path)
    args = shlex.split(commands[index])[1:]
    main([*args, "--no-progress"] if args[0] in ("evaluate", "tournament") else args)
    out = capsys.readouterr().out
    assert "games" in out
    if "--out" in args:
        assert (tmp_path / args[args.index("--out") + 1]).exists()


def test_the_install_pages_python_runs():
    page = ROOT / "docs" / "install.md"
    blocks = [code for lang, code in _fenced(page.read_text()) if lang == "python"]
    assert blocks
    for code in blocks:
        exec(compile(code, str(page), "exec"), {"__name__": "__main__"})


def _fenced(text: str) -> list[tuple[str, str]]:
    return re.findall(r"^```(\w+)\n(.*?)^```", text, re.S | re.M)


def test_the_batched_pages_self_play_loop_credits_every_seat():
    """docs/batched.md's worked loop: every finished game's per-seat returns are the seats'
    shares of the win (summing to 1), and the loop trains (the network changes)."""
    torch = pytest.importorskip("torch")
    text = (ROOT / "docs" / "batched.md").read_text()
    files = dict(re.findall(r"<!-- file: (\S+) -->\n```python\n(.*?)^```", text, re.S | re.M))
    namespace: dict = {}
    exec(compile(files["selfplay.py"], "selfplay.py", "exec"), namespace)
    torch.manual_seed(0)
    net, games = namespace["train"](num_envs=32, steps=32, updates=3, num_players=3)
    assert len(games) > 10 and games.shape[1] == 3
    assert np.allclose(games.sum(axis=1), 1.0) and games.min() >= 0
    fresh = namespace["train"](num_envs=32, steps=32, updates=0, num_players=3)[0]
    changed = [
        not torch.equal(a, b) for a, b in zip(net.parameters(), fresh.parameters(), strict=True)
    ]
    assert any(changed)

"""The docs: the Sphinx site builds with warnings as errors, the README stays a front door
whose Python examples run, and every figures page names the benchmark that writes it."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
FIGURES = ROOT / "docs" / "figures"


def readme_python_blocks() -> list:
    """Every ```python block of the README, with the line it starts on."""
    text = README.read_text()
    blocks = []
    for m in re.finditer(r"^```python\n(.*?)^```", text, re.S | re.M):
        line = text.count("\n", 0, m.start(1)) + 1
        blocks.append(pytest.param(m.group(1), line, id=f"README.md:{line}"))
    return blocks


@pytest.mark.parametrize(("code", "line"), readme_python_blocks())
def test_readme_python_block_runs(code, line, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # what a block saves lands there
    # padded so that a traceback names the README's own line numbers
    exec(compile("\n" * (line - 1) + code, str(README), "exec"), {"__name__": "__main__"})


def test_readme_is_a_front_door():
    """At most 200 lines, an example per face, the two commands, no dated figures."""
    text = README.read_text()
    assert len(text.splitlines()) <= 200
    code = "".join(p.values[0] for p in readme_python_blocks())
    for face in ("card_envs.make(", "card_envs.make_vec(", "-single", "SingleAgentVecEnv("):
        assert face in code, face
    lines = text.splitlines()
    marker = lines.index("<!-- test-command -->")  # .ci/run runs the line after the fence
    assert lines[marker + 1] == "```bash" and "pytest" in lines[marker + 2]
    assert "tournament --config configs/tournaments/main.yaml" in text
    assert not re.search(r"\b20\d\d-\d\d-\d\d\b", text), "a dated figure belongs on a docs page"


@pytest.mark.parametrize("page", sorted(p.name for p in FIGURES.glob("*.md") if p.stem != "index"))
def test_figures_page_names_the_benchmark_that_writes_it(page):
    """A figures page starts with where it was measured, and its command is a benchmark that
    writes such a page (`--out`), so that running it again replaces the page."""
    text = (FIGURES / page).read_text()
    assert re.search(r"^- date: \d{4}-\d\d-\d\d, commit \w+", text, re.M), page
    assert re.search(r"^- machine: ", text, re.M), page
    if re.search(r"^- command: `card-envs bench ", text, re.M):  # the bench scorecards
        path, flag = ROOT / "card_envs/bench/command.py", '"--page"'
    else:
        module = re.search(
            r"^- command: `python -m ((?:benchmarks|card_envs\.testing)\.\w+)", text, re.M
        )
        assert module, f"{page} names no benchmark command"
        path, flag = ROOT / (module.group(1).replace(".", "/") + ".py"), '"--out"'
    assert flag in path.read_text(), f"{path.relative_to(ROOT)} writes no page"


@pytest.mark.slow
def test_site_builds_with_warnings_as_errors(tmp_path):
    """The whole site: every page, the included rules and env pages, the API reference that
    autosummary generates from every module's docstrings (into docs/api/, ignored by git)."""
    command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-b", "html", "-q"]
    command += ["-d", str(tmp_path / "doctrees"), str(ROOT / "docs"), str(tmp_path / "html")]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-8000:]
    for page in ("index", "games/rummidrez", "research/rummidrez_search", "api"):
        assert (tmp_path / "html" / f"{page}.html").exists(), page

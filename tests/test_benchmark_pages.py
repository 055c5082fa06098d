"""Figures pages: a benchmark's `--out PAGE` writes its report under the date, commit, machine,
versions and command it ran with (`card_envs.testing.report.write_page`), so the next run of the
command replaces the page whole (docs/figures/)."""

import json
import re

import pytest

from benchmarks import baselines, parallelism, throughput
from card_envs.core.threads import usable_cores
from card_envs.testing.report import printed

pytestmark = pytest.mark.slow  # see pyproject's markers: out of the fast tier


def _check_head(text: str, title: str, command: str) -> list[str]:
    """The page's title, where it ran and the command; returns the lines after them."""
    lines = text.splitlines()
    assert lines[0] == f"# {title}"
    assert lines[4].startswith("- date: ") and ", commit " in lines[4]
    assert lines[5].startswith("- machine: ")
    assert "numpy" in lines[6] and "numba" in lines[6]
    assert lines[7] == f"- command: `{command}`"
    return lines[8:]


def test_printed_keeps_what_it_prints(capsys):
    with printed() as kept:
        print("| a | b |")
    assert kept.getvalue() == "| a | b |\n" == capsys.readouterr().out


def test_baselines_page_has_every_shipped_model(tmp_path):
    page = tmp_path / "baselines.md"
    baselines.main(["--out", str(page)])
    body = "\n".join(
        _check_head(page.read_text(), "Trained baselines", f"{baselines.PROG} --out {page}")
    )
    envs = {json.loads(n.read_text())["env"] for n in baselines.MODELS.glob("*.json")}
    for env in envs:  # every ppo model once; the exit networks have their own page
        assert body.count(f"\n## {env}\n") == 1 and body.count(f"\n| {env} |") == 1, env


def test_throughput_page_has_the_run_table(tmp_path):
    page = tmp_path / "throughput.md"
    argv = ["--env", "no_thanks_v0", "--seconds", "0.01", "--rounds", "1", "--num-envs", "8"]
    assert throughput.main([*argv, "--out", str(page)]) == 0
    body = _check_head(
        page.read_text(), "Throughput", " ".join([throughput.PROG, *argv, "--out", str(page)])
    )
    assert any(line.startswith("| no_thanks_v0 ") for line in body)
    threads = body[body.index("## Threads") :]
    head = next(line for line in threads if line.startswith("| env"))
    assert [f"T={t} steps/s" in head for t in range(1, usable_cores() + 1)] == [True] * (
        usable_cores()
    )
    assert sum(line.startswith("| no_thanks_v0 ") for line in threads) == 1
    assert any(line.startswith("| tictactoe_v3 (PettingZoo, env()) ") for line in body)


def test_parallelism_page_has_both_jobs_three_ways(tmp_path):
    """Needs two cores (the machines of the suite have them): one process, processes, and
    one process with the env on threads, for evaluate and the soak."""
    page = tmp_path / "parallelism.md"
    argv = ["--env", "no_thanks_v0", "--games", "30", "--soak-games", "220"]
    assert parallelism.main([*argv, "--out", str(page)]) == 0
    body = _check_head(
        page.read_text(),
        "Processes or threads",
        " ".join([parallelism.PROG, *argv, "--out", str(page)]),
    )
    head = next(line for line in body if line.startswith("| env"))
    cores = usable_cores()
    assert f"{cores} processes" in head and f"1 process, {cores} threads" in head
    rows = [line for line in body if line.startswith("| no_thanks_v0 ")]
    assert [row.split("|")[2].strip() for row in rows] == ["evaluate", "soak"]
    for row in rows:
        cells = [c.strip() for c in row.split("|")[3:-1]]
        assert all(re.fullmatch(r"[\d.]+ s( \([\d.]+x\))?", c) for c in cells[:3]), row
        assert re.fullmatch(r"\d+%", cells[3]), row

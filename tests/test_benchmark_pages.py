"""Figures pages: a benchmark's `--out PAGE` writes its report under the date, commit, machine,
versions and command it ran with (`card_envs.testing.report.write_page`), so the next run of the
command replaces the page whole (docs/figures/)."""

import json
import re
import subprocess

import pytest

from benchmarks import baselines, cold_start, exploitability, parallelism, throughput
from benchmarks import exit as exit_figures
from card_envs.agents.specs import spec_digest
from card_envs.core.threads import usable_cores
from card_envs.testing import report
from card_envs.testing.report import printed
from card_envs.training.exploit import slug as exploit_slug

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


def test_the_command_line_names_paths_inside_the_working_directory_relatively(
    tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    inside, outside = tmp_path / "docs" / "page.md", tmp_path.parent / "elsewhere.md"
    line = report.command_line("python -m x", ["--out", str(inside), "--db", str(outside)])
    assert line == f"python -m x --out docs/page.md --db {outside}"


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
    argv = ["--env", "no_thanks_v0", "--seconds", "0.01", "--rounds", "1", "--num-envs", "8",
            "--vec-rows", "2", "4"]  # fmt: skip
    assert throughput.main([*argv, "--out", str(page)]) == 0
    body = _check_head(
        page.read_text(), "Throughput", " ".join([throughput.PROG, *argv, "--out", str(page)])
    )
    assert any(line.startswith("| no_thanks_v0 ") for line in body)
    threads = body[body.index("## Threads") : body.index("## Gymnasium vector envs")]
    head = next(line for line in threads if line.startswith("| env"))
    assert [f"T={t} steps/s" in head for t in range(1, usable_cores() + 1)] == [True] * (
        usable_cores()
    )
    assert sum(line.startswith("| no_thanks_v0 ") for line in threads) == 1
    vec = body[body.index("## Gymnasium vector envs") :]
    rows = [line.split("|")[1:-1] for line in vec if line.startswith("| no_thanks_v0 ")]
    assert [r[1].strip() for r in rows] == ["2", "4"]  # native and sync per row count
    assert all(float(r[2].replace(",", "")) > 0 and r[4].strip().endswith("x") for r in rows)
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


def _exploit_result(target: str, seed: int, bound: float, networks: str | None = None) -> dict:
    """What `card-envs exploit` returns (its `exploit` entry), for a 2-player Double or
    Nothing; `networks`: the digest of another network than the shipped one."""
    rate = 0.5 + bound / 100
    digest = spec_digest(target, "double_or_nothing_v0") if networks is None else networks
    e = {
        "target": target, "target_networks": digest, "seed": seed, "budget_minutes": 5.0,
        "games": 2000,
        "learner_steps": 123_456, "exploiter_win_rate": rate,
        "exploiter_ci": [rate - 0.02, rate + 0.02], "fair_share": 0.5, "bound_points": bound,
        "bound_points_ci": [bound - 2, bound + 2], "target_ms_per_move": 0.1,
        "target_self_play_win_rate": 0.5, "target_self_play_ci": [0.48, 0.52],
    }  # fmt: skip
    return {"exploit": e}


def _exploit_cell(run, event: str, target: str, seed: int, bound: float, networks=None) -> None:
    """A finished `benchmarks.exploitability` cell, as `card-envs exploit` leaves it."""
    cell = run / event / exploit_slug(target)
    cell.mkdir(parents=True)
    result = _exploit_result(target, seed, bound, networks)
    (cell / "results.json").write_text(json.dumps(result))


def test_exploitability_table_keeps_the_named_targets_and_reuses_their_cells(tmp_path, monkeypatch):
    """A cell of the same budget, games and seed is read, not run again; another seed's is."""
    made = []

    def exploit(request, restart):
        made.append((request.target, request.seed))
        return _exploit_result(request.target, request.seed, 5.0)

    monkeypatch.setattr(exploitability, "exploit", exploit)
    _exploit_cell(tmp_path, "double_or_nothing", "exit", 0, 10.0)
    _exploit_cell(tmp_path, "double_or_nothing", "ppo", 0, 20.0, networks="0" * 16)
    argv = ["--minutes", "5", "--event", "double_or_nothing", "--target", "exit"]
    for seed in (0, 1):
        exploitability.main([*argv, "--seed", str(seed), "--out", str(tmp_path)])
        rows = (tmp_path / "table.md").read_text().splitlines()[4:]
        assert [r.split(" | ")[:2] for r in rows] == [["| double_or_nothing", "`exit`"]]
        assert ("+10.0" if seed == 0 else "+5.0") in rows[0]
    assert made == [("exit", 1)]
    # the ppo cell was made against another network than the shipped one: made again
    exploitability.main([*argv[:-1], "ppo", "--seed", "0", "--out", str(tmp_path)])
    assert made == [("exit", 1), ("ppo", 0)]


def test_exit_page_has_every_stage_opponent_and_the_exploit_cells(tmp_path):
    page = tmp_path / "exit.md"
    runs = [tmp_path / "seed0", tmp_path / "seed1", tmp_path / "seed2"]  # seed 2: no cells
    _exploit_cell(runs[0], "double_or_nothing", "exit", 0, 10.0)
    _exploit_cell(runs[1], "double_or_nothing", "exit", 1, 20.0)
    _exploit_cell(runs[0], "double_or_nothing", "ppo", 0, 30.0)
    _exploit_cell(runs[1], "double_or_nothing", "ppo", 1, 40.0, networks="0" * 16)  # stale
    argv = ["--env", "double_or_nothing_v0", "--games", "4"]
    argv += [arg for run in runs for arg in ("--exploit", str(run))]
    exit_figures.main([*argv, "--out", str(page)])
    command = " ".join([exit_figures.PROG, *argv, "--out", str(page)])
    body = _check_head(page.read_text(), "Expert iteration", command)
    cells = [line.split(" | ")[:2] for line in body if line.startswith(("| default", "| stage="))]
    settings = ["| default"] + [f"| stage={s}" for s in range(2, 6)]
    assert cells == [[s, o] for s in settings for o in ("heuristic", "computer", "ppo")]
    exploit_rows = [line for line in body if line.startswith("| double_or_nothing_v0 | `")]
    assert [[c.strip() for c in r.split("|")[2:4]] for r in exploit_rows] == [
        ["`exit`", "0"],
        ["`ppo`", "0"],
        ["`exit`", "1"],
        ["`ppo`", ""],
        ["`exit`", ""],
        ["`ppo`", ""],
    ]
    assert "+10.0 [+8.0, +12.0]" in exploit_rows[0]
    assert f"{runs[1]}: made against another network" in exploit_rows[3]
    assert f"no run in {runs[2]}" in exploit_rows[4] and f"no run in {runs[2]}" in exploit_rows[5]
    assert "- double_or_nothing_v0: mean bound `exit` +15.0, `ppo` +30.0" in body


def test_exit_page_plays_the_solo_game_on_the_same_deals(tmp_path):
    """One seat: the share of deals `exit` scores better than each opponent on, both means."""
    page = tmp_path / "exit.md"
    exit_figures.main(["--env", "rummidrez_solo_v0", "--games", "4", "--out", str(page)])
    rows = [line for line in page.read_text().splitlines() if line.startswith("| hints=True |")]
    assert [row.split(" | ")[1] for row in rows] == ["heuristic", "ppo"]
    assert all("; mean reward " in row and row.split(" | ")[3] == "0.500" for row in rows)


def test_cold_start_page_keeps_one_section_per_condition(tmp_path):
    """Each condition's run replaces its own section, with a row of five figures per env."""
    page = tmp_path / "cold_start.md"
    cold_start.main(["--env", "no_thanks_v0", "--repeat", "1", "--out", str(page)])
    cold_start.main(["--env", "no_thanks_v0", "--pin", "--repeat", "1", "--out", str(page)])
    text = page.read_text()
    assert text.startswith("# Time to the first answer\n")
    assert "## Any core, nothing else running" in text
    assert "## Pinned to one core, nothing else running" in text
    assert text.count("| no_thanks_v0 |") == 2 and text.count("| goal ") == 2
    row = next(line for line in text.splitlines() if line.startswith("| no_thanks_v0 |"))
    cold_aec, built, cold_batched, warm, imported = (float(c) for c in row.split("|")[2:7])
    assert min(cold_aec, cold_batched, warm, imported) > 0  # no timing compared: CI is busy
    assert built >= cold_aec  # the same process, read later


def test_cold_start_takes_the_median_of_its_rounds(monkeypatch):
    """Each figure is the median of `repeat` rounds of new processes, each cold round in
    caches of its own."""
    caches, totals = [], iter([5.0, 0.3, 7.0, 9.0, 0.3, 8.0, 4.0, 0.3, 6.0])

    def child(env_id, face, cache, core):
        caches.append((face, cache))
        total = next(totals)
        return {"total": total, "built": total + 1, "step": total / 10, "import": 0.2}

    monkeypatch.setattr(cold_start, "run_child", child)
    figures = cold_start.measure("no_thanks_v0", None, repeat=3)
    assert figures["cold AEC"] == 5.0 and figures["built"] == 6.0
    assert figures["cold batched"] == 7.0 and figures["warm"] == 0.03
    cold = [cache for face, cache in caches[::3]]
    assert len(set(cold)) == 3 and [c for _, c in caches[1::3]] == cold  # warm: the same cache
    with pytest.raises(SystemExit):
        cold_start.main(["--repeat", "0"])


def test_cold_start_report_names_each_missed_goal():
    results = {
        "a_v0": {"cold AEC": 12.0, "built": 14, "cold batched": 9.0, "warm": 0.1, "import": 0.2},
        "b_v0": {"cold AEC": 3.0, "built": 30, "cold batched": 4.0, "warm": 0.1, "import": 0.2},
    }
    text = cold_start.report(results, "test")
    assert "- a_v0: MISSED: cold AEC" in text
    assert "- b_v0: every goal met" in text  # `built` has no goal


def test_a_changed_figures_page_does_not_mark_the_commit(tmp_path, monkeypatch):
    """A benchmark that writes a page after another one must not find its own earlier page
    'uncommitted'; a changed source file must still mark the commit."""
    from card_envs.testing import report

    def git(*args):
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    git("init", "-q")
    (tmp_path / "docs" / "figures").mkdir(parents=True)
    (tmp_path / "docs" / "figures" / "page.md").write_text("old\n")
    (tmp_path / "code.py").write_text("x = 1\n")
    git("add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start")
    monkeypatch.setattr(report, "ROOT", tmp_path)
    clean = report.git_commit()
    assert clean != "?" and "uncommitted" not in clean
    (tmp_path / "docs" / "figures" / "page.md").write_text("new\n")
    assert report.git_commit() == clean
    (tmp_path / "code.py").write_text("x = 2\n")
    assert report.git_commit() == f"{clean} (with uncommitted changes)"

"""What a harness's report says besides its own figures: where it ran (the machine, the
versions and the commit), the resident memory of a process, and Markdown tables. Figures
mean little without the first, so every report (the soak's, the benchmarks') says it the
same way, and every figures page under docs/figures/ starts with it (`write_page`)."""

from __future__ import annotations

import contextlib
import datetime
import io
import os
import platform
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numba
import numpy as np

import card_envs
from card_envs.core.threads import affinity_cores

ROOT = Path(__file__).resolve().parents[2]  # the checkout, when card_envs runs from one
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def cpu_model() -> str:
    """The CPU's model name (Linux's /proc/cpuinfo), else what `platform` knows."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine_info() -> dict[str, Any]:
    return {
        "cpu": cpu_model(),
        "logical_cpus": os.cpu_count(),
        "usable_cpus": affinity_cores(),
        "platform": platform.platform(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "numpy": np.__version__,
        "numba": numba.__version__,
        "card_envs": card_envs.__version__,
    }


def git_commit() -> str:
    """The checkout's commit, marked when files differ from it ("?" outside a checkout). The
    figures pages (docs/figures/) do not count: a benchmark that writes one page after
    another would otherwise mark every page but the first."""
    try:
        status = ["git", "status", "--porcelain", "-uno", "--", ".", ":(exclude)docs/figures"]
        run = [["git", "rev-parse", "--short", "HEAD"], status]
        head, changes = (
            subprocess.run(c, cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
            for c in run
        )
    except (OSError, subprocess.CalledProcessError):
        return "?"
    return f"{head} (with uncommitted changes)" if changes else head


def header(command: str) -> list[str]:
    """The lines a report starts with: date, commit, machine, versions, command."""
    m = machine_info()
    return [
        f"- date: {datetime.date.today().isoformat()}, commit {git_commit()}",
        f"- machine: {m['cpu']} ({m['logical_cpus']} logical CPUs, {m['usable_cpus']} usable), "
        f"{m['platform']}",
        f"- {m['python']}, numpy {m['numpy']}, numba {m['numba']}, card_envs {m['card_envs']}",
        f"- command: `{command}`",
    ]


def command_line(prog: str, argv: list[str] | None) -> str:
    """The command as it was typed: `prog` and its arguments (`argv`, else the process's),
    a path inside the working directory written relative to it (a page names no folder of
    the machine it was measured on)."""
    here = Path.cwd()
    args = []
    for arg in sys.argv[1:] if argv is None else argv:
        path = Path(arg)
        if path.is_absolute() and path.is_relative_to(here):
            arg = str(path.relative_to(here))
        args.append(arg)
    return " ".join([prog, *args])


def write_page(path: str | Path, title: str, about: str, command: str, body: str) -> None:
    """A figures page: its title, which script wrote it and how, where it ran (`header`) and
    the script's report, so that the next run of the same command replaces it whole."""
    lines = [f"# {title}", "", about, "", *header(command), "", body.strip(), ""]
    Path(path).write_text("\n".join(lines))


def write_sections_page(
    path: str | Path, title: str, about: str, command: str, sections: dict[str, str]
) -> None:
    """A figures page of one section (`## name`) per thing measured, each under the header of
    the run that measured it: a run replaces the sections it measured, in place, and keeps
    the others, so that figures too long to measure in one sitting (the time to beat the
    heuristic takes up to an hour a game) still sit on one page."""
    path = Path(path)
    kept = _sections(path.read_text()) if path.exists() else {}
    for name, body in sections.items():
        kept[name] = "\n".join([*header(command), "", body.strip()])
    lines = [f"# {title}", "", about, ""]
    for name, block in kept.items():
        lines += [f"## {name}", "", block.strip(), ""]
    path.write_text("\n".join(lines))


def _sections(page: str) -> dict[str, str]:
    """The `## name` sections of a page `write_sections_page` wrote, in order."""
    out: dict[str, str] = {}
    name = None
    for line in page.splitlines():
        if line.startswith("## "):
            name = line[3:].strip()
            out[name] = ""
        elif name is not None:
            out[name] += line + "\n"
    return out


class _Tee(io.TextIOBase):
    def __init__(self, *streams: io.TextIOBase) -> None:
        self.streams = streams

    def write(self, text: str) -> int:
        for stream in self.streams:
            stream.write(text)
        return len(text)

    def flush(self) -> None:
        for stream in self.streams:
            stream.flush()


@contextlib.contextmanager
def printed() -> Iterator[io.StringIO]:
    """What is printed inside goes to stdout as before and is kept too: a report that prints
    its tables as it measures (and shows progress that way) becomes a page afterwards."""
    kept = io.StringIO()
    with contextlib.redirect_stdout(_Tee(sys.stdout, kept)):
        yield kept


def rss_bytes(pid: int | str = "self") -> int:
    """Resident set size of process `pid` (Linux's /proc/<pid>/statm); 0 where unavailable."""
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * _PAGE
    except (OSError, IndexError, ValueError):
        return 0


def markdown(head: list[str], rows: list[list[str]], right: list[bool]) -> str:
    """A markdown table with padded columns (right-aligned where `right`)."""
    widths = [max(len(x) for x in col) for col in zip(head, *rows, strict=True)]

    def line(cells: list[str]) -> str:
        out = [
            c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right, strict=True)
        ]
        return "| " + " | ".join(out) + " |"

    rule = ["-" * (w + 1) + ":" if r else "-" * (w + 2) for w, r in zip(widths, right, strict=True)]
    return "\n".join([line(head), "|" + "|".join(rule) + "|", *(line(r) for r in rows)])

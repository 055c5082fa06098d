"""A file that is not a tournament store, given to any command that opens one (a tournament
and its resume, `serve --store`, `dataset --store`), is refused with one line naming it and
exit status 2, never a traceback, and left as it was; the Python API raises StoreError."""

from __future__ import annotations

import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from card_envs.cli import main
from card_envs.tournament import Store, StoreError
from card_envs.web.sources import Sources

TOURNAMENT = ["tournament", "--env", "no_thanks_v0", "--env-config", "num_players=3",
              "--agents", "random,heuristic,r2=random", "--games", "6", "--name", "t",
              "--workers", "1", "--no-progress"]  # fmt: skip
ON_OPEN = ["text file", "truncated", "garbage over a page", "another program's database"]
DAMAGED = [*ON_OPEN, "garbage inside a row"]  # the last one is found when rows are read


@pytest.fixture(scope="module")
def good(tmp_path_factory) -> Path:
    """A store of 6 No Thanks games (with their actions) that `TOURNAMENT` wrote."""
    folder = tmp_path_factory.mktemp("store")
    main([*TOURNAMENT, "--db", str(folder / "t.sqlite"), "--out", str(folder / "out")])
    return folder / "t.sqlite"


def damaged(good: Path, kind: str, folder: Path) -> Path:
    """A copy of the store `good` damaged as `kind` says (or another file in its place)."""
    data = good.read_bytes()
    page = int.from_bytes(data[16:18], "big")  # SQLite's page size, from the file's header
    middle = len(data) // page // 2 * page
    path = folder / f"{kind.replace(' ', '_')}.sqlite"
    if kind == "text file":
        path.write_text("not a database\n")
    elif kind == "truncated":
        path.write_bytes(data[:middle])
    elif kind == "garbage over a page":
        path.write_bytes(data[:middle] + b"\xff" * page + data[middle + page :])
    elif kind == "garbage inside a row":  # the seats' names, not UTF-8 any more
        path.write_bytes(data.replace(b'"heuristic"', b'"' + b"\xff" * 9 + b'"'))
    else:
        with sqlite3.connect(path) as conn:
            conn.execute("CREATE TABLE notes (text TEXT)")
            conn.execute("INSERT INTO notes VALUES ('mine')")
        conn.close()
    return path


def one_line_naming(path: Path, capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith(f"card-envs: error: {path}: cannot be used as a tournament store ("), err
    return err


@pytest.mark.parametrize("kind", DAMAGED)
def test_the_tournament_and_its_resume_refuse_it_in_one_line(good, kind, tmp_path, capsys):
    path = damaged(good, kind, tmp_path)
    before = path.read_bytes()
    with pytest.raises(SystemExit) as err:
        main([*TOURNAMENT, "--db", str(path), "--out", str(tmp_path / "out")])  # resumes `good`
    assert err.value.code == 2
    one_line_naming(path, capsys)
    assert path.read_bytes() == before


@pytest.mark.parametrize("kind", DAMAGED)
def test_the_dataset_command_refuses_it_in_one_line(good, kind, tmp_path, capsys):
    path = damaged(good, kind, tmp_path)
    with pytest.raises(SystemExit) as err:
        main(["dataset", "--store", str(path), "--tournament", "t", "--out", str(tmp_path)])
    assert err.value.code == 2
    one_line_naming(path, capsys)


@pytest.mark.parametrize("kind", ON_OPEN)
def test_serve_refuses_it_in_one_line_before_it_serves(good, kind, tmp_path, capsys, monkeypatch):
    def never(*args, **kwargs):
        raise AssertionError("serve started with a store that is not one")

    monkeypatch.setattr("card_envs.web.server.make_server", never)
    path = damaged(good, kind, tmp_path)
    with pytest.raises(SystemExit) as err:
        main(["serve", "--port", "0", "--store", str(path)])
    assert err.value.code == 2
    one_line_naming(path, capsys)


@pytest.mark.parametrize("kind", DAMAGED)
def test_the_python_api_raises_store_error_naming_the_file(good, kind, tmp_path):
    path = damaged(good, kind, tmp_path)
    why = {
        "text file": "file is not a database",
        "truncated": "database disk image is malformed",
        "garbage over a page": "(database disk image is malformed|PRAGMA quick_check says)",
        "another program's database": r"of something else, with tables \['notes'\]",
        "garbage inside a row": "Could not decode to UTF-8 column 'seats'",
    }[kind]
    with pytest.raises(StoreError, match=rf"^{re.escape(str(path))}: cannot be used .*{why}"):
        if kind in ON_OPEN:
            Store(path)
        else:
            with Store(path) as store:  # opens: quick_check does not read the rows' text
                list(store.rows("t"))
    if kind in ON_OPEN:
        with pytest.raises(StoreError, match=re.escape(str(path))):
            Sources(stores=[path])


def test_an_empty_file_or_database_becomes_a_store(tmp_path):
    for path in (tmp_path / "empty.sqlite", tmp_path / "vacuumed.sqlite"):
        path.touch()
        if path.name == "vacuumed.sqlite":
            sqlite3.connect(path).execute("VACUUM").connection.close()
        with Store(path) as store:
            assert store.count("t") == 0


def test_a_user_running_the_command_sees_one_line(good, tmp_path):
    path = damaged(good, "garbage over a page", tmp_path)
    run = subprocess.run(
        [sys.executable, "-m", "card_envs", *TOURNAMENT, "--db", str(path), "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert run.stderr.count("\n") == 1 and str(path) in run.stderr

"""The package's import structure, as pyproject.toml's import-linter contracts state it: the
layers (core < games < registry < agents, evaluation, wrappers < tournament, testing, web,
training < cli; no module imports one of a layer above it) and no import circles at any
level. A change that breaks one names the import here."""

from __future__ import annotations

import io
from contextlib import redirect_stdout
from pathlib import Path

from importlinter.cli import lint_imports

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


def test_the_layers_hold_and_nothing_imports_in_a_circle():
    out = io.StringIO()
    with redirect_stdout(out):
        code = lint_imports(config_filename=str(PYPROJECT), no_cache=True, no_logo=True)
    assert code == 0, out.getvalue()
    assert "2 kept, 0 broken" in out.getvalue()

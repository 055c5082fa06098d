"""Sphinx configuration: the card_envs docs as a furo site written in MyST Markdown, with an
API reference that autosummary generates from the docstrings of every module of card_envs
(so a module added or split shows up without editing a page)."""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

from docutils import nodes
from docutils.core import publish_doctree

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's card_envs, not an installed copy

import card_envs  # noqa: E402

project = "card_envs"
author = "the card_envs developers"
release = version = card_envs.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
]

source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
# rules/ and envs/ are the sources the game pages include; scripts/ takes the screenshots
exclude_patterns = ["_build", "rules", "envs", "scripts"]

autosummary_generate = True
# each module documents what it defines; a package's re-exports (`__all__`) would make every
# re-exported name a second target of its own cross-references
autodoc_default_options = {"members": True, "show-inheritance": True, "ignore-module-all": True}
autodoc_typehints = "description"
# the training extras are optional: the reference builds without torch, SB3, Ray or Minari
autodoc_mock_imports = ["torch", "stable_baselines3", "sb3_contrib", "ray", "minari"]
# docstrings write code as Markdown does, in single backticks
default_role = "literal"

html_theme = "furo"
html_title = "card_envs"


# Markup docutils cannot place in a lone docstring: anything else is a real problem
_HARMLESS = ("Unknown interpreted text role", "Unknown directive type")


def _parses_cleanly(lines: list[str], env) -> bool:
    quiet = {"report_level": 5, "halt_level": 5, "warning_stream": io.StringIO(), "env": env}
    tree = publish_doctree("\n".join(lines), settings_overrides=quiet)
    return not any(
        m["level"] >= 2 and not m[0].astext().startswith(_HARMLESS)
        for m in tree.findall(nodes.system_message)
    )


def show_markdown_docstrings_as_written(app, what, name, obj, options, lines) -> None:
    """The docstrings are written as Markdown-flavoured plain text, most of which reads as
    reStructuredText too. One that docutils cannot parse cleanly (an indented block after a
    line, a lone `*`) is shown as written: its first paragraph as the summary, the rest as a
    literal block, so that a new module's docstring never breaks the warnings-as-errors
    build and never renders garbled."""
    if not any(line.strip() for line in lines) or _parses_cleanly(lines, app.env):
        return
    first = next(i for i, line in enumerate(lines) if line.strip())
    end = next((i for i in range(first, len(lines)) if not lines[i].strip()), len(lines))
    summary = " ".join(line.strip() for line in lines[first:end])
    if not _parses_cleanly([summary], app.env):
        summary = re.sub(r"([\\`*_|])", r"\\\1", summary)  # every markup character as text
    rest = lines[end:]
    while rest and not rest[0].strip():
        rest.pop(0)
    lines[:] = [summary, ""] + (["::", "", *("    " + line for line in rest), ""] if rest else [])


def setup(app) -> None:
    app.connect("autodoc-process-docstring", show_markdown_docstrings_as_written)

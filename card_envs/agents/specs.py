"""The one grammar that names an agent, and the parser that owns it.

    SPEC  := KIND (":" PART)*          PART := VALUE | KEY "=" VALUE
    ENTRY := [NAME "="] SPEC           a list of entries is separated by commas

A part `KEY=VALUE` (KEY a Python identifier) is an option; any other part is positional.
Option values are read as Python literals where they are one (`40`, `0.5`, `True`, `[1, 2]`)
and as text otherwise. A path may hold colons where it is the last thing in a spec: the
path of `ppo:`, `exit:` and `rllib:`, `net=PATH` of `ismcts` and `base_url=URL` of `llm`
(a spec's text puts such an option last). In an entry, a NAME is
split off only when its `=` comes before the first `:`, so `ismcts:50:depth=40` has no
name and `deep=ismcts:50:depth=40` is named `deep`.

User code comes in by `py:TARGET:NAME[:KEY=VALUE...]`: TARGET is a module (`mypkg.agents`,
imported as Python would; the current directory is searched after `sys.path`, so the
`card-envs` script and `python -m card_envs` find the same modules) or a file (a path ending
in `.py`, relative to the current directory). NAME is an `Agent` subclass or a factory,
called as `NAME(env_id=..., seed=..., config=..., **options)`: `config` is the game's config
and `options` are the spec's own. `py-policy:TARGET:NAME` wraps a plain batch policy
`NAME(observations, masks, **options) -> actions`. An installed package adds a kind through
the `card_envs.agents` entry-point group; it may not shadow a built-in kind. Loading a
`py:` spec runs that code, as any plugin system does.

`spec_digest` is what a spec loads, as a digest (the source file, the network file), so
that a harness that keeps results can tell an edited agent from the one it played before.
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import importlib.metadata
import importlib.util
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ENTRY_POINT_GROUP = "card_envs.agents"
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class AgentSpecError(ValueError):
    """A spec that does not parse, or an agent that cannot be built from it."""


@dataclass(frozen=True)
class Kind:
    """One kind of spec: its form and meaning (the spec table is made from these)."""

    name: str
    form: str
    meaning: str
    path_tail: bool = False  # everything after `kind:` is one path (it may hold colons)
    tail_options: tuple[str, ...] = ()  # options whose value takes the rest of the spec
    options: tuple[str, ...] = ()  # the options it accepts (py kinds: any)
    any_options: bool = False


LLM_OPTIONS = (
    "base_url", "key_env", "temperature", "retries", "fallback", "schema", "template", "log",
    "max_tokens", "timeout", "parallel",
)  # fmt: skip
BUILTIN_KINDS: tuple[Kind, ...] = (
    Kind("random", "`random`", "uniformly random legal actions"),
    Kind("heuristic", "`heuristic`", "the game's hand-written rule-based player"),
    Kind(
        "computer",
        "`computer`",
        "the game's own computer player, where the rules have one (Double or Nothing)",
    ),
    Kind(
        "ismcts",
        "`ismcts[:N][:random\\|heuristic\\|network][:depth=D][:net[=PATH]]`",
        "information-set tree search, N simulations a move (default 1000), heuristic "
        "rollouts by default; `net` guides it by the shipped `exit` network or a file",
        tail_options=("net",),
        options=("depth", "net"),
    ),
    Kind(
        "ppo",
        "`ppo`, `ppo:PATH`",
        "a MaskablePPO policy: the one shipped for the env, or a model file",
        path_tail=True,
    ),  # fmt: skip
    Kind(
        "exit",
        "`exit`, `exit:PATH`",
        "a network trained by expert iteration: the one shipped for the env, or a file",
        path_tail=True,
    ),
    Kind(
        "selfplay",
        "`selfplay`, `selfplay:PATH`",
        "a network trained by all-seat self-play: the one shipped for the env, or a file",
        path_tail=True,
    ),
    Kind(
        "sb3",
        "`sb3:PATH`",
        "a Stable-Baselines3 model file of PPO, A2C or DQN (the legal action with the "
        "highest logit or Q-value), or of sb3-contrib's MaskablePPO",
        path_tail=True,
    ),
    Kind("rllib", "`rllib:DIR`", "an RLlib module trained with `--backend rllib`", path_tail=True),
    Kind("human", "`human`", "a person at the terminal (`card-envs play` only)"),
    Kind(
        "llm",
        "`llm:MODEL[:KEY=VALUE...][:base_url=URL]`",
        "a language model at an OpenAI-compatible chat endpoint, asked each move in words "
        '(the seat\'s view and its legal moves, an answer `{"move": ID}`), retried on an '
        "illegal answer, then a fallback; options `key_env`, `temperature`, `retries`, "
        "`fallback=random\\|illegal\\|raise`, `schema=auto\\|on\\|off`, `template`, `log`, "
        "`max_tokens`, `timeout`, `parallel` (docs/llm.md)",
        tail_options=("base_url",),
        options=LLM_OPTIONS,
    ),
    Kind(
        "py",
        "`py:MODULE:NAME[:KEY=VALUE...]`, `py:PATH.py:NAME[:KEY=VALUE...]`",
        "your own `Agent` subclass or factory, called as `NAME(env_id=..., seed=..., "
        "config=..., **options)`",
        any_options=True,
    ),
    Kind(
        "py-policy",
        "`py-policy:MODULE:NAME[:KEY=VALUE...]`, `py-policy:PATH.py:NAME[...]`",
        "your own batch policy function `NAME(observations, masks, **options) -> actions`",
        any_options=True,
    ),
)
_BUILTIN = {k.name: k for k in BUILTIN_KINDS}
USER_KINDS = ("py", "py-policy")
NETWORK_KINDS = ("ppo", "exit", "selfplay")  # MaskablePPO files: card_envs/models/ or a path


@dataclass(frozen=True)
class AgentSpec:
    """A parsed spec: its kind, positional parts and options. `text` is its canonical
    form (`parse_spec(spec.text) == spec` for options that are text or Python literals)."""

    kind: str
    args: tuple[str, ...] = ()
    options: tuple[tuple[str, Any], ...] = field(default=())

    @property
    def text(self) -> str:
        typed = self.kind not in _BUILTIN or _BUILTIN[self.kind].any_options
        tail = _BUILTIN[self.kind].tail_options if self.kind in _BUILTIN else ()
        last = sorted(self.options, key=lambda kv: kv[0] in tail)  # a tail option ends it
        opts = (f"{k}={_render(v) if typed else v}" for k, v in last)
        return ":".join([self.kind, *self.args, *opts])

    @property
    def option_dict(self) -> dict[str, Any]:
        return dict(self.options)

    def __str__(self) -> str:
        return self.text

    def with_options(self, options: dict[str, Any] | None) -> AgentSpec:
        """The spec with `options` (a YAML entry's) added; an option given twice is refused."""
        if not options:
            return self
        if not isinstance(options, dict):
            raise AgentSpecError(f"agent {self.text!r}: options must be a mapping, got {options!r}")
        twice = sorted(set(options) & set(self.option_dict))
        if twice:
            raise AgentSpecError(f"agent {self.text!r}: options {twice} are given twice")
        spec = AgentSpec(self.kind, self.args, self.options + tuple(options.items()))
        _check_options(spec, _kind(spec.kind, self.text))
        return spec

    def portable(self) -> AgentSpec:
        """The spec with its relative file paths made absolute, as a worker process or a
        Ray worker must see it (they need not share the driver's working directory)."""
        kind = _BUILTIN.get(self.kind)
        if kind is not None and kind.path_tail and self.args:
            return AgentSpec(self.kind, (_absolute(self.args[0]),), self.options)
        if self.kind in USER_KINDS and _is_file(self.args[0]):
            return AgentSpec(self.kind, (_absolute(self.args[0]), *self.args[1:]), self.options)
        paths = {"ismcts": ("net",), "llm": ("template", "log")}.get(self.kind)
        if paths:
            opts = tuple(
                (k, _absolute(v) if k in paths and isinstance(v, str) else v)
                for k, v in self.options
            )
            return AgentSpec(self.kind, self.args, opts)
        return self


def _render(value: Any) -> str:
    if isinstance(value, str) and _literal(value) == value:
        return value
    return repr(value)


def _literal(text: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return {"true": True, "false": False}.get(text.lower(), text)


def _absolute(path: str) -> str:
    p = Path(path).expanduser()
    return str(p if p.is_absolute() else p.resolve())


def _is_file(target: str) -> bool:
    return target.endswith(".py") or "/" in target or os.sep in target


# --- kinds from installed packages --------------------------------------------------------
def plugin_kinds() -> dict[str, importlib.metadata.EntryPoint]:
    """The spec kinds that installed packages add (entry-point group `card_envs.agents`);
    one that names a built-in kind is left out (the built-in one is meant)."""
    found = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
    return {ep.name: ep for ep in found if ep.name not in _BUILTIN}


def kind_names() -> tuple[str, ...]:
    return tuple(_BUILTIN) + tuple(sorted(plugin_kinds()))


def _kind(name: str, text: str) -> Kind:
    if name in _BUILTIN:
        return _BUILTIN[name]
    if name in plugin_kinds():
        return Kind(name, f"`{name}[:...]`", "from an installed package", any_options=True)
    raise AgentSpecError(
        f"unknown agent spec {text!r}; known kinds are {', '.join(kind_names())} "
        f"(the spec table: docs/specs.md)"
    )


# --- parsing ------------------------------------------------------------------------------
def parse_spec(text: str | AgentSpec, options: dict[str, Any] | None = None) -> AgentSpec:
    """The AgentSpec of `text`, with a YAML entry's `options` added."""
    if isinstance(text, AgentSpec):
        return text.with_options(options)
    if not isinstance(text, str) or not text.strip():
        raise AgentSpecError(
            f"an agent spec must be a non-empty string, got {text!r}; known kinds are "
            f"{', '.join(kind_names())}"
        )
    text = text.strip()
    head, sep, rest = text.partition(":")
    kind = _kind(head, text)
    if kind.path_tail:
        if sep and not rest:
            raise AgentSpecError(f"spec {text!r} needs a path after the colon")
        if head == "sb3" and not rest:
            raise AgentSpecError(f"spec {text!r} needs a model file: sb3:PATH")
        spec = AgentSpec(head, (rest,) if rest else ())
        return spec.with_options(options)
    args: list[str] = []
    opts: list[tuple[str, Any]] = []
    parts = rest.split(":") if sep else []
    for k, part in enumerate(parts):
        key, eq, value = part.partition("=")
        if eq and _KEY.fullmatch(key):
            if key in kind.tail_options:
                value = ":".join([value, *parts[k + 1 :]])
            if key in dict(opts):
                raise AgentSpecError(f"spec {text!r} gives option {key!r} twice")
            opts.append((key, _literal(value) if kind.any_options else value))
            if key in kind.tail_options:
                break
        elif opts and kind.any_options:
            raise AgentSpecError(
                f"spec {text!r}: positional part {part!r} after an option; the form is "
                f"{kind.form.strip('`')}"
            )
        else:
            args.append(part)
    spec = AgentSpec(head, tuple(args), tuple(opts))
    _check_shape(spec, kind, text)
    return spec.with_options(options)


def _check_shape(spec: AgentSpec, kind: Kind, text: str) -> None:
    if kind.name in USER_KINDS and (len(spec.args) != 2 or not all(spec.args)):
        raise AgentSpecError(
            f"spec {text!r} must name a module or file and a name in it, e.g. "
            f"{kind.name}:myagents:Greedy or {kind.name}:path/to/agents.py:Greedy"
        )
    if kind.name == "llm" and not (spec.args and all(spec.args)):
        raise AgentSpecError(f"spec {text!r} needs a model: {kind.form.strip('`')}")
    if kind.name in _BUILTIN and kind.name not in ("ismcts", "llm", *USER_KINDS) and spec.args:
        raise AgentSpecError(f"spec {text!r}: {kind.name} takes no parts; the form is {kind.form}")
    _check_options(spec, kind)


def _check_options(spec: AgentSpec, kind: Kind) -> None:
    if kind.any_options:
        return
    bad = [k for k, _ in spec.options if k not in kind.options]
    if bad:
        allowed = list(kind.options) or "none"
        raise AgentSpecError(
            f"agent {spec.text!r}: unknown options {bad}; {kind.name} takes {allowed}"
        )


def split_name(text: str) -> tuple[str | None, str]:
    """(name or None, spec text) of one `[NAME=]SPEC` entry of an `--agents` list: a name
    only where the `=` comes before the first `:`."""
    text = text.strip()
    eq, colon = text.find("="), text.find(":")
    if eq > 0 and (colon < 0 or eq < colon):
        return text[:eq].strip(), text[eq + 1 :].strip()
    return None, text


def split_entries(text: str) -> list[str]:
    """The entries of a comma-separated `--agents` list (a comma always separates)."""
    return [s.strip() for s in text.split(",") if s.strip()]


# --- loading user code --------------------------------------------------------------------
_LOADED: dict[tuple[str, str], Any] = {}  # (absolute path, digest) -> module


def _file_module(target: str):
    path = Path(_absolute(target))
    if not path.is_file():
        raise AgentSpecError(f"no file {target!r} (resolved from {os.getcwd()!r} to {path})")
    digest = _digest(path.read_bytes())
    key = (str(path), digest)
    if key not in _LOADED:  # an edited file is loaded again under another module name
        name = f"card_envs_user.{re.sub(r'[^A-Za-z0-9_]', '_', path.stem)}_{digest}"
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # classes defined there pickle, dataclasses work
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
        _LOADED[key] = module
    return _LOADED[key]


def _search_here() -> None:
    """Let modules be found in the current directory too, after `sys.path` (installed
    packages come first), as `python -m` would find them."""
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.append(os.getcwd())


def _module(target: str):
    _search_here()
    return importlib.import_module(target)


def load_target(spec: AgentSpec) -> Any:
    """The object a `py:` or `py-policy:` spec names (its code is run on first load)."""
    target, name = spec.args
    module = _file_module(target) if _is_file(target) else _module(target)
    obj = module
    for attr in name.split("."):
        if not hasattr(obj, attr):
            have = sorted(n for n in dir(module) if not n.startswith("_"))
            raise AgentSpecError(f"{target} has no {name!r}; it has {have}")
        obj = getattr(obj, attr)
    return obj


# --- identity ---------------------------------------------------------------------------
def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def _file_digest(path: str | os.PathLike) -> str:
    return _digest(Path(path).read_bytes())


def _dir_digest(path: str | os.PathLike) -> str:
    h = hashlib.sha256()
    root = Path(path).expanduser()
    for f in sorted(p for p in root.rglob("*") if p.is_file()):
        h.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:16]


def _source_of(target: str) -> str:
    if _is_file(target):
        return _absolute(target)
    _search_here()
    found = importlib.util.find_spec(target)
    if found is None or not found.origin or not Path(found.origin).is_file():
        raise AgentSpecError(f"cannot find module {target!r} on sys.path or here")
    return found.origin


def spec_digest(spec: str | AgentSpec, env_id: str) -> str:
    """A digest of what `spec` loads for `env_id`: the source file of a `py:` spec, the
    network file of `ppo`, `exit`, `selfplay` and `ismcts:...:net` (the shipped one where it names
    none), the files of an `rllib` module, the prompt template of an `llm`, the module file
    and version of a plugin kind; '' for the built-in agents, whose code is the package's."""
    spec = parse_spec(spec)
    if spec.kind in USER_KINDS:
        return _file_digest(_source_of(spec.args[0]))
    if spec.kind == "ismcts":
        net = spec.option_dict.get("net")
        if net is None and "net" in spec.args:
            net = "exit"
        if net is None:
            return ""
        return _network_digest(env_id, "exit", "" if net == "exit" else str(net))
    if spec.kind in NETWORK_KINDS:
        return _network_digest(env_id, spec.kind, spec.args[0] if spec.args else "")
    if spec.kind == "sb3":
        return _file_digest(Path(spec.args[0]).expanduser()) if spec.args else ""
    if spec.kind == "rllib":
        return _dir_digest(spec.args[0])
    if spec.kind == "llm":  # the prompt template, where the spec names one
        template = spec.option_dict.get("template")
        return _file_digest(Path(str(template)).expanduser()) if template else ""
    if spec.kind in _BUILTIN:
        return ""
    ep = plugin_kinds()[spec.kind]
    version = ep.dist.version if ep.dist is not None else ""
    source = _source_of(ep.module)
    return _digest(f"{version}\0{_file_digest(source)}".encode())


def _network_digest(env_id: str, kind: str, path: str) -> str:
    if path:
        return _file_digest(Path(path).expanduser())
    from card_envs.agents.ppo import shipped_model

    return _digest(shipped_model(env_id, kind).read_bytes())


# --- the table -----------------------------------------------------------------------------
def spec_help() -> str:
    """The forms of every kind on one line, for error messages and `--help`."""
    forms = ", ".join(k.form.replace("`", "").replace("\\", "") for k in BUILTIN_KINDS)
    return f"{forms}; NAME=SPEC enters a spec under a name (the table: docs/specs.md)"


def spec_table() -> str:
    """The Markdown table of the spec kinds, as docs/specs.md holds it."""
    rows = ["| spec | agent |", "| --- | --- |"]
    rows += [f"| {k.form} | {k.meaning} |" for k in BUILTIN_KINDS]
    return "\n".join(rows) + "\n"

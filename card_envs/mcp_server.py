"""`card-envs mcp`: the games as an MCP server, for an LLM client to play against our agents.

It speaks the Model Context Protocol over stdio (the standard for a local server: the client
starts the command and talks to it over its stdin and stdout) with the `mcp` SDK 2.x
(`pip install "card_envs[mcp]"`). A client plays one seat of a game; the built-in agents play
the others, moving as soon as it is their turn. The client sees only what its seat may know
(`Game.view`, `Game.view_text`), and the other seats' moves as its seat may know them
(`Game.describe_action` for that seat, put in words before each move).

Tools (each result is JSON; a refused call is a tool error whose text says what was wrong,
the value given and what is allowed):

- `list_games()`: every game: env id, title, a one-line description, the number of players,
  the config options (default, type, allowed values) and the agents that can sit at it.
- `rules(env_id)`: the game's rules in words (`Game.rules_summary`).
- `new_game(env_id, opponents="heuristic", seat=0, seed=None, config={})`: a new game with
  the caller in seat `seat` (`player_<seat>`); `opponents` is one agent for every other seat
  or a list of one agent per other seat, in seat order. The opponents seated before the
  caller move first. Returns the game id and the game as `view` returns it, with the
  opponents' moves so far (`opponents_moved`).
- `view(game_id)`: the caller's view (`view`: JSON, `text`: the same in words), whose turn it
  is (`to_act`, `your_turn`), the legal moves when it is the caller's turn (`legal_moves`:
  `{id, text}`), and at the end `outcome`: scores, winners, the result in words.
- `play(game_id, move)`: `move` is a legal move's id or its words (`Game.parse_action`); an
  illegal or unknown move is refused naming the legal ones, and the game is unchanged. Then
  the opponents move until it is the caller's turn again or the game is over; returns your
  move (`you_played`), theirs (`opponents_moved`: player, agent, move in words) and the view.
- `end_game(game_id)`: forget the game.

Refusals: an opponent is a built-in agent named by its kind: `random`, `heuristic`,
`computer`, `ismcts[:N][:random|heuristic|network][:depth=D][:net]` (N at most
`MAX_SIMULATIONS`), `ppo`, `exit`, `selfplay` (the shipped networks). A spec that names a
file or runs code (`ppo:PATH`, `net=PATH`, `sb3:`, `rllib:`, `py:`, `py-policy:`, a plugin
kind) is refused: as in the browser app (`card-envs serve --agents`), whoever starts the
server may seat more agents by name, `card-envs mcp --agents NAME=SPEC,...`, and the client
then picks them by that name, never by a spec. At most `MAX_GAMES` games are open at once (a
finished game is dropped to make room for a new one; otherwise `end_game` one).
`double_or_nothing_run_v0` is not served: it is `double_or_nothing_v0` against `computer`.

A client's config, e.g. Claude Desktop's `claude_desktop_config.json` (or any client that
starts a stdio server from a command line):

    {
      "mcpServers": {
        "card-envs": {
          "command": "card-envs",
          "args": ["mcp"]
        }
      }
    }

with the full path of `card-envs` (or `"command": "/path/to/python", "args": ["-m",
"card_envs", "mcp"]`) where the client does not see the environment's PATH. Add
`"--agents", "strong=ismcts:5000"` to `args` to offer more agents. To try it by hand, the
SDK's inspector: `npx @modelcontextprotocol/inspector card-envs mcp`.
"""

from __future__ import annotations

import importlib.metadata
import secrets
import threading
from typing import Any

from card_envs.agents import make_agent
from card_envs.agents.ppo import has_shipped_model, shipped_config_note
from card_envs.agents.specs import NETWORK_KINDS, parse_spec
from card_envs.core import views
from card_envs.core.engine import Game
from card_envs.registry import batched_env_ids, make_game, multi_agent_env_ids
from card_envs.web.match import Match

MAX_GAMES = 16  # games open at once
MAX_SIMULATIONS = 20_000  # an ismcts opponent's budget a move, at most
# the kinds a client may name; `ismcts` and the networks without a file path
BUILT_IN = ("random", "heuristic", "computer", "ismcts", *NETWORK_KINDS)
YOU = "you"
SERVER_NAME = "card-envs"
INSTRUCTIONS = (
    "Card games against built-in agents. list_games shows the games, rules(env_id) a "
    "game's rules; new_game starts one with you in a seat, view shows what your seat sees "
    "and your legal moves, play(game_id, move) makes a move (its id or its words) and "
    "plays the other seats until it is your turn again; end_game closes a game."
)


class GameError(ValueError):
    """A call the server refuses; its message goes to the client as the tool error."""


def served_env_ids() -> list[str]:
    """The ids a game can be started of: every id with a game of its own (the multi-agent
    ids and `rummidrez_solo_v0`)."""
    return batched_env_ids()


def _option(name: str, opt: Any) -> dict:
    kind = "json" if opt.validate else type(opt.default).__name__
    out: dict[str, Any] = {"name": name, "default": opt.default, "type": kind, "doc": opt.doc}
    if opt.choices is not None and kind != "bool":
        out["choices"] = list(opt.choices)
    if opt.low is not None or opt.high is not None:
        out["low"], out["high"] = opt.low, opt.high
    return out


def _description(title: str, rules: str) -> str:
    """A game in one line: the first sentence of its rules, led by its title."""
    head = rules.strip().split("\n", 1)[0].split(". ", 1)[0].rstrip(".")
    if not head:
        return title
    return f"{head}." if head.startswith(title) else f"{title}: {head}."


class Tables:
    """The open games of one server and the agents it may seat: the tools' logic, without
    the SDK (the tools call these methods and turn a `GameError` into a tool error)."""

    def __init__(self, agents: dict[str, str] | None = None, max_games: int = MAX_GAMES) -> None:
        """`agents`: the agents named on the command line (`--agents`), name -> spec."""
        self.agents = dict(agents or {})
        clash = sorted(set(self.agents) & {YOU, "human", *BUILT_IN})
        if clash:
            raise ValueError(
                f"mcp --agents: {clash} are names of the built-in agents; name yours another "
                "way (NAME=SPEC)"
            )
        for name, spec in self.agents.items():
            parse_spec(spec)  # a malformed spec fails at the start, not at a client's call
            if not name.strip():
                raise ValueError(f"mcp --agents: the agent {spec!r} needs a name")
        self.max_games = max_games
        self.games: dict[str, Match] = {}
        self.lock = threading.Lock()  # the dict; each match has its own lock for its moves
        self._count = 0

    # --- catalogue ----------------------------------------------------------------------
    def list_games(self) -> dict:
        games = []
        for env_id in served_env_ids():
            game = make_game(env_id)
            cls = type(game)
            players = cls.options.get("num_players")
            summary = getattr(cls, "rules_summary", "") or ""
            entry = {
                "env_id": env_id,
                "title": cls.title,
                "description": _description(cls.title, summary),
                "players": {
                    "default": game.num_players,
                    "min": players.low if players is not None else game.num_players,
                    "max": players.high if players is not None else game.num_players,
                },
                "options": [_option(n, o) for n, o in cls.options.items()],
                "agents": self.agent_names(env_id),
            }
            notes = [shipped_config_note(env_id, k) for k in NETWORK_KINDS]
            if any(notes):
                entry["notes"] = [n for n in notes if n]
            games.append(entry)
        return {"games": games, "open_games": sorted(self.games)}

    def agent_names(self, env_id: str) -> list[str]:
        """The agents a client may seat in `env_id`: the built-in kinds the game has, then
        the server's named ones."""
        if env_id not in multi_agent_env_ids():
            return []  # a game played alone
        cls = type(make_game(env_id))
        names = ["random", "heuristic"]
        if cls.computer_kernel is not None:
            names.append("computer")
        if cls.search_kernel is not None:
            names.append("ismcts")
        names += [k for k in NETWORK_KINDS if has_shipped_model(env_id, k)]
        return names + list(self.agents)

    def rules(self, env_id: str) -> dict:
        cls = type(self._game(env_id, {}))
        summary = getattr(cls, "rules_summary", None)
        if not summary:
            raise GameError(f"{env_id} has no rules summary")
        return {"env_id": env_id, "title": cls.title, "rules": summary}

    # --- games --------------------------------------------------------------------------
    def _game(self, env_id: Any, config: Any) -> Game:
        if env_id == "double_or_nothing_run_v0":
            raise GameError(
                "double_or_nothing_run_v0 is a single-agent Gymnasium env; play "
                "double_or_nothing_v0 with opponents 'computer' instead"
            )
        if not isinstance(env_id, str) or env_id not in served_env_ids():
            raise GameError(f"unknown env id {env_id!r}; the games are {served_env_ids()}")
        if not isinstance(config, dict):
            raise GameError(f"config must be an object of option: value, got {config!r}")
        try:
            return make_game(env_id, **config)
        except ValueError as err:
            raise GameError(str(err)) from None

    def _spec(self, spec: Any, env_id: str) -> str:
        """The spec to build for an opponent as the client named it; refused unless it is a
        built-in kind without a file, or a name the server was given."""
        allowed = (
            f"the agents are {self.agent_names(env_id)} (ismcts may take :N simulations, at "
            f"most {MAX_SIMULATIONS}, a rollout, :depth=D, :net)"
        )
        if not isinstance(spec, str):
            raise GameError(f"an opponent must be an agent's name, got {spec!r}; {allowed}")
        if spec in self.agents:
            return self.agents[spec]
        try:
            parsed = parse_spec(spec)
        except ValueError as err:
            raise GameError(f"{err}; {allowed}") from None
        if parsed.kind not in BUILT_IN:
            raise GameError(
                f"opponent {spec!r} is refused: a client names a built-in agent, or one the "
                f"server was started with (card-envs mcp --agents NAME=SPEC), never code or "
                f"files; {allowed}"
            )
        if parsed.kind in NETWORK_KINDS and parsed.args:
            raise GameError(
                f"opponent {spec!r} is refused: a client plays the shipped {parsed.kind} "
                f"network, not a file; {allowed}"
            )
        if parsed.kind == "ismcts":
            from card_envs.agents.ismcts import parse_spec as ismcts_parts

            try:
                simulations, _, _, net = ismcts_parts(parsed.text)
            except ValueError as err:
                raise GameError(str(err)) from None
            if net not in (None, "exit"):
                raise GameError(
                    f"opponent {spec!r} is refused: net= names a file; ismcts:...:net uses "
                    "the shipped network"
                )
            if not 1 <= simulations <= MAX_SIMULATIONS:
                raise GameError(
                    f"opponent {spec!r}: {simulations} simulations a move is outside "
                    f"1..{MAX_SIMULATIONS}"
                )
        return parsed.text

    def new_game(
        self,
        env_id: Any,
        opponents: Any = "heuristic",
        seat: Any = 0,
        seed: Any = None,
        config: Any = None,
    ) -> dict:
        config = dict(config or {}) if isinstance(config, dict) or config is None else config
        if isinstance(opponents, list) and isinstance(config, dict):
            config.setdefault("num_players", len(opponents) + 1)
        game = self._game(env_id, config)
        n = game.num_players
        if isinstance(opponents, str):
            opponents = [opponents] * (n - 1)
        if not isinstance(opponents, list):
            raise GameError(f"opponents must be an agent or a list of them, got {opponents!r}")
        if len(opponents) != n - 1:
            raise GameError(
                f"{env_id} with num_players={n} has {n - 1} other seats; got "
                f"{len(opponents)} opponents {opponents}"
            )
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < n:
            raise GameError(
                f"seat must be an int in 0..{n - 1} ({env_id} with {n} players), got {seat!r}"
            )
        if seed is None:
            seed = secrets.randbits(62)
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**62:
            raise GameError(f"seed must be an int in 0..2^62-1 or null, got {seed!r}")
        specs = [self._spec(s, env_id) for s in opponents]
        names = list(opponents)
        specs.insert(seat, YOU)
        names.insert(seat, YOU)
        agents = []
        for p, spec in enumerate(specs):
            if spec == YOU:
                agents.append(None)
                continue
            try:
                agents.append(make_agent(spec, game.env_id, seed=seed + p, **game.config))
            except (ValueError, ImportError, OSError) as err:
                raise GameError(f"opponent {names[p]!r} cannot play {env_id}: {err}") from None
        with self.lock:
            if len(self.games) >= self.max_games:
                done = [k for k, m in self.games.items() if m.over]
                if not done:
                    raise GameError(
                        f"{self.max_games} games are open, the most at once: end_game one of "
                        f"{sorted(self.games)}"
                    )
                del self.games[done[0]]  # the oldest finished one
            self._count += 1
            key = f"g{self._count}"
            match = Match(game, seed, agents, names, human=seat)
            self.games[key] = match
        with match.lock:
            moved = self._run(match)
            return {"game_id": key, "opponents_moved": moved, **self._state(key, match)}

    def _match(self, game_id: Any) -> Match:
        with self.lock:
            match = self.games.get(game_id) if isinstance(game_id, str) else None
            if match is None:
                raise GameError(
                    f"no open game {game_id!r}; the open games are {sorted(self.games)}"
                )
            return match

    def view(self, game_id: Any) -> dict:
        match = self._match(game_id)
        with match.lock:
            return self._state(game_id, match)

    def play(self, game_id: Any, move: Any) -> dict:
        match = self._match(game_id)
        with match.lock:
            seat = match.human
            if match.over:
                raise GameError(f"game {game_id} is over; start another with new_game")
            action = self._action(match, move)
            match.play(action)
            you = match.moves[-1]["words"][str(seat)]  # put in words before the move
            moved = self._run(match)
            return {"you_played": you, "opponents_moved": moved, **self._state(game_id, match)}

    def end_game(self, game_id: Any) -> dict:
        self._match(game_id)
        with self.lock:
            self.games.pop(game_id, None)
            return {"ended": game_id, "open_games": sorted(self.games)}

    # --- helpers ------------------------------------------------------------------------
    def _action(self, match: Match, move: Any) -> int:
        """The action id of `move`: a legal move's id or its words (`Game.parse_action`,
        which refuses anything else naming the legal moves)."""
        if isinstance(move, bool) or not isinstance(move, (int, str)):
            raise GameError(f"move must be a legal move's id or its words, got {move!r}")
        try:
            return int(match.game.parse_action(match.row, str(move)))
        except ValueError as err:
            raise GameError(str(err)) from None

    def _run(self, match: Match) -> list[dict]:
        """The opponents' moves until it is the caller's turn or the game is over, each as
        the caller's seat may know it."""
        start = len(match.moves)
        match.run_agents()
        return [
            {
                "player": views.agent_name(m["seat"]),
                "agent": match.specs[m["seat"]],
                "move": m["words"][str(match.human)],
            }
            for m in match.moves[start:]
        ]

    def _state(self, game_id: str, match: Match) -> dict:
        """The game as the caller's seat sees it, with whose turn it is and its legal moves;
        at the end the outcome (`view`'s, with `you_won` and the result in words)."""
        game, row, seat = match.game, match.row, match.human
        view = game.view(row, seat)
        mine = not match.over and match.to_act == seat
        out = {
            "game_id": game_id,
            "env_id": game.env_id,
            "config": game.config,
            "seed": match.seed,
            "you": views.agent_name(seat),
            "players": {views.agent_name(p): name for p, name in enumerate(match.specs)},
            "done": match.over,
            "to_act": view["to_act"],
            "your_turn": mine,
            "legal_moves": game.legal_moves(row, seat) if mine else [],
            "view": view,
            "text": game.view_text(row, seat),
        }
        if match.over:
            out["outcome"] = {
                **view["outcome"],
                "you_won": views.agent_name(seat) in view["outcome"]["winners"],
                "result": " ".join(views.head_lines(game.title, view)[1:]),
            }
        return out


def build_server(agents: dict[str, str] | None = None, max_games: int = MAX_GAMES):
    """The MCP server (`mcp.server.mcpserver.MCPServer`) over a new `Tables`."""
    try:
        from mcp.server.mcpserver import MCPServer
        from mcp.server.mcpserver.exceptions import ToolError
    except ImportError as err:
        raise ImportError(
            f"card-envs mcp needs the mcp SDK 2.x: pip install 'card_envs[mcp]' ({err})"
        ) from None

    tables = Tables(agents, max_games)
    server = MCPServer(
        SERVER_NAME,
        instructions=INSTRUCTIONS,
        version=importlib.metadata.version("card_envs"),
        log_level="WARNING",
    )

    def call(method, *args: Any) -> dict:
        try:
            return method(*args)
        except GameError as err:
            raise ToolError(str(err)) from None

    @server.tool()
    def list_games() -> dict[str, Any]:
        """The games: env id, title, a one-line description, the number of players, the
        config options with their defaults and allowed values, and the agents that can be
        opponents (pass their names to new_game)."""
        return call(tables.list_games)

    @server.tool()
    def rules(env_id: str) -> dict[str, Any]:
        """The rules of the game `env_id` in words."""
        return call(tables.rules, env_id)

    @server.tool()
    def new_game(
        env_id: str,
        opponents: list[str] | str = "heuristic",
        seat: int = 0,
        seed: int | None = None,
        config: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Start a game of `env_id` with you in seat `seat` (player_<seat>). `opponents`:
        one agent for every other seat ("heuristic"), or a list of one agent per other seat
        in seat order (its length sets the number of players). `config`: the game's options
        (list_games). `seed`: a fixed deal (null: a random one). Opponents before you move
        first. Returns the game id and your view (as `view`)."""
        return call(tables.new_game, env_id, opponents, seat, seed, config)

    @server.tool()
    def view(game_id: str) -> dict[str, Any]:
        """Your view of the game: what your seat sees (`view`, and `text` in words), whose
        turn it is, your legal moves when it is yours (`legal_moves`: id and words), and
        at the end the `outcome`."""
        return call(tables.view, game_id)

    @server.tool()
    def play(game_id: str, move: int | str) -> dict[str, Any]:
        """Make your move, by a legal move's id or its words (an illegal one is refused and
        nothing changes); then the opponents move until it is your turn again or the game
        is over. Returns their moves as you may know them and your new view."""
        return call(tables.play, game_id, move)

    @server.tool()
    def end_game(game_id: str) -> dict[str, Any]:
        """Close the game `game_id` (finished or not)."""
        return call(tables.end_game, game_id)

    return server


def run(agents: dict[str, str] | None = None) -> None:
    """Serve on stdio until the client closes the connection."""
    build_server(agents).run("stdio")

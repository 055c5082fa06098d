"""Games with people at a terminal: `card-envs play ENV_ID --agents human,heuristic,...`.

`play` deals games of a multi-agent id with one agent per seat, any of them `human`
(`card_envs.agents.human.HumanAgent`), and runs them on the game's engine row. At a person's turn it
shows that seat's view (the game's text render for the seat: other seats' hidden cards are
not in it), the moves of the other seats since the person's last turn in words
(`Game.describe_action`, as the person may know them) and the legal actions, numbered, in
words. With several people at one terminal (hot seat) the screen is cleared before a
person's turn when another person played last, until the new one presses Enter. At the end
it shows each seat's score and the winner.

`play_single` does the same for a single-agent id (`double_or_nothing_run_v0`,
`rummidrez_solo_v0`) with one person: the env's render, its `describe_action`, and for
Double or Nothing the computer's moves (`move_log`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from card_envs.agents import Agent, make_agent
from card_envs.agents.human import HumanAgent, Quit, Terminal
from card_envs.core import layout, views
from card_envs.core.engine import Game
from card_envs.registry import make, make_game, multi_agent_env_ids

__all__ = ["Quit", "play", "play_single"]


def _options(describe, legal: np.ndarray, name) -> list[tuple[int, list[str]]]:
    """(action, [its description, its short name]) for each legal action."""
    return [(int(a), [describe(int(a)), name(int(a))]) for a in legal]


def _seat_agents(game: Game, specs: list[str], seed: int, terminal: Terminal) -> list[Agent]:
    agents = []
    for k, spec in enumerate(specs):
        if spec == "human":
            agents.append(HumanAgent(game, terminal))
        else:
            agents.append(make_agent(spec, game.env_id, seed=seed + k, **game.config))
    return agents


def winners_text(game: Game, row: np.ndarray, specs: list[str]) -> str:
    """Who won a finished game, each winner named with its agent: "player_1 (ppo) won"."""
    won = [f"{views.agent_name(p)} ({specs[p]})" for p in game.winners(row)]
    return views.result_words(won, game.num_players)


def _results(game: Game, row: np.ndarray, specs: list[str]) -> str:
    scores, _ = game.outcome(row)
    lines = ["Scores:"]
    for p in range(game.num_players):
        lines.append(f"  player_{p} ({specs[p]}): {scores[p]:g}")
    if row[layout.STATUS] == layout.TRUNCATED:
        lines.append("The game was cut short (max_turns); by the game's ranking:")
    lines.append(f"Result: {winners_text(game, row, specs)}.")
    return "\n".join(lines)


def play(
    env_id: str,
    specs: list[str],
    config: dict[str, Any] | None = None,
    seed: int = 0,
    games: int = 1,
    terminal: Terminal | None = None,
) -> None:
    """`games` games of `env_id` (game i dealt with seed `seed + i`), `specs[i]` in seat i;
    a single-agent id with `specs` just `["human"]` (`play_single`). `Quit` when a person
    types q."""
    config = dict(config or {})
    terminal = terminal or Terminal()
    if env_id not in multi_agent_env_ids():
        make(env_id, **config)  # an unknown id or a bad config fails here
        if specs != ["human"]:
            raise ValueError(f"{env_id} is a single-agent env: play it with --agents human")
        return play_single(env_id, config, seed, games, terminal)
    config.setdefault("num_players", len(specs))
    game = make_game(env_id, **config)
    if game.num_players != len(specs):
        raise ValueError(
            f"{env_id}: num_players={game.num_players} but {len(specs)} agents were given "
            "(one agent per seat)"
        )
    agents = _seat_agents(game, specs, seed, terminal)
    humans = [p for p, spec in enumerate(specs) if spec == "human"]
    kernels = type(game)
    row = game.new_row()
    mask = np.zeros(game.num_actions, dtype=np.int8)
    obs = np.zeros(game.obs_size, dtype=np.float32)
    rewards = np.zeros(game.num_players, dtype=np.float32)
    for g in range(games):
        game.reset_row(row, seed + g)
        for agent in agents:
            agent.reset()
        terminal.show(f"=== {game.title} ({env_id}), game {g + 1} of {games}, seed {seed + g} ===")
        seen: dict[int, list[str]] = {p: [] for p in humans}
        last_human = None
        while row[layout.STATUS] == layout.RUNNING:
            p = int(row[layout.PLAYER])
            kernels.legal_kernel(row, mask)
            if p in humans:
                if len(humans) > 1 and last_human != p:
                    terminal.clear()
                    terminal.ask(f"Pass the screen to player_{p}, then press Enter. ")
                    terminal.clear()
                last_human = p
                moves = seen[p]
                view = [f"--- player_{p}, your move ---", game.render(row, p)]
                if moves:
                    view += ["Since your last move:", *(f"  {m}" for m in moves)]
                moves.clear()
                options = _options(
                    lambda a: game.describe_action(row, a), np.flatnonzero(mask), game.action_name
                )
                action = agents[p].choose("\n".join(view), options)
            else:
                kernels.observe_kernel(row, p, obs)
                game_id = np.array([seed + g])  # the game's seed, as evaluate names its games
                action = int(agents[p].act_positions(obs[None], mask[None], row[None], game_id)[0])
            for h in humans:
                if h != p:
                    seen[h].append(f"player_{p}: {game.describe_action(row, action, h)}")
            rewards[:] = 0
            kernels.step_kernel(row, action, rewards)
        if len(humans) > 1:
            terminal.clear()
        terminal.show("=== Game over ===")
        if len(humans) == 1:  # a shared screen shows no hand
            h = humans[0]
            if seen[h]:
                terminal.show("The last moves:\n" + "\n".join(f"  {m}" for m in seen[h]))
            terminal.show(game.render(row, h))
        terminal.show(_results(game, row, specs))


def play_single(env_id: str, config: dict, seed: int, games: int, terminal: Terminal) -> None:
    """`games` episodes of the single-agent `env_id` played by a person (episode i reset with
    seed `seed + i`); `Quit` when the person types q."""
    env = make(env_id, render_mode="ansi", **config)
    names = make_game(env.agent_env)  # the same actions as the env's
    person = HumanAgent(names, terminal)
    log = env.move_log = [] if hasattr(env, "move_log") else None
    for g in range(games):
        _, info = env.reset(seed=seed + g)
        terminal.show(f"=== {env_id}, episode {g + 1} of {games}, seed {seed + g} ===")
        total, done = 0.0, False
        while not done:
            view = ["--- your move ---", env.render()]
            if log:
                view += ["The computer's moves:", *(f"  {m}" for m in log)]
                log.clear()
            legal = np.flatnonzero(env.action_masks())
            options = _options(env.describe_action, legal, names.action_name)
            _, reward, terminated, truncated, info = env.step(
                person.choose("\n".join(view), options)
            )
            total += reward
            done = terminated or truncated
        terminal.show("=== Episode over ===")
        if log:
            terminal.show("The computer's last moves:\n" + "\n".join(f"  {m}" for m in log))
            log.clear()
        terminal.show(env.render())
        facts = ", ".join(f"{k} {v}" for k, v in info.items())
        terminal.show(f"Return {total:g}{' (truncated)' if truncated else ''}; {facts}.")

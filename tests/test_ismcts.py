"""The ISMCTS agent (`card_envs.agents.ismcts`, `card_envs.core.ismcts`): legal and reproducible
play in evaluations, no use of hidden information, winning moves found, and the tree statistics
against a plain-Python reference."""

from __future__ import annotations

import io
import itertools
import math

import numpy as np
import pytest

from card_envs.agents import make_agent
from card_envs.agents.human import Terminal
from card_envs.agents.ismcts import DEFAULT_SIMULATIONS, ISMCTSAgent
from card_envs.core import ismcts, layout
from card_envs.evaluation import evaluate
from card_envs.play import play
from card_envs.registry import make_game
from card_envs.web.match import Match
from card_envs.wrappers import SingleAgentEnv
from tests.games.no_thanks.helpers import NO_THANKS, TAKE, make_env, write_situation

GAMES = {  # env id -> player counts played
    "no_thanks_v0": (3, 5),
    "surfosaurus_max_v0": (2, 4),
    "double_or_nothing_v0": (2,),
    "rummidrez_v0": (2, 3),
    "super_zwierzaki_v0": (2, 4),
}
SHORT = {  # caps that keep games between weak searches short (as the conformance suite's)
    "rummidrez_v0": dict(max_turns=12, max_placements=12),
    "super_zwierzaki_v0": dict(max_turns=300),
}
# small searches with short rollouts keep the long games (Rummidrez, Super Zwierzaki) quick
SEARCH, RANDOM_SEARCH = "ismcts:12:depth=30", "ismcts:6:random:depth=30"


def legal_mask(game, row: np.ndarray) -> np.ndarray:
    mask = np.zeros(game.num_actions, dtype=np.int8)
    type(game).legal_kernel(row, mask)
    return mask


def move(spec: str, game, row: np.ndarray, seed: int) -> int:
    """The move a fresh agent of `spec` seeded with `seed` makes in `row`."""
    agent = make_agent(spec, game.env_id, seed=seed, **game.config)
    obs = np.zeros(game.obs_size, dtype=np.float32)
    type(game).observe_kernel(row, int(row[layout.PLAYER]), obs)
    return int(agent.act_positions(obs[None], legal_mask(game, row)[None], row[None])[0])


# --- play in evaluations ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("env_id", "n"), [(env_id, n) for env_id, counts in GAMES.items() for n in counts]
)
def test_plays_legal_games_to_the_end_and_reproducibly(env_id, n):
    """`evaluate` refuses illegal actions, so finishing the games shows every move legal;
    the same seed gives the same games, another seed other games."""
    field = [SEARCH, "heuristic", RANDOM_SEARCH, "random", "heuristic"][:n]
    runs = [
        evaluate(
            env_id, field, n, s, workers=1, progress=False, record=True, **SHORT.get(env_id, {})
        )
        for s in (3, 3, 4)
    ]
    first, again, other = (r.results for r in runs)
    assert len(first.lengths) == n and (first.lengths > 0).all()
    assert first.actions == again.actions
    np.testing.assert_array_equal(first.win_share, again.win_share)
    assert first.actions != other.actions


def test_every_harness_passes_rows():
    """The search refuses observations (act_batch raises), so a game played to the end shows
    the harness gave it rows: terminal play (agents in the other seats), the browser's
    match, the single-agent views' opponents."""
    out = io.StringIO()
    specs = ["human", "ismcts:10", "ismcts:10:random"]
    play("no_thanks_v0", specs, {}, 5, 1, Terminal(io.StringIO("1\n" * 40), out))
    assert "=== Game over ===" in out.getvalue()
    match = Match.new("no_thanks_v0", {}, ["ismcts:10", "heuristic", "ismcts:10:random"])
    match.run_agents()
    assert match.over
    env = SingleAgentEnv("no_thanks_v0", opponents="ismcts:10", seed=0)
    env.reset()
    done = False
    while not done:
        _, _, terminated, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        done = terminated or truncated


@pytest.mark.slow  # a training run (see pyproject's markers): out of the fast tier
def test_it_teaches_imitation_with_legal_moves():
    from card_envs.training.config import parse_config
    from card_envs.training.imitation import collect

    raw = {"env": "no_thanks_v0", "total_timesteps": 1000}
    cfg = parse_config({**raw, "imitation": {"teacher": "ismcts:10", "samples": 256}})
    data = collect(cfg, cfg.imitation)
    assert len(data.actions) == 256
    assert data.masks[np.arange(256), data.actions].all()


def test_evaluation_counts_each_seats_decisions_and_their_time():
    ev = evaluate("no_thanks_v0", ["ismcts:20", "heuristic", "random"], 3, 0, workers=1)
    games = ev.results
    np.testing.assert_array_equal(games.moves.sum(axis=1), games.lengths)
    assert (games.moves > 0).all() and (games.think >= 0).all()
    assert all(np.isfinite(s.ms_per_move) for s in ev)
    assert "ms/move" in ev.table()


# --- no hidden information --------------------------------------------------------------------


def played_rows(env_id: str, num_players: int, seed: int, every: int):
    """Every `every`-th position of a game where each seat plays the heuristic's move four
    times in five, else a random legal one (random games leave positions that are lost
    whatever the hidden cards are, where no search's move depends on them)."""
    game = make_game(env_id, num_players=num_players)
    row = game.new_row()
    game.reset_row(row, seed)
    rng = np.random.default_rng(seed)
    rewards = np.zeros(num_players, dtype=np.float32)
    for step in range(100_000):
        if row[layout.STATUS] != layout.RUNNING:
            return
        if step % every == 0:
            yield game, row.copy()
        if rng.random() < 0.8:
            action = move("heuristic", game, row, seed=0)
        else:
            action = rng.choice(np.flatnonzero(legal_mask(game, row)))
        type(game).step_kernel(row, int(action), rewards)


@pytest.mark.parametrize("env_id", list(GAMES))
def test_moves_do_not_depend_on_what_the_seat_cannot_see(env_id):
    """From a row and from a redraw of all the seat to act cannot see, an agent with the same
    seed makes the same move (the redraws really differ from the row). A search that skips
    the redraw fails this in every game."""
    checked = 0
    games = (played_rows(env_id, GAMES[env_id][0], seed, every=5) for seed in range(5, 10))
    for game, row in itertools.chain.from_iterable(games):
        seat = int(row[layout.PLAYER])
        other = game.resample_hidden(row, seat, 100 + checked)
        if (
            len(game.searched_moves(row)) < 2
            or (other[layout.HEADER :] == row[layout.HEADER :]).all()
        ):
            continue  # no choice the search weighs, or nothing to redraw here
        for spec in ("ismcts:30", "ismcts:30:random:depth=30"):
            assert move(spec, game, other, seed=checked) == move(spec, game, row, seed=checked)
        checked += 1
        if checked == 6:
            return
    raise AssertionError(f"only {checked} positions with a choice and hidden cards")


# --- strength ---------------------------------------------------------------------------------


def test_no_thanks_passes_the_last_card_to_win():
    """The last card, 35 with 32 tokens on it, is offered to player_0 (1 token) before
    player_1 (none). Taking it scores 14 + 35 - 33 = 16 against player_1's 13: player_1 wins.
    Passing it forces player_1 to take it: 13 + 35 - 33 = 15 against player_0's 14 (player_2
    holds 212): player_0 wins. The heuristic takes it (net cost 3), random play half the
    time; the search passes."""
    removed = [11, 13, 16, 19, 22, 25, 28, 31, 33]
    cards = [[14], [3, 10], [c for c in range(4, 35) if c not in (*removed, 10, 14)]]
    env = make_env(3)
    env.reset(seed=0)
    write_situation(
        env,
        draw_order=[*cards[0], *cards[1], *cards[2], 35],
        removed=removed,
        turned=24,
        pot=32,
        tokens=[1, 0, 0],
        cards=cards,
        player=0,
    )
    game, row = env.game, env._row
    assert game.invariant_error(row) is None
    assert move("heuristic", game, row, seed=0) == TAKE
    assert {move("random", game, row, seed=s) for s in range(8)} == {TAKE, NO_THANKS}
    assert {move("ismcts:200", game, row, seed=s) for s in range(4)} == {NO_THANKS}


# --- the tree statistics ----------------------------------------------------------------------


def test_ucb_and_backup_match_a_plain_python_reference():
    """A root with three children, given visits, availability and values: UCB1 with
    availability picks what the formula picks; a backup adds 1 visit along the path and the
    win share of each node's actor."""
    tree = ismcts.new_tree(8, 4)
    child, visits, avail, value, actor = tree
    child[0, :3] = (1, 2, 3)  # action 3 not expanded
    visits[1:4] = (10, 3, 5)
    avail[1:4] = (18, 12, 18)
    value[1:4] = (7.0, 1.5, 3.0)
    picked = set()
    for legal in ([0, 1, 2], [0, 2], [1, 2]):  # only legal children compete
        mask = np.zeros(4, dtype=np.int8)
        mask[legal] = 1
        for c in (0.1, 0.7, 3.0):
            score = {a: value[a + 1] / visits[a + 1] for a in legal}
            ucb = {
                a: q + c * math.sqrt(math.log(avail[a + 1]) / visits[a + 1])
                for a, q in score.items()
            }
            best = max(legal, key=ucb.get)
            assert ismcts.ucb_action(tree, 0, mask, c) == best
            picked.add(best)
    assert picked == {0, 1, 2}  # the cases tell the exploration term's weight apart
    assert ismcts.best_root_action(tree, np.ones(4, dtype=np.int8)) == 0  # most visits
    visits[1:4] = (5, 10, 10)
    child[0, 1:3] = (3, 2)  # action 2 was expanded before action 1
    assert ismcts.best_root_action(tree, np.ones(4, dtype=np.int8)) == 2  # the first of a tie
    child[0, 1:3] = (2, 3)
    visits[1:4] = (10, 3, 5)

    actor[1:4] = (0, 1, 0)
    child[1, 2] = 4
    actor[4] = 1
    visits[4] = value[4] = 0.0
    path = np.array([0, 1, 4, 0, 0], dtype=np.int64)
    before_v, before_q = visits.copy(), value.copy()
    ismcts.backup(tree, path, 3, np.array([0.25, 0.75]))
    assert (visits - before_v).tolist() == [1, 1, 0, 0, 1, 0, 0, 0, 0]
    assert (value - before_q).tolist() == [0, 0.25, 0, 0, 0.75, 0, 0, 0, 0]


# --- specs ------------------------------------------------------------------------------------


def test_specs_name_budget_and_rollout():
    agents = {s: make_agent(s, "no_thanks_v0") for s in ("ismcts", "ismcts:50", "ismcts:random")}
    assert [(a.simulations, a.rollout) for a in agents.values()] == [
        (DEFAULT_SIMULATIONS, "heuristic"),
        (50, "heuristic"),
        (DEFAULT_SIMULATIONS, "random"),
    ]
    assert make_agent("ismcts:random:7", "no_thanks_v0").simulations == 7
    assert make_agent("ismcts:depth=9:3", "no_thanks_v0").max_depth == 9
    assert make_agent("ismcts", "no_thanks_v0").max_depth is None
    bad_specs = ("ismcts:0", "ismcts:x", "ismcts:5:5", "ismcts:random:heuristic", "ismcts:")
    for bad in (*bad_specs, "ismcts:depth=0", "ismcts:depth=", "ismcts:depth=2:depth=3"):
        with pytest.raises(ValueError, match="ismcts"):
            make_agent(bad, "no_thanks_v0")


def test_it_needs_rows_not_observations():
    agent = ISMCTSAgent(make_game("no_thanks_v0"))
    with pytest.raises(TypeError, match="act_rows"):
        agent.act_batch(np.zeros((1, 3), np.float32), np.ones((1, 2), np.int8))

"""`describe_action` for every game, the human agent's input rules, where it is refused, and
`card_envs.play` driven through injected streams (the real terminal: test_play_terminal.py)."""

from __future__ import annotations

import io

import numpy as np
import pytest

import card_envs
from card_envs.agents import make_agent
from card_envs.agents.human import HumanAgent, Quit, Terminal, match
from card_envs.core import layout
from card_envs.evaluation import evaluate
from card_envs.games.rummidrez.groups import card_name
from card_envs.games.super_zwierzaki import engine as sz
from card_envs.play import play
from card_envs.registry import make_game
from card_envs.testing import case_id, cases, checks
from card_envs.tournament import TournamentConfigError, parse_config
from card_envs.wrappers import SingleAgentEnv

CASES = cases()


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_legal_actions_have_distinct_descriptions(case):
    """Every position's legal actions read differently (a person picks one by its name), and
    each description is one line of text, for the actor and for every other seat."""
    env_id, config = case
    for env in checks.positions(env_id, config, seed=4, games=1, every=7):
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        texts = [env.describe_action(a) for a in legal]
        assert len(set(texts)) == len(texts), texts
        for agent in env.possible_agents:
            for a in legal[:5]:
                text = env.describe_action(a, agent)
                assert text and "\n" not in text


def test_no_thanks_descriptions():
    env = card_envs.make("no_thanks_v0")
    env.reset(seed=0)
    card = env.state_dict()["current_card"]
    assert env.describe_action(0) == f"take {card} (0 tokens)"
    assert env.describe_action(1) == f"no thanks (pay a token on {card})"
    env.step(1)
    assert env.describe_action(0) == f"take {card} (1 token)"
    with pytest.raises(ValueError, match="out of range"):
        env.describe_action(2)


def test_double_or_nothing_names_the_forcing_numbers_to_the_player_only():
    game = make_game("double_or_nothing_v0")
    row = game.new_row()
    game.reset_row(row, 0)
    actor = int(row[layout.PLAYER])
    hand = game.engine.HAND + 8 * actor
    row[hand : hand + 8] = [1, 0, 0, 0, 0, 3, 2, 4]
    action = int(game.engine.action_of(6, 8))
    assert game.describe_action(row, action) == "play 2 x 6-7-8 (6 cards; forced copies: two 7s)"
    assert game.describe_action(row, action, 1 - actor) == "play 2 x 6-7-8 (6 cards)"
    assert game.describe_action(row, int(game.engine.action_of(1, 1))) == "play 1 x 1"


def test_rummidrez_names_the_cards_a_take_gets():
    take = card_envs.make("rummidrez_v0").game.engine.TAKE
    env = next(
        e
        for e in checks.positions("rummidrez_v0", {}, seed=2, most=10_000)  # every one
        if e.observe(e.agent_selection)["action_mask"][take]
    )
    top = env.state_dict()["discard_pile"]
    assert env.describe_action(env.game.engine.DRAW) == "draw"
    text = env.describe_action(take)
    assert text == f"take the top 1 of the discard pile: {card_name(top[-1])}"


def _sz_gift_position():
    """A Super Zwierzaki position (4 players) where a seat picks a card to give."""
    env = card_envs.make("super_zwierzaki_v0", num_players=4)
    rng = np.random.default_rng(0)
    for seed in range(200):
        env.reset(seed=seed)
        while env.agents and not any(env.terminations.values()):
            d = env.state_dict()["phase"]
            if d and d["what"] == "pick" and d["purpose"] == "give":
                return env, d
            legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
            env.step(int(rng.choice(legal)))
            if any(env.truncations.values()):
                break
    raise AssertionError("no gift in 200 random games")


def test_super_zwierzaki_names_a_gift_to_giver_and_receiver_only():
    env, decision = _sz_gift_position()
    giver, to = decision["seat"], decision["to"]
    kind = int(np.flatnonzero(env.observe(f"player_{giver}")["action_mask"])[0])
    label = env.describe_action(kind)
    assert label.startswith("give ") and label.endswith(f" to player_{to}")
    assert label != f"give a card to player_{to}"
    assert env.describe_action(kind, f"player_{to}") == label
    third = next(p for p in range(4) if p not in (giver, to))
    assert env.describe_action(kind, f"player_{third}") == f"give a card to player_{to}"


def test_super_zwierzaki_descriptions_follow_the_decision():
    """The words of an id follow the decision on top (the game's `describe` hook, on rows
    whose top decision is rewritten: `describe_action` refuses ids those rows make illegal)."""
    env = card_envs.make("super_zwierzaki_v0", num_players=3)
    env.reset(seed=1)
    row, game = env._row, env.game
    actor = int(row[layout.PLAYER])

    def words(action: int) -> str:
        return game.describe(row, action, actor, actor)

    assert env.describe_action(sz.DRAW) == "draw a card"
    assert words(sz.NINE) == "begin 9 kolorow"
    base = sz.STACK + (row[sz.STACK_N] - 1) * sz.D_WIDTH  # a duel, then copies of kind 4
    row[base] = sz.D_DUEL
    assert words(sz.PASS) == "fold"
    row[base : base + 3] = [sz.D_COPIES, row[base + 1], 4]
    assert words(sz.COPIES + 1) == "play 2x Sokół Wędrowny (LB bir)"
    row[base : base + 6] = [sz.D_SEAT, actor, sz.S_WAR2_HAND, 0, 1, 0]  # the first hand chosen
    after = f"player_{(actor + 1) % 3}"
    assert words(sz.SEAT + 1) == f"two War: player_{actor} takes {after}'s hand"


def test_single_agent_envs_describe_their_actions():
    run = card_envs.make("double_or_nothing_run_v0")
    run.reset(seed=0)
    legal = np.flatnonzero(run.action_masks())
    assert all(run.describe_action(a).startswith("play ") for a in legal)
    solo = card_envs.make("rummidrez_solo_v0")
    solo.reset(seed=0)
    assert "end melding" in [solo.describe_action(a) for a in np.flatnonzero(solo.action_masks())]
    single = SingleAgentEnv("no_thanks_v0", opponents="random", seat=0)
    single.reset(seed=0)
    assert single.describe_action(0).startswith("take ")


# --- the human agent ---------------------------------------------------------------------


OPTIONS = [(0, ["take 23 (4 tokens)", "take"]), (1, ["no thanks (pay a token on 23)", "no"])]


@pytest.mark.parametrize(
    "typed, action, message",
    [
        ("1", 0, ""),
        ("2", 1, ""),
        ("3", None, "There is no move 3: type a number from 1 to 2."),
        ("TAKE", 0, ""),
        ("no t", 1, ""),
        ("No Thanks (Pay a token on 23)", 1, ""),
        ("", None, "Type a move's number (1 to 2) or its name; q quits."),
        ("maybe", None, "No move is called 'maybe'"),
    ],
)
def test_match_reads_a_number_or_a_name(typed, action, message):
    got, said = match(typed, OPTIONS)
    assert got == action and said.startswith(message)


def test_an_ambiguous_prefix_lists_the_moves_and_accents_are_optional():
    options = [(4, ["play Sokół Wędrowny (LB bir)"]), (7, ["play Sowa (LB bir)"])]
    got, said = match("play s", options)
    assert got is None and "could be 2 moves" in said and "Sowa" in said
    assert match("play sokoł", options)[0] == 4  # ó typed as o
    assert match("play 2x", [(1, ["play 2x A"]), (2, ["play 2x AB"])])[0] is None
    assert match("play 2x a", [(1, ["play 2x a"]), (2, ["play 2x ab"])])[0] == 1  # exact first


def test_the_human_agent_asks_again_and_q_quits():
    out = io.StringIO()
    person = HumanAgent(make_game("no_thanks_v0"), Terminal(io.StringIO("9\nfoo\nno\n"), out))
    assert person.act(np.zeros(1, np.float32), np.array([1, 1], np.int8)) == 1
    text = out.getvalue()
    assert "1. take" in text and "There is no move 9" in text and "No move is called" in text
    person = make_agent("human", "no_thanks_v0")
    person.terminal = Terminal(io.StringIO("q\n"), io.StringIO())
    with pytest.raises(Quit):
        person.act(np.zeros(1, np.float32), np.array([1, 1], np.int8))
    person.terminal = Terminal(io.StringIO(""), io.StringIO())  # end of input
    with pytest.raises(Quit):
        person.act(np.zeros(1, np.float32), np.array([1, 1], np.int8))


def test_unattended_batches_refuse_the_human_agent():
    with pytest.raises(ValueError, match="needs a person at a terminal.*not in evaluate"):
        evaluate("no_thanks_v0", ["human", "random", "random"], games=3)
    raw = {"events": [{"env": "no_thanks_v0", "agents": ["human", "random", "random"]}]}
    with pytest.raises(TournamentConfigError, match="needs a person"):
        parse_config(raw, source="test")


def test_play_through_streams_to_the_end():
    out = io.StringIO()
    play(
        "no_thanks_v0",
        ["human", "heuristic", "random"],
        {},
        5,
        1,
        Terminal(io.StringIO("1\n" * 40), out),
    )
    text = out.getvalue()
    assert "=== Game over ===" in text and "player_0 (human):" in text
    with pytest.raises(ValueError, match="num_players=4 but 3 agents"):
        play("no_thanks_v0", ["human", "random", "random"], {"num_players": 4})
    with pytest.raises(ValueError, match="single-agent env: play it with --agents human"):
        play("rummidrez_solo_v0", ["random"])

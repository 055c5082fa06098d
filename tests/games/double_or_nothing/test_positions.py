"""Double or Nothing positions: `load_state_dict` keeps the hidden-information bookkeeping, a
hand-written position plays on as the rules say, the run env takes positions too, and every
kind of bad dict is refused with the field named. Every named position also passes the
conformance suite's `checks.check_named_positions` (the AEC and the batched env)."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from card_envs import make, positions
from card_envs.agents import make_agent
from card_envs.core.config import COUNT_CAP
from card_envs.core.loading import StateDictError
from card_envs.games.double_or_nothing import engine as k
from card_envs.games.double_or_nothing.spec import MAX_STAGE
from card_envs.testing import checks, corners

ENV_ID, RUN_ID = "double_or_nothing_v0", "double_or_nothing_run_v0"
PASS, PLAY_7_8 = k.PASS, int(k.action_of(7, 8))


@pytest.mark.parametrize("config", [{"stage": 1}, {"stage": 2, "max_turns": 30}], ids=str)
def test_the_loaded_row_holds_the_same_bookkeeping_and_resamples_the_same(config):
    """Every slot the engine reads again is loaded as it was (the decks only start at another
    place of their ring buffers), so `resample_hidden` draws the same determinisation."""
    for env in checks.positions(ENV_ID, config, seed=4, games=2, every=4):
        game, row = env.game, env._row
        new = game.load_state_dict(json.loads(json.dumps(game.state_dict(row))))
        assert np.array_equal(new[: k.BEAT_LO], row[: k.BEAT_LO])  # header, config, copies
        assert np.array_equal(new[k.LEADER : k.HEAD], row[k.LEADER : k.HEAD])  # trick, hands
        assert np.array_equal(new[k.SIZE : k.DECKS], row[k.SIZE : k.DECKS])  # the bookkeeping
        for seat in (0, 1):
            ours, theirs = (game.resample_hidden(r, seat, seed=9) for r in (row, new))
            assert game.state_dict(theirs) == game.state_dict(ours)


STAGE_1 = {"num_players": 2, "stage": 1, "first_leader": 0, "max_turns": 2000, "reward": "win"}


def hand_written() -> dict:
    """Stage 1 (8 copies of each number), hand 3. Player 1 led two 5s and two 6s; player 0,
    to reply, holds three 7s and three 8s; player 1 holds two 1s and a 2 and has only 5 cards
    left in its deck. The hidden-information bookkeeping is left out (no history)."""
    return copy.deepcopy(positions.load("double_or_nothing/beat-a-double-run").state)


def loaded(d: dict | None = None):
    env = make(ENV_ID)
    env.reset(seed=1)
    env.load_state_dict(d or hand_written(), seed=0)
    return env


def test_a_hand_written_position_is_observed_as_written():
    env = loaded()
    s = env.state_dict()
    assert s["cards"] == [46 + 6, 5 + 3] and not s["done"]
    assert s["segment_rest"] == [0, 0] and s["segments"] == [[46], [5]]  # no history
    assert env.agent_selection == "player_0"
    # the copies are forced: 7-8 is three of each (6 cards) and beats 4 cards; 7 or 8 alone
    # (3 cards) does not
    assert np.flatnonzero(env.observe("player_0")["action_mask"]).tolist() == [PLAY_7_8, PASS]
    obs = env.observe("player_0")["observation"]
    assert obs[k.OBS_OPP_HAND] == 3 and obs[k.OBS_OWN_DECK] == 46 and obs[k.OBS_OPP_DECK] == 5
    assert obs[k.OBS_BEAT_CARDS] == 4 and obs[k.OBS_BEAT_LO + 4] == obs[k.OBS_BEAT_HI + 5] == 1
    assert obs[k.OBS_LED] == 0


def test_emptying_the_hand_wins_it_and_the_short_deck_ends_the_game():
    """Player 0 plays 3 x 7-8 and empties its hand: the trick and player 1's hand go under
    its deck; player 1's deck (5) is short of a hand (10): fewer cards loses."""
    env = loaded()
    env.step(PLAY_7_8)
    s = env.state_dict()
    assert s["status"] == "terminated" and s["hands_played"] == 3 and s["turn"] == 31
    assert s["decks"][0][:46] == hand_written()["decks"][0]
    assert sorted(s["decks"][0][46:]) == [1, 1, 2, 5, 5, 6, 6, 7, 7, 7, 8, 8, 8]
    assert s["segments"][0] == [46, 13] and s["cards"] == [59, 5]
    assert env.rewards == {"player_0": 1.0, "player_1": 0.0}
    assert env.infos["player_0"] == {"score": 59.0, "win": 1.0}


def test_a_pass_draws_and_gives_the_trick_to_the_other_player():
    """Player 0 passes: it draws 2 (the 2 and the 8 on top of its deck), the 5s and 6s go
    under player 1's deck as a new segment, and player 1 leads."""
    env = loaded()
    env.step(PASS)
    s = env.state_dict()
    assert (
        s["hands"][0] == [0, 1, 0, 0, 0, 0, 3, 4]
        and s["decks"][0] == hand_written()["decks"][0][2:]
    )
    assert s["decks"][1][:5] == [3, 4, 3, 4, 1] and sorted(s["decks"][1][5:]) == [5, 5, 6, 6]
    assert s["current_play"] is None and s["trick"] == [0] * 8
    assert s["leader"] == s["current_player"] == 1 and s["turn"] == 31
    # player 0 drew from its deck's one segment: the rest of it, and the two fresh cards
    assert s["segment_rest"] == [44, 0] and s["segments"] == [[], [5, 4]]
    assert s["fresh"][0] == [0, 1, 0, 0, 0, 0, 0, 1]
    # leading, player 1 may play its 1s, its 2, or one 1 and the 2; never pass
    legal = np.flatnonzero(env.observe("player_1")["action_mask"]).tolist()
    assert legal == sorted(int(k.action_of(lo, hi)) for lo, hi in ((1, 1), (1, 2), (2, 2)))


def with_history(d: dict) -> None:
    d.update(segment_rest=[0, 0], segments=[[46], [5]], fresh=[[0] * 8, [0] * 8], pinned=[[], []])


def no_trick(d: dict) -> None:
    """The 5s and 6s under player 1's deck: a trick not yet led."""
    d.update(current_play=None, trick=[0] * 8)
    d["decks"][1] += [5, 5, 6, 6]


BAD = [
    (lambda d: d.pop("trick"), "trick: missing"),
    (lambda d: d.update(extra=1), r"extra: unknown key; a state dict of double_or_nothing_v0"),
    (lambda d: d.update(env_id="no_thanks_v0"), "env_id: 'no_thanks_v0' is not this env's"),
    (lambda d: d["config"].update(stage=2), "config: option stage=2, but the env was made"),
    (lambda d: d.update(status="won"), r"status: 'won' is not one of \['running'"),
    (
        lambda d: d.update(turn=2000),
        "turn: 2000: a game still running is below the cap of 2000 turns",
    ),
    (
        lambda d: d.update(status="truncated"),
        "turn: 30: a truncated game stopped at the cap, turn 2000",
    ),
    (lambda d: d.update(current_player=2), r"current_player: 2 is not in 0\.\.1"),
    (
        lambda d: d["decks"][1].append(3),
        r"every card must be in exactly one place: too many .*\[3\]",
    ),
    (lambda d: d["decks"][0].pop(), r"hands, trick, decks: .*missing \[8\]"),
    (lambda d: d["decks"][1].append(9), r"decks\[1\]\[5\]: 9 is not in 1\.\.8"),
    (lambda d: d["hands"][0].pop(), r"hands\[0\]: has 7 items, not 8"),
    (lambda d: d.update(hands=d["hands"][:1]), "hands: must be a list of 2 items, one per seat"),
    (lambda d: d["trick"].__setitem__(4, -1), r"trick\[4\]: -1 is not in 0\.\."),
    (
        lambda d: d.update(current_play=[3, 5, 6]),
        "trick: .* does not hold the play to beat, 3 x 5..6",
    ),
    (lambda d: d.update(current_play=[2, 6, 5]), "current_play: .*needs 1 <= lo <= hi <= 8"),
    (lambda d: d.update(current_play=None), r"trick: holds 4 card\(s\), yet there is no play"),
    (
        lambda d: d.update(leader=0),
        "trick: player 0 led it and is to reply, so it holds an earlier",
    ),
    (
        lambda d: (no_trick(d), d.update(leader=1)),
        "leader: player 0 is to lead the trick, not player 1",
    ),
    (
        lambda d: (d["decks"][1].extend([1, 1, 2]), d["hands"].__setitem__(1, [0] * 8)),
        "hands: player 1's hand is empty while the game goes on",
    ),
    (lambda d: d.update(status="terminated"), "current_play: the game is over"),
    (lambda d: d.update(hands_played=31), "hands_played: 31 hands cannot end in 30 turns"),
    (
        lambda d: (with_history(d), d.update(segments=[[40], [5]])),
        r"segments\[0\]: the rest of the segment being drawn \(0\) and the segments \[40\] make "
        "40 cards; the deck holds 46",
    ),
    (lambda d: d.update(segment_rest=[0, 6]), r"segment_rest\[1\]: 6 is not in 0\.\.5"),
    (lambda d: d.update(segments=[[46, 0], [5]]), r"segments\[0\]\[1\]: 0 is not in 1\.\."),
    (lambda d: d.update(fresh=[[0] * 7 + [9], [0] * 8]), r"fresh\[0\]\[7\]: 9 is not in 0\.\.8"),
    (lambda d: d.update(pinned=[[3, 3], []]), r"pinned\[0\]: \[3, 3\]: numbers in increasing"),
    (
        lambda d: d.update(cards=[10, 10]),
        r"cards: is \[10, 10\], but the position implies \[52, 8\]",
    ),
    (lambda d: d.update(turns=5), "turns: is 5, but the position implies 30"),
    (lambda d: d.update(done=True), "done: is True, but the position implies False"),
    (lambda d: d.update(rng=[0, 0, 0, 0]), "rng: the four words of the PRNG state cannot all be 0"),
]


@pytest.mark.parametrize(("change", "message"), BAD, ids=[m[:40] for _, m in BAD])
def test_bad_state_dicts_are_refused_naming_the_field(change, message):
    env = make(ENV_ID)
    env.reset(seed=3)
    checks.check_refused(env, checks.edit(hand_written(), change), message)


def test_a_finished_game_needs_a_short_deck():
    env = loaded()
    env.step(PLAY_7_8)
    end = env.state_dict()
    loaded(end)  # the end loads as it is
    moved = copy.deepcopy(end)  # five cards of player 0's deck under player 1's: 54 and 10
    moved["decks"][1] += moved["decks"][0][-5:]
    del moved["decks"][0][-5:]
    with pytest.raises(StateDictError, match="decks: the game ended, so a deck is short of a hand"):
        loaded(moved)


# --- the run env ------------------------------------------------------------------------------


def run_positions(seed: int, runs: int = 3, every: int = 7):
    """The run env at every `every`-th step of runs played by the heuristic, with a random
    legal action one time in four (so games are won and lost)."""
    env = make(RUN_ID, max_stage=3)
    agent = make_agent("heuristic", ENV_ID)
    rng = np.random.default_rng(seed)
    for run in range(runs):
        obs, _ = env.reset(seed=seed + run)
        done, step = False, 0
        while not done:
            if step % every == 0:
                yield env, obs
            mask = env.action_masks()
            action = agent.act(obs, mask.astype(np.int8))
            if rng.random() < 0.25:
                action = int(rng.choice(np.flatnonzero(mask)))
            obs, _, term, trunc, _ = env.step(action)
            done, step = term or trunc, step + 1


def test_the_run_env_continues_identically():
    """A run loaded from the JSON of its dict (into a run reset to another deal) shows the
    same observation, mask and dict, and the same actions give it the same future: rewards,
    games won, the next stages, the end."""
    twin = make(RUN_ID, max_stage=3)
    rng = np.random.default_rng(2)
    stages = set()
    for n, (env, obs) in enumerate(run_positions(seed=5)):
        d = json.loads(json.dumps(env.state_dict()))
        twin.reset(seed=100 + n)
        got, info = twin.load_state_dict(d)
        assert np.array_equal(got, obs) and info == {
            "stage": env.stage,
            "games_won": d["games_won"],
        }
        assert np.array_equal(twin.action_masks(), env.action_masks())
        assert twin.state_dict() == d
        stages.add(env.stage)
        ahead = copy.deepcopy(env)
        for _ in range(60):
            action = int(rng.choice(np.flatnonzero(ahead.action_masks())))
            want, got = ahead.step(action), twin.step(action)
            assert np.array_equal(got[0], want[0]) and got[1:] == want[1:]
            assert twin.state_dict() == ahead.state_dict()
            if want[2] or want[3]:
                end = make(RUN_ID, max_stage=3)
                end.load_state_dict(json.loads(json.dumps(ahead.state_dict())))
                assert end.state_dict() == ahead.state_dict() and not end.action_masks().any()
                break
    assert stages >= {1, 2}, "the runs reached no second game"


def run_dict(game: dict | None = None, **run) -> dict:
    return {
        "env_id": RUN_ID,
        "config": {"max_stage": 10, "max_turns": 2000},
        "stage": 1,
        "games_won": 0,
        "game": game or hand_written(),
        **run,
    }


def test_a_hand_written_run_position_wins_game_one_and_goes_on():
    env = make(RUN_ID)
    env.reset(seed=0)
    obs, info = env.load_state_dict(run_dict(), seed=0)
    assert info == {"stage": 1, "games_won": 0} and obs[k.OBS_OPP_DECK] == 5
    obs, reward, term, trunc, info = env.step(PLAY_7_8)  # wins game 1 as above
    assert (reward, term, trunc) == (1.0, False, False)
    assert info == {"stage": 2, "games_won": 1, "won": True}
    s = env.state_dict()
    assert s["stage"] == 2 and s["games_won"] == 1 and s["game"]["config"]["stage"] == 2
    assert s["game"]["turn"] == 0 and obs[k.OBS_STAGE] == 2


def test_after_a_pass_the_computer_leads_its_weakest_play():
    env = make(RUN_ID)
    env.reset(seed=0)
    env.load_state_dict(run_dict(), seed=0)
    env.step(PASS)  # the computer leads from 1, 1, 2: its fewest cards, the single 2
    game = env.state_dict()["game"]
    assert game["current_play"] == [1, 2, 2] and game["hands"][1] == [2, 0, 0, 0, 0, 0, 0, 0]
    assert game["current_player"] == 0 and game["leader"] == 1 and game["turn"] == 32


RUN_BAD = [
    (lambda d: d.pop("stage"), "stage: missing"),
    (lambda d: d.update(env_id=ENV_ID), "env_id: 'double_or_nothing_v0' is not this env's"),
    (lambda d: d["config"].update(max_stage=3), "config: option max_stage=3, but the env"),
    (lambda d: d.update(stage=11), r"stage: 11 is not in 1\.\.10"),
    (lambda d: d.update(stage=2), "game: double_or_nothing_v0 state dict: config: option stage=1"),
    (lambda d: d["game"]["decks"][0].pop(), r"game: double_or_nothing_v0 state dict: .*missing"),
    (lambda d: d["game"].update(current_player=1, leader=0), "game: the computer .player 1. moves"),
    (lambda d: d.update(games_won=1), "games_won: is 1, but the position implies 0"),
    (lambda d: d.update(extra=1), "extra: unknown key"),
]


@pytest.mark.parametrize(("change", "message"), RUN_BAD, ids=[m[:40] for _, m in RUN_BAD])
def test_bad_run_dicts_are_refused_naming_the_field(change, message):
    env = make(RUN_ID)
    env.reset(seed=3)
    before = env.state_dict()
    with pytest.raises(StateDictError, match=message):
        env.load_state_dict(checks.edit(run_dict(), change))
    assert env.state_dict() == before


def test_a_won_game_before_the_last_stage_is_refused():
    env = loaded()
    env.step(PLAY_7_8)  # player 0, the agent, wins game 1
    run = make(RUN_ID)
    with pytest.raises(
        StateDictError, match="stage: game 1 is won, so the run has gone on to game 2"
    ):
        run.load_state_dict(run_dict(env.state_dict(), games_won=1))
    last = make(RUN_ID, max_stage=1)  # after the last stage the run ends with the win
    _, info = last.load_state_dict(
        run_dict(env.state_dict(), games_won=1, config={"max_stage": 1, "max_turns": 2000})
    )
    assert info == {"stage": 1, "games_won": 1} and not last.action_masks().any()
    with pytest.raises(RuntimeError, match="call reset"):
        make(RUN_ID).state_dict()


@pytest.mark.parametrize(
    ("field", "message"),
    [
        (("hands", 1, 0), r"hands\[1\]\[0\]: 2147483648 is not in 0\.\.8"),
        (("trick", 3), r"trick\[3\]: 2147483648 is not in 0\.\.8"),
    ],
)
def test_a_count_beyond_every_copy_is_refused_before_anything_is_built(field, message):
    """Issue 36: a state dict whose hands[1][0] is 2147483648 made load_state_dict expand
    the count into a list of cards: the process grew to 24 GB and the kernel's OOM killer
    took it (a MemoryError under a memory cap). Every count is bounded by the copies of a
    number (8 at stage 1) before any card is listed."""
    env = loaded()
    before = env.state_dict()
    d = hand_written()
    *path, last = field
    target = d
    for key in path:
        target = target[key]
    target[last] = 2**31
    with corners.memory_capped(), pytest.raises(StateDictError, match=message):
        env.load_state_dict(d)
    assert env.state_dict() == before
    run = make(RUN_ID)
    run.reset(seed=0)
    with corners.memory_capped(), pytest.raises(StateDictError, match="game: .*" + message):
        run.load_state_dict(run_dict(d))


def live(env) -> bool:
    return not any(env.terminations.values()) and not any(env.truncations.values())


@pytest.mark.parametrize("stage", range(1, MAX_STAGE + 1))
def test_the_corner_positions_of_every_stage_keep_every_guarantee(stage):
    """Decks and hands scale by 2**(g-1) up to stage 10 (4096 copies of a number; the
    conformance configs stop at stage 3): from each corner position, with the largest
    max_turns (a cap of 1,000,000 x 2**(g-1) turns), 30 random steps keep the laws and the
    observation bounds, and the position reloads and puts every action in words; the turn
    one short of the cap truncates the game on the next step."""
    config = {"stage": stage, "max_turns": COUNT_CAP}
    env, twin = make(ENV_ID, **config), make(ENV_ID, **config)
    env.reset(seed=stage)
    twin.reset(seed=stage)
    rng = np.random.default_rng(stage)
    states = env.game.stress_positions(seed=stage)
    assert states[1]["turn"] == COUNT_CAP * 2 ** (stage - 1) - 1
    for i, d in enumerate(states):
        env.load_state_dict(d)
        for step in range(30):
            where = f"stage {stage} corner position {i} step {step}"
            corners.check_position(env, where)
            if step % 10 == 0 or not live(env):
                corners.check_reload(env, twin, where)
                corners.check_descriptions(env.game, env._row, where)
            if not live(env):
                break
            mask = env.observe(env.agent_selection)["action_mask"]
            env.step(int(rng.choice(np.flatnonzero(mask))))
        if i == 1:
            assert env.state_dict()["status"] == "truncated" and step == 1

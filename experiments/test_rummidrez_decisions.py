"""`python -m experiments.rummidrez_decisions`: its candidates, its choice and its values (no
timing asserted; whole benchmark runs are too slow for a test)."""

import argparse

import numpy as np
import pytest

from card_envs.core import layout
from card_envs.games.rummidrez import engine as k
from card_envs.registry import make_game
from experiments import rummidrez_decisions as bench
from tests.games.rummidrez.helpers import heuristic_game


def heuristic_move(game, row):
    obs = np.zeros((1, game.obs_size), dtype=np.float32)
    mask = np.zeros((1, game.num_actions), dtype=np.int8)
    k.observe(row, row[layout.PLAYER], obs[0])
    k.legal(row, mask[0])
    return int(game.heuristic_actions(obs, mask)[0]), mask[0]


def decision_rows(game, kind, seeds=range(2)):
    """(row, heuristic move) at every decision of `kind` of games of heuristic play."""
    found = []
    for seed in seeds:
        for row in heuristic_game(game, seed)[:-1]:
            move, _ = heuristic_move(game, row)
            if bench.decides(row, kind, move):
                found.append((row, move))
    return found


def play_out(game, row, hero, cards):
    """The benchmark's value of playing `row` on with the heuristic, in plain Python."""
    rewards = np.zeros(game.num_players, dtype=np.float32)
    row = row.copy()
    while row[layout.STATUS] == layout.RUNNING:
        k.step(row, heuristic_move(game, row)[0], rewards)
    scores, wins = np.zeros(game.num_players), np.zeros(game.num_players)
    k.outcome(row, scores, wins)
    held = [int(row[k.HAND + q * k.NUM_IDS : k.HAND + (q + 1) * k.NUM_IDS].sum()) for q in range(2)]
    return wins[hero] + (cards and (held[1 - hero] - held[hero]) / 40)


@pytest.mark.parametrize("kind", sorted(bench.KINDS))
def test_candidates_are_the_heuristics_move_first_then_the_other_legal_moves_of_the_kind(kind):
    game = make_game("rummidrez_v0")
    rows = decision_rows(game, bench.KINDS[kind])
    assert rows
    for row, move in rows:
        out = np.zeros(bench.MAX_CANDIDATES, dtype=np.int64)
        moves = list(out[: bench.candidates(row, bench.KINDS[kind], move, out)])
        _, mask = heuristic_move(game, row)
        assert moves[0] == move and len(set(moves)) == len(moves)
        assert all(mask[a] for a in moves)
        if kind == "draw":
            takes = min(int(row[k.DISCARD_N]), k.HINT_MAX_TAKE)
            assert sorted(moves) == [k.DRAW] + [k.TAKE + d for d in range(takes)]
        elif kind.startswith("meld"):
            assert k.PLACE <= move < k.UNDO and moves == [move, k.END_MELD]
            opened = row[k.OPENED + row[layout.PLAYER]] == 1
            assert opened or kind != "meld-opened"
            assert not opened or kind != "meld-unopened"
        else:
            assert sorted(moves) == list(np.flatnonzero(mask))


def test_the_meld_decisions_split_by_whether_the_hero_has_opened():
    game = make_game("rummidrez_v0")
    both = [r.tobytes() for r, _ in decision_rows(game, bench.MELD_KIND)]
    split = [
        r.tobytes()
        for kind in (bench.MELD_OPENED, bench.MELD_UNOPENED)
        for r, _ in decision_rows(game, kind)
    ]
    assert sorted(both) == sorted(split) and len(set(both)) == len(both)


@pytest.mark.parametrize("cards", [False, True])
def test_the_clairvoyant_choice_is_the_best_candidate_on_the_true_row(cards):
    game = make_game("rummidrez_v0")
    obs = np.zeros((1, game.obs_size), dtype=np.float32)
    masks = np.zeros((1, game.num_actions), dtype=np.int8)
    picked = np.zeros(1, dtype=np.int64)
    stream = np.ones(layout.RNG + 4, dtype=np.int64)
    for row, move in decision_rows(game, bench.DRAW_KIND)[:12]:
        out = np.zeros(bench.MAX_CANDIDATES, dtype=np.int64)
        moves = out[: bench.candidates(row, bench.DRAW_KIND, move, out)]
        values = {}
        for a in moves:
            after = row.copy()
            k.step(after, int(a), np.zeros(2, dtype=np.float32))
            values[int(a)] = play_out(game, after, int(row[layout.PLAYER]), cards)
        best = max(values.values())
        chosen = bench.choose(
            row.copy(), bench.DRAW_KIND, move, 0, 0.0, cards, stream, obs, masks, picked, False
        )
        assert values[chosen] == pytest.approx(best)
        if values[move] == pytest.approx(best):
            assert chosen == move  # ties keep the heuristic's move
    # a margin as large as any difference keeps the heuristic's move
    row, move = decision_rows(game, bench.DRAW_KIND)[0]
    args = (0, 2.0, cards, stream, obs, masks, picked, False)
    assert bench.choose(row.copy(), bench.DRAW_KIND, move, *args) == move


def test_determinised_choices_read_only_what_the_seat_sees():
    """Rows that differ only in cards the hero cannot see (another hand's unknown cards
    swapped with the draw pile's) give the same move from the same stream."""
    game = make_game("rummidrez_v0")
    obs = np.zeros((1, game.obs_size), dtype=np.float32)
    masks = np.zeros((1, game.num_actions), dtype=np.int8)
    picked = np.zeros(1, dtype=np.int64)
    rng = np.random.default_rng(0)
    compared = 0
    for row, move in [d for d in decision_rows(game, bench.MELD_KIND) if not d[0][k.REFILLED]][:4]:
        other = 1 - int(row[layout.PLAYER])
        hidden = row.copy()
        hand = hidden[k.HAND + other * k.NUM_IDS : k.HAND + (other + 1) * k.NUM_IDS]
        unknown = hand - hidden[k.KNOWN + other * k.NUM_IDS : k.KNOWN + (other + 1) * k.NUM_IDS]
        pile = hidden[k.DRAW_PILE : k.DRAW_PILE + hidden[k.DRAW_N]]
        c = int(rng.choice(np.flatnonzero(unknown)))
        j = int(rng.choice(np.flatnonzero(pile != c)))
        hand[c] -= 1
        hand[pile[j]] += 1
        pile[j] = c
        assert not np.array_equal(row, hidden)
        moves = []
        for r in (row, hidden):
            stream = np.zeros(layout.RNG + 4, dtype=np.int64)
            stream[layout.RNG :] = (5, 6, 7, 8)
            args = (4, 0.0, True, stream, obs, masks, picked, False)
            moves.append(bench.choose(r.copy(), bench.MELD_KIND, move, *args))
        assert moves[0] == moves[1]
        compared += 1
    assert compared


def test_the_cards_value_adds_the_difference_of_cards_left():
    game = make_game("rummidrez_v0")
    end = heuristic_game(game, 0)[-1]
    hero = 0
    scores, wins = np.zeros(2), np.zeros(2)
    k.outcome(end, scores, wins)
    held = [int(end[k.HAND + q * k.NUM_IDS : k.HAND + (q + 1) * k.NUM_IDS].sum()) for q in range(2)]
    assert bench.value(end, hero, False) == wins[hero]
    assert bench.value(end, hero, True) == pytest.approx(wins[hero] + (held[1] - held[0]) / 40)


@pytest.mark.parametrize(
    "text", ["meld", "meld:8", "meld:8:x", "meld:-1:0", "meld:8:0:win", "x:8:0"]
)
def test_bad_modes_are_refused_by_name(text):
    with pytest.raises(argparse.ArgumentTypeError, match=text):
        bench.parse_mode(text)


def test_modes_name_kind_determinisations_margin_and_value():
    assert bench.parse_mode("meld:8:0.5:cards") == (bench.MELD_KIND, 8, 0.5, True)
    assert bench.parse_mode("draw:0:0") == (bench.DRAW_KIND, 0, 0.0, False)


def test_the_profile_times_every_position_of_heuristic_play_by_phase():
    game = make_game("rummidrez_v0")
    found = bench.positions_by_phase(2, 0)
    rows = [row for seed in range(2) for row in heuristic_game(game, seed)[:-1]]
    for phase, (kept, obs, masks, moves) in found.items():
        at = [row for row in rows if row[k.PHASE] == phase]
        assert np.array_equal(kept, np.array(at))
        assert len(obs) == len(masks) == len(moves) == len(at)
        for row, move in zip(at, moves[:, 0], strict=True):
            assert heuristic_move(game, row)[0] == move
    assert sorted(found) == [k.PHASE_DRAW, k.PHASE_MELD, k.PHASE_DISCARD]


def test_a_run_needs_a_mode_or_the_profile(capsys):
    with pytest.raises(SystemExit):
        bench.main([])
    assert "--mode" in capsys.readouterr().err

"""Hand-made Super Zwierzaki situations, each played on the plain-Python reference
(`reference.py`) and on the numba engine with the same assertions (the
`impl` fixture; `helpers.Table` reads and plays both). Hands, piles and
counters expected below are worked out by hand from the rule text and the rulings.

Seats hold game numbers 0, 1, 2, ... in seat order unless a test says otherwise, so play
goes up by seat. The draw pile of a situation is `FILLER` (tigers, V cat) unless given; its
last card is drawn first.
"""

import random
from collections import Counter

import numpy as np
import pytest

from card_envs import positions
from card_envs.games.super_zwierzaki import engine as k
from tests.games.super_zwierzaki.helpers import (
    ALIGATOR,
    CCH,
    CYR,
    CZAPLA,
    DEM,
    DEM2,
    DZI,
    FILLER,
    GIV,
    GRIZZLY,
    IMPLEMENTATIONS,
    KANGUR,
    KAZ,
    KOALA,
    MAMBA,
    MCH,
    NINE_CARDS,
    ORC,
    OTH,
    POL,
    RED,
    RED2,
    SOKOL,
    STP,
    STP2,
    TYGRYS,
    WAR,
    WIELKA,
    WIELKA2,
    ZAJAC,
    class_set,
    colour_set,
    hands,
    kind,
    new_row,
    situation,
)
from tests.games.super_zwierzaki.reference import (
    CALL,
    COLOUR,
    COLOURS,
    COPIES,
    DRAW,
    KIND,
    NINE,
    PASS,
    PLAIN_KINDS,
    SEAT,
    Rules,
    act,
    classes_of,
    colours_of,
    legal,
    new_game,
)


@pytest.fixture(params=IMPLEMENTATIONS)
def impl(request):
    return request.param


def kinds(*ks: int) -> list[int]:
    return sorted(KIND + x for x in ks)


# --- the deal ---------------------------------------------------------------------------------
@pytest.mark.parametrize("num_players", [2, 5, 12])
def test_the_deal_gives_five_cards_each_and_turns_up_a_card_whose_function_does_not_apply(
    impl, num_players
):
    for seed in range(20):
        if impl == "reference":
            g = new_game(Rules(num_players), seed)
            dealt, top, numbers = g.hands, g.discard, g.numbers
            given, counters, seat = (g.colours, g.classes), list(g.counters.values()), g.turn_seat
        else:
            row = new_row(Rules(num_players), seed)
            dealt = hands(row, num_players)
            top = [int(row[k.DISCARD_PILE + i]) for i in range(row[k.DISCARD_N])]
            numbers = row[k.NUMBERS : k.NUMBERS + num_players].tolist()
            given = (colour_set(row[k.GIVEN_COLOURS]), class_set(row[k.GIVEN_CLASSES]))
            counters, seat = row[k.COUNTERS : k.COUNTERS + 4].tolist(), int(row[k.TURN_SEAT])
        assert [sum(h.values()) for h in dealt] == [5] * num_players and len(top) == 1
        assert given == (colours_of(top[0]), classes_of(top[0]))
        assert sorted(numbers) == list(range(num_players)) and numbers[seat] == 0
        assert counters == [0, 0, 0, 0]  # also when a Red, Orc, Stp or Dem is turned up


# --- a turn: play on the given colour or class, or draw -----------------------------------------
def test_a_play_matches_the_given_colour_or_class_and_wielka_5_matches_all(impl):
    t = situation(impl, [[ALIGATOR, KOALA, WIELKA, CZAPLA], [MAMBA]], top=MAMBA)
    assert t.legal() == kinds(ALIGATOR, WIELKA) + [DRAW]  # rep class; no other LB card


def test_the_played_card_sets_the_given_colour_and_class(impl):
    t = situation(impl, [[ALIGATOR, KOALA], [MAMBA]], top=MAMBA)
    t.play(KIND + ALIGATOR)
    assert (t.colours, t.classes) == ({"DB"}, {"rep"}) and t.discard == [MAMBA, ALIGATOR]
    assert (t.what, t.seat) == ("turn", 1)


def test_a_drawn_card_waits_for_the_next_turn_by_default(impl):
    t = situation(impl, [[KOALA], [KOALA]], top=MAMBA, draw=[CZAPLA, SOKOL])
    assert t.legal() == [DRAW]  # drawing is always allowed
    t.play(DRAW)  # the LB bird matches the LB snake on top, but the turn is over
    assert t.hands[0] == Counter([KOALA, SOKOL]) and (t.what, t.seat) == ("turn", 1)


def test_a_drawn_card_may_be_played_at_once_with_the_option(impl):
    rules = Rules(2, play_drawn=True)
    draw = FILLER + [CZAPLA, SOKOL]
    t = situation(impl, [[KOALA], [KOALA]], top=MAMBA, draw=draw, rules=rules)
    t.play(DRAW)  # draws the LB bird: it matches the LB card on top
    assert t.what == "drawn" and t.legal() == kinds(SOKOL) + [PASS]
    t.play(KIND + SOKOL)
    assert t.discard[-1] == SOKOL and t.hands[0] == {KOALA: 1} and t.seat == 1
    t.play(DRAW)  # the DG bird matches the bird class, but it may also wait
    t.play(PASS)
    assert t.hands[1] == Counter([KOALA, CZAPLA]) and (t.what, t.seat) == ("turn", 0)
    t.play(DRAW)  # a drawn tiger does not match the LB bird: still asked, only to pass
    assert (t.what, t.seat) == ("drawn", 0) and t.legal() == [PASS]
    t.play(PASS)
    assert t.hands[0] == Counter([KOALA, TYGRYS]) and (t.what, t.seat) == ("turn", 1)


def test_a_drawn_card_played_at_once_may_take_along_the_copies_already_held(impl):
    rules = Rules(2, play_drawn=True)
    draw = FILLER + [SOKOL]
    t = situation(impl, [[SOKOL, KOALA], [KOALA]], top=MAMBA, draw=draw, rules=rules)
    t.play(DRAW, KIND + SOKOL)  # the drawn LB bird and the one held: one or two copies
    assert t.what == "copies" and t.legal() == [COPIES + 0, COPIES + 1]
    t.play(COPIES + 1, PASS)  # two identical: a window, then one card to discard
    assert (t.what, t.purpose, t.legal()) == ("pick", "discard", kinds(KOALA))


# --- each function ------------------------------------------------------------------------------
def test_red_points_make_the_next_player_answer_or_draw_them(impl):
    t = situation(impl, [[RED, MAMBA], [MAMBA, RED2, WIELKA, CYR, KOALA]], top=KAZ)
    t.play(KIND + RED, PASS)
    assert t.counters["red"] == 2 and t.seat == 1
    # no colour or class needed: any Red, a Wielka 5 or Cyr; or draw the points
    assert t.legal() == kinds(RED2, WIELKA, CYR) + [DRAW]
    t.play(DRAW)
    assert t.hand_sizes() == [1, 7] and t.counters["red"] == 0 and t.seat == 0


@pytest.mark.parametrize(
    ("answer", "red", "hand"), [(RED2, 4, 4), (WIELKA, 0, 4), (CYR, 0, 4), (None, 0, 7)]
)
def test_from_red_points_pending_the_seat_answers_the_red_or_draws_it(answer, red, hand):
    env = positions.load("super_zwierzaki/red-points-pending").make_env()
    assert env.agent_selection == "player_1"
    mask = env.observe("player_1")["action_mask"]
    assert np.flatnonzero(mask).tolist() == kinds(RED2, WIELKA, CYR) + [DRAW]
    env.step(DRAW if answer is None else KIND + answer)
    while env.state_dict()["decisions"][0]["what"] == "react":  # nobody reacts to the play
        env.step(PASS)
    s = env.state_dict()
    assert s["decisions"] == [{"what": "turn", "seat": 2}]
    assert s["counters"]["red"] == red and len(s["hands"][1]) == hand


def test_red_answered_with_red_adds_and_wielka_5_sets_red_to_zero(impl):
    t = situation(impl, [[RED, MAMBA], [RED2, KOALA], [WIELKA, KOALA]], top=KAZ)
    t.play(KIND + RED, PASS, PASS)
    t.play(KIND + RED2, PASS, PASS)
    assert t.counters["red"] == 4 and t.seat == 2
    t.play(KIND + WIELKA, PASS, PASS)
    assert t.counters["red"] == 0 and t.colours == set(COLOURS) and t.seat == 0


def test_orc_adds_three_points_and_lets_the_player_pick_the_colour(impl):
    t = situation(impl, [[ORC, MAMBA], [KOALA]], top=GRIZZLY)
    t.play(KIND + ORC, PASS)
    assert (t.what, t.seat) == ("colour", 0) and t.legal() == [COLOUR + c for c in range(9)]
    t.play(COLOUR + COLOURS.index("Y"))
    assert t.counters["orc"] == 3 and (t.colours, t.classes) == ({"Y"}, {"sea"})
    assert t.legal() == [DRAW]  # seat 1: no Orc, no Cyr
    t.play(DRAW)
    assert t.hand_sizes() == [1, 4]


def test_from_orc_picks_colour_the_orc_names_any_colour_and_the_next_seat_answers_or_draws():
    env = positions.load("super_zwierzaki/orc-picks-colour").make_env()
    assert np.flatnonzero(env.observe("player_0")["action_mask"]).tolist() == [
        COLOUR + c for c in range(len(COLOURS))
    ]
    env.step(COLOUR + COLOURS.index("Y"))
    s = env.state_dict()
    assert s["given_colours"] == ["Y"] and s["counters"]["orc"] == 3
    assert np.flatnonzero(env.observe("player_1")["action_mask"]).tolist() == kinds(CYR) + [DRAW]
    env.step(DRAW)
    s = env.state_dict()
    assert len(s["hands"][1]) == 5 + 3 and s["counters"]["orc"] == 0


def test_stp_adds_a_green_point_and_the_next_player_loses_its_turn(impl):
    t = situation(impl, [[STP, MAMBA], [KOALA], [ZAJAC, ZAJAC]], top=KOALA)
    t.play(KIND + STP, PASS, PASS)
    assert t.counters["green"] == 1 and t.legal() == [DRAW]  # seat 1: no Stp, no Cyr
    t.play(DRAW)  # the penalty: this turn is lost, nothing drawn
    assert t.counters["green"] == 0 and t.hand_sizes() == [1, 1, 2] and t.lost == [0, 0, 0]
    assert (t.what, t.seat, t.turns) == ("turn", 2, 2)


def test_green_points_cost_that_many_turns_from_the_current_one(impl):
    t = situation(impl, [[STP, MAMBA, MAMBA], [KOALA, KOALA], [ZAJAC, ZAJAC]], top=KOALA, green=1)
    t.play(KIND + STP, PASS, PASS)  # seat 0 answers: green 2
    assert t.counters["green"] == 2 and t.seat == 1
    t.play(DRAW)  # seat 1 takes the penalty: this turn and the next are lost
    assert t.lost == [0, 1, 0] and t.seat == 2
    t.play(DRAW)  # seat 2's turn, then seat 0's; seat 1's next turn passes by
    t.play(DRAW)
    assert t.seat == 2 and t.lost == [0, 0, 0] and t.turns == 5  # lost turns count


def test_demand_allows_the_named_kind_dem_or_cyr_until_the_demander_acts_again(impl):
    t = situation(impl, [[DEM, MAMBA, MAMBA], [KOALA, MAMBA, ALIGATOR]], top=KOALA)
    t.play(KIND + DEM, PASS)
    assert (t.what, t.seat) == ("name", 0)
    assert t.legal() == kinds(*PLAIN_KINDS) and len(t.legal()) == 81  # no function
    t.play(KIND + KOALA)
    assert t.counters["demand"] == 1 and t.demand_kind == KOALA
    assert t.legal() == kinds(KOALA) + [DRAW]  # seat 1: the named kind or the penalty
    t.play(KIND + KOALA)  # the demand stands after the named kind is played...
    assert t.counters["demand"] == 0 and t.seat == 0  # ...until the demander's turn
    assert t.legal() == [DRAW]  # a normal turn: no LB card matches the LG tree animal on top


def test_the_demand_resets_when_the_demanders_turn_comes_even_a_lost_one(impl):
    # seat 0 demands koalas; its next turn is lost (green points taken earlier)
    hands_ = [[DEM, MAMBA], [KOALA, ZAJAC], [KOALA, ZAJAC]]
    t = situation(impl, hands_, top=KOALA, lost=[1, 0, 0])
    t.play(KIND + DEM, PASS, PASS, KIND + KOALA)
    t.play(KIND + KOALA)  # seat 1 plays the named kind: the demand stands
    assert t.counters["demand"] == 1 and t.seat == 2
    t.play(KIND + KOALA)  # seat 2 too; seat 0's lost turn ends the demand
    assert t.counters["demand"] == 0 and t.lost == [0, 0, 0] and (t.what, t.seat) == ("turn", 1)
    assert t.legal() == [DRAW]  # a normal turn: the LB hare does not match the koala on top


def test_mch_reverses_the_order_of_play(impl):
    t = situation(impl, [[MCH, MAMBA], [KOALA], [ZAJAC]], top=RED2)  # Komar: class ins
    t.play(KIND + MCH, PASS, PASS)
    assert t.seat == 2 and t.numbers == [1, 0, 2]


def test_mch_with_two_players_changes_nothing(impl):
    t = situation(impl, [[MCH, MAMBA], [KOALA]], top=RED2)
    t.play(KIND + MCH, PASS)
    assert (t.what, t.seat) == ("turn", 1)
    t.play(DRAW)
    assert (t.what, t.seat) == ("turn", 0)


def test_cch_lets_the_player_pick_the_colour_and_keeps_its_class(impl):
    t = situation(impl, [[CCH, MAMBA], [KOALA]], top=SOKOL)  # Jelen: P hor; P matches nothing
    assert KIND + CCH not in t.legal()
    t = situation(impl, [[CCH, MAMBA], [KOALA]], top=CYR)  # P bird on top: P matches
    t.play(KIND + CCH, PASS, COLOUR + COLOURS.index("LG"))
    assert (t.colours, t.classes) == ({"LG"}, {"hor"}) and t.legal() == kinds(KOALA) + [DRAW]


def test_pol_discards_half_the_hand_rounded_up(impl):
    t = situation(impl, [[POL, MAMBA, ZAJAC, SOKOL], [CZAPLA]], top=KOALA)
    t.play(KIND + POL, PASS)
    assert (t.what, t.purpose) == ("pick", "discard")
    assert t.legal() == kinds(MAMBA, ZAJAC, SOKOL)  # the player picks which, never whether
    t.play(KIND + MAMBA, KIND + ZAJAC)  # H = 4 counted with the Pol: two cards
    assert t.hands[0] == {SOKOL: 1} and t.discard == [KOALA, MAMBA, ZAJAC, POL]  # under the top
    assert (t.colours, t.classes) == ({"O"}, {"tre"}) and t.seat == 1


def test_kaz_gives_half_the_hand_rounded_up_to_a_chosen_player(impl):
    t = situation(impl, [[KAZ, MAMBA, ZAJAC, SOKOL, KOALA], [CZAPLA], [CZAPLA]], top=RED)
    t.play(KIND + KAZ, PASS, PASS)
    assert (t.what, t.purpose) == ("seat", "give_to") and t.legal() == [SEAT + 1, SEAT + 2]
    t.play(SEAT + 2, KIND + MAMBA, KIND + ZAJAC, KIND + SOKOL)  # H = 5: three cards
    assert t.hands[2] == Counter([CZAPLA, MAMBA, ZAJAC, SOKOL]) and t.hands[0] == {KOALA: 1}


def test_war_swaps_the_hands_of_two_chosen_players(impl):
    t = situation(impl, [[WAR, MAMBA], [KOALA], [ZAJAC, ZAJAC]], top=GRIZZLY)
    t.play(KIND + WAR, PASS, PASS)
    assert t.purpose == "war_a" and t.legal() == [SEAT + 0, SEAT + 1, SEAT + 2]  # itself too
    t.play(SEAT + 1)
    assert t.legal() == [SEAT + 0, SEAT + 2]  # two distinct players
    t.play(SEAT + 2)
    assert t.hands == [{MAMBA: 1}, {ZAJAC: 2}, {KOALA: 1}]


def test_war_with_two_players_always_swaps_the_two_hands(impl):
    t = situation(impl, [[WAR, MAMBA, MAMBA], [KOALA]], top=GRIZZLY)
    t.play(KIND + WAR, PASS, SEAT + 1)  # seat 1 first: the second can only be seat 0
    assert t.legal() == [SEAT + 0]
    t = situation(impl, [[WAR, MAMBA, MAMBA], [KOALA]], top=GRIZZLY)
    t.play(KIND + WAR, PASS, SEAT + 0)
    assert t.legal() == [SEAT + 1]
    t.play(SEAT + 1)
    assert t.hands == [{KOALA: 1}, {MAMBA: 2}] and t.seat == 1


def test_a_single_dzi_or_cyr_on_a_turn_opens_no_window(impl):
    t = situation(impl, [[DZI, CYR, MAMBA], [CYR, KOALA]], top=KOALA)
    t.play(KIND + DZI)  # seat 1 holds a Cyr but is not asked
    assert (t.what, t.seat) == ("turn", 1) and (t.colours, t.classes) == ({"LG"}, {"bir"})
    t.play(KIND + CYR)  # the bird class; seat 0 holds a Cyr but is not asked
    assert (t.what, t.seat) == ("turn", 0) and t.hand_sizes() == [2, 1]


# --- combinations -----------------------------------------------------------------------------
def test_two_identical_cards_are_one_play_and_discard_one_card_under_the_top(impl):
    t = situation(impl, [[MAMBA, MAMBA, SOKOL, ZAJAC], [KOALA]], top=ZAJAC)
    t.play(KIND + MAMBA)
    assert t.what == "copies" and t.legal() == [COPIES + 0, COPIES + 1]  # one or two copies
    t.play(COPIES + 1)
    assert (t.what, t.seat, t.window) == ("react", 1, "play")  # a combination: a window
    t.play(PASS)
    assert t.what == "pick" and t.legal() == kinds(SOKOL, ZAJAC)
    t.play(KIND + SOKOL)
    assert t.discard == [ZAJAC, MAMBA, SOKOL, MAMBA]
    assert t.hands[0] == Counter([ZAJAC]) and (t.colours, t.classes) == ({"LB"}, {"rep"})


@pytest.mark.parametrize(
    ("copies", "picks", "hand", "receiver"),
    [
        # three identical: discard half of H = 7 (rounded up: 4), here the four others
        (3, [ZAJAC, SOKOL, CZAPLA, KOALA], {}, [ALIGATOR, ALIGATOR]),
        # four identical: give half of H = 8 (4) to the chosen seat 1
        (4, [ZAJAC, SOKOL, CZAPLA, KOALA], {}, [ALIGATOR] * 2 + [ZAJAC, SOKOL, CZAPLA, KOALA]),
        # five identical: discard all but one (the player keeps the one it does not pick)
        (5, [ZAJAC, SOKOL, KOALA], {CZAPLA: 1}, [ALIGATOR, ALIGATOR]),
    ],
)
def test_three_four_and_five_identical_cards(impl, copies, picks, hand, receiver):
    others = [ZAJAC, SOKOL, CZAPLA, KOALA]
    t = situation(impl, [[MAMBA] * copies + others, [ALIGATOR, ALIGATOR]], top=ZAJAC)
    t.play(KIND + MAMBA, COPIES + copies - 1, PASS)
    if copies == 4:
        assert t.purpose == "give_to"
        t.play(SEAT + 1)
    t.play(*[KIND + x for x in picks])
    assert t.hands[0] == hand and t.hands[1] == Counter(receiver)
    assert t.discard[-1] == MAMBA and t.discard.count(MAMBA) == copies


def test_two_reds_add_four_red_points_and_discard_one_card(impl):
    t = situation(impl, [[RED, RED, MAMBA, ZAJAC], [KOALA]], top=KAZ)
    t.play(KIND + RED, COPIES + 1, PASS)
    assert t.counters["red"] == 4 and t.legal() == kinds(MAMBA, ZAJAC)  # then the discard
    t.play(KIND + MAMBA)
    assert t.hands[0] == {ZAJAC: 1} and t.discard == [KAZ, RED, MAMBA, RED]
    assert t.seat == 1 and t.legal() == [DRAW]
    t.play(DRAW)
    assert t.hand_sizes() == [1, 5] and t.counters["red"] == 0


def test_two_pols_discard_half_twice_as_far_as_the_hand_goes(impl):
    others = [MAMBA, ZAJAC, SOKOL, KANGUR, KOALA, CZAPLA]
    t = situation(impl, [[POL, POL] + others, [ALIGATOR]], top=KOALA)  # Pol: O tre
    t.play(KIND + POL, COPIES + 1, PASS)
    # H = 8: each Pol discards 4; the second finds only 2 cards, the pair's discard none
    t.play(*[KIND + x for x in others])
    assert t.hands[0] == {} and t.discard[-1] == POL and len(t.discard) == 9
    assert (t.what, t.window, t.seat) == ("react", "win", 1)  # the emptied hand's win round


def test_two_mchs_reverse_twice_and_discard_one_card(impl):
    t = situation(impl, [[MCH, MCH, MAMBA, ZAJAC], [KOALA], [SOKOL]], top=RED2)
    t.play(KIND + MCH, COPIES + 1, PASS, PASS, KIND + ZAJAC)
    assert t.numbers == [0, 1, 2] and t.hands[0] == {MAMBA: 1} and t.seat == 1


def test_two_war_give_a_random_half_then_move_every_hand(impl):
    hands_ = [[WAR, WAR, MAMBA, ZAJAC], [KOALA], [SOKOL, SOKOL, CZAPLA, CZAPLA]]
    t = situation(impl, hands_, top=GRIZZLY)
    t.play(KIND + WAR, COPIES + 1, PASS, PASS)
    assert t.purpose == "war2_giver" and t.legal() == [SEAT + 0, SEAT + 1, SEAT + 2]
    t.play(SEAT + 2)
    assert t.purpose == "war2_receiver" and t.legal() == [SEAT + 0, SEAT + 1]
    t.play(SEAT + 1)  # seat 2 gives half (2 cards, at random) to seat 1
    # seat by seat from the player: seat 0 takes seat 1's hand, seat 1 seat 2's, seat 2 seat 0's
    assert t.purpose == "war2_hand" and t.legal() == [SEAT + 0, SEAT + 1, SEAT + 2]
    t.play(SEAT + 1, SEAT + 2)
    assert t.legal() == [SEAT + 0]  # the last choice is forced, and still asked
    t.play(SEAT + 0)
    assert t.hand_sizes() == [3, 2, 2]  # no swaps and no discard beside the two-War effect
    assert t.hands[2] == Counter([MAMBA, ZAJAC])  # the player's own hand moved on
    assert t.hands[0] + t.hands[1] == Counter([KOALA, SOKOL, SOKOL, CZAPLA, CZAPLA])
    assert KOALA in t.hands[0]  # seat 1's old hand, with the random half it received


# --- forced responses ---------------------------------------------------------------------------
# Seat 0 starts its turn with a counter, holding one card that answers it and a LB snake that
# matches the LB kangaroo on top but may not be played under a counter. (counter, points,
# card held, actions, the counter after, seat 0's cards after)
NAMES = {RED2: "Red", WIELKA: "Wielka5", CYR: "Cyr", ORC: "Orc", STP2: "Stp", KOALA: "named"}
NAMES[DEM2] = "Dem"
FORCED = [
    ("red", 2, RED2, [KIND + RED2, PASS, PASS], 4, 1),  # Red: +2
    ("red", 2, WIELKA, [KIND + WIELKA, PASS, PASS], 0, 1),  # Wielka 5: red to 0
    ("red", 2, CYR, [KIND + CYR], 0, 1),  # Cyr resets (a single Cyr: no window)
    ("red", 2, RED2, [DRAW], 0, 4),  # the penalty: draw the points, red resets
    ("orc", 3, ORC, [KIND + ORC, PASS, PASS, COLOUR + 0], 6, 1),  # Orc: +3, a colour
    ("orc", 3, CYR, [KIND + CYR], 0, 1),
    ("orc", 3, ORC, [DRAW], 0, 5),  # draw the points
    ("green", 1, STP2, [KIND + STP2, PASS, PASS], 2, 1),  # Stp: +1
    ("green", 1, CYR, [KIND + CYR], 0, 1),
    ("green", 1, STP2, [DRAW], 0, 2),  # the turn is lost, nothing drawn
    ("demand", 1, KOALA, [KIND + KOALA], 1, 1),  # the named kind: the demand stands
    ("demand", 1, DEM2, [KIND + DEM2, PASS, PASS, KIND + ZAJAC], 2, 1),  # Dem: +1, renamed
    ("demand", 1, CYR, [KIND + CYR], 0, 1),
    ("demand", 1, KOALA, [DRAW], 0, 3),  # draw 1, the demand resets
]


@pytest.mark.parametrize(
    ("counter", "points", "card", "actions", "after", "cards"),
    FORCED,
    ids=[
        f"{counter}-{'penalty' if actions == [DRAW] else NAMES[card]}"
        for counter, _, card, actions, *_ in FORCED
    ],
)
def test_forced_responses(impl, counter, points, card, actions, after, cards):
    t = situation(
        impl,
        [[card, MAMBA], [ZAJAC], [ZAJAC]],
        top=KANGUR,
        demanded=(KOALA, 2) if counter == "demand" else (-1, -1),  # named by seat 2
        **{counter: points},
    )
    assert t.legal() == kinds(card) + [DRAW]  # no colour or class needed; no other card
    t.play(*actions)
    assert t.counters == {c: after if c == counter else 0 for c in t.counters}
    assert t.hand_sizes() == [cards, 1, 1] and (t.what, t.seat) == ("turn", 1)
    if counter == "green" and actions == [DRAW]:
        assert t.lost == [0, 0, 0]  # one point: only the current turn is lost
    if card == DEM2:
        assert t.demand_kind == ZAJAC  # the later Dem names the kind anew
        assert t.legal() == kinds(ZAJAC) + [DRAW]


# --- duels ------------------------------------------------------------------------------------
def test_an_oth_duel_makes_everyone_but_the_winner_draw_the_points(impl):
    t = situation(impl, [[OTH, OTH, MAMBA], [RED, KOALA], [ZAJAC]], top=ALIGATOR)
    t.play(KIND + OTH)
    t.play(COPIES + 0, PASS, PASS)  # one Oth; no Cyr in the window
    assert t.duel_points == 1 and (t.what, t.seat) == ("duel", 0)  # the causer moves first
    t.play(KIND + OTH)  # +1
    assert t.legal() == kinds(RED) + [PASS]
    t.play(KIND + RED)  # +2, no red points
    assert t.legal() == [PASS]  # seat 2 has nothing to add: it folds
    t.play(PASS, PASS)  # seat 0 folds too: seat 1 wins at 4 points
    assert t.duel_points is None and t.counters["red"] == 0
    assert t.hand_sizes() == [5, 1, 5] and (t.what, t.seat) == ("turn", 1)


def test_the_oth_losers_draw_in_turn_order_from_the_winner(impl):
    draw = FILLER + [CZAPLA, CZAPLA, SOKOL, SOKOL]  # sokols are drawn first
    t = situation(impl, [[OTH, MAMBA], [OTH, KOALA], [ZAJAC]], top=ALIGATOR, draw=draw)
    t.play(KIND + OTH, PASS, PASS)
    assert t.legal() == [PASS]  # the causer has no second Oth: it folds
    t.play(PASS, KIND + OTH, PASS)  # seat 1 adds 1, seat 2 folds: seat 1 wins at 2
    assert t.hands == [{MAMBA: 1, CZAPLA: 2}, {KOALA: 1}, {ZAJAC: 1, SOKOL: 2}]


def test_an_oth_duels_draws_come_before_the_plays_other_effects(impl):
    t = situation(impl, [[OTH, OTH, MAMBA, ZAJAC], [KOALA]], top=ALIGATOR, draw=[SOKOL, CZAPLA])
    t.play(KIND + OTH, COPIES + 1, PASS)
    assert t.duel_points == 2  # two Oth: one duel at 2 points
    t.play(PASS)  # the causer folds: seat 1 wins, seat 0 draws 2
    assert t.purpose == "discard" and t.legal() == kinds(MAMBA, ZAJAC, SOKOL, CZAPLA)
    t.play(KIND + CZAPLA)  # the pair's discard may take a card just drawn
    assert t.hands[0] == Counter([MAMBA, ZAJAC, SOKOL]) and t.hands[1] == {KOALA: 1}


def test_a_giv_duel_lets_the_winner_give_cards_of_its_choice(impl):
    t = situation(impl, [[GIV, GIV, MAMBA, ZAJAC, SOKOL], [KOALA, KOALA]], top=MAMBA)
    t.play(KIND + GIV, COPIES + 0, PASS)  # one Giv: a duel at 1 point
    t.play(KIND + GIV)  # the causer adds its second Giv: 2 points
    assert t.legal() == [PASS]
    t.play(PASS)  # seat 1 folds: seat 0 wins at 2 points
    assert t.duel_points is None and t.legal() == [SEAT + 1]
    t.play(SEAT + 1, KIND + ZAJAC, KIND + SOKOL)  # min(points, cards - 1) = 2 cards
    assert t.hands[0] == {MAMBA: 1} and t.hands[1] == Counter([KOALA, KOALA, ZAJAC, SOKOL])


def test_a_giv_duel_winner_with_one_card_gives_it_and_faces_a_win_round(impl):
    t = situation(impl, [[GIV, GIV, MAMBA], [KOALA]], top=MAMBA)
    t.play(KIND + GIV, COPIES + 0, PASS)
    assert t.legal() == kinds(GIV) + [PASS]  # a card of the duel's own function, or fold
    t.play(PASS)  # the causer folds: seat 1 wins holding one card
    assert (t.what, t.seat) == ("seat", 1)
    t.play(SEAT + 1, KIND + KOALA)  # it gives its only card to seat 0
    assert t.hands == [Counter([GIV, MAMBA, KOALA]), {}]
    assert (t.what, t.window, t.seat) == ("react", "win", 0)
    t.play(PASS)
    assert t.winner == 1 and t.done


def test_a_giv_duel_does_not_take_oth_cards(impl):
    t = situation(impl, [[GIV, OTH, RED, MAMBA], [KOALA]], top=MAMBA)
    t.play(KIND + GIV, PASS)
    assert t.legal() == kinds(RED) + [PASS]  # a Red adds 2 in any duel; an Oth not here


def test_a_duel_skips_folded_seats_and_seats_losing_turns_still_react_and_duel(impl):
    hands_ = [[OTH, OTH, OTH, MAMBA], [KOALA], [OTH, OTH, ZAJAC]]
    t = situation(impl, hands_, top=ALIGATOR, lost=[0, 1, 1])
    t.play(KIND + OTH, COPIES + 0)
    assert (t.what, t.seat) == ("react", 1)  # a seat that will lose its turn is asked
    t.play(PASS, PASS, KIND + OTH)  # the duel at 1; the causer adds an Oth: 2
    assert (t.what, t.seat, t.legal()) == ("duel", 1, [PASS])
    t.play(PASS, KIND + OTH, KIND + OTH)  # seat 1 folds; seat 2 makes it 3, seat 0 4
    assert (t.what, t.seat, t.duel_points) == ("duel", 2, 4)  # folded seat 1 is skipped
    t.play(PASS)  # seat 0 wins: seats 1 and 2 draw 4 each
    assert t.hand_sizes() == [1, 5, 6]
    assert (t.what, t.seat, t.lost, t.turns) == ("turn", 0, [0, 0, 0], 3)


@pytest.mark.parametrize("stopper", [WIELKA, CYR])
def test_wielka_5_on_a_red_or_cyr_ends_a_duel_with_no_effect(impl, stopper):
    t = situation(impl, [[OTH, RED, MAMBA], [stopper, KOALA]], top=ALIGATOR)
    t.play(KIND + OTH, PASS, KIND + RED)  # the causer adds a Red: 3 points
    assert t.legal() == kinds(stopper) + [PASS]
    t.play(KIND + stopper)
    assert t.duel_points is None and t.hands[0] == {MAMBA: 1} and t.hands[1] == {KOALA: 1}
    assert (t.what, t.seat) == ("turn", 1) and t.discard[-1] == stopper


def test_wielka_5_is_a_duel_card_only_on_a_red(impl):
    t = situation(impl, [[OTH, OTH, WIELKA, MAMBA], [WIELKA2, RED, KOALA]], top=ALIGATOR)
    t.play(KIND + OTH, COPIES + 0, PASS)
    assert t.legal() == kinds(OTH) + [PASS]  # an Oth on top: no Wielka 5
    t.play(KIND + OTH)
    assert t.legal() == kinds(RED) + [PASS]
    t.play(KIND + RED)
    assert t.duel_points == 4 and t.legal() == kinds(WIELKA) + [PASS]
    t.play(KIND + WIELKA)
    assert t.duel_points is None and t.hands == [{MAMBA: 1}, {WIELKA2: 1, KOALA: 1}]
    assert (t.what, t.seat) == ("turn", 1)


# --- reaction windows ---------------------------------------------------------------------------
def test_a_cyr_reaction_cancels_the_play_and_resets_every_counter(impl):
    t = situation(impl, [[ORC, MAMBA], [CYR, DZI, KOALA]], top=GRIZZLY)
    t.play(KIND + ORC)
    assert (t.what, t.window) == ("react", "play")
    assert t.legal() == kinds(CYR) + [PASS]  # no Dzi against a play
    t.play(KIND + CYR)
    assert t.counters["orc"] == 0 and t.discard[-1] == CYR  # no orc points, no colour choice
    assert (t.colours, t.classes) == ({"P"}, {"bir"}) and t.discard[-2] == ORC
    assert (t.what, t.seat) == ("turn", 1)


def test_a_cyr_reaction_cancels_a_combination(impl):
    t = situation(impl, [[MAMBA, MAMBA, ZAJAC], [KOALA], [CYR, KOALA]], top=ZAJAC)
    t.play(KIND + MAMBA, COPIES + 1, PASS, KIND + CYR)  # seat 2 cancels the pair's discard
    assert t.hands[0] == {ZAJAC: 1} and t.discard == [ZAJAC, MAMBA, MAMBA, CYR]
    assert (t.what, t.seat) == ("turn", 1)  # play goes on after seat 0


def test_a_seat_without_a_stopper_is_still_asked(impl):
    t = situation(impl, [[ORC, MAMBA], [KOALA], [MAMBA]], top=GRIZZLY)
    t.play(KIND + ORC)
    assert (t.seat, t.legal()) == (1, [PASS])
    t.play(PASS)
    assert (t.seat, t.legal()) == (2, [PASS])


def test_skip_forced_takes_single_choices_unasked(impl):
    rules = Rules(3, skip_forced=True)
    t = situation(impl, [[ORC, MAMBA], [CYR, KOALA], [MAMBA]], top=GRIZZLY, rules=rules)
    t.play(KIND + ORC)
    assert (t.what, t.seat) == ("react", 1)  # seat 1 holds a Cyr: asked
    t.play(PASS)  # seat 2 could only pass: not asked
    assert (t.what, t.seat) == ("colour", 0)


# --- 9 kolorow --------------------------------------------------------------------------------
def test_nine_colours_give_all_but_one_card(impl):
    t = situation(impl, [NINE_CARDS + [ZAJAC, SOKOL], [KOALA]], top=SOKOL)
    assert NINE in t.legal()
    t.play(NINE)
    first = {MAMBA, ZAJAC, SOKOL, CZAPLA, CYR}  # LB cards and birds match the LB bird on top
    assert t.legal() == kinds(*first)
    t.play(KIND + MAMBA)
    assert KIND + ZAJAC not in t.legal()  # one card per colour
    t.play(*[KIND + x for x in NINE_CARDS[1:]])
    assert (t.what, t.window, t.legal()) == ("react", "nine", [PASS])
    t.play(PASS)
    assert (t.what, t.purpose, t.legal()) == ("seat", "nine_to", [SEAT + 1])
    t.play(SEAT + 1)
    assert (t.what, t.purpose, t.legal()) == ("pick", "keep", kinds(ZAJAC, SOKOL))
    t.play(KIND + ZAJAC)
    assert t.hands[0] == {ZAJAC: 1} and t.hands[1] == Counter([KOALA, SOKOL])
    # no functions: no red points, no Pol discard, no reversal; the last card is on top
    assert t.discard[-9:] == NINE_CARDS and t.colours == {"P"} and t.counters["red"] == 0
    assert (t.what, t.seat) == ("turn", 1)


@pytest.mark.parametrize("stopper", [DZI, CYR])
def test_nine_colours_give_stopped_by_dzi_or_cyr(impl, stopper):
    t = situation(impl, [NINE_CARDS + [ZAJAC], [stopper, KOALA]], top=SOKOL)
    t.play(NINE, *[KIND + x for x in NINE_CARDS])
    assert t.legal() == kinds(stopper) + [PASS]
    t.play(KIND + stopper)  # the nine cards stay played; only the give is cancelled
    assert t.hands == [{ZAJAC: 1}, {KOALA: 1}] and t.discard[-1] == stopper
    assert (t.what, t.seat) == ("turn", 1)


def test_nine_colours_with_nine_cards_give_nothing_and_the_empty_hand_faces_a_win_round(impl):
    t = situation(impl, [NINE_CARDS, [KOALA]], top=SOKOL)
    t.play(NINE, *[KIND + x for x in NINE_CARDS])
    assert (t.what, t.window) == ("react", "nine")
    t.play(PASS)  # nothing is left to give
    assert (t.what, t.window, t.seat) == ("react", "win", 1) and t.hands[1] == {KOALA: 1}
    t.play(PASS)
    assert t.winner == 0


def test_nine_colours_need_nine_real_colours_and_no_counter(impl):
    eight = [x for x in NINE_CARDS if x != CYR]
    t = situation(impl, [eight + [WIELKA], [KOALA]], top=SOKOL)
    assert NINE not in t.legal()  # a Wielka 5 counts for no colour
    t = situation(impl, [NINE_CARDS, [KOALA]], top=SOKOL, red=2)
    assert NINE not in t.legal()  # not under a counter
    t = situation(impl, [NINE_CARDS, [KOALA]], top=KANGUR)
    assert NINE in t.legal() and KIND + MAMBA in t.legal()  # the LB one matches
    t = situation(impl, [NINE_CARDS, [KOALA]], top=kind("Mrówkojad Wielki"))  # O ant
    assert t.legal() == kinds(POL) + [DRAW, NINE]  # only the O card matches


# --- winning ----------------------------------------------------------------------------------
def test_an_unstopped_empty_hand_wins(impl):
    t = situation(impl, [[MAMBA], [KOALA]], top=ZAJAC)
    t.play(KIND + MAMBA)
    assert (t.what, t.window, t.seat, t.legal()) == ("react", "win", 1, [PASS])
    t.play(PASS)
    assert t.winner == 0 and t.done and not t.truncated and t.legal() == []


@pytest.mark.parametrize("stopper", [DZI, CYR])
def test_a_win_stopped_by_dzi_or_cyr_costs_the_player_a_card(impl, stopper):
    t = situation(impl, [[MAMBA], [stopper, KOALA]], top=ZAJAC, draw=[SOKOL])
    t.play(KIND + MAMBA)
    assert (t.what, t.window, t.legal()) == ("react", "win", kinds(stopper) + [PASS])
    t.play(KIND + stopper)
    assert t.winner == -1 and t.hands[0] == {SOKOL: 1} and (t.what, t.seat) == ("turn", 1)


def test_a_hand_emptied_by_its_stopper_gets_a_win_round_at_the_same_turn_end(impl):
    t = situation(impl, [[MAMBA], [DZI]], top=ZAJAC, draw=[SOKOL])
    t.play(KIND + MAMBA, KIND + DZI)  # seat 1 stops seat 0 with its last card
    assert (t.what, t.window, t.seat, t.legal()) == ("react", "win", 0, [PASS])
    t.play(PASS)
    assert t.winner == 1


def test_a_cyr_that_stops_a_win_resets_the_counters(impl):
    t = situation(impl, [[RED], [CYR, KOALA]], top=ZAJAC, red=2)
    t.play(KIND + RED, PASS)  # seat 0 answers red 2 with its last card: red 4
    assert t.counters["red"] == 4 and t.window == "win"
    t.play(KIND + CYR)
    assert t.counters["red"] == 0 and t.winner == -1 and t.hand_sizes() == [1, 1]


def test_every_seat_but_the_empty_one_is_asked_in_turn_order(impl):
    t = situation(impl, [[MAMBA], [KOALA], [DZI, KOALA]], top=ZAJAC, draw=[SOKOL])
    t.play(KIND + MAMBA)
    assert (t.seat, t.legal()) == (1, [PASS])
    t.play(PASS)
    assert (t.seat, t.legal()) == (2, kinds(DZI) + [PASS])
    t.play(KIND + DZI)
    assert t.winner == -1 and t.hands[0] == {SOKOL: 1} and (t.what, t.seat) == ("turn", 1)


# --- Codziennie niskie ceny -------------------------------------------------------------------
def test_codziennie_niskie_ceny_is_automatic_by_default(impl):
    t = situation(impl, [[MAMBA, ZAJAC], [KOALA]], top=SOKOL)
    t.play(KIND + MAMBA)
    assert t.hand_sizes() == [1, 1] and (t.what, t.seat) == ("turn", 1)


@pytest.mark.parametrize("call", [True, False])
def test_codziennie_niskie_ceny_called_or_forgotten(impl, call):
    rules = Rules(2, explicit_call=True)
    t = situation(impl, [[MAMBA, ZAJAC], [KOALA]], top=SOKOL, rules=rules)
    t.play(KIND + MAMBA)
    assert (t.what, t.seat, t.legal()) == ("call", 0, [PASS, CALL])
    t.play(CALL if call else PASS)
    assert t.hand_sizes() == [1 if call else 3, 1] and (t.what, t.seat) == ("turn", 1)


def test_the_explicit_call_also_asks_a_seat_left_with_one_card_on_another_turn(impl):
    rules = Rules(3, explicit_call=True)
    hands_ = [[WAR, MAMBA, ZAJAC], [KOALA, KOALA, KOALA], [ZAJAC]]
    t = situation(impl, hands_, top=GRIZZLY, rules=rules)
    t.play(KIND + WAR, PASS, PASS, SEAT + 1, SEAT + 2)  # seats 1 and 2 swap hands
    assert (t.what, t.seat) == ("call", 1)  # seat 1 now holds one card; seat 0 keeps two
    t.play(PASS)
    assert t.hand_sizes() == [2, 3, 3] and (t.what, t.seat) == ("turn", 1)


# --- piles and the turn cap -------------------------------------------------------------------
def test_an_empty_draw_pile_takes_the_discard_pile_but_its_top_card(impl):
    t = situation(impl, [[MAMBA], [KOALA]], top=ZAJAC, draw=[], discard=[CZAPLA, SOKOL])
    t.play(DRAW)
    assert t.discard == [ZAJAC] and t.hand_sizes() == [2, 1]
    assert Counter(t.draw_pile) + t.hands[0] == Counter([CZAPLA, SOKOL, MAMBA])


@pytest.mark.parametrize("counter", [{}, {"red": 4}, {"demand": 1}])
def test_with_both_piles_empty_a_draw_is_skipped_and_a_penalty_still_resets(impl, counter):
    demanded = (KOALA, 1) if counter == {"demand": 1} else (-1, -1)
    t = situation(impl, [[MAMBA], [KOALA]], top=ZAJAC, draw=[], demanded=demanded, **counter)
    t.play(DRAW)
    assert t.hands == [{MAMBA: 1}, {KOALA: 1}] and t.discard == [ZAJAC] and t.draw_pile == []
    assert t.counters == {"red": 0, "orc": 0, "green": 0, "demand": 0}
    assert (t.what, t.seat) == ("turn", 1)


def test_the_turn_cap_truncates(impl):
    t = situation(impl, [[KOALA], [KOALA]], top=MAMBA, rules=Rules(2, max_turns=3))
    t.play(DRAW, DRAW)
    assert not t.done
    t.play(DRAW)
    assert t.truncated and t.done and t.winner == -1 and t.legal() == []


def test_the_turn_cap_counts_lost_turns(impl):
    t = situation(
        impl, [[KOALA], [KOALA], [KOALA]], top=MAMBA, rules=Rules(3, max_turns=2), lost=[0, 1, 0]
    )
    t.play(DRAW)  # turn 1; seat 1's lost turn is turn 2
    assert t.truncated and t.turns == 2


# --- the reference on its own -------------------------------------------------------------------
@pytest.mark.parametrize("num_players", [2, 3, 4, 8, 12])
def test_random_play_on_the_reference_conserves_the_539_cards_and_ends(num_players):
    for seed in range(40):
        g = new_game(Rules(num_players, explicit_call=seed % 2 == 1, max_turns=300), seed)
        rng = random.Random(seed)
        while not g.done:
            assert g.cards() == 539
            act(g, rng.choice(legal(g)))
        assert g.cards() == 539 and (g.winner >= 0) != g.truncated

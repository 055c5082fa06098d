"""Hand-made situations on the plain-Python Super Zwierzaki (`reference_super_zwierzaki.py`):
the rules of the text and the rulings, one situation each, and random play over every player
count (cards conserved, games end or truncate). The engine will be held to the same
situations and to the reference over random play."""

import random
from collections import Counter

import pytest
from reference_super_zwierzaki import (
    _KINDS,
    CALL,
    COLOUR,
    COLOURS,
    COPIES,
    DRAW,
    KIND,
    NINE,
    PASS,
    SEAT,
    Decision,
    Game,
    Rules,
    _run,
    act,
    classes_of,
    colours_of,
    legal,
    new_game,
)


def kind(name: str) -> int:
    return next(i for i, k in enumerate(_KINDS) if k["name"] == name)


MAMBA = kind("Mamba Czarna")  # LB rep
SOKOL = kind("Sokół Wędrowny")  # LB bir
ZAJAC = kind("Zając Szarak")  # LB rod
KOALA = kind("Koala")  # LG tre
ALIGATOR = kind("Aligator Amerykański")  # DB rep
CZAPLA = kind("Czapla Zielona")  # DG bir
GRIZZLY = kind("Niedźwiedź Grizzly")  # V bea
RED = kind("Grzechotnik Preriowy")  # R rep, Red
RED2 = kind("Komar")  # R ins, Red
ORC = kind("Orka Oceaniczna")  # V sea, Orc
CYR = kind("Cyraneczka zwyczajna")  # P bir, Cyr
DZI = kind("Dzięcioł Czarny")  # LG bir, Dzi
WIELKA = kind("Lew Afrykański")  # every colour and class, All
GIV = kind("Gepard")  # LB cat, Giv
OTH = kind("Orangutan Borneański")  # DB mky, Oth
WAR = kind("Waran z Komodo")  # V rep, War
POL = kind("Nosacz Sundyjski")  # O tre, Pol
KAZ = kind("Kazuar Hełmiasty")  # R bir, Kaz
MCH = kind("Wioślak")  # Y ins, Mch
CCH = kind("Jeleń Kanadyjski")  # P hor, Cch
DEM = kind("Ratel Miodożerny")  # LG sml, Dem
STP = kind("Danaid Wędrowny")  # LG ins, Stp
FILLER = [kind("Tygrys Bengalski")] * 30  # V cat: the draw pile of a situation


def situation(hands, top, turn=0, draw=FILLER, rules=None, **counters) -> Game:
    n = len(hands)
    g = Game(
        rules or Rules(n),
        [Counter(h) for h in hands],
        list(draw),
        [top],
        colours_of(top),
        classes_of(top),
        list(range(n)),
        random.Random(0),
    )
    g.lost = [0] * n
    g.sizes = [len(h) for h in hands]
    g.counters.update(counters)
    g.turn_seat = turn
    g.decisions.append(Decision("turn", turn))
    _run(g)
    return g


def play(g: Game, *actions: int) -> None:
    for a in actions:
        act(g, a)


def seat_to_act(g: Game) -> int:
    return g.decisions[-1].seat


def test_a_play_matches_the_given_colour_or_class_and_wielka_5_matches_all():
    g = situation([[ALIGATOR, KOALA, WIELKA, CZAPLA], [MAMBA]], top=MAMBA)
    assert set(legal(g)) == {KIND + ALIGATOR, KIND + WIELKA, DRAW}  # rep class; LB none


def test_the_played_card_sets_the_given_colour_and_class():
    g = situation([[ALIGATOR, KOALA], [MAMBA]], top=MAMBA)
    play(g, KIND + ALIGATOR)
    assert (g.colours, g.classes) == ({"DB"}, {"rep"})
    assert seat_to_act(g) == 1 and g.decisions[-1].what == "turn"


def test_two_identical_cards_are_one_play_and_discard_one_card_under_the_top():
    g = situation([[MAMBA, MAMBA, SOKOL, ZAJAC], [KOALA]], top=ZAJAC)
    play(g, KIND + MAMBA)
    assert legal(g) == [COPIES + 0, COPIES + 1]  # one or two copies
    play(g, COPIES + 1)
    assert (g.decisions[-1].what, seat_to_act(g)) == ("react", 1)  # a combination: a window
    play(g, PASS)
    assert g.decisions[-1].what == "pick" and set(legal(g)) == {KIND + SOKOL, KIND + ZAJAC}
    play(g, KIND + SOKOL)
    assert g.discard == [ZAJAC, MAMBA, SOKOL, MAMBA]
    assert g.hands[0] == Counter([ZAJAC]) and (g.colours, g.classes) == ({"LB"}, {"rep"})


def test_red_points_make_the_next_player_answer_or_draw_them():
    g = situation([[RED, MAMBA], [MAMBA, RED2, WIELKA, CYR, KOALA]], top=KAZ)
    play(g, KIND + RED, PASS)
    assert g.counters["red"] == 2 and seat_to_act(g) == 1
    # no colour or class needed: any Red, a Wielka 5 or Cyr; or draw the points
    assert set(legal(g)) == {KIND + RED2, KIND + WIELKA, KIND + CYR, DRAW}
    play(g, DRAW)
    assert sum(g.hands[1].values()) == 7 and g.counters["red"] == 0 and seat_to_act(g) == 0


def test_red_answered_with_red_adds_and_wielka_5_sets_red_to_zero():
    g = situation([[RED, MAMBA], [RED2, KOALA], [WIELKA, KOALA]], top=KAZ)
    play(g, KIND + RED, PASS, PASS)
    play(g, KIND + RED2, PASS, PASS)
    assert g.counters["red"] == 4 and seat_to_act(g) == 2
    play(g, KIND + WIELKA, PASS, PASS)
    assert g.counters["red"] == 0 and g.colours == set(COLOURS)


def test_a_cyr_reaction_cancels_the_play_and_resets_every_counter():
    g = situation([[ORC, MAMBA], [CYR, KOALA]], top=GRIZZLY)
    play(g, KIND + ORC)
    assert legal(g) == [KIND + CYR, PASS]
    play(g, KIND + CYR)
    assert g.counters["orc"] == 0 and g.discard[-1] == CYR  # no orc points, no colour choice
    assert (g.colours, g.classes) == ({"P"}, {"bir"})
    assert seat_to_act(g) == 1 and g.decisions[-1].what == "turn"


def test_a_seat_without_a_stopper_is_still_asked():
    g = situation([[ORC, MAMBA], [KOALA], [MAMBA]], top=GRIZZLY)
    play(g, KIND + ORC)
    assert (seat_to_act(g), legal(g)) == (1, [PASS])
    play(g, PASS)
    assert (seat_to_act(g), legal(g)) == (2, [PASS])


def test_orc_adds_three_points_and_lets_the_player_pick_the_colour():
    g = situation([[ORC, MAMBA], [KOALA]], top=GRIZZLY)
    play(g, KIND + ORC, PASS)
    assert g.decisions[-1].what == "colour" and seat_to_act(g) == 0
    play(g, COLOUR + COLOURS.index("Y"))
    assert g.counters["orc"] == 3 and (g.colours, g.classes) == ({"Y"}, {"sea"})
    assert set(legal(g)) == {DRAW}  # seat 1: no Orc, no Cyr
    play(g, DRAW)
    assert sum(g.hands[1].values()) == 4


def test_green_points_cost_that_many_turns_from_the_current_one():
    g = situation([[STP, MAMBA, MAMBA], [KOALA, KOALA], [ZAJAC, ZAJAC]], top=KOALA, green=1)
    play(g, KIND + STP, PASS, PASS)  # seat 0 answers: green 2
    assert g.counters["green"] == 2 and seat_to_act(g) == 1
    play(g, DRAW)  # seat 1 takes the penalty: this turn and the next are lost
    assert g.lost == [0, 1, 0] and seat_to_act(g) == 2
    play(g, DRAW)  # seat 2's turn, then seat 0's; seat 1's next turn passes by
    play(g, DRAW)
    assert seat_to_act(g) == 2 and g.lost == [0, 0, 0]


def test_demand_allows_the_named_kind_dem_or_cyr_until_the_demander_acts_again():
    g = situation([[DEM, MAMBA, MAMBA], [KOALA, MAMBA, ALIGATOR]], top=KOALA)
    play(g, KIND + DEM, PASS)
    assert g.decisions[-1].what == "name"
    play(g, KIND + KOALA)
    assert set(legal(g)) == {KIND + KOALA, DRAW}  # seat 1: the named kind or the penalty
    play(g, KIND + KOALA)  # the demand stands after the named kind is played...
    assert g.counters["demand"] == 0 and seat_to_act(g) == 0  # ...until the demander's turn
    assert legal(g) == [DRAW]  # a normal turn: no LB card matches the LG tree animal on top


def test_mch_reverses_the_order_of_play():
    g = situation([[MCH, MAMBA], [KOALA], [ZAJAC]], top=RED2)  # Komar: class ins
    play(g, KIND + MCH, PASS, PASS)
    assert seat_to_act(g) == 2 and g.numbers == [1, 0, 2]


def test_an_oth_duel_makes_everyone_but_the_winner_draw_the_points():
    g = situation([[OTH, OTH, MAMBA], [RED, KOALA], [ZAJAC]], top=ALIGATOR)
    play(g, KIND + OTH)
    play(g, COPIES + 0, PASS, PASS)  # one Oth; no Cyr in the window
    assert g.duel["points"] == 1 and seat_to_act(g) == 0  # the causer moves first
    play(g, KIND + OTH)  # +1
    assert legal(g) == [KIND + RED, PASS]
    play(g, KIND + RED)  # +2, no red points
    assert legal(g) == [PASS]  # seat 2 has nothing to add: it folds
    play(g, PASS, PASS)  # seat 0 folds too: seat 1 wins at 4 points
    assert g.duel is None and g.counters["red"] == 0
    assert [sum(h.values()) for h in g.hands] == [5, 1, 5]


def test_a_giv_duel_lets_the_winner_give_cards_of_its_choice():
    g = situation([[GIV, GIV, MAMBA, ZAJAC, SOKOL], [KOALA, KOALA]], top=MAMBA)
    play(g, KIND + GIV, COPIES + 0, PASS)  # one Giv: a duel at 1 point
    play(g, KIND + GIV)  # the causer adds its second Giv: 2 points
    assert legal(g) == [PASS]
    play(g, PASS)  # seat 1 folds: seat 0 wins at 2 points
    assert g.duel is None and legal(g) == [SEAT + 1]
    play(g, SEAT + 1, KIND + ZAJAC, KIND + SOKOL)  # min(points, cards - 1) = 2 cards
    assert g.hands[0] == {MAMBA: 1} and g.hands[1] == Counter([KOALA, KOALA, ZAJAC, SOKOL])


def test_kaz_gives_half_the_hand_rounded_up_to_a_chosen_player():
    g = situation([[KAZ, MAMBA, ZAJAC, SOKOL, KOALA], [CZAPLA], [CZAPLA]], top=RED)
    play(g, KIND + KAZ, PASS, PASS)
    assert set(legal(g)) == {SEAT + 1, SEAT + 2}
    play(g, SEAT + 2, KIND + MAMBA, KIND + ZAJAC, KIND + SOKOL)  # H = 5: three cards
    assert g.hands[2] == Counter([CZAPLA, MAMBA, ZAJAC, SOKOL]) and g.hands[0] == {KOALA: 1}


def test_pol_discards_half_the_hand_rounded_up():
    g = situation([[POL, MAMBA, ZAJAC, SOKOL], [CZAPLA]], top=KOALA)
    play(g, KIND + POL, PASS, KIND + MAMBA, KIND + ZAJAC)  # H = 4: two cards
    assert g.hands[0] == {SOKOL: 1} and g.discard[-1] == POL and len(g.discard) == 4


def test_war_swaps_the_hands_of_two_chosen_players():
    g = situation([[WAR, MAMBA], [KOALA], [ZAJAC, ZAJAC]], top=GRIZZLY)
    play(g, KIND + WAR, PASS, PASS, SEAT + 1)
    assert SEAT + 1 not in legal(g)  # two distinct players
    play(g, SEAT + 2)
    assert g.hands[1] == {ZAJAC: 2} and g.hands[2] == {KOALA: 1}


def test_nine_colours_give_all_but_one_card():
    nine = [MAMBA, KOALA, RED, ALIGATOR, GRIZZLY, POL, CZAPLA, MCH, CYR]
    g = situation([nine + [ZAJAC, SOKOL], [KOALA]], top=SOKOL)
    assert NINE in legal(g)
    play(g, NINE)
    first = {MAMBA, ZAJAC, SOKOL, CZAPLA, CYR}  # LB cards and birds match the LB bird on top
    assert set(legal(g)) == {KIND + k for k in first}
    play(g, *[KIND + k for k in nine])
    assert g.decisions[-1].what == "react" and legal(g) == [PASS]
    play(g, PASS, SEAT + 1, KIND + ZAJAC)
    assert g.hands[0] == {ZAJAC: 1} and g.hands[1] == Counter([KOALA, SOKOL])
    assert g.discard[-9:] == nine and g.colours == {"P"} and g.counters["red"] == 0


def test_nine_colours_give_stopped_by_dzi():
    nine = [MAMBA, KOALA, RED, ALIGATOR, GRIZZLY, POL, CZAPLA, MCH, CYR]
    g = situation([nine + [ZAJAC], [DZI, KOALA]], top=SOKOL)
    play(g, NINE, *[KIND + k for k in nine], KIND + DZI)
    assert g.hands[0] == {ZAJAC: 1} and g.discard[-1] == DZI and seat_to_act(g) == 1


def test_a_win_stopped_by_dzi_costs_the_player_a_card():
    g = situation([[MAMBA], [DZI, KOALA]], top=ZAJAC, draw=[SOKOL])
    play(g, KIND + MAMBA)
    assert (g.decisions[-1].what, legal(g)) == ("react", [KIND + DZI, PASS])
    play(g, KIND + DZI)
    assert g.winner == -1 and g.hands[0] == {SOKOL: 1} and seat_to_act(g) == 1


def test_a_hand_emptied_by_its_stopper_gets_a_win_round_at_the_same_turn_end():
    g = situation([[MAMBA], [DZI]], top=ZAJAC, draw=[SOKOL])
    play(g, KIND + MAMBA, KIND + DZI)  # seat 1 stops seat 0 with its last card
    assert (g.decisions[-1].what, seat_to_act(g), legal(g)) == ("react", 0, [PASS])
    play(g, PASS)
    assert g.winner == 1


def test_a_cyr_that_stops_a_win_resets_the_counters():
    g = situation([[RED], [CYR, KOALA]], top=ZAJAC, red=2)
    play(g, KIND + RED, PASS)  # seat 0 answers red 2 with its last card: red 4
    assert g.counters["red"] == 4 and g.decisions[-1].ctx["on"] == "win"
    play(g, KIND + CYR)
    assert g.counters["red"] == 0 and g.winner == -1 and sum(g.hands[0].values()) == 1


def test_an_unstopped_empty_hand_wins():
    g = situation([[MAMBA], [KOALA]], top=ZAJAC)
    play(g, KIND + MAMBA, PASS)
    assert g.winner == 0 and g.done and legal(g) == []


@pytest.mark.parametrize("call", [True, False])
def test_codziennie_niskie_ceny_called_or_forgotten(call):
    g = situation([[MAMBA, ZAJAC], [KOALA]], top=SOKOL, rules=Rules(2, explicit_call=True))
    play(g, KIND + MAMBA)
    assert (g.decisions[-1].what, seat_to_act(g)) == ("call", 0)
    play(g, CALL if call else PASS)
    assert sum(g.hands[0].values()) == (1 if call else 3) and seat_to_act(g) == 1


def test_cch_lets_the_player_pick_the_colour_and_keeps_its_class():
    g = situation([[CCH, MAMBA], [KOALA]], top=SOKOL)  # Jelen: P hor; P matches nothing
    assert KIND + CCH not in legal(g)
    g = situation([[CCH, MAMBA], [KOALA]], top=CYR)  # P bird on top: P matches
    play(g, KIND + CCH, PASS, COLOUR + COLOURS.index("LG"))
    assert (g.colours, g.classes) == ({"LG"}, {"hor"}) and legal(g) == [KIND + KOALA, DRAW]


@pytest.mark.parametrize(
    ("copies", "left", "receiver"),
    [
        (3, 0, 2),  # three identical: discard half of H = 7 (rounded up: 4), the 4 others
        (4, 0, 6),  # four identical: give half of H = 8 (4) to a chosen seat
        (5, 1, 2),  # five identical: discard all but one
    ],
)
def test_combinations_of_three_four_and_five_identical_cards(copies, left, receiver):
    others = [ZAJAC, SOKOL, CZAPLA, KOALA]
    g = situation([[MAMBA] * copies + others, [ALIGATOR, ALIGATOR]], top=ZAJAC)
    play(g, KIND + MAMBA, COPIES + copies - 1, PASS)
    if copies == 4:
        play(g, SEAT + 1)
    while g.decisions and g.decisions[-1].what == "pick":
        play(g, legal(g)[0])
    assert sum(g.hands[0].values()) == left and sum(g.hands[1].values()) == receiver


def test_two_war_give_a_random_half_then_move_every_hand():
    g = situation([[WAR, WAR, MAMBA, ZAJAC], [KOALA], [SOKOL, SOKOL, CZAPLA, CZAPLA]], top=GRIZZLY)
    play(g, KIND + WAR, COPIES + 1, PASS, PASS)
    assert g.decisions[-1].ctx["purpose"] == "war2_giver"
    play(g, SEAT + 2, SEAT + 1)  # seat 2 gives half (2 cards, at random) to seat 1
    # seat by seat from the player: seat 0 takes seat 1's hand, seat 1 seat 2's, seat 2 seat 0's
    play(g, SEAT + 1, SEAT + 2)
    assert legal(g) == [SEAT + 0]  # the last choice is forced, and still asked
    play(g, SEAT + 0)
    assert sum(g.hands[0].values()) == 3 and sum(g.hands[1].values()) == 2
    assert g.hands[2] == Counter([MAMBA, ZAJAC])  # the player's own hand moved on
    assert g.hands[0] + g.hands[1] == Counter([KOALA, SOKOL, SOKOL, CZAPLA, CZAPLA])


@pytest.mark.parametrize("stopper", [WIELKA, CYR])
def test_wielka_5_on_a_red_or_cyr_ends_a_duel_with_no_effect(stopper):
    g = situation([[OTH, RED, MAMBA], [stopper, KOALA]], top=ALIGATOR)
    play(g, KIND + OTH, PASS, KIND + RED)  # the causer adds a Red: 3 points
    assert KIND + stopper in legal(g)
    play(g, KIND + stopper)
    assert g.duel is None and g.hands[0] == {MAMBA: 1} and g.hands[1] == {KOALA: 1}
    assert seat_to_act(g) == 1 and g.decisions[-1].what == "turn"


def test_a_drawn_card_may_be_played_at_once_with_the_option():
    rules = Rules(2, play_drawn=True)
    g = situation([[KOALA], [KOALA]], top=MAMBA, draw=[CZAPLA, SOKOL], rules=rules)
    play(g, DRAW)  # draws the LB bird: it matches the LB card on top
    assert legal(g) == [KIND + SOKOL, PASS]
    play(g, KIND + SOKOL)
    assert g.discard[-1] == SOKOL and g.hands[0] == {KOALA: 1} and seat_to_act(g) == 1
    play(g, DRAW)  # the DG bird matches the bird class, but it may also wait
    play(g, PASS)
    assert g.hands[1] == Counter([KOALA, CZAPLA]) and seat_to_act(g) == 0


def test_a_drawn_card_that_cannot_be_played_is_still_asked_about():
    """With the option, every drawn card is a decision (only `PASS` when it does not match):
    whose turn it is then does not tell the others whether the drawn card matched."""
    g = situation([[SOKOL], [KOALA]], top=MAMBA, draw=[KOALA], rules=Rules(2, play_drawn=True))
    play(g, DRAW)  # a LG tree dweller on a LB reptile
    assert g.decisions[-1].what == "drawn" and legal(g) == [PASS] and seat_to_act(g) == 0
    play(g, PASS)
    assert g.hands[0] == Counter([SOKOL, KOALA]) and seat_to_act(g) == 1


def test_the_turn_cap_truncates():
    g = situation([[KOALA], [KOALA]], top=MAMBA, rules=Rules(2, max_turns=3))
    play(g, DRAW, DRAW)
    assert not g.done
    play(g, DRAW)
    assert g.truncated and g.winner == -1 and legal(g) == []


def test_an_empty_draw_pile_takes_the_discard_pile_but_its_top_card():
    g = situation([[MAMBA], [KOALA]], top=ZAJAC, draw=[])
    g.discard = [CZAPLA, SOKOL, ZAJAC]
    play(g, DRAW)
    assert g.discard == [ZAJAC] and sum(g.hands[0].values()) == 2 and len(g.draw_pile) == 1


@pytest.mark.parametrize("num_players", [2, 3, 4, 8, 12])
def test_random_play_conserves_the_539_cards_and_ends(num_players):
    for seed in range(40):
        g = new_game(Rules(num_players, explicit_call=seed % 2 == 1, max_turns=300), seed)
        rng = random.Random(seed)
        while not g.done:
            assert g.cards() == 539
            act(g, rng.choice(legal(g)))
        assert g.cards() == 539 and (g.winner >= 0) != g.truncated

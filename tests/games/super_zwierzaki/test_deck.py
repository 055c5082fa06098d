"""The Super Zwierzaki deck data (`card_envs/games/super_zwierzaki/deck.json`): the facts the
rulings state about the deck, the engine's mask tables, and clear errors for a bad file."""

import json
from collections import Counter

import pytest

from card_envs.games.super_zwierzaki import deck
from card_envs.games.super_zwierzaki.deck import DeckError, load_deck

BIG_FIVE = {"Lew Afrykański", "Bawół Afrykański", "Nosorożec Czarny", "Lampart", "Słoń Afrykański"}


def test_the_deck_has_116_kinds_and_539_cards():
    assert len(deck.KINDS) == 116
    assert sum(k.copies for k in deck.KINDS) == 539
    assert [k.id for k in deck.KINDS] == list(range(116))


def test_copies_are_five_two_for_orange_and_four_for_wielka_5():
    for k in deck.KINDS:
        expected = {"O": 2, "ALL": 4}.get(k.colour, 5)
        assert k.copies == expected, k


def test_the_wielka_5_are_the_big_five_with_every_colour_and_class():
    wild = [k for k in deck.KINDS if k.function == "All"]
    assert {k.name for k in wild} == BIG_FIVE
    for k in wild:
        assert (k.colour, k.klass) == ("ALL", "all")
        assert deck.KIND_COLOURS[k.id] == 2**9 - 1
        assert deck.KIND_CLASSES[k.id] == 2**20 - 1


def test_every_colour_class_and_function_occurs_and_81_kinds_have_no_function():
    assert set(deck.COLOURS) | {"ALL"} == {k.colour for k in deck.KINDS}
    assert set(deck.CLASSES) | {"all"} == {k.klass for k in deck.KINDS}
    assert len(deck.CLASSES) + 1 == 21  # the rulings count "all" among the 21 classes
    assert set(deck.FUNCTIONS) == {k.function for k in deck.KINDS} - {None}
    assert sum(k.function is None for k in deck.KINDS) == 81
    assert sorted(set(deck.KIND_FUNCTION.tolist())) == list(range(15))


def test_an_ordinary_kind_has_one_colour_and_one_class_bit():
    for k in deck.KINDS:
        if k.function == "All":
            continue
        assert deck.KIND_COLOURS[k.id] == 1 << deck.COLOURS.index(k.colour)
        assert deck.KIND_CLASSES[k.id] == 1 << deck.CLASSES.index(k.klass)


def test_kind_ids_follow_the_source_rows_and_the_second_63_is_69():
    """Card number 63 names two kinds in the source list; ids are rows, and the second 63
    (a slip) is stored as 69, so printed numbers are unique here."""
    assert (deck.KINDS[62].name, deck.KINDS[62].number) == ("Marabut Afrykański", 63)
    assert (deck.KINDS[63].name, deck.KINDS[63].number) == ("Tenrekowiec Pręgowany", 69)
    assert deck.KINDS[0].name == "Mamba Czarna" and deck.KINDS[115].name == "Mrówkojad Wielki"
    numbers = Counter(k.number for k in deck.KINDS)
    assert max(numbers.values()) == 1


def test_a_card_has_only_the_function_of_its_row():
    """Kazuar Hełmiasty is red-coloured but a Kaz card, not a Red card."""
    kazuar = next(k for k in deck.KINDS if k.name == "Kazuar Hełmiasty")
    assert (kazuar.colour, kazuar.function) == ("R", "Kaz")
    assert deck.KIND_FUNCTION[kazuar.id] == deck.FUNCTIONS.index("Kaz") + 1


def test_the_tables_are_read_only():
    with pytest.raises(ValueError):
        deck.KIND_COPIES[0] = 9


# --- a bad deck file gets a clear error ------------------------------------------------------
def _write(tmp_path, data) -> object:
    path = tmp_path / "deck.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def _deck_data() -> dict:
    return json.loads(deck.DECK_PATH.read_text(encoding="utf-8"))


def test_the_shipped_file_loads_as_the_module_did():
    assert load_deck(deck.DECK_PATH) == deck.KINDS


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(format="other"), "not a deck file of format"),
        (lambda d: d.update(kinds={}), "'kinds' is not a list"),
        (lambda d: d["kinds"][5].update(colour="XX"), r"kind 5: colour 'XX' is not one of LB, LG"),
        (lambda d: d["kinds"][5].update({"class": "dog"}), r"kind 5: class 'dog' is not one of"),
        (lambda d: d["kinds"][5].update(function="Fly"), r"kind 5: function 'Fly' is not one of"),
        (lambda d: d["kinds"][5].pop("name"), r"kind 5: no 'name'"),
        (lambda d: d["kinds"][5].update(copies=True), r"kind 5: copies True is not a int"),
        (lambda d: d["kinds"][5].update(copies=0), r"kind 5 \(Rawka Błazen\): copies 0"),
        (lambda d: d["kinds"][5].update(extra=1), r"kind 5: unknown keys \['extra'\]"),
        (lambda d: d["kinds"][3].update(function=None), "a Wielka 5 has colour ALL"),
        (lambda d: d["kinds"].pop(), "115 kinds and 537 cards; the deck has 116 and 539"),
        (lambda d: d["kinds"][0].update(copies=6), "116 kinds and 540 cards"),
    ],
)
def test_a_bad_deck_file_is_refused_with_the_reason(tmp_path, change, message):
    data = _deck_data()
    change(data)
    with pytest.raises(DeckError, match=message):
        load_deck(_write(tmp_path, data))

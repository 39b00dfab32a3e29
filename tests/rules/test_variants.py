"""Every variant pokerkit plays beyond the shared hand histories' (stud, stud hi-lo, razz, short deck, 2-7 single
and triple draw, badugi) through the rules layer: hands pokerkit plays replayed from physical events to pokerkit's
result; stud's bring-in, its completion and the seat that must bring in (the lowest up card, TDA22-RP-10; razz: the
highest); a draw's cards counted."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from tablewatch.bench.pokerkit_hands import pokerkit_hands
from tablewatch.events import BetMotion, CardDealt, CardsDiscarded, Chips, HandStarted, Party, Tap
from tablewatch.phhfile import parse_section, split_sections
from tablewatch.rules.game import GameConfig, Variant
from tablewatch.rules.registry import FLOP_GAMES_ONLY
from tablewatch.rules.replay import normalize, replay_hand
from tablewatch.rules.table import TableRules
from tablewatch.table.config import RunConfig

STUD = GameConfig(variant=Variant.STUD, small_blind=0, big_blind=20, ante=5, bring_in=10, small_bet=20, big_bet=40,
                  chip_denominations=(5, 25, 100))


@pytest.mark.parametrize(("code", "kinds"), [
    ("F7S", {"pb", "cc", "cbr", "f"}), ("F7S/8", {"pb", "cc", "cbr", "f"}), ("FR", {"pb", "cc", "cbr", "f"}),
    ("NS", {"cc", "cbr", "f"}), ("N2L1D", {"cc", "cbr", "f"}), ("F2L3D", {"cc", "cbr", "f"}),
    ("FB", {"cc", "cbr", "f"})])
def test_hands_pokerkit_plays_are_replayed_to_its_result(code: str, kinds: set[str]) -> None:
    """40 hands each, 2 players up to 6 (4 in triple draw), short stacks all in on early streets (a stud hand shown
    then, and again in full at the end; a draw's after the last draw). The only finding is the replay's own push
    order: pokerkit pushes the main pot first, the TDA would have the side pots settled first (TDA22-21)."""
    sections = split_sections(pokerkit_hands(code, 40, seed=11))
    results = [replay_hand(normalize(parse_section(s, "hands.phhs"), s.name), hand_no=k + 1)
               for k, s in enumerate(sections)]
    assert [r.error or r.mismatches for r in results if not r.ok] == []
    assert {v.rule_id for r in results for v in r.violations} <= {"TDA22-21"}
    assert {a.kind for r in results if r.finished for a in r.finished.actions} == kinds  # every kind came up


BRING_IN = """variant = 'F7S'
antes = [5, 5, 5]
bring_in = 10
small_bet = 20
big_bet = 40
starting_stacks = [1000, 1000, 1000]
actions = ['d dh p1 AsKd2c', 'd dh p2 5h5d9c', 'd dh p3 7s7cTd', 'p1 pb', 'p2 cbr 20', 'p3 cbr 40', 'p1 f', 'p2 cc',
           'd dh p2 Qh', 'd dh p3 3c', 'p2 cc', 'p3 cc', 'd dh p2 4h', 'd dh p3 Jc', 'p2 cbr 40', 'p3 cc',
           'd dh p2 8c', 'd dh p3 8d', 'p2 cc', 'p3 cc', 'd dh p2 Ah', 'd dh p3 2h', 'p2 cc', 'p3 cc',
           'p2 sm 5h5d9cQh4h8cAh', 'p3 sm 7s7cTd3cJc8d2h']
"""


def test_the_bring_in_is_posted_and_completed_as_pokerkit_plays_it() -> None:
    hand = normalize(parse_section(split_sections(BRING_IN)[0], "bring-in.phh"), "1")
    result = replay_hand(hand)
    assert result.ok and result.violations == [], result.mismatches
    assert result.finished is not None
    third = [(a.seat, a.kind, a.amount) for a in result.finished.actions if a.street == "third"]
    assert third == [(1, "pb", None), (2, "cbr", 20), (3, "cbr", 40), (1, "f", None), (2, "cc", None)]
    assert result.finished.final_stacks == {1: 985, 2: 915, 3: 1100}  # a pair of sevens beats a pair of fives


def _third_street(rules: TableRules) -> None:
    """Seat 1's up card is the 2 of clubs, the lowest: seat 1 brings in (razz: seat 3's ten, the highest)."""
    rules.feed(HandStarted(ts=0.0, table="T01", source="sim", hand_no=1, button=3, seats=(1, 2, 3),
                           stacks=(1000, 1000, 1000)))
    cards = {1: ("As", "Kd", "2c"), 2: ("5h", "5d", "9c"), 3: ("7s", "7c", "Td")}
    for k in range(3):
        for seat in (1, 2, 3):
            rules.feed(CardDealt(ts=1.0 + k + seat / 10, table="T01", source="vision", seat=seat, card=cards[seat][k],
                                 face_up=k == 2))


@pytest.mark.parametrize(("variant", "bringer"), [(Variant.STUD, 1), (Variant.RAZZ, 3)])
def test_the_lowest_up_card_brings_in_and_another_seat_first_is_out_of_turn(variant: Variant, bringer: int) -> None:
    rules = TableRules(STUD.model_copy(update={"variant": variant}), strict=True)
    _third_street(rules)
    assert rules.current is not None and rules.current.to_act() == bringer
    wrong = 2
    found = rules.feed(BetMotion(ts=5.0, table="T01", source="vision", seat=wrong, chips=Chips.of({5: 2})))
    assert [v.rule_id for v in found] == ["TDA-39"] and f"while seat {bringer} is to act" in found[0].observed
    rules.feed(BetMotion(ts=6.0, table="T01", source="vision", seat=bringer, chips=Chips.of({5: 2})))
    assert [(a.seat, a.kind) for a in rules.current.hand.actions][:1] == [(bringer, "pb")]


def test_a_stud_or_draw_table_runs_no_check_of_a_flop_games_deal_or_board() -> None:
    for game, misdeal in ((STUD, False), (LOWBALL, True)):
        names = {type(check).__name__ for check in TableRules(game).checks}
        assert names and not names & {cls.__name__ for cls in FLOP_GAMES_ONLY}
        assert "AllInShowdownCheck" in names and "PotAwardCheck" in names
        assert ("MisdealCheck" in names) == misdeal  # a draw's: the cards a seat holds after the draw


LOWBALL = GameConfig(variant=Variant.NL27, small_blind=1, big_blind=2, chip_denominations=(1, 5, 25))


@pytest.mark.parametrize(("dealt", "found"), [(2, []), (3, ["TDA-25"]), (1, ["TDA-25"])])
def test_a_seat_dealt_more_or_fewer_cards_than_it_threw_away_is_found_when_it_acts(dealt: int,
                                                                                   found: list[str]) -> None:
    """Heads-up 2-7 single draw: seat 1 throws two and is dealt ``dealt`` new cards, then acts: with the wrong
    number of cards, ruled then (TDA-25). (Short, the engine's draw still waits for the missing card.)"""
    rules = TableRules(LOWBALL, strict=True)
    rules.feed(HandStarted(ts=0.0, table="T01", source="sim", hand_no=1, button=2, seats=(1, 2), stacks=(200, 200)))
    hands = {1: ["2c", "3c", "4d", "Kd", "Ks"], 2: ["2d", "3d", "5h", "7s", "8c"]}
    for k in range(5):
        for seat in (1, 2):
            rules.feed(CardDealt(ts=1.0 + k + seat / 10, table="T01", source="vision", seat=seat, card=hands[seat][k]))
    rules.feed(BetMotion(ts=7.0, table="T01", source="vision", seat=2, chips=Chips.of({1: 1})))  # the button calls
    rules.feed(Tap(ts=8.0, table="T01", source="vision", seat=1))
    rules.feed(CardsDiscarded(ts=9.0, table="T01", source="vision", seat=1, cards=("Kd", "Ks")))
    rules.feed(CardsDiscarded(ts=9.5, table="T01", source="vision", seat=2))  # stands pat
    for k, card in enumerate(["6c", "7d", "9h"][:dealt]):
        rules.feed(CardDealt(ts=10.0 + k, table="T01", source="vision", seat=1, card=card))
    assert rules.current is not None and rules.current.to_act() == (1 if dealt >= 2 else None)  # (1: still drawing)
    acted = rules.feed(Tap(ts=14.0, table="T01", source="vision", seat=1))
    assert [v.rule_id for v in acted] == found


def test_a_live_stud_table_is_refused_plainly() -> None:
    with pytest.raises(ValidationError, match="STUD is replayed and checked from hand histories"):
        RunConfig(game=STUD)


@pytest.mark.parametrize(("up", "found"), [
    ({}, []),
    ({(2, 0): True, (2, 2): False}, [("TDA22-RP-10", "A down card of the initial deal dealt face up")]),  # (a)
    ({(3, 3): False}, [("TDA22-RP-10", "An up card dealt face down")]),
    ({(1, 6): True}, [("TDA22-RP-10", "The seventh-street card dealt face up")]),  # (b)
])
def test_a_stud_card_dealt_the_wrong_way_up_is_the_dealers_error(up: dict[tuple[int, int], bool],
                                                                  found: list[tuple[str, str]]) -> None:
    """Each seat's seven cards as the camera saw them land, the deal's way up (two down, one up; up, up, up; down)
    except where ``up`` turns one over (seat, card index). RP-10(a)'s remedy, the up card then dealt face down,
    is no error of its own."""
    rules = TableRules(STUD, strict=True, checks=[c for c in TableRules(STUD).checks
                                                  if type(c).__name__ == "StudDealCheck"])
    rules.feed(HandStarted(ts=0.0, table="T01", source="sim", hand_no=1, button=3, seats=(1, 2, 3),
                           stacks=(1000, 1000, 1000)))
    pattern = (False, False, True, True, True, True, False)
    got = []
    for k, way in enumerate(pattern):
        for seat in (1, 2, 3):
            event = CardDealt(ts=1.0 + k + seat / 10, table="T01", source="vision", seat=seat,
                              face_up=up.get((seat, k), way))
            got += [(v.rule_id, v.title) for v in rules.feed(event)]
    assert got == found
    assert rules.current is not None and all(v.by == Party.DEALER for v in rules.current.hand.violations)

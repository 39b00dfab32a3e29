"""The initial deal: misdeal conditions (TDA-22A, HOUSE-002-2.5), the short button (TDA-24), wrong counts
after substantial action (TDA-25 / ILL-38), non-standard cards (TDA-22D), fouled deck (TDA-22E).
EX-38, EX-39, EX-103, EX-113…EX-120, EX-122."""

from __future__ import annotations

import pytest

from tablewatch.events import (
    BoardCardDealt,
    BoxedCard,
    CardBurned,
    CardDealt,
    CardsTabled,
    Declaration,
    HandEnded,
    PotPushed,
    Severity,
)
from tablewatch.rules.checks.fouled import FouledDeckCheck
from tablewatch.rules.checks.misdeal import MisdealCheck
from tablewatch.rules.profiles import RuleProfile, preset
from tests.rules.test_procedures_helpers import Script, ids


def table(profile: RuleProfile | None = None, *, seats: tuple[int, ...] = (1, 2, 3, 4, 5), button: int = 1,
          hole_cards: int = 2) -> Script:
    profile = profile or RuleProfile()
    s = Script([MisdealCheck(profile), FouledDeckCheck(profile)], seats=seats, button=button,
               hole_cards_per_player=hole_cards)
    s.start()
    return s


def first_action(s: Script, seat: int) -> None:
    s.preflop(to_act=seat)
    s.check(seat)


@pytest.mark.parametrize(
    ("seats", "button", "hole_cards", "order"),
    [
        ((1, 2, 3, 4, 5), 1, 2, [2, 3, 4, 5, 1]),
        ((1, 2, 3, 4, 5), 5, 2, [1, 2, 3, 4, 5]),
        ((2, 7), 7, 2, [2, 7]),  # heads-up: the button gets the last card
        ((1, 3, 6, 9), 4, 4, [6, 9, 1, 3]),  # Omaha, dead button on an empty seat 4
    ],
)
def test_tda_22a_correct_deals_are_silent(seats: tuple[int, ...], button: int, hole_cards: int,
                                          order: list[int]) -> None:
    s = table(seats=seats, button=button, hole_cards=hole_cards)
    s.deal(order, passes=hole_cards)
    first_action(s, order[0])
    assert s.found == []


@pytest.mark.parametrize(
    ("order", "face_up", "expected_id", "title"),
    [
        ([1, 2, 3, 4, 5], (), "TDA-22A(2)", "Misdeal: deal started at the wrong seat"),  # EX-116
        ([2, 3, 4, 5, 1, 6], (), "TDA-22A(3)", "Misdeal: cards dealt to a seat not in play"),  # EX-117
        ([2, 3, 4, 5, 1], (0,), "TDA-22A(7)", "Misdeal: first or second card of the deal exposed"),  # EX-114
        ([2, 3, 4, 5, 1], (1,), "TDA-22A(7)", "Misdeal: first or second card of the deal exposed"),
        ([2, 3, 4, 5, 1], (4, 7), "TDA-22A(7)", "Misdeal: two cards exposed in the deal"),  # EX-115
    ],
)
def test_tda_22a_misdeal_conditions_in_the_deal(order: list[int], face_up: tuple[int, ...], expected_id: str,
                                                title: str) -> None:
    s = table()
    s.deal(order, face_up=face_up)
    misdeals = [v for v in s.found if v.rule_id.startswith("TDA-22A(")]
    assert [v.rule_id for v in misdeals] == [expected_id] and misdeals[0].title == title
    assert "button does not move" in misdeals[0].ruling and misdeals[0].severity is Severity.VIOLATION


def test_ex_114_first_card_exposed_is_a_misdeal_with_the_same_button() -> None:
    s = table()
    found = s.do(CardDealt, seat=2, card="Qs", face_up=True)
    assert ids(found) == ["TDA-22A(7)"]
    assert "same limits" in found[0].ruling and "mucked at once" in found[0].ruling and "Qs" in found[0].observed


def test_ex_114_the_misdealt_hand_ends_with_its_one_card_and_no_other_finding() -> None:
    """The dealer stops at the exposed first card: the hand ends (void) with the other seats holding none,
    which is the misdeal already called, not a player left undealt (TDA-22A(4))."""
    s = table()
    s.do(CardDealt, seat=2, card="Qs", face_up=True)
    assert s.do(HandEnded, hand_no=1, void=True) == []
    assert ids(s.found) == ["TDA-22A(7)"]


def test_ex_115_one_exposed_card_alone_is_not_a_misdeal() -> None:
    s = table()
    s.deal([2, 3, 4, 5, 1], face_up=(6,))
    s.do(CardDealt, dt=0.2, seat=3)  # the exposed card is replaced after the passes
    first_action(s, 4)
    assert [(v.rule_id, v.severity) for v in s.found] == [("TDA-22A", Severity.ADVISORY)]
    assert "not a misdeal" in s.found[0].ruling


def test_ex_119_non_standard_card_after_substantial_action_is_ignored() -> None:
    # A misdeal condition first noticed after substantial action: no misdeal, play goes on (TDA-22D).
    s = table()
    s.deal()
    first_action(s, 2)
    s.set(to_act=3)
    s.bet(3, 100)
    s.set(to_act=4)
    s.bet(4, 100)
    s.do(BoardCardDealt, slot=0, card="Jk")  # a joker turns up after substantial action
    assert [(v.rule_id, v.severity) for v in s.found] == [("TDA-22D", Severity.ADVISORY)]


def test_ex_117_dealt_to_an_empty_seat() -> None:
    s = table(seats=(1, 2, 4, 5))  # seat 3 is empty
    s.deal([2, 3, 4, 5, 1])
    assert ids(s.found)[0] == "TDA-22A(3)" and "Seat 3" in s.found[0].observed


def test_tda_22a_4_a_seat_dealt_no_cards() -> None:
    s = table()
    s.deal([2, 3, 5, 1])  # seat 4 skipped on every pass
    first_action(s, 2)
    assert "TDA-22A(4)" in ids(s.found)


def test_ex_118_three_cards_to_a_non_button_seat_before_action() -> None:
    s = table()
    s.deal()
    s.do(CardDealt, seat=5)
    first_action(s, 2)
    (v,) = [v for v in s.found if v.rule_id == "TDA-22A(5)"]
    assert "Seat 5 was dealt 3 card(s) of 2" in v.observed and v.title.startswith("Misdeal")


@pytest.mark.parametrize(("pause", "expected"), [(0.0, ["TDA-22A(5)"]), (0.2, [])])
def test_a_card_the_camera_missed_is_no_short_deal_where_the_deals_pace_left_room_for_it(
        pause: float, expected: list[str]) -> None:
    """Seat 4's first card is not seen. Dealt on at the deal's pace (0.2 s a card), seat 4 was skipped: a misdeal.
    With a card's interval more between seats 3 and 5, a card went to seat 4 that the camera missed: no finding."""
    s = table()
    for seat, dt in ((2, 0.2), (3, 0.2), (5, 0.2 + pause), (1, 0.2), (2, 0.2), (3, 0.2), (4, 0.2), (5, 0.2), (1, 0.2)):
        s.do(CardDealt, dt=dt, seat=seat)
    first_action(s, 2)
    assert ids(s.found) == expected


def test_a_pause_in_the_deal_does_not_deal_a_card_to_a_seat_skipped_at_the_usual_pace() -> None:
    """The dealer pauses between seats 2 and 3 (a card counted, the deck squared), and later skips seat 5: the pause
    is room for no card, and the skip is a misdeal."""
    s = table()
    for seat, dt in ((2, 0.2), (3, 0.6), (4, 0.2), (1, 0.2), (2, 0.2), (3, 0.2), (4, 0.2), (5, 0.2), (1, 0.2)):
        s.do(CardDealt, dt=dt, seat=seat)
    first_action(s, 2)
    assert ids(s.found) == ["TDA-22A(5)"] and "Seat 5 was dealt 1 card(s) of 2" in s.found[0].observed


@pytest.mark.parametrize(("after_the_burn", "expected"), [("cards", []), ("action", ["TDA-24"] + ["TDA-22A(5)"] * 3)])
def test_a_burn_seen_midway_through_the_deal_ends_it_only_if_no_card_follows(after_the_burn: str,
                                                                            expected: list[str]) -> None:
    """A picture frozen as seat 3's second card flew reads it as a burn, with seats 3, 4 and 5 a card short: the
    deal going on to them says it was none. A dealer who does burn there and lets the players act misdealt (and
    the button is short)."""
    s = table()
    for seat in (2, 3, 4, 5, 1, 2):
        s.do(CardDealt, dt=0.2, seat=seat)
    s.burn(dt=0.2)
    if after_the_burn == "cards":
        for seat in (3, 4, 5, 1):  # (the card read as a burn was seat 3's: the button's is the last)
            s.do(CardDealt, dt=0.2, seat=seat)
    first_action(s, 2)
    assert ids(s.found) == expected


def wrong_count_then_action(count: int, profile: RuleProfile | None = None) -> Script:
    """EX-38/39: seat 5 dealt ``count`` cards; the first seat folds and the next calls (substantial action)."""
    s = table(profile)
    order = [2, 3, 4, 5, 1, 2, 3, 4, 1] + [5] * (count - 1)
    for seat in order:
        s.do(CardDealt, dt=0.2, seat=seat)
    s.preflop(to_act=2)
    s.do(Declaration, seat=2, word="fold")
    s.set(to_act=3)
    s.bet(3, 100)
    return s


@pytest.mark.parametrize(("count", "example"), [(1, "EX-38"), (3, "EX-39")])
def test_ex_38_39_wrong_count_after_substantial_action_is_a_dead_hand(count: int, example: str) -> None:
    s = wrong_count_then_action(count)
    assert ids(s.found) == ["TDA-22A(5)", "TDA-25"], example
    dead = s.found[1]
    assert dead.seats == (5,) and "hand is dead" in dead.ruling and "exactly one burn per street" in dead.ruling


@pytest.mark.parametrize(("profile", "dead_after_two_checks"), [(RuleProfile(), False), (preset("house-cash"), True)])
def test_c9_house_cutoff_is_two_players_acted(profile: RuleProfile, dead_after_two_checks: bool) -> None:
    # Seat 5 holds one card. Two checks are not substantial action under TDA-23 (the misdeal still stands),
    # but under HOUSE-002-2.5 the game has started once two players acted: the short hand is dead instead.
    s = table(profile)
    s.deal([2, 3, 4, 5, 1, 2, 3, 4, 1], passes=1)
    s.preflop(to_act=2)
    s.check(2)
    s.set(to_act=3)
    s.check(3)
    assert ids(s.found) == ["TDA-22A(5)", "TDA-25"] if dead_after_two_checks else ["TDA-22A(5)"]


def test_c9_the_cutoff_decides_whether_a_late_joker_is_a_misdeal() -> None:
    results = {}
    for profile in (RuleProfile(), preset("house-cash")):
        s = table(profile)
        s.deal()
        s.preflop(to_act=2)
        s.check(2)
        s.set(to_act=3)
        s.check(3)  # two checks: not substantial action (TDA-23), but two players acted (HOUSE-002-2.5)
        s.do(BoardCardDealt, slot=0, card="Jk")
        results[profile.name] = ids(s.found)
    assert results == {"tda": ["TDA-22A(6)"], "house-cash": ["TDA-22D"]}


def test_ex_119_non_standard_card_before_substantial_action_is_a_misdeal() -> None:
    s = table()
    s.do(CardDealt, seat=2, card="Jk", face_up=False)
    assert ids(s.found) == ["TDA-22A(6)"]


@pytest.mark.parametrize(("acted", "expected"), [(False, ["TDA-24"]), (True, ["TDA-24", "TDA-24"])])
def test_ex_113_button_dealt_too_few(acted: bool, expected: list[str]) -> None:
    s = table()
    s.deal([2, 3, 4, 5, 1, 2, 3, 4, 5], passes=1)  # the button (seat 1) gets one card
    s.preflop(to_act=2)
    s.bet(2, 100)
    s.set(to_act=3)
    s.bet(3, 100)  # substantial action: still no misdeal for a short button
    if acted:
        s.set(to_act=1)
        s.check(1)
    else:
        s.do(CardDealt, seat=1)  # the missing card may still be added
        s.set(to_act=1)
        s.check(1)
    assert ids(s.found) == expected
    assert "not a misdeal" in s.found[0].ruling.lower()
    if acted:
        assert "hand is dead" in s.found[1].ruling


def test_ex_122_boxed_cards() -> None:
    s = table()
    one = s.do(BoxedCard, card="4c")
    two = s.do(BoxedCard, card="8h")
    assert ids(one) == ["HOUSE-002-2.7.4"] and "replaced by the next card" in one[0].ruling
    assert ids(two) == ["TDA-22A(1)"] and two[0].title.startswith("Misdeal")


@pytest.mark.parametrize(("profile", "expected"), [(RuleProfile(), "TDA-22A(5)"),
                                                    (preset("house-cash"), "HOUSE-002-2.7.6")])
def test_ex_103_extra_card_before_the_first_round(profile: RuleProfile, expected: str) -> None:
    s = table(profile)
    s.deal()
    s.do(CardDealt, seat=3)  # one extra hole card
    first_action(s, 2)
    assert ids(s.found) == [expected]
    if expected.startswith("HOUSE"):
        assert "flop burn" in s.found[0].ruling and s.found[0].severity is Severity.ADVISORY


def test_ex_120_fouled_deck_even_after_substantial_action() -> None:
    s = table()
    s.deal()
    first_action(s, 2)
    s.set(to_act=3)
    s.bet(3, 100)
    s.set(to_act=4)
    s.bet(4, 100)
    s.board(0, 1, 2, cards=["Qh", "2c", "7d"])
    s.do(CardsTabled, seat=4, cards=("Qh", "Ad"))
    (v,) = [v for v in s.found if v.rule_id == "TDA-22E"]
    assert "Qh" in v.observed and "return all bets" in v.ruling and v.seats == (4,)


@pytest.mark.parametrize(
    "sightings",
    [
        [("dealt", 3, "As"), ("tabled", 3, "As")],  # exposed in the deal, later tabled by the same seat
        [("board", None, "Kd"), ("board", None, "Kd")],  # a premature card shuffled back and dealt again
        [("board", None, "Kd"), ("burn", None, "Kd")],  # TDA-26A: the floor burns one of the four
    ],
)
def test_tda_22e_the_same_card_in_a_legitimate_place_is_not_a_duplicate(
        sightings: list[tuple[str, int | None, str]]) -> None:
    s = Script(FouledDeckCheck(RuleProfile()))
    s.start()
    for kind, seat, card in sightings:
        if kind == "dealt":
            s.do(CardDealt, seat=seat, card=card, face_up=True)
        elif kind == "tabled":
            s.do(CardsTabled, seat=seat, cards=(card, "2s"))
        elif kind == "board":
            s.do(BoardCardDealt, slot=0, card=card)
        else:
            s.burn(card=card)
    assert s.found == []


@pytest.mark.parametrize("unsure", ["board", "tabled"])
def test_a_duplicate_the_camera_could_not_tell_from_its_suits_sibling_asks_the_floor_to_look(unsure: str) -> None:
    """At 720p a club and a spade differ by a few pixels of their pips: a board 6c read as the 6s a seat then
    tables is a misread as likely as a fouled deck. The floor is asked to look; play is not stopped."""
    s = Script(FouledDeckCheck(RuleProfile()))
    s.start()
    s.do(BoardCardDealt, slot=0, card="6s", doubts=(("6s", "6c"),) if unsure == "board" else ())
    s.do(CardsTabled, seat=3, cards=("6s", "Kd"), doubts=(("6s", "6c"),) if unsure == "tabled" else ())
    (finding,) = s.found
    assert finding.rule_id == "TDA-22E" and finding.severity is Severity.ADVISORY
    assert "could not tell one of them from 6c" in finding.observed and "Look at both cards" in finding.ruling
    s.do(CardsTabled, seat=5, cards=("Kd", "2h"))  # a duplicate read for sure is still the fouled deck
    assert [v.severity for v in s.found] == [Severity.ADVISORY, Severity.VIOLATION]


def test_ex_115_two_exposed_cards_are_a_misdeal() -> None:
    s = table()
    s.deal([2, 3, 4, 5, 1], face_up=(3,))
    assert [v.severity for v in s.found] == [Severity.ADVISORY]  # one exposed card: the deal goes on
    s2 = table()
    s2.deal([2, 3, 4, 5, 1], face_up=(3, 8))
    assert ids(s2.found) == ["TDA-22A", "TDA-22A(7)"] and s2.found[1].title == "Misdeal: two cards exposed in the deal"


def test_ex_116_deal_started_at_the_wrong_seat() -> None:
    # The first card goes to the button (seat 1) instead of seat 2, the first seat to its left: ruled once the
    # second card shows it was no camera's timing.
    s = table()
    assert s.do(CardDealt, seat=1) == []
    found = s.do(CardDealt, seat=2, dt=0.4)
    assert ids(found) == ["TDA-22A(2)"] and "starts at seat 2" in found[0].observed and "Misdeal" in found[0].title
    assert "first card went to seat 1" in found[0].observed and found[0].ts == s.found[0].ts == pytest.approx(
        found[0].evidence_ts[0])


def test_the_first_two_cards_seen_together_are_not_a_deal_from_the_wrong_seat() -> None:
    # The camera times each card as it comes to rest: seat 2's card, pitched first, settled a moment after seat
    # 3's. Two cards this close together can't be ordered; a second card to another seat can.
    s = table()
    s.do(CardDealt, seat=3)
    s.do(CardDealt, seat=2, dt=0.13)
    s.deal([4, 5, 1, 2, 3, 4, 5, 1], passes=1)
    first_action(s, 4)
    assert s.found == []
    late = table()
    late.do(CardDealt, seat=3)
    assert ids(late.do(CardDealt, seat=4, dt=0.13)) == ["TDA-22A(2)"]
    alone = table()
    alone.do(CardDealt, seat=3)
    alone.do(CardBurned)
    first_action(alone, 4)
    assert ids(alone.found) == ["TDA-22A(2)"]  # the deal ended at one card: still ruled
    # Heads-up (seat 2 first, the button last): the third card tells a swap as seen from a deal begun at the button.
    swapped, wrong = table(seats=(1, 2)), table(seats=(1, 2))
    for s in (swapped, wrong):
        s.do(CardDealt, seat=1)
        s.do(CardDealt, seat=2, dt=0.13)
    swapped.deal([2, 1], passes=1)
    assert swapped.found == []
    assert ids(wrong.do(CardDealt, seat=1, dt=0.4)) == ["TDA-22A(2)"]


@pytest.mark.parametrize(
    ("button", "seats", "expected"),
    [(1, (1, 2, 3, 4, 5), []), (2, (1, 2, 3, 4, 5), ["TDA-22C"]), (1, (1, 2, 3, 4, 5, 6), ["TDA-22C"])],
)
def test_ex_114_the_redeal_keeps_the_button_and_the_players(button: int, seats: tuple[int, ...],
                                                           expected: list[str]) -> None:
    s = table()
    s.do(CardDealt, seat=2, face_up=True)  # misdeal
    s.found.clear()
    s.start(hand_no=2, button=button, seats=seats)
    assert ids(s.found) == expected


@pytest.mark.parametrize("pushed", [True, False])
def test_tda_22c_a_hand_played_out_is_not_redealt(pushed: bool) -> None:
    """A misdeal called, but the floor lets the hand play: the next hand is no redeal, whether or not its push
    was seen (a camera may miss a small one)."""
    s = table()
    s.deal([2, 3, 4, 5, 1], face_up=(0,))
    first_action(s, 2)
    if pushed:
        s.do(PotPushed, seat=3, value=150)
    s.found.clear()
    s.start(hand_no=2, button=2)
    assert s.found == []

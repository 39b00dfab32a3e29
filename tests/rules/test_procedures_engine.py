"""The procedure checks inside the real rules layer: hands driven through ``TableRules`` (the betting engine on
pokerkit, which builds the snapshots) with the registry's checks, as the table's pipeline runs them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest

from tablewatch.events import (
    BetMotion,
    BoardCardDealt,
    CameraMoved,
    CameraPicture,
    CameraRecalibrated,
    CardBurned,
    CardDealt,
    CardExposed,
    CardsMucked,
    CardsTabled,
    Chips,
    Declaration,
    DeviceStatus,
    Event,
    HandEnded,
    HandStarted,
    PotPushed,
    Severity,
    Tap,
    Violation,
)
from tablewatch.rules.checks.awards import flush_in
from tablewatch.rules.game import GameConfig
from tablewatch.rules.profiles import RuleProfile, preset
from tablewatch.rules.registry import CHECK_CLASSES, STUD_ONLY
from tablewatch.rules.table import TableRules


class Table:
    """A 3-seat NLHE 50/100 table (button seat 1: seat 2 small blind, seat 3 big blind, seat 1 first preflop)."""

    def __init__(self, profile: RuleProfile | None = None, *, stacks: tuple[int, ...] = (10000, 10000, 10000)) -> None:
        self.rules = TableRules(GameConfig(), table="T1", profile=profile, strict=True)
        self.stacks = stacks
        self.ts = 0.0
        self.found: list[Violation] = []

    def ev(self, cls: type[Event], *, source: str = "sim", **fields: Any) -> list[Violation]:
        self.ts += 1.0
        out = self.rules.feed(cls(ts=self.ts, table="T1", source=source, **fields))
        self.found += out
        return out

    def start(self, *, face_up: Iterable[int] = ()) -> None:
        self.ev(HandStarted, hand_no=1, button=1, seats=(1, 2, 3), stacks=self.stacks)
        face_up = set(face_up)
        for i, seat in enumerate((2, 3, 1, 2, 3, 1)):
            self.ev(CardDealt, seat=seat, face_up=i in face_up)

    def chips(self, seat: int, amount: int, prior: int = 0, *, source: str = "sim") -> None:
        self.ev(BetMotion, source=source, seat=seat, chips=_chips(amount), prior=_chips(prior) if prior else Chips())

    def limp_around(self) -> None:
        self.chips(1, 100)
        self.chips(2, 50, prior=50)
        self.ev(Tap, seat=3)

    def checks(self, *seats: int) -> None:
        for seat in seats:
            self.ev(Tap, seat=seat)

    def burn(self) -> None:
        self.ev(CardBurned)

    def board(self, *cards_by_slot: tuple[int, str]) -> None:
        for slot, card in cards_by_slot:
            self.ev(BoardCardDealt, slot=slot, card=card)

    def ids(self) -> list[str]:
        return [v.rule_id for v in self.found]


def _chips(amount: int) -> Chips:
    counts: dict[int, int] = {}
    for denomination in (5000, 1000, 500, 100, 25):
        counts[denomination], amount = divmod(amount, denomination)
    return Chips.of(counts)


FLOP = ((0, "Ah"), (1, "Kd"), (2, "7c"))


def play_to_showdown(t: Table, *, turn_burns: int = 1) -> None:
    t.limp_around()
    t.burn()
    t.board(*FLOP)
    t.checks(2, 3, 1)
    for _ in range(turn_burns):
        t.burn()
    t.board((3, "2s"))
    t.checks(2, 3, 1)
    t.burn()
    t.board((4, "9d"))
    t.checks(2, 3, 1)


def test_registry_is_what_the_rules_layer_runs() -> None:
    rules = TableRules(GameConfig(), profile=preset("house-cash"))
    assert [type(c) for c in rules.checks] == [c for c in CHECK_CLASSES if c not in STUD_ONLY]
    assert {c.profile.name for c in rules.checks} == {"house-cash"}  # type: ignore[attr-defined]
    other = TableRules(GameConfig())
    assert all(a is not b for a, b in zip(rules.checks, other.checks, strict=True))


def test_a_clean_hand_has_no_findings() -> None:
    t = Table()
    t.start()
    play_to_showdown(t)
    t.ev(CardsTabled, seat=2, cards=("As", "Ad"))
    t.ev(CardsTabled, seat=3, cards=("3c", "4c"))
    t.ev(CardsMucked, seat=1)
    t.ev(PotPushed, seat=2, value=300)
    t.ev(HandEnded, hand_no=1)
    assert t.found == []
    (hand,) = t.rules.pop_finished()
    assert hand.final_stacks == {1: 9900, 2: 10200, 3: 9900}


@pytest.mark.parametrize(("turn_burns", "expected"), [(0, ["TDA-25"]), (2, ["TDA-25"])])
def test_tda_25_burns_through_the_engine(turn_burns: int, expected: list[str]) -> None:
    t = Table()
    t.start()
    play_to_showdown(t, turn_burns=turn_burns)
    assert t.ids() == expected


def test_ex_114_first_card_exposed_through_the_engine() -> None:
    t = Table()
    t.start(face_up=(0,))
    assert t.ids() == ["TDA-22A(7)"]


def test_a_misdealt_hand_ended_void_is_no_hand_and_its_redeal_is_at_the_same_button() -> None:
    t = Table()
    t.ev(HandStarted, hand_no=1, button=1, seats=(1, 2, 3), stacks=t.stacks)
    t.ev(CardDealt, seat=2, card="Qs", face_up=True)
    t.ev(HandEnded, hand_no=1, void=True)
    assert t.rules.pop_finished() == []  # the misdeal is no hand history: its redeal is the hand
    t.ev(HandStarted, hand_no=2, button=1, seats=(1, 2, 3), stacks=t.stacks)
    for seat in (2, 3, 1, 2, 3, 1):
        t.ev(CardDealt, seat=seat)
    t.limp_around()
    assert t.ids() == ["TDA-22A(7)"]  # nor a TDA-22C: the redeal kept the button and the players


def test_ex_105_premature_flop_through_the_engine() -> None:
    t = Table()
    t.start()
    t.chips(1, 100)
    t.chips(2, 50, prior=50)  # the big blind (seat 3) has not acted yet
    t.burn()
    t.board(*FLOP)
    assert t.ids() == ["TDA-57"] and t.found[0].street == "preflop"
    t.ev(Tap, seat=3)  # the preflop betting is finished
    t.board((0, "Qs"), (1, "Jd"), (2, "3h"))  # the new flop, without a burn
    t.checks(2, 3, 1)
    t.burn()
    t.board((3, "2s"))
    assert t.ids() == ["TDA-57"]
    assert t.rules.snapshot().board[:3] == ("Qs", "Jd", "3h")  # the engine plays the redealt flop


def test_tda_53_exposed_while_facing_a_bet_through_the_engine() -> None:
    t = Table()
    t.start()
    t.limp_around()
    t.burn()
    t.board(*FLOP)
    t.chips(2, 300)
    out = t.ev(CardExposed, seat=3, card="Kh")
    assert [(v.rule_id, v.severity) for v in out] == [("TDA-53", Severity.VIOLATION)] and "300" in out[0].observed


def test_tda_9_all_in_run_out_with_a_hand_face_down_through_the_engine() -> None:
    t = Table(stacks=(10000, 10000, 1000))
    t.start()
    t.chips(1, 100)  # seat 1 limps
    t.ev(CardsMucked, seat=2)
    t.ev(Declaration, seat=3, word="all-in")
    t.chips(3, 900, prior=100)  # the big blind is all-in for 1000
    t.ev(Declaration, seat=1, word="call")
    t.chips(1, 900, prior=100)  # called: no more betting is possible
    assert t.found == []
    t.ev(CardsTabled, seat=3, cards=("Qh", "Qd"))
    out = t.ev(CardBurned)
    assert [v.rule_id for v in out] == ["TDA-9"] and out[0].seats == (1,)
    t.ev(CardsTabled, seat=1, cards=("2c", "2d"))  # the floor has the hand turned up; the run-out goes on
    t.board(*FLOP)
    t.burn()
    t.board((3, "2s"))
    t.burn()
    t.board((4, "9d"))
    t.ev(PotPushed, seat=1, value=2050)  # trip deuces win 1000 + 1000 + the small blind's 50
    t.ev(HandEnded, hand_no=1)
    assert t.ids() == ["TDA-9"]
    (hand,) = t.rules.pop_finished()
    assert hand.final_stacks == {1: 11050, 2: 9950, 3: 0}


def test_a_tap_the_camera_saw_as_the_hole_cards_were_pitched_is_no_check() -> None:
    """The dealer's second pitch lands by seat 3 before seats 1 and 2 have their second cards: a blurred camera
    takes the card coming down for seat 3's tap. Nobody acts before the deal is out: no action out of turn, and the
    hand plays on from seat 1."""
    t = Table()
    t.ev(HandStarted, hand_no=1, button=1, seats=(1, 2, 3), stacks=t.stacks)
    for seat in (2, 3, 1, 2):
        t.ev(CardDealt, seat=seat)
    t.ev(Tap, source="scene", seat=3)
    t.ev(CardDealt, seat=3)
    t.ev(CardDealt, seat=1)
    play_to_showdown(t)
    assert t.ids() == []


def test_tda_5_misaward_through_the_engine() -> None:
    t = Table()
    t.start()
    play_to_showdown(t)
    t.ev(CardsTabled, seat=2, cards=("As", "Ad"))
    t.ev(CardsTabled, seat=3, cards=("3c", "4c"))
    t.ev(CardsMucked, seat=1)
    out = t.ev(PotPushed, seat=3, value=300)  # seat 2's aces win; the dealer pushes to seat 3
    assert [v.rule_id for v in out] == ["TDA-5"] and "seat 2: 300" in out[0].ruling


def test_a_hand_tabled_unread_leaves_the_pot_as_the_dealer_pushed_it() -> None:
    """pokerkit takes no unknown card at the showdown, so an unread tabled hand goes to it as a muck: the read hand
    would win by default. That is no judgment: no misaward is called, and the pot is recorded as pushed."""
    t = Table()
    t.start()
    play_to_showdown(t)
    t.ev(CardsTabled, seat=2, cards=("3c", "4c"))
    t.ev(CardsTabled, seat=3, cards=())  # shown, but the camera could not read it
    t.ev(CardsMucked, seat=1)
    t.ev(PotPushed, seat=3, value=300)
    assert_settled_as_pushed(t, {1: 9900, 2: 9900, 3: 10200})


def test_a_hand_tabled_with_one_card_read_leaves_the_pot_as_the_dealer_pushed_it() -> None:
    """Two cards tabled fanned, the second under the first's edge: the camera read only the first. The hand is not
    known (pokerkit would rank the one card read with the board and lose it): no misaward is called."""
    t = Table()
    t.start()
    play_to_showdown(t)
    t.ev(CardsTabled, seat=2, cards=("As", "4c"))  # aces
    t.ev(CardsTabled, seat=3, cards=("7h",))  # 7h 7d: three sevens with the board's 7c; read, a pair of sevens
    t.ev(CardsMucked, seat=1)
    t.ev(PotPushed, seat=3, value=300)
    assert_settled_as_pushed(t, {1: 9900, 2: 9900, 3: 10200})


def _split_as_pushed(*, doubts: tuple[tuple[str, str], ...]) -> list[Violation]:
    """All in before the flop, AK against AK; the board three clubs. Seat 1's ace read as the club (a flush), which
    the camera could not tell from the spade (a split pot): the dealer splits the pot."""
    t = Table()
    t.start()
    t.chips(1, 10000)
    t.chips(2, 9950, prior=50)
    t.ev(CardsMucked, seat=3)
    t.ev(CardsTabled, seat=1, cards=("Kc", "Ac"), doubts=doubts)
    t.ev(CardsTabled, seat=2, cards=("Kh", "Ad"))
    t.burn()
    t.board((0, "3c"), (1, "4c"), (2, "Tc"))
    t.burn()
    t.board((3, "Ts"))
    t.burn()
    t.board((4, "6s"))
    t.ev(PotPushed, seat=1, value=10050)
    t.ev(PotPushed, seat=2, value=10050)
    t.ev(HandEnded, hand_no=1)
    return [v for v in t.found if v.rule_id == "TDA-5"]


def test_a_misaward_resting_on_a_suit_the_camera_could_not_tell_is_an_advisory_that_says_so() -> None:
    assert [v.severity for v in _split_as_pushed(doubts=())] == [Severity.VIOLATION] * 2  # the flush as read
    doubted = _split_as_pushed(doubts=(("Ac", "As"),))
    assert [v.severity for v in doubted] == [Severity.ADVISORY] * 2
    assert all("could not tell Ac from As" in v.observed for v in doubted)
    # a doubt that gives or takes no flush leaves the finding a violation
    assert [v.severity for v in _split_as_pushed(doubts=(("Kh", "Kd"),))] == [Severity.VIOLATION] * 2


def test_a_board_card_misread_as_one_already_out_leaves_the_pot_as_the_dealer_pushed_it() -> None:
    """All in before the flop, hands tabled, and the turn read as the flop's king again (a club read as a spade):
    pokerkit gets it as an unknown card, which it can't rank a hand with; its awards on the cards it knows would
    be no judgment: the pot stands as the dealer pushed it."""
    t = Table()
    t.start()
    t.chips(1, 10000)
    t.chips(2, 9950, prior=50)
    t.ev(CardsMucked, seat=3)
    t.ev(CardsTabled, seat=1, cards=("As", "Kc"))
    t.ev(CardsTabled, seat=2, cards=("Kh", "Ad"))
    t.burn()
    t.board(*FLOP)
    t.burn()
    t.board((3, "Kd"))
    t.burn()
    t.board((4, "9d"))
    t.ev(PotPushed, seat=1, value=20100)
    assert_settled_as_pushed(t, {1: 20100, 2: 0, 3: 9900})


def assert_settled_as_pushed(t: Table, final_stacks: dict[int, int]) -> None:
    """The hand ends with no finding, recorded with the pot as the dealer pushed it (the hands not judged)."""
    t.ev(HandEnded, hand_no=1)
    assert t.ids() == []
    (hand,) = t.rules.pop_finished()
    assert hand.final_stacks == final_stacks
    assert any("not read" in note for note in hand.notes)


def test_ex_107_premature_turn_2017_through_the_engine() -> None:
    t = Table(preset("tda-2017"))
    t.start()
    t.limp_around()
    t.burn()
    t.board(*FLOP)
    t.checks(2, 3)  # seat 1 has not acted on the flop
    t.burn()
    t.board((3, "9s"))  # premature turn: set aside
    t.checks(1)
    t.burn()
    t.board((3, "5h"))  # burn, and the next card is the turn
    t.checks(2, 3, 1)
    t.board((4, "9d"))  # the river without a burn
    t.checks(2, 3, 1)
    assert t.ids() == ["TDA-57"]
    assert t.rules.snapshot().board == ("Ah", "Kd", "7c", "5h", "9d")


def test_ex_110_four_card_flop_through_the_engine() -> None:
    t = Table()
    t.start()
    t.limp_around()
    t.burn()
    t.board(*FLOP, (3, "Qs"))
    t.burn()  # the floor's pick
    t.checks(2, 3, 1)
    t.burn()
    t.board((3, "2s"))
    assert t.ids() == ["TDA-26A"]


def test_a_four_card_flop_in_an_all_in_run_out_is_not_the_turn() -> None:
    """Nobody can act on the flop, so only time tells a 4th card dealt with it from the turn: it is set aside,
    and the card dealt after the burns is the hand's turn."""
    t = Table(stacks=(10000, 10000, 1000))
    t.start()
    t.chips(1, 100)
    t.ev(CardsMucked, seat=2)
    t.ev(Declaration, seat=3, word="all-in")
    t.chips(3, 900, prior=100)
    t.ev(Declaration, seat=1, word="call")
    t.chips(1, 900, prior=100)
    t.ev(CardsTabled, seat=3, cards=("Qh", "Qd"))
    t.ev(CardsTabled, seat=1, cards=("2c", "2d"))
    t.burn()
    t.board(*FLOP, (3, "Qs"))  # the 4th card a second after the flop, no burn between
    t.burn()  # the 4th card taken to the burn pile
    t.burn()
    t.board((3, "2s"))
    t.burn()
    t.board((4, "9d"))
    assert t.ids() == ["TDA-26A"]
    assert t.rules.snapshot().board == ("Ah", "Kd", "7c", "2s", "9d")


def test_ex_38_short_card_then_substantial_action_through_the_engine() -> None:
    t = Table()
    t.ev(HandStarted, hand_no=1, button=1, seats=(1, 2, 3), stacks=t.stacks)
    for seat in (2, 3, 1, 2, 1):  # seat 3 gets one card
        t.ev(CardDealt, seat=seat)
    t.chips(1, 100)  # the engine opens the round on this first action
    assert t.ids() == ["TDA-22A(5)"]
    t.chips(2, 50, prior=50)  # two actions with chips: substantial action
    assert t.ids() == ["TDA-22A(5)", "TDA-25"] and t.found[1].seats == (3,)


def test_state_does_not_leak_between_hands_and_devices_are_heard_between_hands() -> None:
    t = Table()
    offline = t.ev(DeviceStatus, device="rfid-1", online=False)  # before any hand: the snapshot is idle
    assert [(v.rule_id, v.severity) for v in offline] == [("SYS-DEVICE", Severity.SYSTEM)]
    t.found.clear()
    for hand_no in (1, 2):
        t.ev(HandStarted, hand_no=hand_no, button=1, seats=(1, 2, 3), stacks=t.stacks)
        for seat in (2, 3, 1, 2, 3, 1):
            t.ev(CardDealt, seat=seat)
        play_to_showdown(t, turn_burns=1 if hand_no == 1 else 2)  # hand 2 double-burns the turn
        t.ev(CardsTabled, seat=2, cards=("As", "Ad"))
        t.ev(CardsTabled, seat=3, cards=("3c", "4c"))
        t.ev(CardsMucked, seat=1)
        t.ev(PotPushed, seat=2, value=300)
        t.ev(HandEnded, hand_no=hand_no)
    assert [(v.rule_id, v.hand_no) for v in t.found] == [("TDA-25", 2)]


def test_findings_while_a_cameras_picture_is_unreadable_are_advisories_that_name_it_in_the_alert_and_history() -> None:
    t = Table()
    t.ev(CameraPicture, camera="overhead", condition="overexposed", usable=False)  # a warning: findings stand
    t.ev(CameraPicture, camera="overhead", condition="too dark", usable=False, reliable=False, detail="reads 31")
    t.start()
    t.chips(2, 50, prior=50)  # the small blind completes before seat 1 has acted: out of turn (the engine's)
    t.chips(1, 100)
    t.ev(Tap, seat=3)
    t.burn()
    t.board(*FLOP)
    t.checks(2, 3, 1)
    t.board((3, "2s"))  # no burn before the turn (a check's)
    t.ev(HandEnded, hand_no=1)
    dark = t.found
    assert {"TDA-25", "TDA-39"} <= {v.rule_id for v in dark}
    assert all(v.severity is not Severity.VIOLATION for v in dark)
    assert all("camera overhead's picture too dark" in v.observed and "overexposed" not in v.observed
               for v in dark if v.rule_id in ("TDA-25", "TDA-39"))
    (hand,) = t.rules.pop_finished()
    assert [(v.rule_id, v.severity) for v in hand.violations] == [(v.rule_id, v.severity) for v in dark if v.hand_no]
    assert "camera overhead's picture too dark during the hand: its findings are advisories" in hand.notes
    t.ev(CameraPicture, camera="overhead", condition="too dark", usable=True, reliable=False, detail="over")
    assert_next_hand_findings_are_violations(t)
    t.ev(HandEnded, hand_no=2)
    (clear,) = t.rules.pop_finished()
    assert not any("picture" in note for note in clear.notes)


def test_findings_after_the_camera_was_off_its_calibration_are_advisories_to_the_end_of_that_hand() -> None:
    """The camera was knocked during the hand and recalibrated: vision was paused meanwhile, and an action it missed
    then shows later as the next player acting out of turn. The hand's findings stay advisories to its end, naming
    the move; the next hand's are violations again. A shift within the tolerance changes nothing."""
    t = Table()
    t.ev(CameraMoved, camera="overhead", shift_mm=2.0)  # within the tolerance: no move
    t.start()
    t.ev(CameraMoved, camera="overhead", shift_mm=12.0)
    t.ev(CameraRecalibrated, camera="overhead", error_mm=0.6, markers=6)
    t.chips(2, 50, prior=50)  # the small blind completes while seat 1 is to act (its call unseen, say)
    (out_of_turn,) = [v for v in t.found if v.rule_id == "TDA-39"]
    assert out_of_turn.severity is Severity.ADVISORY
    assert "camera overhead moved off its calibration earlier in the hand" in out_of_turn.observed
    t.chips(1, 100)
    t.ev(Tap, seat=3)
    t.ev(HandEnded, hand_no=1)
    (hand,) = t.rules.pop_finished()
    assert "camera overhead moved off its calibration during the hand: its findings are advisories" in hand.notes
    assert_next_hand_findings_are_violations(t)


def assert_next_hand_findings_are_violations(t: Table) -> None:
    """Hand 2, dealt and played to the showdown with no burn before the turn: its TDA-25 is a VIOLATION."""
    t.found = []
    t.ev(HandStarted, hand_no=2, button=1, seats=(1, 2, 3), stacks=t.stacks)
    for seat in (2, 3, 1, 2, 3, 1):
        t.ev(CardDealt, seat=seat)
    play_to_showdown(t, turn_burns=0)
    assert [(v.rule_id, v.severity) for v in t.found] == [("TDA-25", Severity.VIOLATION)]


def test_findings_on_betting_that_a_camera_alone_guessed_are_advisories_and_the_rest_stand() -> None:
    """No reader counts the chips: seat 1's call shows no chips from above (they landed on nothing the camera
    could tell apart), so it is read as a call and the betting from then on is a guess. What rests on the
    betting (the premature flop, an action out of turn) goes out as an advisory saying so; a missing burn does
    not rest on it and stays a violation."""
    t = Table()
    t.start()
    t.chips(1, 0, source="vision")  # a call of 100 seen as no chips
    t.chips(2, 50, prior=50, source="vision")  # the small blind completes: seen as it is
    t.board(*FLOP)  # no burn, and the big blind has not acted: premature (on a guess) and a missing burn
    t.ev(Tap, seat=3)
    t.ev(Tap, seat=3)  # seat 3 taps again on the flop, before seat 2: out of turn (on a guess)
    found = {v.rule_id: v for v in t.found}
    assert found["TDA-57"].severity is Severity.ADVISORY and found["TDA-39"].severity is Severity.ADVISORY
    assert "Doubted: seat 1's bet was a guess (0 in chips seen from above with 100 to call" in found["TDA-39"].observed
    assert found["TDA-26B"].severity is Severity.VIOLATION
    t.ev(HandEnded, hand_no=1)
    (hand,) = t.rules.pop_finished()
    assert (hand.actions[0].seat, hand.actions[0].kind) == (1, "cc")  # read as the call it was
    assert any("the betting from then on is an estimate" in note for note in hand.notes)


def test_chips_a_camera_alone_saw_as_they_are_leave_the_findings_violations() -> None:
    t = Table()
    t.start()
    t.chips(1, 100, source="vision")  # the call, seen whole
    t.chips(2, 50, prior=50, source="vision")
    t.burn()
    t.board(*FLOP)  # the big blind has not acted
    assert [(v.rule_id, v.severity) for v in t.found] == [("TDA-57", Severity.VIOLATION)]


@pytest.mark.parametrize(("source", "expected"), [("vision", []), ("scene", ["TDA-27A"])])
def test_a_payment_a_camera_alone_saw_is_not_weighed_against_the_declaration(source: str, expected: list[str]) -> None:
    """From above the camera counts column tops and the chips already in front: paying a declared raise, what it
    saw says nothing of what was paid. Counted (RFID, fused), a payment over the declaration is change due."""
    t = Table()
    t.start()
    t.ev(Declaration, seat=1, word="raise", amount=300)
    t.chips(1, 400, source=source)
    assert t.ids() == expected


def test_a_motion_out_of_turn_that_showed_a_camera_alone_no_chips_is_an_advisory() -> None:
    """An arm over the line with no chips seen, from a seat not to act: a tap, a reach, or chips hidden; the
    finding says it may be the camera's error, and the betting from there on is a guess."""
    t = Table()
    t.start()
    t.chips(3, 0, source="vision")  # seat 1 is to act
    (finding,) = t.found
    assert (finding.rule_id, finding.severity) == ("TDA-39", Severity.ADVISORY)
    assert "showed the camera no chips" in finding.observed


def test_a_flush_is_five_of_a_suit_and_in_omaha_two_from_the_hand_with_three_from_the_board() -> None:
    board = ("3c", "4c", "Tc", "Ts", "6s")
    assert flush_in(("Ac", "Kc"), board) and not flush_in(("As", "Kc"), board)
    assert flush_in(("Ac", "Kc", "Qd", "Jd"), board)
    assert not flush_in(("Ac", "Qd", "Jd", "2h"), ("3c", "4c", "Tc", "9c", "6s"))  # one club in the hand

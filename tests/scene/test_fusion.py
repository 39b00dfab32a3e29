"""Fusion of camera and RFID reports: pairing within the window, single-sensor fallbacks, disagreements."""

from __future__ import annotations

import dataclasses

import pytest

from tablewatch.devices.ledger import ChipLedger
from tablewatch.devices.registry import TagRegistry
from tablewatch.events import (
    PICTURE_FROZEN,
    BetMotion,
    ButtonSeen,
    CameraMoved,
    CameraPicture,
    CameraRecalibrated,
    CardsMucked,
    Chips,
    ChipsLeftTable,
    ChipsMoved,
    ChipsPulledBack,
    Declaration,
    DeviceStatus,
    Event,
    HandInZone,
    PotPushed,
    RfidInventory,
    Severity,
    StackObscured,
    Tap,
    UnknownChip,
    Violation,
)
from tablewatch.scene.fusion import SceneFusion, rfid_move_as_event


def camera_bet(ts: float, value_chips: dict[int, int], motions: int = 1) -> BetMotion:
    return BetMotion(ts=ts, table="T1", source="vision", seat=3, chips=Chips.of(value_chips), motions=motions,
                     motion_times=tuple(ts - 0.1 * i for i in range(motions)))


def rfid_move(ts: float, src: str, dst: str, chips: dict[int, int]) -> ChipsMoved:
    return ChipsMoved(ts=ts, table="T1", source="rfid", src=src, dst=dst, chips=Chips.of(chips))


@pytest.mark.parametrize(
    ("src", "dst", "kind"),
    [("seat3.stack", "seat3.bet", BetMotion), ("seat3.bet", "seat3.stack", ChipsPulledBack),
     ("pot", "seat3.stack", PotPushed), ("seat2.stack", "seat3.bet", type(None)), ("tray", "pot", type(None))],
)
def test_rfid_moves_translate_to_table_actions(src: str, dst: str, kind: type) -> None:
    assert isinstance(rfid_move_as_event(rfid_move(1.0, src, dst, {100: 2})), kind)


def test_camera_motions_and_rfid_chips_make_one_bet() -> None:
    fusion = SceneFusion(window=0.5)
    assert fusion.feed(camera_bet(10.0, {100: 5}, motions=2)) == []
    out = fusion.feed(rfid_move(10.2, "seat3.stack", "seat3.bet", {100: 5}))
    assert [e.kind for e in out] == ["ChipsMoved", "BetMotion"]
    bet = out[1]
    assert isinstance(bet, BetMotion)
    assert (bet.source, bet.motions, bet.chips.value) == ("scene", 2, 500)


def test_rfid_value_wins_and_disagreement_is_reported() -> None:
    fusion = SceneFusion(window=0.5)
    fusion.feed(rfid_move(10.0, "seat3.stack", "seat3.bet", {500: 1, 100: 2}))
    assert fusion.feed(camera_bet(10.1, {100: 6})) == []  # values differ: wait for more RFID moves
    bet, finding = fusion.flush(10.6)
    assert isinstance(bet, BetMotion) and bet.chips.as_dict() == {100: 2, 500: 1}
    assert isinstance(finding, Violation) and finding.rule_id == "SYS-SENSORS" and "600" in finding.observed


def test_a_column_seen_from_above_by_its_top_chip_is_no_disagreement() -> None:
    """Two 500s in one column: the camera sees one, RFID counts both; the count stands and nothing is said."""
    fusion = SceneFusion(window=0.5)
    fusion.feed(rfid_move(10.0, "seat3.stack", "seat3.bet", {500: 2}))
    fusion.feed(camera_bet(10.1, {500: 1}))
    out = fusion.flush(10.6)
    assert [e.chips.value for e in out if isinstance(e, BetMotion)] == [1000]
    assert not [e for e in out if isinstance(e, Violation)]


def play_bet(fusion: SceneFusion, ts: float, seen: dict[int, int], counted: dict[int, int]) -> list[Event]:
    """One bet of seat 3 the camera saw as ``seen`` and RFID counted as ``counted``, gathered into the pot as the
    street ends: what fusion gives out."""
    out = fusion.feed(rfid_move(ts, "seat3.stack", "seat3.bet", counted)) + fusion.feed(camera_bet(ts + 0.1, seen))
    return out + fusion.flush(ts + 1.0) + fusion.feed(rfid_move(ts + 2.0, "seat3.bet", "pot", counted))


def read_bet(fusion: SceneFusion, ts: float, seen: dict[int, int], counted: dict[int, int]) -> list[Violation]:
    """The findings one bet raised (``play_bet``)."""
    return [e for e in play_bet(fusion, ts, seen, counted) if isinstance(e, Violation)]


@pytest.mark.parametrize(
    ("seen", "counted"),
    [({2500: 1, 500: 1}, {2500: 1}),  # a lone 2500 whose dark print the camera also read as a black 500
     ({2500: 1, 500: 2}, {2500: 1, 500: 1}),  # ... beside a real 500: one 500 too many
     ({2500: 2, 500: 2}, {2500: 1, 500: 1}),  # the chips read again as they settled
     ({5000: 2, 500: 1}, {5000: 1, 500: 2}),  # a 500 read as a 5000: as many chips as RFID counted
     ({125: 1, 500: 2}, {125: 4, 500: 1})],  # a 125 read as a 500, the other 125s hidden in a column
)
def test_a_clean_bet_the_camera_misreads_raises_nothing(seen: dict[int, int], counted: dict[int, int]) -> None:
    """The 50-hand bench's clean hands: each raised SYS-SENSORS before; the RFID count still wins."""
    out = play_bet(SceneFusion(), 10.0, seen, counted)
    assert [e.chips.as_dict() for e in out if isinstance(e, BetMotion)] == [counted]
    assert not [e for e in out if isinstance(e, Violation)]


def test_one_chip_over_read_after_read_is_still_the_cameras_error() -> None:
    """A seat opening with a lone 2500 bet after bet, the camera reading its print as a 500 each time."""
    fusion = SceneFusion()
    assert not any(read_bet(fusion, 10.0 * k, {2500: 1, 500: 1}, {2500: 1}) for k in range(1, 11))


def test_a_seat_missing_tags_bet_after_bet_is_one_finding_until_it_reads_right() -> None:
    """Two 500s RFID does not count in every bet of the seat (untagged chips, or its antenna missing their tags):
    found on the first bet, then quiet while it lasts; after a bet read right, found again."""
    fusion = SceneFusion()
    missing, right = ({2500: 1, 500: 2}, {2500: 1}), ({2500: 1, 500: 2}, {2500: 1, 500: 2})
    reads = [missing] * 3 + [right] + [missing] * 2
    findings = [read_bet(fusion, 10.0 * k, *read) for k, read in enumerate(reads, start=1)]
    assert [len(f) for f in findings] == [1, 0, 0, 0, 1, 0]
    first = findings[0][0]
    assert (first.rule_id, first.seat, first.severity) == ("SYS-SENSORS", 3, Severity.SYSTEM)
    assert "camera read 3500, RFID counted 2500" in first.observed and "(2 × 500)" in first.observed


def test_chips_already_in_front_the_camera_reads_again_are_counted() -> None:
    """The small blind's 500 lies in front when a lone 2500 raises: the camera read the zone, the 500 nudged and the
    chips again as they settled (50-hand bench, hand 18); RFID counts the 500 there. A chip beyond both is not."""
    fusion = SceneFusion()
    fusion.feed(rfid_move(8.0, "seat3.stack", "seat3.bet", {500: 1}))
    assert not read_bet(fusion, 10.0, {2500: 2, 500: 2}, {2500: 1})
    fusion = SceneFusion()
    fusion.feed(rfid_move(8.0, "seat3.stack", "seat3.bet", {500: 1}))
    assert [v.rule_id for v in read_bet(fusion, 10.0, {2500: 1, 500: 1, 100: 2}, {2500: 1})] == ["SYS-SENSORS"]


def test_chips_well_beyond_the_cameras_error_are_found_at_once() -> None:
    """Three chips RFID did not count, two of them 100s: no misread of the chips it counted makes that."""
    fusion = SceneFusion()
    [finding] = read_bet(fusion, 10.0, {2500: 1, 100: 2, 25: 1}, {2500: 1})
    assert "(1 × 25, 2 × 100)" in finding.observed
    assert not read_bet(SceneFusion(), 10.0, {2500: 1, 100: 1, 25: 1}, {2500: 1})  # one of each colour: its error


def test_lone_report_is_released_after_the_window() -> None:
    fusion = SceneFusion(window=0.5)
    assert fusion.feed(camera_bet(10.0, {100: 3})) == []
    assert fusion.feed(ButtonSeen(ts=9.9, table="T1", source="vision", seat=4)) != []  # (before it: at once)
    assert fusion.feed(ButtonSeen(ts=10.3, table="T1", source="vision", seat=4)) == []  # waits behind it
    out = fusion.feed(ButtonSeen(ts=10.6, table="T1", source="vision", seat=5))
    assert [(e.kind, e.ts) for e in out] == [("BetMotion", 10.0), ("ButtonSeen", 10.3), ("ButtonSeen", 10.6)]


def read(ts: float, antenna: str = "seat3.bet") -> RfidInventory:
    return RfidInventory(ts=ts, table="T1", source="rfid", seat=3, antenna=antenna, uids=())


def test_a_bet_waits_for_its_chips_however_slowly_the_readers_sweep() -> None:
    """On a busy machine a sweep can take seconds. The camera counts a column by its top chip: its bet waits until
    the seat's antennas were read twice since the motion (the first sweep's move is in by then), and what came
    after it waits behind it, so the rules see the raise before the next player's word."""
    fusion = SceneFusion(window=0.7)
    fusion.feed(read(9.5))
    assert fusion.feed(camera_bet(10.0, {100: 1})) == []
    word = Declaration(ts=10.9, table="T1", source="console", seat=4, word="call")
    assert fusion.feed(word) == []  # behind the bet
    assert fusion.flush(11.5) == []  # the window has passed, no sweep since the motion has ended
    # The sweep that read the seat at 10.4 ends at 11.8: the reader gives its move, then its reads.
    out = fusion.feed(rfid_move(11.8, "seat3.stack", "seat3.bet", {100: 3}))
    assert [e.kind for e in out] == ["ChipsMoved"]  # (the camera counted one chip: no agreement yet)
    fusion.feed(read(10.4))
    fusion.feed(read(12.2))
    out = fusion.flush(12.3)
    assert [(e.kind, e.ts) for e in out] == [("BetMotion", 10.0), ("Declaration", 10.9)]
    assert out[0].chips.value == 300


@pytest.mark.parametrize(("readers_down", "released_by"), [(True, 10.8), (False, 14.0)])
def test_a_bet_goes_on_the_cameras_count_when_no_read_is_coming(readers_down: bool, released_by: float) -> None:
    """Readers reported offline: no read is coming, the bet goes after the window. A seat whose reads stopped
    otherwise: after ``read_wait``."""
    fusion = SceneFusion(window=0.7, read_wait=4.0)
    fusion.feed(read(9.5))
    if readers_down:
        fusion.feed(DeviceStatus(ts=9.8, table="T1", source="rfid", device="reader 1", online=False))
    fusion.feed(camera_bet(10.0, {100: 1}))
    assert fusion.flush(released_by - 0.2) == []
    assert [e.chips.value for e in fusion.flush(released_by)] == [100]


def test_without_readers_camera_reports_pass_at_once() -> None:
    fusion = SceneFusion(expect_rfid=False)
    assert [e.kind for e in fusion.feed(camera_bet(1.0, {25: 4}))] == ["BetMotion"]


def test_without_readers_a_chipless_push_where_the_button_moves_is_the_dealer_moving_the_button() -> None:
    """No chips seen, no reader to count them: the dealer's hand turning back at a stack may be the button picked
    up from that seat's spot, or set down at the next; the button seen moving says which."""
    def push(ts: float, seat: int) -> PotPushed:
        return PotPushed(ts=ts, table="T1", source="vision", seat=seat)

    def button(ts: float, seat: int) -> ButtonSeen:
        return ButtonSeen(ts=ts, table="T1", source="vision", seat=seat)

    fusion = SceneFusion(expect_rfid=False)
    fusion.feed(button(1.0, 4))
    won = push(10.0, 6)
    assert fusion.feed(won) == []  # held a moment
    assert fusion.feed(push(13.0, 4)) == [won]  # the winner's push goes out; the one at the button's seat waits
    assert fusion.feed(button(13.5, 5)) == [button(13.5, 5)]  # the button left seat 4: that was picking it up
    assert fusion.feed(push(14.0, 5)) == []  # ... and this, setting it down
    assert fusion.flush() == []
    seen = dataclasses.replace(push(20.0, 2), chips=Chips.of({100: 5}))
    assert fusion.feed(seen) == [seen]  # chips seen pushed are a push at once


def test_lone_rfid_move_stays_a_ledger_move_when_a_camera_watches() -> None:
    fusion = SceneFusion(window=0.5)
    assert [e.kind for e in fusion.feed(rfid_move(1.0, "seat3.stack", "seat3.bet", {25: 2}))] == ["ChipsMoved"]
    assert fusion.flush() == []  # a blind posted: no bet invented


def test_without_camera_rfid_moves_stand_for_the_action() -> None:
    fusion = SceneFusion(expect_camera=False)
    out = fusion.feed(rfid_move(1.0, "pot", "seat2.stack", {100: 4}))
    assert [e.kind for e in out] == ["ChipsMoved", "PotPushed"]
    assert out[1].seat == 2 and out[1].value == 400


def test_without_camera_a_bet_from_rfid_knows_the_chips_already_in_front() -> None:
    """The small blind's chip lies in front when a single 2500 chip joins it: a raise to 3000, not a lone chip."""
    fusion = SceneFusion(expect_camera=False)
    blind = fusion.feed(rfid_move(1.0, "seat3.stack", "seat3.bet", {500: 1}))[1]
    raised = fusion.feed(rfid_move(5.0, "seat3.stack", "seat3.bet", {2500: 1}))[1]
    assert isinstance(blind, BetMotion) and isinstance(raised, BetMotion)
    assert blind.prior == Chips() and raised.prior == Chips.of({500: 1})
    fusion.feed(rfid_move(8.0, "seat3.bet", "pot", {500: 1, 2500: 1}))  # gathered: nothing in front
    next_bet = fusion.feed(rfid_move(12.0, "seat3.stack", "seat3.bet", {500: 2}))[1]
    assert isinstance(next_bet, BetMotion) and next_bet.prior == Chips()


def _bets_counted(fusion: SceneFusion, ts: float) -> list[tuple[int | None, int]]:
    """The bets fusion gives for seat 3's chips the readers alone count going forward at ``ts``."""
    out = fusion.feed(rfid_move(ts, "seat3.stack", "seat3.bet", {100: 2})) + fusion.flush(ts + 2.0)
    return [(e.seat, e.chips.value) for e in out if isinstance(e, BetMotion)]


def test_while_the_camera_is_off_its_calibration_offline_or_stalled_rfid_moves_stand_for_the_action() -> None:
    """Vision is paused from a camera's move until its recalibration, and while it is offline or its stream stalls
    (the same picture delivered again): chips only the readers count going forward are the bet then, as at a table
    without a camera (else the action is lost, and the next player's reads as out of turn). Once the camera sees
    again, a camera report is waited for again."""
    fusion = SceneFusion(window=0.5, cameras=frozenset({"overhead"}))
    assert _bets_counted(fusion, 1.0) == []  # a chip tidied in front: no action without the camera's motion
    fusion.feed(CameraMoved(ts=4.0, table="T1", source="vision", camera="overhead", shift_mm=12.0))
    assert _bets_counted(fusion, 5.0) == [(3, 200)]
    fusion.feed(CameraRecalibrated(ts=8.0, table="T1", source="vision", camera="overhead", error_mm=0.6, markers=6))
    assert _bets_counted(fusion, 9.0) == []
    fusion.feed(DeviceStatus(ts=12.0, table="T1", source="vision", device="overhead", online=False))
    assert _bets_counted(fusion, 13.0) == [(3, 200)]
    fusion.feed(DeviceStatus(ts=16.0, table="T1", source="vision", device="overhead", online=True))
    assert _bets_counted(fusion, 17.0) == []
    frozen = CameraPicture(ts=20.0, table="T1", source="vision", camera="overhead", condition=PICTURE_FROZEN,
                           usable=False, reliable=False)
    fusion.feed(frozen)  # its stream stalled
    assert _bets_counted(fusion, 20.2) == [(3, 200)]
    fusion.feed(dataclasses.replace(frozen, ts=23.0, usable=True))
    assert _bets_counted(fusion, 24.0) == []


def test_one_camera_of_two_moved_leaves_the_other_reporting() -> None:
    fusion = SceneFusion(window=0.5, cameras=frozenset({"overhead", "side"}))
    fusion.feed(CameraMoved(ts=4.0, table="T1", source="vision", camera="overhead", shift_mm=12.0))
    assert _bets_counted(fusion, 5.0) == []
    fusion.feed(DeviceStatus(ts=6.0, table="T1", source="rfid", device="rfid-1", online=False))  # not a camera
    fusion.feed(DeviceStatus(ts=7.0, table="T1", source="vision", device="side", online=False))
    assert _bets_counted(fusion, 8.0) == [(3, 200)]


def test_flush_releases_everything_in_time_order() -> None:
    fusion = SceneFusion(window=5.0)
    fusion.feed(camera_bet(2.0, {100: 1}))
    fusion.feed(PotPushed(ts=1.0, table="T1", source="vision", seat=1, value=100))
    assert [e.ts for e in fusion.flush()] == [1.0, 2.0]


def test_a_motion_read_over_two_sweeps_adds_up_before_pairing() -> None:
    fusion = SceneFusion(window=0.5)
    assert [e.kind for e in fusion.feed(rfid_move(10.0, "seat3.stack", "seat3.bet", {500: 2}))] == ["ChipsMoved"]
    assert fusion.feed(camera_bet(10.2, {500: 4}, motions=2)) == []  # 1,000 counted, 2,000 seen: wait
    out = fusion.feed(rfid_move(10.3, "seat3.stack", "seat3.bet", {500: 2}))
    assert [e.kind for e in out] == ["ChipsMoved", "BetMotion"]
    assert out[1].chips.value == 2000 and out[1].motions == 2


def test_a_two_motion_bet_claims_the_rfid_moves_read_while_it_went_on() -> None:
    fusion = SceneFusion(window=0.4)
    fusion.feed(rfid_move(29.25, "seat3.stack", "seat3.bet", {500: 2}))  # first motion, read alone
    fusion.feed(ButtonSeen(ts=29.8, table="T1", source="vision", seat=5))  # the window passes
    bet = BetMotion(ts=30.1, table="T1", source="vision", seat=3, chips=Chips.of({500: 4}), motions=2,
                    motion_times=(29.05, 30.1))
    assert fusion.feed(bet) == []
    out = fusion.feed(rfid_move(30.25, "seat3.stack", "seat3.bet", {500: 2}))
    assert [e.kind for e in out] == ["ChipsMoved", "BetMotion"] and out[1].chips.value == 2000


def test_chips_leaving_seen_by_camera_and_ledger_are_one_report() -> None:
    fusion = SceneFusion()
    seen = ChipsLeftTable(ts=5.0, table="T1", source="sim", seat=2, zone="seat2.stack", chips=Chips.of({500: 1}))
    counted = ChipsLeftTable(ts=6.2, table="T1", source="rfid", seat=2, zone="seat2.stack", chips=Chips.of({500: 1}))
    later = ChipsLeftTable(ts=30.0, table="T1", source="rfid", seat=2, zone="seat2.stack", chips=Chips.of({100: 1}))
    assert fusion.feed(seen) == [seen]
    assert fusion.feed(counted) == []
    assert fusion.feed(later) == [later]


def test_a_push_read_over_several_sweeps_before_the_camera_reports_it_is_counted_whole() -> None:
    fusion = SceneFusion(window=0.3, lookback=2.0)
    for ts in (10.0, 10.5, 11.0):  # the dealer's push, read as it goes
        fusion.feed(rfid_move(ts, "pot", "seat1.stack", {500: 2}))
    fusion.feed(Tap(ts=11.6, table="T1", source="vision", seat=5))
    pushed = PotPushed(ts=11.7, table="T1", source="vision", seat=1, value=3000)
    out = fusion.feed(pushed) + fusion.flush(12.0)  # (behind the tap, which waits its window for RFID's chips)
    assert [e.kind for e in out] == ["Tap", "PotPushed"]
    assert out[1].value == 3000 and out[1].source == "scene"


def test_an_old_unpaired_move_is_not_added_to_a_new_one() -> None:
    fusion = SceneFusion(window=0.3, lookback=2.0)
    fusion.feed(rfid_move(1.0, "pot", "seat1.stack", {500: 1}))  # chips tidied long before
    fusion.feed(rfid_move(20.0, "pot", "seat1.stack", {500: 2}))
    fusion.feed(Tap(ts=20.5, table="T1", source="vision", seat=5))
    out = fusion.feed(PotPushed(ts=20.6, table="T1", source="vision", seat=1, value=1000)) + fusion.flush(21.0)
    pushes = [e for e in out if isinstance(e, PotPushed)]
    assert [e.value for e in pushes] == [1000]


def test_a_bet_with_a_foreign_chip_keeps_the_chips_as_seen() -> None:
    fusion = SceneFusion(window=0.3)
    fusion.feed(UnknownChip(ts=9.9, table="T1", source="rfid", seat=3, uid="E0FFFFFFFFFFFF01", zone="seat3.bet"))
    fusion.feed(rfid_move(10.0, "seat3.stack", "seat3.bet", {2500: 1}))
    fusion.feed(camera_bet(10.1, {2500: 1, 500: 1}))
    out = fusion.flush(10.5)
    assert [e.kind for e in out] == ["BetMotion"] and out[0].chips.value == 3000


def test_a_motion_that_left_no_chips_anywhere_is_a_tap() -> None:
    fusion = SceneFusion()
    assert fusion.feed(camera_bet(5.0, {})) == []
    assert fusion.flush(5.4) == []  # RFID sweeps every 0.5 s: a full sweep is awaited before calling it a tap
    out = fusion.flush(5.8)
    assert [(e.kind, e.seat) for e in out] == [("Tap", 3)]


def test_the_hand_of_a_motion_read_as_a_tap_is_withdrawn_and_a_bets_hand_goes_out_with_the_bet() -> None:
    """The camera reports a hand going into the seat's bet zone with each motion. A motion that moved no chips is a
    tap, a check: its hand over the line was no hand in a bet, and goes nowhere. A bet's hand goes out before it."""
    def hand(ts: float) -> HandInZone:
        return HandInZone(ts=ts, table="T1", source="vision", seat=3, actor="seat3", zone="seat3.bet")

    fusion = SceneFusion()
    assert fusion.feed(hand(4.8)) == []
    assert fusion.feed(camera_bet(5.0, {})) == []
    assert [e.kind for e in fusion.flush(5.8)] == ["Tap"]
    assert fusion.feed(hand(9.8)) == []
    fusion.feed(camera_bet(10.0, {}))
    out = fusion.feed(rfid_move(10.3, "seat3.stack", "seat3.bet", {500: 2})) + fusion.flush(10.8)
    assert [(e.kind, e.ts) for e in out] == [("ChipsMoved", 10.3), ("HandInZone", 9.8), ("BetMotion", 10.0)]
    other = HandInZone(ts=20.0, table="T1", source="vision", seat=3, actor="seat3", zone="seat4.stack")
    assert fusion.feed(other) == [other]  # a hand in another seat's place is no motion of this seat's


def test_a_reach_that_took_chips_off_the_stack_to_nowhere_is_no_tap() -> None:
    """A hand over the line with no chips seen in the bet, while the readers miss a chip off that seat's stack
    that lands nowhere: a chip taken away (the readers report it gone, TDA-49), not a check. The same reach with
    every chip still read is a tap."""
    registry = TagRegistry.generate({500: 10}, chip_set="t", seed=3)
    chips = registry.uids_of(500)[:4]
    for taken, expected in ((chips[:3], []), (chips, [("Tap", 3)])):
        ledger = ChipLedger(registry, table="T1")
        ledger.apply([RfidInventory(ts=4.0, table="T1", source="rfid", antenna="seat3.stack", uids=tuple(chips))])
        fusion = SceneFusion(chips_lifted=lambda zone, since, ledger=ledger: ledger.lifted(zone, since=since))
        assert fusion.feed(camera_bet(5.0, {})) == []
        ledger.apply([RfidInventory(ts=5.25, table="T1", source="rfid", antenna="seat3.stack", uids=tuple(taken))])
        assert [(e.kind, e.seat) for e in fusion.flush(5.8)] == expected


def test_chips_the_camera_missed_and_rfid_reads_a_sweep_later_are_a_call_not_a_tap() -> None:
    # The demo in vision mode: a hand over seat 3's line with no chips seen at 13.6 s, and RFID reading the
    # two 500s of the call on its next sweep, 0.4 s later (beyond the 0.3 s pairing window it once had).
    fusion = SceneFusion()
    assert fusion.feed(camera_bet(13.6, {})) == []
    out = fusion.feed(rfid_move(14.0, "seat3.stack", "seat3.bet", {500: 2}))
    out += fusion.flush(14.5)
    bets = [e for e in out if e.kind == "BetMotion"]
    assert not [e for e in out if e.kind == "Tap"]
    assert len(bets) == 1 and bets[0].chips.value == 1000 and bets[0].source == "scene"


def test_a_tap_the_camera_saw_while_the_readers_counted_a_chip_going_forward_is_a_call() -> None:
    """A call of one chip set on the small blind's chip of the same colour shows the camera nothing new, and a
    hand that seemed to rest at the line (a frame dropped and the one before delivered twice) reads as a tap. The
    chip the readers count going into that seat's bet a sweep later makes it the call; a tap with nothing counted
    stays a tap (a check), a window later."""
    fusion = SceneFusion()
    assert fusion.feed(Tap(ts=217.07, table="T1", source="vision", seat=3)) == []
    out = fusion.feed(rfid_move(217.2, "seat3.stack", "seat3.bet", {500: 1})) + fusion.flush(218.0)
    assert [e.kind for e in out] == ["ChipsMoved", "BetMotion"]
    assert (out[1].seat, out[1].chips.value, out[1].motions, out[1].ts) == (3, 500, 1, 217.07)
    assert fusion.feed(Tap(ts=231.47, table="T1", source="vision", seat=3)) == []
    assert [(e.kind, e.seat, e.ts) for e in fusion.flush(232.2)] == [("Tap", 3, 231.47)]
    alone = SceneFusion(expect_rfid=False)  # no readers to count chips: the camera's tap is the check
    tap = Tap(ts=5.0, table="T1", source="vision", seat=3)
    assert alone.feed(tap) == [tap]


def test_rfid_reads_between_motions_give_the_value_of_each_motion() -> None:
    fusion = SceneFusion(window=0.3, lookback=2.0)
    fusion.feed(rfid_move(29.25, "seat3.stack", "seat3.bet", {500: 2}))
    fusion.feed(Tap(ts=29.8, table="T1", source="vision", seat=5))
    bet = BetMotion(ts=30.0, table="T1", source="vision", seat=3, chips=Chips(), motions=2, motion_times=(28.9, 30.0))
    fusion.feed(bet)
    out = fusion.feed(rfid_move(30.25, "seat3.stack", "seat3.bet", {500: 2})) + fusion.flush(30.5)
    merged = next(e for e in out if isinstance(e, BetMotion))
    assert merged.chips.value == 2000 and merged.motion_values == (1000, 1000)


def test_a_string_bet_whose_first_motion_the_camera_valued_waits_for_the_read_of_the_second() -> None:
    # The demo in vision mode, hand 1: seat 3 bets 2 × 500 at 28.9 s and 2 × 500 more at 30.0 s; the camera
    # valued 1000 (what it saw settle), RFID read the motions at 29.5 and 30.5. Pairing at the first read,
    # whose value agreed, lost the second motion and with it the string bet (TDA-29).
    fusion = SceneFusion()
    fusion.feed(rfid_move(29.5, "seat3.stack", "seat3.bet", {500: 2}))
    bet = BetMotion(ts=30.0, table="T1", source="vision", seat=3, chips=Chips.of({500: 2}), motions=2,
                    motion_times=(28.933, 30.0))
    assert fusion.feed(bet) == []
    out = fusion.feed(rfid_move(30.5, "seat3.stack", "seat3.bet", {500: 2}))
    merged = [e for e in out if isinstance(e, BetMotion)]
    assert len(merged) == 1 and merged[0].chips.value == 2000 and merged[0].motion_values == (1000, 1000)


def test_a_string_bet_whose_second_motion_rfid_never_reads_goes_out_a_window_after_that_motion() -> None:
    fusion = SceneFusion()
    fusion.feed(rfid_move(29.5, "seat3.stack", "seat3.bet", {500: 2}))
    fusion.feed(BetMotion(ts=30.0, table="T1", source="vision", seat=3, chips=Chips.of({500: 2}), motions=2,
                          motion_times=(28.933, 30.0)))
    assert fusion.flush(30.6) == []
    merged = [e for e in fusion.flush(30.75) if isinstance(e, BetMotion)]
    assert len(merged) == 1 and merged[0].chips.value == 1000 and merged[0].motions == 2


def test_a_misread_bet_waits_a_sweep_for_rfid_and_the_count_wins() -> None:
    # The demo in vision mode, hand 4: the camera read a raise as 3100, RFID counted 3000 on the sweep 0.47 s
    # after the motion. Released before that read, the camera's 3100 stood and the call was an undercall.
    fusion = SceneFusion()
    assert fusion.feed(camera_bet(106.983, {2500: 1, 500: 1, 100: 1})) == []
    out = fusion.flush(107.4) + fusion.feed(rfid_move(107.45, "seat3.stack", "seat3.bet", {2500: 1, 500: 1}))
    out += fusion.flush(107.7)
    bets = [e for e in out if isinstance(e, BetMotion)]
    assert [b.chips.value for b in bets] == [3000]
    assert not [v for v in out if isinstance(v, Violation)]  # one chip over once: the camera's own error


def test_a_push_of_a_pot_holding_a_foreign_chip_keeps_the_value_as_seen() -> None:
    fusion = SceneFusion(window=0.3)
    fusion.feed(UnknownChip(ts=40.0, table="T1", source="rfid", seat=None, uid="E0FFFFFFFFFFFF02", zone="pot"))
    fusion.feed(rfid_move(70.0, "pot", "seat5.stack", {500: 98}))
    out = fusion.feed(PotPushed(ts=70.1, table="T1", source="vision", seat=5, value=49500))
    out += fusion.flush(70.5)
    pushes = [e for e in out if isinstance(e, PotPushed)]
    assert [p.value for p in pushes] == [49500]


def test_a_push_the_camera_missed_stands_on_the_rfid_count_and_its_late_twin_is_dropped() -> None:
    fusion = SceneFusion(window=0.7, push_wait=1.0)
    assert [e.kind for e in fusion.feed(rfid_move(40.0, "pot", "seat4.stack", {500: 2}))] == ["ChipsMoved"]
    fusion.feed(rfid_move(40.5, "pot", "seat4.stack", {500: 1}))  # the push, read over two sweeps
    assert fusion.flush(41.4) == []  # still waiting for the camera's twin
    out = fusion.flush(41.5)
    assert [(e.kind, e.seat, e.value, e.source) for e in out] == [("PotPushed", 4, 1500, "rfid")]
    late = PotPushed(ts=41.6, table="T1", source="vision", seat=4)
    assert fusion.feed(late) == [] and fusion.flush() == []


def test_a_bet_with_a_foreign_chip_is_the_rfid_count_and_the_chip_the_camera_saw_beyond_it() -> None:
    fusion = SceneFusion(window=0.3)
    fusion.feed(UnknownChip(ts=9.9, table="T1", source="rfid", seat=3, uid="E0FFFFFFFFFFFF01", zone="seat3.bet"))
    fusion.feed(rfid_move(10.0, "seat3.stack", "seat3.bet", {2500: 2, 500: 1}))
    # from above the camera saw one 2500 (the top of the column), the 500 and the foreign 500, and a 100
    # that is not there
    fusion.feed(camera_bet(10.1, {2500: 1, 500: 2, 100: 1}))
    out = fusion.flush(10.5)
    assert [e.kind for e in out] == ["BetMotion"] and out[0].chips.as_dict() == {2500: 2, 500: 2}


def test_an_obscured_stack_gets_the_value_rfid_counts_out_of_sight() -> None:
    registry = TagRegistry.generate({100: 20, 1000: 10, 5000: 2}, chip_set="t", seed=3)
    ledger = ChipLedger(registry, table="T1")
    stack = [*registry.uids_of(100)[:20], *registry.uids_of(1000)[:6], *registry.uids_of(5000)[:1]]
    ledger.apply([RfidInventory(ts=0.0, table="T1", source="rfid", antenna="seat3.stack", uids=tuple(stack))])
    fusion = SceneFusion(window=0.5, stack_chips=ledger.chips)
    # the camera saw 1,000s there and sees them no more (a 5,000 under them never showed)
    seen = StackObscured(ts=5.0, table="T1", source="vision", seat=3, duration=3.0, denomination=1000)
    (counted,) = fusion.feed(seen)
    assert isinstance(counted, StackObscured) and counted.hidden_value == 6 * 1000 + 5000
    assert fusion.feed(dataclasses.replace(seen, ts=6.0, seat=4)) == [dataclasses.replace(seen, ts=6.0, seat=4)]
    without_readers = SceneFusion(window=0.5)
    assert without_readers.feed(dataclasses.replace(seen, ts=7.0)) == [dataclasses.replace(seen, ts=7.0)]


def test_chips_reported_out_of_sight_that_rfid_counts_none_of_in_the_stack_are_not_there() -> None:
    # a new player sat down with 100s and 1,000s where the last one's 5,000s stood: the camera's watch still
    # looks for 5,000s
    registry = TagRegistry.generate({100: 20, 1000: 10, 5000: 2}, chip_set="t", seed=3)
    ledger = ChipLedger(registry, table="T1")
    stack = [*registry.uids_of(100)[:20], *registry.uids_of(1000)[:6]]
    ledger.apply([RfidInventory(ts=0.0, table="T1", source="rfid", antenna="seat3.stack", uids=tuple(stack))])
    fusion = SceneFusion(window=0.5, stack_chips=ledger.chips)
    seen = StackObscured(ts=5.0, table="T1", source="vision", seat=3, duration=3.0, denomination=5000)
    assert fusion.feed(seen) == []
    assert fusion.feed(dataclasses.replace(seen, denomination=1000)) != []


def test_a_bet_the_camera_gives_to_the_neighbour_is_the_seat_rfid_read_it_at() -> None:
    """The camera took seat 3's arm for seat 4's; the antennas under seat 3 counted the chips: seat 3 bet."""
    fusion = SceneFusion(window=0.5)
    assert fusion.feed(dataclasses.replace(camera_bet(10.0, {100: 5}), seat=4)) == []
    assert [e.kind for e in fusion.feed(rfid_move(10.3, "seat3.stack", "seat3.bet", {100: 5}))] == ["ChipsMoved"]
    (bet,) = fusion.flush(11.0)
    assert isinstance(bet, BetMotion) and (bet.seat, bet.chips.value, bet.source) == (3, 500, "scene")


def test_an_rfid_move_read_before_the_camera_gives_the_bet_to_the_neighbour_claims_it() -> None:
    fusion = SceneFusion(window=0.5)
    fusion.feed(rfid_move(10.0, "seat3.stack", "seat3.bet", {100: 5}))
    assert fusion.feed(dataclasses.replace(camera_bet(10.2, {100: 5}), seat=2)) == []
    out = fusion.flush(12.0)
    assert [(e.kind, e.seat) for e in out] == [("BetMotion", 3)]


def test_two_lone_moves_at_other_seats_leave_the_camera_bet_where_it_was_seen() -> None:
    fusion = SceneFusion(window=0.5)
    fusion.feed(rfid_move(10.0, "seat3.stack", "seat3.bet", {100: 5}))
    fusion.feed(rfid_move(10.1, "seat5.stack", "seat5.bet", {100: 2}))
    fusion.feed(dataclasses.replace(camera_bet(10.2, {100: 5}), seat=4))
    assert [(e.kind, e.seat) for e in fusion.flush(12.0)] == [("BetMotion", 4)]


def test_a_push_gesture_with_no_chips_seen_or_counted_is_no_push() -> None:
    """The dealer reached from the pot to seat 2 to make change: the readers counted nothing from the pot."""
    fusion = SceneFusion(window=0.5)
    assert fusion.feed(PotPushed(ts=10.0, table="T1", source="vision", seat=2)) == []
    fusion.feed(rfid_move(10.8, "seat2.stack", "tray", {2500: 1}))
    assert [e.kind for e in fusion.flush(13.0)] == []
    seen = PotPushed(ts=20.0, table="T1", source="vision", seat=2, value=500, chips=Chips.of({100: 5}))
    fusion.feed(seen)
    assert fusion.flush(23.0) == [seen]  # chips the camera saw pushed still make a push


def test_chips_counted_going_forward_as_the_camera_sees_cards_go_are_a_bet_not_a_fold() -> None:
    """An all-in shoved in over the cards: the camera took the arm over them for a muck and saw no bet; the
    readers counted the stack going into the bet zone."""
    fusion = SceneFusion(window=0.7)
    assert fusion.feed(CardsMucked(ts=899.6, table="T1", source="vision", seat=6)) == []
    assert [e.kind for e in fusion.feed(rfid_move(899.8, "seat6.stack", "seat6.bet", {500: 11, 2500: 4}))] == [
        "ChipsMoved"]
    out = fusion.flush(902.0)
    assert [(e.kind, e.seat, e.chips.value) for e in out] == [("BetMotion", 6, 15500)]


def test_a_muck_with_no_chips_going_forward_is_a_muck_a_window_later() -> None:
    fusion = SceneFusion(window=0.7)
    muck = CardsMucked(ts=10.0, table="T1", source="vision", seat=6)
    assert fusion.feed(muck) == []
    assert fusion.flush(10.5) == []
    assert fusion.flush(10.8) == [muck]


def test_a_foreign_chip_hidden_under_a_column_leaves_the_bet_at_least_the_rfid_count() -> None:
    fusion = SceneFusion(window=0.3)
    fusion.feed(UnknownChip(ts=9.9, table="T1", source="rfid", seat=3, uid="E0FFFFFFFFFFFF01", zone="seat3.bet"))
    fusion.feed(rfid_move(10.0, "seat3.stack", "seat3.bet", {2500: 1, 500: 2, 5000: 2}))
    fusion.feed(camera_bet(10.1, {2500: 1, 500: 2, 5000: 1}))  # the tops only: one 5000 column
    (bet,) = fusion.flush(10.5)
    assert isinstance(bet, BetMotion) and bet.chips.value == 13500

"""Chips on the table (TDA-16A, TDA-49, HOUSE-002-2.4 / ENG-41, unknown chips; EX-35) and the monitor's
own devices (SYS-DEVICE, SYS-CAMERA)."""

from __future__ import annotations

import pytest

from tablewatch.events import (
    CameraMoved,
    CameraPicture,
    Chips,
    ChipsAppeared,
    ChipsLeftTable,
    DeviceStatus,
    Severity,
    StackObscured,
    UnknownChip,
)
from tablewatch.rules.checks.chips import (
    ChipsAppearedCheck,
    ChipsLeftTableCheck,
    StackVisibilityCheck,
    UnknownChipCheck,
)
from tablewatch.rules.checks.system import DeviceHealthCheck
from tablewatch.rules.profiles import RuleProfile, preset
from tests.rules.test_procedures_helpers import TABLE, Script


def obscured(durations: list[float], profile: RuleProfile | None = None, **fields: object) -> list[Severity]:
    s = Script(StackVisibilityCheck(profile or RuleProfile()), **fields)
    for duration in durations:
        s.do(StackObscured, seat=4, hidden_value=25000, duration=duration)
    return [v.severity for v in s.found]


@pytest.mark.parametrize(
    ("durations", "expected"),
    [
        ([2.0, 5.0, 9.0], []),
        ([5.0, 11.0, 20.0], [Severity.ADVISORY]),  # logged once per episode
        ([11.0, 60.0, 121.0, 200.0], [Severity.ADVISORY, Severity.VIOLATION]),  # then alerted once
        ([11.0, 3.0, 12.0], [Severity.ADVISORY, Severity.ADVISORY]),  # visible in between: a new episode
    ],
)
def test_ex_35_tda_16a_stack_obscured_thresholds(durations: list[float], expected: list[Severity]) -> None:
    assert obscured(durations) == expected


def test_tda_16a_threshold_is_a_profile_setting() -> None:
    assert obscured([31.0], RuleProfile(stack_obscured_advisory_s=5, stack_obscured_alert_s=30)) == [
        Severity.VIOLATION]


def test_tda_16a_alerts_at_once_while_a_player_faces_an_all_in_decision() -> None:
    facing = obscured([11.0], phase="river", to_act=2, bets={4: 5000}, stacks={2: 3000, 4: 20000})
    assert facing == [Severity.VIOLATION]


def test_tda_16a_a_player_all_in_has_no_stack_to_hide() -> None:
    # seat 4 pushed its whole stack forward: the camera's watch still misses the big chips it saw there
    assert obscured([11.0, 130.0], phase="river", to_act=2, bets={4: 20000}, stacks={2: 30000, 4: 0},
                    all_in=(4,)) == []


@pytest.mark.parametrize(
    ("profile", "phase", "expected"),
    [
        (RuleProfile(), "flop", (Severity.VIOLATION, "forfeited")),
        (RuleProfile(), "complete", (Severity.VIOLATION, "forfeited")),  # tournament chips never leave unseen
        (preset("house-cash"), "turn", (Severity.VIOLATION, "HOUSE-002-2.4")),
        (preset("house-cash"), "complete", (Severity.ADVISORY, "ends his session")),
    ],
)
def test_tda_49_chips_left_the_table(profile: RuleProfile, phase: str, expected: tuple[Severity, str]) -> None:
    s = Script(ChipsLeftTableCheck(profile), phase=phase)
    (v,) = s.do(ChipsLeftTable, zone="seat3.stack", chips=Chips.of({5000: 2}))
    assert (v.severity, v.seats) == (expected[0], (3,)) and expected[1] in v.ruling and "10000" in v.observed


@pytest.mark.parametrize(("phase", "severity"), [("complete", Severity.ADVISORY), ("idle", Severity.ADVISORY),
                                                 ("flop", Severity.VIOLATION)])
def test_tda_49_a_whole_stack_leaving_between_hands_is_a_player_leaving(phase: str, severity: Severity) -> None:
    """A seat emptied with all its chips between hands: a player leaving or moved (the floor confirms); in a hand
    it is chips carried off."""
    s = Script(ChipsLeftTableCheck(RuleProfile()), phase=phase)
    (v,) = s.do(ChipsLeftTable, zone="seat3.stack", chips=Chips.of({5000: 2}), emptied=True)
    assert v.severity is severity and v.seats == (3,)


def test_tda_49_from_the_camera_names_at_least_the_chips_it_saw_go() -> None:
    """From above a column is one chip top: the camera's count is a floor (RFID's is exact)."""
    s = Script(ChipsLeftTableCheck(RuleProfile()), phase="flop")
    seen = ChipsLeftTable(ts=1.0, table=TABLE, source="vision", seat=3, zone="seat3.stack", chips=Chips.of({1000: 1}))
    counted = ChipsLeftTable(ts=2.0, table=TABLE, source="rfid", seat=3, zone="seat3.stack", chips=Chips.of({1000: 3}))
    assert "at least 1000 in chips" in s.checks[0].observe(s.snapshot, seen)[0].observed
    assert s.checks[0].observe(s.snapshot, counted)[0].observed.startswith("3000 in chips")


@pytest.mark.parametrize(("phase", "severity"), [("turn", Severity.VIOLATION), ("dealing", Severity.VIOLATION),
                                                 ("complete", Severity.ADVISORY), ("idle", Severity.ADVISORY)])
def test_house_002_2_4_chips_appearing(phase: str, severity: Severity) -> None:
    s = Script(ChipsAppearedCheck(RuleProfile()), phase=phase)
    (v,) = s.do(ChipsAppeared, zone="seat6.stack", chips=Chips.of({1000: 5}))
    assert v.rule_id == "HOUSE-002-2.4" and v.severity is severity and v.seats == (6,)


@pytest.mark.parametrize(("phase", "alerted"), [("complete", False), ("preflop", True)])
def test_a_player_sitting_down_with_a_stack_is_no_chips_added(phase: str, alerted: bool) -> None:
    # an empty seat's stack filling between hands is a buy-in or a player moved in; during a hand it is chips added
    s = Script(ChipsAppearedCheck(RuleProfile()), phase=phase)
    seated = s.do(ChipsAppeared, zone="seat6.stack", chips=Chips.of({1000: 5}), onto_empty=True)
    assert [v.rule_id for v in seated] == ["HOUSE-002-2.4"] * alerted
    assert s.do(ChipsAppeared, zone="pot", chips=Chips.of({1000: 1}), onto_empty=True)  # not a player's stack


def test_unknown_chip_is_a_possible_counterfeit() -> None:
    s = Script(UnknownChipCheck(RuleProfile()))
    (v,) = s.do(UnknownChip, uid="E004015012345678", zone="seat2.bet")
    assert v.seats == (2,) and "E004015012345678" in v.observed and v.severity is Severity.VIOLATION
    # the same chip read as it moves on, and in the next hand: the same finding, not a new alert
    assert s.do(UnknownChip, uid="E004015012345678", zone="pot") == []
    s.start(hand_no=2)
    assert s.do(UnknownChip, uid="E004015012345678", zone="seat5.stack") == []


def test_device_offline_and_back_are_system_findings() -> None:
    s = Script(DeviceHealthCheck(RuleProfile()))
    off = s.do(DeviceStatus, device="rfid-1", online=False, detail="no reply")
    again = s.do(DeviceStatus, device="rfid-1", online=False)
    back = s.do(DeviceStatus, dt=30.0, device="rfid-1", online=True)
    assert [v.severity for v in off + back] == [Severity.SYSTEM, Severity.SYSTEM] and again == []
    assert "no reply" in off[0].observed and "31 s" in back[0].observed
    assert s.do(DeviceStatus, device="cam-2", online=True) == []  # never reported offline: nothing to say


@pytest.mark.parametrize(("shift", "found"), [(2.0, False), (12.5, True)])
def test_camera_moved(shift: float, found: bool) -> None:
    s = Script(DeviceHealthCheck(RuleProfile()))
    out = s.do(CameraMoved, camera="overhead", shift_mm=shift)
    assert bool(out) is found and all(v.rule_id == "SYS-CAMERA" and v.severity is Severity.SYSTEM for v in out)


def test_a_camera_picture_that_cannot_be_read_is_a_system_finding_named_by_its_condition() -> None:
    s = Script(DeviceHealthCheck(RuleProfile()))
    dark = s.do(CameraPicture, camera="overhead", condition="too dark", usable=False, reliable=False,
                detail="paper reads 31")
    back = s.do(CameraPicture, dt=40.0, camera="overhead", condition="too dark", usable=True, reliable=False,
                detail="over after 40 s")
    assert [(v.rule_id, v.severity, v.title) for v in dark + back] == [
        ("SYS-CAMERA", Severity.SYSTEM, "Camera picture too dark"),
        ("SYS-CAMERA", Severity.SYSTEM, "Camera picture no longer too dark")]
    assert "paper reads 31" in dark[0].observed and "overhead" in back[0].observed and "advisories" in dark[0].ruling
    (clipped,) = s.do(CameraPicture, camera="overhead", condition="overexposed", usable=False)
    assert "still counts" in clipped.ruling

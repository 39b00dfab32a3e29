"""The event contract: every event survives the JSON round trip, and bad input is refused clearly."""

from __future__ import annotations

import pytest

from tablewatch.events import (
    BetMotion,
    ButtonPlaced,
    ButtonSeen,
    CardDealt,
    Chips,
    Declaration,
    Event,
    HandStarted,
    LevelChanged,
    NewHandPressed,
    SeatStatus,
    Severity,
    Violation,
    Zone,
    actor_seat,
    bet_zone,
    dump_events,
    load_events,
    seat_actor,
    seat_of_zone,
    seat_zone,
    stack_zone,
)


def test_chips_value_count_and_extremes() -> None:
    chips = Chips.of({500: 2, 100: 3, 25: 0})
    assert (chips.value, chips.count, chips.smallest, chips.largest) == (1300, 5, 100, 500)
    assert (chips + Chips.of({100: 1})).as_dict() == {100: 4, 500: 2}


def test_chips_refuse_non_positive_denominations() -> None:
    with pytest.raises(ValueError, match="positive denominations"):
        Chips.of({0: 1})


def test_round_trip_of_every_kind_of_field() -> None:
    events: list[Event] = [
        HandStarted(ts=0.0, table="T1", source="sim", hand_no=7, button=3, seats=(1, 3, 5), stacks=(100, 200, 300)),
        CardDealt(ts=0.5, table="T1", source="vision", seat=5, card="As", face_up=True),
        BetMotion(ts=1.0, table="T1", source="vision", seat=1, chips=Chips.of({100: 3}), motions=2,
                  motion_times=(0.9, 1.0), prior=Chips.of({25: 2})),
        Declaration(ts=1.1, table="T1", source="console", seat=1, word="raise", amount=600),
        NewHandPressed(ts=1.11, table="T1", source="console"),
        ButtonPlaced(ts=1.12, table="T1", source="console", seat=4),
        ButtonSeen(ts=1.125, table="T1", source="vision", seat=4),
        SeatStatus(ts=1.13, table="T1", source="console", seat=2, open=False),
        LevelChanged(ts=1.14, table="T1", source="console", level=3),
        Violation(ts=1.2, table="T1", source="rules", rule_id="TDA-29", title="String raise", observed="2 motions",
                  ruling="call", severity=Severity.ADVISORY, seats=(1,), evidence_ts=(0.9, 1.0)),
    ]
    assert load_events(dump_events(events)) == events


def test_unknown_type_and_unknown_field_are_named() -> None:
    with pytest.raises(ValueError, match="Unknown event type 'Nope'"):
        Event.from_dict({"type": "Nope"})
    with pytest.raises(ValueError, match="no field"):
        Event.from_dict({"type": "Tap", "ts": 0, "table": "T", "source": "sim", "colour": "red"})


@pytest.mark.parametrize(
    ("zone", "expected"),
    [("seat3.bet", (3, "bet")), ("seat10.stack", (10, "stack")), ("pot", None), ("seat3.line", None),
     ("off_table", None)],
)
def test_a_seat_zone_names_its_seat_and_part(zone: str, expected: tuple[int, str] | None) -> None:
    assert seat_zone(zone) == expected
    assert seat_of_zone(zone) == (expected[0] if expected else None)


@pytest.mark.parametrize(
    ("name", "seat", "is_stack", "is_bet"),
    [("seat3.bet", 3, False, True), ("seat10.stack", 10, True, False), ("pot", None, False, False),
     ("seat3.line", None, False, False), ("seatX.bet", None, False, False)],
)
def test_a_zone_is_parsed_once_and_names_itself_back(name: str, seat: int | None, is_stack: bool,
                                                     is_bet: bool) -> None:
    zone = Zone.parse(name)
    assert (zone.seat, zone.is_stack, zone.is_bet) == (seat, is_stack, is_bet)
    assert zone.name == str(zone) == name


def test_seat_zone_and_actor_names_are_made_in_one_place() -> None:
    assert (stack_zone(4), bet_zone(4), seat_actor(4)) == ("seat4.stack", "seat4.bet", "seat4")
    assert (actor_seat("seat4"), actor_seat("dealer"), actor_seat("seatX")) == (4, None, None)

"""The chip ledger: reads per antenna in, ChipsMoved / ChipsLeftTable / ChipsAppeared / UnknownChip out."""

from __future__ import annotations

import pytest

from tablewatch.devices.ledger import ChipLedger
from tablewatch.devices.registry import TagRegistry
from tablewatch.events import Chips, ChipsAppeared, ChipsLeftTable, ChipsMoved, RfidInventory, UnknownChip


@pytest.fixture
def registry() -> TagRegistry:
    return TagRegistry.generate({25: 10, 500: 10, 1000: 10}, chip_set="t", seed=8)


def read(ts: float, **zones: list[str]) -> list[RfidInventory]:
    return [RfidInventory(ts=ts, table="T01", source="rfid", antenna=name.replace("_", "."), uids=tuple(uids))
            for name, uids in zones.items()]


def test_a_bet_moves_chips_from_stack_to_bet_area(registry: TagRegistry) -> None:
    fives, thousands = registry.uids_of(500), registry.uids_of(1000)
    ledger = ChipLedger(registry, table="T01")
    assert ledger.apply(read(0.0, seat3_stack=fives[:5] + thousands[:2], seat3_bet=[])) == []  # baseline
    assert ledger.value("seat3.stack") == 4500
    # seat 3 bets 2,500 in three chips: one 500 and two 1,000
    events = ledger.apply(read(1.0, seat3_stack=fives[1:5], seat3_bet=[fives[0], *thousands[:2]]))
    assert events == [ChipsMoved(ts=1.0, table="T01", source="rfid", seat=3, src="seat3.stack", dst="seat3.bet",
                                 chips=Chips.of({500: 1, 1000: 2}))]
    assert events[0].chips.value == 2500 and events[0].chips.count == 3  # type: ignore[attr-defined]
    assert ledger.snapshot() == {"seat3.bet": Chips.of({500: 1, 1000: 2}), "seat3.stack": Chips.of({500: 4})}


def test_a_slow_sweeps_events_are_stamped_when_their_zones_were_read(registry: TagRegistry) -> None:
    """A sweep over many antennas can take seconds: a move is stamped when its chips were read at rest, a chip
    from nowhere when it was read, not when the sweep ended."""
    fives, thousands = registry.uids_of(500), registry.uids_of(1000)
    ledger = ChipLedger(registry, table="T01")
    ledger.apply(read(0.0, seat3_stack=fives[:3], seat3_bet=[], seat4_stack=[]))
    sweep = [*read(5.0, seat3_bet=fives[:1]), *read(6.0, seat3_stack=fives[1:3]),
             *read(7.5, seat4_stack=thousands[:1])]
    assert [(e.kind, e.ts) for e in ledger.apply(sweep)] == [("ChipsMoved", 5.0), ("ChipsAppeared", 7.5)]


def test_chips_in_a_hand_between_antennas_are_not_taken_for_gone(registry: TagRegistry) -> None:
    chip = registry.uids_of(500)[0]
    ledger = ChipLedger(registry, table="T01", leave_after=2.0)
    ledger.apply(read(0.0, seat1_stack=[chip], pot=[]))
    assert ledger.apply(read(0.5, seat1_stack=[], pot=[])) == []  # in the air
    assert ledger.missing() == {"seat1.stack": Chips.of({500: 1})}
    assert ledger.chips("seat1.stack") == Chips() and ledger.held("seat1.stack") == Chips.of({500: 1})  # still his
    events = ledger.apply(read(1.0, seat1_stack=[], pot=[chip]))
    assert [(type(e).__name__, e.src, e.dst) for e in events] == [("ChipsMoved", "seat1.stack", "pot")]  # type: ignore[attr-defined]
    assert ledger.held("seat1.stack") == Chips() and ledger.held("pot") == Chips.of({500: 1})


def test_chips_that_stay_missing_have_left_the_table(registry: TagRegistry) -> None:
    chips = registry.uids_of(1000)[:3]
    ledger = ChipLedger(registry, table="T01", leave_after=2.0)
    ledger.apply(read(0.0, seat7_stack=chips))
    assert ledger.apply(read(1.0, seat7_stack=chips[:1])) == []
    events = ledger.apply(read(3.0, seat7_stack=chips[:1]))
    assert events == [ChipsLeftTable(ts=3.0, table="T01", source="rfid", seat=7, zone="seat7.stack",
                                     chips=Chips.of({1000: 2}))]
    assert ledger.missing() == {} and ledger.value("seat7.stack") == 1000
    assert not events[0].emptied  # one chip stayed: some of the stack went, not the player with it
    assert ledger.lifted("seat7.stack", since=1.0) == Chips.of({1000: 2})  # missed at 1.0, landed nowhere since
    assert ledger.lifted("seat7.stack", since=1.5) == Chips()
    # one of them is brought back later: it appears (it came from no zone)
    back = ledger.apply(read(9.0, seat7_stack=chips[:2]))
    assert back == [ChipsAppeared(ts=9.0, table="T01", source="rfid", seat=7, zone="seat7.stack",
                                  chips=Chips.of({1000: 1}))]
    assert ledger.lifted("seat7.stack", since=1.0) == Chips.of({1000: 1})


def test_a_players_chips_are_gone_sooner_than_the_dealers(registry: TagRegistry) -> None:
    """A player's chips are off the antennas only for the hop from stack to bet; a pot pushed across the
    table is carried longer, so chips missing from the pot get the dealer's longer wait."""
    stack, pot = registry.uids_of(500)[:2], registry.uids_of(1000)[:2]
    ledger = ChipLedger(registry, table="T01", leave_after=0.75, dealer_leave_after=1.0)
    ledger.apply(read(0.0, seat2_stack=stack, pot=pot))
    assert ledger.apply(read(0.25, seat2_stack=stack[:1], pot=pot[:1])) == []  # one of each picked up
    assert ledger.apply(read(0.75, seat2_stack=stack[:1], pot=pot[:1])) == []
    gone = ledger.apply(read(1.0, seat2_stack=stack[:1], pot=pot[:1]))
    assert [(e.zone, e.chips.as_dict()) for e in gone] == [("seat2.stack", {500: 1})]  # type: ignore[attr-defined]
    gone = ledger.apply(read(1.25, seat2_stack=stack[:1], pot=pot[:1]))
    assert [(e.zone, e.chips.as_dict()) for e in gone] == [("pot", {1000: 1})]  # type: ignore[attr-defined]


def test_a_chip_seen_first_after_the_baseline_has_appeared(registry: TagRegistry) -> None:
    ledger = ChipLedger(registry, table="T01")
    ledger.apply(read(0.0, tray=registry.uids_of(25)[:5]))
    events = ledger.apply(read(1.0, tray=registry.uids_of(25)[:6]))
    assert [(e.kind, e.zone, e.chips.as_dict()) for e in events] == [("ChipsAppeared", "tray", {25: 1})]  # type: ignore[attr-defined]


def test_chips_appearing_in_an_empty_zone_say_so(registry: TagRegistry) -> None:
    chips = registry.uids_of(1000)[:4]
    ledger = ChipLedger(registry, table="T01")
    ledger.apply(read(0.0, seat4_stack=[], seat5_stack=chips[:1]))
    events = ledger.apply(read(1.0, seat4_stack=chips[1:3], seat5_stack=chips[:1] + chips[3:]))
    assert [(e.zone, e.chips.value, e.onto_empty) for e in events] == [  # type: ignore[attr-defined]
        ("seat4.stack", 2000, True),  # a player sat down with his stack
        ("seat5.stack", 1000, False)]  # a chip added to a stack


def test_a_stack_gone_whole_then_a_new_one_is_a_new_player_but_a_stack_lifted_and_topped_up_is_not(
        registry: TagRegistry) -> None:
    old, new = registry.uids_of(1000)[:3], registry.uids_of(1000)[3:6]
    ledger = ChipLedger(registry, table="T01")
    ledger.apply(read(0.0, seat4_stack=old, seat5_stack=old[:0]))
    ledger.apply(read(1.0, seat4_stack=[]))  # the leaving player takes his chips (not yet counted gone)
    sat = ledger.apply(read(2.0, seat4_stack=new))  # the next player sets his stack down
    assert [(e.zone, e.onto_empty) for e in sat if isinstance(e, ChipsAppeared)] == [("seat4.stack", True)]
    ledger = ChipLedger(registry, table="T01")
    ledger.apply(read(0.0, seat4_stack=old))
    ledger.apply(read(1.0, seat4_stack=[]))  # a hand lifts the stack
    topped = ledger.apply(read(2.0, seat4_stack=[*old, *new]))  # and sets it down with chips from a pocket
    assert [(e.zone, e.chips.count, e.onto_empty) for e in topped if isinstance(e, ChipsAppeared)] == [
        ("seat4.stack", 3, False)]


def test_an_unknown_uid_is_reported_once_per_zone(registry: TagRegistry) -> None:
    fake = "E0070000DEADBEEF"
    ledger = ChipLedger(registry, table="T01")
    first = ledger.apply(read(0.0, seat2_bet=[fake], pot=[]))
    assert first == [UnknownChip(ts=0.0, table="T01", source="rfid", seat=2, uid=fake, zone="seat2.bet")]
    assert ledger.apply(read(1.0, seat2_bet=[fake], pot=[])) == []
    moved = ledger.apply(read(2.0, seat2_bet=[], pot=[fake]))
    assert [(e.kind, e.zone) for e in moved] == [("UnknownChip", "pot")]  # type: ignore[attr-defined]


def test_antennas_map_to_zones(registry: TagRegistry) -> None:
    ledger = ChipLedger(registry, table="T01", zones={"ant-7": "seat3.stack"}, announce_first_read=True)
    events = ledger.apply([RfidInventory(ts=0.0, table="T01", source="rfid", antenna="ant-7",
                                         uids=tuple(registry.uids_of(25)[:2]))])
    assert [(e.kind, e.zone, e.seat) for e in events] == [("ChipsAppeared", "seat3.stack", 3)]  # type: ignore[attr-defined]


def test_a_stack_that_leaves_whole_says_its_zone_emptied(registry: TagRegistry) -> None:
    """The antenna read empty as the chips went (a player leaving with his stack), even if another player's chips
    are there by the time they are declared gone."""
    chips, newcomer = registry.uids_of(1000)[:3], registry.uids_of(500)[:2]
    ledger = ChipLedger(registry, table="T01", leave_after=2.0)
    ledger.apply(read(0.0, seat7_stack=chips))
    assert ledger.apply(read(0.5, seat7_stack=[])) == []
    ledger.apply(read(1.0, seat7_stack=newcomer))
    (left,) = [e for e in ledger.apply(read(3.0, seat7_stack=newcomer)) if isinstance(e, ChipsLeftTable)]
    assert left.emptied and left.chips == Chips.of({1000: 3})

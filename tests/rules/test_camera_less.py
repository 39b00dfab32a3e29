"""A hand at a table no camera watches: the RFID ledger's chip moves stand for the bets (blinds too), the dealer
keys every action on the console (words that follow the chips), and no card is ever seen. The engine plays it
through: the blinds are not actions, the board goes on unknown, a keyed fold leaves the showdown."""

from __future__ import annotations

import tomllib
from typing import Any

from tablewatch.events import (
    BetMotion,
    Chips,
    ChipsPulledBack,
    Declaration,
    Event,
    HandEnded,
    HandStarted,
    PotPushed,
    Violation,
)
from tablewatch.history.phh import dumps_phh
from tablewatch.rules.game import GameConfig
from tablewatch.rules.table import TableRules

GAME = GameConfig(small_blind=500, big_blind=1000, chip_denominations=(500, 1000))


def chips(seat: int, value: int, ts: float) -> BetMotion:
    return BetMotion(ts=ts, table="T", source="rfid", seat=seat, chips=Chips.of({500: value // 500}))


def keyed(seat: int, word: Any, ts: float, amount: int | None = None) -> Declaration:
    return Declaration(ts=ts, table="T", source="console", seat=seat, word=word, amount=amount)


def play(events: list[Event]) -> tuple[dict[str, Any], list[Violation]]:
    rules = TableRules(GAME, table="T")  # with the procedure checks
    found = [v for event in events for v in rules.feed(event)]
    (hand,) = rules.pop_finished()
    return tomllib.loads(dumps_phh([hand])), found


def test_a_hand_seen_by_rfid_and_keyed_on_the_console_plays_through() -> None:
    hand, found = play([
        HandStarted(ts=1.0, table="T", source="scene", hand_no=1, button=3, seats=(1, 2, 3),
                    stacks=(20000, 20000, 20000)),
        chips(1, 500, 1.5), chips(2, 1000, 2.5),  # the blinds going in: posted already, no action
        chips(3, 2000, 10.0), keyed(3, "raise", 11.0, 2000),  # the dealer keys it after the chips
        keyed(1, "fold", 12.0),
        chips(2, 1000, 13.0), keyed(2, "call", 14.0),  # the call's word comes once the round is closed
        keyed(2, "check", 20.0),  # the flop, unseen
        chips(3, 2000, 22.0), keyed(3, "bet", 23.0, 2000),
        keyed(2, "fold", 24.0),
        ChipsPulledBack(ts=26.0, table="T", source="rfid", seat=3, chips=Chips.of({500: 4})),  # uncalled, back
        PotPushed(ts=28.0, table="T", source="rfid", seat=3, value=4500, chips=Chips.of({500: 9})),
        HandEnded(ts=30.0, table="T", source="scene", hand_no=1),
    ])
    assert hand["actions"][3:] == ["p3 cbr 2000", "p1 f", "p2 cc", "d db ??????", "p2 cc", "p3 cbr 2000", "p2 f"]
    assert hand["finishing_stacks"] == [19500, 18000, 22500]
    assert [(v.rule_id, v.observed) for v in found] == []


def test_a_blinds_chips_beyond_the_post_are_an_action() -> None:
    """Heads-up the button posts the small blind and acts first: his completion is a call, not the post again."""
    hand, found = play([
        HandStarted(ts=1.0, table="T", source="scene", hand_no=1, button=1, seats=(1, 2), stacks=(20000, 20000)),
        chips(1, 500, 1.5), chips(2, 1000, 2.5),
        chips(1, 500, 8.0), keyed(1, "call", 9.0),
        keyed(2, "check", 10.5),
        HandEnded(ts=30.0, table="T", source="scene", hand_no=1),
    ])
    assert hand["actions"][2:4] == ["p2 cc", "p1 cc"]  # heads-up, pokerkit's p2 is the button
    assert not [v for v in found if v.rule_id == "TDA-39"]


def test_a_showdown_no_camera_saw_is_settled_by_the_dealers_push() -> None:
    """All-in and called: pokerkit can't judge unread hands, the push says who won; nobody is blamed for cards
    not tabled that no device could see."""
    hand, found = play([
        HandStarted(ts=1.0, table="T", source="scene", hand_no=1, button=3, seats=(1, 2, 3),
                    stacks=(20000, 10000, 20000)),
        chips(1, 500, 1.5), chips(2, 1000, 2.5),
        keyed(3, "fold", 10.0),
        chips(1, 9500, 11.0), keyed(1, "raise", 12.0, 10000),
        chips(2, 9000, 13.0), keyed(2, "call", 14.0),  # all-in
        PotPushed(ts=30.0, table="T", source="rfid", seat=2, value=20000, chips=Chips.of({500: 40})),
        HandEnded(ts=32.0, table="T", source="scene", hand_no=1),
    ])
    assert hand["actions"][3:6] == ["p3 f", "p1 cbr 10000", "p2 cc"]
    assert hand["finishing_stacks"] == [10000, 20000, 20000]
    assert not [v for v in found if v.rule_id in ("TDA-9", "TDA-6A")]


def test_an_undercall_made_up_and_then_keyed_is_one_call() -> None:
    """Seat 3 puts 500 out facing 1,000 (an undercall is a call, TDA-37); the dealer has him make it up, then keys
    the call: the keyed word is that call's, not seat 3 acting again out of turn."""
    hand, found = play([
        HandStarted(ts=1.0, table="T", source="scene", hand_no=1, button=3, seats=(1, 2, 3),
                    stacks=(20000, 20000, 20000)),
        chips(1, 500, 1.5), chips(2, 1000, 2.5),
        chips(3, 500, 10.0),  # the undercall
        chips(3, 500, 12.2), keyed(3, "call", 12.7),  # made up, then keyed
        chips(1, 500, 14.0), keyed(1, "call", 15.0),
        keyed(2, "check", 16.0),
        HandEnded(ts=20.0, table="T", source="scene", hand_no=1),
    ])
    assert hand["actions"][3:6] == ["p3 cc", "p1 cc", "p2 cc"]
    assert [v.rule_id for v in found if v.severity == "violation"] == ["TDA-37"]


def test_a_bet_in_two_motions_read_by_rfid_alone_is_a_string_bet_not_a_second_action() -> None:
    """RFID counts each motion's chips as they land: the seat's chips again a second later, before anyone else
    acts, are the same gesture's next motion (TDA-29: the first motion stands), not a bet out of turn."""
    hand, found = play([
        HandStarted(ts=1.0, table="T", source="scene", hand_no=1, button=3, seats=(1, 2, 3),
                    stacks=(20000, 20000, 20000)),
        chips(1, 500, 1.5), chips(2, 1000, 2.5),
        chips(3, 3000, 10.0), chips(3, 2000, 11.1),  # two motions, nothing said first
        keyed(3, "raise", 11.6, 5000),  # keyed once both are in: words after the chips
        keyed(1, "fold", 13.0), keyed(2, "fold", 14.0),
        ChipsPulledBack(ts=16.0, table="T", source="rfid", seat=3, chips=Chips.of({500: 10})),
        PotPushed(ts=18.0, table="T", source="rfid", seat=3, value=1500, chips=Chips.of({500: 3})),
        HandEnded(ts=20.0, table="T", source="scene", hand_no=1),
    ])
    assert hand["actions"][3:] == ["p3 cbr 3000", "p1 f", "p2 f"]
    violations = [(v.rule_id, v.seat) for v in found if v.severity.value == "violation"]
    assert violations == [("TDA-29", 3)]
    # the same chips after another seat has acted are that seat's own business: no string raise
    _, later = play([
        HandStarted(ts=1.0, table="T", source="scene", hand_no=1, button=3, seats=(1, 2, 3),
                    stacks=(20000, 20000, 20000)),
        chips(1, 500, 1.5), chips(2, 1000, 2.5),
        chips(3, 3000, 10.0), keyed(3, "raise", 10.5, 3000), keyed(1, "fold", 10.8),
        chips(2, 2000, 11.2), keyed(2, "call", 11.7),
        HandEnded(ts=20.0, table="T", source="scene", hand_no=1),
    ])
    assert not [v for v in later if v.rule_id == "TDA-29"]


def test_a_call_keyed_after_its_chips_closed_the_round_is_no_action_on_the_unseen_next_street() -> None:
    """The make-up of an undercall closes the round, and with no camera the flop goes on unseen at once: the
    dealer's "call" keyed a moment later is that call's word, so the seat's flop check is in turn."""
    hand, found = play([
        HandStarted(ts=1.0, table="T", source="scene", hand_no=1, button=1, seats=(1, 2, 3),
                    stacks=(20000, 20000, 20000)),
        chips(2, 500, 1.5), chips(3, 1000, 2.5),
        chips(1, 3000, 10.0), keyed(1, "raise", 10.5, 3000), keyed(2, "fold", 12.0),
        chips(3, 1000, 14.0), chips(3, 1000, 16.2),  # an undercall, then made up
        keyed(3, "call", 16.8),
        keyed(3, "check", 22.0), keyed(1, "check", 23.0),  # the flop, unseen
        HandEnded(ts=30.0, table="T", source="scene", hand_no=1),
    ])
    # players from the small blind: p1 is seat 2, p2 seat 3, p3 seat 1
    assert hand["actions"][3:9] == ["p3 cbr 3000", "p1 f", "p2 cc", "d db ??????", "p2 cc", "p3 cc"]
    assert not [v for v in found if v.rule_id == "TDA-39"]

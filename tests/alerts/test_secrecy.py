"""No card of a hand in play reaches a topic the floor or broadcast roles read: real hands through the table
pipeline (TableRules, MqttOutput, Publisher) to deploy/'s broker, checked on the floor's own subscription."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable
from pathlib import Path
from unittest import mock

import pytest

from tablewatch.alerts.publisher import Publisher
from tablewatch.alerts.secrecy import HandSecrecy, hide_cards
from tablewatch.events import CardDealt, CardsTabled, Event, HandEnded, HandStarted, Violation
from tablewatch.rules.checks.conduct import NutsNotBetCheck
from tablewatch.rules.game import GameConfig
from tablewatch.rules.profiles import RuleProfile
from tablewatch.rules.table import TableRules
from tablewatch.table.outputs import MqttOutput
from tablewatch.table.pipeline import TablePipeline
from tests.alerts.helpers import Collector, Received
from tests.alerts.secure_broker import Secure, publisher_as
from tests.rules.engine_helpers import Hand
from tests.rules.test_showdown_rulings import NL_100_200, NUTS, NUTS_BOARD, check_to_river

FLOOR, BROADCAST = "floor-pit-1", "broadcast-tv"


def fouled_deck() -> tuple[list[Event], list[Event], TableRules]:
    """The ace of spades dealt face down to seat 1 and again to seat 2 (TDA-22E) in hand 4."""
    def dealt(ts: float, seat: int, card: str) -> CardDealt:
        return CardDealt(ts=ts, table="T01", source="vision", seat=seat, card=card)

    during: list[Event] = [HandStarted(ts=1.0, table="T01", source="sim", hand_no=4, button=3, seats=(1, 2, 3)),
                           dealt(1.1, 1, "As"), dealt(1.2, 2, "As"), dealt(1.3, 3, "Qc"), dealt(1.4, 1, "Kd"),
                           dealt(1.5, 2, "7h"), dealt(1.6, 3, "Qd")]
    return during, [HandEnded(ts=9.0, table="T01", source="sim", hand_no=4)], TableRules(GameConfig(), table="T01")


def nuts_not_bet() -> tuple[list[Event], list[Event], TableRules]:
    """Live-tournament rule: seat 2 calls on the river with the nuts (9-T straight) instead of raising; at the
    showdown the advisory quotes the cards he was dealt, still face down."""
    profile = RuleProfile(nuts_last_to_act_must_bet=True)
    recorded: list[Event] = []
    feed = TableRules.feed

    def recording(rules: TableRules, event: Event) -> list[Violation]:
        recorded.append(dataclasses.replace(event, table="T01"))
        return feed(rules, event)

    # the driver plays the hand on rules of its own (it acts on their view); the pipeline replays its events
    with mock.patch.object(TableRules, "feed", recording):
        hand = Hand(NL_100_200, {1: 20_000, 2: 20_000}, button=2, profile=profile, cards={1: "AhKd", 2: NUTS},
                    checks=[NutsNotBetCheck(profile)])
        check_to_river(hand, (1, 2), NUTS_BOARD, preflop=(2, 1))
        hand.act(1, "cbr 1000")
        hand.act(2, "cc")
        hand.feed(CardsTabled, seat=1, cards=("Ah", "Kd"))  # shown; seat 2's cards are still face down
        assert [v.title for v in hand.found] == ["NUTS_NOT_BET"]  # raised in play
        river_closed = len(recorded)
        hand.end()
    rules = TableRules(NL_100_200, table="T01", profile=profile, checks=[NutsNotBetCheck(profile)])
    return recorded[:river_closed], recorded[river_closed:], rules


def received_words(messages: list[Received]) -> set[str]:
    return {word for m in messages for word in re.findall(r"[A-Za-z0-9?]+", m.payload.decode(errors="replace"))}


@pytest.mark.parametrize(("scene", "rule", "hidden", "shown_after"), [
    (fouled_deck, "TDA-22E", {"As", "Kd", "Qc", "Qd", "7h"}, "As seen at seat 1 and again at seat 2."),
    (nuts_not_bet, "TDA-54", {"9s", "Th"}, "held the nuts (9s Th on As 2d 7c 8h Js)"),
], ids=["fouled deck", "nuts not bet"])
def test_the_floor_reads_no_card_of_a_hand_in_play(
        tmp_path: Path, secure: Secure, scene: Callable[[], tuple[list[Event], list[Event], TableRules]], rule: str,
        hidden: set[str], shown_after: str) -> None:
    during, after, rules = scene()
    with Collector(secure.config(FLOOR), ["tablewatch/#"], client_id=f"{FLOOR}-{rule}") as floor, \
            Collector(secure.config(BROADCAST), ["tablewatch/#"], client_id=f"{BROADCAST}-{rule}") as broadcast:
        publisher: Publisher = publisher_as(tmp_path, secure, user="table-casino-T01", table="T01")
        pipeline = TablePipeline(rules=rules, outputs=[MqttOutput(publisher)], lateness=0.0)
        for event in during:
            pipeline.process(event)
        pipeline.drain()
        assert publisher.link.drain(10)
        last = json.dumps(during[-1].to_dict()["type"])
        floor.wait(lambda: any(last in m.payload.decode() for m in floor.on("/event"))
                   and floor.on("/alerts") and floor.on("/alert"), 15, "the hand so far on the floor's topics")
        in_play, on_air = list(floor.messages), list(broadcast.messages)
        for event in after:
            pipeline.process(event)
        pipeline.drain()
        revealed = floor.wait_count("/alert", 2, timeout=15)[-1].json()
        publisher.stop()

    (alert,) = [m.json() for m in in_play if m.topic.endswith("/alert")]
    assert alert["rule_id"] == rule and "??" in alert["observed"]
    assert received_words(in_play) & hidden == set(), "a card of the hand in play reached the floor"
    assert {m.topic.rsplit("/", 1)[1] for m in in_play} >= {"alert", "alerts", "event", "state", "status"}
    # once the hand is over, the alert's next revision carries the whole text
    assert revealed["id"] == alert["id"] and shown_after in revealed["observed"]
    assert [m.topic for m in on_air if not m.topic.endswith("/status")] == []  # broadcast: nothing live


def test_card_shapes_are_hidden_and_words_are_not() -> None:
    assert hide_cards("As seen at seat 1 and again at seat 2.") == "?? seen at seat 1 and again at seat 2."
    assert hide_cards("held the nuts (9s Th on As 2d 7c 8h Js): AsKd, [Qh]") == (
        "held the nuts (?? ?? on ?? ?? ?? ?? ??): ????, [??]")
    assert hide_cards("Seat 3 bet 1,500 in 2 motions; Ask the floor (TDA-29)") == (
        "Seat 3 bet 1,500 in 2 motions; Ask the floor (TDA-29)")


def test_a_monitor_started_mid_hand_keeps_the_secret_until_a_hand_ends() -> None:
    secrecy = HandSecrecy()
    finding = Violation(ts=2.0, table="T01", source="rules", rule_id="TDA-22E", title="Fouled deck",
                        observed="Kd seen at seat 1 and again at seat 4.", ruling="stop play", hand_no=7)
    secrecy.observe(CardDealt(ts=1.0, table="T01", source="vision", seat=4, card="Kd"))  # no HandStarted seen
    assert secrecy.violation(finding)[0].observed == "?? seen at seat 1 and again at seat 4."
    secrecy.observe(HandEnded(ts=3.0, table="T01", source="sim", hand_no=7))
    assert secrecy.violation(finding) == (finding, False)
    secrecy.observe(HandStarted(ts=4.0, table="T01", source="sim", hand_no=8, button=1, seats=(1, 4)))
    assert secrecy.violation(finding)[1]  # another hand in play: its cards stay hidden from the text too

"""End to end on simulated hands: simulator → RFID emulator over a pty → driver → ledger → fusion → rules
→ alerts over a real mosquitto, and hand histories that match the simulator's ground truth.

The camera channel is the simulator's ground truth of what a camera reports (the rules and devices alone, the
diagnostic of ``tablewatch bench --camera truth``); vision and the hand framer are tested through
``tablewatch run`` on recordings (``tests/bench/test_through_run.py``, ``tests/table``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pokerkit import HandHistory

from tablewatch.alerts import BrokerConfig, OutboxConfig, Publisher, PublisherConfig
from tablewatch.bench.scenarios import DEMO_HANDS, EVERY_DECK, hand_simulations
from tablewatch.bench.score import score_session
from tablewatch.bench.session import SessionResult, run_simulated_session
from tablewatch.calibration.decks import deck_names
from tablewatch.table.outputs import MqttOutput
from tests.support.floor import AlertListener
from tests.support.mosquitto import Mosquitto

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]
ALERTED = {(1, "TDA-29"), (2, "TDA-26B"), (3, "TDA-49")}  # one alert for each injected violation


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> tuple[SessionResult, list[dict[str, object]]]:
    workdir = tmp_path_factory.mktemp("e2e")
    hands = hand_simulations(DEMO_HANDS, hands=3, seed=1)
    assert not hands.skipped
    with Mosquitto(workdir / "broker") as broker:
        listener = AlertListener(broker)
        config = PublisherConfig(site="ci", table="T01", broker=BrokerConfig(url=broker.url),
                                 outbox=OutboxConfig(path=workdir / "outbox.sqlite"))
        publisher = Publisher(config).start()
        assert publisher.wait_connected(30)
        result = run_simulated_session(hands.sims, workdir / "out", extra_outputs=[MqttOutput(publisher)],
                                       rfid_period=0.5)
        publisher.stop(drain_s=60)  # returns as soon as the broker has every alert
        listener.wait_for(lambda received: {(a["hand_no"], a["rule_id"]) for a in received} >= ALERTED,
                          timeout=60, expected=False)  # the test says what is missing
        listener.close()
    return result, listener.alerts


def test_every_injected_violation_is_alerted_over_mqtt(session: tuple[SessionResult, list[dict[str, object]]]) -> None:
    result, alerts = session
    injected = {(t.hand_no, t.type) for t in result.injected}
    assert injected == {(1, "string_raise"), (2, "missing_burn"), (3, "chips_pocketed")}
    score = score_session(result)
    assert score.missed == []
    assert score.false_by_rule == {}, f"false alerts: {score.false_by_rule}"
    over_mqtt = {(a["hand_no"], a["rule_id"]) for a in alerts}
    assert over_mqtt >= ALERTED


def test_captured_hands_match_the_ground_truth_and_replay_in_pokerkit(
        session: tuple[SessionResult, list[dict[str, object]]]) -> None:
    result, _ = session
    score = score_session(result)
    assert (score.hands_exact, score.hands) == (3, 3)
    for path in result.hand_paths:
        with Path(path).open("rb") as handle:
            history = HandHistory.load(handle)
        *_, final = history  # pokerkit replays every action without error
        assert final.status is False  # the hand is over


def test_the_hands_can_be_dealt_with_another_deck() -> None:
    """``tablewatch bench --deck``: the same hands and violations, another card art at the table."""
    default = hand_simulations(DEMO_HANDS, hands=2, seed=1)
    plastic = hand_simulations(DEMO_HANDS, hands=2, seed=1, deck="plastic")
    assert {sim.scenario.deck for sim in default.sims} == {"anglo_poker"}
    assert {sim.scenario.deck for sim in plastic.sims} == {"plastic"}
    assert [[v.type for v in s.violations] for s in plastic.sims] == \
        [[v.type for v in s.violations] for s in default.sims]


def test_every_deck_is_dealt_in_turn() -> None:
    """``tablewatch bench --deck every``: hand by hand, each shipped card art."""
    every = hand_simulations(DEMO_HANDS, hands=len(deck_names()) + 1, seed=1, first=3, deck=EVERY_DECK)
    assert [sim.scenario.deck for sim in every.sims] == [*deck_names(), deck_names()[0]]

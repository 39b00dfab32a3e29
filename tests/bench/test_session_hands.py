"""Hands played one after another through one pipeline: each hand's events go out with that hand."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from tablewatch.bench.session import SimulatedTable, game_for
from tablewatch.events import Event
from tablewatch.sim.session import Simulation

pytestmark = pytest.mark.slow

SCENARIOS = Path(__file__).resolve().parents[2] / "tablewatch" / "sim" / "scenarios"
DEMO, POCKETING = SCENARIOS / "demo.yaml", SCENARIOS / "pocketing.yaml"


def test_a_hands_events_are_all_released_before_the_next_hand_starts(tmp_path: Path) -> None:
    """Fusion reads the playing hand's RFID ledger (an obscured stack's value): an event of the hand still held
    in the reorder buffer when the next hand's reader starts would be counted in the next hand's chips."""
    sim = Simulation.from_file(DEMO)
    table = SimulatedTable(tmp_path, game=game_for(sim), table=sim.scenario.table, rfid=True)
    try:
        table.play(sim)
        assert not table.pipeline.order.holds(Event, up_to=math.inf)
        assert table.record.alerts  # (the hand went through: the demo's violations were alerted)
    finally:
        table.close()


def test_a_scenarios_hands_keep_their_own_numbers_in_the_session(tmp_path: Path) -> None:
    """A simulation of two hands (pockets in each) played after the demo: its alerts name hands 2 and 3."""
    demo = Simulation.from_file(DEMO)
    table = SimulatedTable(tmp_path, game=game_for(demo), table="T03", rfid=True)
    try:
        table.play(demo)
        table.play(Simulation.from_file(POCKETING))
        pockets = sorted((a.violation.ts, a.violation.hand_no) for a in table.record.alerts
                         if a.violation.rule_id == "TDA-49")  # (the demo hand has none)
        assert [hand for _, hand in pockets] == [2, 2, 3, 3]
        assert sorted({t.hand_no for t in table.injected}) == [1, 2, 3]
    finally:
        table.close()

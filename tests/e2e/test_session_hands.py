"""Hands played one after another through one pipeline: each hand's events go out with that hand."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from tablewatch.e2e.session import SimulatedTable, game_for
from tablewatch.events import Event
from tablewatch.sim.session import Simulation

pytestmark = pytest.mark.slow

DEMO = Path(__file__).resolve().parents[2] / "tablewatch" / "sim" / "scenarios" / "demo.yaml"


def test_a_hands_events_are_all_released_before_the_next_hand_starts(tmp_path: Path) -> None:
    """Fusion reads the playing hand's RFID ledger (an obscured stack's value): an event of the hand still held
    in the reorder buffer when the next hand's reader starts would be counted in the next hand's chips."""
    sim = Simulation.from_file(DEMO)
    table = SimulatedTable(tmp_path, game=game_for(sim), table=sim.scenario.table, camera="truth", rfid=True)
    try:
        table.play(sim)
        assert not table.pipeline.order.holds(Event, up_to=math.inf)
        assert table.record.alerts  # (the hand went through: the demo's violations were alerted)
    finally:
        table.close()

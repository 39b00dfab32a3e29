"""Chips leaving the table (TDA-49), seen from above: the simulator's pocketing scenario."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablewatch.events import ChipsLeftTable, StackObscured
from tablewatch.sim.session import Simulation
from tests.perception.conftest import perception_for, rendered, run_window

POCKETING = Path(__file__).resolve().parents[2] / "tablewatch" / "sim" / "scenarios" / "pocketing.yaml"


@pytest.fixture(scope="module")
def pocketing() -> Simulation:
    return Simulation.from_file(POCKETING)


def test_a_column_taken_off_the_table_is_seen_leaving(pocketing: Simulation) -> None:
    """Seat 1 folds, then takes its column of three 1,000s off the table (8.7-9.7 s): the column's place shows
    bare felt and nothing comes to rest anywhere. Reported when the hand was last seen, at least one 1,000
    (from above a column shows its top chip and little of its side; RFID counts all three)."""
    events = run_window(pocketing, rendered(pocketing, 5.0, 11.5))
    left = [e for e in events if isinstance(e, ChipsLeftTable)]
    true = [e for e in pocketing.events if isinstance(e, ChipsLeftTable) and 5.0 <= e.ts <= 11.5]
    assert [(e.seat, e.zone) for e in left] == [(t.seat, t.zone) for t in true] == [(1, "seat1.stack")]
    assert left[0].ts == pytest.approx(true[0].ts, abs=0.5)
    taken = left[0].chips.as_dict()  # the top chip, and perhaps the column's side: never more than were there
    assert set(taken) == {1000} and 1 <= taken[1000] <= 3
    assert not [e for e in events if isinstance(e, StackObscured)]  # the chips are gone, not out of sight


def test_a_hand_resting_on_a_stack_takes_nothing_off_the_table(pocketing: Simulation) -> None:
    """Seat 8's hand lies on its stack for 3 s (14.8-17.8 s) and goes: nothing left the table."""
    perception = perception_for(pocketing, hand_in_progress=True)
    events, resting = [], 0
    for frame, ts in rendered(pocketing, 13.5, 19.5):
        events += perception.process(frame, ts)
        resting += perception.analysed is not None and any(arm.actor == "seat8" for arm in perception.analysed[2])
    events += perception.flush(24.5)
    assert resting >= 25  # (it was seen there: 10 frames a second)
    assert not [e for e in events if isinstance(e, ChipsLeftTable)]

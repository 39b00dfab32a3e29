"""Stacks whose largest chips go out of sight (TDA-16A), on the all-violations scenario."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablewatch.events import StackObscured
from tablewatch.sim.session import Simulation
from tests.perception.conftest import FPS, run_window

ALL_VIOLATIONS = Path(__file__).resolve().parents[2] / "tablewatch" / "sim" / "scenarios" / "all_violations.yaml"


def test_big_chips_put_under_a_column_of_small_ones_are_reported_hidden() -> None:
    # Seat 3 holds a 1,000 whose top shows only in part at the edge of its stack zone; at 108.15 s its big
    # chips go under a column of 100s for 3 s. The simulator reports the stack obscured each second.
    sim = Simulation.from_file(ALL_VIOLATIONS)
    renderer = sim.renderer()
    frames = [(renderer.render(i / FPS, labels=False).image, i / FPS) for i in range(1060, 1125)]
    seen = [e for e in run_window(sim, frames) if isinstance(e, StackObscured)]
    truth = [e for e in sim.events if isinstance(e, StackObscured) and e.seat == 3]

    assert {e.seat for e in seen} == {3}
    assert [e.ts for e in seen[:2]] == pytest.approx([e.ts for e in truth[:2]], abs=0.5)

"""The simulated session with real perception on rendered frames (``camera="vision"``).

The demo hand is cut short while the pot is being gathered: perception has seen the chips go in but
waits for the table to settle before it reports the gather. The session must flush it when the hand's
frames end, or that report is lost.
"""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

import pytest

from tablewatch.bench.simulated import SimulatedVision, session_steps
from tablewatch.events import PotGathered
from tablewatch.sim.session import Simulation

pytestmark = pytest.mark.slow

DEMO = Path(__file__).resolve().parents[2] / "tablewatch" / "sim" / "scenarios" / "demo.yaml"
FPS = 10.0


class CutShort(Simulation):
    """A simulation whose frames and events stop at ``end`` seconds (the rest of the hand never happens)."""

    end: float

    @classmethod
    def of(cls, sim: Simulation, end: float) -> CutShort:
        cut = cls.__new__(cls)
        cut.__dict__.update(sim.__dict__)
        cut.end = end
        return cut

    @property
    def duration(self) -> float:
        return self.end

    @property
    def events(self) -> list:  # type: ignore[override]
        return [e for e in self.run.events if e.ts <= self.end]


def test_the_hands_end_flushes_what_perception_still_waits_to_decide() -> None:
    demo = Simulation.from_file(DEMO)
    gathered = next(e.ts for e in demo.events if isinstance(e, PotGathered))
    sim = CutShort.of(demo, gathered + 0.5)  # chips in the pot, the gather not yet decided
    vision = SimulatedVision(sim)

    steps = list(session_steps(sim, None, camera="vision", perceive=vision, fps=FPS))

    last_frame = max(s.t for s in steps if s.frame is not None)
    flushed, framed = steps[-1], steps[:-1]
    assert flushed.frame is None
    assert flushed.t == pytest.approx(last_frame + vision.flush_after_s)
    assert not [e for s in framed for e in s.events if isinstance(e, PotGathered)], \
        "the gather was decided during the frames: the cut no longer tests the flush"
    gathers = [e for e in flushed.events if isinstance(e, PotGathered)]
    assert len(gathers) == 1 and gathers[0].source == "vision"
    assert gathers[0].ts == pytest.approx(gathered, abs=0.6)  # stamped when it happened, not when flushed


def test_a_played_hands_vision_is_freed_at_once() -> None:
    # Fifty hands in a row: each hand's vision holds a 4K renderer (~180 MB). Perception keeps the callable
    # that renders the 4K frame; if it referred back to the vision, the two would form a cycle that only a
    # full garbage collection frees, and a 50-hand bench grew by that much a hand.
    sim = Simulation.from_file(DEMO)
    vision = SimulatedVision(sim)
    renderer = sim.renderer()
    for i in range(6):  # calibrated from the first three frames, then analysed
        vision(renderer.render(i / FPS, labels=False).image, i / FPS)
    assert vision.perception._hires is not None
    gone = weakref.ref(vision)
    gc.disable()
    try:
        del vision
        assert gone() is None
    finally:
        gc.enable()

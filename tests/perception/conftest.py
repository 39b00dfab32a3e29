"""The demo scenario rendered in short windows (10 fps, 720p) around the moments each test looks at."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from tablewatch.calibration.chips import painted_chip_colours
from tablewatch.calibration.layout import load_layout
from tablewatch.events import Event
from tablewatch.sim.session import Simulation
from tablewatch.vision.perception import Perception

DEMO = Path(__file__).resolve().parents[2] / "tablewatch" / "sim" / "scenarios" / "demo.yaml"
FPS = 10.0

Window = Callable[[float, float], list[tuple[np.ndarray, float]]]


@pytest.fixture(scope="session")
def demo() -> Simulation:
    return Simulation.from_file(DEMO)


@pytest.fixture(scope="session")
def window(demo: Simulation) -> Window:
    """(frame, ts) pairs from t0 to t1 seconds of the demo, rendered once per window."""
    cache: dict[tuple[float, float], list[tuple[np.ndarray, float]]] = {}

    def frames(t0: float, t1: float) -> list[tuple[np.ndarray, float]]:
        if (t0, t1) not in cache:
            cache[(t0, t1)] = rendered(demo, t0, t1)
        return cache[(t0, t1)]

    return frames


def rendered(sim: Simulation, t0: float, t1: float) -> list[tuple[np.ndarray, float]]:
    """(frame, ts) pairs of ``sim`` from t0 to t1 seconds at ``FPS``, 720p."""
    renderer = sim.renderer()
    return [(renderer.render(i / FPS, labels=False).image, i / FPS) for i in range(round(t0 * FPS), round(t1 * FPS))]


def perception_for(sim: Simulation, **options: object) -> Perception:
    scenario = sim.scenario
    options.setdefault("deck", scenario.deck)
    options.setdefault("chips", painted_chip_colours(scenario.chips))
    return Perception(layout=load_layout(scenario.layout), table=scenario.table, **options)  # type: ignore[arg-type]


def run_window(sim: Simulation, frames: list[tuple[np.ndarray, float]]) -> list[Event]:
    """Perception on a window that starts in the middle of a hand (no blinds to expect)."""
    return perception_for(sim, hand_in_progress=True).run(frames)

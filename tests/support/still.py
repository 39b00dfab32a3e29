"""A still of a simulated table as a venue's overhead camera takes it to calibrate: the layout's markers on the
rail and the simulator's chips on the tray (1000, 500, 100, 25 from the left), a hand under way."""

from __future__ import annotations

import random
from pathlib import Path

import cv2

from tablewatch.sim.camera import overhead_camera
from tablewatch.sim.render import Renderer
from tablewatch.sim.scenario import Scenario
from tablewatch.sim.script import simulate


def overhead_still(path: Path, *, layout: str) -> Path:
    """The still written to ``path`` (the simulator's own lens, unknown to calibration)."""
    run = simulate(Scenario.model_validate({
        "layout": layout, "seed": 3, "hands": [{"button": 1, "actions": ["s1 cbr 300", "s4 f", "s8 f"]}],
        "players": [{"seat": s, "name": f"P{s}", "stack": 5000} for s in (1, 4, 8)],
    }))  # fmt: skip
    camera = overhead_camera(run.table.extent(), rng=random.Random(5))
    cv2.imwrite(str(path), Renderer(run, camera).render(run.duration * 0.4, labels=False).image)
    return path

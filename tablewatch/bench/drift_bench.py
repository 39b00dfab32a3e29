"""Cost and precision of the drift watch's marker check (``tablewatch.table.drift.DriftGate``) on compressed
frames: decoded whole, or decoded down as the gate does (a 4K frame to half size).

The simulator renders the demo at the camera's resolution, steady and after a knock (the camera shifted
``--shift-mm`` along the table), and JPEG-compresses each frame as a Motion-JPEG camera sends it. Each frame
is checked both ways: milliseconds per check (decoding and looking for the markers) and the markers' median
shift on the table the check measures (the drift monitor raises a move above 5 mm).

    python -m tablewatch.bench.drift_bench [--resolution 2160p] [--frames 12] [--shift-mm 8]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from tablewatch.calibration.chips import painted_chip_colours
from tablewatch.calibration.drift import DriftMonitor
from tablewatch.calibration.markers import calibrate_frames
from tablewatch.sim.render import Renderer
from tablewatch.sim.session import Simulation
from tablewatch.table.drift import DriftGate
from tablewatch.vision.perception.perception import Perception, decoded
from tablewatch.vision.sources import jpeg_frame

DEMO = Path(__file__).resolve().parents[1] / "sim" / "scenarios" / "demo.yaml"


def bench(*, resolution: str = "2160p", frames: int = 12, shift_mm: float = 8.0) -> list[str]:
    """One line per way of checking and camera (steady, knocked): ms per check, shifts measured."""
    sim = Simulation.from_file(DEMO)
    steady = sim.renderer("overhead", resolution)
    moved = Renderer(sim.run, replace(steady.camera, tvec=np.add(steady.camera.tvec, (shift_mm, 0.0, 0.0))),
                     effects=steady.effects)
    times = [2.0 + i * 0.5 for i in range(frames)]
    views = {"steady": [jpeg_frame(steady.render(t, labels=False).image, index=i) for i, t in enumerate(times)],
             "knocked": [jpeg_frame(moved.render(t, labels=False).image, index=i) for i, t in enumerate(times)]}
    sim.release_renderers()
    layout = sim.run.layout
    calibration, _ = calibrate_frames([views["steady"][0].image], layout)
    perception = Perception(layout=layout, table=sim.scenario.table, chips=painted_chip_colours(sim.scenario.chips))
    lines = []
    for way in ("whole", "reduced"):
        for view, pictures in views.items():
            monitor = DriftMonitor(calibration=calibration, layout=layout, table=sim.scenario.table)
            gate = DriftGate(monitor=monitor, perception=perception)
            spent, shifts = [], []
            for picture in pictures:
                started = time.perf_counter()
                reduction = gate.check_reduction(picture) if way == "reduced" else 1
                seen = gate.find_markers(decoded(picture, reduction), reduction=reduction)
                spent.append(1000 * (time.perf_counter() - started))
                shift = monitor.shift_mm(seen)
                shifts.append(float("nan") if shift is None else shift)
            lines.append(f"{resolution} {way:>8} (1/{gate.check_reduction(pictures[0]) if way == 'reduced' else 1}) "
                         f"{view:>7}: {statistics.median(spent):5.1f} ms per check (median of {len(spent)}); "
                         f"shift measured {min(shifts):.2f}-{max(shifts):.2f} mm")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tablewatch.bench.drift_bench", description=__doc__.split("\n")[0])
    parser.add_argument("--resolution", default="2160p", help="the camera's resolution (720p, 1080p, 2160p…)")
    parser.add_argument("--frames", type=int, default=12, help="frames checked per camera and way")
    parser.add_argument("--shift-mm", type=float, default=8.0, help="how far the knocked camera moved")
    args = parser.parse_args(argv)
    if args.frames < 1:
        parser.error("--frames must be 1 or more")
    try:
        lines = bench(resolution=args.resolution, frames=args.frames, shift_mm=args.shift_mm)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["bench", "main"]

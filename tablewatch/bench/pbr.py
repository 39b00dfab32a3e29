"""Perception on the physically based renderer's frames, beside the same moments drawn by the 2D renderer.

    python -m tablewatch.bench.pbr [SCENARIO] [--seconds 30] [--fps 10] [--spp 8] [--save DIR]

The scenario (the demo's by default) is played once; its first ``--seconds`` are drawn at ``--fps`` by both
renderers through the same 720p camera and given, JPEG-compressed as a Motion-JPEG camera sends them, to a fresh
``Perception`` each. As at a table, each perception knows the chip colours its own camera showed in the tray
zone of the first frame (``tablewatch calibrate --denominations``), not the colours the chips are painted.
Scored against the simulator's truth as ``perception_evaluate`` scores: the events (recall and precision, every
kind together and per kind), the hands over the felt found in every analysed frame and their owners, the chip
tops read; and what a frame costs to render. Labels are the 2D renderer's at the same moment (the
objects are the same; the PBR arm's outline is not, so a hand is matched within 80 mm of its middle).
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import cv2
import numpy as np

from tablewatch.bench.perception_evaluate import KINDS, Score, evaluate_simulation, format_objects
from tablewatch.calibration.chips import ChipColours
from tablewatch.calibration.cli import tray_zone_chips
from tablewatch.calibration.layout import load_layout
from tablewatch.calibration.markers import calibrate_frames
from tablewatch.sim.pbr.render import PbrRenderer
from tablewatch.sim.render import Frame
from tablewatch.sim.scenarios import example
from tablewatch.sim.session import Simulation


class Timed:
    """Frames from an iterator, with the seconds spent making them."""

    def __init__(self, frames: Iterator[Frame]) -> None:
        self.frames, self.seconds, self.count = frames, 0.0, 0

    def __iter__(self) -> Iterator[Frame]:
        while True:
            started = time.perf_counter()
            frame = next(self.frames, None)
            self.seconds += time.perf_counter() - started
            if frame is None:
                return
            self.count += 1
            yield frame


def pbr_frames(sim: Simulation, *, fps: float, seconds: float, spp: int, save: Path | None) -> Iterator[Frame]:
    renderer = PbrRenderer(sim.renderer(effects=False), spp=spp, seed=sim.scenario.seed)
    for i in range(int(seconds * fps)):
        frame = renderer.render(i / fps)
        if save is not None and i % max(1, round(fps)) == 0:
            cv2.imwrite(str(save / f"pbr-{i / fps:06.2f}.png"), frame.image)
        yield frame


def tray_order(sim: Simulation) -> list[int]:
    """The denominations in the dealer's tray at the start, left to right: what a venue tells its calibration."""
    columns = sorted((pose.x, chip.value) for chip in sim.run.world.chips
                     if (pose := chip.track.at(0.0)) is not None and pose.visible and pose.zone == "tray")
    return list(dict.fromkeys(value for _x, value in columns))


def learned_chips(sim: Simulation, image: np.ndarray) -> tuple[ChipColours, float]:
    """The chip colours calibration learns from the tray zone of ``image``; and the markers' mean fit error."""
    layout = load_layout(sim.scenario.layout_name)
    calibration, _ = calibrate_frames([image], layout)
    return tray_zone_chips(image, layout, calibration, tray_order(sim)), calibration.mean_error_mm


def totals(score: Score) -> tuple[int, int, int]:
    """Matched, seen and true events of every kind together."""
    tp = sum(c[0] for c in score.counts.values())
    return tp, sum(c[1] for c in score.counts.values()), sum(c[2] for c in score.counts.values())


def report(name: str, score: Score, timed: Timed) -> list[str]:
    tp, seen, true = totals(score)
    recall = f"{tp / true:.3f}" if true else "-"
    precision = f"{tp / seen:.3f}" if seen else "-"
    per_kind = ", ".join(f"{kind} {c[0]}/{c[2]} ({c[1]} seen)" for kind in KINDS
                         if (c := score.counts.get(kind)) and (c[1] or c[2]))
    lines = [f"== {name}: {timed.count} frames, {timed.seconds / max(timed.count, 1):.2f} s a frame to render",
             f"events: recall {recall} precision {precision} ({tp} matched, {seen} seen, {true} true)",
             f"  {per_kind}"]
    if score.objects is not None:
        lines += format_objects(score.objects)
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tablewatch.bench.pbr", description=__doc__.split("\n\n")[0])
    parser.add_argument("scenario", nargs="?", default=str(example("demo")),
                        help="a scenario YAML file (default: the demo)")
    parser.add_argument("--seconds", type=float, default=30.0, help="the first SECONDS of the run")
    parser.add_argument("--fps", type=float, default=10.0)
    parser.add_argument("--spp", type=int, default=8, help="Mitsuba's samples per pixel")
    parser.add_argument("--save", type=Path, help="write one PBR frame a second here as PNG")
    args = parser.parse_args(argv)
    if args.save:
        args.save.mkdir(parents=True, exist_ok=True)
    sim = Simulation.from_file(args.scenario)
    stop = int(args.seconds * args.fps)
    runs = {"2D renderer": Timed(sim.frames(fps=args.fps, stop=stop)),
            f"PBR (Mitsuba, {args.spp} spp)": Timed(pbr_frames(sim, fps=args.fps, seconds=args.seconds, spp=args.spp,
                                                                 save=args.save))}
    print(f"{args.scenario}: the first {args.seconds:g} s at {args.fps:g} frames/s, 720p, JPEG")
    for name, timed in runs.items():
        frames = iter(timed)
        first = next(frames)
        chips, error = learned_chips(sim, first.image)
        score, _ = evaluate_simulation(sim, fps=args.fps, seconds=args.seconds, objects=True, jpeg=True,
                                       frames=itertools.chain([first], frames), chips=chips)
        print("\n".join(report(name, score, timed)), flush=True)
        print(f"calibration on its first frame: markers' mean fit error {error:.2f} mm; chip colours learned from "
              f"the tray for {', '.join(str(c.value) for c in chips.chips)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

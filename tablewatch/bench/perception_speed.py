"""Speed of the table monitor's vision path (``Perception``) on simulated video, per stage, at 720p and 4K.

The simulator renders a stretch of a scenario at the camera's frame rate into an MJPG video (rendering is
not timed); the video is then read back frame by frame, as from a camera, and every frame goes to
``Perception``. Perception analyses about one frame in ``1 / min_interval_s`` (motion between is slow enough
to follow) and skips the others at once. Two ways of reading the video are run side by side:

- ``decoded``: every frame decoded in full as it is read (what ``cv2.VideoCapture.read`` gives);
- ``compressed``: frames kept as JPEG bytes (``tablewatch.vision.sources.Frame``) and decoded only when
  perception analyses them, reduced as far as the table plane allows (a 4K frame to a quarter), in full only
  when a card's identity is read (``tablewatch run`` reads a Motion-JPEG file or camera this way).

    python -m tablewatch.bench.perception_speed [--seconds 8] [--fps 30] [--resolution 720p --resolution 2160p]
    python -m tablewatch.bench.perception_speed --resolution 720p --start 0 --seconds 46 --loops 10   # a soak
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tablewatch.bench.card_reader import write_video
from tablewatch.bench.soak import rss_mb
from tablewatch.calibration.chips import painted_chip_colours
from tablewatch.calibration.layout import load_layout
from tablewatch.sim.session import Simulation
from tablewatch.vision.perception.perception import Perception
from tablewatch.vision.sources import VideoFileSource

DEMO = Path(__file__).resolve().parents[1] / "sim" / "scenarios" / "demo.yaml"


READINGS = ("decoded", "compressed")


@dataclass(frozen=True)
class PerceptionSpeed:
    resolution: str
    reading: str  # one of READINGS
    frames: int
    analysed: int
    seconds_of_video: float
    ms_per_frame: dict[str, float]  # reading the video and perception, over every frame
    ms_per_analysed: dict[str, float]  # perception's stages, over the frames it analysed
    events: int
    memory_mb: tuple[float, float] = (0.0, 0.0)  # resident memory after the first pass over the video, at the end

    @property
    def realtime(self) -> float:
        """Seconds of video per second of work (above 1: keeps up)."""
        return self.seconds_of_video / (sum(self.ms_per_frame.values()) * self.frames / 1000)

    def line(self) -> str:
        per_frame = "  ".join(f"{k} {v:.1f}" for k, v in self.ms_per_frame.items())
        stages = "  ".join(f"{k} {v:.1f}" for k, v in self.ms_per_analysed.items())
        fps = self.frames / (self.seconds_of_video / self.realtime)
        return (f"{self.resolution:>6} {self.reading:>10}: {fps:6.1f} frames/s = {self.realtime:4.2f}x real time "
                f"({self.frames} frames, {self.analysed} analysed, {self.events} events); ms/frame: {per_frame}; "
                f"ms/analysed frame: {stages}; memory {self.memory_mb[0]:.0f} → {self.memory_mb[1]:.0f} MB")


def render_video(sim: Simulation, path: Path, *, resolution: str, fps: float, start: float, seconds: float) -> Path:
    """``seconds`` of ``sim`` from ``start`` at ``fps`` into an MJPG video (frames written one by one)."""
    renderer = sim.renderer(resolution=resolution)
    try:
        return write_video((renderer.render(start + i / fps, labels=False).image
                            for i in range(round(seconds * fps))), path, fps)
    finally:
        sim.release_renderers()


def bench_video(sim: Simulation, video: Path, *, resolution: str, fps: float, start: float,
                reading: str = "compressed", loops: int = 1, hand_finder: bool = True) -> PerceptionSpeed:
    """Read ``video`` frame by frame and run perception on every frame, timing each stage. ``reading``:
    frames decoded as they are read, or handed to perception compressed (its ``decode`` stage). ``loops``:
    play the video that many times through the one perception, its clock running on (a soak: the process's
    memory after the first pass and at the end). ``hand_finder``: perception's hand finder (the table-objects
    detector finding hands the motion path misses) is on, as by default."""
    if reading not in READINGS:
        raise ValueError(f"reading is one of {READINGS}, not {reading!r}")
    scenario = sim.scenario
    perception = Perception(layout=load_layout(scenario.layout_name), table=scenario.table,
                            chips=painted_chip_colours(scenario.chips), deck=scenario.deck, hand_in_progress=True,
                            hand_finder=hand_finder)
    played = _Played()
    memory: list[float] = []
    for _ in range(loops):
        _play(video, perception, played, reading=reading, start=start, fps=fps)
        memory.append(_resident_mb())
    n = played.frames
    if n == 0:
        raise RuntimeError(f"{video}: no frames to benchmark.")
    timing = perception.report_timing()
    analysed = int(timing.pop("frames"))
    return PerceptionSpeed(resolution=resolution, reading=reading, frames=n, analysed=analysed,
                           seconds_of_video=n / fps,
                           ms_per_frame={"read": 1000 * played.read_s / n, "perception": 1000 * played.work_s / n},
                           ms_per_analysed=timing, events=played.events, memory_mb=(memory[0], memory[-1]))


@dataclass
class _Played:
    frames: int = 0
    events: int = 0
    read_s: float = 0.0  # reading the video (and decoding it, when read decoded)
    work_s: float = 0.0  # perception


def _play(video: Path, perception: Perception, played: _Played, *, reading: str, start: float, fps: float) -> None:
    """Every frame of ``video`` to ``perception`` once, the clock going on from ``played.frames``."""
    source = VideoFileSource(video)
    stream = source.frames()
    try:
        while True:
            t0 = time.perf_counter()
            frame = next(stream, None)
            if frame is None:
                return
            image = frame.image if reading == "decoded" else frame
            t1 = time.perf_counter()
            played.events += len(perception.process(image, start + played.frames / fps))
            played.read_s, played.work_s = played.read_s + t1 - t0, played.work_s + time.perf_counter() - t1
            played.frames += 1
    finally:
        source.close()


def _resident_mb() -> float:
    """This process's resident memory now (Linux; 0 elsewhere)."""
    return rss_mb() or 0.0


def bench(scenario: Path = DEMO, *, resolutions: Sequence[str] = ("720p", "2160p"), fps: float = 30.0,
          start: float = 2.0, seconds: float = 8.0, loops: int = 1, hand_finder: bool = True) -> list[PerceptionSpeed]:
    sim = Simulation.from_file(scenario)
    results = []
    with tempfile.TemporaryDirectory(prefix="tablewatch-perception-bench-") as folder:
        for resolution in resolutions:
            video = render_video(sim, Path(folder) / f"{resolution}.avi", resolution=resolution, fps=fps,
                                 start=start, seconds=seconds)
            results += [bench_video(sim, video, resolution=resolution, fps=fps, start=start, reading=reading,
                                    loops=loops, hand_finder=hand_finder) for reading in READINGS]
    return results


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tablewatch.bench.perception_speed", description=__doc__.split(
        "\n")[0])
    parser.add_argument("scenario", nargs="?", type=Path, default=DEMO, help="scenario YAML (default: the demo)")
    parser.add_argument("--resolution", action="append", help="720p, 1080p, 2160p… (repeatable; default 720p, 2160p)")
    parser.add_argument("--fps", type=float, default=30.0, help="the camera's frame rate")
    parser.add_argument("--start", type=float, default=2.0, help="from this second of the scenario (the deal)")
    parser.add_argument("--seconds", type=float, default=8.0, help="how much video")
    parser.add_argument("--loops", type=int, default=1, help="play the video this many times through one perception "
                        "(a soak: its memory after the first pass and at the end)")
    parser.add_argument("--without-hand-finder", action="store_true", help="perception without its hand finder (the "
                        "table-objects detector finding hands the motion path misses), to compare")
    args = parser.parse_args(argv)
    if args.loops < 1:
        parser.error("--loops must be 1 or more")
    try:
        results = bench(args.scenario, resolutions=args.resolution or ("720p", "2160p"), fps=args.fps,
                        start=args.start, seconds=args.seconds, loops=args.loops,
                        hand_finder=not args.without_hand_finder)
    except (OSError, RuntimeError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{args.scenario.name} from {args.start:g} s, {args.seconds:g} s at {args.fps:g} fps (rendering not timed):")
    for result in results:
        print(result.line())
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["READINGS", "PerceptionSpeed", "bench", "bench_video", "main", "render_video"]

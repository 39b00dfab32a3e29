"""Vision benchmark: per-stage milliseconds and frames per second of the card path on video frames.

Frames come from a video file (e.g. one the simulator rendered) or, without one, are composed here from
real held-out card photos pasted on a felt-green canvas at 1280×720 or 3840×2160 and written to an MJPG
video, so reading and decoding the video is measured too. Two ways of reading are timed:

- ``whole``: the frame letterboxed once to the model input (what a per-frame detector on the downscaled
  frame costs; small indices are lost at 4K);
- ``tiled``: the whole frame plus the tile pyramid (identity at full resolution, what ``cards`` does).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from tablewatch.vision.reader import CardReader
from tablewatch.vision.sources import VideoFileSource, read_image

FELT_BGR = (40, 110, 30)


@dataclass(frozen=True)
class BenchResult:
    label: str
    mode: str
    frames: int
    windows_per_frame: float
    ms_per_stage: dict[str, float]
    fps: float
    cards_per_frame: float

    def line(self) -> str:
        stages = "  ".join(f"{stage} {ms:.1f}" for stage, ms in self.ms_per_stage.items())
        return (f"{self.label:>10} {self.mode:<6} {self.fps:6.2f} fps  {self.windows_per_frame:5.1f} windows/frame  "
                f"{self.cards_per_frame:4.1f} cards/frame  ms/frame: {stages}")


def compose_frames(photos: list[Path], *, size: tuple[int, int], count: int, seed: int = 0) -> list[np.ndarray]:
    """``count`` frames of ``size`` (w, h): photos scaled to a third of the height, at random places."""
    rng = np.random.default_rng(seed)
    width, height = size
    images = [read_image(photo) for photo in photos]
    side = height // 3
    frames = []
    for _ in range(count):
        frame = np.full((height, width, 3), FELT_BGR, dtype=np.uint8)
        for k in rng.permutation(len(images))[:4]:
            tile = cv2.resize(images[k], (side, side), interpolation=cv2.INTER_AREA)
            x, y = int(rng.integers(0, width - side)), int(rng.integers(0, height - side))
            frame[y : y + side, x : x + side] = tile
        frames.append(frame)
    return frames


def write_video(frames: Iterable[np.ndarray], path: Path, fps: float = 30.0) -> Path:
    """The frames, one by one as they come (a generator need not hold them all), into an MJPG video."""
    writer: cv2.VideoWriter | None = None
    try:
        for frame in frames:
            if writer is None:
                height, width = frame.shape[:2]
                writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, (width, height))
                if not writer.isOpened():
                    raise RuntimeError(f"OpenCV cannot write an MJPG video to {path}.")
            writer.write(frame)
    finally:
        if writer is not None:
            writer.release()
    return path


def bench_video(reader: CardReader, video: Path, *, label: str, mode: str, max_frames: int) -> BenchResult:
    """Read up to ``max_frames`` frames of ``video`` with ``reader`` in ``mode``; timings per frame."""
    reader.tiles = "none" if mode == "whole" else "auto"
    reader.times = type(reader.times)()
    source = VideoFileSource(video)
    capture_seconds, n, cards = 0.0, 0, 0
    started = time.perf_counter()
    frames = source.frames()
    try:
        while n < max_frames:
            t0 = time.perf_counter()
            frame = next(frames, None)
            image = frame.image if frame is not None else None  # a Motion-JPEG frame is decoded here
            capture_seconds += time.perf_counter() - t0
            if image is None:
                break
            cards += len(reader.read(image).cards)
            n += 1
    finally:
        source.close()
    total = time.perf_counter() - started
    if n == 0:
        raise RuntimeError(f"{video}: no frames to benchmark.")
    stages = {"capture": capture_seconds} | reader.times.seconds
    return BenchResult(label=label, mode=mode, frames=n, windows_per_frame=reader.times.windows / n,
                       ms_per_stage={stage: 1000 * s / n for stage, s in stages.items()}, fps=n / total,
                       cards_per_frame=cards / n)


def bench_composed(reader: CardReader, photos: list[Path], *, sizes: list[tuple[int, int]], frames: int,
                   modes: tuple[str, ...] = ("whole", "tiled")) -> list[BenchResult]:
    results = []
    with tempfile.TemporaryDirectory(prefix="tablewatch-bench-") as folder:
        for width, height in sizes:
            video = write_video(compose_frames(photos, size=(width, height), count=frames),
                                Path(folder) / f"bench-{width}x{height}.avi")
            for mode in modes:
                results.append(bench_video(reader, video, label=f"{width}x{height}", mode=mode, max_frames=frames))
    return results

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

import click
import cv2
import numpy as np

from tablewatch.shared import shared_dir
from tablewatch.vision.detector import DetectorError
from tablewatch.vision.reader import CardReader
from tablewatch.vision.sources import SourceError, VideoFileSource, read_image

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
                writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), fps, (width, height))
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


TEST_PHOTOS = Path("out/cards-real/test/images")
SHARED_TEST_PHOTOS = shared_dir() / "data" / "cards-real" / "test" / "images"


@click.command(name="bench-vision")
@click.option("--video", type=click.Path(path_type=Path), multiple=True,
              help="Video file(s) to read (e.g. simulator renders); default: frames composed from real photos.")
@click.option("--photos", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder of card photos to compose frames from (default: the held-out test photos).")
@click.option("--frames", type=click.IntRange(1, 10000), default=10, show_default=True, help="Frames per case.")
@click.option("--model", type=click.Path(path_type=Path), default=None, help="ONNX model (default: the shipped one).")
@click.option("--threads", type=click.IntRange(0, 64), default=0, help="ONNX Runtime threads (0: all cores).")
@click.option("--mode", "modes", type=click.Choice(["whole", "tiled"]), multiple=True, default=("whole", "tiled"),
              show_default=True)
@click.option("--classifier", default="auto", show_default=True,
              help="Index classifier ONNX (identity from crops): a path, 'auto' (the shipped one if any) or 'none'.")
@click.option("--verifier", default="auto", show_default=True,
              help="Index verifier ONNX (drops boxes that are no card's corner): a path, 'auto' or 'none'.")
def bench_vision(
    video: tuple[Path, ...], photos: Path | None, frames: int, model: Path | None, threads: int, modes: tuple[str, ...],
    classifier: str, verifier: str,
) -> None:
    """Per-stage ms and fps of the card path at 1280x720 and 3840x2160."""
    from tablewatch.vision.detector import OnnxDetector, default_model_path
    from tablewatch.vision.reader import CardReader, crop_models

    try:
        index_classifier, index_verifier = crop_models(classifier, verifier, threads=threads or None)
        reader = CardReader(OnnxDetector(model or default_model_path(), threads=threads or None),
                            classifier=index_classifier, verifier=index_verifier)
        if video:
            results = [bench_video(reader, path, label=path.name, mode=mode, max_frames=frames)
                       for path in video for mode in modes]
        else:
            folder = photos or (TEST_PHOTOS if TEST_PHOTOS.is_dir() else SHARED_TEST_PHOTOS)
            pictures = sorted(folder.glob("*.jpg"))
            if not pictures:
                raise SourceError(f"no .jpg photos in {folder} to compose frames from (see --photos).")
            results = bench_composed(reader, pictures, sizes=[(1280, 720), (3840, 2160)], frames=frames, modes=modes)
    except (SourceError, DetectorError, RuntimeError) as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"model {reader.detector.path} (input {reader.detector.imgsz} px), {frames} frames per case")
    for result in results:
        click.echo(result.line())

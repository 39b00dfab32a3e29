"""Run the detector on overlapping tiles at several scales, so small card indices get enough pixels.

The detector sees its input at ``imgsz`` (e.g. 320 px). A whole 4K frame squeezed into that leaves a
corner index 1-2 px tall, so a large image is also cut into tiles: a pyramid of square windows, from the
whole image down to ``min_tile`` pixels, each level overlapping by ``overlap`` so every index lies whole in
some tile. Boxes cut by a tile's inner edge are dropped (the neighbour tile has them whole), and the rest
are merged with per-class NMS. A level whose indices are already large enough to read ends the descent
(``read_enough``): finer tiles would only magnify the cards.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from tablewatch.vision.boxes import batched_nms
from tablewatch.vision.detections import Detections

Window = tuple[int, int, int, int]  # x0, y0, x1, y1 in image pixels


@dataclass
class StageTimes:
    """Seconds spent per stage, summed over calls (for the benchmark)."""

    seconds: dict[str, float] = field(default_factory=dict)
    calls: int = 0
    windows: int = 0

    def add(self, stage: str, seconds: float) -> None:
        self.seconds[stage] = self.seconds.get(stage, 0.0) + seconds


def windows_1d(length: int, tile: int, overlap: float) -> list[tuple[int, int]]:
    """Start/end of tiles of ``tile`` px covering ``length`` px, each overlapping the next by ``overlap``."""
    if tile >= length:
        return [(0, length)]
    stride = max(1, int(tile * (1.0 - overlap)))
    starts = [*range(0, length - tile, stride), length - tile]
    return [(start, start + tile) for start in sorted(set(starts))]


def tile_windows(height: int, width: int, *, tile: int, overlap: float = 0.25) -> list[Window]:
    rows, columns = windows_1d(height, tile, overlap), windows_1d(width, tile, overlap)
    return [(x0, y0, x1, y1) for y0, y1 in rows for x0, x1 in columns]


def pyramid_levels(
    height: int, width: int, *, min_tile: int, overlap: float = 0.25, max_levels: int = 6
) -> list[list[Window]]:
    """The windows level by level: the whole image, then square tiles of half the size, and so on down to
    ``min_tile`` px."""
    levels: list[list[Window]] = [[(0, 0, width, height)]]
    tile = max(height, width) // 2
    for _level in range(max_levels - 1):
        if tile < min_tile:
            break
        level = [w for w in tile_windows(height, width, tile=tile, overlap=overlap) if w != (0, 0, width, height)]
        if level:
            levels.append(level)
        tile //= 2
    return levels


def read_enough(found: Detections, windows: list[Window], imgsz: int, *, readable_px: float) -> bool:
    """Whether a level's detections show the image's indices large enough to read, so finer tiles would only
    magnify the cards: pips and a court card's picture, seen at an index's size, look like indices. The
    median box, as the detector saw it in its window (``imgsz`` px), at least ``readable_px``."""
    if not len(found):
        return False
    side = max(max(x1 - x0, y1 - y0) for x0, y0, x1, y1 in windows)
    sizes = np.maximum(found.xyxy[:, 2] - found.xyxy[:, 0], found.xyxy[:, 3] - found.xyxy[:, 1]) * imgsz / side
    return float(np.median(sizes)) >= readable_px


def detect_windows(
    detect: Callable[[np.ndarray], Detections],
    image: np.ndarray,
    windows: list[Window],
    *,
    nms_iou: float = 0.5,
    edge_margin: float = 2.0,
    times: StageTimes | None = None,
) -> Detections:
    """Detections of every window, mapped to image pixels, cut boxes dropped, merged by per-class NMS."""
    height, width = image.shape[:2]
    parts = []
    for x0, y0, x1, y1 in windows:
        found = detect(image[y0:y1, x0:x1])
        if len(found):
            found = found[~_cut_by_edge(found.xyxy, (x0, y0, x1, y1), (width, height), edge_margin)]
            parts.append(found.shifted(x0, y0))
    return merge_found(parts, nms_iou=nms_iou, times=times)


def merge_found(parts: list[Detections], *, nms_iou: float = 0.5, times: StageTimes | None = None) -> Detections:
    """Detections of several windows (in image pixels) as one set: per-class NMS over them all."""
    start = time.perf_counter()
    merged = Detections.merge(parts)
    if len(merged):
        merged = merged[batched_nms(merged.xyxy, merged.confidence, merged.class_id, nms_iou)]
    if times is not None:
        times.add("merge", time.perf_counter() - start)
    return merged


def _cut_by_edge(xyxy: np.ndarray, window: Window, image_wh: tuple[int, int], margin: float) -> np.ndarray:
    """Boxes touching an edge of the window that is not an edge of the image (so maybe cut off)."""
    x0, y0, x1, y1 = window
    width, height = image_wh
    local_w, local_h = x1 - x0, y1 - y0
    cut = np.zeros(len(xyxy), dtype=bool)
    if x0 > 0:
        cut |= xyxy[:, 0] <= margin
    if y0 > 0:
        cut |= xyxy[:, 1] <= margin
    if x1 < width:
        cut |= xyxy[:, 2] >= local_w - margin
    if y1 < height:
        cut |= xyxy[:, 3] >= local_h - margin
    return cut

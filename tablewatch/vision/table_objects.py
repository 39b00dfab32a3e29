"""Chips by denomination and hands on the table plane, from our trained detector (ONNX Runtime, no torch).

The model (``vision/weights/table-objects-yolo11n-plane.onnx``, see ``vision/weights/MODEL_CARD.md``) reads the
rectified table plane at perception's 0.3 px/mm (``TablePlane``) in one pass: sizes are millimetres there, so a chip
top is always ~12 px and a hand ~30 px. ``chip_piles`` joins touching chip tops into the piles a floor
person would count (a stack seen from above shows its top chip; a bet is several stacks side by side).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tablewatch.vision.boxes import xyxy_tuple
from tablewatch.vision.detector import MODELS_DIR, DetectorError, OnnxDetector

OBJECTS_MODEL = MODELS_DIR / "table-objects-yolo11n-plane.onnx"
PLANE_PX_PER_MM = 0.3  # the plane it reads (perception's): a chip is ~12 px, a hand ~31×24 px
OBJECTS_CONF = 0.3
PILE_GAP_MM = 12.0  # chip tops this close (edge to edge) are one pile
CHIP_DIAMETER_MM = 39.0


@dataclass(frozen=True)
class TableObject:
    kind: str  # "chip" or "hand"
    value: int | None  # a chip's denomination
    centre_mm: tuple[float, float]
    box_px: tuple[float, float, float, float]  # on the plane picture
    confidence: float


@dataclass(frozen=True)
class ChipPile:
    chips: tuple[TableObject, ...]

    @property
    def centre_mm(self) -> tuple[float, float]:
        xy = np.array([c.centre_mm for c in self.chips])
        return float(xy[:, 0].mean()), float(xy[:, 1].mean())

    @property
    def visible_value(self) -> int:
        """The sum of the chip tops that show: a lower bound (chips under a top don't show from above)."""
        return sum(c.value or 0 for c in self.chips)


class TableObjectDetector:
    """``detect(plane_picture, to_mm)``: the chips and hands on a rectified table plane."""

    def __init__(self, model_path: str | Path = OBJECTS_MODEL, *, conf: float = OBJECTS_CONF,
                 threads: int | None = None) -> None:
        self.detector = OnnxDetector(model_path, conf=conf, iou=0.5, threads=threads)
        names = self.detector.names
        unknown = [n for n in names.values() if n != "hand" and not n.startswith("chip_")]
        if unknown:
            raise DetectorError(f"{model_path} is not a table-objects model (classes {sorted(names.values())})")
        self.names = names

    def detect(self, plane_picture: np.ndarray, to_mm: Callable[[np.ndarray], np.ndarray]) -> list[TableObject]:
        """Objects on ``plane_picture`` (BGR), centres mapped to table mm by ``to_mm`` (``TablePlane.to_mm``)."""
        found = self.detector.detect(plane_picture)
        if not len(found):
            return []
        centres = np.stack([(found.xyxy[:, 0] + found.xyxy[:, 2]) / 2, (found.xyxy[:, 1] + found.xyxy[:, 3]) / 2], 1)
        mm = np.asarray(to_mm(centres), float).reshape(-1, 2)
        out = []
        for box, conf, cls, at in zip(found.xyxy, found.confidence, found.class_id, mm, strict=True):
            name = self.names[int(cls)]
            value = int(name.removeprefix("chip_")) if name.startswith("chip_") else None
            out.append(TableObject("hand" if value is None else "chip", value, (float(at[0]), float(at[1])),
                                   xyxy_tuple(box), float(conf)))
        return out


def chip_piles(objects: list[TableObject]) -> list[ChipPile]:
    """Chip tops joined into piles: tops whose centres are within a diameter and ``PILE_GAP_MM`` of each other."""
    chips = [o for o in objects if o.kind == "chip"]
    if not chips:
        return []
    xy = np.array([c.centre_mm for c in chips], np.float32)
    near = np.linalg.norm(xy[:, None] - xy[None], axis=-1) <= CHIP_DIAMETER_MM + PILE_GAP_MM
    groups = _components(near)
    return [ChipPile(tuple(chips[i] for i in np.flatnonzero(groups == g))) for g in np.unique(groups)]


def _components(adjacent: np.ndarray) -> np.ndarray:
    """A component label per node of a symmetric adjacency matrix (labels spread until nothing changes)."""
    labels = np.arange(len(adjacent))
    while True:
        spread = np.where(adjacent, labels[None, :], len(labels)).min(axis=1)
        if np.array_equal(spread, labels):
            return labels
        labels = spread

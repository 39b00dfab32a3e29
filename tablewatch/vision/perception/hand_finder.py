"""Hands perception's motion path misses, found by the table-objects detector.

Perception sees an arm as foreground against its reference picture of the table, owned by the place it
comes from. It misses a hand two ways, and the detector (``vision/weights/table-objects-yolo11n-region.onnx``, the
table-objects model reading a 252 × 252 px region of the plane), which sees hands by their shape whatever
lay there before, finds it again:

- **lost**: an arm seen in the last ``MEMORY_S`` is missing (a hand over felt of its colours, one lying
  still). The region around its last palm is read; the detected hand nearest that palm (within
  ``REACH_MM``, over the felt, held by no arm perception sees) stands in for it, owned by the arm that went
  missing. A region with no hand over the felt means the arm left: it is not looked for again until
  perception sees it (a hand back over the rail stood in for would hold its gesture open).
- **reaching in**: a moving hand-sized region no arm took (its sleeve hidden over the rail, so nothing
  ties it to a place). It is followed from frame to frame back to where it was first seen, by the rail, and
  the place nearest there owns it, if that actor has no arm on the table already and the detector sees a
  hand in it.

The detector sees a hand, not whose it is: ownership always comes from perception. Reads happen only in
those two cases (~9 ms each on two cores).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tablewatch.vision.detector import MODELS_DIR, DetectorError
from tablewatch.vision.perception.plane import TablePlane
from tablewatch.vision.perception.scene import OWNER_MAX_MM, Arm
from tablewatch.vision.table_objects import PLANE_PX_PER_MM, TableObjectDetector

REGION_MODEL = MODELS_DIR / "table-objects-yolo11n-region.onnx"
REGION_INPUT_PX = 256  # the region model's input
REGION_PX = 252  # the region read, in plane px (840 mm at 0.3 px/mm), enlarged 1.6 % to the input as the whole-plane
# export enlarges the plane 1.7 %: the detector reads resampled pixels better than exact ones (model card)
MEMORY_S = 1.0  # an arm perception saw this recently and does not see now is looked for
REACH_MM = 250.0  # a hand this near the lost arm's last palm may be it (a hand moves ~250 mm in 0.1 s at most)
HELD_MM = 120.0  # a detected hand this near the palm or tip of an arm perception sees is that arm's
TRACK_GAP_S = 0.25  # a region reaching in is the one seen this recently ...
TRACK_STEP_MM = 350.0  # ... when this near it
ARRIVING_MM = 100.0  # a detected hand this near the middle of a region reaching in is its hand


@dataclass
class Reaching:
    """A moving hand-sized region no arm took, followed from frame to frame."""

    first_mm: np.ndarray  # where it was first seen
    last_mm: np.ndarray
    t: float


class HandFinder:
    """``update(ts, plane_picture, arms, unowned)``: the arms perception sees, plus the hands it missed."""

    def __init__(self, plane: TablePlane, origins: dict[str, np.ndarray],
                 detector: TableObjectDetector | None = None) -> None:
        """``origins``: each actor's place (mm); ``detector``: the region model (default ``REGION_MODEL``)."""
        check_scale(plane.scale)
        self.plane, self.origins = plane, origins
        self.detector = detector or region_detector()
        self.seen: dict[str, tuple[float, Arm]] = {}  # actor -> when perception last saw its arm, and the arm
        self.reaching: list[Reaching] = []
        self.reads = 0

    def update(self, ts: float, plane_picture: np.ndarray, arms: list[Arm],
               unowned: Sequence[np.ndarray] = ()) -> list[Arm]:
        """``unowned``: the points (mm) of each moving hand-sized region no arm took (``SceneTracker.unowned``)."""
        for arm in arms:
            self.seen[arm.actor] = (ts, arm)
        found = self._lost(ts, plane_picture, arms)
        found += self._reaching_in(ts, plane_picture, unowned, [*arms, *found])
        return [*arms, *found]

    def _lost(self, ts: float, plane_picture: np.ndarray, arms: list[Arm]) -> list[Arm]:
        present = {arm.actor for arm in arms}
        lost = [arm for actor, (t, arm) in self.seen.items() if actor not in present and ts - t <= MEMORY_S]
        found: list[Arm] = []
        for arm in lost:
            hand = self._find(plane_picture, arm, [*arms, *found])
            if hand is None:
                del self.seen[arm.actor]  # it left the table: not looked for again until perception sees it
            else:
                found.append(hand)
        return found

    def _reaching_in(self, ts: float, plane_picture: np.ndarray, unowned: Sequence[np.ndarray],
                     arms: list[Arm]) -> list[Arm]:
        self.reaching = [r for r in self.reaching if ts - r.t <= TRACK_GAP_S]
        found: list[Arm] = []
        for pts in unowned:
            centre = pts.mean(axis=0)
            first = self._follow(ts, centre)
            actor = min(self.origins, key=lambda a: math.dist(self.origins[a], first))
            if math.dist(self.origins[actor], first) > OWNER_MAX_MM or any(a.actor == actor for a in [*arms, *found]):
                continue
            hands = [h for h in self._read(plane_picture, (float(centre[0]), float(centre[1])))
                     if math.dist(h, centre) <= ARRIVING_MM and not _held(h, [*arms, *found])]
            if hands:
                tip = pts[np.argmax(np.hypot(*(pts - self.origins[actor]).T))]  # its far end from the owner
                found.append(Arm(actor=actor, tip_mm=(float(tip[0]), float(tip[1])),
                                 palm_mm=min(hands, key=lambda h: math.dist(h, centre)),
                                 area_mm2=4.0 * len(pts) / self.plane.scale**2))  # a point per 2 × 2 px
        return found

    def _follow(self, ts: float, centre: np.ndarray) -> np.ndarray:
        """Where the region at ``centre`` was first seen: the nearest one of the last frames within a step, or
        here."""
        steps = [math.dist(r.last_mm, centre) for r in self.reaching]
        k = int(np.argmin(steps)) if steps else -1
        first = self.reaching.pop(k).first_mm if k >= 0 and steps[k] <= TRACK_STEP_MM else centre
        self.reaching.append(Reaching(first, centre, ts))
        return first

    def _find(self, plane_picture: np.ndarray, lost: Arm, held: list[Arm]) -> Arm | None:
        """The detected hand standing in for ``lost``, or None."""
        hands = [h for h in self._read(plane_picture, lost.palm_mm) if not _held(h, held)]
        if not hands:
            return None
        at = min(hands, key=lambda h: math.dist(h, lost.palm_mm))
        if math.dist(at, lost.palm_mm) > REACH_MM:
            return None
        shift = np.subtract(at, lost.palm_mm)
        tip = np.add(lost.tip_mm, shift)
        return Arm(actor=lost.actor, tip_mm=(float(tip[0]), float(tip[1])), palm_mm=at, area_mm2=lost.area_mm2)

    def _read(self, plane_picture: np.ndarray, centre_mm: tuple[float, float]) -> list[tuple[float, float]]:
        """Centres (mm) of the hands the detector sees over the felt in the region around ``centre_mm`` (a hand
        gone back over the rail has left the table: standing in for it would hold its gesture open)."""
        h, w = plane_picture.shape[:2]
        cx, cy = self.plane.to_px(np.array(centre_mm))
        x0 = int(np.clip(cx - REGION_PX // 2, 0, max(0, w - REGION_PX)))
        y0 = int(np.clip(cy - REGION_PX // 2, 0, max(0, h - REGION_PX)))
        region = plane_picture[y0:y0 + REGION_PX, x0:x0 + REGION_PX]
        self.reads += 1
        found = self.detector.detect(region, lambda px: self.plane.to_mm(np.add(px, (x0, y0))))
        return [o.centre_mm for o in found if o.kind == "hand" and self.plane.on_felt(o.centre_mm)]


def check_scale(px_per_mm: float) -> None:
    """ValueError unless the plane is at the scale the detector was trained at."""
    if abs(px_per_mm - PLANE_PX_PER_MM) > 1e-6:
        raise ValueError(f"the hand finder reads the plane at {PLANE_PX_PER_MM} px/mm, the detector's scale; "
                         f"this plane is at {px_per_mm} px/mm")


def region_detector(model: str | Path | None = None) -> TableObjectDetector:
    """The table-objects detector for ``HandFinder`` (default ``REGION_MODEL``): its input is a region's size."""
    model = model or REGION_MODEL
    detector = TableObjectDetector(model)
    if detector.detector.input_hw != (REGION_INPUT_PX, REGION_INPUT_PX):
        raise DetectorError(f"{model} reads {detector.detector.input_hw} px; the hand finder reads regions "
                            f"of {REGION_INPUT_PX} × {REGION_INPUT_PX}")
    return detector


def _held(hand: tuple[float, float], arms: list[Arm]) -> bool:
    return any(min(math.dist(hand, a.palm_mm), math.dist(hand, a.tip_mm)) <= HELD_MM for a in arms)


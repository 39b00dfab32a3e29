"""The dealer button puck's look, registered in the table profile: its diameter and the colour of its face.

A standard puck is a white disc 2.5-3.5 in across with dark "DEALER" lettering; ``ButtonLook()`` is one 3 in
across. ``measure_button`` registers a table's own from a calibration frame where it lies in a seat's button spot
(the layout's ``button_spot``): the seat whose spot shows the largest bright disc on the felt.
"""

from __future__ import annotations

import cv2
import numpy as np
from pydantic import Field

from tablewatch.calibration.camera import TableCalibration
from tablewatch.calibration.layout import TableLayout
from tablewatch.config import StrictModel

CROP_MM = 200.0  # the square around a button spot looked at
CROP_PX_PER_MM = 1.0
OFF_FELT = 40  # grey levels (max over channels) from the felt's colour: not felt
MIN_DISC_MM = 50.0  # a bright blob narrower than this is no puck (a chip is 39 mm)
MAX_DISC_MM = 100.0


class ButtonLook(StrictModel):
    """How the table's dealer button looks from above."""

    diameter_mm: float = Field(default=76.0, gt=20.0, le=150.0, description="Across the puck's face (mm).")
    bgr: tuple[int, int, int] = Field(default=(235, 235, 235), description="The colour of its face (BGR), "
                                      "without its lettering.")


def spot_crop(image: np.ndarray, calibration: TableCalibration, centre_mm: tuple[float, float], *,
              size_mm: float = CROP_MM, px_per_mm: float = CROP_PX_PER_MM) -> np.ndarray:
    """A top-down crop of a camera frame around a point of the table."""
    n = round(size_mm * px_per_mm)
    u = (np.arange(n) - n / 2 + 0.5) / px_per_mm
    x, y = np.meshgrid(centre_mm[0] + u, centre_mm[1] + u)
    px = calibration.mm_to_px(np.stack([x.ravel(), y.ravel()], axis=1)).astype(np.float32)
    return cv2.remap(image, px[:, 0].reshape(n, n), px[:, 1].reshape(n, n), cv2.INTER_LINEAR)


def disc_in_crop(crop: np.ndarray, *, px_per_mm: float = CROP_PX_PER_MM) -> tuple[float, np.ndarray] | None:
    """(diameter in mm, its pixels) of the bright blob off the felt at the crop's middle, if there is one the size
    of a puck; the felt's colour is the crop's border's."""
    border = np.concatenate([crop[0], crop[-1], crop[:, 0], crop[:, -1]])
    felt = np.median(border, axis=0)
    off = np.abs(crop.astype(np.int16) - felt.astype(np.int16)).max(axis=2) > OFF_FELT
    bright = crop.astype(np.int16).sum(axis=2) > int(felt.sum()) + 3 * OFF_FELT
    mask = cv2.morphologyEx((off & bright).astype(np.uint8), cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((9, 9), np.uint8))  # the lettering inside
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if n < 2:
        return None
    k = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    diameter = 2.0 * float(np.sqrt(stats[k, cv2.CC_STAT_AREA] / np.pi)) / px_per_mm
    if not MIN_DISC_MM <= diameter <= MAX_DISC_MM:
        return None
    return diameter, crop[(labels == k) & bright]


def measure_button(image: np.ndarray, calibration: TableCalibration, layout: TableLayout) -> ButtonLook | None:
    """The puck's look from a camera frame where it lies in a seat's button spot (None: none seen)."""
    best: tuple[float, np.ndarray] | None = None
    for seat in layout.seat_numbers:
        found = disc_in_crop(spot_crop(image, calibration, layout.button_spot(seat)))
        if found is not None and (best is None or found[0] > best[0]):
            best = found
    if best is None:
        return None
    diameter, pixels = best
    face = pixels[pixels.astype(int).sum(axis=1) >= np.percentile(pixels.astype(int).sum(axis=1), 40)]
    colour = np.median(face, axis=0)
    return ButtonLook(diameter_mm=round(diameter, 1), bgr=(int(colour[0]), int(colour[1]), int(colour[2])))

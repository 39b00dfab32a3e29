"""A shaking camera held still: how far each analysed frame lies from the calibration, measured on the markers.

A mount that vibrates (a fan, a door slammed, footsteps on a mezzanine) moves the whole picture a pixel or two from
one frame to the next. The plane's zones and the scene's reference would then slide under a still table, and every
card and chip edge would show as motion. Each analysed frame, the table's markers are looked for in small crops
around where the calibration saw them; their median shift, when at least two agree, is how far this frame's picture
lies from the calibration's, and the plane samples the frame that much further on (``TablePlane.shift``).

Only a shake is followed: a shift beyond ``MAX_SHIFT_PX`` is a camera knocked or turned, which the drift watch
judges (vision paused, then recalibrated). A shift under ``MIN_SHIFT_PX`` is the corners' own noise, and a steady
camera's frames are sampled exactly as the calibration says.
"""

from __future__ import annotations

import numpy as np

from tablewatch.calibration.camera import TableCalibration
from tablewatch.calibration.markers import MIN_MARKERS, crop_marker_detector, find_near

MAX_SHIFT_PX = 8.0  # frame pixels: a shake moves the picture less; beyond, the camera was moved
MIN_SHIFT_PX = 0.25  # ... under this, the markers' corners' own noise (sub-pixel corners: ~0.1 px)
AGREE_PX = 1.0  # a marker shifted this far from the median is not counted (a hand half over it bends its corners)
SEARCH_PX = 32.0  # how far around its calibrated place a marker is looked for (closer, its paper is cut off)


class Steadier:
    """Feed it each analysed frame; ``shift`` is how far that frame's picture lies from the calibration's."""

    def __init__(self, calibration: TableCalibration, *, dictionary: str) -> None:
        self.where = {int(m): np.asarray(c, float) for m, c in calibration.marker_pixels.items()}
        self.detector = crop_marker_detector(dictionary)
        self.shift = (0.0, 0.0)  # frame pixels, x and y

    def measure(self, image: np.ndarray, *, reduction: int = 1) -> tuple[float, float]:
        """This frame's shift, in the full frame's pixels (``image``: the frame reduced by ``reduction``). When too
        few markers show (hands over them), the last frame's shift is kept: a shake's next shift is as likely there
        as anywhere, and a sway moves on slowly from it."""
        if len(self.where) < MIN_MARKERS:
            return self.shift
        seen = find_near(image, self.where, margin_px=SEARCH_PX, detector=self.detector, reduction=reduction)
        moves = np.array([(seen[m] - self.where[m]).mean(axis=0) for m in seen]).reshape(-1, 2)
        if len(moves) < MIN_MARKERS:
            return self.shift
        middle = np.median(moves, axis=0)
        agreeing = moves[np.linalg.norm(moves - middle, axis=1) <= AGREE_PX]
        if len(agreeing) < MIN_MARKERS:
            return self.shift  # the markers disagree: a rotation or a marker moved, not a shake
        dx, dy = (float(v) for v in agreeing.mean(axis=0))
        self.shift = (dx, dy) if MIN_SHIFT_PX <= float(np.hypot(dx, dy)) <= MAX_SHIFT_PX else (0.0, 0.0)
        return self.shift

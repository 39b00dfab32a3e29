"""Which seat has the dealer button: the puck seen lying still in a seat's button spot (the layout's
``button_spot``), looked for every ``period`` seconds in those few small regions of the scene's reference picture
(what lies still, no arms in it), not by a detector over the frame.

A spot shows the puck when most of the disc inside its rim is in the puck's colours (the profile's
``ButtonLook``: bright and about as grey as its face, its lettering aside); a single chip covers too little of
it. When two spots show one (a face-up card lying on another seat's spot), neither is taken: the seat reported
stands.
"""

from __future__ import annotations

import cv2
import numpy as np

from tablewatch.calibration.button import ButtonLook
from tablewatch.vision.perception.plane import TablePlane

INNER = 0.8  # of the puck's radius: the disc read (its rim blends with the felt)
SHARE = 0.55  # of that disc in the puck's colours: the puck lies there
BRIGHTNESS = 0.6  # a puck pixel is at least this share of its face's brightness (shade, vignetting)...
CHROMA = 60  # ... and its channels are this close (grey levels) to the face's differences between channels


class ButtonWatch:
    """Reads the button spots of a table plane; ``update`` gives the seat when the one seen changes."""

    def __init__(self, plane: TablePlane, look: ButtonLook, *, period: float = 0.5) -> None:
        self.look, self.period = look, period
        radius_mm = INNER * look.diameter_mm / 2
        self.spots = {seat: _disc(plane, plane.layout.button_spot(seat), radius_mm)
                      for seat in plane.layout.seat_numbers}
        face = np.asarray(look.bgr, np.int16)
        self.face_brightness = float(face.mean())
        self.face_tint = face - face.mean()  # how the face departs from grey
        self.seat: int | None = None  # the seat last reported
        self.last = -1e9

    def update(self, t: float, settled: np.ndarray) -> int | None:
        """The seat whose spot shows the puck on ``settled`` (the scene's reference), when it differs from the
        one last reported; else None."""
        if t - self.last < self.period:
            return None
        self.last = t
        showing = [seat for seat, (box, mask) in self.spots.items() if self._share(settled[box][mask]) >= SHARE]
        if len(showing) != 1 or showing[0] == self.seat:
            return None
        self.seat = showing[0]
        return self.seat

    def shares(self, settled: np.ndarray) -> dict[int, float]:
        """Each seat's share of puck-coloured pixels in its spot (for diagnosis and tests)."""
        return {seat: self._share(settled[box][mask]) for seat, (box, mask) in self.spots.items()}

    def _share(self, bgr: np.ndarray) -> float:
        if not len(bgr):
            return 0.0
        px = bgr.astype(np.int16)
        bright = px.mean(axis=1) >= BRIGHTNESS * self.face_brightness
        tint = np.abs(px - px.mean(axis=1, keepdims=True) - self.face_tint).max(axis=1) <= CHROMA
        return float((bright & tint).mean())


def _disc(plane: TablePlane, centre_mm: tuple[float, float], radius_mm: float
          ) -> tuple[tuple[slice, slice], np.ndarray]:
    """A disc of the plane as its bounding box and the mask inside it (empty where it lies off the plane)."""
    h, w = plane.size[1], plane.size[0]
    cx, cy = plane.to_px(np.asarray(centre_mm, float))
    r = max(1, round(radius_mm * plane.scale))
    x0, y0, x1, y1 = max(cx - r, 0), max(cy - r, 0), min(cx + r + 1, w), min(cy + r + 1, h)
    mask = np.zeros((max(y1 - y0, 0), max(x1 - x0, 0)), np.uint8)
    cv2.circle(mask, (int(cx - x0), int(cy - y0)), r, 1, -1)
    return (slice(int(y0), int(y1)), slice(int(x0), int(x1))), mask > 0

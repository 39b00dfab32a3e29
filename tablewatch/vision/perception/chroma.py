"""Colour that lies off the picture: a camera or a line that delays the colour against the brightness.

An analogue camera's composite signal, a long cable, or a converter that resamples the colour planes can leave them
(Cr and Cb) a few pixels off the brightness. Every coloured edge is then fringed: one side of a card's white border
takes the felt's colour, the other side a tint of its own, and a sleeve's colour spills onto the felt beside it.
Over the demo's four hands, colour 6 pixels off (FFmpeg ``chromashift=cbh=3:crh=-3`` on a 4:2:0 video) made six
false violations: cards miscounted in the deal and on the burn pile, a pot pushed read as to a hand not tabled.

In a true picture the edges of the brightness and of each colour plane lie together. The offset of a colour plane
is the shift that lines its edges (the gradient's magnitude) up with the brightness's, in each direction within
``MAX_SHIFT_PX``. It is measured once per calibration, on its first analysed frame (a table's markers, cards and
felt give edges enough: every frame of a session measures the same). From ``MIN_SHIFT_PX`` on, each frame's colour
planes are moved back into line before anything is read, and the offset is reported as a warning (the picture is
read, realigned).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from tablewatch.events import CameraPicture

COLOUR_OFFSET = "colour offset"
MAX_SHIFT_PX = 10  # the farthest a colour plane is looked for (composite chroma delay: a few pixels)
MIN_SHIFT_PX = 2  # an offset this large is mended (a pixel's is within the colour planes' own resampling)
PEAK_OVER_MEDIAN = 1.03  # the best shift's match over the median shift's: a clean picture's is 1.3-2.0, one in
# strong colour noise 1.05-1.3, a black-and-white one 0 (nothing to line up)
ROW_STEP = 2  # every second row (column) is compared along it: the offset holds across the whole picture

Offset = tuple[int, int]  # (dx, dy) pixels that move a colour plane back into line


def _edges(plane: np.ndarray, axis: int) -> np.ndarray:
    dx, dy = (1, 0) if axis == 1 else (0, 1)
    return np.abs(cv2.Sobel(plane, cv2.CV_32F, dx, dy, ksize=3))


def _shift_along(bright: np.ndarray, colour: np.ndarray, axis: int) -> int:
    """The shift along ``axis`` that best lines ``colour``'s edges up with ``bright``'s (0 when none stands out)."""
    m = MAX_SHIFT_PX
    if axis == 1:
        bright, colour = bright[::ROW_STEP], colour[::ROW_STEP]
    else:
        bright, colour = bright[:, ::ROW_STEP], colour[:, ::ROW_STEP]
    inner = (slice(None), slice(m, -m)) if axis == 1 else (slice(m, -m), slice(None))
    target = bright[inner]
    scores = np.array([float((target * np.roll(colour, s, axis=axis)[inner]).sum()) for s in range(-m, m + 1)])
    if scores.max() < PEAK_OVER_MEDIAN * max(float(np.median(scores)), 1e-9):
        return 0  # no shift stands out: a picture without colour, or its colour's edges lost in noise
    return int(np.argmax(scores)) - m


def colour_offsets(image: np.ndarray) -> tuple[Offset, Offset]:
    """How far to move the Cr and the Cb plane of a BGR ``image`` to line them up with its brightness."""
    ycc = cv2.cvtColor(image, cv2.COLOR_BGR2YCrCb).astype(np.float32)
    bright = {axis: _edges(ycc[..., 0], axis) for axis in (0, 1)}
    offsets = []
    for channel in (1, 2):
        edges = {axis: _edges(ycc[..., channel], axis) for axis in (0, 1)}
        offsets.append((_shift_along(bright[1], edges[1], 1), _shift_along(bright[0], edges[0], 0)))
    return offsets[0], offsets[1]


def _moved(plane: np.ndarray, offset: Offset) -> np.ndarray:
    """``plane`` moved by ``offset`` pixels, its edge repeated into what it leaves bare."""
    shift = np.array([[1, 0, offset[0]], [0, 1, offset[1]]], np.float32)
    return cv2.warpAffine(plane, shift, (plane.shape[1], plane.shape[0]), flags=cv2.INTER_NEAREST,
                          borderMode=cv2.BORDER_REPLICATE)


@dataclass(frozen=True)
class ColourAlignment:
    """The offsets of one camera's colour planes, and the frames' colour moved back by them."""

    cr: Offset = (0, 0)
    cb: Offset = (0, 0)

    @classmethod
    def measured(cls, image: np.ndarray) -> ColourAlignment:
        cr, cb = colour_offsets(image)
        return cls(cr=cr, cb=cb)

    @property
    def needed(self) -> bool:
        return max(abs(v) for v in (*self.cr, *self.cb)) >= MIN_SHIFT_PX

    def apply(self, image: np.ndarray, *, scale: int = 1) -> np.ndarray:
        """``image`` with its colour in line (``scale``: the image is that many times larger than the one the
        offsets were measured on); the image itself when no plane is off."""
        if not self.needed:
            return image
        ycc = cv2.cvtColor(image, cv2.COLOR_BGR2YCrCb)
        y, cr, cb = cv2.split(ycc)
        cr = _moved(cr, (self.cr[0] * scale, self.cr[1] * scale))
        cb = _moved(cb, (self.cb[0] * scale, self.cb[1] * scale))
        return np.asarray(cv2.cvtColor(cv2.merge((y, cr, cb)), cv2.COLOR_YCrCb2BGR))

    def report(self, ts: float, *, table: str, camera: str) -> list[CameraPicture]:
        """The offset as a warning, when one is mended."""
        if not self.needed:
            return []
        return [CameraPicture(ts=ts, table=table, source="vision", camera=camera, condition=COLOUR_OFFSET,
                              usable=False, reliable=True, detail=(
                                  f"the picture's colour lies off its brightness (red {self.cr[0]:+d}, "
                                  f"{self.cr[1]:+d} px and blue {self.cb[0]:+d}, {self.cb[1]:+d} px to bring "
                                  "back: an analogue camera's or a cable's colour delay); each frame is realigned "
                                  "before it is read; check the camera's cabling or its encoder"))]

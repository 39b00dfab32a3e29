"""An analogue camera's interlaced picture: two fields a moment apart woven into one frame.

An analogue camera sends each frame as two fields, its even lines and then its odd ones a field later. A recorder or
encoder that does not deinterlace weaves them back together, so whatever moves between the fields is combed: its
edges alternate line by line between where it was and where it is. Perception then reads a pitched card or a reaching
hand twice, half a motion apart: over 50 simulated hands, 55 false violations, deals read short and actions out of
turn. So the picture is reported as not to be relied on (``CameraPicture`` "interlaced"), and the rules send the
hand's findings as advisories.

Reading one field alone (the other's lines made from it) does not mend it: a recorder codes the woven frame with one
colour sample for each pair of lines (4:2:0), so each field carries the other's colour, and a pitched card's or a
hand's colour shows where it was a field before. Over the same 50 hands that made 26 false violations (a card
landing read as a hand in the next seat's betting area) where advisories make none.

Combing is told from an edge and from noise by its shape: a line off both its neighbours the same way while the lines
either side of it agree with each other (each from one field), along a run of the row (an edge that moved, not noisy
pixels). A frame with ``COMBED_PX`` such pixels or more is combed. A camera is interlaced once ``MIN_COMBED`` of its
last ``WINDOW`` analysed frames were combed (a still table shows no combing, so frames with motion are counted as
they come), and no longer when ``CLEAR_S`` passes without a combed frame.
"""

from __future__ import annotations

from collections import deque

import cv2
import numpy as np

from tablewatch.events import CameraPicture

INTERLACED = "interlaced"
COMB_STEP = 20  # grey levels a line differs from both its neighbours by (those two agreeing within half of it)
NARROWED = 4  # the picture's width divided by this first: four columns averaged quieten noise, not combing
COMBED_PX = 30  # combed pixels that make a frame combed (progressive pictures show 0-1, noise 20 and a strong
# sharpening included; an interlaced one with the dealer or a player moving shows hundreds)
WINDOW = 50  # analysed frames (about 10 s) ...
MIN_COMBED = 10  # ... this many of them combed: the camera is interlaced
CLEAR_S = 30.0


def combed_pixels(grey: np.ndarray) -> int:
    """How many pixels of ``grey`` (a frame in grey) are combed, in runs of three along the row of the narrowed
    picture."""
    width = max(grey.shape[1] // NARROWED, 3)
    lines = cv2.resize(grey, (width, grey.shape[0]), interpolation=cv2.INTER_AREA).astype(np.int16)
    above, line, below, next_below = lines[:-3], lines[1:-2], lines[2:-1], lines[3:]
    up, down = line - above, line - below
    # a line off both its neighbours the same way, each of them agreeing with the line past it: two fields
    combed = ((np.abs(up) > COMB_STEP) & ((up > 0) == (down > 0))
              & (np.abs(below - above) < COMB_STEP // 2) & (np.abs(next_below - line) < COMB_STEP // 2))
    return int((combed[:, :-2] & combed[:, 1:-1] & combed[:, 2:]).sum())


class InterlaceWatch:
    """Whether one camera's picture is interlaced, from each analysed frame."""

    def __init__(self, *, table: str, camera: str) -> None:
        self.table, self.camera = table, camera
        self.combed: deque[bool] = deque(maxlen=WINDOW)
        self.last_combed: float | None = None
        self.reported = False

    @property
    def status(self) -> str:
        return f"picture {INTERLACED}" if self.reported else ""

    def update(self, grey: np.ndarray, ts: float) -> list[CameraPicture]:
        """The picture reported interlaced, or no longer, at this frame (``grey``: the frame as analysed, in grey)."""
        combed = combed_pixels(grey) >= COMBED_PX
        self.combed.append(combed)
        if combed:
            self.last_combed = ts
        if not self.reported and sum(self.combed) >= MIN_COMBED:
            self.reported = True
            return [self._change(ts, usable=False, detail=(
                f"{sum(self.combed)} of the last {len(self.combed)} frames combed: the picture is two fields woven "
                "a moment apart (an analogue camera's interlaced video), so whatever moves shows twice; set the "
                "camera's encoder or the recorder to deinterlace"))]
        if self.reported and self.last_combed is not None and ts - self.last_combed >= CLEAR_S:
            self.reported = False
            self.combed.clear()
            return [self._change(ts, usable=True, detail=f"no frame combed for {CLEAR_S:.0f} s")]
        return []

    def _change(self, ts: float, *, usable: bool, detail: str) -> CameraPicture:
        return CameraPicture(ts=round(ts, 3), table=self.table, source="vision", camera=self.camera,
                             condition=INTERLACED, usable=usable, reliable=False, detail=detail)

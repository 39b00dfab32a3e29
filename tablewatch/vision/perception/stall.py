"""A camera's stream that stalls: the same picture delivered again and again, then a jump to the present.

A live camera's picture is never the same twice: its sensor's noise changes every pixel a little from one frame to
the next, even over a still table. A stream that stalls (a network camera's encoder or a recorder filling a gap)
delivers its last frame meanwhile, and the frames stop changing at all. What happened then is not seen: a check or a
fold made meanwhile is missed, and the next player's action reads as out of turn.

Each analysed frame is compared with the last on a small grey thumbnail. The change is judged against this camera's
own: a frame changing less than ``FROZEN_SHARE`` of its typical change (the median over the last ``HISTORY`` frames)
changed by nothing but the stream's coding. Held ``FROZEN_S`` (one frame between copies may change: a coder's
key frame codes the same picture again a little differently), that is reported (``CameraPicture`` "frozen", its
reports not to be relied on: the rules send the hand's findings as advisories), and over at the second frame in a
row that changes. Exact copies (``EXACT_COPY``: the same frame delivered again, not a still scene coded alike; judged
by the copies' median change, as an encoder's first copies of a stalled picture still refine it) spanning ``BRIEF_S``
that end sooner were a stall too, and as much can be missed in it (a tap takes a fifth of a
second): it is reported as it ends, frozen and moving again at once, so the hand's findings are advisories all the
same. A stream that sends exact copies as a matter of course (a still scene heavily compressed) shows a typical
change of about nothing, and no stall is ever reported on it.
"""

from __future__ import annotations

from collections import deque

import cv2
import numpy as np

from tablewatch.events import PICTURE_FROZEN, CameraPicture

THUMB = (160, 90)  # the picture compared, in pixels: enough for a sensor's noise to show in its mean
FROZEN_SHARE = 0.05  # a frame changing less than this share of the camera's typical change is a copy
FROZEN_S = 0.6  # copies for this long are a stall (a frame dropped and delivered again is one copy) ...
BRIEF_S = 0.25  # ... and exact copies spanning this long, over sooner, were one
EXACT_COPY = 0.001  # grey levels of change, the thumbnail's mean: the same frame again (a stalled stream's copies
# change 0-0.0002, 0.0003-0.0005 through H.264 after its first two refine the picture, 0.004 and 0.002; a dark or still
# scene coded again, which carries no noise in the simulator, 0.001-0.005)
STALLED = "not even its noise: the stream stalled; check the camera's network and recorder"
HISTORY = 300  # analysed frames the typical change is taken over (about half a minute)


class StallWatch:
    """Whether one camera's stream has stalled, from each analysed frame."""

    def __init__(self, *, table: str, camera: str) -> None:
        self.table, self.camera = table, camera
        self.last: np.ndarray | None = None
        self.changes: deque[float] = deque(maxlen=HISTORY)
        self.since: float | None = None  # when the frames stopped changing
        self.last_copy = 0.0  # when the last copy came
        self.copy_changes: list[float] = []  # how much each copy since the frames stopped changing changed
        self.refreshed = False  # whether the last frame changed, amid copies
        self.reported = False

    @property
    def status(self) -> str:
        return f"picture {PICTURE_FROZEN}" if self.reported else ""

    def update(self, grey: np.ndarray, ts: float) -> list[CameraPicture]:
        """The stall reported, or reported over, at this frame (``grey``: the frame as analysed, in grey)."""
        thumb = cv2.resize(grey, THUMB, interpolation=cv2.INTER_AREA)
        last, self.last = self.last, thumb.astype(np.float32)
        if last is None:
            return []
        change = float(cv2.absdiff(self.last, last).mean())
        copy = bool(self.changes) and change < FROZEN_SHARE * float(np.median(self.changes))
        if not copy:
            self.changes.append(change)
            if self.since is not None and not self.refreshed:
                self.refreshed = True  # one frame amid copies: the coder refreshing the same picture, or the end
                return []
            return self._moving(ts)
        self.refreshed = False
        self.last_copy = ts
        if self.since is None:
            self.since, self.copy_changes = ts, []
        self.copy_changes.append(change)
        if not self.reported and ts - self.since >= FROZEN_S - 1e-6:
            self.reported = True
            return [self._change(ts, usable=False, detail=f"the picture has not changed for {ts - self.since:.1f} s, "
                                 f"{STALLED}")]
        return []

    def _moving(self, ts: float) -> list[CameraPicture]:
        since, self.since, self.refreshed = self.since, None, False
        if since is None:
            return []
        moving = self._change(ts, usable=True, detail=f"moving again after {ts - since:.1f} s: what happened "
                              "meanwhile was not seen")
        if self.reported:
            self.reported = False
            return [moving]
        exact = float(np.median(self.copy_changes)) < EXACT_COPY  # the same frame again, bar an encoder refining it
        if not exact or self.last_copy - since < BRIEF_S - 1e-6:
            return []
        return [self._change(ts, usable=False, detail=f"the picture did not change for {ts - since:.1f} s, {STALLED}"),
                moving]

    def _change(self, ts: float, *, usable: bool, detail: str) -> CameraPicture:
        return CameraPicture(ts=round(ts, 3), table=self.table, source="vision", camera=self.camera,
                             condition=PICTURE_FROZEN, usable=usable, reliable=False, detail=detail)

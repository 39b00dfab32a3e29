"""Each hand's recording: one camera's frames from just before the hand's start to its end, thinned to a few frames
a second and scaled down, written while the hand is played (a hand lasts minutes, far more than the ring buffer
holds), so that the hand view plays the table at each action.

The video's time is the table's clock less ``HandClip.from_ts``: each slot of 1/fps shows the first frame in it, and
a slot no frame reached (a camera that stalled, a frame that did not decode) holds the frame before it. Frames are
handed to a thread of the hand's own through a short queue; when the writer falls that far behind, frames are
dropped (counted) rather than held in memory. The file is written under a temporary name and renamed when whole.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np
from pydantic import Field

from tablewatch.config import StrictModel

if TYPE_CHECKING:
    from tablewatch.alerts.evidence import FrameLike

log = logging.getLogger(__name__)

QUEUE_S = 10.0  # seconds of thinned frames the writer may fall behind before frames are dropped


class HandClipConfig(StrictModel):
    fps: float = Field(default=4.0, ge=0, le=30, description="frames per second of each hand's recording, played "
                       "in the page's hand view at each action; 0: hands are not recorded")
    width: int = Field(default=640, ge=160, le=3840, description="the recording's width in pixels (frames are "
                       "only ever scaled down), the height in proportion")
    lead_s: float = Field(default=2.0, ge=0, le=10, description="seconds before the hand's start it begins with")
    camera: str | None = Field(default=None, description="the camera recorded; by default the first to send frames")


@dataclass(frozen=True)
class HandClip:
    """Where a hand's recording is, and its time 0 on the table's clock."""

    path: Path
    url: str | None
    from_ts: float
    to_ts: float


class HandRecording:
    """One hand's video, written by its own thread as frames are offered."""

    def __init__(self, path: Path, *, camera: str, fps: float, width: int, codec: str) -> None:
        self.path, self.camera, self.fps, self.width, self.codec = path, camera, fps, width, codec
        self.from_ts: float | None = None  # the first frame's time: slot 0
        self.last_ts: float | None = None
        self.dropped = 0
        self._next_slot = 0
        self._reduce = 0  # compressed frames are decoded at 1/this of their size (0: not known yet)
        self._queue: queue.Queue[tuple[int, FrameLike] | None] = queue.Queue(maxsize=max(2, round(QUEUE_S * fps)))
        self._cancel = threading.Event()
        self._thread = threading.Thread(target=self._write, name=f"hand-clip-{path.stem}", daemon=True)
        self._thread.start()

    def offer(self, ts: float, frame: FrameLike) -> None:
        """A frame of the camera (its thread): kept when it opens a new slot, dropped when the writer is behind."""
        if self.from_ts is None:
            self.from_ts = ts
        slot = int((ts - self.from_ts) * self.fps + 1e-6)  # a slot shows the first frame of its 1/fps
        if slot < self._next_slot:
            return
        try:
            self._queue.put_nowait((slot, frame))
        except queue.Full:
            self.dropped += 1
            return
        self._next_slot, self.last_ts = slot + 1, ts

    def finish(self) -> None:
        """No more frames: the writer closes the file once the queue is written."""
        self._queue.put(None)

    def abandon(self) -> None:
        self._cancel.set()
        self._queue.put(None)

    def join(self, timeout: float | None = None) -> bool:
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _write(self) -> None:
        from tablewatch.alerts.evidence import open_writer, pixels

        partial = self.path.with_name(f"{self.path.stem}.partial{self.path.suffix}")
        writer: cv2.VideoWriter | None = None
        size = (0, 0)
        written, last = 0, None
        try:
            while (item := self._queue.get()) is not None:
                if self._cancel.is_set():
                    continue
                slot, kept = item
                frame = self._picture(kept, pixels)
                if frame is None:
                    continue
                if writer is None:
                    size = (frame.shape[1], frame.shape[0])
                    writer = open_writer(partial, self.codec, self.fps, size)
                    if not writer.isOpened():
                        raise ValueError(f"OpenCV can't write {self.codec} video to {partial.name}")
                elif (frame.shape[1], frame.shape[0]) != size:  # the camera changed its resolution mid-hand
                    frame = cv2.resize(frame, size)
                for _ in range(written, slot):  # slots no frame reached hold the one before
                    writer.write(last if last is not None else frame)
                writer.write(frame)
                written, last = slot + 1, frame
        except (cv2.error, OSError, ValueError) as exc:
            log.error("the recording of %s stopped: %s", self.path.name, exc)
            self._cancel.set()
        finally:
            if writer is not None:
                writer.release()
        if self._cancel.is_set() or writer is None:
            partial.unlink(missing_ok=True)
            return
        os.replace(partial, self.path)
        if self.dropped:
            log.warning("the recording of %s left out %d frame(s): it fell behind the camera", self.path.name,
                        self.dropped)


    def _picture(self, kept: FrameLike, pixels: Callable[[FrameLike], np.ndarray | None]) -> np.ndarray | None:
        """The frame at the recording's width. A compressed frame is decoded straight to the nearest size above it
        once the first frame has told the camera's width (a 4K frame decoded whole costs 4 to 16 times more)."""
        reduced = getattr(kept, "reduced", None)
        if self._reduce > 1 and reduced is not None:
            try:
                frame = reduced(self._reduce)
            except (RuntimeError, ValueError) as exc:  # SourceError: the camera sent a corrupt frame
                log.warning("a frame of %s is left out: %s", self.path.name, exc)
                return None
        else:
            frame = pixels(kept)
            if frame is None:
                return None
            if self._reduce == 0:
                self._reduce = max(f for f in (1, 2, 4, 8) if frame.shape[1] >= f * self.width or f == 1)
        return _scaled(frame, self.width)


def _scaled(frame: np.ndarray, width: int) -> np.ndarray:
    if frame.shape[1] <= width:
        return frame
    height = round(frame.shape[0] * width / frame.shape[1] / 2) * 2
    return cv2.resize(frame, (width, height), interpolation=cv2.INTER_AREA)

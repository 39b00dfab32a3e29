"""A camera's frames in shared memory: written once by the camera's process, read by the table's process only
when it needs them (an alert's still and clip), never copied through a pipe.

The memory is a ring of bytes after a small header. Each frame (its JPEG bytes as a Motion-JPEG camera sends
them, or its pixels) is written whole at the next place, wrapping to the start when it would not fit before the
end. Places are counted in bytes written since the ring was made (they only grow), so a frame's place tells
whether it is still there: it is gone once a write has reserved a byte a whole ring after it. The writer marks
what it reserves before it writes, and the reader looks again after it reads, so a frame overwritten while being
read is refused, not shown torn. One writer (the camera's process), any number of readers.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from multiprocessing import shared_memory

import cv2
import numpy as np

from tablewatch.vision.sources import REDUCED_FLAGS, Frame, SourceError

HEADER = 64  # bytes: magic, capacity, reserved, head (uint64 each), padding
MAGIC = 0x7477_6672_616D_6531  # "twframe1"
ALIGN = 64
_MAGIC, _CAPACITY, _RESERVED, _HEAD = range(4)


class FrameGone(SourceError):
    """A frame no longer in the ring: newer frames have been written over it."""


@dataclass(frozen=True)
class FrameRef:
    """Where a frame lies in the ring, and what it is: pickled from the camera's process to the table's."""

    place: int  # bytes written to the ring before this frame
    nbytes: int
    jpeg: bool  # JPEG bytes (else pixels of ``shape``)
    shape: tuple[int, ...]
    index: int
    ts: float


class SharedFrames:
    """One camera's ring of frames (``create`` in the table's process, ``attach`` in the camera's)."""

    def __init__(self, memory: shared_memory.SharedMemory, *, owner: bool) -> None:
        self.memory, self.owner = memory, owner
        self._header = np.ndarray((4,), dtype=np.uint64, buffer=memory.buf)
        if int(self._header[_MAGIC]) != MAGIC:
            raise ValueError(f"shared memory {memory.name} is not a frame ring")
        self.capacity = int(self._header[_CAPACITY])

    @classmethod
    def create(cls, megabytes: int) -> SharedFrames:
        """A new ring of ``megabytes``; OSError naming the shortfall when /dev/shm has less room free (a
        container's default is 64 MB: ``--shm-size``), rather than a crash when the memory is first touched."""
        capacity = megabytes * 1024 * 1024
        free = _shm_free()
        if free is not None and capacity + HEADER > free:
            raise OSError(f"the camera's frame ring needs {megabytes} MB of shared memory and /dev/shm has "
                          f"{free // (1024 * 1024)} MB free (lower `shared_memory_mb`, or give the container "
                          "more: docker run --shm-size)")
        memory = shared_memory.SharedMemory(create=True, size=HEADER + capacity)
        header = np.ndarray((4,), dtype=np.uint64, buffer=memory.buf)
        header[:] = (MAGIC, capacity, 0, 0)
        del header  # no view may outlive the memory's close
        return cls(memory, owner=True)

    @classmethod
    def attach(cls, name: str) -> SharedFrames:
        return cls(shared_memory.SharedMemory(name=name), owner=False)

    @property
    def name(self) -> str:
        return self.memory.name

    def write(self, frame: Frame | np.ndarray, *, ts: float) -> FrameRef | None:
        """The frame into the ring; None when it is bigger than the whole ring (then it is not kept)."""
        jpeg = frame.jpeg if isinstance(frame, Frame) else None
        data = jpeg if jpeg is not None else np.ascontiguousarray(_pixels(frame))
        nbytes = int(data.nbytes)
        span = -(-nbytes // ALIGN) * ALIGN
        if span > self.capacity:
            return None
        place = int(self._header[_HEAD])
        start = place % self.capacity
        if start + span > self.capacity:  # not enough room before the end: the frame starts the next lap
            place += self.capacity - start
            start = 0
        self._header[_RESERVED] = place + span  # readers of what this overwrites refuse it from now on
        buffer = self.memory.buf
        assert buffer is not None  # (None only once closed)
        buffer[HEADER + start:HEADER + start + nbytes] = data.reshape(-1).view(np.uint8).data
        self._header[_HEAD] = place + span
        return FrameRef(place=place, nbytes=nbytes, jpeg=jpeg is not None, shape=tuple(data.shape),
                        index=frame.index if isinstance(frame, Frame) else 0, ts=ts)

    def read(self, ref: FrameRef, reduced: int = 1) -> np.ndarray:
        """The frame's pixels (a JPEG decoded straight from the shared memory, reduced by 1, 2, 4 or 8; pixels
        copied out); FrameGone when it was overwritten before or while it was read."""
        self._still_there(ref)
        start = HEADER + ref.place % self.capacity
        view = np.ndarray((ref.nbytes,), dtype=np.uint8, buffer=self.memory.buf, offset=start)
        try:
            if ref.jpeg:
                image = cv2.imdecode(view, REDUCED_FLAGS[reduced])
                if image is None:
                    raise SourceError(f"frame {ref.index} at {ref.ts:.3f} s: its JPEG data does not decode")
            else:
                image = view.copy().reshape(ref.shape)
        finally:
            del view
        self._still_there(ref)
        return image

    def _still_there(self, ref: FrameRef) -> None:
        if int(self._header[_RESERVED]) > ref.place + self.capacity:
            raise FrameGone(f"frame {ref.index} at {ref.ts:.3f} s: no longer in the shared frame ring "
                            f"({self.capacity // (1024 * 1024)} MB; raise `shared_memory_mb` for longer clips)")

    def unlink(self) -> None:
        """The owner's, at the end: the memory's name goes at once, the memory itself once no process maps it (the
        evidence recorder may still read the last frames meanwhile)."""
        if self.owner:
            self.memory.unlink()


class SharedFrame:
    """A frame in a camera's ring, as the evidence recorder keeps it: decoded when looked at (``Picture``)."""

    __slots__ = ("frames", "ref")

    def __init__(self, frames: SharedFrames, ref: FrameRef) -> None:
        self.frames, self.ref = frames, ref

    @property
    def image(self) -> np.ndarray:
        return self.frames.read(self.ref)


def _pixels(frame: Frame | np.ndarray) -> np.ndarray:
    return frame.image if isinstance(frame, Frame) else frame


def _shm_free() -> int | None:
    try:
        stat = os.statvfs("/dev/shm")
    except OSError:
        return None  # no /dev/shm (not Linux): the system allocates as it can
    return stat.f_bavail * stat.f_frsize

"""The shared frame ring: frames written by one process are read by another from the same memory; a frame written
over is refused, never shown torn or as another frame."""

from __future__ import annotations

import multiprocessing
from multiprocessing.connection import Connection

import cv2
import numpy as np
import pytest

from tablewatch.edge import frames as shared
from tablewatch.edge.frames import FrameGone, FrameRef, SharedFrame, SharedFrames
from tablewatch.vision.sources import jpeg_frame


def picture(n: int, size: tuple[int, int] = (120, 160)) -> np.ndarray:
    image = np.zeros((*size, 3), np.uint8)
    cv2.putText(image, str(n), (10, size[0] - 20), cv2.FONT_HERSHEY_SIMPLEX, 2, (255, 255, 255), 3)
    return image


def _write_frames(name: str, count: int, pipe: Connection) -> None:
    ring = SharedFrames.attach(name)
    pipe.send([ring.write(jpeg_frame(picture(n), index=n), ts=n / 10) for n in range(count)])
    pipe.close()


@pytest.fixture
def ring() -> SharedFrames:
    made = SharedFrames.create(1)
    yield made
    made.unlink()


def test_frames_written_in_another_process_are_read_from_the_shared_memory(ring: SharedFrames) -> None:
    context = multiprocessing.get_context("spawn")
    ours, theirs = context.Pipe(duplex=False)
    writer = context.Process(target=_write_frames, args=(ring.name, 5, theirs))
    writer.start()
    refs: list[FrameRef] = ours.recv()
    writer.join(timeout=60)
    assert writer.exitcode == 0
    for n, ref in enumerate(refs):
        decoded = SharedFrame(ring, ref).image
        assert ref.jpeg and ref.index == n and ref.ts == pytest.approx(n / 10)
        assert np.abs(decoded.astype(int) - picture(n)).mean() < 3  # that frame, not another (JPEG's loss aside)
        assert ring.read(ref, reduced=2).shape == (60, 80, 3)


def test_pixels_are_kept_as_they_are(ring: SharedFrames) -> None:
    image = picture(7)
    ref = ring.write(image, ts=1.0)
    assert ref is not None and not ref.jpeg
    assert np.array_equal(ring.read(ref), image)


def test_a_frame_written_over_is_refused_and_the_newest_stay(ring: SharedFrames) -> None:
    noise = np.random.default_rng(1).integers(0, 255, (200, 200, 3), np.uint8)  # 120 KB: 8 fill the ring
    refs = [ring.write(noise, ts=n) for n in range(20)]
    assert all(ref is not None for ref in refs)
    with pytest.raises(FrameGone, match="shared_memory_mb"):
        ring.read(refs[0])  # type: ignore[arg-type]
    assert np.array_equal(ring.read(refs[-1]), noise)  # type: ignore[arg-type]
    gone = [n for n, ref in enumerate(refs) if not _readable(ring, ref)]  # type: ignore[arg-type]
    assert gone == list(range(len(gone))) and 0 < len(gone) < 20  # the oldest, and only they


def _readable(ring: SharedFrames, ref: FrameRef) -> bool:
    try:
        ring.read(ref)
    except FrameGone:
        return False
    return True


def test_a_frame_bigger_than_the_ring_is_not_kept(ring: SharedFrames) -> None:
    assert ring.write(np.zeros((1024, 1024, 3), np.uint8), ts=0.0) is None


def test_a_ring_bigger_than_the_room_in_dev_shm_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shared, "_shm_free", lambda: 64 * 1024 * 1024)  # a container's default
    with pytest.raises(OSError, match=r"needs 512 MB of shared memory and /dev/shm has 64 MB free.*--shm-size"):
        SharedFrames.create(512)

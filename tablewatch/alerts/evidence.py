"""Evidence for alerts: a ring buffer of the last seconds of frames per camera, clips and annotated stills.

``capture()`` is called when an alert is raised: it writes the still at once (the frame nearest the alert,
objects drawn) and books a clip from ``before_s`` before to ``after_s`` after. The clip is written by a
worker thread once frames past ``after_s`` have arrived (or at ``flush()``), then ``on_clip`` is called so
the publisher can send an ``update`` revision with ``clip_ready: true``. A clip is written under a temporary name
and renamed when whole, and announced ready only when the camera's frames reached the end of its window: one
cut short by the table stopping is kept on disk, not announced. ``close()`` ends the writer within
``CLIPS_AT_STOP_S``. ``start_hand()``/``end_hand()`` record each whole hand as well (``handclips``).

Frames are kept by reference: hand a new array per frame (``cv2.VideoCapture.read`` does) and never
draw on it afterwards. A frame may also be kept compressed (a ``tablewatch.vision.sources.Frame`` of a
Motion-JPEG camera: nine seconds of 30 fps 4K frames are ~0.4 GB so, 6.7 GB decoded) and is decoded when
written.
"""

from __future__ import annotations

import bisect
import logging
import os
import queue
import re
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np
from pydantic import Field

from tablewatch.alerts.bundle import ExportConfig
from tablewatch.alerts.handclips import HandClip, HandClipConfig, HandRecording
from tablewatch.alerts.payloads import Evidence
from tablewatch.alerts.retention import RetentionConfig
from tablewatch.config import StrictModel

log = logging.getLogger(__name__)

# How long a stopping table writes the clips still booked. A loaded machine encodes a run's clips slowly (many
# 4K alerts took minutes), and the monitor must be down well within systemd's stop timeout (90 s by default,
# then SIGKILL) with its outbox drained and ``offline`` announced after the clips; clips not written by then are
# dropped (logged), the one being written is abandoned between two frames.
CLIPS_AT_STOP_S = 30.0


class EvidenceConfig(StrictModel):
    folder: Path = Field(default=Path("evidence"), description="where stills and clips are written")
    before_s: float = Field(default=5.0, ge=0, le=120, description="seconds of video before the alert")
    after_s: float = Field(default=3.0, ge=0, le=120, description="seconds of video after the alert")
    url_base: str | None = Field(default=None, description="URL at which `folder` is served (the web console)")
    codec: str = Field(default="VP80", min_length=4, max_length=4,
                       description="fourcc; VP80 in .webm plays in browsers")
    extension: str = Field(default=".webm", pattern=r"^\.[a-z0-9]+$", description="the clips' file type, to match "
                           "`codec`")
    jpeg_quality: int = Field(default=88, ge=10, le=100, description="JPEG quality of the stills")
    retention: RetentionConfig = Field(default_factory=RetentionConfig, description="how long stills and clips "
                                       "are kept (an incident the floor keeps is exempt)")
    export: ExportConfig = Field(default_factory=ExportConfig, description="where an incident's case-file bundle "
                                 "goes when the floor exports it")
    hand_clips: HandClipConfig = Field(default_factory=HandClipConfig, description="each hand's recording, from its "
                                       "start to its end, for the hand view")


class Picture(Protocol):
    """A frame decoded when looked at (``tablewatch.vision.sources.Frame``)."""

    @property
    def image(self) -> np.ndarray: ...


FrameLike = np.ndarray | Picture


def pixels(frame: FrameLike) -> np.ndarray | None:
    """The frame's pixels, a compressed frame decoded now; None (logged) when its data does not decode."""
    if isinstance(frame, np.ndarray):
        return frame
    try:
        return frame.image
    except (RuntimeError, ValueError) as exc:  # SourceError: the camera sent a corrupt frame
        log.warning("a kept frame is not shown: %s", exc)
        return None


@dataclass(frozen=True, kw_only=True)
class Box:
    """An object to draw on the still, in pixels of the frame."""

    x1: int
    y1: int
    x2: int
    y2: int
    label: str = ""
    color: tuple[int, int, int] = (0, 0, 255)  # BGR

    def scaled(self, sx: float, sy: float) -> Box:
        return replace(self, x1=round(self.x1 * sx), y1=round(self.y1 * sy), x2=round(self.x2 * sx),
                       y2=round(self.y2 * sy))


@dataclass
class FrameRing:
    """The last ``seconds`` of one camera's frames, oldest first, with the boxes seen on each."""

    seconds: float
    times: deque[float] = field(default_factory=deque)
    frames: deque[FrameLike] = field(default_factory=deque)
    boxes: deque[Sequence[Box]] = field(default_factory=deque)

    def add(self, ts: float, frame: FrameLike, boxes: Sequence[Box] = ()) -> None:
        if self.times and ts < self.times[-1]:
            raise ValueError(f"frame at {ts:.3f} s is older than the last one ({self.times[-1]:.3f} s)")
        self.times.append(ts)
        self.frames.append(frame)
        self.boxes.append(tuple(boxes))
        while self.times and self.times[0] < ts - self.seconds:
            self.times.popleft()
            self.frames.popleft()
            self.boxes.popleft()

    def nearest(self, ts: float) -> int | None:
        if not self.times:
            return None
        times = list(self.times)
        i = bisect.bisect_left(times, ts)
        candidates = [j for j in (i - 1, i) if 0 <= j < len(times)]
        return min(candidates, key=lambda j: abs(times[j] - ts))

    def window(self, start: float, end: float) -> list[tuple[float, FrameLike]]:
        return [(t, f) for t, f in zip(self.times, self.frames, strict=True) if start <= t <= end]

    def fps(self, default: float = 10.0) -> float:
        if len(self.times) < 2:
            return default
        span = self.times[-1] - self.times[0]
        return (len(self.times) - 1) / span if span > 0 else default


@dataclass
class _PendingClip:
    alert: str
    camera: str
    start: float
    end: float
    path: Path
    evidence: Evidence


ClipCallback = Callable[[str, Evidence], None]


@dataclass(frozen=True)
class _ClipJob:
    clip: _PendingClip
    frames: list[tuple[float, FrameLike]]
    fps: float
    whole: bool  # the camera's frames reached the end of the clip's window


class ClipCancelled(Exception):
    """The table stopped while a clip was being written; its partial file is removed."""


class EvidenceRecorder:
    """Ring buffers for every camera plus the writing of stills and clips."""

    def __init__(self, config: EvidenceConfig, *, on_clip: ClipCallback | None = None) -> None:
        self.config = config
        self.on_clip = on_clip
        self.rings: dict[str, FrameRing] = {}
        self._pending: list[_PendingClip] = []
        self._lock = threading.Lock()
        # a clip to write, an Event the worker sets when it gets there (flush waits on it), or None: end
        self._jobs: queue.Queue[_ClipJob | threading.Event | None] = queue.Queue()
        self._cancel = threading.Event()  # set at close: drop what is left, abandon the clip in hand
        self._closed = False
        self.clips_dropped = 0  # booked, not written: the table stopped first
        self._hand: HandRecording | None = None  # the hand being recorded
        self._hand_wanted: tuple[str, float] | None = None  # a hand started before its camera's first frame
        self._hands_finishing: list[HandRecording] = []
        self._worker = threading.Thread(target=self._work, name="evidence-clips", daemon=True)
        self._worker.start()
        config.folder.mkdir(parents=True, exist_ok=True)

    # --- the camera loop's side ---------------------------------------------------------------------

    def add_frame(self, camera: str, ts: float, frame: FrameLike, boxes: Sequence[Box] = ()) -> None:
        """One frame of ``camera``: a BGR image, or a compressed frame (decoded only if it is written)."""
        if isinstance(frame, np.ndarray) and (frame.ndim != 3 or frame.shape[2] != 3):
            raise ValueError(f"camera {camera}: expected a BGR frame (h, w, 3), got shape {frame.shape}")
        if not isinstance(frame, np.ndarray) and not hasattr(type(frame), "image"):  # (not decoding it)
            raise ValueError(f"camera {camera}: expected a BGR frame or a compressed one, got {type(frame).__name__}")
        with self._lock:
            ring = self.rings.get(camera)
            if ring is None:
                ring = self.rings[camera] = FrameRing(self.config.before_s + self.config.after_s + 1.0)
            ring.add(ts, frame, boxes)
            if self._hand is None and self._hand_wanted is not None:
                self._begin_hand(*self._hand_wanted)
            if self._hand is not None and self._hand.camera == camera:
                self._hand.offer(ts, frame)
            due = [p for p in self._pending if p.camera == camera and ts >= p.end]
            for clip in due:
                self._pending.remove(clip)
                self._jobs.put(_ClipJob(clip, ring.window(clip.start, clip.end), ring.fps(), whole=True))

    # --- the alert's side ---------------------------------------------------------------------------

    def capture(self, alert: str, ts: float, *, camera: str | None = None, boxes: Sequence[Box] = (),
                label: str = "", frame_ts: Sequence[float] = (), boxes_size: tuple[int, int] | None = None
                ) -> Evidence:
        """Write the still now, book the clip; the returned Evidence has ``clip_ready`` False. ``boxes_size``: the
        (width, height) the boxes are given in, when not the frame's (a profile calibrated at another resolution
        than the evidence stream's)."""
        with self._lock:
            camera = camera or next(iter(self.rings), None)
            ring = self.rings.get(camera) if camera else None
            if camera is None or ring is None or (index := ring.nearest(ts)) is None:
                source = f"camera {camera!r}" if camera else "any camera"
                log.warning("alert %s: no frames from %s to show; no still or clip", alert, source)
                return Evidence(frame_ts=tuple(frame_ts))
            kept, seen = ring.frames[index], list(ring.boxes[index])
        frame = pixels(kept)
        if frame is None:
            log.warning("alert %s: the frame nearest it does not decode; no still or clip", alert)
            return Evidence(frame_ts=tuple(frame_ts))
        if boxes_size is not None and boxes_size != (frame.shape[1], frame.shape[0]):
            sx, sy = frame.shape[1] / boxes_size[0], frame.shape[0] / boxes_size[1]
            boxes = [box.scaled(sx, sy) for box in boxes]
        stem = self.config.folder / f"{alert}-{camera}"
        still = stem.with_suffix(".jpg")
        annotated = draw(frame, [*seen, *boxes], caption=f"{label}  t={ts:.2f}s".strip())
        cv2.imwrite(str(still), annotated, [cv2.IMWRITE_JPEG_QUALITY, self.config.jpeg_quality])
        clip = stem.with_suffix(self.config.extension)
        start, end = max(0.0, ts - self.config.before_s), ts + self.config.after_s
        evidence = Evidence(still_path=str(still.resolve()), still_url=self._url(still),
                            clip_path=str(clip.resolve()), clip_url=self._url(clip), clip_ready=False,
                            clip_from_ts=start, clip_to_ts=end, frame_ts=tuple(frame_ts) or (ts,))
        with self._lock:
            self._pending.append(_PendingClip(alert=alert, camera=camera, start=start, end=end, path=clip,
                                              evidence=evidence))
        return evidence

    # --- the hand's recording -----------------------------------------------------------------------

    def start_hand(self, ident: str, ts: float) -> None:
        """Record the hand ``ident`` (its id: the file is named after it) from ``lead_s`` before ``ts``, the ring's
        frames first; a hand still recorded is ended."""
        if self.config.hand_clips.fps <= 0 or self._closed:
            return
        self.end_hand()
        with self._lock:
            self._hand_wanted = (ident, ts)
            self._begin_hand(ident, ts)

    def end_hand(self) -> HandClip | None:
        """End the hand's recording; where it will be (written within moments, by its own thread), or None when
        no frame came."""
        with self._lock:
            recording, self._hand, self._hand_wanted = self._hand, None, None
            self._hands_finishing = [r for r in self._hands_finishing if not r.join(0)]
        if recording is None:
            return None
        if recording.from_ts is None:
            recording.abandon()
            return None
        recording.finish()
        with self._lock:
            self._hands_finishing.append(recording)
        return HandClip(path=recording.path.resolve(), url=self._url(recording.path), from_ts=recording.from_ts,
                        to_ts=recording.last_ts if recording.last_ts is not None else recording.from_ts)

    def hands_written(self, timeout: float) -> bool:
        """Wait up to ``timeout`` for the ended hands' recordings to be written; False when one is not yet."""
        deadline = time.monotonic() + timeout
        with self._lock:
            finishing = list(self._hands_finishing)
        return all([r.join(max(0.0, deadline - time.monotonic())) for r in finishing])

    def _begin_hand(self, ident: str, ts: float) -> None:
        """(Under the lock.) Start the recording once its camera has sent frames."""
        config = self.config.hand_clips
        camera = config.camera or next(iter(self.rings), None)
        ring = self.rings.get(camera) if camera else None
        if camera is None or ring is None:
            return
        self._hand_wanted = None
        self._hand = HandRecording(self.config.folder / f"{ident}-{camera}{self.config.extension}", camera=camera,
                                   fps=config.fps, width=config.width, codec=self.config.codec)
        for t, frame in ring.window(ts - config.lead_s, float("inf")):
            self._hand.offer(t, frame)

    def flush(self, timeout: float = 180.0) -> bool:
        """Write every booked clip with the frames there are and wait up to ``timeout`` for the writer; False
        when it is still writing then. A clip whose window the frames have not reached is written, not
        announced ready."""
        if self._closed:
            return True
        with self._lock:
            for clip in self._pending:
                ring = self.rings[clip.camera]
                whole = bool(ring.times) and ring.times[-1] >= clip.end
                self._jobs.put(_ClipJob(clip, ring.window(clip.start, clip.end), ring.fps(), whole=whole))
            self._pending.clear()
        done = threading.Event()
        self._jobs.put(done)
        return done.wait(timeout)

    def close(self, timeout: float | None = None) -> None:
        """At shutdown: write the booked clips for up to ``timeout`` seconds (CLIPS_AT_STOP_S), then drop what
        is left and stop the writer between two frames. The writer has ended when this returns: exiting while it
        is inside the encoder would abort the process."""
        if self._closed:
            return
        timeout = CLIPS_AT_STOP_S if timeout is None else timeout
        deadline = time.monotonic() + timeout
        self.end_hand()  # a hand cut short by the stop: written, never announced (its hand is not published)
        if not self.flush(timeout):
            log.error("evidence clips still being written after %.0f s: the rest are dropped", timeout)
            self._cancel.set()
        self._jobs.put(None)
        self._worker.join()
        for recording in self._hands_finishing:
            if not recording.join(max(0.0, deadline - time.monotonic())):
                recording.abandon()
                recording.join()
        self._closed = True
        if self.clips_dropped:
            log.error("%d clip(s) not written: the table stopped first", self.clips_dropped)

    def _url(self, path: Path) -> str | None:
        if not self.config.url_base:
            return None
        return f"{self.config.url_base.rstrip('/')}/{path.name}"

    # --- the worker ---------------------------------------------------------------------------------

    def _work(self) -> None:
        while (job := self._jobs.get()) is not None:
            if isinstance(job, threading.Event):
                job.set()
            elif self._cancel.is_set():
                self.clips_dropped += 1
            else:
                self._write(job)

    def _write(self, job: _ClipJob) -> None:
        clip = job.clip
        try:
            written = write_clip(clip.path, job.frames, fps=job.fps, codec=self.config.codec, cancel=self._cancel)
        except ClipCancelled:
            self.clips_dropped += 1
            return
        except (cv2.error, OSError, ValueError) as exc:
            log.error("alert %s: clip %s not written: %s", clip.alert, clip.path, exc)
            return
        if not job.whole:
            log.warning("alert %s: clip %s ends at %.2f s, short of %.2f s (the camera stopped first): kept, not "
                        "announced ready", clip.alert, clip.path.name, written[1], clip.end)
            return
        evidence = replace(clip.evidence, clip_ready=True, clip_from_ts=written[0], clip_to_ts=written[1])
        if self.on_clip is not None:
            try:
                self.on_clip(clip.alert, evidence)
            except Exception:  # the publisher's problem must not stop the writer
                log.exception("on_clip for %s failed", clip.alert)


def write_clip(path: Path, frames: list[tuple[float, FrameLike]], *, fps: float, codec: str = "VP80",
               cancel: threading.Event | None = None) -> tuple[float, float]:
    """Write ``frames`` to ``path`` (compressed ones decoded one at a time, those that don't decode left out);
    returns the first and last frame times actually written. The video is written beside ``path`` and renamed
    to it once whole, so ``path`` never holds a partial file; ClipCancelled when ``cancel`` is set meanwhile."""
    if not frames:
        raise ValueError("no frames in the clip's window (the ring buffer was empty or too short)")
    partial = path.with_name(f"{path.stem}.partial{path.suffix}")  # the suffix picks the container
    try:
        written = _encode(partial, frames, fps=fps, codec=codec, cancel=cancel)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    os.replace(partial, path)
    return written


def _encode(path: Path, frames: list[tuple[float, FrameLike]], *, fps: float, codec: str,
            cancel: threading.Event | None) -> tuple[float, float]:
    writer: cv2.VideoWriter | None = None
    written: list[float] = []
    try:
        for ts, kept in frames:
            if cancel is not None and cancel.is_set():
                raise ClipCancelled(path.name)
            frame = pixels(kept)
            if frame is None:
                continue
            if writer is None:
                height, width = frame.shape[:2]
                writer = open_writer(path, codec, fps, (width, height))
                if not writer.isOpened():
                    raise ValueError(f"OpenCV can't write {codec} video to {path.name}")
            if frame.shape[:2] != (height, width):
                frame = cv2.resize(frame, (width, height))
            writer.write(frame)
            written.append(ts)
    finally:
        if writer is not None:
            writer.release()
    if not written:
        raise ValueError("no frame in the clip's window decodes")
    return written[0], written[-1]


def open_writer(path: Path, codec: str, fps: float, size: tuple[int, int]) -> cv2.VideoWriter:
    with _opencv_tag_notice_dropped():
        return cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*codec), max(1.0, fps), size)


# OpenCV's FFmpeg writer says at every WebM it opens that the container has no tag for VP8, and then writes the
# video right. It says so with fprintf on stderr, which no logging setting reaches, so the line is dropped here.
_TAG_NOTICE = re.compile(rb"OpenCV: FFMPEG: (tag 0x[0-9a-f]{8}/'.{4}' is not supported|fallback to use tag)")
_STDERR_LOCK = threading.Lock()


@contextmanager
def _opencv_tag_notice_dropped() -> Iterator[None]:
    """Runs the block with file descriptor 2 caught in a file; the tag notice is dropped and everything else
    written meanwhile (by any thread) is passed on to stderr afterwards, in order."""
    with _STDERR_LOCK, tempfile.TemporaryFile() as caught:
        sys.stderr.flush()
        saved = os.dup(2)
        os.dup2(caught.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            caught.seek(0)
            kept = [line for line in caught.read().splitlines(keepends=True) if not _TAG_NOTICE.match(line)]
            if kept:
                os.write(2, b"".join(kept))


def draw(frame: np.ndarray, boxes: Sequence[Box], *, caption: str = "") -> np.ndarray:
    """A copy of ``frame`` with the boxes, their labels and a caption bar drawn on it."""
    out = frame.copy()
    scale = max(0.4, out.shape[1] / 1600)
    for box in boxes:
        cv2.rectangle(out, (box.x1, box.y1), (box.x2, box.y2), box.color, max(2, round(2 * scale)))
        if box.label:
            cv2.putText(out, box.label, (box.x1, max(12, box.y1 - 6)), cv2.FONT_HERSHEY_SIMPLEX, scale, box.color,
                        max(1, round(scale * 2)), cv2.LINE_AA)
    if caption:
        bar = round(28 * scale * 1.6)
        cv2.rectangle(out, (0, 0), (out.shape[1], bar), (0, 0, 0), -1)
        cv2.putText(out, caption, (8, round(bar * 0.72)), cv2.FONT_HERSHEY_SIMPLEX, scale, (255, 255, 255),
                    max(1, round(scale * 2)), cv2.LINE_AA)
    return out

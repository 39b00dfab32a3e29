"""A camera in a process of its own (``own_process = true`` in its configuration).

The camera's process reads its frames, decodes what vision looks at and runs perception and the drift watch: a
4K camera's work does not share an interpreter with the rules and the outputs. Its frames go into shared memory
(``SharedFrames``) for the evidence recorder; what crosses the pipe is small: where each frame lies, the events
perception found and the camera's counters. The camera's process runs the same ``CameraSource`` a camera in a
thread runs, so it reconnects, skips corrupt frames and reports outages the same way.

In the table's process a ``CameraProcess`` stands for the camera: it passes the events on in the order they
were found, and the camera's horizon after them (so the pipeline never lets another sensor's event overtake
one still on the way). A camera process that dies (a decoder's crash, the kernel's OOM killer) is a camera down:
SYS-CAMERA is raised, and the process is started again with the same backoff as a camera that fails to open.
The camera's process ends by itself when the table's process is gone.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import threading
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from tablewatch.edge.frames import FrameRef, SharedFrame, SharedFrames
from tablewatch.events import DeviceStatus
from tablewatch.table.config import CameraConfig
from tablewatch.table.pipeline import Emit
from tablewatch.table.sources import (
    RETRY_FIRST_S,
    RETRY_MAX_S,
    CameraFeed,
    CameraSource,
    CameraStatus,
    camera_drift,
    camera_perception,
)

log = logging.getLogger(__name__)

STOP_WAIT_S = 10.0  # for the camera's process to flush what perception still waits to decide, at the table's stop
PARENT_CHECK_S = 0.5  # how often the camera's process looks whether its frames have ended


@dataclass(frozen=True)
class CameraJob:
    """What the camera's process needs to build its camera: pickled to it at its start."""

    camera: CameraConfig
    table: str
    tolerance_mm: float
    clock_zero: float  # time.monotonic() when the table's clock read 0 (the same on every process of a box)
    memory: str  # the shared frame ring's name
    keep_frames: bool  # the evidence recorder wants them
    retry_first_s: float
    retry_max_s: float


class CameraProcess(CameraFeed):
    """The table's side of a camera in its own process (``CameraFeed``: the same counters as a camera in a
    thread, read from the messages of its process)."""

    def __init__(self, config: CameraConfig, *, table: str, clock: Any, frame_sinks: list[Any], perceiving: bool,
                 tolerance_mm: float, retry_first_s: float = RETRY_FIRST_S,
                 retry_max_s: float = RETRY_MAX_S) -> None:
        self.name = f"camera {config.name}"
        self.config, self.table, self.clock, self.frame_sinks = config, table, clock, frame_sinks
        self._perceiving, self.tolerance_mm = perceiving, tolerance_mm
        self.retry_first_s, self.retry_max_s = retry_first_s, retry_max_s
        self.frames = self.bad_frames = self.events = self.outages = 0
        self.error, self._view = "", ""
        self.horizon: float | None = None
        self.origin: float | None = None
        self.lag_s = self.worst_lag_s = 0.0
        self.restarts = 0  # the camera's process died and was started again
        self._down_since: float | None = None  # on the table's clock, from its process's death to its next frame
        self.ring: SharedFrames | None = None
        self._emit: Emit | None = None
        self._never_ran = False  # no shared memory for its frames: started, and done at once
        self._stop = threading.Event()
        self._orders: Connection | None = None  # to the running camera process: "stop"
        self._thread: threading.Thread | None = None
        self._process: Any = None
        self._counted = CameraStatus(frames=0, bad_frames=0, events=0, error="", outages=0, horizon=None,
                                     origin=None, lag_s=0.0, worst_lag_s=0.0, view="")  # by processes before

    @property
    def perceiving(self) -> bool:
        return self._perceiving

    @property
    def view_status(self) -> str:
        return self._view

    @property
    def finished(self) -> bool:
        # (not while it starts: between the two, it has neither its memory nor its thread yet)
        return self._never_ran or (self._thread is not None and not self._thread.is_alive())

    def start(self, emit: Emit) -> None:
        self._emit = emit
        try:
            self.ring = SharedFrames.create(self.config.shared_memory_mb)
        except OSError as exc:  # the table goes on without this camera, and says why
            self.error = f"no shared memory for its frames: {exc}"
            self._never_ran = True
            log.error("%s: %s", self.name, self.error)
            self._announce(online=False, detail=self.error)
            return
        self._thread = threading.Thread(target=self._watch, name=self.name, daemon=True)
        self._thread.start()

    def _job(self) -> CameraJob:
        assert self.ring is not None
        return CameraJob(camera=self.config, table=self.table, tolerance_mm=self.tolerance_mm,
                         clock_zero=time.monotonic() - self.clock(), memory=self.ring.name,
                         keep_frames=bool(self.frame_sinks),
                         retry_first_s=self.retry_first_s, retry_max_s=self.retry_max_s)

    def _watch(self) -> None:
        """Run the camera's process, and again after it dies (with backoff) until the table stops or the camera
        is done (a video file played out)."""
        delay = self.retry_first_s
        while not self._stop.is_set():
            frames_before = self.frames
            done, exit_code = self._run_process()
            if done or self._stop.is_set():
                return
            if self.frames > frames_before:
                delay = self.retry_first_s
            self._process_died(exit_code, retry_in=delay)
            if self._stop.wait(delay):
                return
            delay = min(delay * 2, self.retry_max_s)

    def _run_process(self) -> tuple[bool, int | None]:
        """One camera process, its messages passed on until it ends: (whether it said it was done, exit code)."""
        context = multiprocessing.get_context("spawn")  # a fork would copy the table's threads' locks
        ours, theirs = context.Pipe(duplex=False)
        orders_in, self._orders = context.Pipe(duplex=False)  # not a multiprocessing.Event: one held by a process
        # killed -9 blocks whoever sets it next
        process = context.Process(target=camera_main, args=(self._job(), theirs, orders_in),
                                  name=f"tablewatch {self.name}", daemon=True)
        process.start()
        theirs.close()
        orders_in.close()
        self._process = process
        if self._stop.is_set():  # stopped while it started
            self._order_stop()
        done = False
        try:
            while not done:
                done = self._handle(ours.recv())
        except (EOFError, OSError):
            pass  # the process is gone
        finally:
            ours.close()
            self._orders.close()
            process.join(timeout=STOP_WAIT_S)
            if process.is_alive():
                process.kill()
                process.join()
        if not done:  # what it had sent counts; its perception's undecided motions died with it
            self.horizon = None
            self._counted = self.status()
        return done, process.exitcode

    def _handle(self, message: tuple[Any, ...]) -> bool:
        """One message from the camera's process; True when it is done."""
        kind = message[0]
        if kind == "event":
            if self._emit is not None:
                self._emit(message[1])
        elif kind == "frame":
            self._frame(message[1])
        elif kind in ("status", "done"):
            self._apply(message[1])
            if self._down_since is not None and message[1].frames:
                self._came_back()
        return bool(kind == "done")

    def _frame(self, ref: FrameRef) -> None:
        assert self.ring is not None
        picture = SharedFrame(self.ring, ref)
        for sink in self.frame_sinks:
            sink(self.config.name, ref.ts, picture)

    def _apply(self, status: CameraStatus) -> None:
        before = self._counted
        self.frames, self.bad_frames = before.frames + status.frames, before.bad_frames + status.bad_frames
        self.events, self.outages = before.events + status.events, before.outages + status.outages
        self.error, self._view, self.horizon, self.origin = status.error, status.view, status.horizon, status.origin
        self.lag_s, self.worst_lag_s = status.lag_s, max(before.worst_lag_s, status.worst_lag_s)

    def _process_died(self, exit_code: int | None, *, retry_in: float) -> None:
        self.restarts += 1
        self.error = f"the camera's process ended (exit code {exit_code})"
        log.warning("%s: %s; starting it again in %.1f s", self.name, self.error, retry_in)
        if self._down_since is None:
            self._down_since = self.clock()
            self._announce(online=False, detail=self.error)

    def _came_back(self) -> None:
        assert self._down_since is not None
        detail = f"frames again after {self.clock() - self._down_since:.0f} s (its process started again)"
        self._down_since = None
        self._announce(online=True, detail=detail)

    def _announce(self, *, online: bool, detail: str) -> None:
        if self._emit is not None:
            self._emit(DeviceStatus(ts=self.clock(), table=self.table, source="vision", device=self.name,
                                    online=online, detail=detail))

    def _order_stop(self) -> None:
        orders = self._orders
        if orders is not None:
            with contextlib.suppress(OSError):  # closed: that process is ending anyway
                orders.send("stop")

    def stop(self) -> None:
        self._stop.set()
        self._order_stop()
        if self._thread is not None:
            self._thread.join(timeout=STOP_WAIT_S + 5)
        if self.ring is not None:
            self.ring.unlink()


class _ReportingCamera(CameraSource):
    """The camera as its own process runs it: after each frame (and at its end) its counters and horizon go to
    the table's process, behind the events the frame gave."""

    def __init__(self, *args: Any, report: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._report = report

    def _frame(self, ts: float, image: Any) -> None:
        super()._frame(ts, image)
        self._report(("status", self.status()))

    def _flush(self) -> None:
        super()._flush()
        self._report(("status", self.status()))


def camera_main(job: CameraJob, pipe: Connection, orders: Connection) -> None:
    """The camera's process: its camera until the table stops it, its frames end, or the table's process is gone
    (its end of ``orders`` then closes)."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    lock = threading.Lock()

    def send(message: tuple[Any, ...]) -> None:
        with lock:
            pipe.send(message)

    ring = SharedFrames.attach(job.memory)
    perception = camera_perception(job.camera, table=job.table)

    def keep(_camera: str, ts: float, frame: Any) -> None:
        ref = ring.write(frame, ts=ts)
        if ref is not None:
            send(("frame", ref))

    camera = _ReportingCamera(job.camera, table=job.table, clock=lambda: time.monotonic() - job.clock_zero,
                              frame_sinks=[keep] if job.keep_frames else [], perception=perception,
                              drift=camera_drift(job.camera, perception, table=job.table,
                                                 tolerance_mm=job.tolerance_mm),
                              retry_first_s=job.retry_first_s, retry_max_s=job.retry_max_s, report=send)
    camera.start(lambda event: send(("event", event)))
    while not camera.finished and not orders.poll(PARENT_CHECK_S):  # an order, or the table's end closed
        pass
    camera.stop()
    with contextlib.suppress(OSError):  # the table's process is gone: nobody to tell
        send(("done", camera.status()))
    pipe.close()


"""Drift watch of a perceiving camera in ``tablewatch run``: a camera moved or knocked, vision paused, and
resumed with a new calibration once it holds still.

Every ``every``-th frame the table's markers are looked for and judged by
``tablewatch.calibration.drift.DriftMonitor``. The look is cheap: a small crop around where each marker was
last seen (the whole frame only when fewer than the monitor needs are found there, as after a big move), in a
compressed frame decoded only as large as it needs (a 4K frame at half size: ``python -m
tablewatch.bench.drift_bench`` measures what that costs and saves).

Vision's events wait in the gate until a check at or after their time finds the camera where its
calibration expects it. A knock between two checks is only seen at the next one (and confirmed at the one
after), so what vision reported in between may come from the moved camera: once the move is confirmed,
those events are dropped, and so is everything from then until the recalibration (perception is paused
meanwhile: its zones would be wrong). Vision reports an event ~0.4-0.7 s after it happened, about a check
period at the default rate, so the wait adds little to its latency. A check that sees too few markers to
judge (hands over them, or a camera turned away) vets nothing: the events wait for one that does.

The gate emits ``CameraMoved`` (the rules raise SYS-CAMERA on it) and, when the markers have held still
and the monitor has refitted, ``CameraRecalibrated``; perception then goes on with the new calibration.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from tablewatch.calibration.drift import SHAKE_WINDOW, DriftMonitor, DriftState
from tablewatch.calibration.markers import (
    Detections,
    crop_marker_detector,
    detect_markers,
    find_near,
    marker_detector,
    whole_px,
)
from tablewatch.events import CameraMoved, CameraRecalibrated, Event
from tablewatch.vision.perception.perception import Perception, Picture, decoded
from tablewatch.vision.perception.plane import REDUCTIONS

CHECK_MIN_WIDTH = 1280  # pixels: a compressed frame is decoded down no further for a check
DEFAULT_EVERY = 6  # frames between checks: 0.2 s at 30 fps, 0.4 s at 15
MARGIN_PX = 64  # how far around a marker's last place to look (a 40 mm knock moves it ~30 px at 720p)


@dataclass
class DriftGate:
    """Between one camera's perception and the table: ``frame`` and ``flush`` return what may go on."""

    monitor: DriftMonitor
    perception: Perception
    every: int = DEFAULT_EVERY
    margin_px: int = MARGIN_PX
    frames: int = 0
    checks: int = 0
    check_s: float = 0.0  # time spent looking for markers
    dropped: int = 0  # vision events set aside because the camera had moved
    moved: CameraMoved | None = None  # the move in progress, if any
    recalibrated: CameraRecalibrated | None = None  # the latest recalibration
    _held: list[Event] = field(default_factory=list)
    _vetted: float = -math.inf  # the time of the last check that found the camera steady
    _blind: list[tuple[float, float]] = field(default_factory=list)  # (after, before): vision events dropped
    _where: Detections = field(default_factory=dict)  # marker -> its corners where last seen
    _unchecked: tuple[np.ndarray | Picture, float] | None = None  # the latest frame, when no check has looked at it

    def __post_init__(self) -> None:
        if self.every < 1:
            raise ValueError(f"drift checks every {self.every} frames: must be 1 or more")
        self._detector = marker_detector(self.monitor.layout.dictionary)
        self._crop_detector = crop_marker_detector(self.monitor.layout.dictionary)
        self._expect_markers()

    def _expect_markers(self) -> None:
        """Each marker looked for where the calibration saw it, or would have."""
        self._where = self.monitor.expected_pixels()

    @property
    def horizon(self) -> float | None:
        """The earliest time an event still to come from this camera may carry: held events count."""
        times = [e.ts for e in self._held]
        if self.perception.horizon is not None:
            times.append(self.perception.horizon)
        return min(times) if times else None

    @property
    def paused(self) -> bool:
        return self.monitor.state is DriftState.MOVED

    def frame(self, image: np.ndarray | Picture, ts: float) -> list[Event]:
        """One frame at ``ts`` (an image, or a compressed frame: decoded in full only when checked): the drift
        notices and the vetted vision events it makes ready, in time order."""
        out: list[Event] = []
        if self.frames % self.every == 0:
            out += self._check(image, ts)
            self._unchecked = None
        else:
            self._unchecked = (image, ts)
        self.frames += 1
        if not self.paused:
            self._held += self.perception.process(image, ts)
            self._follow_size()
        return sorted(out + self._release(), key=lambda e: e.ts)

    def _follow_size(self) -> None:
        """Perception scaled its calibration to frames of another size: the checks follow it."""
        calibration = self.perception.calibration
        if calibration is not None and calibration.image_size != self.monitor.calibration.image_size:
            self.monitor.follow(calibration)
            self._expect_markers()

    def flush(self, ts: float) -> list[Event]:
        """The frames have ended: a last check on the last frame, then what perception still waited to decide.
        Vision events after the last steady check are dropped when the camera is (or may be) moved."""
        out = self._check(*self._unchecked) if self._unchecked is not None else []
        self._unchecked = None
        if not self.paused:
            self._held += self.perception.flush(ts)
        if self._steady:
            self._vetted = math.inf
        out += self._release()
        self.dropped += len(self._held)
        self._held = []
        return sorted(out, key=lambda e: e.ts)

    def resume(self) -> None:
        """Frames come again after the camera was down (and flushed): it may have been moved meanwhile, so its
        events wait for a check again."""
        self._vetted = -math.inf
        self._unchecked = None

    def status(self) -> str:
        """For the status line: empty while all is well."""
        state, moved, recalibrated = self.monitor.state, self.moved, self.recalibrated  # the camera thread sets them
        if state is DriftState.MOVED and moved is not None:
            return f"MOVED {moved.shift_mm:.0f} mm at {moved.ts:.1f}s: vision paused until it holds still"
        if state is DriftState.SUSPECT:
            return "markers shifted: checking"
        if not self._judged:
            return "markers not seen: vision held"
        if recalibrated is not None:
            return f"recalibrated at {recalibrated.ts:.1f}s ({recalibrated.error_mm:.1f} mm)"
        if self.checks >= SHAKE_WINDOW and self.monitor.shaking:
            return "shaking: judged on the markers' average, each frame held still on them"
        return ""

    # --- checks ---------------------------------------------------------------------------------------

    def _check(self, image: np.ndarray | Picture, ts: float) -> list[Event]:
        started = time.perf_counter()
        reduction = self.check_reduction(image)
        seen = self.find_markers(decoded(image, reduction), reduction=reduction)
        events = self.monitor.check(seen, ts)
        self.check_s += time.perf_counter() - started
        self.checks += 1
        self._where.update({m: c for m, c in seen.items() if m in self._where})
        out: list[Event] = []
        for event in events:
            if isinstance(event, CameraMoved):
                out += self._on_moved(event)
        if self.monitor.state is DriftState.RECALIBRATED and self.moved is not None:
            out.append(self._on_recalibrated(ts))
        if self._steady:
            self._vetted = max(self._vetted, ts)
        return out

    @property
    def _judged(self) -> bool:
        """Whether the last check saw enough markers to judge (a hand over them, or a camera turned away)."""
        return not self.monitor.history or self.monitor.history[-1].shift_mm is not None

    @property
    def _steady(self) -> bool:
        """The last check found the camera where its calibration expects it; markers not seen prove nothing."""
        return self._judged and self.monitor.state in (DriftState.STEADY, DriftState.RECALIBRATED)

    def _on_moved(self, event: CameraMoved) -> list[Event]:
        """Pause: what vision saw since the last steady check is set aside, and so is all until it settles."""
        self.moved = event
        self._blind.append((self._vetted, math.inf))
        # Decisions still waiting on motions before the move are made now, while their zones are right.
        self._held += self.perception.flush(event.ts + self.perception.decision_wait_s)
        return [event]

    def _on_recalibrated(self, ts: float) -> Event:
        calibration = self.monitor.calibration
        self.perception.recalibrate(calibration)
        after, _ = self._blind[-1]
        self._blind[-1] = (after, ts)
        assert self.moved is not None
        self.recalibrated = CameraRecalibrated(ts=ts, table=self.moved.table, source="vision",
                                               camera=self.moved.camera, error_mm=round(calibration.mean_error_mm, 2),
                                               markers=len(calibration.markers_used))
        self.moved = None
        return self.recalibrated

    def _release(self) -> list[Event]:
        ready = [e for e in self._held if e.ts <= self._vetted]
        self._held = [e for e in self._held if e.ts > self._vetted]
        kept = [e for e in ready if not any(after < e.ts < before for after, before in self._blind)]
        self.dropped += len(ready) - len(kept)
        return kept

    def check_reduction(self, image: np.ndarray | Picture) -> int:
        """How far a compressed frame is decoded down for a check: as far as it stays CHECK_MIN_WIDTH wide (a
        4K frame by half, its markers still ~60 px; an image in memory is looked at as it is)."""
        if isinstance(image, np.ndarray):
            return 1
        width = self.monitor.calibration.image_size[0]
        return max(k for k in REDUCTIONS if width / k >= CHECK_MIN_WIDTH or k == 1)

    def find_markers(self, image: np.ndarray, *, reduction: int = 1) -> Detections:
        """The markers near where they were last seen; the whole frame when too few are there. ``image`` is the
        frame reduced by ``reduction``; the corners come back in the frame's own pixels."""
        seen = find_near(image, self._where, margin_px=self.margin_px, detector=self._crop_detector,
                         reduction=reduction)
        if len(seen) < self.monitor.min_markers:
            whole = detect_markers(image, detector=self._detector)
            return {marker: whole_px(corners, reduction) for marker, corners in whole.items()}
        return seen


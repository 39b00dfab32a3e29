"""Camera drift: notice when the markers are no longer where the calibration put them.

Each checked frame, the visible markers' corners are mapped through the current calibration onto the
table and compared with where they were seen when it was made. A hand over a marker hides it (it is
simply not detected), so the shift is the median over the markers that are seen, and at least
``min_markers`` must be seen to judge.
When the shift stays above ``threshold_mm`` for ``confirm`` checks, the monitor emits ``CameraMoved``;
it then waits until the markers hold still in the image for ``settle`` checks and recalibrates from
them (a new ``TableCalibration``), ready for the next move.

A camera on a vibrating mount shows its markers a pixel or two off from one check to the next, around where
they belong: judged check by check, a shake at the tolerance's edge passes for a move now and then, and the
markers never hold still to settle. While the picture jumps from check to check by more than ``SHAKING_PX`` (the
median jump over the last ``SHAKE_WINDOW`` checks), the monitor judges where the markers lie on average over the
last ``SHAKE_MEAN`` checks instead: a shake cancels out there, while a move outlasts it (and is confirmed a few
checks later: the bigger, the sooner).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np

from tablewatch.calibration.camera import CalibrationError, TableCalibration
from tablewatch.calibration.layout import TableLayout
from tablewatch.calibration.markers import Detections, calibrate_table, detect_markers, marker_detector
from tablewatch.events import CameraMoved, Event

SHAKING_PX = 0.5  # the picture's median jump from check to check over the last SHAKE_WINDOW checks: a shaking camera
SHAKE_WINDOW = 10  # checks (2 s at the drift gate's rate)
KNOWN_AFTER = 2  # checks that judged the camera before it can be known to be steady (until then, judged as shaking)
SHAKE_MEAN = 20  # checks (4 s): a shaking camera's markers judged where they lie on average over this many


class DriftState(StrEnum):
    STEADY = "steady"  # markers where the calibration expects them
    SUSPECT = "suspect"  # shifted in the last check(s), not yet confirmed
    MOVED = "moved"  # confirmed moved; waiting for the camera to settle
    RECALIBRATED = "recalibrated"  # settled and refitted (reported once, then back to steady)


@dataclass(kw_only=True)
class DriftCheck:
    """What one check saw."""

    ts: float
    state: DriftState
    shift_mm: float | None  # median marker shift on the table, None when too few markers were seen
    markers_seen: int


@dataclass(kw_only=True)
class DriftMonitor:
    """Feed it frames (or detections) with their times; it returns the events to publish."""

    calibration: TableCalibration
    layout: TableLayout
    table: str
    camera: str = "overhead"
    threshold_mm: float = 5.0  # as the rules profile's camera_shift_tolerance_mm
    confirm: int = 2
    settle: int = 3
    settle_px: float = 1.0
    min_markers: int = 2
    state: DriftState = DriftState.STEADY
    history: list[DriftCheck] = field(default_factory=list)
    _suspect: int = field(default=0, init=False, repr=False)
    _still: int = field(default=0, init=False, repr=False)
    _last: Detections | None = field(default=None, init=False, repr=False)
    _recent: deque[Detections] = field(default_factory=lambda: deque(maxlen=SHAKE_MEAN), init=False, repr=False)
    _shifts: deque[np.ndarray] = field(default_factory=lambda: deque(maxlen=SHAKE_WINDOW), init=False, repr=False)

    def __post_init__(self) -> None:
        self._detector = marker_detector(self.layout.dictionary)

    def follow(self, calibration: TableCalibration) -> None:
        """Go on with the same camera's calibration at another resolution (its frames changed size): what was
        seen at the old one is forgotten."""
        self.calibration, self.state, self._suspect, self._last = calibration, DriftState.STEADY, 0, None
        self._recent.clear()
        self._shifts.clear()

    def check_frame(self, frame: np.ndarray, ts: float) -> list[Event]:
        return self.check(detect_markers(frame, detector=self._detector), ts)

    def check(self, detections: Detections, ts: float) -> list[Event]:
        known = self.layout.marker_corners()
        seen = self._judged({m: c for m, c in detections.items() if m in known})
        shift = self.shift_mm(seen)
        events: list[Event] = []
        if self.state in (DriftState.STEADY, DriftState.SUSPECT, DriftState.RECALIBRATED):
            events += self._watch(shift, ts)
        elif self.state is DriftState.MOVED:
            self._wait_to_settle(seen)
        self.history.append(DriftCheck(ts=ts, state=self.state, shift_mm=shift, markers_seen=len(seen)))
        self._last = seen
        return events

    @property
    def shaking(self) -> bool:
        """Whether the picture jumps from check to check (a vibrating mount) over the last checks, or too few
        checks have been made to tell."""
        if len(self._shifts) < KNOWN_AFTER:
            return True
        jumps = np.sort(np.linalg.norm(np.diff(np.stack(self._shifts), axis=0), axis=1))  # a knock: one; a shake: all
        return float(jumps[(len(jumps) - 1) // 2]) > SHAKING_PX  # the lower median: of two, a knock's is the other

    def expected_pixels(self) -> Detections:
        """Where the calibration puts each of the layout's markers in the picture: where it saw them, or for a
        marker it did not see, where the layout's place maps to."""
        cal = self.calibration
        return {m: np.asarray(cal.marker_pixels[str(m)], float) if str(m) in cal.marker_pixels
                else cal.mm_to_px(corners) for m, corners in self.layout.marker_corners().items()}

    def _judged(self, seen: Detections) -> Detections:
        """The markers to judge: as seen, or while the camera shakes, where those seen lie on average over the last
        checks (each over the checks it was seen in). Too few seen to judge are passed on as they are."""
        if len(seen) < self.min_markers:
            return seen
        expected = self.expected_pixels()
        self._shifts.append(np.median([(c - expected[m]).mean(axis=0) for m, c in seen.items()], axis=0))
        self._recent.append(seen)
        if not self.shaking:
            return seen
        return {m: np.mean([check[m] for check in self._recent if m in check], axis=0) for m in seen}

    @property
    def _sure(self) -> bool:
        """Whether the last judgement may confirm a move: the camera known steady, or a shaking camera's markers
        averaged over a whole window (a shake's first checks, averaged over few, may still pass the tolerance)."""
        return not self.shaking or len(self._recent) == SHAKE_MEAN

    def shift_mm(self, seen: Detections) -> float | None:
        """Median distance (mm, on the table) the markers moved since calibration.

        A marker seen at calibration time is compared with where it was seen then (so the fit's own
        residual does not count); any other with where the layout puts it.
        """
        if len(seen) < self.min_markers:
            return None
        known = self.layout.marker_corners()
        cal = self.calibration
        per_marker = []
        for m, corners in seen.items():
            then = cal.marker_pixels.get(str(m))
            reference = cal.px_to_mm(then) if then is not None else known[m]
            per_marker.append(float(np.linalg.norm(cal.px_to_mm(corners) - reference, axis=1).mean()))
        return float(np.median(per_marker))

    def _watch(self, shift: float | None, ts: float) -> list[Event]:
        if self.state is DriftState.RECALIBRATED:
            self.state = DriftState.STEADY
        if shift is None:  # can't judge with the markers covered: keep the state
            return []
        if shift <= self.threshold_mm:
            self.state, self._suspect = DriftState.STEADY, 0
            return []
        self._suspect += 1
        if self._suspect < self.confirm or not self._sure:
            self.state = DriftState.SUSPECT
            return []
        self.state, self._suspect, self._still = DriftState.MOVED, 0, 0
        self._recent.clear()  # where the markers were before the move: not where they will settle
        return [CameraMoved(ts=ts, table=self.table, source="vision", camera=self.camera, shift_mm=round(shift, 1))]

    def _wait_to_settle(self, seen: Detections) -> None:
        if self._last is None or len(seen) < self.min_markers or not self._sure:
            self._still = 0  # (a shaking camera is refitted on where its markers lie over a whole window)
            return
        common = [m for m in seen if m in self._last]
        moves = [float(np.abs(seen[m] - self._last[m]).max()) for m in common]
        self._still = self._still + 1 if common and max(moves) <= self.settle_px else 0
        if self._still >= self.settle:
            try:
                self.calibration = calibrate_table(
                    seen, self.layout, image_size=self.calibration.image_size, camera=self.calibration.camera
                )
            except CalibrationError:
                self._still = 0
                return
            self.state = DriftState.RECALIBRATED

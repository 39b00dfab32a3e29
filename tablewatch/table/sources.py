"""The sources of a live table: each RFID reader line, the dealer console and each camera, in its own thread,
sending events to the pipeline on the table's clock."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tablewatch.calibration.drift import DriftMonitor
from tablewatch.calibration.layout import LayoutError
from tablewatch.calibration.profile import load_profile
from tablewatch.config import ConfigError
from tablewatch.devices.console import SerialConsole
from tablewatch.devices.ledger import ChipLedger
from tablewatch.devices.poller import ReaderConfig, ReaderPoller
from tablewatch.devices.registry import TagRegistry
from tablewatch.events import Chips, DeviceStatus, Event
from tablewatch.table.config import CameraConfig
from tablewatch.table.drift import DriftGate
from tablewatch.table.pipeline import Emit
from tablewatch.table.replay_clock import SWEEP_S, Player, ReplayClock
from tablewatch.vision.perception.perception import Perception, PerceptionError

log = logging.getLogger(__name__)

# A reader line of a recording played fast sweeps when its antennas change (SWEEP_S later, as paced), when a sweep
# every SWEEP_S would find a missing chip gone, and otherwise every FAST_IDLE_S of the recording: each sweep costs
# its real time, and the others would see nothing new.
FAST_IDLE_S = 1.0


class RfidSource:
    """One reader line, polled in its own thread; its ledger's events go to the pipeline. With a ``conductor``
    (a recording played fast) the poller sweeps on its clock."""

    def __init__(self, config: ReaderConfig, *, table: str, registry: TagRegistry, clock: Any,
                 conductor: ReplayClock | None = None) -> None:
        self.name = f"rfid {config.device}"
        self.config, self.table, self.registry, self.clock = config, table, registry, clock
        self.conductor = conductor
        self.ledger = ChipLedger(registry, table=table)  # what its antennas count where (fusion reads it too)
        self.poller: ReaderPoller | None = None
        self._player: Player | None = None

    def start(self, emit: Emit) -> None:
        pause = None
        if self.conductor is not None:
            self._player = self.conductor.join(self.name, prompted=True)
            pause = self._pause
        self.poller = ReaderPoller(self.config, table=self.table, clock=self.clock, on_event=emit,
                                   ledger=self.ledger, pause=pause)
        self.poller.start()

    def _pause(self, seconds: float, stop: threading.Event) -> bool:
        """Until the next sweep on the conductor's clock (the conductor prompts one when the antennas change)."""
        assert self._player is not None
        now = self.clock()
        due = now + max(seconds, FAST_IDLE_S)
        expiry = self.ledger.next_expiry(sweep_every=SWEEP_S)
        if expiry is not None:  # (one rounded to now did not count as passed: the next sweep will)
            due = min(due, expiry if expiry > now else now + SWEEP_S)
        return self._player.sleep_until(due, stop)

    def stop(self) -> None:
        if self.poller is not None:
            self.poller.stop()
        if self._player is not None:
            self._player.leave()

    @property
    def online(self) -> bool:
        return bool(self.poller and self.poller.online)

    @property
    def has_read_every_antenna(self) -> bool:
        return bool(self.poller and self.poller.has_read_every_antenna)


class ConsoleSource:
    """The dealer console on a serial line. Its declarations are stamped ``typing_lag_s`` before they arrive, so
    one may still come for any moment since then (its horizon)."""

    def __init__(self, url: str, *, table: str, clock: Any, typing_lag_s: float = 0.0) -> None:
        self.name = f"console {url}"
        self.url, self.table, self.clock, self.typing_lag_s = url, table, clock, typing_lag_s
        self.console: SerialConsole | None = None

    @property
    def horizon(self) -> float | None:
        return self.clock() - self.typing_lag_s if self.typing_lag_s else None

    def start(self, emit: Emit) -> None:
        self.console = SerialConsole(self.url, table=self.table, clock=self.clock, on_event=emit,
                                     typing_lag_s=self.typing_lag_s).start()

    def stop(self) -> None:
        if self.console is not None:
            self.console.stop()


# A camera that can't be opened, dies or whose stream ends is retried after RETRY_FIRST_S, doubled per failure up
# to RETRY_MAX_S: soon enough to notice a replugged camera, rare enough not to flood a dead address.
RETRY_FIRST_S = 0.5
RETRY_MAX_S = 30.0
# A live stream's dropped reads reopened quietly before the camera counts as down (a dropped frame or a stream
# that restarts at once is not worth an alert); about 1.5 s with LiveSource's 0.5 s first delay.
LIVE_QUIET_RECONNECTS = 2


class CameraFeed:
    """What the table knows of one camera while it runs, in a thread (``CameraSource``) or in a process of its own
    (``tablewatch.edge.camera.CameraProcess``)."""

    name: str
    frames: int
    bad_frames: int  # frames whose compressed data did not decode (skipped)
    events: int
    error: str  # why the camera is down (empty while it delivers)
    outages: int
    # What the pipeline may hold the other sensors' events for: the earliest time an event still to come
    # from this camera may carry.
    horizon: float | None
    origin: float | None  # a video file's start on the table's clock
    lag_s: float  # how late its last frame was handled (kept, and analysed where vision watches) after its moment
    worst_lag_s: float

    @property
    def perceiving(self) -> bool:
        raise NotImplementedError

    @property
    def view_status(self) -> str:
        """What is wrong with the camera's view of the table (moved, too dark…); empty when nothing is."""
        raise NotImplementedError

    @property
    def finished(self) -> bool:
        """The frames have ended (a video file played out, or the camera failed) and what they showed is sent."""
        raise NotImplementedError

    def start(self, emit: Emit) -> None:
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError

    def status(self) -> CameraStatus:
        return CameraStatus(frames=self.frames, bad_frames=self.bad_frames, events=self.events, error=self.error,
                            outages=self.outages, horizon=self.horizon, origin=self.origin, lag_s=self.lag_s,
                            worst_lag_s=self.worst_lag_s, view=self.view_status)


@dataclass(frozen=True, kw_only=True)
class CameraStatus:
    """A camera's counters and times at one moment (sent from a camera's process to the table's)."""

    frames: int
    bad_frames: int
    events: int
    error: str
    outages: int
    horizon: float | None
    origin: float | None
    lag_s: float
    worst_lag_s: float
    view: str  # what is wrong with its view of the table (moved, too dark…), as the status line says it


class CameraSource(CameraFeed):
    """Frames from a camera or file into the evidence ring buffer, counted for the status line, and, when
    the camera has a calibrated table profile, through vision perception into table events.

    A live camera's frames are timed on the table's clock by the stream's timestamps where it sends them, else as
    they arrive (``LiveSource``); a video file is played at its own pace, each frame stamped with the clock at its
    start plus its place in the file, so its events line up with the other sources' (with a ``conductor``, a
    recording played fast, it waits on the conductor's clock for each frame, which moves on once the frame is
    analysed). When the frames end or the table stops, what perception still waits to decide is flushed: nothing
    seen is lost.

    A camera that is missing, can't be read, or whose live stream dies or ends is down: it says so once
    (``DeviceStatus`` offline: the rules raise SYS-CAMERA), is retried with backoff, and says it is back with
    its first frame. A video file played to its end is not a failure: the camera is done.
    """

    def __init__(self, config: CameraConfig, *, table: str, clock: Any, frame_sinks: list[Any],
                 perception: Perception | None = None, drift: DriftGate | None = None,
                 retry_first_s: float = RETRY_FIRST_S, retry_max_s: float = RETRY_MAX_S,
                 conductor: ReplayClock | None = None) -> None:
        self.name = f"camera {config.name}"
        self.config, self.table, self.clock, self.frame_sinks = config, table, clock, frame_sinks
        self.conductor = conductor
        self._player: Player | None = None
        self.perception = perception
        self.drift = drift  # between perception and the table, when the camera is watched for drift
        self.retry_first_s, self.retry_max_s = retry_first_s, retry_max_s
        self.origin: float | None = None  # a video file's start on the table's clock
        self.frames = 0
        self.bad_frames = 0  # frames whose compressed data did not decode (skipped)
        self.events = 0
        self.error = ""  # why the camera is down (empty while it delivers)
        self.down_since: float | None = None  # on the table's clock, while the camera is down
        self.outages = 0
        self.lag_s = self.worst_lag_s = 0.0
        self._emit: Emit | None = None
        self._last_ts: float | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.horizon = None  # set only after the events of a frame are sent, so none is overtaken

    def start(self, emit: Emit) -> None:
        self._emit = emit
        if self.conductor is not None:  # the conductor waits for the file to open and its first frame
            self._player = self.conductor.join(self.name)
        self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        from tablewatch.vision.sources import SourceError

        delay = self.retry_first_s
        try:
            while not self._stop.is_set():
                frames_before = self.frames
                try:
                    if self._play():
                        return  # a file played to its end, or the table stops
                    problem = "the stream ended"
                except SourceError as exc:
                    problem = str(exc)
                if self.frames > frames_before:
                    delay = self.retry_first_s  # it worked for a while: a fresh outage
                self._went_down(problem, retry_in=delay)
                self._leave_conductor()  # the recording goes on without it meanwhile
                if self._stop.wait(delay):
                    return
                delay = min(delay * 2, self.retry_max_s)
        except PerceptionError as exc:
            self.error = str(exc)
        except Exception as exc:  # a fault in perception must show in the status line, not end silently
            log.exception("%s failed", self.name)
            self.error = f"failed: {exc}"
        finally:
            self._flush()
            self._leave_conductor()

    def _leave_conductor(self) -> None:
        if self._player is not None:
            self._player.leave()
            self._player = None

    def _play(self) -> bool:
        """Frames from the source until it ends: True when that is the end (a file played through, or the table
        stops), False when a live stream ended; SourceError when it can't be opened or is lost."""
        from tablewatch.vision.sources import SourceError, VideoFileSource, open_source

        if self.conductor is not None and self._player is None:  # back after an outage
            self._player = self.conductor.join(self.name)
        source = open_source(self.config.source, max_reconnects=LIVE_QUIET_RECONNECTS, clock=self.clock)
        try:
            paced, start = isinstance(source, VideoFileSource), self.clock()
            self.origin = start if paced else None
            if not paced:
                self._leave_conductor()  # a live camera's frames come when they come
            for frame in source.frames():
                ts = self._when(start + frame.ts) if paced else frame.ts
                if ts is None or self._stop.is_set():
                    return True
                self._came_back()
                try:
                    self._frame(ts, frame)
                except SourceError as exc:  # one corrupt frame of a compressed stream: the next may be fine
                    self.bad_frames += 1
                    log.warning("%s: %s; frame skipped", self.name, exc)
            return paced
        finally:
            source.close()

    def _went_down(self, problem: str, *, retry_in: float) -> None:
        self.error = problem
        log.warning("%s: %s; retrying in %.1f s", self.name, problem, retry_in)
        if self.down_since is not None:
            return
        self.down_since = self.clock()
        self.outages += 1
        self._flush()  # what perception waited to decide is decided now: the table does not wait for this camera
        self._announce(online=False, detail=problem)

    def _came_back(self) -> None:
        if self.down_since is None:
            return
        detail = f"frames again after {self.clock() - self.down_since:.0f} s"
        self.down_since, self.error = None, ""
        if self.drift is not None:
            self.drift.resume()  # it may have been moved while it was down: its events wait for a check again
        self._announce(online=True, detail=detail)

    def _announce(self, *, online: bool, detail: str) -> None:
        if self._emit is not None:
            self._emit(DeviceStatus(ts=self.clock(), table=self.table, source="vision", device=self.name,
                                    online=online, detail=detail))

    def _when(self, due: float) -> float | None:
        """Wait until a file's frame is due on the table's clock; None when the table stops meanwhile."""
        if self._player is not None:
            return None if self._player.sleep_until(due, self._stop) else due
        if self._stop.wait(max(0.0, due - self.clock())):
            return None
        return due

    def _frame(self, ts: float, image: Any) -> None:
        """One frame (pixels, or a Motion-JPEG frame still compressed: the ring buffer keeps it so, perception
        decodes it when it analyses it) to the sinks and perception."""
        self.frames += 1
        for sink in self.frame_sinks:
            sink(self.config.name, ts, image)
        if self.perception is not None and (self._last_ts is None or ts > self._last_ts):
            self._last_ts = ts
            self._send(self.drift.frame(image, ts) if self.drift else self.perception.process(image, ts))
            self.horizon = self.drift.horizon if self.drift else self.perception.horizon
        self.lag_s = self.clock() - ts
        self.worst_lag_s = max(self.worst_lag_s, self.lag_s)

    def _flush(self) -> None:
        if self.perception is None or self._last_ts is None:
            return
        until = self._last_ts + self.perception.decision_wait_s
        self._send(self.drift.flush(until) if self.drift else self.perception.flush(until))
        self.horizon = None  # the stream is over: nothing more will come

    def _send(self, events: list[Event]) -> None:
        self.events += len(events)
        if self._emit is not None:
            for event in events:
                self._emit(event)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    @property
    def finished(self) -> bool:
        return self._thread is not None and not self._thread.is_alive()

    @property
    def perceiving(self) -> bool:
        return self.perception is not None

    @property
    def view_status(self) -> str:
        drift = self.drift.status() if self.drift is not None else ""
        pictures = (self.perception.picture.status, self.perception.stall.status,
                    self.perception.interlace.status) if self.perception else ()
        return ", ".join(part for part in (drift, *pictures) if part)


def camera_perception(camera: CameraConfig, *, table: str) -> Perception | None:
    """Vision perception for a camera with a calibrated table profile (None without one); ConfigError
    when the profile can't be used."""
    if camera.profile is None:
        return None
    profile = load_profile(camera.profile)
    if profile.table != table:
        raise ConfigError(f"{camera.profile}: a profile of table {profile.table!r}, but camera {camera.name!r} "
                          f"is at table {table!r} (calibrate with --table {table})")
    if profile.chips is None:
        raise ConfigError(f"{camera.profile}: no chip colours; calibrate them with the profile "
                          "(tablewatch calibrate --denominations, or --sim-chips for simulated video)")
    try:
        return Perception(layout=profile.load_layout(), table=table, chips=profile.chips, deck=camera.deck,
                          calibration=profile.calibration, hand_finder=camera.hand_finder, camera=camera.name)
    except (PerceptionError, LayoutError) as exc:
        raise ConfigError(f"camera {camera.name!r} ({camera.profile}): {exc}") from exc


def camera_drift(camera: CameraConfig, perception: Perception | None, *, table: str,
                 tolerance_mm: float) -> DriftGate | None:
    """The drift watch of a perceiving camera (None without perception or with ``drift_every = 0``); a move
    beyond the rules' ``camera_shift_tolerance_mm`` is a move."""
    if perception is None or camera.drift_every == 0 or perception.calibration is None:
        return None
    monitor = DriftMonitor(calibration=perception.calibration, layout=perception.layout, table=table,
                           camera=camera.name, threshold_mm=tolerance_mm)
    return DriftGate(monitor=monitor, perception=perception, every=camera.drift_every)


def earliest_horizon(sources: list[CameraFeed | ConsoleSource]) -> Callable[[], float | None]:
    """The earliest time an event still to come from any of these sources may carry (a perceiving camera's
    undecided motions, a console's declarations still being keyed)."""
    def horizon() -> float | None:
        times = [h for h in (s.horizon for s in sources) if h is not None]
        return min(times) if times else None
    return horizon


def rfid_chips(readers: list[RfidSource]) -> Callable[[str], Chips] | None:
    """The chips the reader lines hold in a zone now (summed over the lines; chips a hand is carrying off it still
    count), or None without readers."""
    if not readers:
        return None
    return lambda zone: sum((r.ledger.held(zone) for r in readers), Chips())


def rfid_lifted(readers: list[RfidSource]) -> Callable[[str, float], Chips] | None:
    """The chips the reader lines missed off a zone since a time that came to rest nowhere since (summed over the
    lines; ``ChipLedger.lifted``), or None without readers."""
    if not readers:
        return None
    return lambda zone, since: sum((r.ledger.lifted(zone, since=since) for r in readers), Chips())

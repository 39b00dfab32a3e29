"""``tablewatch run``: one live table — its readers, its dealer console, its camera, its broker.

A table is described by one TOML (or YAML) file, ``RunConfig``. Every source runs in its own thread
and restarts itself when its device fails (the RFID poller and the console reopen their ports; the
camera source reconnects); the pipeline orders and fuses what they report, the rules judge it, and the
outputs publish it. SIGINT or SIGTERM stops the sources, processes what they already sent, drains the
outbox and announces ``offline``: nothing received is lost.

A camera whose configuration names the table profile calibrated from it (``tablewatch calibrate``) is
watched by vision perception, and its events join the readers' and the console's as in the simulated
session; without a profile a camera gives evidence clips and its frame rate only. Such a camera is also
watched for drift (``tablewatch.e2e.drift``): moved or knocked, it raises SYS-CAMERA, its vision events are
set aside until it holds still, and it goes on with a calibration refitted from the markers.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from pydantic import Field
from rich.console import Console

from tablewatch.alerts.evidence import EvidenceConfig
from tablewatch.calibration.drift import DriftMonitor
from tablewatch.calibration.layout import LayoutError
from tablewatch.calibration.profile import load_profile
from tablewatch.config import ConfigError, StrictModel, load_config
from tablewatch.devices.console import SerialConsole
from tablewatch.devices.ledger import ChipLedger
from tablewatch.devices.poller import ReaderConfig, ReaderPoller, session_clock
from tablewatch.devices.registry import TagRegistry
from tablewatch.e2e.drift import DEFAULT_EVERY, DriftGate
from tablewatch.e2e.outputs import FilesOutput, HandHistoryOutput, MqttOutput, TerminalOutput, start_publisher
from tablewatch.e2e.pipeline import Emit, Output, TablePipeline
from tablewatch.events import Chips, Event
from tablewatch.rules.game import GameConfig
from tablewatch.rules.profiles import RuleProfile
from tablewatch.rules.table import TableRules
from tablewatch.scene.fusion import SceneFusion
from tablewatch.vision.perception.perception import Perception, PerceptionError

log = logging.getLogger(__name__)


class CameraConfig(StrictModel):
    source: str = Field(description="video file, rtsp://…, http://…, /dev/videoN or a camera index; Motion-JPEG "
                        "(a USB camera's usual 4K format) is read compressed and decoded only where vision looks")
    name: str = Field(default="overhead", description="camera name in evidence and events")
    profile: Path | None = Field(default=None, description="the table profile calibrated from this camera "
                                 "(`tablewatch calibrate`): its frames then go through vision perception and "
                                 "its events join the table's; none: the camera gives evidence only")
    deck: str | None = Field(default=None, description="card faces to read identities against (a deck shipped "
                             "with tablewatch, e.g. anglo_poker); none: cards are seen but not read")
    drift_every: int = Field(default=DEFAULT_EVERY, ge=0, description="with a profile: look for the table's "
                             "markers every this many frames to notice the camera moved or knocked (0: never)")
    hand_finder: bool = Field(default=True, description="with a profile: find the hands vision's motion path "
                              "misses with the table-objects detector (~4 ms per analysed frame while dealing)")


class RunConfig(StrictModel):
    """One table: what it plays, its sensors and where its results go."""

    site: str = Field(default="casino", description="site id: the second MQTT topic level")
    table: str = Field(default="T01", description="table id: the third MQTT topic level")
    game: GameConfig = Field(default_factory=GameConfig)
    rules: RuleProfile = Field(default_factory=RuleProfile)
    readers: list[ReaderConfig] = Field(default_factory=list, description="RFID reader lines")
    registry: Path | None = Field(default=None, description="chip tag registry CSV (uid,denomination,chip_set)")
    console: str | None = Field(default=None, description="dealer console serial URL")
    cameras: list[CameraConfig] = Field(default_factory=list)
    mqtt: str | None = Field(default=None, description="broker URL; none: alerts to the terminal and files only")
    out: Path = Field(default=Path("out/run"), description="where events, alerts, hands and evidence go")
    evidence: EvidenceConfig = Field(default_factory=EvidenceConfig, description="each alert's still and clip "
                                     "(with a broker and a camera); a relative folder is under `out`")


class RfidSource:
    """One reader line, polled in its own thread; its ledger's events go to the pipeline."""

    def __init__(self, config: ReaderConfig, *, table: str, registry: TagRegistry, clock: Any) -> None:
        self.name = f"rfid {config.device}"
        self.config, self.table, self.registry, self.clock = config, table, registry, clock
        self.ledger = ChipLedger(registry, table=table)  # what its antennas count where (fusion reads it too)
        self.poller: ReaderPoller | None = None

    def start(self, emit: Emit) -> None:
        self.poller = ReaderPoller(self.config, table=self.table, clock=self.clock, on_event=emit,
                                   ledger=self.ledger)
        self.poller.start()

    def stop(self) -> None:
        if self.poller is not None:
            self.poller.stop()

    @property
    def online(self) -> bool:
        return bool(self.poller and self.poller.online)


class ConsoleSource:
    def __init__(self, url: str, *, table: str, clock: Any) -> None:
        self.name = f"console {url}"
        self.url, self.table, self.clock = url, table, clock
        self.console: SerialConsole | None = None

    def start(self, emit: Emit) -> None:
        self.console = SerialConsole(self.url, table=self.table, clock=self.clock, on_event=emit).start()

    def stop(self) -> None:
        if self.console is not None:
            self.console.stop()


class CameraSource:
    """Frames from a camera or file into the evidence ring buffer, counted for the status line, and, when
    the camera has a calibrated table profile, through vision perception into table events.

    A live camera's frames are stamped with the table's clock as they arrive; a video file is played at
    its own pace, each frame stamped with the clock at its start plus its place in the file, so its events
    line up with the other sources'. When the frames end or the table stops, what perception still waits
    to decide is flushed: nothing seen is lost.
    """

    def __init__(self, config: CameraConfig, *, clock: Any, frame_sinks: list[Any],
                 perception: Perception | None = None, drift: DriftGate | None = None) -> None:
        self.name = f"camera {config.name}"
        self.config, self.clock, self.frame_sinks = config, clock, frame_sinks
        self.perception = perception
        self.drift = drift  # between perception and the table, when the camera is watched for drift
        self.origin: float | None = None  # a video file's start on the table's clock
        self.frames = 0
        self.bad_frames = 0  # frames whose compressed data did not decode (skipped)
        self.events = 0
        self.error = ""
        self._emit: Emit | None = None
        self._last_ts: float | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        # What the pipeline may hold the other sensors' events for: the earliest time an event still to come
        # from this camera may carry. Set only after the events of a frame are sent, so none is overtaken.
        self.horizon: float | None = None

    def start(self, emit: Emit) -> None:
        self._emit = emit
        self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        from tablewatch.vision.sources import SourceError, VideoFileSource, open_source

        try:
            source = open_source(self.config.source)
            try:
                paced, start = isinstance(source, VideoFileSource), self.clock()
                self.origin = start if paced else None
                for frame in source.frames():
                    ts = self._when(start + frame.ts) if paced else self.clock()
                    if ts is None or self._stop.is_set():
                        break
                    try:
                        self._frame(ts, frame)
                    except SourceError as exc:  # one corrupt frame of a compressed stream: the next may be fine
                        self.bad_frames += 1
                        log.warning("%s: %s; frame skipped", self.name, exc)
            finally:
                source.close()
        except (SourceError, PerceptionError) as exc:
            self.error = str(exc)
        except Exception as exc:  # a fault in perception must show in the status line, not end silently
            log.exception("%s failed", self.name)
            self.error = f"failed: {exc}"
        finally:
            self._flush()

    def _when(self, due: float) -> float | None:
        """Wait until a file's frame is due on the table's clock; None when the table stops meanwhile."""
        if self._stop.wait(max(0.0, due - self.clock())):
            return None
        return due

    def _frame(self, ts: float, image: Any) -> None:
        """One frame (pixels, or a Motion-JPEG frame still compressed: the ring buffer keeps it so, perception
        decodes it when it analyses it) to the sinks and perception."""
        self.frames += 1
        for sink in self.frame_sinks:
            sink(self.config.name, ts, image)
        if self.perception is None or (self._last_ts is not None and ts <= self._last_ts):
            return
        self._last_ts = ts
        self._send(self.drift.frame(image, ts) if self.drift else self.perception.process(image, ts))
        self.horizon = self.drift.horizon if self.drift else self.perception.horizon

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
                          calibration=profile.calibration, hand_finder=camera.hand_finder)
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


def load_run_config(path: Path) -> RunConfig:
    """The table's configuration; ConfigError naming the problem (a camera's profile is checked too)."""
    config = load_config(path, RunConfig)
    for camera in config.cameras:
        camera_perception(camera, table=config.table)
    return config


def camera_horizon(cameras: list[CameraSource]) -> Callable[[], float | None]:
    """The earliest time an event still to come from any of the perceiving cameras may carry."""
    def horizon() -> float | None:
        times = [h for h in (c.horizon for c in cameras) if h is not None]
        return min(times) if times else None
    return horizon


def run_table(config: RunConfig, *, console: Console, duration: float | None = None,
              status_every: float = 5.0) -> TablePipeline:
    """Run the table until SIGINT/SIGTERM (or ``duration`` seconds); return the stopped pipeline."""
    perceptions = [camera_perception(c, table=config.table) for c in config.cameras]  # before anything opens
    config.out.mkdir(parents=True, exist_ok=True)
    clock = session_clock()
    stop = threading.Event()
    with ExitStack() as stack:
        outputs: list[Output] = [TerminalOutput(console), FilesOutput(config.out),
                                 HandHistoryOutput(config.out / "hands")]
        recorder, publisher = _publisher(stack, config)
        if publisher is not None:
            outputs.append(MqttOutput(publisher))
        sinks = [recorder.add_frame] if recorder is not None else []
        sources = _sources(config, clock=clock, frame_sinks=sinks, perceptions=perceptions)
        perceiving = any(p is not None for p in perceptions)
        # Only a perceiving camera reports actions: with evidence-only cameras an RFID move stands for one.
        fusion = SceneFusion(expect_rfid=bool(config.readers), expect_camera=perceiving,
                             stack_chips=rfid_chips([s for s in sources if isinstance(s, RfidSource)]))
        cameras = [s for s in sources if isinstance(s, CameraSource) and s.perception is not None]
        pipeline = TablePipeline(rules=TableRules(config.game, table=config.table, profile=config.rules),
                                 outputs=outputs, sources=sources, fusion=fusion, clock=clock,
                                 horizon=camera_horizon(cameras) if perceiving else None)
        _on_signals(stop)
        pipeline.start()
        console.print(f"table {config.table} running: {len(config.readers)} reader line(s), "
                      f"{len(config.cameras)} camera(s), console {config.console or 'none'}, "
                      f"broker {config.mqtt or 'none'}; Ctrl-C stops")
        started = time.monotonic()
        while not stop.wait(min(status_every, duration) if duration else status_every):
            console.print(status_line(pipeline, sources, publisher, started))
            if duration is not None and time.monotonic() - started >= duration:
                break
        pipeline.stop()
        console.print(status_line(pipeline, sources, publisher, started))
    return pipeline


def rfid_chips(readers: list[RfidSource]) -> Callable[[str], Chips] | None:
    """The chips the reader lines count in a zone now (summed over the lines), or None without readers."""
    if not readers:
        return None
    return lambda zone: sum((r.ledger.chips(zone) for r in readers), Chips())


def status_line(pipeline: TablePipeline, sources: list[Any], publisher: Any, started: float) -> str:
    elapsed = max(time.monotonic() - started, 1e-6)
    parts = [f"up {elapsed:.0f}s", f"events {pipeline.stats.events_in}", f"hands {pipeline.stats.hands}",
             f"alerts {pipeline.stats.violations}"]
    for source in sources:
        if isinstance(source, RfidSource):
            parts.append(f"{source.name} {'online' if source.online else 'OFFLINE'}")
        elif isinstance(source, CameraSource):
            seen = f", {source.events} events" if source.perception is not None else ", evidence only"
            drift = source.drift.status() if source.drift is not None else ""
            bad = (f", {source.bad_frames} corrupt frame{'s' * (source.bad_frames > 1)} skipped"
                   if source.bad_frames else "")
            parts.append(f"{source.name} {source.frames / elapsed:.1f} fps{seen}{bad}" + (f", {drift}" if drift else "")
                         + (f" ({source.error})" if source.error else ""))
    if publisher is not None:
        health = publisher.health()
        parts.append(f"mqtt {'up' if health.connected else 'DOWN'}, {health.backlog} queued")
    return " | ".join(parts)


def _sources(config: RunConfig, *, clock: Any, frame_sinks: list[Any],
             perceptions: list[Perception | None]) -> list[Any]:
    registry = TagRegistry.from_csv(config.registry) if config.registry else TagRegistry()
    sources: list[Any] = [RfidSource(r, table=config.table, registry=registry, clock=clock) for r in config.readers]
    if config.console:
        sources.append(ConsoleSource(config.console, table=config.table, clock=clock))
    tolerance = config.rules.camera_shift_tolerance_mm
    sources += [CameraSource(c, clock=clock, frame_sinks=frame_sinks, perception=perception,
                             drift=camera_drift(c, perception, table=config.table, tolerance_mm=tolerance))
                for c, perception in zip(config.cameras, perceptions, strict=True)]
    return sources


def _publisher(stack: ExitStack, config: RunConfig) -> tuple[Any, Any]:
    evidence = config.evidence.model_copy(update={"folder": config.out / config.evidence.folder})
    evidence = evidence if config.cameras else None
    return start_publisher(stack, url=config.mqtt, site=config.site, table=config.table, out=config.out,
                           evidence=evidence)


def _on_signals(stop: threading.Event) -> None:
    if threading.current_thread() is not threading.main_thread():
        return  # signals can only be handled in the main thread (tests run the table from others)
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())

"""``tablewatch run``: one live table — its readers, its dealer console, its camera, its broker.

A table is described by one TOML (or YAML) file, ``RunConfig``. Every source runs in its own thread
and restarts itself when its device fails (the RFID poller and the console reopen their ports; the
camera source reconnects); the pipeline orders and fuses what they report, the rules judge it, and the
outputs publish it. The hands' frame (start, button, seats, stacks, end) is found from the devices
(``tablewatch.table.framer``). SIGINT or SIGTERM stops the sources, processes what they already sent, writes the
evidence clips still booked (for up to ``CLIPS_AT_STOP_S``: a clip cut short by the stop is kept but not
announced ready), drains the outbox and announces ``offline``: nothing received is lost.

A camera whose configuration names the table profile calibrated from it (``tablewatch calibrate``) is
watched by vision perception, and its events join the readers' and the console's as in the simulated
session; without a profile a camera gives evidence clips and its frame rate only. Such a camera is also
watched for drift (``tablewatch.table.drift``): moved or knocked, it raises SYS-CAMERA, its vision events are
set aside until it holds still, and it goes on with a calibration refitted from the markers.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from prometheus_client import CollectorRegistry
from rich.console import Console

from tablewatch.alerts.evidence import EvidenceConfig
from tablewatch.config import ConfigError, hide_password, load_config
from tablewatch.devices.poller import session_clock
from tablewatch.devices.registry import RegistryError, TagRegistry
from tablewatch.edge.camera import CameraProcess
from tablewatch.rules.table import TableRules
from tablewatch.scene.fusion import SceneFusion
from tablewatch.table.config import MetricsConfig, RunConfig
from tablewatch.table.framer import HandFramer
from tablewatch.table.levels import LevelClock
from tablewatch.table.metrics import AlertMetrics, MetricsServer, TableState
from tablewatch.table.outputs import FilesOutput, HandHistoryOutput, MqttOutput, TerminalOutput, start_publisher
from tablewatch.table.pipeline import Output, TablePipeline
from tablewatch.table.replay import Replay
from tablewatch.table.replay_clock import ReplayClock
from tablewatch.table.sources import (
    CameraFeed,
    CameraSource,
    ConsoleSource,
    RfidSource,
    camera_drift,
    camera_perception,
    earliest_horizon,
    rfid_chips,
    rfid_lifted,
)
from tablewatch.vision.perception.perception import Perception

log = logging.getLogger(__name__)


def load_run_config(path: Path) -> RunConfig:
    """The table's configuration; ConfigError naming the problem. Whatever ``run_table`` opens before its
    sources start is checked too: the cameras' profiles, the tag registry, the broker's files, the out folder."""
    config = load_config(path, RunConfig)
    for camera in config.cameras:
        camera_perception(camera, table=config.table)
    if config.registry is not None:
        try:
            TagRegistry.from_csv(config.registry)
        except RegistryError as exc:
            raise ConfigError(f"{path}: registry: {exc}") from exc
    if config.mqtt is not None:
        from tablewatch.alerts.connection import BrokerError, check_broker

        try:
            check_broker(config.mqtt)
        except BrokerError as exc:
            raise ConfigError(f"{path}: mqtt: {exc}") from exc
    _check_writable(config.out, path)
    if config.hand_store is not None:
        _check_store(config.hand_store, path)
    if config.replay is not None:
        Replay(config.replay, readers=config.readers, clock=time.monotonic)  # its timelines are readable
    return config


def _replay_origin(video: CameraFeed | None, readers: list[RfidSource],
                   clock: Callable[[], float]) -> Callable[[], float | None]:
    """The recording's start on the table's clock, once known: when the video's first frame is due; without a
    video, once every reader has read its antennas (what lies there at the start), lest a busy machine's slow
    first sweep miss the recording's first moves."""
    def origin() -> float | None:
        if video is not None:
            return video.origin
        return clock() if all(reader.has_read_every_antenna for reader in readers) else None
    return origin


def _wall_clock_at_zero(clock: Callable[[], float], *, replay: bool) -> float | None:
    """The Unix time when ``clock`` read 0: a live table's hands are stamped with their date and time."""
    return None if replay else time.time() - clock()


def _check_store(url: str, path: Path) -> None:
    from tablewatch.history.store import StoreError, open_store

    try:
        open_store(url).close()
    except StoreError as exc:
        raise ConfigError(f"{path}: hand_store: {exc}") from exc


def _check_writable(folder: Path, path: Path) -> None:
    existing = next(p for p in (folder, *folder.parents) if p.exists() or p == Path(p.anchor))
    if not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
        raise ConfigError(f"{path}: out: {folder} can't be made or written here ({existing} is "
                          f"{'not writable' if existing.is_dir() else 'not a folder'}).")


def run_table(config: RunConfig, *, console: Console, duration: float | None = None, status_every: float = 5.0,
              stop: threading.Event | None = None, fast: bool = False) -> TablePipeline:
    """Run the table until SIGINT/SIGTERM, ``duration`` seconds, a replayed recording's end or ``stop`` is set;
    return the stopped pipeline. ``fast``: play the configuration's recording as fast as the table goes, with
    the results of the recorded pace (ConfigError without a ``[replay]``). The stop takes at most
    CLIPS_AT_STOP_S for the clips still booked, then a few seconds for the sources and the outbox."""
    if fast and config.replay is None:
        raise ConfigError("fast: only a recording ([replay]) can be played faster than it happens")
    perceptions = [camera_perception(c, table=config.table) for c in config.cameras]  # before anything opens
    config.out.mkdir(parents=True, exist_ok=True)
    conductor = ReplayClock() if fast else None
    clock = conductor or session_clock()
    replay = Replay(config.replay, readers=config.readers, clock=clock) if config.replay else None
    stop = stop if stop is not None else threading.Event()
    with ExitStack() as stack:
        if replay is not None:  # the devices' far ends, before the sources open them
            stack.enter_context(replay)
            config = config.model_copy(update={"readers": replay.reader_lines, "console": replay.console_url})
        outputs: list[Output] = [TerminalOutput(console), FilesOutput(config.out, event_log=config.event_log),
                                 HandHistoryOutput(config.out / "hands", store_url=config.hand_store,
                                                   wall_clock_at_zero=_wall_clock_at_zero(clock,
                                                                                          replay=replay is not None))]
        recorder, publisher = _publisher(stack, config)
        if recorder is not None:  # on the way out, before the publisher stops: clips written within CLIPS_AT_STOP_S
            stack.callback(recorder.close)
        if publisher is not None:
            outputs.append(MqttOutput(publisher, **_marks(config)))
        registry = CollectorRegistry() if config.metrics is not None else None
        if registry is not None:
            outputs.append(AlertMetrics(registry, config.table, clock))
        sinks = [recorder.add_frame] if recorder is not None else []
        sources = _sources(config, clock=clock, frame_sinks=sinks, perceptions=perceptions, conductor=conductor)
        del perceptions  # checked; a camera in a process of its own builds its own, this copy would only hold memory
        perceiving = frozenset(s.name for s in sources if isinstance(s, CameraFeed) and s.perceiving)
        # Only a perceiving camera reports actions: with evidence-only cameras an RFID move stands for one.
        readers = [s for s in sources if isinstance(s, RfidSource)]
        stack_chips = rfid_chips(readers)
        fusion = SceneFusion(expect_rfid=bool(config.readers), expect_camera=bool(perceiving), cameras=perceiving,
                             stack_chips=stack_chips, chips_lifted=rfid_lifted(readers))
        late = [s for s in sources if isinstance(s, ConsoleSource) or (isinstance(s, CameraFeed) and s.perceiving)]
        pipeline = TablePipeline(rules=TableRules(config.game, table=config.table, profile=config.rules),
                                 outputs=outputs, sources=sources, fusion=fusion, clock=clock,
                                 horizon=earliest_horizon(late) if late else None,
                                 framer=HandFramer(config.game, profile=config.rules, stack_chips=stack_chips,
                                                   levels=_level_clock(config, clock()), dealer=config.dealer))
        _on_signals(stop)
        pipeline.start()
        if config.metrics is not None and registry is not None:
            server = _metrics_server(config.metrics, TableState(config.table, pipeline, sources, publisher), registry)
            stack.callback(server.close)
            console.print(f"metrics on {server.url}/metrics, health on {server.url}/healthz")
        if replay is not None:
            cameras = [s for s in sources if isinstance(s, CameraFeed)]
            video = next((c for c in cameras if c.perceiving), cameras[0] if cameras else None)
            replay.play(on_over=stop.set, finished=lambda: all(c.finished for c in cameras),
                        origin=_replay_origin(video, readers, clock), caught_up=pipeline.catch_up)
        console.print(f"table {config.table} running: {len(config.readers)} reader line(s), "
                      f"{len(config.cameras)} camera(s), console {config.console or 'none'}, "
                      f"broker {config.mqtt.shown_url if config.mqtt else 'none'}"
                      + (f"; replaying a recording of {replay.end:.0f} s" if replay else "")
                      + (" as fast as it goes" if fast else "") + "; Ctrl-C stops")
        started = time.monotonic()
        while not stop.wait(min(status_every, duration) if duration else status_every):
            console.print(status_line(pipeline, sources, publisher, started))
            if duration is not None and time.monotonic() - started >= duration:
                break
        pipeline.stop()
        console.print(status_line(pipeline, sources, publisher, started))
    return pipeline


def _metrics_server(config: MetricsConfig, state: TableState, registry: CollectorRegistry) -> MetricsServer:
    try:
        return MetricsServer(config, state, registry)
    except OSError as exc:
        raise ConfigError(f"metrics: can't listen on {config.host}:{config.port}: {exc.strerror or exc}") from exc


def status_line(pipeline: TablePipeline, sources: list[Any], publisher: Any, started: float) -> str:
    elapsed = max(time.monotonic() - started, 1e-6)
    parts = [f"up {elapsed:.0f}s", f"events {pipeline.stats.events_in}", f"hands {pipeline.stats.hands}",
             f"alerts {pipeline.stats.violations}"]
    for source in sources:
        if isinstance(source, RfidSource):
            parts.append(f"{source.name} {'online' if source.online else 'OFFLINE'}")
        elif isinstance(source, CameraFeed):
            parts.append(_camera_status(source, elapsed))
    if publisher is not None:
        health = publisher.health()
        parts.append(f"mqtt {'up' if health.connected else 'DOWN'}, {health.backlog} queued")
    return hide_password(" | ".join(parts))  # a camera's error may quote its rtsp://user:password@ URL


def _camera_status(camera: CameraFeed, elapsed: float) -> str:
    seen = f", {camera.events} events" if camera.perceiving else ", evidence only"
    bad = f", {camera.bad_frames} corrupt frame{'s' * (camera.bad_frames > 1)} skipped" if camera.bad_frames else ""
    view = f", {camera.view_status}" if camera.view_status else ""
    lag = f", lag {camera.lag_s * 1000:.0f} ms (worst {camera.worst_lag_s * 1000:.0f})"
    return (f"{camera.name} {camera.frames / elapsed:.1f} fps{seen}{bad}{lag}{view}"
            + (f" ({camera.error})" if camera.error else ""))


def _level_clock(config: RunConfig, now: float) -> LevelClock | None:
    """The tournament's level clock on the events' time (seconds of the session, ``now`` at this moment)."""
    if not config.levels:
        return None
    started = now if config.level_started_at is None else now - (time.time() - config.level_started_at.timestamp())
    return LevelClock(config.levels, started=started)


def _sources(config: RunConfig, *, clock: Any, frame_sinks: list[Any], perceptions: list[Perception | None],
             conductor: ReplayClock | None) -> list[Any]:
    registry = TagRegistry.from_csv(config.registry) if config.registry else TagRegistry()
    sources: list[Any] = [RfidSource(r, table=config.table, registry=registry, clock=clock, conductor=conductor)
                          for r in config.readers]
    if config.console:
        sources.append(ConsoleSource(config.console, table=config.table, clock=clock,
                                     typing_lag_s=config.console_typing_lag_s))
    tolerance = config.rules.camera_shift_tolerance_mm
    for camera, perception in zip(config.cameras, perceptions, strict=True):
        if camera.own_process and conductor is None:  # a recording played fast keeps its cameras on its clock
            sources.append(CameraProcess(camera, table=config.table, clock=clock, frame_sinks=frame_sinks,
                                         perceiving=perception is not None, tolerance_mm=tolerance))
        else:
            sources.append(CameraSource(camera, table=config.table, clock=clock, frame_sinks=frame_sinks,
                                        perception=perception, conductor=conductor,
                                        drift=camera_drift(camera, perception, table=config.table,
                                                           tolerance_mm=tolerance)))
    return sources


def _publisher(stack: ExitStack, config: RunConfig) -> tuple[Any, Any]:
    evidence: EvidenceConfig | None = None  # clips need a camera
    if config.cameras:
        evidence = config.evidence.model_copy(update={"folder": config.out / config.evidence.folder})
    return start_publisher(stack, broker=config.mqtt, site=config.site, table=config.table, out=config.out,
                           evidence=evidence, broadcast_delay_s=config.broadcast_delay_s)


def _marks(config: RunConfig) -> dict[str, Any]:
    """The perceiving camera whose picture an alert's still is drawn from, and the seats and places of a finding
    marked on it from its calibration (none without a calibrated camera)."""
    from tablewatch.calibration.profile import load_profile
    from tablewatch.table.marks import ViolationMarks

    camera = next((c for c in config.cameras if c.profile is not None), None)
    if camera is None or camera.profile is None:
        return {}
    return {"camera": camera.name, "marks": ViolationMarks(load_profile(camera.profile))}


def _on_signals(stop: threading.Event) -> None:
    if threading.current_thread() is not threading.main_thread():
        return  # signals can only be handled in the main thread (tests run the table from others)
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())

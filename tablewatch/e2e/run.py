"""``tablewatch run``: one live table — its readers, its dealer console, its camera, its broker.

A table is described by one TOML (or YAML) file, ``RunConfig``. Every source runs in its own thread
and restarts itself when its device fails (the RFID poller and the console reopen their ports; the
camera source reconnects); the pipeline orders and fuses what they report, the rules judge it, and the
outputs publish it. SIGINT or SIGTERM stops the sources, processes what they already sent, drains the
outbox and announces ``offline``: nothing received is lost.
"""

from __future__ import annotations

import signal
import threading
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from pydantic import Field
from rich.console import Console

from tablewatch.config import StrictModel, load_config
from tablewatch.devices.console import SerialConsole
from tablewatch.devices.ledger import ChipLedger
from tablewatch.devices.poller import ReaderConfig, ReaderPoller, session_clock
from tablewatch.devices.registry import TagRegistry
from tablewatch.e2e.outputs import FilesOutput, HandHistoryOutput, MqttOutput, TerminalOutput, start_publisher
from tablewatch.e2e.pipeline import Emit, Output, TablePipeline
from tablewatch.rules.game import GameConfig
from tablewatch.rules.profiles import RuleProfile
from tablewatch.rules.table import TableRules
from tablewatch.scene.fusion import SceneFusion


class CameraConfig(StrictModel):
    source: str = Field(description="video file, rtsp://…, http://…, /dev/videoN or a camera index")
    name: str = Field(default="overhead", description="camera name in evidence and events")


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


class RfidSource:
    """One reader line, polled in its own thread; its ledger's events go to the pipeline."""

    def __init__(self, config: ReaderConfig, *, table: str, registry: TagRegistry, clock: Any) -> None:
        self.name = f"rfid {config.device}"
        self.config, self.table, self.registry, self.clock = config, table, registry, clock
        self.poller: ReaderPoller | None = None

    def start(self, emit: Emit) -> None:
        ledger = ChipLedger(self.registry, table=self.table)
        self.poller = ReaderPoller(self.config, table=self.table, clock=self.clock, on_event=emit, ledger=ledger)
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
    """Frames from a camera or file into the evidence ring buffer, counted for the status line.

    Turning these frames into table events needs the vision perception stage; until a calibrated table
    profile and that stage are configured, the camera gives evidence and health only.
    """

    def __init__(self, config: CameraConfig, *, clock: Any, frame_sinks: list[Any]) -> None:
        self.name = f"camera {config.name}"
        self.config, self.clock, self.frame_sinks = config, clock, frame_sinks
        self.frames = 0
        self.error = ""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self, emit: Emit) -> None:
        self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        from tablewatch.vision.sources import SourceError, open_source

        try:
            source = open_source(self.config.source)
            for frame in source.frames():
                if self._stop.is_set():
                    break
                self.frames += 1
                for sink in self.frame_sinks:
                    sink(self.config.name, self.clock(), frame.image)
            source.close()
        except SourceError as exc:
            self.error = str(exc)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)


def load_run_config(path: Path) -> RunConfig:
    return load_config(path, RunConfig)


def run_table(config: RunConfig, *, console: Console, duration: float | None = None,
              status_every: float = 5.0) -> TablePipeline:
    """Run the table until SIGINT/SIGTERM (or ``duration`` seconds); return the stopped pipeline."""
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
        sources = _sources(config, clock=clock, frame_sinks=sinks)
        fusion = SceneFusion(expect_rfid=bool(config.readers), expect_camera=bool(config.cameras))
        pipeline = TablePipeline(rules=TableRules(config.game, table=config.table, profile=config.rules),
                                 outputs=outputs, sources=sources, fusion=fusion, clock=clock)
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


def status_line(pipeline: TablePipeline, sources: list[Any], publisher: Any, started: float) -> str:
    elapsed = max(time.monotonic() - started, 1e-6)
    parts = [f"up {elapsed:.0f}s", f"events {pipeline.stats.events_in}", f"hands {pipeline.stats.hands}",
             f"alerts {pipeline.stats.violations}"]
    for source in sources:
        if isinstance(source, RfidSource):
            parts.append(f"{source.name} {'online' if source.online else 'OFFLINE'}")
        elif isinstance(source, CameraSource):
            parts.append(f"{source.name} {source.frames / elapsed:.1f} fps" + (f" ({source.error})" if source.error
                                                                                else ""))
    if publisher is not None:
        health = publisher.health()
        parts.append(f"mqtt {'up' if health.connected else 'DOWN'}, {health.backlog} queued")
    return " | ".join(parts)


def _sources(config: RunConfig, *, clock: Any, frame_sinks: list[Any]) -> list[Any]:
    registry = TagRegistry.from_csv(config.registry) if config.registry else TagRegistry()
    sources: list[Any] = [RfidSource(r, table=config.table, registry=registry, clock=clock) for r in config.readers]
    if config.console:
        sources.append(ConsoleSource(config.console, table=config.table, clock=clock))
    sources += [CameraSource(c, clock=clock, frame_sinks=frame_sinks) for c in config.cameras]
    return sources


def _publisher(stack: ExitStack, config: RunConfig) -> tuple[Any, Any]:
    from tablewatch.alerts import EvidenceConfig

    evidence = EvidenceConfig(folder=config.out / "evidence") if config.cameras else None
    return start_publisher(stack, url=config.mqtt, site=config.site, table=config.table, out=config.out,
                           evidence=evidence)


def _on_signals(stop: threading.Event) -> None:
    if threading.current_thread() is not threading.main_thread():
        return  # signals can only be handled in the main thread (tests run the table from others)
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())

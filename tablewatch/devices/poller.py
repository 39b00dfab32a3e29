"""The reader poller: inventories every antenna of one reader line, again and again, and says so in events.

Each sweep reads every antenna once and emits one ``RfidInventory`` per antenna read completely (an
incomplete read is never reported: it would look like chips leaving). The poller survives the line: a
port that disappears is opened again every ``reconnect_interval``; a reader with no good answer for
``offline_after`` seconds is reported ``DeviceStatus(online=False)``, and ``online=True`` when it answers
again. With a ``ChipLedger`` attached, the ledger's events (each stamped when its zone was read) go before each
sweep's inventories.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from pydantic import Field, field_validator, model_validator

from tablewatch.config import StrictModel
from tablewatch.devices.inventory import InventoryFailed, InventoryResult, Link, LinkStats, run_inventory
from tablewatch.devices.ledger import ChipLedger
from tablewatch.devices.readers import ReaderError, reader_families, reader_family
from tablewatch.devices.transport import Port, PortGone
from tablewatch.events import DeviceStatus, Event, RfidInventory, seat_of_zone

Clock = Callable[[], float]


def session_clock() -> Clock:
    """Seconds since now: the events' ``ts`` when the caller has no clock of its own."""
    start = time.monotonic()
    return lambda: time.monotonic() - start


class ReaderConfig(StrictModel):
    """One reader line: its port URL, its family and the antennas (zone name -> node address) on it."""

    url: str = Field(description="pyserial URL: /dev/ttyUSB0, socket://host:port, rfc2217://host:port, loop://")
    name: str = Field(default="", description="device name in DeviceStatus events; the URL when empty")
    family: str = Field(default="s6350", description="reader family, a key of reader_families()")
    baudrate: int = Field(default=57600, gt=0, description="serial speed of the line (the readers' setting)")
    antennas: dict[str, int] = Field(default_factory=lambda: {"tray": 0},
                                     description="antenna name (a zone: tray, seat3.stack, pot) -> node address")
    response_timeout: float = Field(default=0.2, gt=0, le=10, description="seconds to wait for a reader's answer")
    retries: int = Field(default=2, ge=0, le=10, description="requests sent again after no or a corrupt answer")
    offline_after: float = Field(default=2.0, gt=0, description="seconds without a good answer before offline")
    reconnect_interval: float = Field(default=0.5, gt=0, description="seconds between attempts to open a port "
                                      "that went away (a USB adapter unplugged)")
    poll_interval: float = Field(default=0.0, ge=0, description="pause between sweeps")

    @field_validator("family")
    @classmethod
    def verify_family(cls, value: str) -> str:
        if value.lower() not in reader_families():
            raise ValueError(f"unknown reader family {value!r}; valid families: {', '.join(sorted(reader_families()))}")
        return value.lower()

    @model_validator(mode="after")
    def verify_antennas(self) -> ReaderConfig:
        if not self.antennas:
            raise ValueError("a reader needs at least one antenna")
        nodes = list(self.antennas.values())
        if len(set(nodes)) != len(nodes) or not all(0 <= n <= 0xFFFF for n in nodes):
            raise ValueError(f"node addresses must be distinct and 0..65535, got {self.antennas}")
        return self

    @property
    def device(self) -> str:
        return self.name or self.url


@dataclass(kw_only=True)
class PollerStats:
    sweeps: int = 0
    inventories: int = 0
    failed_inventories: int = 0
    rounds: int = 0
    bytes_out: int = 0
    bytes_in: int = 0
    reconnects: int = 0
    port_errors: int = 0
    link: LinkStats = field(default_factory=LinkStats)


class ReaderPoller:
    def __init__(self, config: ReaderConfig, *, table: str, clock: Clock | None = None,
                 on_event: Callable[[Event], None] | None = None, ledger: ChipLedger | None = None,
                 pause: Callable[[float, threading.Event], bool] | None = None) -> None:
        self.config = config
        # Between sweeps: ``pause(poll_interval, stop)`` when given (a recording played fast waits on the
        # table's clock), else poll_interval of wall time.
        self.pause = pause
        self.table = table
        self.clock = clock or session_clock()
        self.on_event = on_event
        self.ledger = ledger
        self.stats = PollerStats()
        self.port = Port(config.url, baudrate=config.baudrate)
        self.link = Link(port=self.port, family=reader_family(config.family),
                         response_timeout=config.response_timeout, retries=config.retries, stats=self.stats.link)
        self.online = True  # presumed at start; the first silence longer than offline_after says otherwise
        self.last_results: dict[str, InventoryResult] = {}
        self._last_good = time.monotonic()
        self._last_error = ""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def has_read_every_antenna(self) -> bool:
        """Every antenna has been read completely at least once (what lay on them at the start is known)."""
        return len(self.last_results) == len(self.config.antennas)

    # --- one sweep -------------------------------------------------------------------------------------------

    def sweep(self) -> list[Event]:
        """Read every antenna once; return (and hand to ``on_event``) the events it produced."""
        events: list[Event] = []
        if self._ensure_open():
            inventories = self._read_antennas()
            # What a sweep's reads mean goes before them: whoever waits for a seat's reads (the scene fusion, for
            # the chips of a bet) has their moves once it has them, however long the sweep took.
            if inventories and self.ledger is not None:
                events += self.ledger.apply(inventories)
            events += inventories
        events += self._check_status()
        self.stats.sweeps += 1
        for event in events:
            if self.on_event is not None:
                self.on_event(event)
        return events

    def _ensure_open(self) -> bool:
        if self.port.is_open:
            return True
        try:
            self.port.open()
        except PortGone as exc:
            self._last_error = str(exc)
            return False
        if self.port.opens > 1:
            self.stats.reconnects += 1
        return True

    def _read_antennas(self) -> list[RfidInventory]:
        out: list[RfidInventory] = []
        for antenna, node in self.config.antennas.items():
            try:
                result = run_inventory(self.link, node=node)
            except PortGone as exc:
                self.stats.port_errors += 1
                self._last_error = str(exc)
                break
            except (InventoryFailed, ReaderError) as exc:
                self.stats.failed_inventories += 1
                self.stats.link.reader_errors += isinstance(exc, ReaderError)
                self._last_error = str(exc)
                continue
            self._last_good = time.monotonic()
            self.stats.inventories += 1
            self.stats.rounds += result.rounds
            self.stats.bytes_out += result.bytes_out
            self.stats.bytes_in += result.bytes_in
            self.last_results[antenna] = result
            zone = self.ledger.zones.get(antenna, antenna) if self.ledger is not None else antenna
            out.append(RfidInventory(ts=self.clock(), table=self.table, source="rfid", seat=seat_of_zone(zone),
                                     antenna=antenna, uids=result.uid_strings()))
        return out

    def _check_status(self) -> list[Event]:
        silent = time.monotonic() - self._last_good
        if self.online and silent > self.config.offline_after:
            self.online = False
            detail = f"no answer for {silent:.2f} s ({self._last_error or 'silent'})"
            return [self._status(online=False, detail=detail)]
        if not self.online and silent <= self.config.offline_after:
            self.online = True
            return [self._status(online=True, detail="answering again")]
        return []

    def _status(self, *, online: bool, detail: str) -> DeviceStatus:
        return DeviceStatus(ts=self.clock(), table=self.table, source="rfid", device=self.config.device,
                            online=online, detail=detail)

    # --- running in a thread -------------------------------------------------------------------------------

    def run(self, stop: threading.Event | None = None) -> None:
        """Sweep until ``stop`` (or ``self.stop()``) is set."""
        stop = stop or self._stop
        while not stop.is_set():
            self.sweep()
            if not self.port.is_open:
                stop.wait(self.config.reconnect_interval)
            elif self.pause is not None:
                self.pause(self.config.poll_interval, stop)
            elif self.config.poll_interval:
                stop.wait(self.config.poll_interval)
        self.port.close()

    def start(self) -> ReaderPoller:
        self._thread = threading.Thread(target=self.run, name=f"rfid {self.config.device}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        self.port.close()

    def __enter__(self) -> ReaderPoller:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

"""A recorded session played through the real devices: the table runs on a recording as on a live table.

A table's configuration may name a recording of its devices (``[replay]``, the timelines of
``tablewatch.devices.recording``; ``tablewatch sim record`` writes one, a venue can write its own captures).
``tablewatch run`` then makes the devices' far ends itself:
- each reader line gets a reader emulator on a pty pair, answering the real S6350 driver with what the RFID
  timeline has on the line's antennas at that moment (the line's configured URL is replaced by the pty);
- the console gets a pty pair; each recorded entry is typed into it at its time for the real serial console;
- cameras are configured as usual: a video file is played at its own pace from the table's start.
A device the recording has no timeline for is left out (no RFID timeline: no reader line; no console entries:
no console), as at a table without it.

Everything runs at the recorded pace on the table's clock, from the moment the video's first frame is shown
(or the replay starts, without a video). The replay is over when the timelines have played
out (and ``length_s`` has passed), the last reads have had ``settle_s`` to reach the ledger, and every camera
source has ended; the run then stops as on Ctrl-C.
"""

from __future__ import annotations

import contextlib
import os
import select
import threading
import tty
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import Field

from tablewatch.config import ConfigError, StrictModel
from tablewatch.devices.emulator import ReaderEmulator
from tablewatch.devices.poller import ReaderConfig
from tablewatch.devices.recording import ConsoleEntry, read_console_entries, read_rfid_timeline
from tablewatch.events import RfidInventory

Clock = Callable[[], float]
ORIGIN_WAIT_S = 10.0


class ReplayConfig(StrictModel):
    """The recording a table plays instead of its devices (files of ``tablewatch.devices.recording``)."""

    rfid: Path | None = Field(default=None, description="RFID timeline (JSON lines of RfidInventory), answered "
                              "on every reader line for the antennas the line has")
    console: Path | None = Field(default=None, description="console entries ('SECONDS ENTRY' lines), typed into "
                                 "the dealer console's port at their times")
    length_s: float | None = Field(default=None, ge=0, description="the recording's length: the replay lasts at "
                                   "least this long (default: until its last entry)")
    settle_s: float = Field(default=2.0, ge=0, description="time after the last entry for the readers' last sweep "
                            "and the chip ledger to report it")


class Replay:
    """The far ends of a table's devices, playing a recording. Read at construction (ConfigError when a file
    can't be used), opened as a context manager, played by ``play``."""

    def __init__(self, config: ReplayConfig, *, readers: list[ReaderConfig], clock: Clock) -> None:
        self.config, self.clock = config, clock
        self.rfid: list[RfidInventory] = read_rfid_timeline(config.rfid) if config.rfid else []
        self.console: list[ConsoleEntry] = read_console_entries(config.console) if config.console else []
        if self.rfid and not readers:
            raise ConfigError(f"{config.rfid}: an RFID timeline needs a reader line ([[readers]]) with its antennas")
        self.readers = readers if config.rfid else []  # without RFID reads the table has no reader line
        self.emulators = [ReaderEmulator(reader.antennas) for reader in self.readers]
        self.reader_lines: list[ReaderConfig] = []  # the readers, each on its emulator's pty
        self.console_url: str | None = None
        self._console_fds: tuple[int, int] | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    @property
    def end(self) -> float:
        """The last moment of the recording on its own clock."""
        last = max([r.ts for r in self.rfid] + [e.t for e in self.console] + [0.0])
        return max(last, self.config.length_s or 0.0)

    def __enter__(self) -> Replay:
        for reader, emulator in zip(self.readers, self.emulators, strict=True):
            self.reader_lines.append(reader.model_copy(update={"url": emulator.serve_pty()}))
        if self.config.console is not None:
            master, slave = os.openpty()
            tty.setraw(master)
            tty.setraw(slave)
            self._console_fds = (master, slave)
            self.console_url = os.ttyname(slave)
        for read in self.rfid:  # what lies on the antennas at the start: the readers' first sweep sees it
            if read.ts <= 0:
                self._place(read)
        return self

    def play(self, *, on_over: Callable[[], None], finished: Callable[[], bool] = lambda: True,
             origin: Callable[[], float | None] | None = None) -> None:
        """Play the timelines from ``origin()`` (the recording's start on the table's clock, once known; default:
        now); ``on_over`` is called once they are over and ``finished()`` holds."""
        self._thread = threading.Thread(target=self._run, args=(on_over, finished, origin), name="replay",
                                        daemon=True)
        self._thread.start()

    def _start(self, origin: Callable[[], float | None] | None) -> float:
        """The recording's start on the table's clock: when the video's first frame is due (waited for up to
        ``ORIGIN_WAIT_S``; a video that does not open leaves the devices to play on their own)."""
        waited_until = self.clock() + ORIGIN_WAIT_S
        while origin is not None and self.clock() < waited_until and not self._stop.is_set():
            start = origin()
            if start is not None:
                return start
            self._stop.wait(0.01)
        return self.clock()

    def _run(self, on_over: Callable[[], None], finished: Callable[[], bool],
             origin_of: Callable[[], float | None] | None) -> None:
        origin = self._start(origin_of)
        steps: list[tuple[float, Any]] = sorted([(r.ts, r) for r in self.rfid if r.ts > 0]
                                                + [(e.t, e) for e in self.console], key=lambda step: step[0])
        for t, entry in steps:
            if self._stop.wait(max(0.0, origin + t - self.clock())):
                return
            if isinstance(entry, RfidInventory):
                self._place(entry)
            else:
                self._type(entry.line)
        if self._stop.wait(max(0.0, origin + self.end + self.config.settle_s - self.clock())):
            return
        while not finished():
            if self._stop.wait(0.1):
                return
        on_over()

    def _place(self, read: RfidInventory) -> None:
        for emulator in self.emulators:
            if read.antenna in emulator.antennas:
                emulator.set_tags(read.antenna, read.uids)

    def _type(self, line: str) -> None:
        if self._console_fds is None:
            return
        master = self._console_fds[0]
        with contextlib.suppress(OSError):
            while select.select([master], [], [], 0)[0]:  # the console's answers (OK n): read, the line never fills
                os.read(master, 4096)
            os.write(master, line.encode("ascii", errors="replace") + b"\n")

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        for emulator in self.emulators:
            emulator.stop()
        for fd in self._console_fds or ():
            with contextlib.suppress(OSError):
                os.close(fd)

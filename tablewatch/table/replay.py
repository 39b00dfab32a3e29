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

Played fast (``tablewatch run --fast``), the table's clock is a ``ReplayClock`` that this replay conducts: it
moves the time on only once the video's camera waits for its next frame, the readers wait for their next
sweep and the pipeline has processed what they sent, and never past the recording's next entry; at each entry
it places the chips (the readers read them a sweep period later, as a paced reader does) or types the line and
waits for the console's answer. Every reading is so stamped at the moment of the recording a paced run reads
it, without the lag a busy machine adds, and the session plays as fast as vision and the readers go.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import select
import threading
import time
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
from tablewatch.table.replay_clock import SWEEP_S, ReplayClock

Clock = Callable[[], float]
log = logging.getLogger(__name__)
ORIGIN_WAIT_S = 10.0
ANSWER_WAIT_S = 30.0  # wall seconds a fast replay waits at most for the console to answer a typed line
SAME_MOMENT_S = 1e-6  # a player's time this close to an entry's is the entry's (sums of sweep periods round)


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
    can't be used), opened as a context manager, played by ``play``: at the recorded pace on ``clock``, or as
    fast as the table goes when ``clock`` is a ``ReplayClock`` (this replay moves it)."""

    def __init__(self, config: ReplayConfig, *, readers: list[ReaderConfig], clock: Clock) -> None:
        self.config, self.clock = config, clock
        self.conductor = clock if isinstance(clock, ReplayClock) else None
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
             origin: Callable[[], float | None] | None = None,
             caught_up: Callable[[threading.Event], None] = lambda stop: None) -> None:
        """Play the timelines from ``origin()`` (the recording's start on the table's clock, once known; default:
        now); ``on_over`` is called once they are over and ``finished()`` holds. Played fast, ``caught_up(stop)``
        returns once the table has processed what the devices sent (``TablePipeline.catch_up``)."""
        if self.conductor is not None:
            target: Callable[..., None] = self._conduct
            args: tuple[Any, ...] = (self.conductor, on_over, finished, origin, caught_up)
        else:
            target, args = self._run, (on_over, finished, origin)
        self._thread = threading.Thread(target=target, args=args, name="replay", daemon=True)
        self._thread.start()

    def _steps(self) -> list[tuple[float, Any]]:
        """The timelines' entries after the start, in time order (console entries and reads: in file order)."""
        return sorted([(r.ts, r) for r in self.rfid if r.ts > 0] + [(e.t, e) for e in self.console],
                      key=lambda step: step[0])

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
        for t, entry in self._steps():
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

    # --- played fast ------------------------------------------------------------------------------------------

    def _conduct(self, clock: ReplayClock, on_over: Callable[[], None], finished: Callable[[], bool],
                 origin_of: Callable[[], float | None] | None,
                 caught_up: Callable[[threading.Event], None]) -> None:
        """Move the clock from entry to entry, as soon as the table is ready for the next moment."""
        if clock.earliest_due(self._stop) is None:  # once every player waits (the video is open); None: stopped
            return
        start = origin_of() if origin_of is not None else None
        origin = clock() if start is None else start
        steps = self._steps()
        while steps:
            t = steps[0][0]
            if not self._advance(clock, origin + t, caught_up):
                return
            placed = False
            while steps and steps[0][0] <= t:
                placed |= self._act(steps.pop(0)[1])
            if placed:
                clock.prompt(at=clock() + SWEEP_S)  # the readers read the change a sweep later, as paced
            clock.release()
        if not self._advance(clock, origin + self.end + self.config.settle_s, caught_up):
            return
        clock.release()
        while not finished():  # the cameras play to their ends
            if not self._advance(clock, math.inf, caught_up, until=finished):
                return
        on_over()

    def _advance(self, clock: ReplayClock, target: float, caught_up: Callable[[threading.Event], None], *,
                 until: Callable[[], bool] = lambda: False) -> bool:
        """Move the clock to ``target`` (or until ``until()`` holds), letting the players go on at each time
        one waits for on the way, and the table's time pass at least every SWEEP_S (as a paced table's
        stream of reads lets it: the hand framer's waits); at ``target`` the players are held, for what happens
        then. False when stopped."""
        while not until():
            due = clock.earliest_due(self._stop)
            if due is None:
                return False
            caught_up(self._stop)
            if self._stop.is_set():
                return False
            if math.isinf(due) and math.isinf(target):  # nothing waits for a time: the cameras are ending
                self._stop.wait(0.01)
                continue
            due = min(due, clock() + SWEEP_S)
            if due >= target - SAME_MOMENT_S:  # what happens at the target comes first, then the players
                clock.move_to(target)
                return True
            clock.move_to(due)
            clock.release()
        return True

    def _act(self, entry: Any) -> bool:
        """Place a read's chips (True) or type an entry and wait for its answer (False)."""
        if isinstance(entry, RfidInventory):
            self._place(entry)
            return True
        self._type(entry.line, answered=True)
        return False

    def _place(self, read: RfidInventory) -> None:
        for emulator in self.emulators:
            if read.antenna in emulator.antennas:
                emulator.set_tags(read.antenna, read.uids)

    def _type(self, line: str, *, answered: bool = False) -> None:
        """Type a line into the console; ``answered``: and wait (up to ANSWER_WAIT_S) for its answer, which the
        console writes once the entry is sent on."""
        if self._console_fds is None:
            return
        master = self._console_fds[0]
        with contextlib.suppress(OSError):
            while select.select([master], [], [], 0)[0]:  # the console's answers (OK n): read, the line never fills
                os.read(master, 4096)
            os.write(master, line.encode("ascii", errors="replace") + b"\n")
            answer, deadline = b"", time.monotonic() + ANSWER_WAIT_S
            while answered and b"\n" not in answer and not self._stop.is_set():
                left = deadline - time.monotonic()
                if left <= 0:
                    log.warning("replay: the console did not answer %r", line)
                    return
                if select.select([master], [], [], min(left, 0.05))[0]:
                    answer += os.read(master, 4096)

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        for emulator in self.emulators:
            emulator.stop()
        for fd in self._console_fds or ():
            with contextlib.suppress(OSError):
                os.close(fd)

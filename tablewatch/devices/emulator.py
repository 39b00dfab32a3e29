"""A reader emulator: the S6350 on the far end of a real serial line (a pty) or a TCP port.

It answers the same bytes a reader does: ISO 15693 inventories with 16-slot collisions computed from the
tags on each antenna, error 0x01 when no tag answers, 0x02 for commands it does not know. Faults a real
line shows (noise before a frame, a dropped or flipped byte, a slow answer, a split write, silence) can
be switched on while it runs. Tests, the simulator and the demo drive it through the tag API::

    emu = ReaderEmulator({"tray": 0, "seat3.stack": 1, "seat3.bet": 2})
    emu.set_tags("seat3.stack", make_uids(20, seed=3))
    path = emu.serve_pty()            # or emu.serve_serial("/tmp/B"), emu.serve_tcp() -> port
    ...
    emu.move_tags(uids[:3], "seat3.bet")   # the player bets three chips
    emu.stop()

One node address per antenna, as on a multidrop line of readers (or one multiplexed reader).
"""

from __future__ import annotations

import contextlib
import os
import random
import select
import socket
import threading
import tty
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace

from tablewatch.devices import iso15693 as iso
from tablewatch.devices.frames import Frame
from tablewatch.devices.s6350 import ISO_PASS_THROUGH, S6350, error_frame
from tablewatch.devices.transport import Port, PortGone

Uid = int | str


@dataclass(frozen=True, kw_only=True)
class Faults:
    """Line faults, each per response. Probabilities are 0..1; times in seconds."""

    noise: float = 0.0  # chance of 1..noise_max random bytes before the frame
    noise_max: int = 8
    drop: float = 0.0  # chance one byte of the frame is lost
    corrupt: float = 0.0  # chance one byte of the frame is flipped
    delay: float = 0.0  # fixed delay before answering
    jitter: float = 0.0  # extra random delay, 0..jitter
    split: bool = False  # write the frame in small pieces
    silent: bool = False  # answer nothing (a dead reader)


@dataclass(kw_only=True)
class EmulatorStats:
    requests: int = 0
    responses: int = 0
    unanswered: int = 0  # silent, or addressed to a node that is not here
    bytes_in: int = 0
    bytes_out: int = 0
    bad_request_bytes: int = 0


class ReaderEmulator:
    def __init__(self, antennas: Mapping[str, int] | Iterable[str] = ("tray",), *,
                 tags: Mapping[str, Iterable[Uid]] | None = None, faults: Faults | None = None, seed: int = 0,
                 pace_baud: int | None = None) -> None:
        self.antennas: dict[str, int] = (dict(antennas) if isinstance(antennas, Mapping)
                                         else {name: i for i, name in enumerate(antennas)})
        if len(set(self.antennas.values())) != len(self.antennas):
            raise ValueError(f"Each antenna needs its own node address: {self.antennas}.")
        self._by_node = {node: name for name, node in self.antennas.items()}
        self._tags: dict[str, set[int]] = {name: set() for name in self.antennas}
        self._lock = threading.Lock()
        self._rng = random.Random(seed)
        self.faults = faults or Faults()
        self.pace_baud = pace_baud
        self.stats = EmulatorStats()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._closers: list[Callable[[], None]] = []
        for name, uids in (tags or {}).items():
            self.set_tags(name, uids)

    # --- the tags on each antenna ------------------------------------------------------------------------

    def _antenna(self, name: str) -> set[int]:
        try:
            return self._tags[name]
        except KeyError:
            raise KeyError(f"No antenna {name!r}; antennas: {', '.join(self.antennas)}.") from None

    def set_tags(self, antenna: str, uids: Iterable[Uid]) -> None:
        """Exactly these tags on ``antenna``; a tag that was on another antenna leaves it (a chip is in one place)."""
        wanted = {iso.parse_uid(u) for u in uids}
        with self._lock:
            here = self._antenna(antenna)
            for other in self._tags.values():
                other -= wanted
            here.clear()
            here |= wanted

    def add_tags(self, antenna: str, uids: Iterable[Uid]) -> None:
        wanted = {iso.parse_uid(u) for u in uids}
        with self._lock:
            here = self._antenna(antenna)
            for other in self._tags.values():
                other -= wanted
            here |= wanted

    def move_tags(self, uids: Iterable[Uid], dst: str) -> None:
        """Move tags (from wherever they are, or from nowhere) onto antenna ``dst``."""
        self.add_tags(dst, uids)

    def remove_tags(self, uids: Iterable[Uid]) -> None:
        """Take tags off the table altogether."""
        gone = {iso.parse_uid(u) for u in uids}
        with self._lock:
            for here in self._tags.values():
                here -= gone

    def clear(self) -> None:
        with self._lock:
            for here in self._tags.values():
                here.clear()

    def tags(self, antenna: str) -> frozenset[int]:
        with self._lock:
            return frozenset(self._antenna(antenna))

    def where(self, uid: Uid) -> str | None:
        wanted = iso.parse_uid(uid)
        with self._lock:
            return next((name for name, here in self._tags.items() if wanted in here), None)

    def set_faults(self, **changes: object) -> None:
        """Change some faults while running, e.g. ``set_faults(silent=True)``."""
        self.faults = replace(self.faults, **changes)  # type: ignore[arg-type]

    # --- the protocol -------------------------------------------------------------------------------------

    def respond(self, request: Frame) -> Frame | None:
        """The reader's answer to one request frame (None: nobody at that node address)."""
        name = self._by_node.get(request.node)
        if name is None:
            return None
        if request.command != ISO_PASS_THROUGH or len(request.data) < 3:
            return error_frame(node=request.node, code=0x02)
        iso_flags, command = request.data[1], request.data[2]
        if command == iso.INVENTORY:
            return self._inventory(request, name)
        if command == iso.GET_SYSTEM_INFO and iso_flags & iso.FLAG_ADDRESS and len(request.data) >= 11:
            uid = iso.uid_from_wire(request.data[3:11])
            if uid not in self.tags(name):
                return error_frame(node=request.node, code=0x01)
            info = bytes((0x00, 0x0F)) + iso.uid_to_wire(uid) + bytes((0x00, 0x00, 0x3F, 0x03, 0x01))
            return Frame(node=request.node, flags=0, command=ISO_PASS_THROUGH, data=info)
        return error_frame(node=request.node, code=0x02)

    def _inventory(self, request: Frame, name: str) -> Frame:
        try:
            parsed = iso.parse_inventory_request(request.data[1:])
        except ValueError:
            return error_frame(node=request.node, code=0x04)
        reply = iso.answer_inventory(self.tags(name), parsed)
        if not reply.valid and not reply.collisions:
            return error_frame(node=request.node, code=0x01)
        return Frame(node=request.node, flags=0, command=ISO_PASS_THROUGH, data=reply.encode())

    def _wire(self, response: Frame) -> bytes:
        """The response's bytes as the faulty line delivers them."""
        faults, rng = self.faults, self._rng
        wire = bytearray(response.encode())
        if faults.corrupt and rng.random() < faults.corrupt:
            wire[rng.randrange(len(wire))] ^= 1 << rng.randrange(8)
        if faults.drop and rng.random() < faults.drop:
            del wire[rng.randrange(len(wire))]
        if faults.noise and rng.random() < faults.noise:
            wire[:0] = rng.randbytes(rng.randint(1, faults.noise_max))
        return bytes(wire)

    def _answer(self, request: Frame, write: Callable[[bytes], None]) -> None:
        self.stats.requests += 1
        response = self.respond(request)
        faults = self.faults
        if response is None or faults.silent:
            self.stats.unanswered += 1
            return
        wait = faults.delay + (self._rng.uniform(0, faults.jitter) if faults.jitter else 0.0)
        if self.pace_baud:  # both frames' time on a line at that baud rate (10 bits a byte)
            wait += (request.size + response.size) * 10 / self.pace_baud
        if wait and self._stop.wait(wait):
            return
        wire = self._wire(response)
        pieces = [wire[i:i + 7] for i in range(0, len(wire), 7)] if faults.split else [wire]
        for piece in pieces:
            write(piece)
        self.stats.responses += 1
        self.stats.bytes_out += len(wire)

    def _pump(self, read: Callable[[float], bytes], write: Callable[[bytes], None]) -> None:
        """Read requests and answer them until stopped; raises PortGone/OSError when the line fails."""
        decoder = S6350().new_decoder()
        while not self._stop.is_set():
            data = read(0.005 if decoder.holding else 0.02)
            self.stats.bytes_in += len(data)
            frames = decoder.feed(data) if data else decoder.flush()
            for frame in frames:
                self._answer(frame, write)
            self.stats.bad_request_bytes = decoder.stats.dropped_bytes

    # --- serving ------------------------------------------------------------------------------------------

    def _start(self, target: Callable[[], None], name: str) -> None:
        thread = threading.Thread(target=target, name=name, daemon=True)
        thread.start()
        self._threads.append(thread)

    def serve_serial(self, url: str, *, reopen_after: float = 0.02) -> ReaderEmulator:
        """Answer on a serial port (a socat pty end, a USB adapter). Opens it again if it goes away."""
        port = Port(url)

        def run() -> None:
            while not self._stop.is_set():
                try:
                    port.open()
                    self._pump(port.read, port.write)
                except PortGone:
                    port.close()
                    self._stop.wait(reopen_after)
            port.close()

        self._start(run, f"emulator {url}")
        return self

    def serve_pty(self) -> str:
        """Create a pty pair, answer on its master side and return the path a driver opens."""
        master, slave = os.openpty()
        tty.setraw(master)
        tty.setraw(slave)
        path = os.ttyname(slave)

        def read(timeout: float) -> bytes:
            ready, _, _ = select.select([master], [], [], timeout)
            return os.read(master, 4096) if ready else b""

        def write(data: bytes) -> None:
            os.write(master, data)

        def run() -> None:
            with contextlib.suppress(OSError):
                self._pump(read, write)

        self._closers += [lambda: os.close(master), lambda: os.close(slave)]
        self._start(run, f"emulator {path}")
        return path

    def serve_tcp(self, host: str = "127.0.0.1", port: int = 0) -> int:
        """Listen on TCP (as a networked serial server does, one client at a time); return the port."""
        server = socket.create_server((host, port))
        server.settimeout(0.05)
        self._closers.append(server.close)

        def run() -> None:
            while not self._stop.is_set():
                try:
                    conn, _ = server.accept()
                except TimeoutError:
                    continue
                except OSError:
                    return
                with conn:
                    self._serve_connection(conn)

        self._start(run, f"emulator tcp {host}:{server.getsockname()[1]}")
        return int(server.getsockname()[1])

    def _serve_connection(self, conn: socket.socket) -> None:
        def read(timeout: float) -> bytes:
            conn.settimeout(timeout)
            try:
                data = conn.recv(4096)
            except TimeoutError:
                return b""
            if not data:
                raise ConnectionResetError("client closed the connection")
            return data

        with contextlib.suppress(OSError):
            self._pump(read, conn.sendall)

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=2)
        for close in self._closers:
            with contextlib.suppress(OSError):
                close()
        self._threads.clear()
        self._closers.clear()

    def __enter__(self) -> ReaderEmulator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

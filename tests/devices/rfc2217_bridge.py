"""A small RFC 2217 server (as a networked serial server in a casino is), bridging TCP to a local serial port.

Built on pyserial's own ``rfc2217.PortManager``, the server side of the protocol, as in pyserial's
``examples/rfc2217_server.py``.
"""

from __future__ import annotations

import contextlib
import socket
import threading

import serial
import serial.rfc2217


class _PtySerial(serial.Serial):
    """A pty has no modem lines: report them low and ignore setting them (the ioctls fail with ENOTTY)."""

    cts = dsr = ri = cd = property(lambda self: False)  # type: ignore[assignment]

    def _update_rts_state(self) -> None:
        pass

    def _update_dtr_state(self) -> None:
        pass

    def _update_break_state(self) -> None:
        pass


class _Connection:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.lock = threading.Lock()

    def write(self, data: bytes) -> None:
        with self.lock:
            self.sock.sendall(data)


class Rfc2217Bridge:
    def __init__(self, device: str) -> None:
        self.device = device
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(0.05)
        self.port = int(self.server.getsockname()[1])
        self.url = f"rfc2217://127.0.0.1:{self.port}"
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)

    def start(self) -> Rfc2217Bridge:
        self._thread.start()
        return self

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                sock, _ = self.server.accept()
            except TimeoutError:
                continue
            with sock, _PtySerial(self.device, timeout=0.02) as ser:
                self._bridge(sock, ser)

    def _bridge(self, sock: socket.socket, ser: serial.SerialBase) -> None:
        conn = _Connection(sock)
        manager = serial.rfc2217.PortManager(ser, conn)
        done = threading.Event()

        def device_to_network() -> None:
            while not done.is_set():
                data = ser.read(ser.in_waiting or 1)
                if data:
                    with contextlib.suppress(OSError):
                        conn.write(b"".join(manager.escape(data)))

        pump = threading.Thread(target=device_to_network, daemon=True)
        pump.start()
        sock.settimeout(0.05)
        while not self._stop.is_set():
            try:
                data = sock.recv(1024)
            except TimeoutError:
                continue
            except OSError:
                break
            if not data:
                break
            ser.write(b"".join(manager.filter(data)))
        done.set()
        pump.join()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        self.server.close()

    def __enter__(self) -> Rfc2217Bridge:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

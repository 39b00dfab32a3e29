"""Byte transports for readers and consoles: any pyserial URL, opened again when it comes back.

``Port("/dev/ttyUSB0")``, ``Port("socket://10.0.0.5:4001")``, ``Port("rfc2217://10.0.0.5:2217")``,
``Port("loop://")``. Every failure of the port (unplugged, network server gone) surfaces as ``PortGone``;
the owner closes it and calls ``open()`` again later.
"""

from __future__ import annotations

import contextlib

import serial

try:
    from termios import error as _TermiosError  # a pty that vanished fails termios calls with this, not OSError
except ImportError:  # Windows
    _TermiosError = OSError  # type: ignore[assignment,misc]

_FAILURES = (serial.SerialException, OSError, _TermiosError)


class PortGone(OSError):
    """The port can't be opened, or failed while in use (unplugged, connection closed)."""


class Port:
    def __init__(self, url: str, *, baudrate: int = 57600) -> None:
        self.url = url
        self.baudrate = baudrate
        self.bytes_in = 0
        self.bytes_out = 0
        self.opens = 0
        self._serial: serial.Serial | None = None
        self._timeout: float | None = None

    @property
    def is_open(self) -> bool:
        return self._serial is not None

    def open(self) -> None:
        if self._serial is not None:
            return
        try:
            self._serial = serial.serial_for_url(self.url, baudrate=self.baudrate, timeout=0)
        except (*_FAILURES, ValueError) as exc:
            raise PortGone(f"cannot open {self.url}: {exc}") from exc
        self._timeout = 0
        self.opens += 1

    def close(self) -> None:
        ser, self._serial = self._serial, None
        if ser is not None:
            with contextlib.suppress(*_FAILURES):  # a port that already vanished
                ser.close()

    def _port(self) -> serial.Serial:
        if self._serial is None:
            raise PortGone(f"{self.url} is not open")
        return self._serial

    def write(self, data: bytes) -> None:
        try:
            self._port().write(data)
            self._port().flush()
        except _FAILURES as exc:
            self.close()
            raise PortGone(f"{self.url}: write failed: {exc}") from exc
        self.bytes_out += len(data)

    def read(self, timeout: float) -> bytes:
        """What arrives within ``timeout`` seconds (b"" if nothing); never waits once bytes are there."""
        ser = self._port()
        try:
            if self._timeout != timeout:
                ser.timeout = self._timeout = timeout
            data = ser.read(max(1, ser.in_waiting))
            if data and ser.in_waiting:
                data += ser.read(ser.in_waiting)
        except _FAILURES as exc:
            self.close()
            raise PortGone(f"{self.url}: read failed: {exc}") from exc
        self.bytes_in += len(data)
        return data

    def discard_input(self) -> None:
        try:
            self._port().reset_input_buffer()
        except _FAILURES as exc:
            self.close()
            raise PortGone(f"{self.url}: {exc}") from exc

    def __enter__(self) -> Port:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

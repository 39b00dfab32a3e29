"""A real mosquitto broker for tests: started on a free loopback port with its own configuration.

Tests that need their own broker (TLS, ACLs, one to stop and restart) call ``Mosquitto(...)`` directly;
most use the session fixture ``mqtt_broker`` from ``tests/conftest.py``.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest


def mosquitto_binary() -> str | None:
    binary = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    return binary if Path(binary).exists() else None


# For tests that start a mosquitto through the product (``EmbeddedBroker``) or hash passwords with its tools.
needs_mosquitto = pytest.mark.skipif(mosquitto_binary() is None or shutil.which("mosquitto_passwd") is None,
                                     reason="mosquitto is not installed (apt-get install mosquitto; .ci/run does it)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_port(port: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"Nothing listens on 127.0.0.1:{port} after {timeout} s.")


class Mosquitto:
    """One mosquitto process. ``extra_config`` is appended to a minimal anonymous listener config."""

    def __init__(self, workdir: Path, *, port: int | None = None, extra_config: str = "",
                 listener: bool = True) -> None:
        binary = mosquitto_binary()
        if binary is None:
            pytest.skip("mosquitto is not installed (apt-get install mosquitto; .ci/run does it)")
        self.binary = binary
        self.workdir = workdir
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self.config = self.workdir / "mosquitto.conf"
        lines = ["user root", "persistence true", f"persistence_location {self.workdir}/",
                 f"log_dest file {self.workdir}/mosquitto.log", "log_type all"]
        if listener:
            lines += [f"listener {self.port} 127.0.0.1", "allow_anonymous true"]
        self.config.write_text("\n".join(lines) + "\n" + extra_config)
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self) -> Mosquitto:
        self.process = subprocess.Popen([self.binary, "-c", str(self.config)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            wait_for_port(self.port)
        except TimeoutError:
            self.stop()
            raise RuntimeError(f"mosquitto did not start; log: {self.log()}") from None
        return self

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def kill(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.process = None

    def log(self) -> str:
        path = self.workdir / "mosquitto.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def __enter__(self) -> Mosquitto:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

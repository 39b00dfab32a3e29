"""A real pty pair from socat: two linked serial ports, one for the driver and one for the emulator.

``stop()`` pulls the plug (both ptys vanish, their links are removed); ``start()`` plugs it back in at the
same paths, as a USB adapter that comes back under the same udev name.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest


class SocatPair:
    def __init__(self, folder: Path, name: str = "rfid") -> None:
        self.binary = shutil.which("socat")
        if self.binary is None:
            pytest.skip("socat is not installed (apt-get install socat; .ci/run does it)")
        self.a = str(folder / f"{name}-host")
        self.b = str(folder / f"{name}-device")
        self.process: subprocess.Popen[str] | None = None

    def start(self) -> SocatPair:
        assert self.binary is not None
        self.process = subprocess.Popen(
            [self.binary, "-d", "-d", f"pty,raw,echo=0,link={self.a}", f"pty,raw,echo=0,link={self.b}"],
            stderr=subprocess.PIPE, text=True)
        assert self.process.stderr is not None
        log = []
        for line in self.process.stderr:  # blocks until socat says both ptys and links are there
            log.append(line)
            if "starting data transfer loop" in line:
                break
        else:
            raise RuntimeError("socat did not start: " + "".join(log))
        return self

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=5)
        if self.process is not None and self.process.stderr is not None:
            self.process.stderr.close()
        self.process = None
        for link in (self.a, self.b):
            Path(link).unlink(missing_ok=True)

    def __enter__(self) -> SocatPair:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

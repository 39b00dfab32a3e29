"""A stream server the tests start in a process of their own, as an IP camera on the network."""

from __future__ import annotations

import subprocess
from typing import Any


class CameraProcess:
    """Its ``process`` while it runs; ``kill`` drops it as a camera losing power does."""

    process: subprocess.Popen[Any] | None = None

    def kill(self) -> None:
        """As a camera losing power: no goodbye, the connection just drops."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.process = None

"""Waiting for a condition, not for a time: the tests hold on a busy machine."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_until(what: str, predicate: Callable[[], object], timeout: float = 60.0, poll: float = 0.05) -> None:
    """Return once ``predicate()`` is true; fail naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(poll)

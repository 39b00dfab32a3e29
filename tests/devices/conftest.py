"""Fixtures of the devices tests: a socat pty pair, a reader emulator on it, a TCP emulator."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tablewatch.devices.emulator import ReaderEmulator
from tests.devices.socat import SocatPair

# Short, real time-outs: the emulator answers in well under a millisecond on a pty.
RESPONSE_TIMEOUT = 0.1


@pytest.fixture
def socat_pair(tmp_path: Path) -> Iterator[SocatPair]:
    with SocatPair(tmp_path) as pair:
        yield pair


@pytest.fixture
def emulator() -> Iterator[ReaderEmulator]:
    emu = ReaderEmulator({"tray": 0, "seat3.stack": 1, "seat3.bet": 2, "pot": 3})
    yield emu
    emu.stop()

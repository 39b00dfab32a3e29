"""Fixtures shared by every part's tests. Real services only: a mosquitto started here, pty pairs, files."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tablewatch.shared import shared_dir
from tests.support.mosquitto import Mosquitto

SHARED = shared_dir()


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The project's shared/ folder (rules catalogue, real photos, real hands)."""
    if not SHARED.is_dir():
        pytest.skip(f"shared/ data folder not found at {SHARED} (set TABLEWATCH_SHARED)")
    return SHARED


@pytest.fixture(scope="session")
def mqtt_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Mosquitto]:
    """A mosquitto broker of the test run's own, on a free port, for the whole session."""
    with Mosquitto(tmp_path_factory.mktemp("mosquitto")) as broker:
        yield broker

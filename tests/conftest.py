"""Fixtures shared by every part's tests. Real services only: a mosquitto started here, pty pairs, files."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.mosquitto import Mosquitto

SHARED = Path(os.environ.get("TABLEWATCH_SHARED", Path(__file__).resolve().parents[2] / "shared"))


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

"""Fixtures shared by every part's tests. Real services only: a mosquitto started here, pty pairs, files."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from tablewatch.shared import shared_dir
from tests.support.mosquitto import Mosquitto

SHARED = shared_dir()

# Property tests draw the same examples on every run by default, so a red CI means a change broke something,
# not that a new draw found an old bug. `pytest --hypothesis-profile=explore` draws fresh examples to hunt.
settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile("repeatable")


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

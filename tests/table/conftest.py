"""The recording of the demo scenario's first seconds (``tablewatch sim record``), made once for the tests that
play it through ``tablewatch run``: at a table with a camera and RFID, and at one without RFID."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tablewatch.sim.cli import sim
from tests.support.recording import DEMO, RECORDED_S


@pytest.fixture(scope="session")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("recording") / "demo"
    made = CliRunner().invoke(sim, ["record", str(DEMO), "-o", str(folder), "--max-seconds", str(RECORDED_S)])
    assert made.exit_code == 0, made.output
    return folder


@pytest.fixture(scope="session")
def recording_without_rfid(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("recording") / "demo-no-rfid"
    made = CliRunner().invoke(sim, ["record", str(DEMO), "-o", str(folder), "--max-seconds", str(RECORDED_S),
                                    "--no-rfid"])
    assert made.exit_code == 0, made.output
    return folder

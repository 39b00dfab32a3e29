"""The demo's blinds and deal as a calibrated camera sees them: the simulator's video (``tablewatch sim render``)
and the table profile calibrated from it (``tablewatch calibrate``), for the tests that run a table on a camera;
and such a table run until its cameras have played their videos out."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from rich.console import Console

from tablewatch.calibration.cli import calibrate
from tablewatch.sim.cli import sim
from tablewatch.table import run as table_run
from tablewatch.table.config import RunConfig
from tablewatch.table.pipeline import TablePipeline
from tablewatch.table.run import run_table
from tablewatch.table.sources import CameraFeed
from tests.support.wait import wait_until

DEMO = Path(__file__).resolve().parents[2] / "tablewatch" / "sim" / "scenarios" / "demo.yaml"
FPS = 15
SECONDS = 7.0  # the blinds and the deal


def render_demo_camera(folder: Path) -> tuple[Path, Path]:
    """The video and its profile (table T01), made in ``folder``."""
    rendered = CliRunner().invoke(sim, ["render", str(DEMO), "-o", str(folder / "sim"), "--view", "overhead_720p",
                                        "--fps", str(FPS), "--max-frames", str(round(SECONDS * FPS))])
    assert rendered.exit_code == 0, rendered.output
    video = folder / "sim" / "overhead_720p.mp4"
    profile = folder / "T01.toml"
    calibrated = CliRunner().invoke(calibrate, [str(video), "--layout", "oval10", "-o", str(profile),
                                                "--table", "T01", "--frames", "5", "--sim-chips"])
    assert calibrated.exit_code == 0, calibrated.output
    return video, profile


def run_until_the_cameras_end(config: RunConfig, *, console: Console, monkeypatch: pytest.MonkeyPatch,
                              deadline_s: float = 120.0) -> TablePipeline:
    """``run_table`` until every camera has played its video out and sent what it showed, however long a busy
    machine takes to start a camera (its process, its model) and read it; at most ``deadline_s``."""
    built: list[TablePipeline] = []

    class Watched(TablePipeline):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            built.append(self)

    monkeypatch.setattr(table_run, "TablePipeline", Watched)
    stop = threading.Event()

    def cameras_ended() -> bool:  # (before the pipeline is built there is no camera to have ended)
        cameras = [s for s in built[0].sources if isinstance(s, CameraFeed)] if built else []
        return bool(cameras) and all(camera.finished for camera in cameras)

    def watch() -> None:
        try:
            wait_until("the cameras to play their videos out", cameras_ended, deadline_s, poll=0.1)
        finally:  # (past the deadline too: the test's own assertions say what did not come)
            stop.set()

    threading.Thread(target=watch, name="cameras-ended", daemon=True).start()
    return run_table(config, console=console, duration=deadline_s, stop=stop, status_every=1.0)

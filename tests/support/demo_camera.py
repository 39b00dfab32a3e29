"""The demo's blinds and deal as a calibrated camera sees them: the simulator's video (``tablewatch sim render``)
and the table profile calibrated from it (``tablewatch calibrate``), for the tests that run a table on a camera."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from tablewatch.calibration.cli import calibrate
from tablewatch.sim.cli import sim

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

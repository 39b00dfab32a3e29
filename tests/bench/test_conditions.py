"""``tablewatch bench-conditions``: the cells by name, and one cell played end to end through ``tablewatch run``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tablewatch.bench.conditions import MIXES, SINGLE, cells_named
from tablewatch.cli import cli


def test_cells_are_chosen_by_name_single_or_mixes() -> None:
    assert cells_named(["noise 12", "mixes"]) == [next(c for c in SINGLE if c.name == "noise 12"), *MIXES]
    assert len(cells_named([])) == len(SINGLE) + len(MIXES)
    assert [c.describe() for c in cells_named(["clean", "tilt 8°", "camera 8° off vertical, H.264",
                                               "480p after calibration"])] == [
        "clean", "tilt=8°", "tilt=8°, h264_kbps=2000", "height=480, calibrated on the clean video"]
    with pytest.raises(ValueError, match="no cell 'fog'"):
        cells_named(["fog"])


def test_ffmpeg_filter_chains_are_cells_of_their_own_checked_before_anything_is_recorded(tmp_path: Path) -> None:
    (cell,) = cells_named([], ["tmix=frames=3"])
    assert (cell.name, cell.ffmpeg_filter, cell.describe()) == ("FFmpeg tmix=frames=3", "tmix=frames=3",
                                                                "FFmpeg filter tmix=frames=3")
    assert [c.name for c in cells_named(["clean"], ["fps=10", "fps=10"])] == ["clean", "FFmpeg fps=10"]
    result = CliRunner().invoke(cli, ["bench-conditions", "--ffmpeg-filter", "fog=1", "-o", str(tmp_path)])
    assert result.exit_code == 2 and "no filter 'fog'" in result.output and not list(tmp_path.iterdir())


def test_the_physically_based_cell_is_played_only_when_named() -> None:
    assert all(not c.pbr_spp for c in cells_named([]))  # (half an hour a hand to render)
    (cell,) = cells_named(["physically based"])
    assert cell.pbr_spp > 0 and cell.describe().startswith("physically based frames")


def test_an_unknown_cell_is_refused_before_anything_is_recorded(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["bench-conditions", "--cell", "fog", "-o", str(tmp_path)])
    assert result.exit_code == 2 and "no cell 'fog'" in result.output and not list(tmp_path.iterdir())


@pytest.mark.slow
def test_one_cell_is_recorded_degraded_played_and_scored(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["bench-conditions", "--hands", "1", "--cell", "clean", "--cell", "light 15 %",
                                      "--jobs", "2", "-o", str(tmp_path)])
    assert result.exit_code == 0, result.output
    clean, cell = json.loads((tmp_path / "conditions.json").read_text())
    assert (clean["cell"], cell["cell"]) == ("clean", "light 15 %")  # the clean cell beside its own recording
    assert clean["hands_exact"] == clean["hands_found"] == cell["hands"] == 1
    assert cell["violations_injected"] == 1 and cell["events_true"] > 10
    assert (clean["picture_reported"], cell["picture_reported"]) == ([], ["too dark"])  # past the light correction
    recorded = json.loads((tmp_path / "light-15" / "recording.json").read_text())
    assert recorded["conditions"]["light"] == 0.15  # the cell's conditions, kept with its recording
    assert json.loads((tmp_path / "light-15" / "cell.json").read_text()) == cell

    video = tmp_path / "recording" / "overhead_720p.mp4"
    made = video.stat().st_mtime_ns
    again = CliRunner().invoke(cli, ["bench-conditions", "--hands", "1", "--cell", "clean", "--reuse-recording",
                                     "-o", str(tmp_path)])
    assert again.exit_code == 0, again.output
    assert "already made" in again.output and video.stat().st_mtime_ns == made  # played on the same recording
    (replayed,) = json.loads((tmp_path / "conditions.json").read_text())
    assert replayed["cell"] == "clean" and replayed["events_true"] == clean["events_true"]

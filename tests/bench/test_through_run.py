"""``tablewatch bench``: a real hand recorded as a table's devices capture it, played by
``tablewatch run`` (a subprocess that finds the hand itself, the truth moved away), scored against the truth."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tablewatch.bench.cli import bench
from tablewatch.bench.scenarios import DEMO_HANDS


@pytest.mark.slow
def test_bench_through_run_scores_the_hand_the_run_captured(tmp_path: Path) -> None:
    # The shipped hand 2: blinds, a raise and a call, a flop, a bet and a fold (about 30 s at the table).
    result = CliRunner().invoke(bench, ["--phh", str(DEMO_HANDS), "--first", "2", "--hands", "1",
                                        "-o", str(tmp_path)])
    assert result.exit_code == 0, result.output + repr(result.exception)
    score = json.loads((tmp_path / "bench.json").read_text())
    assert score["hands"] == 1
    assert score["hands_exact"] == 1, score["inexact"]  # from the PHH `run` wrote, not from the simulator
    assert score["frame"]["hands_found"] == score["frame"]["buttons_right"] == 1
    assert score["frame"]["stacks_right"] == 1, score["frame"]["wrong"]
    assert list((tmp_path / "run" / "hands").glob("*.phh"))  # the run's own output was scored
    assert (tmp_path / "recording" / "truth" / "truth.phh").exists()  # put back after the run
    assert "hands captured exactly: 1/1" in result.output


@pytest.mark.slow
def test_a_table_without_a_camera_is_scored_from_rfid_and_the_dealers_console(tmp_path: Path) -> None:
    # The same hand at a table with RFID and a console only: no video, the dealer keys the hand and its actions.
    result = CliRunner().invoke(bench, ["--no-camera", "--phh", str(DEMO_HANDS), "--first", "2",
                                        "--hands", "1", "-o", str(tmp_path)])
    assert result.exit_code == 0, result.output + repr(result.exception)
    assert not (tmp_path / "recording" / "overhead_720p.mp4").exists()
    score = json.loads((tmp_path / "bench.json").read_text())
    assert score["devices"] == ["rfid", "console"]
    assert score["hands_exact"] == 1, score["inexact"]  # the actions and final stacks are the truth's
    assert score["frame"]["buttons_right"] == score["frame"]["stacks_right"] == 1, score["frame"]["wrong"]
    assert "through `tablewatch run`: RFID + console, no camera" in result.output


def test_bench_refuses_options_its_table_does_not_take(tmp_path: Path) -> None:
    result = CliRunner().invoke(bench, ["--camera", "truth", "--no-camera", "-o", str(tmp_path)])
    assert result.exit_code != 0 and "--camera truth" in result.output
    result = CliRunner().invoke(bench, ["--no-camera", "--no-rfid", "-o", str(tmp_path)])
    assert result.exit_code != 0 and "console alone" in result.output


def test_the_truth_fed_diagnostic_says_so(tmp_path: Path) -> None:
    """``--camera truth``: the simulator tells the pipeline each hand's set-up; its output must not pass for a
    table's figures."""
    result = CliRunner().invoke(bench, ["--camera", "truth", "--hands", "1", "-o", str(tmp_path)])
    assert result.exit_code == 0, result.output + repr(result.exception)
    assert "DIAGNOSTIC, not a table's figure" in result.output
    assert json.loads((tmp_path / "bench.json").read_text())["camera"] == "truth"

"""bench-edge at a small scale: a table of a 4K and a 720p camera, run as ``run`` runs it with each camera in a
process of its own; every camera's frames counted, its lag and speed read, the processes' CPU split."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tablewatch.bench.edge import render, report, run_tables, table_config

FPS = 10.0
SECONDS = 5.0


@pytest.mark.slow
def test_a_table_with_its_cameras_in_their_own_processes_is_measured(tmp_path: Path) -> None:
    files = render(tmp_path / "videos", fps=FPS, frames=4, seconds=SECONDS + 10)
    config = table_config(tmp_path, "T01", files, mode="process", deck="anglo_poker")
    [result] = run_tables([config], seconds=SECONDS, cpus=sorted(os.sched_getaffinity(0))[:1])
    assert [c.name for c in result.cameras] == ["camera overhead", "camera dealer"]
    # (a camera process starved on a busy machine may read no frame in the window: said as a speed of 0, no error)
    assert all(c.error == "" and 0 <= c.speed(FPS) <= 1 for c in result.cameras)
    assert result.camera_cpu_s > 0 and result.cpu_s > 0  # the cameras' work is done in their processes
    assert all(c.worst_lag_s >= c.lag_s >= 0 for c in result.cameras)
    lines = report("process", [result], fps=FPS, seconds=SECONDS)
    assert lines[0].startswith("1 table(s), cameras each in a process of its own: ")
    assert "% in its camera processes" in lines[1] and "× real time" in lines[1]

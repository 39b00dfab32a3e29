"""The statistics speed bench fills a rollup with synthetic hands, times each report, and drops its tables."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from click.testing import CliRunner

from tablewatch.bench.stats_speed import DEALERS, TABLES, main


def test_the_bench_times_every_report_and_leaves_nothing_behind(tmp_path: Path) -> None:
    path = tmp_path / "bench.sqlite"
    result = CliRunner().invoke(main, ["--url", str(path), "--hands", "120"])
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    assert "120 hands (720 player rows)" in said
    assert f"per table │ {TABLES}" in said and f"per dealer │ {DEALERS}" in said
    with sqlite3.connect(path) as db:
        assert not db.execute("SELECT name FROM sqlite_master WHERE name LIKE 'tw_bench%'").fetchall()

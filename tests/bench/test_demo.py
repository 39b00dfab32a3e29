"""``tablewatch demo``: the shipped hands recorded as a table's devices capture them and played by `run_table`, as
`tablewatch run` plays a table, publishing to a broker of its own; scored against the recording's truth."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tablewatch.bench.cli import demo
from tests.support.mosquitto import mosquitto_binary


@pytest.mark.slow
def test_the_demo_runs_its_recording_through_the_table_and_scores_what_the_table_found(tmp_path: Path) -> None:
    result = CliRunner().invoke(demo, ["--hands", "1", "-o", str(tmp_path)])
    assert result.exit_code == 0, result.output + repr(result.exception)
    score = json.loads((tmp_path / "score.json").read_text())
    assert score["frame"]["hands_found"] == score["frame"]["buttons_right"] == score["frame"]["stacks_right"] == 1
    assert [k for k, v in score["per_type"].items() if v["found"] == v["injected"]] == list(score["per_type"])
    assert score["false_by_rule"] == {}
    assert list((tmp_path / "hands").glob("*.phh"))  # the table's own hand history
    assert (tmp_path / "recording" / "truth" / "truth.phhs").exists()  # moved back after the run
    said = "embedded mosquitto" if mosquitto_binary() else "no embedded broker (mosquitto is not installed"
    assert said in result.output and "report:" in result.output
    assert (tmp_path / "report.html").read_text().count("<tr>") >= 2

"""``tablewatch demo``: the shipped hands recorded as a table's devices capture them and played by `run_table`, as
`tablewatch run` plays a table, publishing to a broker of its own; scored against the recording's truth."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tablewatch.bench.cli import demo
from tablewatch.bench.demo import clear_last_run
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


def test_a_demo_run_again_starts_from_none_of_the_last_run_s_outputs(tmp_path: Path) -> None:
    """A table's run appends to its logs and keeps its outbox; the demo takes the last run's away first, so it
    scores and publishes its own alerts only. Anything else in the folder stays."""
    (tmp_path / "alerts.jsonl").write_text('{"type": "Violation"}\n', encoding="utf-8")
    (tmp_path / "outbox.sqlite").write_bytes(b"old")
    (tmp_path / "hands").mkdir()
    (tmp_path / "hands" / "T01-1.phh").write_text("old", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("mine", encoding="utf-8")
    clear_last_run(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
    clear_last_run(tmp_path)  # nothing left to take: no error

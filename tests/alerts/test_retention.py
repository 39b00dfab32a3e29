"""Evidence retention: by age then size, an alert's files together, kept alerts and files being written spared."""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from tablewatch.alerts.retention import (
    FRESH_S,
    GB,
    KeepList,
    KeepListError,
    RetentionConfig,
    RetentionSweeper,
    prune,
)
from tablewatch.cli import cli

NOW = 1_800_000_000.0
DAY = 86400.0
A, B, C, D = (f"al-{n:016x}" for n in (0xA, 0xB, 0xC, 0xD))


def evidence(folder: Path, alert: str, *, age_days: float, still: int = 100, clip: int | None = 1000,
             camera: str = "overhead", now: float = NOW) -> list[Path]:
    """An alert's still (and clip), last modified ``age_days`` before ``now``."""
    files = [(folder / f"{alert}-{camera}.jpg", still)]
    if clip is not None:
        files.append((folder / f"{alert}-{camera}.webm", clip))
    for path, size in files:
        path.write_bytes(b"x" * size)
        os.utime(path, (now - age_days * DAY, now - age_days * DAY))
    return [path for path, _ in files]


def names(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()}


def test_evidence_past_the_age_limit_is_removed(tmp_path: Path) -> None:
    old = evidence(tmp_path, A, age_days=31)
    young = evidence(tmp_path, B, age_days=29)
    report = prune(tmp_path, RetentionConfig(max_age_days=30), kept=frozenset(), now=NOW)
    assert sorted(report.removed) == sorted(old)
    assert report.bytes_freed == 1100 and report.bytes_remaining == 1100
    assert names(tmp_path) == {p.name for p in young}
    assert "removed 2 file(s)" in report.summary()


def test_no_age_limit_keeps_everything(tmp_path: Path) -> None:
    evidence(tmp_path, A, age_days=3650)
    report = prune(tmp_path, RetentionConfig(max_age_days=None), kept=frozenset(), now=NOW)
    assert report.removed == [] and report.bytes_remaining == 1100


def test_over_the_size_cap_the_oldest_go_first_until_under(tmp_path: Path) -> None:
    for alert, age in ((A, 3), (B, 1), (C, 2), (D, 0.5)):
        evidence(tmp_path, alert, age_days=age, still=0, clip=1000)
    config = RetentionConfig(max_age_days=None, max_size_gb=2500 / GB)
    report = prune(tmp_path, config, kept=frozenset(), now=NOW)
    assert [p.name for p in report.removed] == [f"{A}-overhead.jpg", f"{A}-overhead.webm",
                                                f"{C}-overhead.jpg", f"{C}-overhead.webm"]
    assert report.bytes_remaining == 2000 and report.bytes_freed == 2000


def test_an_alerts_still_and_clip_go_together(tmp_path: Path) -> None:
    still, clip = evidence(tmp_path, A, age_days=40)
    os.utime(clip, (NOW - 5 * DAY, NOW - 5 * DAY))  # the clip is younger than the limit: the still stays with it
    assert prune(tmp_path, RetentionConfig(max_age_days=30), kept=frozenset(), now=NOW).removed == []
    evidence(tmp_path, B, age_days=40, still=100, clip=10, camera="side")
    evidence(tmp_path, B, age_days=40, still=100, clip=10, camera="overhead")
    report = prune(tmp_path, RetentionConfig(max_age_days=30), kept=frozenset(), now=NOW)
    assert len(report.removed) == 4 and names(tmp_path) == {still.name, clip.name}


def test_the_size_cap_spares_alerts_whose_clip_may_still_come(tmp_path: Path) -> None:
    evidence(tmp_path, A, age_days=1)
    fresh = evidence(tmp_path, B, age_days=(FRESH_S / 2) / DAY, clip=None)  # its clip is written later
    report = prune(tmp_path, RetentionConfig(max_age_days=None, max_size_gb=1 / GB), kept=frozenset(), now=NOW)
    assert names(tmp_path) == {fresh[0].name} and len(report.removed) == 2
    assert "still over" in report.summary()


def test_kept_alerts_are_never_removed_and_count_in_the_size(tmp_path: Path) -> None:
    kept = evidence(tmp_path, A, age_days=400)
    evidence(tmp_path, B, age_days=1)
    report = prune(tmp_path, RetentionConfig(max_size_gb=1000 / GB), kept=frozenset({A}), now=NOW)
    assert names(tmp_path) == {p.name for p in kept}
    assert (report.kept_exempt, report.kept_bytes, report.bytes_remaining) == (2, 1100, 1100)
    assert report.kept_over_cap and "kept files alone exceed" in report.summary()


def test_files_being_written_and_other_files_are_left_alone(tmp_path: Path) -> None:
    others = ["al-000000000000000a-overhead.partial.webm",  # evidence.write_clip writes here, then renames
              f".{A}-overhead.jpg", f"{A}-overhead.jpg.part", f"{A}-overhead.tmp.webm", "kept.json", "notes.txt",
              "al-0123-short.jpg", f"{A.upper()}-overhead.jpg"]
    for name in others:
        (tmp_path / name).write_bytes(b"y" * 10)
        os.utime(tmp_path / name, (NOW - 400 * DAY, NOW - 400 * DAY))
    (tmp_path / "sub").mkdir()
    inner = evidence(tmp_path / "sub", B, age_days=400)
    report = prune(tmp_path, RetentionConfig(max_age_days=1, max_size_gb=1 / GB), kept=frozenset(), now=NOW)
    assert report.removed == [] and report.bytes_remaining == 0
    assert names(tmp_path) == {*others, "sub"} and all(p.exists() for p in inner)


def test_a_symlink_is_not_followed_nor_removed(tmp_path: Path) -> None:
    folder, outside = tmp_path / "evidence", tmp_path / "elsewhere"
    folder.mkdir()
    outside.mkdir()
    target = evidence(outside, A, age_days=400)[0]
    link = folder / f"{A}-overhead.jpg"
    link.symlink_to(target)
    os.utime(link, (NOW - 400 * DAY, NOW - 400 * DAY), follow_symlinks=False)
    report = prune(folder, RetentionConfig(max_age_days=1, max_size_gb=1 / GB), kept=frozenset(), now=NOW)
    assert report.removed == [] and report.bytes_remaining == 0
    assert link.is_symlink() and target.read_bytes() == b"x" * 100


def test_a_dry_run_removes_nothing(tmp_path: Path) -> None:
    old = evidence(tmp_path, A, age_days=31)
    report = prune(tmp_path, RetentionConfig(), kept=frozenset(), now=NOW, dry_run=True)
    assert sorted(report.removed) == sorted(old) and all(p.exists() for p in old)
    assert report.summary().startswith(f"{tmp_path}: would remove 2 file(s)")


def test_a_missing_folder_is_empty(tmp_path: Path) -> None:
    report = prune(tmp_path / "not-yet", RetentionConfig(), kept=frozenset(), now=NOW)
    assert report.removed == [] and report.bytes_remaining == 0


# --- the keep list ---------------------------------------------------------------------------------------


def test_the_keep_list_persists_and_is_rewritten_whole(tmp_path: Path) -> None:
    kept = KeepList.beside(tmp_path)
    assert kept.ids() == frozenset() and A not in kept
    assert kept.keep([A, B]) == {A, B} and kept.keep([B, C]) == {C}
    assert KeepList(tmp_path / "kept.json").ids() == {A, B, C} and B in kept
    assert kept.release([B, D]) == {B}
    assert json.loads((tmp_path / "kept.json").read_text()) == {"schema": "tablewatch/kept/1", "alerts": [A, C]}
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]  # the file written aside is gone
    assert kept.keep(A) == frozenset()  # one id alone, not its characters


def test_the_keep_list_spares_alerts_in_prune(tmp_path: Path) -> None:
    evidence(tmp_path, A, age_days=400)
    evidence(tmp_path, B, age_days=400)
    kept = KeepList.beside(tmp_path)
    kept.keep([B])
    report = prune(tmp_path, RetentionConfig(), kept=kept, now=NOW)
    assert {p.name for p in report.removed} == {f"{A}-overhead.jpg", f"{A}-overhead.webm"}
    assert report.kept_exempt == 2


def test_keep_list_writers_in_threads_lose_no_id(tmp_path: Path) -> None:
    ids = [f"al-{n:016x}" for n in range(40)]
    threads = [threading.Thread(target=KeepList.beside(tmp_path).keep, args=([i],)) for i in ids]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert KeepList.beside(tmp_path).ids() == frozenset(ids)


@pytest.mark.parametrize("bad", ["al-123", "AL-000000000000000A", "al-000000000000000g", "in-000000000000000a"])
def test_a_bad_alert_id_is_refused_and_nothing_is_written(tmp_path: Path, bad: str) -> None:
    kept = KeepList.beside(tmp_path)
    with pytest.raises(ValueError, match=f"not an alert id.*{bad}"):
        kept.keep([A, bad])
    assert not (tmp_path / "kept.json").exists()


@pytest.mark.parametrize("content", [b"{not json", b'["al-000000000000000a"]', b'{"schema": "tablewatch/kept/1"}',
                                     b'{"schema": "tablewatch/kept/1", "alerts": ["oops"]}', b"\xff\xfe"])
def test_a_corrupt_keep_file_is_an_error_naming_it_and_stops_pruning(tmp_path: Path, content: bytes) -> None:
    (tmp_path / "kept.json").write_bytes(content)
    old = evidence(tmp_path, A, age_days=400)
    kept = KeepList.beside(tmp_path)
    with pytest.raises(KeepListError, match=r"kept\.json"):
        kept.ids()
    with pytest.raises(KeepListError, match=r"kept\.json"):
        kept.keep([B])  # never rewritten over what it could not read
    with pytest.raises(KeepListError, match=r"kept\.json"):
        prune(tmp_path, RetentionConfig(), kept=kept, now=NOW)
    assert (tmp_path / "kept.json").read_bytes() == content and all(p.exists() for p in old)


# --- the sweeper ---------------------------------------------------------------------------------------------


def test_the_sweeper_prunes_at_start_logs_and_stops_at_once(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    evidence(tmp_path, A, age_days=40, now=time.time())
    sweeper = RetentionSweeper(tmp_path, RetentionConfig(every_s=3600), frozenset())
    with caplog.at_level(logging.INFO, logger="tablewatch.alerts.retention"):
        sweeper.start()
        _wait_for(lambda: sweeper.sweeps >= 1)
        started = time.monotonic()
        sweeper.stop()
    assert time.monotonic() - started < 2  # not an hour's wait
    assert names(tmp_path) == set() and sweeper.last is not None and len(sweeper.last.removed) == 2
    assert "removed 2 file(s)" in caplog.text


def test_a_sweep_that_fails_is_logged_and_the_next_one_works(tmp_path: Path,
                                                              caplog: pytest.LogCaptureFixture) -> None:
    evidence(tmp_path, A, age_days=40, now=time.time())
    (tmp_path / "kept.json").write_text("{broken")
    sweeper = RetentionSweeper(tmp_path, RetentionConfig(), KeepList.beside(tmp_path))
    with caplog.at_level(logging.ERROR, logger="tablewatch.alerts.retention"):
        assert sweeper.sweep() is None
    assert "kept.json" in caplog.text and len(names(tmp_path)) == 3  # nothing removed without the list
    (tmp_path / "kept.json").write_text(json.dumps({"schema": "tablewatch/kept/1", "alerts": []}))
    report = sweeper.sweep()
    assert report is not None and len(report.removed) == 2 and sweeper.sweeps == 2


def _wait_for(condition: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        threading.Event().wait(0.01)


def test_retention_config_refuses_nonsense() -> None:
    with pytest.raises(ValueError, match="greater than 0"):
        RetentionConfig(max_age_days=0)
    with pytest.raises(ValueError, match="Extra inputs"):
        RetentionConfig.model_validate({"max_age": 3})
    assert all(f.description for f in RetentionConfig.model_fields.values())


# --- tablewatch evidence prune / keep / release ----------------------------------------------------------------


def test_cli_keep_release_and_prune(tmp_path: Path) -> None:
    now = time.time()
    for alert in (A, B):
        for path in evidence(tmp_path, alert, age_days=0):
            os.utime(path, (now - 40 * DAY, now - 40 * DAY))
    runner = CliRunner()
    kept = runner.invoke(cli, ["evidence", "keep", str(tmp_path), A, C])
    assert kept.exit_code == 0 and "kept 2 alert(s) (2 new)" in kept.output
    released = runner.invoke(cli, ["evidence", "release", str(tmp_path), C, D])
    assert released.exit_code == 0 and "released 1 alert(s); not kept: " + D in released.output
    dry = runner.invoke(cli, ["evidence", "prune", str(tmp_path), "--dry-run"])
    assert dry.exit_code == 0 and f"would remove {B}-overhead.webm" in dry.output and len(names(tmp_path)) == 6
    pruned = runner.invoke(cli, ["evidence", "prune", str(tmp_path), "--max-age-days", "none", "--max-size-gb",
                                 f"{1100 / GB}"])
    assert pruned.exit_code == 0, pruned.output
    assert "removed 2 file(s)" in pruned.output and names(tmp_path) == {"kept.json", ".kept.json.lock",
                                                                         f"{A}-overhead.jpg", f"{A}-overhead.webm"}


@pytest.mark.parametrize(("argv", "message"), [
    (["keep", "{folder}", "al-nothex"], "not an alert id"),
    (["keep", "{folder}"], "Missing argument"),
    (["prune", "{folder}", "--max-age-days", "0"], "must be above 0"),
    (["prune", "{folder}", "--max-size-gb", "lots"], "not a number"),
    (["prune", "{folder}/absent"], "does not exist"),
])
def test_cli_refuses_bad_input_with_a_message(tmp_path: Path, argv: list[str], message: str) -> None:
    result = CliRunner().invoke(cli, ["evidence", *(a.format(folder=tmp_path) for a in argv)])
    assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output


def test_cli_names_a_corrupt_keep_file(tmp_path: Path) -> None:
    (tmp_path / "kept.json").write_text("[")
    for argv in (["prune", str(tmp_path)], ["keep", str(tmp_path), A]):
        result = CliRunner().invoke(cli, ["evidence", *argv])
        assert result.exit_code == 1 and "kept.json" in result.output and "not valid JSON" in result.output

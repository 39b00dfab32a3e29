"""Case-file bundles: written whole or not at all, checked by sha256sum and by verify_bundle, pushed by a command."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tablewatch.alerts import bundle as bundle_module
from tablewatch.alerts.bundle import (
    SCHEMA,
    BundleError,
    ExportConfig,
    push_bundle,
    verify_bundle,
    write_bundle,
)
from tablewatch.cli import cli

INCIDENT = {"id": "in-00000000000000c1", "alerts": ["al-000000000000000a", "al-000000000000000b"], "hand_no": 42}
ALERTS = [{"id": "al-000000000000000a", "revision": 0, "rule_id": "TDA-45"},
          {"id": "al-000000000000000a", "revision": 1, "rule_id": "TDA-45", "clip_ready": True},
          {"id": "al-000000000000000b", "revision": 0, "rule_id": "TDA-45"}]
HAND = {"hand_no": 42, "actions": ["d dh p1 AsKs", "p1 cbr 300"]}
WHEN = datetime(2026, 12, 1, 21, 4, 5, tzinfo=UTC)


@pytest.fixture
def clips(tmp_path: Path) -> list[Path]:
    folder = tmp_path / "evidence"
    folder.mkdir()
    files = [folder / "al-000000000000000a-overhead.jpg", folder / "al-000000000000000a-overhead.webm",
             folder / "al-000000000000000b-overhead.jpg"]
    for n, path in enumerate(files):
        path.write_bytes(bytes(range(256)) * (n + 1))
    return files


def make(tmp_path: Path, evidence: list[Path], **kwargs: Any) -> Path:
    return write_bundle(tmp_path / "cases", incident=INCIDENT, alerts=ALERTS, hand=HAND, evidence_files=evidence,
                        created=WHEN, **kwargs)


def test_a_bundle_holds_the_payloads_the_evidence_and_a_manifest(tmp_path: Path, clips: list[Path]) -> None:
    path = make(tmp_path, clips)
    assert path == tmp_path / "cases" / "in-00000000000000c1-20261201T210405Z"
    assert json.loads((path / "incident.json").read_text()) == INCIDENT
    assert json.loads((path / "alerts.json").read_text()) == ALERTS
    assert json.loads((path / "hand.json").read_text()) == HAND
    assert [(path / "evidence" / c.name).read_bytes() for c in clips] == [c.read_bytes() for c in clips]
    manifest = json.loads((path / "manifest.json").read_text())
    assert manifest["schema"] == SCHEMA and manifest["incident"] == INCIDENT["id"]
    assert manifest["created"] == "2026-12-01T21:04:05Z" and "missing" not in manifest
    assert [f["path"] for f in manifest["files"]] == ["alerts.json", *(f"evidence/{c.name}" for c in clips),
                                                      "hand.json", "incident.json"]
    assert manifest["files"][1]["bytes"] == 256
    assert verify_bundle(path) == []
    assert [p.name for p in (tmp_path / "cases").iterdir()] == [path.name]  # no staging folder left


def test_sha256sum_checks_the_bundle(tmp_path: Path, clips: list[Path]) -> None:
    path = make(tmp_path, clips)
    done = subprocess.run(["sha256sum", "-c", "--strict", "SHA256SUMS"], cwd=path, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count(": OK") == 7  # 3 payloads, 3 evidence files, the manifest
    (path / "evidence" / clips[0].name).write_bytes(b"edited")
    done = subprocess.run(["sha256sum", "-c", "SHA256SUMS"], cwd=path, capture_output=True, text=True, check=False)
    assert done.returncode == 1 and f"evidence/{clips[0].name}: FAILED" in done.stdout


def test_sha256sum_reads_an_odd_file_name_as_written(tmp_path: Path) -> None:
    odd = tmp_path / "al-000000000000000a-back\\slash.jpg"
    odd.write_bytes(b"still")
    path = make(tmp_path, [odd])
    assert (path / "SHA256SUMS").read_text().count("\\") >= 2  # the escaped line, as sha256sum writes it
    done = subprocess.run(["sha256sum", "-c", "SHA256SUMS"], cwd=path, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert verify_bundle(path) == []


def test_a_missing_clip_is_listed_not_an_error(tmp_path: Path, clips: list[Path]) -> None:
    clips[1].unlink()
    path = write_bundle(tmp_path / "cases", incident=INCIDENT, alerts=ALERTS, hand=None,
                        evidence_files=[*clips, clips[0]])  # a file named twice is copied once
    manifest = json.loads((path / "manifest.json").read_text())
    assert manifest["missing"] == [str(clips[1])]
    assert not (path / "hand.json").exists() and "hand.json" not in {f["path"] for f in manifest["files"]}
    assert sorted(p.name for p in (path / "evidence").iterdir()) == [clips[0].name, clips[2].name]
    assert verify_bundle(path) == []


@pytest.mark.parametrize(("tamper", "problem"), [
    (lambda p: (p / "evidence" / "al-000000000000000a-overhead.jpg").write_bytes(bytes(range(256))[::-1]),
     "evidence/al-000000000000000a-overhead.jpg: changed (its SHA-256"),
    (lambda p: (p / "alerts.json").write_text("[]"), "alerts.json: changed (2 bytes"),
    (lambda p: (p / "hand.json").unlink(), "hand.json: missing"),
    (lambda p: (p / "evidence" / "extra.jpg").write_bytes(b"?"), "evidence/extra.jpg: extra file"),
    (lambda p: (p / "manifest.json").write_text("{"), "manifest.json: unreadable"),
    (lambda p: (p / "manifest.json").write_text('{"schema": "x"}'), "not a tablewatch/bundle/1 manifest"),
    (lambda p: (p / "SHA256SUMS").unlink(), "SHA256SUMS: unreadable"),
    (lambda p: (p / "SHA256SUMS").write_text("garbage\n"), "not a checksum line"),
])
def test_a_tampered_bundle_is_detected(tmp_path: Path, clips: list[Path], tamper: Any, problem: str) -> None:
    path = make(tmp_path, clips)
    tamper(path)
    problems = verify_bundle(path)
    assert any(problem in p for p in problems), problems


def test_a_manifest_rewritten_to_match_an_edit_is_caught_by_sha256sums(tmp_path: Path, clips: list[Path]) -> None:
    path = make(tmp_path, clips)
    (path / "incident.json").write_text('{"id": "in-00000000000000c1", "alerts": []}\n')
    manifest = json.loads((path / "manifest.json").read_text())
    entry = next(f for f in manifest["files"] if f["path"] == "incident.json")
    entry["bytes"] = (path / "incident.json").stat().st_size
    entry["sha256"] = bundle_module._digest(path / "incident.json")
    (path / "manifest.json").write_text(json.dumps(manifest))
    problems = verify_bundle(path)
    assert "manifest.json: changed (its SHA-256 differs from the one in SHA256SUMS)" in problems
    assert "SHA256SUMS: the checksum of incident.json differs from the manifest's" in problems


def test_verify_refuses_a_manifest_path_out_of_the_bundle(tmp_path: Path, clips: list[Path]) -> None:
    path = make(tmp_path, clips)
    manifest = json.loads((path / "manifest.json").read_text())
    manifest["files"][0]["path"] = "../outside.json"
    (path / "manifest.json").write_text(json.dumps(manifest))
    assert verify_bundle(path) == ["manifest.json: a file path leaves the bundle: '../outside.json'"]
    assert verify_bundle(tmp_path / "nowhere") == [f"{tmp_path / 'nowhere'}: not a bundle folder"]


def test_a_failed_copy_leaves_no_partial_bundle(tmp_path: Path, clips: list[Path],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    copied: list[str] = []

    def copy_then_fail(source: Path, dest: Path) -> None:
        if copied:
            raise OSError(28, "No space left on device")
        copied.append(str(source))
        shutil.copyfile(source, dest)

    monkeypatch.setattr(shutil, "copy2", copy_then_fail)
    with pytest.raises(BundleError, match=r"can't copy .*al-000000000000000a-overhead\.webm.*No space left"):
        make(tmp_path, clips)
    assert copied and list((tmp_path / "cases").iterdir()) == []


def test_two_bundles_of_one_incident_in_one_second_both_kept(tmp_path: Path, clips: list[Path]) -> None:
    first, second = make(tmp_path, clips), make(tmp_path, clips[:1])
    assert second.name == first.name + "-2" and verify_bundle(first) == [] and verify_bundle(second) == []


def test_a_destination_that_cant_be_written_is_a_clear_error(tmp_path: Path, clips: list[Path]) -> None:
    blocker = tmp_path / "cases"
    blocker.write_text("a file where the folder should be")
    with pytest.raises(BundleError, match=re.escape(f"can't write bundles to {blocker}: it is not a folder")):
        make(tmp_path, clips)


def test_a_read_only_destination_is_a_clear_error(tmp_path: Path, clips: list[Path],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases").chmod(0o500)
    if os.geteuid() == 0:  # root writes into any folder: what the kernel tells everyone else
        monkeypatch.setattr(tempfile, "mkdtemp", _denied)
    try:
        with pytest.raises(BundleError, match=r"can't write bundles to .*cases: Permission denied"):
            make(tmp_path, clips)
    finally:
        (tmp_path / "cases").chmod(0o700)
    assert list((tmp_path / "cases").iterdir()) == []


def _denied(**_: object) -> str:
    raise PermissionError(13, "Permission denied")


def test_a_bad_incident_id_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=re.escape("incident id '../x'")):
        write_bundle(tmp_path, incident={"id": "../x"}, alerts=[], hand=None, evidence_files=[])


# --- push ----------------------------------------------------------------------------------------------------


def test_push_runs_the_command_with_the_bundle_path(tmp_path: Path, clips: list[Path]) -> None:
    path = make(tmp_path, clips)
    remote = tmp_path / "remote"
    script = "import shutil, sys; shutil.copytree(sys.argv[1], sys.argv[2]); print('copied')"
    out = push_bundle(path, [sys.executable, "-c", script, "{bundle}", f"{remote}/{path.name}"])
    assert out.strip() == "copied" and verify_bundle(remote / path.name) == []


def test_a_failed_push_says_why(tmp_path: Path, clips: list[Path]) -> None:
    path = make(tmp_path, clips)
    failing = [sys.executable, "-c", "import sys; sys.exit('remote:cases: permission denied')", "{bundle}"]
    with pytest.raises(BundleError, match=r"exit status 1\): remote:cases: permission denied"):
        push_bundle(path, failing)
    with pytest.raises(BundleError, match="'no-such-uploader' not found"):
        push_bundle(path, ["no-such-uploader", "{bundle}"])
    with pytest.raises(BundleError, match="no bundle at"):
        push_bundle(tmp_path / "absent", ["true", "{bundle}"])


def test_export_config() -> None:
    with pytest.raises(BundleError, match=r"exports are off: set export\.folder"):
        ExportConfig().destination()
    assert ExportConfig(folder=Path("/cases")).destination() == Path("/cases")
    with pytest.raises(ValueError, match=re.escape("put {bundle} in one of its arguments")):
        ExportConfig(push_command=["rclone", "copy", "remote:"])
    assert ExportConfig(push_command=["rclone", "copy", "{bundle}", "remote:cases"]).push_command
    assert all(f.description for f in ExportConfig.model_fields.values())


# --- tablewatch evidence verify ------------------------------------------------------------------------------


def test_cli_verify(tmp_path: Path, clips: list[Path]) -> None:
    path = make(tmp_path, clips)
    runner = CliRunner()
    intact = runner.invoke(cli, ["evidence", "verify", str(path)])
    assert intact.exit_code == 0 and "intact" in intact.output
    (path / "hand.json").write_text("{}")
    broken = runner.invoke(cli, ["evidence", "verify", str(path)])
    assert broken.exit_code == 1 and "hand.json: changed" in broken.output
    absent = runner.invoke(cli, ["evidence", "verify", str(tmp_path / "absent")])
    assert absent.exit_code == 2 and "does not exist" in absent.output

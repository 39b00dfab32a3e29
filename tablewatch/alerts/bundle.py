"""A case file for an incident: its payloads and evidence in one folder that proves it has not changed.

``write_bundle`` writes ``<incident id>-<UTC time>/`` with ``incident.json``, ``alerts.json`` (every revision
given), ``hand.json``, ``evidence/`` (copies), ``manifest.json`` (size and SHA-256 of each file) and
``SHA256SUMS`` (``sha256sum -c SHA256SUMS`` checks it anywhere, no tablewatch needed). The bundle is built in a
hidden folder beside it and renamed into place whole. ``verify_bundle`` lists what no longer matches;
``push_bundle`` hands it to a command such as rclone.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any

from pydantic import Field, field_validator

from tablewatch.config import StrictModel

SCHEMA = "tablewatch/bundle/1"
INCIDENT_ID = re.compile(r"^in-[0-9a-f]{16}$")
MANIFEST = "manifest.json"
SUMS = "SHA256SUMS"
EVIDENCE_DIR = "evidence"
PLACEHOLDER = "{bundle}"


class BundleError(Exception):
    """A bundle could not be written, read or pushed; the message says where and why."""


class ExportConfig(StrictModel):
    folder: Path | None = Field(default=None, description="where case-file bundles are written (none: exports "
                                "are refused)")
    push_command: list[str] | None = Field(default=None, min_length=1, description="command run on each new "
                                           "bundle, no shell, `{bundle}` replaced by its path, e.g. "
                                           '["rsync", "-a", "{bundle}", "casefiles.casino.lan:/srv/cases/"] '
                                           "(none: bundles stay here)")

    @field_validator("push_command")
    @classmethod
    def verify_push_command_names_the_bundle(cls, command: list[str] | None) -> list[str] | None:
        if command is not None and not any(PLACEHOLDER in part for part in command):
            raise ValueError(f"the command must name the bundle: put {PLACEHOLDER} in one of its arguments")
        return command

    def destination(self) -> Path:
        """The folder bundles go to; BundleError when exports are off."""
        if self.folder is None:
            raise BundleError("exports are off: set export.folder to the folder case-file bundles go to")
        return self.folder


def write_bundle(dest_dir: Path, *, incident: Mapping[str, Any], alerts: Sequence[Mapping[str, Any]],
                 hand: Mapping[str, Any] | None, evidence_files: Sequence[Path],
                 created: datetime | None = None) -> Path:
    """Writes the incident's bundle into ``dest_dir``; returns its folder. Evidence files that don't exist are
    listed under the manifest's "missing" (a clip may never have been written)."""
    ident = str(incident.get("id", ""))
    if not INCIDENT_ID.match(ident):
        raise ValueError(f"incident id {ident!r} is not in- and 16 hex digits")
    created = (created or datetime.now(UTC)).astimezone(UTC)
    staging = _staging(Path(dest_dir), ident)
    try:
        _fill(staging, incident=incident, alerts=alerts, hand=hand, evidence_files=evidence_files,
              created=created)
        return _publish(staging, Path(dest_dir), f"{ident}-{created:%Y%m%dT%H%M%SZ}")
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _staging(dest_dir: Path, ident: str) -> Path:
    """A hidden folder beside the bundle-to-be: same file system, so the final rename is atomic."""
    if dest_dir.exists() and not dest_dir.is_dir():
        raise BundleError(f"can't write bundles to {dest_dir}: it is not a folder")
    try:
        dest_dir.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=f".{ident}-", suffix=".partial", dir=dest_dir))
    except OSError as exc:
        raise BundleError(f"can't write bundles to {dest_dir}: {exc.strerror or exc}") from exc


def _fill(folder: Path, *, incident: Mapping[str, Any], alerts: Sequence[Mapping[str, Any]],
          hand: Mapping[str, Any] | None, evidence_files: Sequence[Path], created: datetime) -> None:
    _write_json(folder / "incident.json", incident)
    _write_json(folder / "alerts.json", list(alerts))
    if hand is not None:
        _write_json(folder / "hand.json", hand)
    missing = _copy_evidence(folder / EVIDENCE_DIR, evidence_files)
    files = [_describe(folder, path) for path in sorted(_files(folder))]
    manifest: dict[str, Any] = {"schema": SCHEMA, "incident": incident["id"],
                                "created": created.isoformat(timespec="seconds").replace("+00:00", "Z"),
                                "files": files}
    if missing:
        manifest["missing"] = missing
    _write_json(folder / MANIFEST, manifest)
    sums = [*((f["path"], f["sha256"]) for f in files), (MANIFEST, _digest(folder / MANIFEST))]
    (folder / SUMS).write_text("".join(_sum_line(path, digest) for path, digest in sums), encoding="utf-8")
    _sync(folder)


def _copy_evidence(folder: Path, sources: Sequence[Path]) -> list[str]:
    """Copies each file into ``folder``; the paths of those that don't exist (or vanished meanwhile)."""
    folder.mkdir()
    missing: list[str] = []
    seen: dict[str, Path] = {}
    for source in map(Path, sources):
        if source.name in seen:
            if seen[source.name].resolve() == source.resolve():
                continue  # named twice
            raise ValueError(f"two evidence files are named {source.name}: {seen[source.name]} and {source}")
        seen[source.name] = source
        try:
            if not source.is_file():
                raise FileNotFoundError(source)
            shutil.copy2(source, folder / source.name)
        except FileNotFoundError:  # retention may have removed it meanwhile
            missing.append(str(source))
        except OSError as exc:
            raise BundleError(f"can't copy {source} into the bundle: {exc.strerror or exc}") from exc
    return missing


def _publish(staging: Path, dest_dir: Path, name: str) -> Path:
    """Renames the whole bundle into place; a second bundle of the same incident in the same second gets -2..."""
    for n in range(1, 100):
        final = dest_dir / (name if n == 1 else f"{name}-{n}")
        try:
            os.rename(staging, final)  # onto an existing non-empty folder this fails: no bundle overwritten
        except OSError as exc:
            if exc.errno in (errno.EEXIST, errno.ENOTEMPTY):
                continue
            raise BundleError(f"can't move the bundle into {dest_dir}: {exc.strerror or exc}") from exc
        _sync_dir(dest_dir)
        return final
    raise BundleError(f"{dest_dir} already holds 99 bundles named {name}")


def _write_json(path: Path, data: object) -> None:
    path.write_text(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")


def _files(folder: Path) -> Iterator[str]:
    """Every file under ``folder`` as a relative POSIX path, links included (verify refuses them)."""
    for root, dirs, names in os.walk(folder):
        dirs.sort()
        for name in names:
            yield (PurePosixPath(Path(root).relative_to(folder).as_posix()) / name).as_posix()


def _describe(folder: Path, path: str) -> dict[str, Any]:
    full = folder / path
    return {"path": path, "bytes": full.stat().st_size, "sha256": _digest(full)}


def _digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _sum_line(path: str, digest: str) -> str:
    """One line as ``sha256sum`` writes it: a name with a backslash or a newline escaped, the line then marked
    with a leading backslash."""
    escaped = path.replace("\\", "\\\\").replace("\n", "\\n")
    return f"{digest}  {path}\n" if escaped == path else f"\\{digest}  {escaped}\n"


def _parse_sums(text: str) -> dict[str, str]:
    """SHA256SUMS read back: path -> digest; ValueError at a line that is not ``<digest>  <path>``."""
    sums: dict[str, str] = {}
    for line in text.removesuffix("\n").split("\n") if text else []:  # not splitlines: a name may hold \x1c
        escaped = line.startswith("\\")
        match = re.fullmatch(r"([0-9a-f]{64}) [ *](.+)", line[1:] if escaped else line)
        if match is None:
            raise ValueError(f"not a checksum line: {line[:80]!r}")
        path = match[2]
        if escaped:
            path = re.sub(r"\\(.)", lambda m: "\n" if m[1] == "n" else m[1], path)
        sums[path] = match[1]
    return sums


def _sync(folder: Path) -> None:
    """Every file and folder of the bundle on disk before it is renamed into place."""
    for root, _, names in os.walk(folder):
        for name in names:
            fd = os.open(Path(root) / name, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        _sync_dir(Path(root))


def _sync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def verify_bundle(path: Path) -> list[str]:
    """What no longer matches the manifest: changed, missing or extra files, SHA256SUMS disagreeing; [] when
    the bundle is intact."""
    path = Path(path)
    if not path.is_dir():
        return [f"{path}: not a bundle folder"]
    try:
        manifest = _read_manifest(path)
    except BundleError as exc:
        return [str(exc)]
    listed = {entry["path"]: entry for entry in manifest["files"]}
    problems = [problem for entry in listed.values() if (problem := _check_file(path, entry))]
    problems += [f"{name}: extra file, not in the manifest" for name in _files(path)
                 if name not in listed and name not in (MANIFEST, SUMS)]
    return problems + _check_sums(path, listed)


def _read_manifest(path: Path) -> dict[str, Any]:
    try:
        manifest = json.loads((path / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BundleError(f"{MANIFEST}: unreadable ({exc})") from exc
    files = manifest.get("files") if isinstance(manifest, dict) else None
    if not isinstance(manifest, dict) or manifest.get("schema") != SCHEMA or not isinstance(files, list):
        raise BundleError(f'{MANIFEST}: not a {SCHEMA} manifest (no "schema" or "files")')
    for entry in files:
        if not (isinstance(entry, dict) and isinstance(entry.get("path"), str) and
                isinstance(entry.get("bytes"), int) and isinstance(entry.get("sha256"), str)):
            raise BundleError(f"{MANIFEST}: a file entry is not {{path, bytes, sha256}}: {entry!r}")
        parts = PurePosixPath(entry["path"]).parts
        if PurePosixPath(entry["path"]).is_absolute() or ".." in parts:
            raise BundleError(f"{MANIFEST}: a file path leaves the bundle: {entry['path']!r}")
    return manifest


def _check_file(folder: Path, entry: Mapping[str, Any]) -> str | None:
    full = folder / entry["path"]
    if full.is_symlink() or (full.exists() and not full.is_file()):
        return f"{entry['path']}: not a plain file"
    if not full.exists():
        return f"{entry['path']}: missing"
    size = full.stat().st_size
    if size != entry["bytes"]:
        return f"{entry['path']}: changed ({size} bytes, the manifest says {entry['bytes']})"
    if _digest(full) != entry["sha256"]:
        return f"{entry['path']}: changed (its SHA-256 differs from the manifest's)"
    return None


def _check_sums(folder: Path, listed: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """SHA256SUMS must list every file with the manifest's checksums, and the manifest's own."""
    try:
        sums = _parse_sums((folder / SUMS).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return [f"{SUMS}: unreadable ({exc})"]
    expected = {path: str(entry["sha256"]) for path, entry in listed.items()}
    expected[MANIFEST] = _digest(folder / MANIFEST)
    problems = [f"{SUMS}: {path} is not listed" for path in expected if path not in sums]
    problems += [f"{SUMS}: lists {path}, which the manifest does not" for path in sums if path not in expected]
    problems += [f"{SUMS}: the checksum of {path} differs from the manifest's" if path != MANIFEST else
                 f"{MANIFEST}: changed (its SHA-256 differs from the one in {SUMS})"
                 for path, digest in sums.items() if path in expected and expected[path] != digest]
    return problems


def push_bundle(path: Path, command: Sequence[str], *, timeout_s: float | None = 3600.0) -> str:
    """Runs ``command`` (no shell) with ``{bundle}`` replaced by the bundle's path in each argument; returns its
    output. BundleError with its error output when it fails."""
    path = Path(path)
    if not path.is_dir():
        raise BundleError(f"no bundle at {path}")
    argv = [part.replace(PLACEHOLDER, str(path)) for part in command]
    if not argv:
        raise BundleError("no push command given")
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s, check=False)
    except FileNotFoundError as exc:
        raise BundleError(f"push of {path.name}: {argv[0]!r} not found") from exc
    except subprocess.TimeoutExpired as exc:
        raise BundleError(f"push of {path.name}: {argv[0]} still running after {timeout_s:.0f} s; stopped") from exc
    except OSError as exc:
        raise BundleError(f"push of {path.name}: can't run {argv[0]}: {exc.strerror or exc}") from exc
    if done.returncode:
        raise BundleError(f"push of {path.name}: {' '.join(argv)} failed (exit status {done.returncode}): "
                          f"{done.stderr.strip()[-2000:] or '(no error output)'}")
    return done.stdout

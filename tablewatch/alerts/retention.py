"""How long evidence lasts: stills and clips pruned by age, then by the folder's size, except the alerts on a keep list.

The evidence folder (``EvidenceConfig.folder``) holds ``<alert id>-<camera>.jpg`` and ``<alert id>-<camera><ext>``
per alert. ``prune`` removes an alert's files together, never those of an alert on the ``KeepList`` (a case file
may need them for years), never a clip still being written (``*.partial.*``, see ``evidence.write_clip``) nor
anything else in the folder, and never follows a symbolic link. ``RetentionSweeper`` runs it every ``every_s``.

    kept = KeepList.beside(config.evidence.folder)
    sweeper = RetentionSweeper(config.evidence.folder, RetentionConfig(max_size_gb=200), kept).start()
    ...
    sweeper.stop()
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import re
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import Field

from tablewatch.config import StrictModel

log = logging.getLogger(__name__)

# An alert's id, or a hand's (its recording, ``handclips``): evidence is kept and removed by these.
ALERT_ID = re.compile(r"^(al|hd)-[0-9a-f]{16}$")
# <id>-<camera>.<ext>; the camera name is free text but a clip being written is <stem>.partial<ext>
EVIDENCE_NAME = re.compile(r"^(?P<alert>(al|hd)-[0-9a-f]{16})-(?P<camera>[^/]+)\.(?P<ext>[A-Za-z0-9]+)$")
TEMPORARY = frozenset({"partial", "part", "tmp", "temp"})  # a dotted part of a name being written
KEEP_FILE = "kept.json"
KEEP_SCHEMA = "tablewatch/kept/1"
# An alert whose files changed this recently may still be getting its clip (booked for after_s, then encoded,
# which took minutes for many 4K alerts on a loaded machine): the size cap does not split it from its still.
FRESH_S = 600.0
GB = 1_000_000_000  # decimal, as disks are sold


class KeepListError(Exception):
    """The keep list's file can't be read or written; the message names it."""


class KeepList:
    """Alert ids whose evidence retention never removes, in a JSON file rewritten whole at each change.

    Every read goes to the file, so a sweeper in the monitor sees what ``tablewatch evidence keep`` changed
    in another process; changes are made under an exclusive lock so two writers do not lose one another's ids.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    @classmethod
    def beside(cls, folder: Path) -> KeepList:
        """The keep list of the evidence in ``folder``."""
        return cls(Path(folder) / KEEP_FILE)

    def ids(self) -> frozenset[str]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return frozenset()
        except (OSError, UnicodeDecodeError) as exc:
            raise KeepListError(f"keep list {self.path}: cannot read it ({exc}); no evidence is pruned until it "
                                "is mended") from exc
        return self._parse(text)

    def __contains__(self, alert: object) -> bool:
        return alert in self.ids()

    def keep(self, ids: Iterable[str]) -> frozenset[str]:
        """Adds ``ids``; returns those that were not kept already."""
        wanted = _valid(ids)
        with self._locked():
            before = self.ids()
            self._write(before | wanted)
        return wanted - before

    def release(self, ids: Iterable[str]) -> frozenset[str]:
        """Removes ``ids``; returns those that were kept."""
        unwanted = _valid(ids)
        with self._locked():
            before = self.ids()
            self._write(before - unwanted)
        return unwanted & before

    def _parse(self, text: str) -> frozenset[str]:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise KeepListError(f"keep list {self.path}: not valid JSON ({exc}); mend or remove it") from None
        listed = data.get("alerts") if isinstance(data, dict) and data.get("schema") == KEEP_SCHEMA else None
        if not isinstance(listed, list) or not all(isinstance(a, str) and ALERT_ID.match(a) for a in listed):
            raise KeepListError(f'keep list {self.path}: expected {{"schema": "{KEEP_SCHEMA}", "alerts": '
                                '["al-<16 hex digits>" or "hd-<16 hex digits>", ...]}; mend or remove it')
        return frozenset(listed)

    def _write(self, ids: frozenset[str]) -> None:
        text = json.dumps({"schema": KEEP_SCHEMA, "alerts": sorted(ids)}, indent=1) + "\n"
        try:
            _write_atomically(self.path, text)
        except OSError as exc:
            raise KeepListError(f"keep list {self.path}: cannot write it ({exc})") from exc

    @contextmanager
    def _locked(self) -> Iterator[None]:
        lock = self.path.with_name(f".{self.path.name}.lock")
        try:
            handle = lock.open("a")
        except OSError as exc:
            raise KeepListError(f"keep list {self.path}: cannot lock it ({exc})") from exc
        with handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            yield


def _valid(ids: Iterable[str]) -> frozenset[str]:
    ids = frozenset([ids] if isinstance(ids, str) else ids)  # one id alone is not its characters
    bad = sorted(a for a in ids if not ALERT_ID.match(a))
    if bad:
        raise ValueError(f"not an alert id (al- and 16 hex digits) nor a hand's (hd-): {', '.join(map(repr, bad))}")
    return ids


def _write_atomically(path: Path, text: str) -> None:
    """Writes beside ``path``, then renames: a reader (or a crash) never meets half a file."""
    fd, aside = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(aside, _mode(path))
        os.replace(aside, path)
    except BaseException:
        Path(aside).unlink(missing_ok=True)
        raise


def _mode(path: Path) -> int:
    """The file's permissions, kept across the rewrite (mkstemp's are owner-only): 0644 for a new one."""
    try:
        return path.stat().st_mode & 0o7777
    except FileNotFoundError:
        return 0o644


class RetentionConfig(StrictModel):
    max_age_days: float | None = Field(default=30.0, gt=0, description="evidence of an alert older than this "
                                       "is removed (none: kept whatever its age)")
    max_size_gb: float | None = Field(default=None, gt=0, description="then the oldest alerts' evidence is "
                                      "removed until the folder holds at most this many GB (10^9 bytes; none: "
                                      "no cap). Kept alerts count in the size and are never removed")
    every_s: float = Field(default=3600.0, ge=1, description="seconds between two sweeps of the folder")


@dataclass(frozen=True)
class _Alert:
    """One alert's evidence files in the folder."""

    alert: str
    files: tuple[tuple[Path, int], ...]  # (path, bytes)
    newest: float  # mtime of its newest file

    @property
    def size(self) -> int:
        return sum(n for _, n in self.files)


@dataclass
class PruneReport:
    """What one pass of ``prune`` did (or, on a dry run, would do)."""

    folder: Path
    removed: list[Path] = field(default_factory=list)
    bytes_freed: int = 0
    kept_exempt: int = 0  # files of kept alerts in the folder, none of them removed
    kept_bytes: int = 0
    bytes_remaining: int = 0
    max_bytes: int | None = None
    dry_run: bool = False
    failed: list[str] = field(default_factory=list)  # files that could not be removed, with why

    @property
    def kept_over_cap(self) -> bool:
        """The kept alerts' files alone exceed the size cap: pruning can't get under it."""
        return self.max_bytes is not None and self.kept_bytes > self.max_bytes

    def summary(self) -> str:
        verb = "would remove" if self.dry_run else "removed"
        text = (f"{self.folder}: {verb} {len(self.removed)} file(s), {_size(self.bytes_freed)}; "
                f"{_size(self.bytes_remaining)} left; {self.kept_exempt} file(s) of kept alerts exempt "
                f"({_size(self.kept_bytes)})")
        if self.kept_over_cap and self.max_bytes is not None:
            text += f"; the kept files alone exceed the {_size(self.max_bytes)} cap"
        elif self.max_bytes is not None and self.bytes_remaining > self.max_bytes:
            text += (f"; still over the {_size(self.max_bytes)} cap: the rest is kept, could not be removed or "
                     f"is of alerts of the last {FRESH_S:.0f} s, whose clips may still be coming")
        if self.failed:
            text += f"; {len(self.failed)} file(s) could not be removed: {'; '.join(self.failed)}"
        return text + "."


def _size(n: int) -> str:
    if n >= GB:
        return f"{n / GB:.2f} GB"
    return f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{n / 1e3:.1f} kB"


def prune(folder: Path, config: RetentionConfig, *, kept: KeepList | frozenset[str], now: float | None = None,
          dry_run: bool = False) -> PruneReport:
    """Removes evidence past ``config.max_age_days``, then the oldest alerts' while over ``config.max_size_gb``.

    An alert's files go together, aged by its newest file. Kept alerts are spared; a ``KeepList`` that can't be
    read raises KeepListError before anything is removed. ``dry_run``: report only.
    """
    protected = kept.ids() if isinstance(kept, KeepList) else frozenset(kept)
    now = time.time() if now is None else now
    max_bytes = None if config.max_size_gb is None else int(config.max_size_gb * GB)
    report = PruneReport(folder=Path(folder), max_bytes=max_bytes, dry_run=dry_run)
    alerts = sorted(_scan(Path(folder)), key=lambda a: a.newest)
    for alert in alerts:
        if alert.alert in protected:
            report.kept_exempt += len(alert.files)
            report.kept_bytes += alert.size
    total = sum(a.size for a in alerts)
    prunable = [a for a in alerts if a.alert not in protected]
    for alert in _doomed(prunable, config, total=total, max_bytes=max_bytes, now=now):
        total -= _remove(alert, report)
    report.bytes_remaining = total
    return report


def _doomed(alerts: list[_Alert], config: RetentionConfig, *, total: int, max_bytes: int | None,
            now: float) -> Iterator[_Alert]:
    """The alerts to remove, oldest first: past the age limit, then while the folder is over the cap."""
    cutoff = None if config.max_age_days is None else now - config.max_age_days * 86400
    for alert in alerts:
        old = cutoff is not None and alert.newest < cutoff
        over = max_bytes is not None and total > max_bytes and alert.newest < now - FRESH_S
        if old or over:
            total -= alert.size
            yield alert


def _remove(alert: _Alert, report: PruneReport) -> int:
    """Removes the alert's files; the bytes freed."""
    freed = 0
    for path, size in alert.files:
        if not report.dry_run:
            try:
                path.unlink()
            except FileNotFoundError:
                continue
            except OSError as exc:
                report.failed.append(f"{path.name} ({exc.strerror or exc})")
                continue
        report.removed.append(path)
        freed += size
    report.bytes_freed += freed
    return freed


def _scan(folder: Path) -> list[_Alert]:
    """The evidence in ``folder`` (not below it), by alert; links and files being written left out."""
    found: dict[str, list[tuple[Path, int, float]]] = {}
    try:
        entries = os.scandir(folder)
    except FileNotFoundError:  # no alert has written evidence yet
        return []
    with entries:
        for entry in entries:
            match = EVIDENCE_NAME.match(entry.name)
            if match is None or TEMPORARY & set(entry.name.lower().split(".")[1:]) or entry.name.endswith("~"):
                continue
            if not entry.is_file(follow_symlinks=False):  # a link could point out of the folder
                continue
            try:
                stat = entry.stat(follow_symlinks=False)
            except FileNotFoundError:  # removed meanwhile
                continue
            found.setdefault(match["alert"], []).append((Path(entry.path), stat.st_size, stat.st_mtime))
    return [_Alert(alert, tuple((p, n) for p, n, _ in sorted(files)), max(t for _, _, t in files))
            for alert, files in found.items()]


class RetentionSweeper:
    """Prunes ``folder`` at start and every ``config.every_s`` in a daemon thread until ``stop()``."""

    def __init__(self, folder: Path, config: RetentionConfig, kept: KeepList | frozenset[str]) -> None:
        self.folder = Path(folder)
        self.config = config
        self.kept = kept
        self.sweeps = 0
        self.last: PruneReport | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="evidence-retention", daemon=True)

    def start(self) -> RetentionSweeper:
        self._thread.start()
        return self

    def stop(self, timeout: float | None = 10.0) -> None:
        """Ends the thread; a sweep in progress finishes its current file's removal first."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout)

    def sweep(self) -> PruneReport | None:
        """One pass; errors are logged (the next pass tries again), None then."""
        try:
            report = prune(self.folder, self.config, kept=self.kept)
        except Exception:  # a full disk, a bad keep list...: the next sweep tries again
            log.exception("evidence retention in %s failed; trying again in %.0f s", self.folder, self.config.every_s)
            return None
        finally:
            self.sweeps += 1
        self.last = report
        if report.removed or report.failed or report.kept_over_cap:
            log.log(logging.WARNING if report.failed or report.kept_over_cap else logging.INFO,
                    "evidence retention: %s", report.summary())
        return report

    def _run(self) -> None:
        while not self._stop.is_set():
            self.sweep()
            self._stop.wait(self.config.every_s)

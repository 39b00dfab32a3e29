"""What a table's devices captured, as timelines on the recording's clock (seconds from its start), so a
replay can play them back through the real drivers (``tablewatch.table.replay``).

- RFID (``rfid.jsonl``): one ``RfidInventory`` per antenna each time its contents change (JSON lines, the
  event format of ``tablewatch.events``): what the reader would answer to an inventory of that antenna from
  then on. The first entry of an antenna is what lies on it when the recording starts.
- console (``console.txt``): one entry a line, ``SECONDS ENTRY``, the entry in the console's own line
  syntax (``tablewatch.devices.console``), e.g. ``10.400 3 raise 900``; ``#`` comments and blank lines
  are skipped.

A file is read as hostile input: a bad line is a ``ConfigError`` naming the file and the line.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from tablewatch.config import ConfigError
from tablewatch.devices.iso15693 import parse_uid
from tablewatch.events import Event, RfidInventory


@dataclass(frozen=True, kw_only=True)
class ConsoleEntry:
    """One line the dealer typed, ``t`` seconds into the recording."""

    t: float
    line: str


def write_rfid_timeline(path: Path, reads: Iterable[RfidInventory]) -> None:
    path.write_text("".join(read.to_json() + "\n" for read in reads), encoding="utf-8")


def read_rfid_timeline(path: Path) -> list[RfidInventory]:
    """The antenna reads of ``path`` in time order."""
    reads: list[RfidInventory] = []
    for number, line in enumerate(_read(path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            event = Event.from_dict(json.loads(line))
            if not isinstance(event, RfidInventory) or not _time(event.ts):
                raise ValueError("expected an RfidInventory at a time >= 0")
            for uid in event.uids:
                parse_uid(uid)
        except (ValueError, TypeError, KeyError) as exc:
            raise ConfigError(f"{path}, line {number}: not an RFID inventory ({exc})") from exc
        reads.append(event)
    return sorted(reads, key=lambda r: r.ts)


def write_console_entries(path: Path, entries: Iterable[ConsoleEntry]) -> None:
    lines = ["# seconds into the recording, then the line the dealer typed"]
    lines += [f"{entry.t:.3f} {entry.line}" for entry in entries]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def read_console_entries(path: Path) -> list[ConsoleEntry]:
    """The console entries of ``path`` in time order (each line is checked by the console when it arrives)."""
    entries: list[ConsoleEntry] = []
    for number, raw in enumerate(_read(path).splitlines(), start=1):
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        stamp, _, line = text.partition(" ")
        try:
            t = float(stamp)
        except ValueError:
            t = math.nan
        if not _time(t) or not line.strip() or not line.isprintable():
            raise ConfigError(f"{path}, line {number}: expected 'SECONDS ENTRY', got {text[:80]!r}")
        entries.append(ConsoleEntry(t=t, line=line.strip()))
    return sorted(entries, key=lambda e: e.t)


def _time(t: float) -> bool:
    return math.isfinite(t) and t >= 0


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the recording ({exc})") from exc

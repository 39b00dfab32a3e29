"""A durable outbox: every message for QoS 1 is written to SQLite first, and deleted only on PUBACK.

Rows are replayed in ``seq`` order after the broker comes back and after the monitor restarts.

Cap and drop policy (``max_rows``): when the outbox is full, the oldest row of the lowest class goes first:
``state`` (only the newest is worth anything), then ``event``-class rows, then ``hand`` and ``broadcast``,
and alerts last of all. Every drop is counted and logged; ``backlog()`` reports it. Rows with a
``coalesce`` key replace the unsent row with the same key (the retained state: only the newest matters).

SQLite runs in WAL mode with ``synchronous=NORMAL``: a row survives a crash of the process (the monitor
killed, the box's service restarted) at the price of one write, not one fsync; a power cut can lose the
last few hundred milliseconds.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

# Lower number = dropped first when the outbox is full.
PRIORITY = {"state": 0, "event": 1, "holecards": 2, "hand": 3, "broadcast": 3, "alert": 4}

_SCHEMA = """
CREATE TABLE IF NOT EXISTS outbox (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    msg_id TEXT NOT NULL UNIQUE,
    topic TEXT NOT NULL,
    payload BLOB NOT NULL,
    qos INTEGER NOT NULL,
    retain INTEGER NOT NULL,
    kind TEXT NOT NULL,
    priority INTEGER NOT NULL,
    coalesce_key TEXT,
    not_before REAL NOT NULL,
    created REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS outbox_drop ON outbox (priority, seq);
CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
"""


@dataclass(frozen=True, kw_only=True)
class Row:
    seq: int
    msg_id: str
    topic: str
    payload: bytes
    qos: int
    retain: bool
    kind: str


@dataclass(frozen=True, kw_only=True)
class Backlog:
    rows: int  # waiting for a PUBACK (or for their not_before time)
    oldest_s: float  # age of the oldest waiting row, 0 when empty
    dropped: int  # rows thrown away by the cap since the outbox file was created
    denied: int  # rows the broker refused (not authorised): dropped, never retried


class OutboxError(RuntimeError):
    """The outbox file can't be opened or written; the message names the file."""


class Outbox:
    """Thread-safe; one SQLite connection guarded by a lock (the writes are tiny)."""

    def __init__(self, path: str | Path, *, max_rows: int = 100_000) -> None:
        self.path = Path(path)
        self.max_rows = max_rows
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
        except (sqlite3.Error, OSError) as exc:
            raise OutboxError(f"can't open the outbox {self.path}: {exc}") from exc

    def put(self, *, msg_id: str, topic: str, payload: bytes, kind: str, qos: int = 1, retain: bool = False,
            coalesce: str | None = None, not_before: float = 0.0) -> bool:
        """Store a message; False when a row with this ``msg_id`` is already waiting (a harmless repeat)."""
        priority = PRIORITY.get(kind, 1)
        now = time.time()
        with self._lock, self._transaction():
            if coalesce is not None:
                self._db.execute("DELETE FROM outbox WHERE coalesce_key = ?", (coalesce,))
            cur = self._db.execute(
                "INSERT OR IGNORE INTO outbox (msg_id, topic, payload, qos, retain, kind, priority, coalesce_key,"
                " not_before, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (msg_id, topic, payload, qos, int(retain), kind, priority, coalesce, not_before, now))
            if cur.rowcount:
                self._enforce_cap()
            return bool(cur.rowcount)

    def _enforce_cap(self) -> None:
        (count,) = self._db.execute("SELECT COUNT(*) FROM outbox").fetchone()
        excess = count - self.max_rows
        if excess <= 0:
            return
        victims = self._db.execute("SELECT seq, kind, msg_id FROM outbox ORDER BY priority, seq LIMIT ?",
                                   (excess,)).fetchall()
        self._db.executemany("DELETE FROM outbox WHERE seq = ?", [(v[0],) for v in victims])
        self._bump("dropped", len(victims))
        for _, kind, msg_id in victims:
            log.error("outbox %s is full (%d rows): dropped %s %s", self.path, self.max_rows, kind, msg_id)

    def after(self, seq: int, *, limit: int, now: float | None = None) -> list[Row]:
        """Due rows (``not_before`` passed) after ``seq``, oldest first, plus delayed rows that have come due
        since (they may be older than ``seq``; the sender skips those it has already handed over)."""
        now = time.time() if now is None else now
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, msg_id, topic, payload, qos, retain, kind FROM outbox"
                " WHERE (seq > ? OR not_before > 0) AND not_before <= ? ORDER BY seq LIMIT ?",
                (seq, now, limit)).fetchall()
        return [Row(seq=r[0], msg_id=r[1], topic=r[2], payload=bytes(r[3]), qos=r[4], retain=bool(r[5]), kind=r[6])
                for r in rows]

    def next_due(self) -> float | None:
        """The earliest ``not_before`` in the future, so the sender knows when to look again."""
        with self._lock:
            row: tuple[float | None] = self._db.execute("SELECT MIN(not_before) FROM outbox WHERE not_before > ?",
                                                        (time.time(),)).fetchone()
        return row[0]

    def delete(self, seqs: list[int]) -> None:
        if not seqs:
            return
        with self._lock, self._transaction():
            self._db.executemany("DELETE FROM outbox WHERE seq = ?", [(s,) for s in seqs])

    def deny(self, seq: int, reason: str) -> None:
        """The broker refused this row (e.g. not authorised): drop it and count it; retrying can't help."""
        with self._lock, self._transaction():
            row = self._db.execute("SELECT topic FROM outbox WHERE seq = ?", (seq,)).fetchone()
            self._db.execute("DELETE FROM outbox WHERE seq = ?", (seq,))
            self._bump("denied", 1)
        log.error("the broker refused %s (%s): dropped from the outbox", row[0] if row else seq, reason)

    def backlog(self) -> Backlog:
        with self._lock:
            count, oldest = self._db.execute("SELECT COUNT(*), MIN(created) FROM outbox").fetchone()
            counters = dict(self._db.execute("SELECT name, value FROM counters").fetchall())
        return Backlog(rows=count, oldest_s=max(0.0, time.time() - oldest) if oldest else 0.0,
                       dropped=counters.get("dropped", 0), denied=counters.get("denied", 0))

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _bump(self, name: str, by: int) -> None:
        self._db.execute("INSERT INTO counters (name, value) VALUES (?, ?)"
                         " ON CONFLICT(name) DO UPDATE SET value = value + excluded.value", (name, by))

    def _transaction(self) -> _Tx:
        return _Tx(self._db)


class _Tx:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, *_: object) -> None:
        self.db.execute("ROLLBACK" if exc_type else "COMMIT")

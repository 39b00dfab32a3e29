"""A store of finished hands: SQLite by default (stdlib ``sqlite3``), PostgreSQL for a casino (``psycopg``).

``open_store(url)`` takes a file path or ``sqlite:///path`` (``:memory:`` works), or
``postgresql://user@host:port/db``. Each hand is kept as its PHH text and its OHH JSON, with the table,
hand number, start time and the number of violations, so an archive can be queried without parsing PHH.
``save`` is idempotent per (table, hand number): saving the same hand again replaces it. Each save also keeps
the hand's statistics facts in the store's rollup (``rollup.py``), which ``tablewatch stats`` queries.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from pokerkit import HandHistory

from tablewatch.hands import FinishedHand
from tablewatch.history.ohh import to_ohh
from tablewatch.history.phh import dumps_phh
from tablewatch.history.rollup import Rollup
from tablewatch.history.stats import HandFacts, hand_facts

_SCHEMA = """
CREATE TABLE IF NOT EXISTS {table} (
    table_id TEXT NOT NULL,
    hand_no BIGINT NOT NULL,
    started_ts DOUBLE PRECISION NOT NULL,
    violations INTEGER NOT NULL,
    phh TEXT NOT NULL,
    ohh TEXT NOT NULL,
    PRIMARY KEY (table_id, hand_no)
)
"""

log = logging.getLogger(__name__)


class StoreError(RuntimeError):
    """The store could not be opened or written; the message names the URL and the cause."""


@dataclass(frozen=True, kw_only=True)
class StoredHand:
    table: str
    hand_no: int
    started_ts: float
    violations: int
    phh: str
    ohh: dict[str, Any]


class HandStore(Protocol):
    rollup: Rollup

    def save(self, hand: FinishedHand) -> None: ...
    def get(self, table: str, hand_no: int) -> StoredHand | None: ...
    def list(self, table: str | None = None, *, limit: int = 100) -> list[StoredHand]: ...
    def count(self) -> int: ...
    def texts(self, table: str | None = None, *, form: Form = "phh") -> Iterator[tuple[str, str]]: ...
    def rebuild_rollup(self) -> Sequence[str]: ...
    def close(self) -> None: ...


POSTGRES_SCHEMES = ("postgresql://", "postgres://")
Form = Literal["phh", "ohh"]  # a stored hand's history: PHH text, or OHH JSON


def _column(form: Form) -> str:
    """The column a form is kept in (named from a fixed set, never from input)."""
    return {"phh": "phh", "ohh": "ohh"}[form]


def is_store_url(text: str) -> bool:
    """A URL only a hand store reads (a plain path may be a store's SQLite file or anything else)."""
    return text.startswith((*POSTGRES_SCHEMES, "sqlite:///"))


def open_store(url: str | Path, *, table: str = "hands") -> HandStore:
    """A hand store for ``url``: a path / ``sqlite:///path`` (SQLite) or ``postgresql://…`` (PostgreSQL).

    ``table``: the SQL table's name (letters, digits, underscores), so several archives can share a database.
    """
    if not table.replace("_", "").isalnum() or table[0].isdigit():
        raise StoreError(f"Hand store table name {table!r} must be letters, digits and underscores.")
    text = str(url)
    if text.startswith(POSTGRES_SCHEMES):
        return _PostgresStore(text, table=table)
    if text.startswith("sqlite:///"):
        text = text.removeprefix("sqlite:///")
    elif "://" in text:
        raise StoreError(f"Unknown hand store URL {text!r}: use a file path, sqlite:///path or postgresql://…")
    return _SqliteStore(text, table=table)


def _row(hand: FinishedHand) -> tuple[Any, ...]:
    """The stored row; its start time is the wall clock's where the hand has one (a live table's: runs follow
    each other in the store), else the events' clock (a replay's)."""
    phh, ohh = dumps_phh([hand]), json.dumps(to_ohh(hand))
    started = hand.started_at if hand.started_at is not None else hand.started_ts
    return (hand.table, hand.hand_no, started, len(hand.violations), phh, ohh)


def _facts(hand: FinishedHand, phh: str) -> HandFacts | None:
    """The hand's statistics facts; None (with a warning) when pokerkit can't replay its history: the hand is
    saved all the same, and the statistics read the hand histories where the rollup lacks hands."""
    try:
        return hand_facts(HandHistory.loads(phh))
    except Exception as exc:  # pokerkit raises many types for a hand it can't replay
        log.warning("hand %s#%s: no statistics rollup (%s: %s)", hand.table, hand.hand_no, type(exc).__name__, exc)
        return None


def _stored(row: tuple[Any, ...]) -> StoredHand:
    return StoredHand(table=row[0], hand_no=int(row[1]), started_ts=float(row[2]), violations=int(row[3]),
                      phh=row[4], ohh=json.loads(row[5]))


_COLUMNS = "table_id, hand_no, started_ts, violations, phh, ohh"


class _SqliteStore:
    def __init__(self, path: str, *, table: str) -> None:
        self.t = table
        try:
            if path != ":memory:":
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            # Opened where the table is set up, written from its pipeline's thread: one thread at a time uses it.
            self.db = sqlite3.connect(path, check_same_thread=False)
            self.db.execute(_SCHEMA.format(table=table))
            self.rollup = Rollup(self.db.execute, hands_table=table, mark="?")
            with self.db:
                self.rollup.create()
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"Cannot open the SQLite hand store {path!r}: {exc}") from exc

    def save(self, hand: FinishedHand) -> None:
        row = _row(hand)
        with self.db:
            self.db.execute(f"INSERT OR REPLACE INTO {self.t} ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)", row)
            self.rollup.replace((hand.table, hand.hand_no), _facts(hand, row[4]))

    def get(self, table: str, hand_no: int) -> StoredHand | None:
        row = self.db.execute(f"SELECT {_COLUMNS} FROM {self.t} WHERE table_id = ? AND hand_no = ?",
                              (table, hand_no)).fetchone()
        return _stored(row) if row else None

    def list(self, table: str | None = None, *, limit: int = 100) -> list[StoredHand]:
        if table is None:
            rows = self.db.execute(f"SELECT {_COLUMNS} FROM {self.t} ORDER BY started_ts LIMIT ?", (limit,))
        else:
            rows = self.db.execute(f"SELECT {_COLUMNS} FROM {self.t} WHERE table_id = ? ORDER BY hand_no LIMIT ?",
                                   (table, limit))
        return [_stored(r) for r in rows.fetchall()]

    def count(self) -> int:
        return int(self.db.execute(f"SELECT COUNT(*) FROM {self.t}").fetchone()[0])

    def texts(self, table: str | None = None, *, form: Form = "phh") -> Iterator[tuple[str, str]]:
        """("TABLE#N", its PHH or OHH) of every hand (of ``table``), oldest first, read as they are used."""
        where, args = ("WHERE table_id = ?", (table,)) if table is not None else ("", ())
        for table_id, hand_no, text in self.db.execute(
                f"SELECT table_id, hand_no, {_column(form)} FROM {self.t} {where} ORDER BY started_ts", args):
            yield f"{table_id}#{hand_no}", text

    def rebuild_rollup(self) -> Sequence[str]:
        """The statistics rollup refilled from every hand; a line for each hand pokerkit can't replay."""
        with self.db:
            return self.rollup.refill(self.texts())

    def close(self) -> None:
        self.db.close()


class _PostgresStore:
    def __init__(self, url: str, *, table: str) -> None:
        self.t = table
        try:
            import psycopg
        except ImportError as exc:
            raise StoreError("A PostgreSQL hand store needs psycopg: pip install 'psycopg[binary]'.") from exc
        try:
            self.db = psycopg.connect(url, connect_timeout=5, autocommit=True)
            self.db.execute(_SCHEMA.format(table=table))
            self.rollup = Rollup(self.db.execute, hands_table=table, mark="%s")
            self.rollup.create()
        except psycopg.Error as exc:
            raise StoreError(f"Cannot open the PostgreSQL hand store {_redact(url)}: {exc}".strip()) from exc

    def save(self, hand: FinishedHand) -> None:
        row = _row(hand)
        with self.db.transaction():
            self.db.execute(
                f"INSERT INTO {self.t} ({_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s) "
                "ON CONFLICT (table_id, hand_no) DO UPDATE SET started_ts = EXCLUDED.started_ts, "
                "violations = EXCLUDED.violations, phh = EXCLUDED.phh, "
                "ohh = EXCLUDED.ohh", row)
            self.rollup.replace((hand.table, hand.hand_no), _facts(hand, row[4]))

    def get(self, table: str, hand_no: int) -> StoredHand | None:
        row = self.db.execute(f"SELECT {_COLUMNS} FROM {self.t} WHERE table_id = %s AND hand_no = %s",
                              (table, hand_no)).fetchone()
        return _stored(row) if row else None

    def list(self, table: str | None = None, *, limit: int = 100) -> list[StoredHand]:
        if table is None:
            cur = self.db.execute(f"SELECT {_COLUMNS} FROM {self.t} ORDER BY started_ts LIMIT %s", (limit,))
        else:
            cur = self.db.execute(f"SELECT {_COLUMNS} FROM {self.t} WHERE table_id = %s ORDER BY hand_no LIMIT %s",
                                  (table, limit))
        return [_stored(r) for r in cur.fetchall()]

    def count(self) -> int:
        row = self.db.execute(f"SELECT COUNT(*) FROM {self.t}").fetchone()
        return int(row[0]) if row else 0

    def texts(self, table: str | None = None, *, form: Form = "phh") -> Iterator[tuple[str, str]]:
        """("TABLE#N", its PHH or OHH) of every hand (of ``table``), oldest first, streamed by a server-side
        cursor."""
        where, args = ("WHERE table_id = %s", (table,)) if table is not None else ("", ())
        with self.db.transaction(), self.db.cursor(name="tablewatch_texts") as cursor:  # DECLARE needs one
            cursor.execute(f"SELECT table_id, hand_no, {_column(form)} FROM {self.t} {where} ORDER BY started_ts",
                           args)
            for table_id, hand_no, text in cursor:
                yield f"{table_id}#{hand_no}", text

    def rebuild_rollup(self) -> Sequence[str]:
        """The statistics rollup refilled from every hand; a line for each hand pokerkit can't replay."""
        with self.db.transaction():
            return self.rollup.refill(self.texts())

    def close(self) -> None:
        self.db.close()


def _redact(url: str) -> str:
    """The URL without a password, for error messages."""
    if "@" in url and ":" in url.split("://", 1)[-1].split("@", 1)[0]:
        scheme, rest = url.split("://", 1)
        user = rest.split("@", 1)[0].split(":", 1)[0]
        return f"{scheme}://{user}:***@{rest.split('@', 1)[1]}"
    return url

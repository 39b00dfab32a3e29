"""Outputs of a table pipeline that need no broker: files on disk and the terminal.

With no broker configured, alerts and hands go here; with one, these still keep a local record, so a
surveillance team can always reconstruct what the monitor said and when.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from contextlib import ExitStack
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from rich.console import Console
from rich.markup import escape

from tablewatch.events import Event, HandStarted, Severity, Violation
from tablewatch.hands import FinishedHand
from tablewatch.table.config import EventLogConfig

if TYPE_CHECKING:  # the MQTT side loads paho, the store sqlite/psycopg, only when used
    from tablewatch.alerts import BrokerConfig, EvidenceConfig, EvidenceRecorder, Publisher
    from tablewatch.history.store import HandStore
    from tablewatch.table.marks import ViolationMarks

log = logging.getLogger(__name__)

SEVERITY_STYLE = {Severity.VIOLATION: "bold red", Severity.ADVISORY: "yellow", Severity.SYSTEM: "cyan"}


class FilesOutput:
    """Appends every event and alert as JSON lines (``events.jsonl``, ``alerts.jsonl``) under ``folder``.

    Lines are flushed as written: a crash loses at most the line being written. ``events.jsonl`` is
    rotated and its old files deleted by ``event_log``; alerts are few and kept whole.
    """

    def __init__(self, folder: Path, *, record_events: bool = True, event_log: EventLogConfig | None = None) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self._lock = threading.Lock()
        self._events = (RotatingLog(folder / "events.jsonl", event_log or EventLogConfig())
                        if record_events else None)
        self._alerts = (folder / "alerts.jsonl").open("a", encoding="utf-8")

    def on_event(self, event: Event) -> None:
        if self._events is not None:
            with self._lock:
                self._events.write(event.to_json())

    def on_violation(self, violation: Violation) -> None:
        with self._lock:
            self._alerts.write(violation.to_json() + "\n")
            self._alerts.flush()

    def on_hand(self, hand: FinishedHand) -> None:
        """Hands are written by the hand-history output; nothing to do here."""

    def close(self) -> None:
        with self._lock:
            if self._events is not None:
                self._events.close()
            self._alerts.close()


class RotatingLog:
    """A JSON-lines file renamed aside, between two lines, once it is too big or too old; of the files set
    aside (``<stem>-<UTC time>.jsonl``, in time order by name) the too old and the oldest past the total are
    deleted. Every line is in exactly one file. Not thread-safe: the owner serialises writes."""

    def __init__(self, path: Path, policy: EventLogConfig) -> None:
        self.path, self.policy = path, policy
        self._open()
        self.prune()

    def write(self, line: str) -> None:
        if self._size and (self._size >= self.policy.rotate_mb * 1e6
                           or time.monotonic() - self._opened >= self.policy.rotate_hours * 3600):
            self.rotate()
        self._handle.write(line + "\n")
        self._handle.flush()
        self._size += len(line.encode("utf-8")) + 1

    def rotate(self) -> None:
        self._handle.close()
        self.path.rename(self._aside_name())
        self._open()
        self.prune()

    def rotated(self) -> list[Path]:
        """The files set aside, oldest first."""
        return sorted(self.path.parent.glob(f"{self.path.stem}-*{self.path.suffix}"))

    def prune(self) -> None:
        aside = self.rotated()
        oldest_kept = time.time() - self.policy.keep_days * 86400
        total = sum(p.stat().st_size for p in aside)
        for path in aside:
            stat = path.stat()
            if stat.st_mtime < oldest_kept or total > self.policy.keep_gb * 1e9:
                path.unlink()
                log.info("deleted %s (%d bytes): past the event log's retention", path, stat.st_size)
                total -= stat.st_size

    def close(self) -> None:
        self._handle.close()

    def _open(self) -> None:
        self._handle: TextIO = self.path.open("a", encoding="utf-8")
        self._size = self.path.stat().st_size
        self._opened = time.monotonic()

    def _aside_name(self) -> Path:
        when = datetime.now(UTC)
        while True:  # two rotations in one microsecond: the later one a microsecond on, to keep the order
            path = self.path.with_name(f"{self.path.stem}-{when:%Y%m%dT%H%M%S.%fZ}{self.path.suffix}")
            if not path.exists():
                return path
            when += timedelta(microseconds=1)


def _seat(seat: int, names: dict[int, str]) -> str:
    """``3 (Bo Chan)``, or ``3`` where the player has no name (a name is text, never rich markup)."""
    name = names.get(seat)
    return f"{seat} ({escape(name)})" if name else str(seat)


class TerminalOutput:
    """Prints each alert the moment the rules raise it (the demo's live view)."""

    def __init__(self, console: Console | None = None, *, show_hands: bool = True) -> None:
        self.console = console or Console(highlight=False)
        self.show_hands = show_hands
        self.players: dict[int, str] = {}  # the hand in play's names by seat, where known

    def on_event(self, event: Event) -> None:
        """Events are too many to print; alerts and hands are what a person watches. A hand's start names its
        players."""
        if isinstance(event, HandStarted):
            self.players = dict(event.players)

    def on_violation(self, violation: Violation) -> None:
        style = SEVERITY_STYLE.get(violation.severity, "")
        seats = ",".join(_seat(s, self.players) for s in violation.seats) or "-"
        hand = violation.hand_no if violation.hand_no is not None else "-"
        self.console.print(
            f"[{style}]{violation.severity.value.upper():9}[/] t={violation.ts:7.2f}s hand {hand} "
            f"seat {seats:5} [bold]{violation.rule_id}[/] {violation.title}: {violation.observed} "
            f"→ [italic]{violation.ruling}[/]"
        )

    def on_hand(self, hand: FinishedHand) -> None:
        if not self.show_hands:
            return
        won = ", ".join(f"seat {_seat(s, hand.players)} {w:+}" for s, w in hand.winnings.items() if w > 0)
        self.console.print(f"[green]hand {hand.hand_no} complete[/]: {won or 'no winner recorded'}")

    def close(self) -> None:
        """Nothing to release."""


class HandHistoryOutput:
    """Writes each finished hand as a PHH file (``hands/<table>-<n>.phh``) and into the hand store.

    ``wall_clock_at_zero``: the Unix time when the events' clock read 0 (a live table's session start): each hand
    is then stamped with its date and time. None for a replay, whose hands happened at another time. A store that
    fails (a database gone) is said, opened again at the next hand, and the hand is in its PHH file all the same."""

    def __init__(self, folder: Path, *, store_url: str | Path | None = None,
                 wall_clock_at_zero: float | None = None) -> None:
        from tablewatch.history.store import open_store  # the store pulls in sqlite/psycopg: only when used

        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.store_url = store_url or folder / "hands.sqlite"
        self.store: HandStore | None = open_store(self.store_url)
        self.wall_clock_at_zero = wall_clock_at_zero
        self.paths: list[Path] = []

    def on_event(self, event: Event) -> None:
        """Hands are built by the rules layer; events need nothing here."""

    def on_violation(self, violation: Violation) -> None:
        """Violations travel inside the finished hand (``_violations``)."""

    def on_hand(self, hand: FinishedHand) -> None:
        from tablewatch.history.phh import dumps_phh

        if self.wall_clock_at_zero is not None:
            hand = dataclasses.replace(hand, started_at=self.wall_clock_at_zero + hand.started_ts)
        path = self.folder / f"{hand.table}-{hand.hand_no:05d}.phh"
        path.write_text(dumps_phh([hand]), encoding="utf-8")
        self.paths.append(path)
        self._save(hand, path)

    def _save(self, hand: FinishedHand, path: Path) -> None:
        from tablewatch.history.store import open_store

        try:
            self.store = self.store or open_store(self.store_url)
            self.store.save(hand)
        except Exception as exc:  # sqlite3, psycopg or the store's own error: the PHH file has the hand
            log.error("hand %s#%s is in %s but not in the hand store (%s: %s); the store is opened again at the "
                      "next hand", hand.table, hand.hand_no, path, type(exc).__name__, exc)
            self.close()

    def close(self) -> None:
        store, self.store = self.store, None
        if store is not None:
            try:
                store.close()
            except Exception as exc:  # a connection already broken
                log.debug("closing the hand store: %s", exc)


class MqttOutput:
    """Alerts, events, finished hands and the live state to the broker, through the durable outbox."""

    def __init__(self, publisher: Publisher, *, marks: ViolationMarks | None = None, camera: str | None = None) -> None:
        self.publisher = publisher  # started by the caller
        self.marks, self.camera = marks, camera  # the seats and places of a finding, drawn on its still
        self.alert_ids: dict[Violation, str] = {}

    def on_event(self, event: Event) -> None:
        self.publisher.publish_event(event)

    def on_violation(self, violation: Violation) -> None:
        if self.marks is None:
            self.alert_ids[violation] = self.publisher.publish_violation(violation, camera=self.camera)
            return
        state = self.publisher.state
        players = state.players if violation.hand_no == state.hand_no else {}
        self.alert_ids[violation] = self.publisher.publish_violation(
            violation, camera=self.camera, boxes=self.marks.boxes(violation, players), boxes_size=self.marks.size)

    def on_hand(self, hand: FinishedHand) -> None:
        from tablewatch.history.phh import dumps_phh

        summary = {"winnings": {str(s): w for s, w in hand.winnings.items()},
                   "violations": [v.rule_id for v in hand.violations],
                   # each action on the session's clock, for a hand view that plays the evidence at each one
                   "actions": [{"ts": round(a.ts, 3), "seat": a.seat, "street": a.street, "kind": a.kind,
                                "amount": a.amount} for a in hand.actions]}
        self.publisher.publish_hand(hand.hand_no, phh=dumps_phh([hand]), summary=summary,
                                    started_ts=hand.started_ts, ended_ts=hand.ended_ts)

    def close(self) -> None:
        """The publisher is stopped by whoever started it (it drains the outbox first)."""


def start_publisher(stack: ExitStack, *, broker: BrokerConfig | None, site: str, table: str, out: Path,
                    evidence: EvidenceConfig | None = None, broadcast_delay_s: float = 0.0,
                    ) -> tuple[EvidenceRecorder | None, Publisher | None]:
    """The table's evidence recorder (None without ``evidence``) and its publisher (None without a broker),
    both stopped by ``stack`` on the way out (the publisher drains its outbox first)."""
    from tablewatch.alerts import EvidenceRecorder, OutboxConfig, Publisher, PublisherConfig
    from tablewatch.alerts.retention import KeepList, RetentionSweeper

    recorder = None
    if evidence is not None:
        recorder = EvidenceRecorder(evidence)
        evidence.folder.mkdir(parents=True, exist_ok=True)
        sweeper = RetentionSweeper(evidence.folder, evidence.retention, KeepList.beside(evidence.folder)).start()
        stack.callback(sweeper.stop)
    if broker is None:
        return recorder, None
    config = PublisherConfig(site=site, table=table, broker=broker, outbox=OutboxConfig(path=out / "outbox.sqlite"),
                             broadcast_delay_s=broadcast_delay_s)
    publisher = Publisher(config, recorder=recorder, epoch=time.time()).start()
    stack.callback(publisher.stop)
    return recorder, publisher

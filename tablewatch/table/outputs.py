"""Outputs of a table pipeline that need no broker: files on disk and the terminal.

With no broker configured, alerts and hands go here; with one, these still keep a local record, so a
surveillance team can always reconstruct what the monitor said and when.
"""

from __future__ import annotations

import threading
import time
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from rich.console import Console

from tablewatch.events import Event, Severity, Violation
from tablewatch.hands import FinishedHand

if TYPE_CHECKING:  # the MQTT side loads paho only when a table publishes
    from tablewatch.alerts import BrokerConfig, EvidenceConfig, EvidenceRecorder, Publisher

SEVERITY_STYLE = {Severity.VIOLATION: "bold red", Severity.ADVISORY: "yellow", Severity.SYSTEM: "cyan"}


class FilesOutput:
    """Appends every event and alert as JSON lines (``events.jsonl``, ``alerts.jsonl``) under ``folder``.

    Lines are flushed as written: a crash loses at most the line being written.
    """

    def __init__(self, folder: Path, *, record_events: bool = True) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self._lock = threading.Lock()
        self._events: TextIO | None = (folder / "events.jsonl").open("a", encoding="utf-8") if record_events else None
        self._alerts = (folder / "alerts.jsonl").open("a", encoding="utf-8")

    def on_event(self, event: Event) -> None:
        if self._events is not None:
            self._write(self._events, event.to_json())

    def on_violation(self, violation: Violation) -> None:
        self._write(self._alerts, violation.to_json())

    def on_hand(self, hand: FinishedHand) -> None:
        """Hands are written by the hand-history output; nothing to do here."""

    def close(self) -> None:
        with self._lock:
            for handle in (self._events, self._alerts):
                if handle is not None:
                    handle.close()

    def _write(self, handle: TextIO, line: str) -> None:
        with self._lock:
            handle.write(line + "\n")
            handle.flush()


class TerminalOutput:
    """Prints each alert the moment the rules raise it (the demo's live view)."""

    def __init__(self, console: Console | None = None, *, show_hands: bool = True) -> None:
        self.console = console or Console(highlight=False)
        self.show_hands = show_hands

    def on_event(self, event: Event) -> None:
        """Events are too many to print; alerts and hands are what a person watches."""

    def on_violation(self, violation: Violation) -> None:
        style = SEVERITY_STYLE.get(violation.severity, "")
        seats = ",".join(str(s) for s in violation.seats) or "-"
        hand = violation.hand_no if violation.hand_no is not None else "-"
        self.console.print(
            f"[{style}]{violation.severity.value.upper():9}[/] t={violation.ts:7.2f}s hand {hand} "
            f"seat {seats:5} [bold]{violation.rule_id}[/] {violation.title}: {violation.observed} "
            f"→ [italic]{violation.ruling}[/]"
        )

    def on_hand(self, hand: FinishedHand) -> None:
        if not self.show_hands:
            return
        won = ", ".join(f"seat {s} {w:+}" for s, w in hand.winnings.items() if w > 0) or "no winner recorded"
        self.console.print(f"[green]hand {hand.hand_no} complete[/]: {won}")

    def close(self) -> None:
        """Nothing to release."""


class HandHistoryOutput:
    """Writes each finished hand as a PHH file (``hands/<table>-<n>.phh``) and into the hand store."""

    def __init__(self, folder: Path, *, store_url: str | Path | None = None) -> None:
        from tablewatch.history.store import open_store  # the store pulls in sqlite/psycopg: only when used

        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.store = open_store(store_url or folder / "hands.sqlite")
        self.paths: list[Path] = []

    def on_event(self, event: Event) -> None:
        """Hands are built by the rules layer; events need nothing here."""

    def on_violation(self, violation: Violation) -> None:
        """Violations travel inside the finished hand (``_violations``)."""

    def on_hand(self, hand: FinishedHand) -> None:
        from tablewatch.history.phh import dumps_phh

        path = self.folder / f"{hand.table}-{hand.hand_no:05d}.phh"
        path.write_text(dumps_phh([hand]), encoding="utf-8")
        self.paths.append(path)
        self.store.save(hand)

    def close(self) -> None:
        self.store.close()


class MqttOutput:
    """Alerts, events, finished hands and the live state to the broker, through the durable outbox."""

    def __init__(self, publisher: Publisher) -> None:
        self.publisher = publisher  # started by the caller
        self.alert_ids: dict[Violation, str] = {}

    def on_event(self, event: Event) -> None:
        self.publisher.publish_event(event)

    def on_violation(self, violation: Violation) -> None:
        self.alert_ids[violation] = self.publisher.publish_violation(violation)

    def on_hand(self, hand: FinishedHand) -> None:
        from tablewatch.history.phh import dumps_phh

        summary = {"winnings": {str(s): w for s, w in hand.winnings.items()},
                   "violations": [v.rule_id for v in hand.violations]}
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

    recorder = None
    if evidence is not None:
        recorder = EvidenceRecorder(evidence)
        evidence.folder.mkdir(parents=True, exist_ok=True)
    if broker is None:
        return recorder, None
    config = PublisherConfig(site=site, table=table, broker=broker, outbox=OutboxConfig(path=out / "outbox.sqlite"),
                             broadcast_delay_s=broadcast_delay_s)
    publisher = Publisher(config, recorder=recorder, epoch=time.time()).start()
    stack.callback(publisher.stop)
    return recorder, publisher

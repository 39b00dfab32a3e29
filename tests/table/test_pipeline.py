"""The table pipeline: time ordering, fusion on the way, outputs that fail, lifecycle with sources."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from tablewatch.events import (
    BetMotion,
    ButtonSeen,
    Chips,
    ChipsLeftTable,
    Declaration,
    Event,
    HandStarted,
    Tap,
    UnknownChip,
    Violation,
    load_events,
)
from tablewatch.rules.game import GameConfig
from tablewatch.rules.table import TableRules
from tablewatch.table.outputs import FilesOutput
from tablewatch.table.pipeline import ReorderBuffer, TablePipeline
from tablewatch.table.sources import ConsoleSource, earliest_horizon


def tap(ts: float, seat: int = 1) -> Tap:
    return Tap(ts=ts, table="T1", source="vision", seat=seat)


def button(ts: float, seat: int = 1) -> ButtonSeen:
    """An event fusion passes straight on (a tap waits there a window for chips the readers may count with it)."""
    return ButtonSeen(ts=ts, table="T1", source="vision", seat=seat)


def test_reorder_buffer_releases_in_time_order_after_the_lateness() -> None:
    buffer = ReorderBuffer(lateness=0.5)
    assert buffer.push(tap(1.0)) == []
    assert buffer.push(tap(0.8)) == []
    assert [e.ts for e in buffer.push(tap(1.6))] == [0.8, 1.0]
    assert [e.ts for e in buffer.drain()] == [1.6]


def test_reorder_buffer_holds_events_back_to_a_slow_sources_horizon_and_no_further() -> None:
    horizon: list[float | None] = [None]
    buffer = ReorderBuffer(lateness=0.15, horizon=lambda: horizon[0], max_lateness=1.2)
    buffer.push(tap(10.0, seat=2))
    assert [e.ts for e in buffer.tick(10.5)] == [10.0]  # nothing pending at the camera: RFID's lateness only
    horizon[0] = 10.6  # the camera is deciding a gesture that began then
    buffer.push(tap(10.7, seat=2))
    assert buffer.tick(11.2) == []  # held: a report stamped 10.6 may still come
    buffer.push(tap(10.65, seat=3))  # it comes
    horizon[0] = 11.5
    assert [e.ts for e in buffer.tick(11.6)] == [10.65, 10.7]
    horizon[0] = 11.0  # a camera that stalls holds nothing longer than max_lateness
    buffer.push(tap(12.0, seat=2))
    assert [e.ts for e in buffer.tick(13.3)] == [12.0]


class Broken:
    def on_event(self, event: Event) -> None:
        raise RuntimeError("disk full")

    def on_violation(self, violation: Violation) -> None:
        raise RuntimeError("disk full")

    def on_hand(self, hand: Any) -> None:
        raise RuntimeError("disk full")

    def close(self) -> None:
        raise RuntimeError("disk full")


def test_words_keyed_after_the_chips_they_were_said_with_come_before_them() -> None:
    """A player says "raise 3000" and pushes one 2500 chip out; the dealer keys the words a moment later. The
    chips wait for the console's typing lag, so the words are read first and govern (a lone oversized chip
    would otherwise be a call)."""
    now = [10.3]
    console = ConsoleSource("loop://", table="T1", clock=lambda: now[0], typing_lag_s=0.5)
    buffer = ReorderBuffer(lateness=0.15, horizon=earliest_horizon([console]))
    chips = BetMotion(ts=10.3, table="T1", source="rfid", seat=2, chips=Chips.of({2500: 1}))
    assert buffer.push(chips) == []
    now[0] = 10.6
    assert buffer.tick(now[0]) == []  # words said up to 10.1 may still be keyed
    words = Declaration(ts=10.6 - 0.5, table="T1", source="console", seat=2, word="raise", amount=3000)
    assert buffer.push(words) == [words]  # the words out first; the chips still held
    now[0] = 10.9
    assert buffer.tick(now[0]) == [chips]


def test_a_failing_output_is_counted_and_the_others_still_get_everything(tmp_path: Path) -> None:
    files = FilesOutput(tmp_path)
    pipeline = TablePipeline(rules=TableRules(GameConfig(), table="T1"), outputs=[Broken(), files], lateness=0.0)
    for ts in (0.1, 0.2, 0.3):
        pipeline.process(button(ts))
    pipeline.drain()
    files.close()
    assert [e.ts for e in load_events((tmp_path / "events.jsonl").read_text())] == [0.1, 0.2, 0.3]
    assert pipeline.stats.output_errors == 3


class ListSource:
    """A source that pushes its events from its own thread, as a camera or reader does."""

    name = "list"

    def __init__(self, events: list[Event]) -> None:
        self.events = events
        self.thread: threading.Thread | None = None

    def start(self, emit: Any) -> None:
        self.thread = threading.Thread(target=lambda: [emit(e) for e in self.events])
        self.thread.start()

    def stop(self) -> None:
        assert self.thread is not None
        self.thread.join()


def test_start_and_stop_process_everything_the_sources_sent(tmp_path: Path) -> None:
    files = FilesOutput(tmp_path)
    events = [button(i / 10) for i in range(50)]
    pipeline = TablePipeline(rules=TableRules(GameConfig(), table="T1"), outputs=[files],
                             sources=[ListSource(events)])
    pipeline.start()
    pipeline.stop()
    assert load_events((tmp_path / "events.jsonl").read_text()) == events


def test_a_quiet_table_releases_what_it_holds_as_time_passes(tmp_path: Path) -> None:
    files = FilesOutput(tmp_path)
    pipeline = TablePipeline(rules=TableRules(GameConfig(), table="T1"), outputs=[files], lateness=0.3)
    pipeline.process(button(1.0))
    pipeline.tick(1.2)
    assert (tmp_path / "events.jsonl").read_text() == ""
    pipeline.tick(1.31)
    assert [e.ts for e in load_events((tmp_path / "events.jsonl").read_text())] == [1.0]


def test_chips_counted_gone_go_out_at_once_while_the_camera_still_decides(tmp_path: Path) -> None:
    files = FilesOutput(tmp_path)
    pipeline = TablePipeline(rules=TableRules(GameConfig(), table="T1"), outputs=[files], lateness=0.15,
                             horizon=lambda: 9.0)  # a gesture that began at 9.0 is still being decided
    pipeline.process(tap(9.5))
    gone = ChipsLeftTable(ts=10.0, table="T1", source="rfid", seat=2, zone="seat2.stack", chips=Chips.of({500: 1}))
    pipeline.process(gone)
    assert load_events((tmp_path / "alerts.jsonl").read_text())[0].rule_id == "TDA-49"
    assert [e.kind for e in load_events((tmp_path / "events.jsonl").read_text())] == ["ChipsLeftTable"]
    # the camera's report of the same chips, in time order later, is not a second departure
    pipeline.process(ChipsLeftTable(ts=10.2, table="T1", source="vision", seat=2, zone="seat2.stack",
                                    chips=Chips.of({500: 1})))
    pipeline.drain()
    assert [e.kind for e in load_events((tmp_path / "events.jsonl").read_text())] == ["ChipsLeftTable", "Tap"]


def test_a_counterfeit_uid_goes_out_at_once_while_the_camera_still_decides(tmp_path: Path) -> None:
    files = FilesOutput(tmp_path)
    pipeline = TablePipeline(rules=TableRules(GameConfig(), table="T1"), outputs=[files], lateness=0.15,
                             horizon=lambda: 9.0)
    pipeline.process(tap(9.5))
    pipeline.process(UnknownChip(ts=10.0, table="T1", source="rfid", seat=4, uid="E0070000DEADBEEF",
                                 zone="seat4.stack"))
    assert [e.kind for e in load_events((tmp_path / "events.jsonl").read_text())] == ["UnknownChip"]
    assert load_events((tmp_path / "alerts.jsonl").read_text())[0].rule_id == "TDA-16B"
    pipeline.drain()
    assert [e.kind for e in load_events((tmp_path / "events.jsonl").read_text())] == ["UnknownChip", "Tap"]


def test_a_counterfeit_uid_read_as_a_hand_starts_is_that_hands_though_the_start_waits_for_the_camera(
        tmp_path: Path) -> None:
    """The console starts hand 8 at 20.5 s while the camera is still deciding a gesture from 20.4 s: the start
    waits in time order behind it. A counterfeit read at 21.0 s goes out without waiting for the camera, but
    not before the hand it is read in has started in the rules (else it would be hand 7's)."""
    horizon: list[float | None] = [20.4]
    files = FilesOutput(tmp_path)
    pipeline = TablePipeline(rules=TableRules(GameConfig(), table="T1"), outputs=[files], lateness=0.15,
                             horizon=lambda: horizon[0])
    pipeline.process(HandStarted(ts=20.5, table="T1", source="console", hand_no=8, button=1, seats=(1, 2, 4)))
    pipeline.process(UnknownChip(ts=21.0, table="T1", source="rfid", seat=4, uid="E0070000DEADBEEF",
                                 zone="seat4.stack"))
    assert not (tmp_path / "alerts.jsonl").read_text()
    horizon[0] = 20.6  # the camera has decided: what began before 20.6 may go
    pipeline.tick(21.1)
    alert = load_events((tmp_path / "alerts.jsonl").read_text())[0]
    assert (alert.rule_id, alert.hand_no) == ("TDA-16B", 8)
    assert [e.kind for e in load_events((tmp_path / "events.jsonl").read_text())] == ["HandStarted", "UnknownChip"]

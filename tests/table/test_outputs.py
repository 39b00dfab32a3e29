"""``events.jsonl`` is rotated by size and age, its rotated files kept by age and total size, and no line is
lost or doubled at a rotation; hands go to files, the hand store and the broker."""

from __future__ import annotations

import dataclasses
import os
import threading
import time
from pathlib import Path

import pytest

from tablewatch.alerts.config import BrokerConfig, OutboxConfig, PublisherConfig
from tablewatch.alerts.publisher import Publisher
from tablewatch.events import Event, Tap, load_events
from tablewatch.history.store import open_store
from tablewatch.table.config import EventLogConfig
from tablewatch.table.outputs import FilesOutput, HandHistoryOutput, MqttOutput
from tests.alerts.helpers import Collector, validate
from tests.support.mosquitto import Mosquitto

KB = 1e-3  # of a megabyte


def taps(n: int, *, start: int = 0) -> list[Event]:
    return [Tap(ts=float(i), table="T01", source="console", seat=1 + i % 9) for i in range(start, start + n)]


def everything_written(folder: Path) -> list[Event]:
    """The rotated files oldest first, then the current one."""
    files = [*sorted(folder.glob("events-*.jsonl")), folder / "events.jsonl"]
    return load_events("".join(p.read_text() for p in files))


def test_events_rotate_by_size_and_no_line_is_lost(tmp_path: Path) -> None:
    files = FilesOutput(tmp_path, event_log=EventLogConfig(rotate_mb=2 * KB))
    sent = taps(300)

    def write(part: list[Event]) -> None:
        for event in part:
            files.on_event(event)

    writers = [threading.Thread(target=write, args=(part,)) for part in (sent[:150], sent[150:])]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join()
    files.close()
    rotated = sorted(tmp_path.glob("events-*.jsonl"))
    assert len(rotated) >= 10
    assert all(p.stat().st_size < 2000 + 200 for p in rotated)  # past the limit by at most one line
    assert sorted(e.ts for e in everything_written(tmp_path)) == [e.ts for e in sent]  # each line once


def test_events_rotate_by_age(tmp_path: Path) -> None:
    files = FilesOutput(tmp_path, event_log=EventLogConfig(rotate_hours=0.2 / 3600))
    sent = 0
    deadline = time.monotonic() + 60
    while not list(tmp_path.glob("events-*.jsonl")):
        assert time.monotonic() < deadline, "no rotation after 60 s"
        files.on_event(taps(1, start=sent)[0])
        sent += 1
        time.sleep(0.05)
    files.close()
    assert [e.ts for e in everything_written(tmp_path)] == [float(i) for i in range(sent)]


def rotate(files: FilesOutput, folder: Path, times: int, *, start: int) -> int:
    """Write taps from ``start`` until the events file was rotated ``times`` more; the next tap's number."""
    seen = set(folder.glob("events-*.jsonl"))
    while len(set(folder.glob("events-*.jsonl")) - seen) < times:
        files.on_event(taps(1, start=start)[0])
        start += 1
    return start


def test_rotated_files_past_their_age_are_deleted(tmp_path: Path) -> None:
    files = FilesOutput(tmp_path, event_log=EventLogConfig(rotate_mb=1 * KB, keep_days=7))
    written = rotate(files, tmp_path, 4, start=0)
    rotated = sorted(tmp_path.glob("events-*.jsonl"))
    month_ago = time.time() - 30 * 86400
    for old in rotated[:2]:
        os.utime(old, (month_ago, month_ago))
    rotate(files, tmp_path, 1, start=written)
    files.close()
    kept = sorted(tmp_path.glob("events-*.jsonl"))
    assert len(kept) == 3 and kept[:2] == rotated[2:]  # the two a month old went, the new one came


def test_the_oldest_rotated_files_past_the_total_are_deleted(tmp_path: Path) -> None:
    files = FilesOutput(tmp_path, event_log=EventLogConfig(rotate_mb=1 * KB, keep_gb=3.5 * KB * 1e-3))
    for event in taps(200):
        files.on_event(event)
    files.close()
    kept = sorted(tmp_path.glob("events-*.jsonl"))
    assert 2500 < sum(p.stat().st_size for p in kept) <= 3500
    numbers = [e.ts for e in everything_written(tmp_path)]
    assert numbers == [float(i) for i in range(200 - len(numbers), 200)]  # the newest, without a gap


def test_a_new_run_appends_and_keeps_the_rotated_files(tmp_path: Path) -> None:
    policy = EventLogConfig(rotate_mb=1 * KB)
    for start in (0, 20):
        files = FilesOutput(tmp_path, event_log=policy)
        for event in taps(20, start=start):
            files.on_event(event)
        files.close()
    assert [e.ts for e in everything_written(tmp_path)] == [float(i) for i in range(40)]


def test_a_live_tables_hands_are_stamped_with_their_date_and_a_replays_are_not(tmp_path: Path) -> None:
    from tests.history.test_phh_ohh import played_hand

    hand = played_hand()
    live = HandHistoryOutput(tmp_path / "live", wall_clock_at_zero=1_764_619_200.0)  # 2025-12-01 20:00 UTC
    replay = HandHistoryOutput(tmp_path / "replay")
    for output in (live, replay):
        output.on_hand(hand)
        output.close()
    stamped = (tmp_path / "live" / "T-00001.phh").read_text()
    assert f"_tablewatch_started_at = {1_764_619_200.0 + hand.started_ts}" in stamped and "year = 2025" in stamped
    assert "_tablewatch_started_at" not in (tmp_path / "replay" / "T-00001.phh").read_text()
    store = open_store(tmp_path / "live" / "hands.sqlite")
    assert store.list()[0].started_ts == 1_764_619_200.0 + hand.started_ts  # runs follow each other in the store
    store.close()


def test_a_hand_store_that_fails_is_said_and_opened_again_and_no_hand_is_lost(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    from tests.history.test_phh_ohh import played_hand

    hand = played_hand()
    output = HandHistoryOutput(tmp_path / "hands", store_url=f"sqlite:///{tmp_path / 'room.sqlite'}")
    assert output.store is not None
    output.store.db.close()  # type: ignore[attr-defined]  # the connection lost, as a database server going away
    output.on_hand(hand)
    assert "T#1 is in" in caplog.text and "not in the hand store" in caplog.text
    output.on_hand(dataclasses.replace(hand, hand_no=2))  # opened again
    output.close()
    assert sorted(p.name for p in (tmp_path / "hands").glob("*.phh")) == ["T-00001.phh", "T-00002.phh"]
    store = open_store(tmp_path / "room.sqlite")
    assert [h.hand_no for h in store.list()] == [2]
    store.close()


def test_a_finished_hand_goes_out_with_each_action_on_the_sessions_clock(tmp_path: Path, mqtt_broker: Mosquitto
                                                                         ) -> None:
    from tests.history.test_phh_ohh import played_hand

    hand = played_hand()
    publisher = Publisher(PublisherConfig(site="casino", table="T", broker=BrokerConfig(url=mqtt_broker.url),
                                          outbox=OutboxConfig(path=tmp_path / "outbox.sqlite")), session="s1").start()
    with Collector(BrokerConfig(url=mqtt_broker.url), ["tablewatch/casino/T/hand"]) as sub:
        MqttOutput(publisher).on_hand(hand)
        sent = sub.wait_count("/hand", 1)[0].json()
        publisher.stop()
    validate("hand", sent)
    assert sent["summary"]["actions"] == [{"ts": round(a.ts, 3), "seat": a.seat, "street": a.street, "kind": a.kind,
                                           "amount": a.amount} for a in hand.actions]
    assert len(sent["summary"]["actions"]) >= 3 and sent["summary"]["winnings"] == {
        str(seat): won for seat, won in hand.winnings.items()}

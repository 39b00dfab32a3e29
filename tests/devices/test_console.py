"""The dealer console: a serial button box over a real pty pair, and a tablet over a real mosquitto."""

from __future__ import annotations

import json
import logging
import queue
import time
import tracemalloc
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from tablewatch.devices.console import (
    MAX_LINE_BYTES,
    ConsoleError,
    ConsoleSession,
    Entry,
    LineBuffer,
    MqttConsole,
    SerialConsole,
    Setup,
    parse_line,
    parse_setup,
    setup_line,
)
from tablewatch.devices.transport import Port
from tablewatch.events import (
    ButtonPlaced,
    DealerChanged,
    Declaration,
    DeviceStatus,
    Event,
    LevelChanged,
    NewHandPressed,
    PlayerNamed,
    SeatStatus,
)
from tests.devices.socat import SocatPair
from tests.support.mosquitto import Mosquitto
from tests.support.wait import wait_until


@pytest.mark.parametrize(("line", "entry"), [
    ("3 raise 2500", Entry(seat=3, word="raise", amount=2500)),
    ("S7 ALL-IN", Entry(seat=7, word="all-in", amount=None)),
    ("seat7 all in", Entry(seat=7, word="all-in", amount=None)),
    ("2 allin", Entry(seat=2, word="all-in", amount=None)),
    ("5 1,200", Entry(seat=5, word="bet", amount=1200)),  # an amount alone counts as chips (TDA-27C)
    ("4 bet 2.5k", Entry(seat=4, word="bet", amount=2500)),
    ("D time", Entry(seat=None, word="time", amount=None)),
    ("0 floor", Entry(seat=None, word="floor", amount=None)),
    ("10 fold", Entry(seat=10, word="fold", amount=None)),
])
def test_console_lines(line: str, entry: Entry) -> None:
    assert parse_line(line) == entry


@pytest.mark.parametrize(("line", "message"), [
    ("raise", "expected 'SEAT WORD"),
    ("11 call", "seat '11' must be 1..10"),
    ("3 shout", "unknown word 'shout'"),
    ("3 fold 200", "'fold' takes no amount"),
    ("3 raise lots", "amount 'lots' is not a number"),
    ("3 raise 0", "positive whole number"),
])
def test_bad_lines_say_why(line: str, message: str) -> None:
    with pytest.raises(ConsoleError, match=message):
        parse_line(line)


def test_session_stamps_each_entry_with_the_clock_on_arrival() -> None:
    now = [12.5]
    session = ConsoleSession(table="T01", clock=lambda: now[0])
    event, reply = session.handle("3 raise 2500\r")
    assert event == Declaration(ts=12.5, table="T01", source="console", seat=3, word="raise", amount=2500)
    assert reply == "OK 1"
    now[0] = 13.0
    assert session.handle('{"seat": 4, "word": "call"}')[0].ts == 13.0  # type: ignore[union-attr]
    assert session.handle("PING") == (None, "PONG")
    assert session.handle("# a comment") == (None, "")
    assert session.handle('{"seat": 4, "wrod": "call"}')[1] == "ERR unknown field(s) wrod; fields: seat, word, amount"


def test_a_declaration_is_stamped_as_said_a_typing_lag_before_it_is_keyed() -> None:
    session = ConsoleSession(table="T01", clock=lambda: 20.0, typing_lag_s=0.5)
    declared, _ = session.handle("3 raise 3000")
    pressed, _ = session.handle("new hand")
    assert declared is not None and declared.ts == 19.5
    assert pressed is not None and pressed.ts == 20.0  # a key pressed as the thing happens: no lag


class Lines:
    """Answers from the console, line by line, read with real time-outs."""

    def __init__(self, port: Port) -> None:
        self.port, self.buffer = port, b""

    def next(self, timeout: float = 2.0) -> str:
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer and time.monotonic() < deadline:
            self.buffer += self.port.read(deadline - time.monotonic())
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line.decode().strip()


def test_serial_button_box_over_a_pty_pair(tmp_path: Path) -> None:
    events: queue.Queue[Event] = queue.Queue()
    pair = SocatPair(tmp_path, "console").start()
    console = SerialConsole(pair.a, table="T01", clock=time.monotonic, on_event=events.put,
                            reconnect_interval=0.02).start()
    box = Port(pair.b, baudrate=9600)
    try:
        box.open()
        answers = Lines(box)
        deadline = time.monotonic() + 2
        while console.online is not True and time.monotonic() < deadline:  # bytes sent before it opens are lost
            time.sleep(0.01)
        before = time.monotonic()
        box.write(b"3 raise 2500\r\n")
        assert answers.next() == "OK 1"
        box.write(b"7 al")  # a line split over two writes
        box.write(b"l-in\n9 dance\n")
        assert answers.next() == "OK 2"
        assert answers.next() == "ERR unknown word 'dance'; words: fold check call bet raise all-in pot time floor"
        first, second = events.get(timeout=1), events.get(timeout=1)
        assert isinstance(first, Declaration) and (first.seat, first.word, first.amount) == (3, "raise", 2500)
        assert isinstance(second, Declaration) and (second.seat, second.word) == (7, "all-in")
        assert before <= first.ts <= second.ts <= time.monotonic()
        box.close()
        pair.stop()  # the console's cable is pulled
        offline = events.get(timeout=2)
        assert isinstance(offline, DeviceStatus) and not offline.online and offline.device == "console"
        pair.start()
        back = events.get(timeout=2)
        assert isinstance(back, DeviceStatus) and back.online
        box.open()
        box.write(b"D time\n")
        assert answers.next() == "OK 3"
        assert events.get(timeout=1).word == "time"  # type: ignore[attr-defined]
    finally:
        console.stop()
        box.close()
        pair.stop()


def test_an_endless_line_is_dropped_and_the_next_entry_kept(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="tablewatch.devices.console")
    events: queue.Queue[Event] = queue.Queue()
    noise = b"x" * 1_000_000  # a stuck device, no newline
    with SocatPair(tmp_path, "console") as pair:
        console = SerialConsole(pair.a, table="T01", on_event=events.put).start()
        box = Port(pair.b, baudrate=9600)
        try:
            box.open()
            answers = Lines(box)
            wait_until("the console online", lambda: console.online is True, 30.0, poll=0.01)
            box.write(noise + b"\n3 raise 2500\n")  # dropped up to its newline
            assert answers.next(timeout=30) == f"ERR entry over {MAX_LINE_BYTES} bytes, dropped"
            assert answers.next(timeout=30) == "OK 1"
            box.write(noise)  # then nothing: the noise has ended when the line goes quiet
            assert answers.next(timeout=30) == f"ERR entry over {MAX_LINE_BYTES} bytes, dropped"
            wait_until("the noise read and dropped",
                       lambda: console.port.bytes_in >= 2 * len(noise) and not console.lines.skipping, 30.0, poll=0.01)
            box.write(b"7 call\n")
            assert answers.next(timeout=30) == "OK 2"
        finally:
            console.stop()
            box.close()
    entries = [events.get(timeout=1) for _ in range(2)]
    assert [(e.seat, e.word) for e in entries if isinstance(e, Declaration)] == [(3, "raise"), (7, "call")]
    assert console.session.rejected == 2
    warning = f"{pair.a}: an entry over {MAX_LINE_BYTES} bytes was dropped"
    assert [r.getMessage() for r in caplog.records] == [warning] * 2


def test_the_line_buffer_holds_no_more_than_its_limit() -> None:
    lines = LineBuffer(limit=64)
    tracemalloc.start()
    try:
        out = [line for _ in range(5_000) for line in lines.feed(b"y" * 4096)]  # 20 MB without a newline
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert out == [None] and peak < 100_000
    assert lines.feed(b"tail\n1 fold\n" + b"z" * 65 + b"\n2 check\n") == [b"1 fold", None, b"2 check"]


def test_tablet_over_mqtt(mqtt_broker: Mosquitto) -> None:
    events: queue.Queue[Event] = queue.Queue()
    acks: queue.Queue[dict[str, object]] = queue.Queue()
    topic = "tablewatch/test/T01/console"
    tablet = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="tablet")
    tablet.on_message = lambda c, u, m: acks.put(json.loads(m.payload))
    tablet.connect("127.0.0.1", mqtt_broker.port)
    tablet.subscribe(topic + "/ack", qos=1)
    tablet.loop_start()
    with MqttConsole(host="127.0.0.1", port=mqtt_broker.port, topic=topic, table="T01", on_event=events.put):
        tablet.publish(topic, json.dumps({"seat": 5, "word": "raise", "amount": 4000}), qos=1).wait_for_publish(30)
        tablet.publish(topic, "2 fold", qos=1).wait_for_publish(30)
        tablet.publish(topic, "2 fold 100", qos=1).wait_for_publish(30)
        tablet.publish(topic, b"9" * 1_000_000, qos=1).wait_for_publish(30)
        got = [acks.get(timeout=30) for _ in range(4)]
    tablet.loop_stop()
    tablet.disconnect()
    assert [a["ok"] for a in got] == [True, True, False, False]
    assert got[2]["reply"] == "ERR 'fold' takes no amount"
    assert got[3]["reply"] == f"ERR entry over {MAX_LINE_BYTES} bytes, dropped"
    first = events.get(timeout=1)
    assert isinstance(first, Declaration) and (first.seat, first.word, first.amount) == (5, "raise", 4000)
    assert got[0]["event"] == first.to_dict()
    assert events.get(timeout=1).word == "fold"  # type: ignore[attr-defined]


def test_an_over_long_tablet_entry_is_refused_unread() -> None:
    session = ConsoleSession(table="T01", clock=lambda: 1.0)
    event, reply = session.handle('{"seat": 3, "word": "raise", "amount": ' + "9" * 600 + "}")
    assert (event, reply) == (None, f"ERR entry over {MAX_LINE_BYTES} bytes, dropped") and session.rejected == 1


@pytest.mark.parametrize(("line", "setup"), [
    ("new hand", Setup(entry="new hand")),
    ("NH", Setup(entry="new hand")),
    ("button 4", Setup(entry="button", seat=4)),
    ("btn s10", Setup(entry="button", seat=10)),
    ("seat 5 open", Setup(entry="seat", seat=5, open=True)),
    ("Seat 5 out", Setup(entry="seat", seat=5, open=False)),
    ("level 6", Setup(entry="level", level=6)),
    ("dealer Ann Lee", Setup(entry="dealer", name="Ann Lee")),
    ("DEALER  José O'Neil-Díaz ", Setup(entry="dealer", name="José O'Neil-Díaz")),  # as typed, spaces folded
    ("player 5 Bo Chan", Setup(entry="player", seat=5, name="Bo Chan")),
    ("player s5", Setup(entry="player", seat=5)),  # the seat's player has no name
    ("3 raise 900", None),  # a declaration
])
def test_set_up_lines(line: str, setup: Setup | None) -> None:
    assert parse_setup(line) == setup
    if setup is not None:
        assert parse_setup(setup_line(setup)) == setup


@pytest.mark.parametrize(("line", "message"), [
    ("new hand now", "expected 'new hand'"),
    ("button", "expected 'button N'"),
    ("button D", "seat 'd' must be 1..10"),
    ("seat 5", "expected 'seat N open' or 'seat N closed'"),
    ("seat 11 open", "seat '11' must be 1..10"),
    ("level 0", "level '0' must be a whole number from 1"),
    ("dealer", "expected 'dealer NAME'"),
    ("dealer <script>", "expected 'dealer NAME'"),
    ("dealer " + "A" * 41, "expected 'dealer NAME'"),
    ("player", "expected 'player SEAT NAME' or 'player SEAT'"),
    ("player 11 Bo", "seat '11' must be 1..10"),
    ("player 5 <img src=x>", "expected 'player SEAT NAME'"),
])
def test_bad_set_up_lines_say_why(line: str, message: str) -> None:
    with pytest.raises(ConsoleError, match=message):
        parse_setup(line)


def test_set_up_entries_as_json_make_their_events() -> None:
    session = ConsoleSession(table="T01", clock=lambda: 2.0)
    made = [session.handle(text)[0] for text in (
        '{"entry": "new hand"}', '{"entry": "button", "seat": 4}', '{"entry": "seat", "seat": 2, "open": false}',
        '{"entry": "level", "level": 3}', '{"entry": "dealer", "name": "Ann Lee"}',
        '{"entry": "player", "seat": 5, "name": "Bo Chan"}', '{"entry": "player", "seat": 5}')]
    assert made == [NewHandPressed(ts=2.0, table="T01", source="console"),
                    ButtonPlaced(ts=2.0, table="T01", source="console", seat=4),
                    SeatStatus(ts=2.0, table="T01", source="console", seat=2, open=False),
                    LevelChanged(ts=2.0, table="T01", source="console", level=3),
                    DealerChanged(ts=2.0, table="T01", source="console", dealer="Ann Lee"),
                    PlayerNamed(ts=2.0, table="T01", source="console", seat=5, name="Bo Chan"),
                    PlayerNamed(ts=2.0, table="T01", source="console", seat=5, name=None)]
    unknown = "ERR unknown entry 'dance'; entries: new hand, button, seat, level, dealer, player"
    assert session.handle('{"entry": "dance"}')[1] == unknown
    assert session.handle('{"entry": "seat", "seat": 2, "open": "no"}')[1] == "ERR 'open' must be true or false"
    assert session.handle('{"entry": "level", "lvl": 2}')[1].startswith("ERR unknown field(s) lvl")
    assert session.handle('{"entry": "dealer", "name": 7}')[1] == "ERR a dealer entry needs 'name' (a string)"
    assert session.handle('{"entry": "player", "seat": 5, "name": ["x"]}')[1] == (
        "ERR a player entry's 'name' must be a string")
    assert session.handle('{"entry": "player", "name": "Bo"}')[1] == "ERR a player entry needs 'seat' (1..10)"
    assert session.handle('{"entry": "player", "seat": 0, "name": "Bo"}')[1] == "ERR seat '0' must be 1..10"


def test_set_up_entries_over_a_serial_line(tmp_path: Path) -> None:
    events: queue.Queue[Event] = queue.Queue()
    pair = SocatPair(tmp_path, "console").start()
    console = SerialConsole(pair.a, table="T01", clock=time.monotonic, on_event=events.put).start()
    box = Port(pair.b, baudrate=9600)
    try:
        box.open()
        answers = Lines(box)
        deadline = time.monotonic() + 5
        while console.online is not True and time.monotonic() < deadline:
            time.sleep(0.01)
        box.write(b"button 1\r\nseat 8 closed\nnew hand\nlevel 2\n3 raise 900\nbutton\n")
        assert [answers.next(timeout=5) for _ in range(6)] == ["OK 1", "OK 2", "OK 3", "OK 4", "OK 5",
                                                               "ERR expected 'button N', got 'button'"]
        got = [events.get(timeout=5) for _ in range(5)]
        assert [type(e) for e in got] == [ButtonPlaced, SeatStatus, NewHandPressed, LevelChanged, Declaration]
        assert (got[0].seat, got[1].seat, got[3].level) == (1, 8, 2)  # type: ignore[attr-defined]
    finally:
        console.stop()
        box.close()
        pair.stop()

"""The dealer console: the dealer enters what players said, each entry time-stamped as a ``Declaration``, and,
when the venue uses them, the hand's set-up: a new hand, the button, the seats open, the level.

Two devices speak the same one-line protocol:
- buttons on a serial line (any pyserial URL), one ASCII line per entry, answered ``OK <n>`` or
  ``ERR <why>`` so the device can beep;
- an MQTT client (a tablet) publishing to ``tablewatch/<site>/<table>/console``, a line or a JSON object
  ``{"seat": 3, "word": "raise", "amount": 2500}``; answers go to ``<topic>/ack`` as JSON.

Line protocol::

    3 raise 2500      seat, word, amount ("2,500", "2500", "2.5k")
    7 all-in          words: fold check call bet raise all-in pot time floor (allin, all_in, ai too)
    5 1200            a number alone: an amount said alone counts as chips (TDA-27C), word "bet"
    D time            D (or 0): no seat (the dealer calls time or the floor for the table)
    new hand          the dealer starts a hand (``NewHandPressed``; "newhand", "nh" too)
    button 4          the button is at seat 4 (``ButtonPlaced``; "btn 4")
    seat 5 open       seat 5 is dealt in (``SeatStatus``); "seat 5 closed" leaves it out ("in"/"out" too)
    level 6           the blind level from the next hand (``LevelChanged``)
    dealer Ann Lee    a dealer push: Ann Lee deals from the next hand (``DealerChanged``; up to 40 letters,
                      digits, spaces, . ' -)
    player 5 Bo Chan  the player in seat 5 is Bo Chan from the next hand (``PlayerNamed``; names as a dealer's);
                      "player 5" alone: the seat's player has no name (a seat closed forgets its name too)
    PING              answered PONG (a heartbeat)

Lines starting with ``#`` and empty lines are ignored. The time stamp is taken when the line arrives. A line
(or MQTT entry) longer than ``MAX_LINE_BYTES`` is dropped with a warning and answered ``ERR``; the next is read.
The JSON form of the set-up entries: ``{"entry": "new hand"}``, ``{"entry": "button", "seat": 4}``,
``{"entry": "seat", "seat": 5, "open": false}``, ``{"entry": "level", "level": 6}``,
``{"entry": "dealer", "name": "Ann Lee"}``, ``{"entry": "player", "seat": 5, "name": "Bo Chan"}`` (no ``name``:
none).
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeGuard, get_args

from tablewatch.devices.poller import Clock, session_clock
from tablewatch.devices.transport import Port, PortGone
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

if TYPE_CHECKING:
    from paho.mqtt.client import Client, ConnectFlags, MQTTMessage
    from paho.mqtt.properties import Properties
    from paho.mqtt.reasoncodes import ReasonCode

# The words of a Declaration, in the order the console lists them.
Word = Literal["fold", "check", "call", "bet", "raise", "all-in", "pot", "time", "floor"]
WORDS: tuple[Word, ...] = get_args(Word)
ALIASES = {"allin": "all-in", "all_in": "all-in", "ai": "all-in", "shove": "all-in"}
NO_AMOUNT = {"fold", "check", "time", "floor", "pot", "call"}
MAX_SEAT = 10
MAX_LINE_BYTES = 512  # an entry is a few words; more without a newline is noise or a stuck device
# A device sends an entry in one burst: this long with nothing on the line ends a dropped line that had no newline.
# Long against the gaps of a stream read on a busy machine, short against a dealer's next entry.
QUIET_S = 0.5

log = logging.getLogger(__name__)


class ConsoleError(ValueError):
    """A console entry that can't be understood; the message is sent back to the device."""


@dataclass(frozen=True, kw_only=True)
class Entry:
    seat: int | None
    word: Word
    amount: int | None = None


def parse_amount(text: str) -> int:
    t = text.strip().lower().replace(",", "").replace("_", "")
    m = re.fullmatch(r"(\d+(?:\.\d+)?)(k?)", t)
    if not m:
        raise ConsoleError(f"amount {text!r} is not a number")
    value = float(m.group(1)) * (1000 if m.group(2) else 1)
    if value <= 0 or value != int(value):
        raise ConsoleError(f"amount {text!r} must be a positive whole number")
    return int(value)


def parse_seat(text: str) -> int | None:
    t = text.strip().lower().removeprefix("seat").removeprefix("s")
    if t in ("d", "ealer", "0"):
        return None
    if not t.isdigit() or not 1 <= int(t) <= MAX_SEAT:
        raise ConsoleError(f"seat {text!r} must be 1..{MAX_SEAT}, or D for no seat")
    return int(t)


def parse_word(text: str) -> Word:
    word = ALIASES.get(text.strip().lower(), text.strip().lower())
    if not _is_word(word):
        raise ConsoleError(f"unknown word {text!r}; words: {' '.join(WORDS)}")
    return word


def _is_word(text: str) -> TypeGuard[Word]:
    return text in WORDS


def parse_line(line: str) -> Entry:
    """One console line as an Entry; ConsoleError says what is wrong."""
    parts = line.lower().replace("all in", "all-in").split()
    if len(parts) < 2 or len(parts) > 3:
        raise ConsoleError(f"expected 'SEAT WORD [AMOUNT]' or 'SEAT AMOUNT', got {line.strip()!r}")
    seat = parse_seat(parts[0])
    if len(parts) == 2 and parts[1][:1].isdigit():
        return Entry(seat=seat, word="bet", amount=parse_amount(parts[1]))
    word = parse_word(parts[1])
    amount = parse_amount(parts[2]) if len(parts) == 3 else None
    if amount is not None and word in NO_AMOUNT:
        raise ConsoleError(f"{word!r} takes no amount")
    return Entry(seat=seat, word=word, amount=amount)


def entry_line(entry: Entry) -> str:
    """The line a dealer types for ``entry`` (``parse_line`` reads it back)."""
    seat = "D" if entry.seat is None else str(entry.seat)
    return f"{seat} {entry.word}" + (f" {entry.amount}" if entry.amount is not None else "")


def parse_json(payload: dict[str, Any]) -> Entry:
    unknown = set(payload) - {"seat", "word", "amount"}
    if unknown:
        raise ConsoleError(f"unknown field(s) {', '.join(sorted(unknown))}; fields: seat, word, amount")
    seat = payload.get("seat")
    seat_text = "D" if seat is None else str(seat)
    amount = payload.get("amount")
    word = str(payload.get("word", "bet" if amount is not None else ""))
    text = f"{seat_text} {word}" + (f" {amount}" if amount is not None else "")
    return parse_line(text)


SetupKind = Literal["new hand", "button", "seat", "level", "dealer", "player"]
SETUP_HEADS: dict[str, SetupKind] = {"new": "new hand", "newhand": "new hand", "nh": "new hand", "button": "button",
                                     "btn": "button", "seat": "seat", "level": "level", "dealer": "dealer",
                                     "player": "player"}
PERSON_NAME = re.compile(r"[^\W_](?:[\w .'-]{0,38}[^\W_])?")  # letters and digits first and last, 1-40 long
SEAT_OPEN = {"open": True, "in": True, "closed": False, "close": False, "out": False}


@dataclass(frozen=True, kw_only=True)
class Setup:
    """A set-up entry: a new hand, the button at ``seat``, ``seat`` open or closed, the ``level``, the dealer's
    ``name`` or the name of the player in ``seat`` (None: no name)."""

    entry: SetupKind
    seat: int | None = None
    open: bool = True
    level: int | None = None
    name: str | None = None

    def event(self, *, ts: float, table: str) -> Event:
        if self.entry == "new hand":
            return NewHandPressed(ts=ts, table=table, source="console")
        if self.entry == "button":
            return ButtonPlaced(ts=ts, table=table, source="console", seat=self.seat)
        if self.entry == "seat":
            return SeatStatus(ts=ts, table=table, source="console", seat=self.seat, open=self.open)
        if self.entry == "dealer":
            return DealerChanged(ts=ts, table=table, source="console", dealer=self.name or "")
        if self.entry == "player":
            return PlayerNamed(ts=ts, table=table, source="console", seat=self.seat, name=self.name)
        return LevelChanged(ts=ts, table=table, source="console", level=self.level or 0)


def parse_setup(line: str) -> Setup | None:
    """A set-up line as a Setup; None when the line is not one (a declaration); ConsoleError when it is, badly."""
    parts = line.lower().split()
    kind = SETUP_HEADS.get(parts[0]) if parts else None
    if kind is None or (parts[0] == "new" and parts[1:2] != ["hand"]):
        return None
    if kind == "new hand":
        if len(parts) != (2 if parts[0] == "new" else 1):
            raise ConsoleError(f"expected 'new hand', got {line.strip()!r}")
        return Setup(entry=kind)
    if kind == "dealer":
        return Setup(entry=kind, name=_a_name("dealer", line.strip().split(None, 1)[1:]))
    if kind == "player":
        words = line.strip().split(None, 2)
        if len(words) < 2:
            raise ConsoleError(f"expected 'player SEAT NAME' or 'player SEAT', got {line.strip()!r}")
        return Setup(entry=kind, seat=_a_seat(words[1]), name=_a_name("player", words[2:]) if words[2:] else None)
    if kind == "seat":
        if len(parts) != 3 or parts[2] not in SEAT_OPEN:
            raise ConsoleError(f"expected 'seat N open' or 'seat N closed', got {line.strip()!r}")
        return Setup(entry=kind, seat=_a_seat(parts[1]), open=SEAT_OPEN[parts[2]])
    if len(parts) != 2:
        raise ConsoleError(f"expected '{kind} N', got {line.strip()!r}")
    if kind == "button":
        return Setup(entry=kind, seat=_a_seat(parts[1]))
    if not parts[1].isdigit() or int(parts[1]) < 1:
        raise ConsoleError(f"level {parts[1]!r} must be a whole number from 1")
    return Setup(entry=kind, level=int(parts[1]))


def _a_name(entry: str, rest: list[str]) -> str:
    name = " ".join(rest[0].split()) if rest else ""
    if not PERSON_NAME.fullmatch(name):
        raise ConsoleError(f"expected '{entry} {'SEAT ' if entry == 'player' else ''}NAME' (1-40 letters, digits, "
                           f"spaces, . ' -), got {name[:40]!r}")
    return name


def _a_seat(text: str) -> int:
    seat = parse_seat(text)
    if seat is None:
        raise ConsoleError(f"seat {text!r} must be 1..{MAX_SEAT}")
    return seat


def setup_line(setup: Setup) -> str:
    """The line a dealer types for ``setup`` (``parse_setup`` reads it back)."""
    if setup.entry == "seat":
        return f"seat {setup.seat} {'open' if setup.open else 'closed'}"
    if setup.entry == "dealer":
        return f"dealer {setup.name}"
    if setup.entry == "player":
        return f"player {setup.seat}" + (f" {setup.name}" if setup.name else "")
    value = setup.seat if setup.entry == "button" else setup.level
    return setup.entry if value is None else f"{setup.entry} {value}"


def parse_setup_json(payload: dict[str, Any]) -> Setup:
    """``{"entry": "button", "seat": 4}`` and the like, read as the line they stand for."""
    unknown = set(payload) - {"entry", "seat", "open", "level", "name"}
    if unknown:
        raise ConsoleError(f"unknown field(s) {', '.join(sorted(unknown))}; fields: entry, seat, open, level, name")
    entry = str(payload["entry"])
    if entry == "dealer":
        name = payload.get("name")
        if not isinstance(name, str):
            raise ConsoleError("a dealer entry needs 'name' (a string)")
        return Setup(entry="dealer", name=_a_name("dealer", [name]))
    if entry == "player":
        name = payload.get("name")
        if name is not None and not isinstance(name, str):
            raise ConsoleError("a player entry's 'name' must be a string")
        seat = payload.get("seat")
        if not isinstance(seat, int) or isinstance(seat, bool):
            raise ConsoleError(f"a player entry needs 'seat' (1..{MAX_SEAT})")
        return Setup(entry="player", seat=_a_seat(str(seat)),
                     name=None if name is None else _a_name("player", [name]))
    if entry == "seat":
        opened = payload.get("open", True)
        if not isinstance(opened, bool):
            raise ConsoleError("'open' must be true or false")
        text = f"seat {payload.get('seat')} {'open' if opened else 'closed'}"
    else:
        value = payload.get("seat" if entry == "button" else "level")
        text = entry if value is None else f"{entry} {value}"
    setup = parse_setup(text)
    if setup is None:
        raise ConsoleError(f"unknown entry {entry!r}; entries: new hand, button, seat, level, dealer, player")
    return setup


def parse_text(text: str) -> Entry | Setup:
    """One entry from the device, a line or a JSON object: a declaration or a set-up entry."""
    if text.startswith("{"):
        payload = _json_object(text)
        return parse_setup_json(payload) if "entry" in payload else parse_json(payload)
    return parse_setup(text) or parse_line(text)


class ConsoleSession:
    """Turns entries into events stamped with the clock when they arrive; a declaration ``typing_lag_s`` earlier,
    as the dealer keys what a player said a moment after it was said (said with the chips, words govern them,
    TDA-27A: the stamp must not put them after chips the player pushed out as he spoke)."""

    def __init__(self, *, table: str, clock: Clock | None = None, on_event: Callable[[Event], None] | None = None,
                 typing_lag_s: float = 0.0) -> None:
        self.table = table
        self.typing_lag_s = typing_lag_s
        self.clock = clock or session_clock()
        self.on_event = on_event
        self.accepted = 0
        self.rejected = 0

    def handle(self, text: str) -> tuple[Event | None, str]:
        """A line (or JSON object) from the device: the event it makes and the reply for the device."""
        ts = self.clock()
        if len(text.encode("utf-8", errors="replace")) > MAX_LINE_BYTES:
            return None, self.too_long(f"{self.table} console")
        text = text.strip()
        if not text or text.startswith("#"):
            return None, ""
        if text.upper() == "PING":
            return None, "PONG"
        try:
            entry = parse_text(text)
        except ConsoleError as exc:
            self.rejected += 1
            return None, f"ERR {exc}"
        self.accepted += 1
        event = entry.event(ts=ts, table=self.table) if isinstance(entry, Setup) else Declaration(
            ts=ts - self.typing_lag_s, table=self.table, source="console", seat=entry.seat, word=entry.word,
            amount=entry.amount)
        if self.on_event is not None:
            self.on_event(event)
        return event, f"OK {self.accepted}"

    def too_long(self, where: str) -> str:
        """An over-long entry, dropped: counted, warned about, and the reply for the device."""
        self.rejected += 1
        log.warning("%s: an entry over %d bytes was dropped", where, MAX_LINE_BYTES)
        return f"ERR entry over {MAX_LINE_BYTES} bytes, dropped"


def _json_object(text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConsoleError(f"not valid JSON: {exc.msg}") from None
    if not isinstance(data, dict):
        raise ConsoleError("a JSON entry must be an object with seat, word, amount")
    return data


class LineBuffer:
    """Bytes in, whole lines out, holding at most ``limit`` bytes: a longer line is dropped (``None`` in its
    place) and skipped up to its newline or until the line goes quiet, so the next entry is read whole."""

    def __init__(self, limit: int = MAX_LINE_BYTES) -> None:
        self.limit = limit
        self._pending = bytearray()
        self.skipping = False  # inside a dropped line

    def feed(self, data: bytes) -> list[bytes | None]:
        out: list[bytes | None] = []
        self._pending += data
        while (end := self._pending.find(b"\n")) >= 0:
            line = bytes(self._pending[:end])
            del self._pending[:end + 1]
            if self.skipping:
                self.skipping = False
            else:
                out.append(line if len(line) <= self.limit else None)
        if self.skipping:  # the rest of a dropped line: nothing of it is kept
            self._pending.clear()
        elif len(self._pending) > self.limit:
            out.append(None)
            self.skipping = True
            self._pending.clear()
        return out

    def quiet(self) -> None:
        """Nothing arrived for a moment: a dropped line has ended (a device sends an entry in one burst)."""
        self.skipping = False

    def clear(self) -> None:
        self._pending.clear()
        self.skipping = False


class SerialConsole:
    """Reads the console on a serial line (reopened when it comes back) and answers each line."""

    def __init__(self, url: str, *, table: str, clock: Clock | None = None,
                 on_event: Callable[[Event], None] | None = None, baudrate: int = 9600,
                 reconnect_interval: float = 0.5, device: str = "console", typing_lag_s: float = 0.0) -> None:
        self.session = ConsoleSession(table=table, clock=clock, on_event=on_event, typing_lag_s=typing_lag_s)
        self.port = Port(url, baudrate=baudrate)
        self.reconnect_interval = reconnect_interval
        self.device = device
        self.lines = LineBuffer()
        self.online: bool | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def run(self) -> None:
        last_data = time.monotonic()
        while not self._stop.is_set():
            try:
                self.port.open()
                self._set_online(True, f"{self.port.url} open")
                data = self.port.read(0.05)
                now = time.monotonic()
                if data:
                    last_data = now
                elif now - last_data >= QUIET_S:
                    self.lines.quiet()
                for line in self.lines.feed(data):
                    self._answer(line)
            except PortGone as exc:
                self.lines.clear()
                self._set_online(False, str(exc))
                self._stop.wait(self.reconnect_interval)
        self.port.close()

    def _answer(self, line: bytes | None) -> None:
        if line is None:
            reply = self.session.too_long(self.port.url)
        else:
            _, reply = self.session.handle(line.decode("ascii", errors="replace"))
        if reply:
            self.port.write(reply.encode() + b"\r\n")

    def _set_online(self, online: bool, detail: str) -> None:
        if self.online == online:
            return
        first = self.online is None
        self.online = online
        if first and online:
            return  # connected at start: nothing to report
        if self.session.on_event is not None:
            self.session.on_event(DeviceStatus(ts=self.session.clock(), table=self.session.table, source="console",
                                               device=self.device, online=online, detail=detail))

    def start(self) -> SerialConsole:
        self._thread = threading.Thread(target=self.run, name=f"console {self.port.url}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> SerialConsole:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class MqttConsole:
    """The console as an MQTT client: entries on ``topic``, answers on ``topic + '/ack'``."""

    def __init__(self, *, host: str, port: int, topic: str, table: str, clock: Clock | None = None,
                 on_event: Callable[[Event], None] | None = None, client_id: str = "") -> None:
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion

        self.session = ConsoleSession(table=table, clock=clock, on_event=on_event)
        self.topic = topic
        self.host, self.port = host, port
        self.ready = threading.Event()  # connected and subscribed
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2,
                                  client_id=client_id or f"tablewatch-console-{table}")
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.client.on_subscribe = lambda *args: self.ready.set()

    def _on_connect(self, client: Client, userdata: object, flags: ConnectFlags, reason_code: ReasonCode,
                    properties: Properties | None) -> None:
        client.subscribe(self.topic, qos=1)

    def _on_message(self, client: Client, userdata: object, message: MQTTMessage) -> None:
        if len(message.payload) > MAX_LINE_BYTES:  # refused before it is decoded
            event, reply = None, self.session.too_long(self.topic)
        else:
            event, reply = self.session.handle(message.payload.decode("utf-8", errors="replace"))
        if not reply:
            return
        ack: dict[str, Any] = {"ok": event is not None or reply == "PONG", "reply": reply}
        if event is not None:
            ack["event"] = event.to_dict()
        client.publish(self.topic + "/ack", json.dumps(ack), qos=1)

    def start(self, timeout: float = 5.0) -> MqttConsole:
        self.client.connect(self.host, self.port)
        self.client.loop_start()
        if not self.ready.wait(timeout):
            self.stop()
            raise ConnectionError(f"no MQTT connection to {self.host}:{self.port} within {timeout} s")
        return self

    def stop(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()

    def __enter__(self) -> MqttConsole:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

"""The poller over real lines: several antennas, unplug and replug, a silent reader, RFC 2217, the ledger."""

from __future__ import annotations

import itertools
import queue
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tablewatch.devices import iso15693 as iso
from tablewatch.devices.emulator import ReaderEmulator
from tablewatch.devices.ledger import ChipLedger
from tablewatch.devices.poller import ReaderConfig, ReaderPoller
from tablewatch.devices.registry import TagRegistry
from tablewatch.events import ChipsLeftTable, ChipsMoved, DeviceStatus, Event, RfidInventory, UnknownChip
from tests.devices.rfc2217_bridge import Rfc2217Bridge
from tests.devices.socat import SocatPair

ANTENNAS = {"tray": 0, "seat3.stack": 1, "seat3.bet": 2, "pot": 3}
FAST = {"response_timeout": 0.05, "retries": 1, "offline_after": 0.2, "reconnect_interval": 0.02,
        "poll_interval": 0.01}


class Events:
    """Events from the poller's thread, waited for with a queue (no sleeping)."""

    def __init__(self) -> None:
        self.queue: queue.Queue[Event] = queue.Queue()
        self.seen: list[Event] = []

    def put(self, event: Event) -> None:
        self.queue.put(event)

    def wait_for(self, match: Callable[[Event], bool], timeout: float = 3.0) -> Event:
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                event = self.queue.get(timeout=left)
            except queue.Empty:
                break
            self.seen.append(event)
            if match(event):
                return event
        raise AssertionError(f"no matching event within {timeout} s; saw {[e.kind for e in self.seen][-20:]}")


def inventory_of(antenna: str, count: int | None = None) -> Callable[[Event], bool]:
    return lambda e: (isinstance(e, RfidInventory) and e.antenna == antenna
                      and (count is None or len(e.uids) == count))


def status(online: bool) -> Callable[[Event], bool]:
    return lambda e: isinstance(e, DeviceStatus) and e.online is online


@pytest.fixture
def events() -> Events:
    return Events()


@pytest.fixture
def registry() -> TagRegistry:
    return TagRegistry.generate({100: 30, 500: 20, 1000: 10}, chip_set="test", seed=4)


@pytest.fixture
def tcp_emulator() -> Iterator[tuple[ReaderEmulator, str]]:
    emu = ReaderEmulator(ANTENNAS)
    url = f"socket://127.0.0.1:{emu.serve_tcp()}"
    yield emu, url
    emu.stop()


def test_config_errors_name_the_problem() -> None:
    with pytest.raises(ValueError, match="valid families: s6350"):
        ReaderConfig(url="loop://", family="acme")
    with pytest.raises(ValueError, match="distinct"):
        ReaderConfig(url="loop://", antennas={"a": 1, "b": 1})
    with pytest.raises(ValueError, match="Extra inputs are not permitted"):
        ReaderConfig(url="loop://", antenas={"a": 1})  # type: ignore[call-arg]


def test_every_antenna_is_read_and_reported(tcp_emulator: tuple[ReaderEmulator, str], events: Events) -> None:
    emu, url = tcp_emulator
    stacks = {name: iso.make_uids(n, seed=i) for i, (name, n) in enumerate(zip(ANTENNAS, (120, 40, 3, 0), strict=True))}
    for name, uids in stacks.items():
        emu.set_tags(name, uids)
    poller = ReaderPoller(ReaderConfig(url=url, antennas=ANTENNAS, **FAST), table="T01", on_event=events.put)
    out = poller.sweep()
    poller.stop()
    assert {e.antenna: set(e.uids) for e in out if isinstance(e, RfidInventory)} == {
        name: {iso.uid_hex(u) for u in uids} for name, uids in stacks.items()}
    assert poller.stats.inventories == 4 and poller.stats.bytes_in > 0
    assert all(e.source == "rfid" and e.table == "T01" for e in out)


def test_unplug_and_replug_gives_offline_then_back(tmp_path: Path, events: Events) -> None:
    pair = SocatPair(tmp_path).start()
    uids = iso.make_uids(40, seed=1)
    emu = ReaderEmulator({"tray": 0}, tags={"tray": uids}).serve_serial(pair.b)
    poller = ReaderPoller(ReaderConfig(url=pair.a, antennas={"tray": 0}, **FAST), table="T01",
                          on_event=events.put).start()
    try:
        events.wait_for(inventory_of("tray", 40))
        pair.stop()  # the USB adapter is pulled out: both ptys and their links vanish
        offline = events.wait_for(status(False))
        assert isinstance(offline, DeviceStatus) and offline.device == pair.a and "no answer" in offline.detail
        pair.start()  # and plugged back in under the same name
        events.wait_for(status(True))
        events.wait_for(inventory_of("tray", 40))
    finally:
        poller.stop()
        emu.stop()
        pair.stop()
    assert poller.stats.reconnects >= 1 and poller.stats.port_errors + poller.stats.failed_inventories >= 1
    states = [e.online for e in events.seen if isinstance(e, DeviceStatus)]
    assert states[0] is False and states[-1] is True
    assert all(a != b for a, b in itertools.pairwise(states))  # offline and back alternate, never repeat


def test_a_silent_reader_goes_offline_and_comes_back(tcp_emulator: tuple[ReaderEmulator, str],
                                                     events: Events) -> None:
    emu, url = tcp_emulator
    emu.set_tags("tray", iso.make_uids(5, seed=2))
    with ReaderPoller(ReaderConfig(url=url, antennas={"tray": 0}, **FAST), table="T01", on_event=events.put):
        events.wait_for(inventory_of("tray", 5))
        emu.set_faults(silent=True)
        offline = events.wait_for(status(False))
        assert "no answer" in offline.detail  # type: ignore[attr-defined]
        emu.set_faults(silent=False)
        events.wait_for(status(True))
        events.wait_for(inventory_of("tray", 5))


def test_an_absent_port_is_offline_until_it_appears(tmp_path: Path, events: Events) -> None:
    pair = SocatPair(tmp_path)
    emu = ReaderEmulator({"tray": 0}, tags={"tray": iso.make_uids(3)}).serve_serial(pair.b)
    poller = ReaderPoller(ReaderConfig(url=pair.a, antennas={"tray": 0}, **FAST), table="T01",
                          on_event=events.put).start()
    try:
        offline = events.wait_for(status(False))
        assert "cannot open" in offline.detail  # type: ignore[attr-defined]
        pair.start()
        events.wait_for(status(True))
        events.wait_for(inventory_of("tray", 3))
    finally:
        poller.stop()
        emu.stop()
        pair.stop()


@pytest.mark.filterwarnings("ignore:set(Daemon|Name)\\(\\) is deprecated:DeprecationWarning")  # inside pyserial
def test_reads_over_an_rfc2217_serial_server(tmp_path: Path) -> None:
    uids = iso.make_uids(40, seed=3, shared_low_bits=8)
    with SocatPair(tmp_path) as pair, ReaderEmulator({"stack": 0}, tags={"stack": uids}) as emu:
        emu.serve_serial(pair.b)
        with Rfc2217Bridge(pair.a) as bridge:
            poller = ReaderPoller(ReaderConfig(url=bridge.url, antennas={"stack": 0}, response_timeout=0.2),
                                  table="T01")
            out = poller.sweep()
            poller.stop()
    assert [set(e.uids) for e in out if isinstance(e, RfidInventory)] == [{iso.uid_hex(u) for u in uids}]


def test_the_ledger_follows_chips_between_antennas(tcp_emulator: tuple[ReaderEmulator, str],
                                                   registry: TagRegistry) -> None:
    emu, url = tcp_emulator
    stack = registry.uids_of(500)[:8] + registry.uids_of(1000)[:2]
    emu.set_tags("seat3.stack", stack)
    emu.set_tags("tray", registry.uids_of(100))
    ledger = ChipLedger(registry, table="T01", leave_after=0.0)
    poller = ReaderPoller(ReaderConfig(url=url, antennas=ANTENNAS, **FAST), table="T01", ledger=ledger)
    assert not [e for e in poller.sweep() if not isinstance(e, RfidInventory)]  # the first read is the baseline
    assert ledger.value("seat3.stack") == 6000
    bet = registry.uids_of(500)[:3]
    emu.move_tags(bet, "seat3.bet")  # seat 3 bets 1,500 in three chips
    swept = poller.sweep()
    assert [type(e) for e in swept] == [ChipsMoved] + [RfidInventory] * len(ANTENNAS)  # the move, then its reads
    moved = [e for e in swept if isinstance(e, ChipsMoved)]
    assert moved == [ChipsMoved(ts=moved[0].ts, table="T01", source="rfid", seat=3, src="seat3.stack",
                                dst="seat3.bet", chips=moved[0].chips)]
    assert moved[0].chips.as_dict() == {500: 3}
    emu.remove_tags(registry.uids_of(1000)[:1])  # a 1,000 chip leaves the table
    emu.add_tags("pot", ["E0 07 00 00 DE AD BE EF"])  # and a chip nobody issued shows up
    later = poller.sweep()
    poller.stop()
    left = [e for e in later if isinstance(e, ChipsLeftTable)]
    assert [(e.zone, e.chips.as_dict(), e.seat) for e in left] == [("seat3.stack", {1000: 1}, 3)]
    assert [(e.uid, e.zone) for e in later if isinstance(e, UnknownChip)] == [("E0070000DEADBEEF", "pot")]

"""Complete reads of stacks over a real pty pair (socat) and over TCP, with forced collisions and a bad line.

Each read is compared with the reference anti-collision tree: the number of rounds and the bytes on the
wire are exactly what ISO 15693 slotting implies for that set of UIDs, and every UID is found.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator

import pytest

from tablewatch.devices import iso15693 as iso
from tablewatch.devices.emulator import Faults, ReaderEmulator
from tablewatch.devices.frames import decode_frame, encode_frame
from tablewatch.devices.inventory import InventoryFailed, Link, run_inventory
from tablewatch.devices.readers import ReaderError, UnknownReaderFamily, reader_family
from tablewatch.devices.transport import Port
from tests.devices.conftest import RESPONSE_TIMEOUT
from tests.devices.socat import SocatPair


def reference(uids: list[int], mask_len: int = 0, mask_value: int = 0) -> tuple[int, int]:
    """(rounds, wire bytes) of the anti-collision tree for ``uids``, straight from the slotting rule."""
    members = [u for u in uids if iso.matches_mask(u, mask_len, mask_value)]
    slots = Counter(iso.slot_of(u, mask_len) for u in members)
    single = sum(1 for c in slots.values() if c == 1)
    request = 13 + (mask_len + 7) // 8
    response = 13 + 10 * single if slots else 10  # an empty field answers error 0x01 (a 10-byte frame)
    rounds, wire = 1, request + response
    for slot, count in slots.items():
        if count > 1:
            r, w = reference(uids, mask_len + 4, mask_value | slot << mask_len)
            rounds, wire = rounds + r, wire + w
    return rounds, wire


STACKS = {
    "1 tag": iso.make_uids(1, seed=1),
    "16 tags, one per slot": [iso.make_uid(s << 4 | s) for s in range(16)],
    "16 tags, shared low byte": iso.make_uids(16, seed=2, shared_low_bits=8),
    "17 tags": iso.make_uids(17, seed=3),
    "40 tags": iso.make_uids(40, seed=4),
    "40 tags, shared low 12 bits": iso.make_uids(40, seed=5, shared_low_bits=12),
    "300 tags": iso.make_uids(300, seed=6),
    "300 tags, shared low byte": iso.make_uids(300, seed=7, shared_low_bits=8),
}


@pytest.fixture(params=["pty", "tcp"])
def line(request: pytest.FixtureRequest, tmp_path, emulator: ReaderEmulator) -> Iterator[Port]:
    """A port to the emulator: over a socat pty pair, or over TCP (socket://)."""
    if request.param == "pty":
        with SocatPair(tmp_path) as pair:
            emulator.serve_serial(pair.b)
            with Port(pair.a) as port:
                yield port
    else:
        with Port(f"socket://127.0.0.1:{emulator.serve_tcp()}") as port:
            yield port


@pytest.mark.parametrize("stack", list(STACKS))
def test_full_read_of_a_stack(stack: str, line: Port, emulator: ReaderEmulator,
                              record_property: pytest.RecordProperty) -> None:
    uids = STACKS[stack]
    emulator.set_tags("seat3.stack", uids)
    link = Link(port=line, family=reader_family("s6350"), response_timeout=RESPONSE_TIMEOUT)
    result = run_inventory(link, node=emulator.antennas["seat3.stack"])
    assert set(result.uids) == set(uids)
    rounds, wire_bytes = reference(uids)
    assert result.rounds == rounds
    if link.stats.timeouts == 0:  # a retry on a loaded machine adds its bytes
        assert result.wire_bytes == wire_bytes
    if "one per slot" in stack:
        assert result.rounds == 1 and result.collided_slots == 0
    if len(uids) > 16:
        assert result.collided_slots >= 1  # pigeonhole: 17 tags can't fit 16 slots
    record_property("rounds", result.rounds)
    record_property("wire_bytes", result.wire_bytes)
    print(f"{stack}: {result.rounds} rounds, {result.collided_slots} collided slots, {result.wire_bytes} bytes")


def test_a_tray_of_several_hundred_chips_over_several_antennas(emulator: ReaderEmulator, tmp_path) -> None:
    chips = iso.make_uids(600, seed=9)
    parts = {"tray": chips[:350], "seat3.stack": chips[350:500], "seat3.bet": chips[500:540], "pot": chips[540:]}
    for name, uids in parts.items():
        emulator.set_tags(name, uids)
    with SocatPair(tmp_path) as pair:
        emulator.serve_serial(pair.b)
        with Port(pair.a) as port:
            link = Link(port=port, family=reader_family("s6350"), response_timeout=RESPONSE_TIMEOUT)
            for name, uids in parts.items():
                assert set(run_inventory(link, node=emulator.antennas[name]).uids) == set(uids), name


def test_an_empty_field_reads_as_no_tags(line: Port, emulator: ReaderEmulator) -> None:
    link = Link(port=line, family=reader_family("s6350"), response_timeout=RESPONSE_TIMEOUT)
    result = run_inventory(link, node=emulator.antennas["pot"])
    assert result.uids == () and result.rounds == 1
    assert result.bytes_in == 10 or link.stats.timeouts  # error 0x01 "transponder not found": 10 bytes


def test_a_stack_is_read_in_full_over_a_noisy_line(line: Port, emulator: ReaderEmulator) -> None:
    """Noise, dropped and flipped bytes and split writes: retries recover, the decoder counts the damage."""
    uids = iso.make_uids(40, seed=11, shared_low_bits=4)
    emulator.set_tags("seat3.stack", uids)
    emulator.faults = Faults(noise=0.3, drop=0.1, corrupt=0.1, split=True, jitter=0.005)
    link = Link(port=line, family=reader_family("s6350"), response_timeout=RESPONSE_TIMEOUT, retries=6)
    for _ in range(3):
        assert set(run_inventory(link, node=1).uids) == set(uids)
    assert link.stats.retries > 0 and link.stats.timeouts > 0
    assert link.decoder is not None and link.decoder.stats.dropped_bytes > 0


def test_a_late_answer_to_another_request_is_never_taken(tmp_path) -> None:
    """Before every right answer the line delivers a good but stale frame (the answer to round 1): the driver
    checks each answer against its mask and slots, ignores the stale one and still reads every tag."""
    uids = iso.make_uids(40, seed=12)
    emu = ReaderEmulator({"stack": 0}, tags={"stack": uids})
    family = reader_family("s6350")
    stale = emu.respond(decode_frame(family.inventory_request(node=0, mask_len=0, mask_value=0)))
    assert stale is not None and iso.parse_inventory_reply(stale.data).tags
    stop = threading.Event()
    with SocatPair(tmp_path) as pair, Port(pair.a) as host, Port(pair.b) as device:

        def play_the_reader() -> None:
            decoder = family.new_decoder()
            while not stop.is_set():
                for request in decoder.feed(device.read(0.02)):
                    answer = emu.respond(request)
                    assert answer is not None
                    device.write((b"" if request.data[3] == 0 else stale.encode()) + answer.encode())

        reader = threading.Thread(target=play_the_reader)
        reader.start()
        try:
            link = Link(port=host, family=family, response_timeout=RESPONSE_TIMEOUT)
            result = run_inventory(link, node=0)
        finally:
            stop.set()
            reader.join()
    assert set(result.uids) == set(uids)
    # one stale frame before each answer after the first (more if a loaded machine made a round time out)
    assert link.stats.foreign_frames >= result.rounds - 1 > 0


def test_a_silent_reader_fails_the_inventory_after_the_retries(line: Port, emulator: ReaderEmulator) -> None:
    emulator.set_faults(silent=True)
    link = Link(port=line, family=reader_family("s6350"), response_timeout=0.03, retries=1)
    with pytest.raises(InventoryFailed, match="after 2 tries"):
        run_inventory(link, node=0)
    assert link.stats.timeouts == 2


def test_reader_error_other_than_not_found_is_raised() -> None:
    family = reader_family("s6350")
    err = encode_frame(node=0, flags=0x10, command=0x60, data=b"\x04")

    with pytest.raises(ReaderError, match="invalid flags"):
        family.inventory_reply(decode_frame(err), node=0)


def test_unknown_reader_family_lists_the_valid_ones() -> None:
    with pytest.raises(UnknownReaderFamily, match="valid families: s6350"):
        reader_family("acme9000")

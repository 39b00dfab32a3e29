"""ISO 15693 slotting, masks, UIDs and the inventory response layout."""

from __future__ import annotations

import pytest

from tablewatch.devices import iso15693 as iso


def test_uids_are_realistic_and_printed_msb_first() -> None:
    uids = iso.make_uids(50, seed=7, manufacturer_code=0x04)
    assert len(set(uids)) == 50
    for uid in uids:
        text = iso.uid_hex(uid)
        assert text.startswith("E004") and len(text) == 16
        assert iso.parse_uid(" ".join(text[i:i + 2] for i in range(0, 16, 2))) == uid
        assert iso.uid_to_wire(uid)[-1] == 0xE0  # on the wire the E0 byte comes last
    assert iso.manufacturer(uids[0]) == "NXP Semiconductors"


@pytest.mark.parametrize(("text", "message"), [
    ("E007", "16 hex digits"),
    ("1007000000000001", "starts with E0"),
    ("E00700000000000G", "16 hex digits"),
])
def test_bad_uids_are_refused_with_a_reason(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        iso.parse_uid(text)


def test_shared_low_bits_force_collisions() -> None:
    uids = iso.make_uids(20, seed=1, shared_low_bits=12)
    assert len({u & 0xFFF for u in uids}) == 1
    reply = iso.answer_inventory(uids, iso.InventoryRequest(flags=iso.INVENTORY_16_SLOTS, mask_len=0, mask_value=0))
    assert reply.valid == 0 and bin(reply.collisions).count("1") == 1


def test_slotting_follows_the_bits_after_the_mask() -> None:
    a, b, c = (iso.make_uid(s) for s in (0x10, 0x20, 0x21))  # low nibble 0, 0, 1; next nibble 1, 2, 2
    first = iso.answer_inventory([a, b, c], iso.InventoryRequest(flags=6, mask_len=0, mask_value=0))
    assert first.collided_slots == [0] and [t.uid for t in first.tags] == [c]
    second = iso.answer_inventory([a, b, c], iso.InventoryRequest(flags=6, mask_len=4, mask_value=0))
    assert second.collisions == 0 and [(t.slot, t.uid) for t in second.tags] == [(1, a), (2, b)]
    one_slot = iso.answer_inventory([a, b], iso.InventoryRequest(flags=6 | iso.FLAG_ONE_SLOT, mask_len=0,
                                                                 mask_value=0))
    assert one_slot.collisions == 1


def test_reply_round_trip_and_layout_errors() -> None:
    uids = iso.make_uids(5, seed=3)
    reply = iso.answer_inventory(uids, iso.InventoryRequest(flags=6, mask_len=0, mask_value=0))
    data = reply.encode()
    assert iso.parse_inventory_reply(data) == reply
    with pytest.raises(ValueError, match="announce"):
        iso.parse_inventory_reply(data[:-1])
    with pytest.raises(ValueError, match="both valid and collided"):
        iso.parse_inventory_reply(b"\x01\x00\x01\x00" + data[4:14])


def test_inventory_request_mask_encoding() -> None:
    data = iso.inventory_request_data(12, 0xABC)
    assert data == bytes((0x06, 0x01, 12, 0xBC, 0x0A))
    assert iso.parse_inventory_request(data) == iso.InventoryRequest(flags=6, mask_len=12, mask_value=0xABC)
    with pytest.raises(ValueError, match="needs 2 mask byte"):
        iso.parse_inventory_request(data[:-1])
    with pytest.raises(ValueError, match="can't hold"):
        iso.inventory_request_data(4, 0x10)

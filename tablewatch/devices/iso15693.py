"""ISO/IEC 15693 pieces the readers share: UIDs, inventory masks and slots, the inventory response layout.

UIDs are 64-bit integers inside the program and 16 upper-case hex digits, most significant byte first
(``E007...``), everywhere a person or another part sees them. On the air and in frames they travel least
significant byte first.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable
from dataclasses import dataclass

INVENTORY = 0x01
STAY_QUIET = 0x02
READ_SINGLE_BLOCK = 0x20
GET_SYSTEM_INFO = 0x2B

# ISO request flags (byte 1 of every ISO request)
FLAG_HIGH_RATE = 0x02
FLAG_INVENTORY = 0x04
FLAG_ONE_SLOT = 0x20  # with FLAG_INVENTORY: 1 slot instead of 16
FLAG_ADDRESS = 0x20  # without FLAG_INVENTORY: the request carries a UID
INVENTORY_16_SLOTS = FLAG_HIGH_RATE | FLAG_INVENTORY

SLOTS = 16
SLOT_BITS = 4
UID_BITS = 64
TAG_RECORD = 10  # response flags, DSFID, UID (8)

MANUFACTURERS: dict[int, str] = {
    0x02: "STMicroelectronics",
    0x04: "NXP Semiconductors",
    0x05: "Infineon Technologies",
    0x07: "Texas Instruments",
    0x16: "EM Microelectronic",
}

_HEX_SEPARATORS = re.compile(r"[\s:\-_]")


def uid_hex(uid: int) -> str:
    return f"{uid:016X}"


def parse_uid(text: str | int) -> int:
    """A UID written most significant byte first (``E0 07 ...``, separators allowed) as an integer."""
    if isinstance(text, int):
        uid = text
    else:
        digits = _HEX_SEPARATORS.sub("", text)
        if not re.fullmatch(r"[0-9A-Fa-f]{16}", digits):
            raise ValueError(f"A UID is 16 hex digits (8 bytes), got {text!r}.")
        uid = int(digits, 16)
    if uid >> 56 != 0xE0:
        raise ValueError(f"An ISO 15693 UID starts with E0; {uid_hex(uid) if uid < 1 << 64 else uid} does not.")
    return uid


def uid_to_wire(uid: int) -> bytes:
    return uid.to_bytes(8, "little")


def uid_from_wire(raw: bytes) -> int:
    return int.from_bytes(raw, "little")


def manufacturer(uid: int) -> str:
    code = (uid >> 48) & 0xFF
    return MANUFACTURERS.get(code, f"code 0x{code:02X}")


def make_uid(serial: int, *, manufacturer_code: int = 0x07) -> int:
    """E0, the manufacturer code, then 48 bits of chip type and serial number."""
    return 0xE0 << 56 | (manufacturer_code & 0xFF) << 48 | (serial & (1 << 48) - 1)


def make_uids(count: int, *, seed: int = 0, manufacturer_code: int = 0x07, shared_low_bits: int = 0) -> list[int]:
    """``count`` distinct realistic UIDs. ``shared_low_bits`` > 0 gives them all the same low bits, which
    forces collisions in the first ``shared_low_bits // 4`` inventory rounds (a worst case for a stack)."""
    if count < 0 or not 0 <= shared_low_bits <= 40:
        raise ValueError(f"count must be >= 0 and shared_low_bits 0..40, got {count} and {shared_low_bits}.")
    rng = random.Random(seed)
    shared = rng.getrandbits(shared_low_bits) if shared_low_bits else 0
    uids: set[int] = set()
    while len(uids) < count:
        serial = rng.getrandbits(48)
        if shared_low_bits:
            serial = (serial >> shared_low_bits << shared_low_bits) | shared
        uids.add(make_uid(serial, manufacturer_code=manufacturer_code))
    return sorted(uids)


def matches_mask(uid: int, mask_len: int, mask_value: int) -> bool:
    return uid & ((1 << mask_len) - 1) == mask_value


def slot_of(uid: int, mask_len: int) -> int:
    """The 16-slot time slot (0..15) in which ``uid`` answers an inventory with a mask of ``mask_len`` bits."""
    return (uid >> mask_len) & (SLOTS - 1)


def mask_bytes(mask_len: int, mask_value: int) -> bytes:
    return mask_value.to_bytes((mask_len + 7) // 8, "little")


def inventory_request_data(mask_len: int, mask_value: int, *, one_slot: bool = False) -> bytes:
    """ISO flags, command 0x01, mask length, mask value (the bytes the mask needs, LSB first)."""
    if not 0 <= mask_len <= UID_BITS or mask_value >> mask_len:
        raise ValueError(f"Mask of {mask_len} bits can't hold 0x{mask_value:X}.")
    flags = INVENTORY_16_SLOTS | (FLAG_ONE_SLOT if one_slot else 0)
    return bytes((flags, INVENTORY, mask_len)) + mask_bytes(mask_len, mask_value)


@dataclass(frozen=True, kw_only=True)
class InventoryRequest:
    flags: int
    mask_len: int
    mask_value: int

    @property
    def slots(self) -> int:
        return 1 if self.flags & FLAG_ONE_SLOT else SLOTS


def parse_inventory_request(iso: bytes) -> InventoryRequest:
    """``iso`` starts at the ISO flags byte. Raises ValueError saying what is wrong."""
    if len(iso) < 3 or iso[1] != INVENTORY:
        raise ValueError("Not an ISO 15693 inventory request (flags, 0x01, mask length, mask).")
    if not iso[0] & FLAG_INVENTORY:
        raise ValueError(f"Inventory request flags 0x{iso[0]:02X} lack the inventory flag 0x04.")
    mask_len = iso[2]
    need = (mask_len + 7) // 8
    if mask_len > UID_BITS or len(iso) != 3 + need:
        raise ValueError(f"Mask length {mask_len} bits needs {need} mask byte(s); the request has {len(iso) - 3}.")
    value = int.from_bytes(iso[3:], "little")
    if value >> mask_len:
        raise ValueError(f"Mask value 0x{value:X} has bits beyond its {mask_len}-bit length.")
    return InventoryRequest(flags=iso[0], mask_len=mask_len, mask_value=value)


@dataclass(frozen=True, kw_only=True)
class SlotTag:
    slot: int  # 0..15
    flags: int
    dsfid: int
    uid: int


@dataclass(frozen=True, kw_only=True)
class InventoryReply:
    valid: int  # bit i: slot i held exactly one tag
    collisions: int  # bit i: slot i held two or more
    tags: tuple[SlotTag, ...]

    @property
    def collided_slots(self) -> list[int]:
        return [s for s in range(SLOTS) if self.collisions >> s & 1]

    def encode(self) -> bytes:
        out = bytearray(self.valid.to_bytes(2, "little") + self.collisions.to_bytes(2, "little"))
        for tag in sorted(self.tags, key=lambda t: t.slot):
            out += bytes((tag.flags, tag.dsfid)) + uid_to_wire(tag.uid)
        return bytes(out)


def parse_inventory_reply(data: bytes) -> InventoryReply:
    """Valid-data flags (2), collision flags (2), then 10 bytes per valid slot in slot order."""
    if len(data) < 4:
        raise ValueError(f"An inventory response has at least 4 data bytes (slot flags); got {len(data)}.")
    valid = int.from_bytes(data[0:2], "little")
    collisions = int.from_bytes(data[2:4], "little")
    slots = [s for s in range(SLOTS) if valid >> s & 1]
    expected = 4 + TAG_RECORD * len(slots)
    if len(data) != expected:
        raise ValueError(f"The valid-data flags announce {len(slots)} slot(s), so {expected} data bytes were "
                         f"expected; got {len(data)}.")
    if valid & collisions:
        raise ValueError(f"Slots flagged both valid and collided: 0x{valid & collisions:04X}.")
    tags = []
    for i, slot in enumerate(slots):
        rec = data[4 + TAG_RECORD * i: 4 + TAG_RECORD * (i + 1)]
        tags.append(SlotTag(slot=slot, flags=rec[0], dsfid=rec[1], uid=uid_from_wire(rec[2:10])))
    return InventoryReply(valid=valid, collisions=collisions, tags=tuple(tags))


def answer_inventory(uids: Iterable[int], request: InventoryRequest) -> InventoryReply:
    """What the tags in the field answer, as ISO 15693 slotting says (used by the emulator and the tests)."""
    by_slot: dict[int, list[int]] = {}
    for uid in uids:
        if matches_mask(uid, request.mask_len, request.mask_value):
            slot = 0 if request.slots == 1 else slot_of(uid, request.mask_len)
            by_slot.setdefault(slot, []).append(uid)
    valid = collisions = 0
    tags = []
    for slot, here in by_slot.items():
        if len(here) == 1:
            valid |= 1 << slot
            tags.append(SlotTag(slot=slot, flags=0, dsfid=0, uid=here[0]))
        else:
            collisions |= 1 << slot
    return InventoryReply(valid=valid, collisions=collisions, tags=tuple(sorted(tags, key=lambda t: t.slot)))

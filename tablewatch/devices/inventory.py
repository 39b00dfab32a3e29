"""One complete inventory of one antenna: 16-slot rounds, recursing into collided slots.

Round 1 asks every tag (empty mask). A tag answers in the slot named by the 4 UID bits after the mask;
a slot with two or more tags is asked again with the mask extended by that slot's 4 bits, until no slot
collides. Replies are checked against the mask (each UID must match it and sit in its own slot), so a
late reply to an earlier request can never be taken for the current one.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from tablewatch.devices import iso15693 as iso
from tablewatch.devices.frames import Frame, StreamDecoder
from tablewatch.devices.readers import ReaderFamily
from tablewatch.devices.transport import Port

T = TypeVar("T")
FRAME_GAP = 0.005  # a quiet line this long ends a frame the decoder holds back (about 30 byte times)
MAX_MASK = iso.UID_BITS - iso.SLOT_BITS  # a collision with this mask means two tags with the same UID


class InventoryFailed(Exception):
    """The reader did not answer one round, even after the retries; the inventory is incomplete."""


@dataclass(kw_only=True)
class LinkStats:
    """Counters of one reader link, kept across inventories."""

    requests: int = 0
    timeouts: int = 0
    retries: int = 0
    foreign_frames: int = 0  # good frames that answered something else (another node, a stale request)
    malformed_replies: int = 0
    reader_errors: int = 0


@dataclass(frozen=True, kw_only=True)
class InventoryResult:
    uids: tuple[int, ...]  # sorted
    rounds: int
    collided_slots: int
    unresolved: int  # collisions at the full mask: duplicate UIDs in the field
    bytes_out: int
    bytes_in: int
    elapsed: float

    @property
    def wire_bytes(self) -> int:
        return self.bytes_out + self.bytes_in

    def uid_strings(self) -> tuple[str, ...]:
        return tuple(iso.uid_hex(u) for u in self.uids)


@dataclass(kw_only=True)
class Link:
    """A port, the family that speaks on it and its stream decoder: what one request/response needs."""

    port: Port
    family: ReaderFamily
    response_timeout: float = 0.2
    retries: int = 2
    decoder: StreamDecoder | None = None  # the family's own when not given
    stats: LinkStats = field(default_factory=LinkStats)

    def __post_init__(self) -> None:
        if self.decoder is None:
            self.decoder = self.family.new_decoder()

    def transact(self, request: bytes, accept: Callable[[Frame], T | None]) -> T | None:
        """Send ``request`` and return the first frame ``accept`` takes, or None after a time-out."""
        decoder = self.decoder
        assert decoder is not None
        self.port.discard_input()
        decoder.reset()
        self.port.write(request)
        self.stats.requests += 1
        deadline = time.monotonic() + self.response_timeout
        while (left := deadline - time.monotonic()) > 0:
            holding = decoder.holding
            data = self.port.read(min(left, FRAME_GAP) if holding else left)
            for frame in decoder.feed(data) if data or not holding else decoder.flush():
                taken = accept(frame)
                if taken is not None:
                    return taken
        for frame in decoder.flush():
            taken = accept(frame)
            if taken is not None:
                return taken
        self.stats.timeouts += 1
        return None


def consistent(reply: iso.InventoryReply, mask_len: int, mask_value: int) -> bool:
    return all(iso.matches_mask(t.uid, mask_len, mask_value) and iso.slot_of(t.uid, mask_len) == t.slot
               for t in reply.tags)


def run_inventory(link: Link, *, node: int = 0) -> InventoryResult:
    """Every tag on antenna ``node``. Raises InventoryFailed (or PortGone) when a round gets no answer."""
    started = time.perf_counter()
    out0, in0 = link.port.bytes_out, link.port.bytes_in
    found: set[int] = set()
    pending = [(0, 0)]
    rounds = collided = unresolved = 0
    while pending:
        mask_len, mask_value = pending.pop()
        reply = _one_round(link, node=node, mask_len=mask_len, mask_value=mask_value)
        rounds += 1
        found.update(t.uid for t in reply.tags)
        for slot in reversed(reply.collided_slots):
            collided += 1
            if mask_len + iso.SLOT_BITS > MAX_MASK:
                unresolved += 1
                continue
            pending.append((mask_len + iso.SLOT_BITS, mask_value | slot << mask_len))
    return InventoryResult(uids=tuple(sorted(found)), rounds=rounds, collided_slots=collided, unresolved=unresolved,
                           bytes_out=link.port.bytes_out - out0, bytes_in=link.port.bytes_in - in0,
                           elapsed=time.perf_counter() - started)


def _one_round(link: Link, *, node: int, mask_len: int, mask_value: int) -> iso.InventoryReply:
    request = link.family.inventory_request(node=node, mask_len=mask_len, mask_value=mask_value)

    def accept(frame: Frame) -> iso.InventoryReply | None:
        try:
            reply = link.family.inventory_reply(frame, node=node)
        except ValueError:
            link.stats.malformed_replies += 1
            return None
        if reply is None or not consistent(reply, mask_len, mask_value):
            link.stats.foreign_frames += 1
            return None
        return reply

    for attempt in range(link.retries + 1):
        if attempt:
            link.stats.retries += 1
        reply = link.transact(request, accept)
        if reply is not None:
            return reply
    raise InventoryFailed(f"node {node}: no answer to the inventory round with mask {mask_len} bits "
                          f"0x{mask_value:X} after {link.retries + 1} tries")

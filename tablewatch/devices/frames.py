"""S6350 serial frames: encode, decode one frame strictly, and a streaming decoder that survives a bad line.

Frame layout (both directions, see ``shared/devices/S6350-PROTOCOL.md``)::

    SOF 0x01 | length (2, LSB first, whole frame) | node (2, LSB first) | flags | command | data | chk1 | chk2

``chk1`` is the XOR of every byte from SOF to the last data byte and ``chk2 = chk1 ^ 0xFF``.

The streaming decoder is fed whatever the port returns (noise, frames split over many reads, several
frames in one read) and hands back every frame whose length and checksum hold. It never raises; every
byte that is not part of a good frame is counted in ``DecoderStats``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Literal

SOF = 0x01
HEADER_LEN = 7  # SOF, length (2), node (2), flags, command
MIN_FRAME = HEADER_LEN + 2  # no data, checksum
MAX_FRAME = 512  # the largest response (16 slots x 10 bytes + flags) is 177 bytes; leave room
FLAG_ADDRESSED = 0x10  # request: addressed mode
FLAG_ERROR = 0x10  # response: the reader reports an error


class FrameError(ValueError):
    """Bytes that are not one good frame; the message says which field is wrong."""


@dataclass(frozen=True, kw_only=True)
class Frame:
    node: int = 0
    flags: int = 0
    command: int = 0x60
    data: bytes = b""

    def encode(self) -> bytes:
        return encode_frame(node=self.node, flags=self.flags, command=self.command, data=self.data)

    @property
    def size(self) -> int:
        return MIN_FRAME + len(self.data)

    @property
    def is_error(self) -> bool:
        """Meaningful for responses only (the same bit means 'addressed' in a request)."""
        return bool(self.flags & FLAG_ERROR)


def checksum(body: bytes | bytearray) -> bytes:
    x = 0
    for b in body:
        x ^= b
    return bytes((x, x ^ 0xFF))


def encode_frame(*, node: int = 0, flags: int = 0, command: int = 0x60, data: bytes = b"") -> bytes:
    length = MIN_FRAME + len(data)
    if length > MAX_FRAME:
        raise FrameError(f"A frame holds at most {MAX_FRAME - MIN_FRAME} data bytes, got {len(data)}.")
    if not 0 <= node <= 0xFFFF:
        raise FrameError(f"Node address must be 0..65535, got {node}.")
    body = bytes((SOF, length & 0xFF, length >> 8, node & 0xFF, node >> 8, flags & 0xFF, command & 0xFF)) + data
    return body + checksum(body)


def decode_frame(raw: bytes) -> Frame:
    """Decode exactly one frame; raise FrameError naming the first field that is wrong."""
    if len(raw) < MIN_FRAME:
        raise FrameError(f"A frame has at least {MIN_FRAME} bytes (SOF, length, node, flags, command, checksum); "
                         f"got {len(raw)}.")
    if raw[0] != SOF:
        raise FrameError(f"A frame starts with SOF 0x01; this one starts with 0x{raw[0]:02X}.")
    length = raw[1] | raw[2] << 8
    if length != len(raw):
        raise FrameError(f"The length field says {length} bytes but the frame has {len(raw)}.")
    expected = checksum(raw[:-2])
    if raw[-2:] != expected:
        raise FrameError(f"Checksum is {raw[-2]:02X} {raw[-1]:02X} but the bytes give {expected[0]:02X} "
                         f"{expected[1]:02X}.")
    return Frame(node=raw[3] | raw[4] << 8, flags=raw[5], command=raw[6], data=bytes(raw[HEADER_LEN:-2]))


@dataclass(kw_only=True)
class DecoderStats:
    """What the decoder kept and dropped. ``dropped_bytes`` is the sum of every kind of drop."""

    frames: int = 0
    frame_bytes: int = 0
    noise_bytes: int = 0  # bytes before a SOF
    bad_length: int = 0  # SOF followed by an impossible length
    bad_checksum: int = 0  # a complete candidate whose checksum fails
    bad_command: int = 0  # a good checksum on a command this family does not have (noise that looked like a frame)
    truncated: int = 0  # a candidate cut short by a good frame that followed it, or by flush()
    dropped_bytes: int = 0

    def as_dict(self) -> dict[str, int]:
        return dataclasses.asdict(self)


_NEED_MORE, _BAD_LENGTH, _BAD_CHECKSUM, _BAD_COMMAND, _VALID = range(5)


class StreamDecoder:
    """Turn a byte stream into frames. ``feed`` never raises; ``flush`` settles what is left at a time-out.

    Resynchronisation: a candidate that fails is dropped one byte at a time, so a good frame hidden behind
    noise or a broken frame is always found. A candidate still waiting for bytes gives way to a complete
    good frame that starts later in the buffer (a truncated frame followed by a good one). A complete
    candidate that would swallow the start of a later frame waits (``holding``) until that frame is settled
    and gives way to it when it is good. With ``commands`` given, a frame naming another command is noise.
    """

    def __init__(self, *, max_frame: int = MAX_FRAME, commands: frozenset[int] | None = None) -> None:
        self.max_frame = max_frame
        self.commands = commands  # command bytes a frame of this family can carry (None: any)
        self.stats = DecoderStats()
        self._buf = bytearray()
        self._holding = False

    @property
    def pending(self) -> int:
        return len(self._buf)

    def feed(self, data: bytes) -> list[Frame]:
        self._buf += data
        return self._scan(final=False)

    def flush(self) -> list[Frame]:
        """No more bytes are coming (a read time-out): emit what is whole, drop the rest."""
        return self._scan(final=True)

    def reset(self) -> None:
        """Forget buffered bytes (counted as truncated) before a new request."""
        if self._buf:
            self.stats.truncated += 1
            self._drop(len(self._buf))

    def _drop(self, n: int) -> None:
        del self._buf[:n]
        self.stats.dropped_bytes += n

    def _check(self, pos: int) -> tuple[int, int]:
        buf = self._buf
        if len(buf) - pos < 3:
            return _NEED_MORE, 0
        length = buf[pos + 1] | buf[pos + 2] << 8
        if not MIN_FRAME <= length <= self.max_frame:
            return _BAD_LENGTH, length
        if len(buf) - pos < length:
            return _NEED_MORE, length
        end = pos + length
        if bytes(buf[end - 2:end]) != checksum(buf[pos:end - 2]):
            return _BAD_CHECKSUM, length
        if self.commands is not None and buf[pos + 6] not in self.commands:
            return _BAD_COMMAND, length
        return _VALID, length

    def _sofs(self, start: int, stop: int) -> list[int]:
        found, buf = [], self._buf
        i = buf.find(SOF, start, stop)
        while i >= 0:
            found.append(i)
            i = buf.find(SOF, i + 1, stop)
        return found

    @property
    def holding(self) -> bool:
        """A complete good frame is held back until a frame that may overlap it settles: the reader should
        flush() if the line stays quiet for a few byte times."""
        return self._holding

    def _scan(self, *, final: bool) -> list[Frame]:
        out: list[Frame] = []
        self._holding = False
        while self._buf:
            start = self._buf.find(SOF)
            if start < 0:
                self.stats.noise_bytes += len(self._buf)
                self._drop(len(self._buf))
                break
            if start:
                self.stats.noise_bytes += start
                self._drop(start)
            state, length = self._check(0)
            if state == _BAD_LENGTH:
                self.stats.bad_length += 1
                self._drop(1)
            elif state == _BAD_CHECKSUM:
                self.stats.bad_checksum += 1
                self._drop(1)
            elif state == _BAD_COMMAND:
                self.stats.bad_command += 1
                self._drop(1)
            elif state == _NEED_MORE:
                later = self._later_good_frame(1, len(self._buf))
                if later is not None or final:
                    self.stats.truncated += 1
                    self._drop(later if later is not None else 1)
                else:
                    break
            else:
                verdict = self._overlap(length, final=final)
                if verdict == "wait":
                    self._holding = True
                    break
                if verdict is not None:  # a good frame starts inside this candidate and runs to or past its end
                    self.stats.truncated += 1
                    self._drop(verdict)
                    continue
                out.append(self._take(length))
        return out

    def _later_good_frame(self, start: int, stop: int) -> int | None:
        for pos in self._sofs(start, stop):
            if self._check(pos)[0] == _VALID:
                return pos
        return None

    def _overlap(self, length: int, *, final: bool) -> int | Literal["wait"] | None:
        """Position of a good frame that starts inside the candidate and runs to or past its end; "wait"
        while such a frame may still be arriving; None when the candidate stands alone."""
        for pos in self._sofs(1, length):
            verdict = self._inner(pos, length)
            if verdict == "good":
                return pos
            if verdict == "maybe" and not final:
                return "wait"
        return None

    def _inner(self, pos: int, outer: int) -> Literal["good", "maybe", "no"]:
        """Could the SOF at ``pos`` start a real frame reaching the end of the candidate of ``outer`` bytes?"""
        buf = self._buf
        visible = len(buf) - pos
        if visible < 3:
            return "maybe"
        length = buf[pos + 1] | buf[pos + 2] << 8
        if not MIN_FRAME <= length <= self.max_frame or pos + length < outer:
            return "no"
        if visible >= HEADER_LEN and self.commands is not None and buf[pos + 6] not in self.commands:
            return "no"
        if visible < length:
            return "maybe"
        return "good" if self._check(pos)[0] == _VALID else "no"

    def _take(self, length: int) -> Frame:
        raw = bytes(self._buf[:length])
        del self._buf[:length]
        self.stats.frames += 1
        self.stats.frame_bytes += length
        return decode_frame(raw)

"""Frames: exact bytes, strict decoding with clear errors, and a streaming decoder that survives a bad line."""

from __future__ import annotations

import itertools
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablewatch.devices.frames import Frame, FrameError, StreamDecoder, checksum, decode_frame, encode_frame
from tablewatch.devices.s6350 import S6350

# An inventory request with an empty mask, worked out by hand from the protocol summary:
# SOF, length 13 (0D 00), node 0000, flags 00, command 60, config 00, ISO flags 06, ISO inventory 01,
# mask length 00, then XOR of those 11 bytes = 0x6B and 0x6B ^ 0xFF = 0x94.
INVENTORY_REQUEST = bytes.fromhex("01 0D 00 00 00 00 60 00 06 01 00 6B 94")


def test_inventory_request_bytes_match_the_protocol() -> None:
    assert S6350().inventory_request(node=0, mask_len=0, mask_value=0) == INVENTORY_REQUEST
    assert checksum(INVENTORY_REQUEST[:-2]) == bytes((0x6B, 0x94))


def test_encode_then_decode_gives_the_same_frame() -> None:
    frame = Frame(node=0x1234, flags=0x10, command=0x60, data=bytes(range(40)))
    raw = frame.encode()
    assert raw[1] | raw[2] << 8 == len(raw) == 9 + 40
    assert raw[3:5] == bytes((0x34, 0x12))  # node address LSB first
    assert decode_frame(raw) == frame


@pytest.mark.parametrize(("raw", "message"), [
    (bytes.fromhex("01 0D 00"), "at least 9 bytes"),
    (bytes.fromhex("02") + INVENTORY_REQUEST[1:], "starts with 0x02"),
    (INVENTORY_REQUEST[:1] + bytes((0x0E, 0x00)) + INVENTORY_REQUEST[3:], "length field says 14"),
    (INVENTORY_REQUEST[:-1] + bytes((0x95,)), "Checksum is 6B 95 but the bytes give 6B 94"),
])
def test_decode_frame_names_what_is_wrong(raw: bytes, message: str) -> None:
    with pytest.raises(FrameError, match=message):
        decode_frame(raw)


def test_encode_rejects_too_much_data() -> None:
    with pytest.raises(FrameError, match="at most 503 data bytes"):
        encode_frame(data=bytes(600))


def _frame(data: bytes, node: int = 0) -> bytes:
    return encode_frame(node=node, command=0x60, data=data)


def test_noise_before_a_frame_is_counted_and_the_frame_kept() -> None:
    dec = S6350().new_decoder()
    assert dec.feed(b"\xff\x00\x55" + INVENTORY_REQUEST) == [decode_frame(INVENTORY_REQUEST)]
    assert dec.stats.noise_bytes == 3 and dec.stats.dropped_bytes == 3 and dec.stats.frames == 1


def test_a_frame_split_over_many_reads() -> None:
    dec = S6350().new_decoder()
    raw = _frame(bytes(range(100, 160)))
    out = [f for b in raw for f in dec.feed(bytes((b,)))]
    assert out == [decode_frame(raw)] and dec.pending == 0


def test_wrong_length_and_wrong_checksum_are_skipped_and_counted() -> None:
    good = _frame(b"\x06\x07")
    bad_length = b"\x01\xff\xff" + b"\x00" * 4
    bad_checksum = good[:-1] + bytes((good[-1] ^ 0x01,))
    dec = S6350().new_decoder()
    frames = dec.feed(bad_length + bad_checksum + good)
    assert frames == [decode_frame(good)]
    assert dec.stats.bad_length >= 1 and dec.stats.bad_checksum == 1


def test_a_truncated_frame_followed_by_a_good_one() -> None:
    first, second = _frame(bytes(range(30)), node=1), _frame(bytes(range(30)), node=2)
    dec = S6350().new_decoder()
    frames = dec.feed(first[:20] + second)
    assert frames == [decode_frame(second)]
    assert dec.stats.dropped_bytes == 20  # the whole truncated frame, nothing of the good one
    assert dec.stats.truncated + dec.stats.bad_checksum >= 1


def test_flush_settles_a_partial_frame_at_a_time_out() -> None:
    dec = S6350().new_decoder()
    assert dec.feed(INVENTORY_REQUEST[:7]) == []
    assert dec.flush() == [] and dec.pending == 0 and dec.stats.dropped_bytes == 7


# --- fuzz: random, truncated, duplicated and corrupted streams --------------------------------------------

# TABLEWATCH_FUZZ_EXAMPLES=20000 for a deeper run than the test suite's
FUZZ = settings(max_examples=int(os.environ.get("TABLEWATCH_FUZZ_EXAMPLES", "300")),
                suppress_health_check=[HealthCheck.too_slow], deadline=None)

frames = st.builds(lambda node, flags, data: encode_frame(node=node, flags=flags, command=0x60, data=data),
                   st.integers(0, 0xFFFF), st.sampled_from([0x00, 0x10]), st.binary(max_size=60))


@st.composite
def damaged(draw: st.DrawFn) -> bytes:
    """Garbage a line produces: random bytes, a truncated frame, a frame with a flipped byte, a repeated piece."""
    raw = draw(frames)
    kind = draw(st.sampled_from(["random", "truncated", "flipped", "duplicated"]))
    if kind == "random":
        return draw(st.binary(min_size=1, max_size=40))
    if kind == "truncated":
        return raw[:draw(st.integers(1, len(raw) - 1))]
    if kind == "flipped":
        i = draw(st.integers(0, len(raw) - 1))
        return raw[:i] + bytes((raw[i] ^ draw(st.integers(1, 255)),)) + raw[i + 1:]
    cut = draw(st.integers(1, len(raw) - 1))
    return raw[:cut] + raw[:cut]


def _chunked(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in itertools.pairwise(points)]


@FUZZ
@given(st.binary(max_size=300), st.lists(st.integers(0, 400), max_size=20))
def test_fuzz_random_bytes_never_raise_and_every_byte_is_accounted(data: bytes, cuts: list[int]) -> None:
    dec = S6350().new_decoder()
    out = [f for chunk in _chunked(data, cuts) for f in dec.feed(chunk)] + dec.flush()
    assert dec.stats.frame_bytes + dec.stats.dropped_bytes == len(data)
    assert dec.stats.frames == len(out) and dec.pending == 0


@FUZZ
@given(st.lists(st.tuples(st.booleans(), frames, damaged()), min_size=1, max_size=8), frames,
       st.lists(st.integers(0, 2000), max_size=30))
def test_fuzz_no_good_frame_is_lost_behind_garbage(segments: list[tuple[bool, bytes, bytes]], last: bytes,
                                                   cuts: list[int]) -> None:
    """Good frames interleaved with damaged ones: every good frame comes out, in order, the drops are counted."""
    stream, good = b"", []
    for is_good, frame, garbage in segments:
        stream += frame if is_good else garbage
        if is_good:
            good.append(decode_frame(frame))
    stream += last
    good.append(decode_frame(last))
    dec = S6350().new_decoder()
    out = [f for chunk in _chunked(stream, cuts) for f in dec.feed(chunk)] + dec.flush()
    it = iter(out)
    assert all(any(f == g for f in it) for g in good), "a good frame was lost"
    assert dec.stats.frame_bytes + dec.stats.dropped_bytes == len(stream)
    garbage_bytes = sum(len(g) for ok, _, g in segments if not ok)
    assert dec.stats.dropped_bytes <= garbage_bytes


def test_a_plain_decoder_without_command_set_also_recovers() -> None:
    dec = StreamDecoder()
    good = _frame(b"\x01\x02\x03")
    assert dec.feed(b"\x01\x20\x00" + good) == [decode_frame(good)]

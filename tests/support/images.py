"""Image files that claim a huge size in their header: a few bytes that would decode to gigabytes."""

from __future__ import annotations

import struct
import zlib


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def huge_png(width: int = 30_000, height: int = 30_000) -> bytes:
    """A PNG header for a grey image of width×height, and the start of its (all-black) pixel data."""
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    rows = zlib.compressobj().compress(b"\0" * (width + 1) * 4)
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", rows) + _chunk(b"IEND", b"")


def huge_jpeg(width: int = 60_000, height: int = 60_000) -> bytes:
    """A JPEG's markers up to its frame header (SOF0) for a width×height colour image."""
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\0\x01\x01\0\0\x01\0\x01\0\0"
    sof0 = b"\xff\xc0" + struct.pack(">HBHHB", 17, 8, height, width, 3) + b"\x01\x22\x00\x02\x11\x01\x03\x11\x01"
    return b"\xff\xd8" + app0 + sof0 + b"\xff\xd9"

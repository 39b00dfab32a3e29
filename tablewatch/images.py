"""Image files read safely: the size is taken from the file's header and an image too large is refused before
it is decoded (a 30000×30000 PNG of a few kilobytes decodes to 2.7 GB).

``read_image_file(path)`` is the one way the product decodes a photo from a file; ``image_size(data)`` reads
the width and height from the header of PNG, JPEG, BMP, GIF, WebP, TIFF and PNM (PPM/PGM/PBM) files.
"""

from __future__ import annotations

import re
import struct
from pathlib import Path

import cv2
import numpy as np

MAX_IMAGE_PIXELS = 100_000_000  # 100 megapixels: far above any table camera (a 4K frame is 8.3)
MAX_IMAGE_BYTES = 256 * 2**20  # a photo's file; the header is read from the whole of it (TIFF puts it anywhere)
FORMATS = "PNG, JPEG, BMP, GIF, WebP, TIFF, PNM"


class ImageError(ValueError):
    """An image file that is not read; the message names the file and says why."""


def read_image_file(path: str | Path, flags: int = cv2.IMREAD_COLOR, *,
                    max_pixels: int = MAX_IMAGE_PIXELS) -> np.ndarray:
    """The decoded image; ImageError if the file is missing, unreadable, not an image or over ``max_pixels``."""
    path = Path(path)
    if not path.exists():
        raise ImageError(f"image not found: {path}")
    if not path.is_file():
        raise ImageError(f"not a file: {path}")
    try:
        if path.stat().st_size > MAX_IMAGE_BYTES:
            raise ImageError(f"{path}: the file is over {MAX_IMAGE_BYTES // 2**20} MB; not read as an image")
        data = np.fromfile(path, dtype=np.uint8)
    except OSError as exc:
        raise ImageError(f"cannot read image {path}: {exc.strerror or exc}") from exc
    size = image_size(data.tobytes())
    if size is None:
        raise ImageError(f"not a readable image (empty, truncated or not {FORMATS}): {path}")
    check_pixels(size, str(path), max_pixels=max_pixels)
    image = cv2.imdecode(data, flags)
    if image is None:
        raise ImageError(f"not a readable image (empty, truncated or an unknown format): {path}")
    return image


def check_pixels(size: tuple[int, int], name: str, *, max_pixels: int = MAX_IMAGE_PIXELS) -> None:
    width, height = size
    if width * height > max_pixels:
        raise ImageError(f"{name}: {width}x{height} is {width * height / 1e6:.0f} megapixels, over the limit of "
                         f"{max_pixels / 1e6:.0f}; scale it down first")


def image_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from the header, or None if it is not one of the formats read here or is cut short."""
    for reader in (_png, _jpeg, _bmp, _gif, _webp, _tiff, _pnm):
        try:
            size = reader(data)
        except (struct.error, IndexError, ValueError):
            return None
        if size is not None:
            return size if size[0] > 0 and size[1] > 0 else None
    return None


def _png(data: bytes) -> tuple[int, int] | None:
    if not data.startswith(b"\x89PNG\r\n\x1a\n") or data[12:16] != b"IHDR":
        return None
    width, height = struct.unpack(">II", data[16:24])
    return width, height


_SOF_MARKERS = {*range(0xC0, 0xC4), *range(0xC5, 0xC8), *range(0xC9, 0xCC), *range(0xCD, 0xD0)}


def _jpeg(data: bytes) -> tuple[int, int] | None:
    if not data.startswith(b"\xff\xd8"):
        return None
    at = 2
    while at + 4 <= len(data):
        if data[at] != 0xFF:
            raise ValueError("not at a JPEG marker")
        marker = data[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if marker in (0x01, *range(0xD0, 0xD8)):  # markers without a length
            at += 2
            continue
        (length,) = struct.unpack(">H", data[at + 2:at + 4])
        if marker in _SOF_MARKERS:
            height, width = struct.unpack(">HH", data[at + 5:at + 9])
            return width, height
        at += 2 + length
    raise ValueError("no JPEG frame header")


def _bmp(data: bytes) -> tuple[int, int] | None:
    if not data.startswith(b"BM"):
        return None
    (header,) = struct.unpack("<I", data[14:18])
    if header == 12:  # OS/2 BITMAPCOREHEADER
        width, height = struct.unpack("<HH", data[18:22])
        return width, height
    width, height = struct.unpack("<ii", data[18:26])
    return abs(width), abs(height)  # a negative height is a top-down bitmap


def _gif(data: bytes) -> tuple[int, int] | None:
    if data[:6] not in (b"GIF87a", b"GIF89a"):
        return None
    width, height = struct.unpack("<HH", data[6:10])
    return width, height


def _webp(data: bytes) -> tuple[int, int] | None:
    if data[:4] != b"RIFF" or data[8:12] != b"WEBP":
        return None
    chunk = data[12:16]
    if chunk == b"VP8 ":
        width, height = struct.unpack("<HH", data[26:30])
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L":
        (bits,) = struct.unpack("<I", data[21:25])
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X":
        return int.from_bytes(data[24:27], "little") + 1, int.from_bytes(data[27:30], "little") + 1
    raise ValueError("unknown WebP chunk")


def _tiff(data: bytes) -> tuple[int, int] | None:
    order = {b"II*\x00": "<", b"MM\x00*": ">"}.get(data[:4])
    if order is None:
        return None
    (ifd,) = struct.unpack(order + "I", data[4:8])
    (count,) = struct.unpack(order + "H", data[ifd:ifd + 2])
    found: dict[int, int] = {}
    for k in range(count):
        entry = data[ifd + 2 + 12 * k:ifd + 14 + 12 * k]
        tag, kind = struct.unpack(order + "HH", entry[:4])
        if tag in (256, 257):
            found[tag] = struct.unpack(order + ("H" if kind == 3 else "I"), entry[8:10 if kind == 3 else 12])[0]
    return (found[256], found[257]) if len(found) == 2 else None


_PNM = re.compile(rb"P[1-6](?:\s+|#[^\n]*\n)+(\d+)(?:\s+|#[^\n]*\n)+(\d+)")
_PAM = re.compile(rb"P7\s.*?WIDTH\s+(\d+).*?HEIGHT\s+(\d+)", re.DOTALL)


def _pnm(data: bytes) -> tuple[int, int] | None:
    head = data[:1024]
    found = _PNM.match(head) or _PAM.match(head)
    return (int(found.group(1)), int(found.group(2))) if found else None

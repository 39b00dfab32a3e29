"""A still photo read at two sizes: a geometry copy (~1,200 px) where the table, cards and chips are found,
and a high-resolution copy (a big JPEG decoded at a half or a quarter of its size, never more than needed)
where card indices are read. The size is read from the file's header and checked against the product's pixel
limit before anything is decoded (``tablewatch.images``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from tablewatch.images import MAX_IMAGE_BYTES, MAX_IMAGE_PIXELS, ImageError, check_pixels, image_size

GEOMETRY_SIDE = 1200  # px: the long side of the copy the geometry is found on
DETAIL_SIDE = 2000  # px: the high-resolution copy keeps at least this long side (a card ~150 px wide)
REDUCED = {1: cv2.IMREAD_COLOR, 2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4,
           8: cv2.IMREAD_REDUCED_COLOR_8}


@dataclass
class Still:
    path: str
    size: tuple[int, int]  # the file's (width, height)
    detail: np.ndarray  # BGR, the high-resolution copy
    geometry: np.ndarray  # BGR, the geometry copy
    detail_per_geometry: float  # detail px per geometry px

    def to_original(self, xy: np.ndarray) -> np.ndarray:
        """Geometry px → the file's own pixels."""
        result: np.ndarray = np.asarray(xy, np.float64) * (self.size[0] / self.geometry.shape[1])
        return result


def load_still(path: str | Path, *, max_pixels: int = MAX_IMAGE_PIXELS) -> Still:
    """The still at ``path``; ImageError (a ValueError) naming the file when it is missing, unreadable, not an
    image or over ``max_pixels``."""
    path = Path(path)
    if not path.is_file():
        raise ImageError(f"image not found: {path}" if not path.exists() else f"not a file: {path}")
    try:
        if path.stat().st_size > MAX_IMAGE_BYTES:
            raise ImageError(f"{path}: the file is over {MAX_IMAGE_BYTES // 2**20} MB; not read as an image")
        with path.open("rb") as handle:
            head = handle.read()
    except OSError as exc:
        raise ImageError(f"cannot read image {path}: {exc.strerror or exc}") from exc
    size = image_size(head)
    if size is None:
        raise ImageError(f"not a readable image (empty, truncated or not a supported format): {path}")
    check_pixels(size, str(path), max_pixels=max_pixels)
    factor = 1
    while factor < 8 and max(size) / (factor * 2) >= DETAIL_SIDE:
        factor *= 2
    detail = cv2.imdecode(np.frombuffer(head, np.uint8), REDUCED[factor])
    if detail is None:
        raise ImageError(f"not a readable image (empty, truncated or an unknown format): {path}")
    scale = GEOMETRY_SIDE / max(detail.shape[:2])
    geometry = cv2.resize(detail, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else detail
    return Still(path=str(path), size=size, detail=detail, geometry=geometry,
                 detail_per_geometry=detail.shape[1] / geometry.shape[1])

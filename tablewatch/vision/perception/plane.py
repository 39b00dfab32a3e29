"""The table plane: a calibrated camera frame resampled top-down in millimetres, with the layout's zones.

Everything in perception works on this rectified picture (``px_per_mm`` pixels per mm, x right, y towards
the dealer, as the layout draws it), so zones are fixed masks and sizes are in millimetres whatever the
camera. ``crop`` resamples a small part of the original frame at a high scale for card identity. A frame whose
picture lies off the calibration by a shake of the mount (``steady.Steadier``) is sampled that far on (``shift``).

A frame may come reduced by 2, 4 or 8 (a 4K camera's JPEG decoded straight to a quarter of its size):
``reduction`` says how far it can be reduced and still hold the plane's pixels, ``rectify`` takes it so.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from tablewatch.calibration.camera import TableCalibration
from tablewatch.calibration.layout import TableLayout

MARGIN_MM = 220.0  # beyond the rail: where arms come from
MAP_STEP = 8  # the pixel → mm mapping is smooth: compute it every this many plane pixels and interpolate
REDUCTIONS = (1, 2, 4, 8)  # what a JPEG decodes to directly (tablewatch.vision.sources.Frame.reduced)


def plane_frame(layout: TableLayout, px_per_mm: float) -> tuple[tuple[float, float], tuple[int, int]]:
    """Where a layout's plane picture lies, whatever the camera: the table mm at its pixel (0, 0) and its size
    (w, h) in pixels, the layout's extent and MARGIN_MM beyond it."""
    x0, y0, x1, y1 = layout.extent
    origin = (x0 - MARGIN_MM, y0 - MARGIN_MM)
    return origin, (round((x1 - x0 + 2 * MARGIN_MM) * px_per_mm), round((y1 - y0 + 2 * MARGIN_MM) * px_per_mm))


class TablePlane:
    """Rectification maps from one calibration, and the zone masks on the rectified plane."""

    def __init__(self, calibration: TableCalibration, layout: TableLayout, *, px_per_mm: float = 0.3) -> None:
        self.calibration, self.layout, self.scale = calibration, layout, px_per_mm
        self.origin, self.size = plane_frame(layout, px_per_mm)
        self._exact = {1: self._build_maps(1)}  # per reduction of the frame: where each plane pixel lies in it
        self._maps = {1: cv2.convertMaps(*self._exact[1], cv2.CV_16SC2)}  # ... as remap reads them fastest
        self.shift = (0.0, 0.0)  # frame pixels: how far the frame being read lies off the calibration (a shake)
        self.felt = self.mask(layout.polygon("felt"))
        self.zone_masks = {name: self.mask(layout.polygon(name)) for name in layout.zone_names()}
        self.lines = self._static_marks()
        # what ``crop`` does to a crop of the camera's frame for the light where it was taken (``Perception``)
        self.lighting: Callable[[np.ndarray, tuple[float, float]], np.ndarray] | None = None

    def _build_maps(self, reduction: int) -> tuple[np.ndarray, np.ndarray]:
        """Per plane pixel, the x and y of the frame reduced by ``reduction`` it comes from."""
        w, h = self.size
        gw, gh = w // MAP_STEP + 2, h // MAP_STEP + 2
        gx, gy = np.meshgrid(np.arange(gw) * MAP_STEP, np.arange(gh) * MAP_STEP)
        mm = np.stack([gx.ravel(), gy.ravel()], axis=1) / self.scale + self.origin
        # pixel j of a frame reduced by k averages pixels k·j … k·j + k - 1 of the full frame
        px = ((self.calibration.mm_to_px(mm) - (reduction - 1) / 2) / reduction).astype(np.float32)
        big = [cv2.resize(px[:, k].reshape(gh, gw), ((gw - 1) * MAP_STEP + 1, (gh - 1) * MAP_STEP + 1),
                          interpolation=cv2.INTER_LINEAR)[:h, :w] for k in (0, 1)]
        return big[0], big[1]

    def _static_marks(self) -> np.ndarray:
        """Printed betting lines and zone outlines: never objects, whatever their colour."""
        out = np.zeros(self.size[::-1], np.uint8)
        for seat in self.layout.seats:
            cv2.polylines(out, [self.to_px(np.asarray(seat.line))], False, 255, 3)
        for name in ("board", "pot"):
            cv2.polylines(out, [self.to_px(self.layout.polygon(name))], True, 255, 3)
        return out

    # --- coordinates ------------------------------------------------------------------------------------

    def to_px(self, points_mm: np.ndarray) -> np.ndarray:
        return np.round((np.asarray(points_mm, float) - self.origin) * self.scale).astype(np.int32)

    def on_felt(self, at_mm: tuple[float, float]) -> bool:
        """Whether a point of the table (mm) lies on the felt."""
        x, y = self.to_px(np.asarray(at_mm, float))
        return bool(0 <= y < self.felt.shape[0] and 0 <= x < self.felt.shape[1] and self.felt[y, x])

    def to_mm(self, points_px: np.ndarray) -> np.ndarray:
        return np.asarray(points_px, float) / self.scale + self.origin

    def felt_colour(self, flat: np.ndarray) -> np.ndarray:
        """The felt's colour in a picture of the plane (BGR): the median over the felt off the printed lines (most
        of it is bare whatever lies on it)."""
        colour: np.ndarray = np.median(flat[self.felt & (self.lines == 0)], axis=0)
        return colour

    def mask(self, polygon_mm: np.ndarray) -> np.ndarray:
        out = np.zeros(self.size[::-1], np.uint8)
        cv2.fillPoly(out, [self.to_px(polygon_mm)], 255)
        return out > 0

    # --- pictures ---------------------------------------------------------------------------------------

    def reduction(self) -> int:
        """The most a frame may be reduced (1, 2, 4 or 8) and still have as many pixels per mm at the table's
        centre as the plane: the plane then loses nothing, and the reduction has averaged what it drops."""
        native = 1.0 / max(self.calibration.mm_per_px, 1e-6)
        return max(k for k in REDUCTIONS if native / k >= self.scale or k == 1)

    def frame_size(self, reduction: int = 1) -> tuple[int, int]:
        """(width, height) of the calibrated camera's frame reduced by ``reduction`` (rounded up)."""
        w, h = self.calibration.image_size
        return -(-w // reduction), -(-h // reduction)

    def rectify(self, frame: np.ndarray, *, reduction: int = 1, nearest: bool = False) -> np.ndarray:
        """The plane from a frame of the calibrated camera, whole or reduced by ``reduction`` (2, 4 or 8);
        ``nearest`` takes each plane pixel's nearest frame pixel (for label images, whose values don't mix)."""
        w, h = self.calibration.image_size
        size = self.frame_size(reduction)
        if (frame.shape[1], frame.shape[0]) != size:
            reduced = f" reduced by {reduction}: {size[0]}x{size[1]}" if reduction > 1 else ""
            raise ValueError(f"frame is {frame.shape[1]}x{frame.shape[0]}, the calibration is for {w}x{h}{reduced}")
        if reduction not in self._maps:
            self._exact[reduction] = self._build_maps(reduction)
            self._maps[reduction] = cv2.convertMaps(*self._exact[reduction], cv2.CV_16SC2)
        interpolation = cv2.INTER_NEAREST if nearest else cv2.INTER_LINEAR
        if self.shift != (0.0, 0.0):
            (map_x, map_y), (dx, dy) = self._exact[reduction], self.shift
            return cv2.remap(frame, map_x + np.float32(dx / reduction), map_y + np.float32(dy / reduction),
                             interpolation, borderValue=(0, 0, 0))
        map1, map2 = self._maps[reduction]
        return cv2.remap(frame, map1, map2, interpolation, borderValue=(0, 0, 0))

    def crop(self, frame: np.ndarray, centre_mm: tuple[float, float], *, size_mm: tuple[float, float],
             px_per_mm: float, angle_deg: float = 0.0) -> np.ndarray:
        """A top-down crop of ``frame`` centred on ``centre_mm``, rotated by ``angle_deg``, at ``px_per_mm``."""
        w, h = round(size_mm[0] * px_per_mm), round(size_mm[1] * px_per_mm)
        u, v = np.meshgrid(np.arange(w) - w / 2 + 0.5, np.arange(h) - h / 2 + 0.5)
        a = np.radians(angle_deg)
        x = centre_mm[0] + (u * np.cos(a) - v * np.sin(a)) / px_per_mm
        y = centre_mm[1] + (u * np.sin(a) + v * np.cos(a)) / px_per_mm
        px = (self.calibration.mm_to_px(np.stack([x.ravel(), y.ravel()], axis=1)) + self.shift).astype(np.float32)
        crop = cv2.remap(frame, px[:, 0].reshape(h, w), px[:, 1].reshape(h, w), cv2.INTER_LINEAR)
        return crop if self.lighting is None else self.lighting(crop, centre_mm)

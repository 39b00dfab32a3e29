"""Pictures of a layout: a top-down drawing with its markers, and the zone overlay a person checks.

``draw_top_down`` is a plain plan of the table (felt, rail, zone outlines, ArUco markers) at a given
scale; warped through a camera model it makes test images with a known answer. ``draw_overlay`` draws
the zones onto a camera image through a mapping mm → pixels.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from tablewatch.calibration import geometry
from tablewatch.calibration.layout import TableLayout
from tablewatch.events import Zone

MmToPx = Callable[[np.ndarray], np.ndarray]  # (N, 2) mm -> (N, 2) px

FELT = (60, 120, 40)  # BGR
RAIL = (40, 45, 70)
FLOOR = (70, 70, 70)
ZONE_COLOURS = {
    "stack": (255, 200, 0),
    "bet": (0, 220, 255),
    "line": (0, 0, 255),
    "pot": (255, 0, 255),
    "board": (255, 255, 255),
    "burn": (0, 128, 255),
    "muck": (128, 0, 255),
    "tray": (200, 200, 0),
    "dealer": (0, 255, 128),
}


def aruco_dictionary(name: str) -> cv2.aruco.Dictionary:
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))


def table_to_top_down(layout: TableLayout, px_per_mm: float, *, margin_mm: float = 100.0) -> np.ndarray:
    """The 3×3 matrix taking table mm to pixels of ``draw_top_down``'s image (no flip: y grows downwards)."""
    x0, y0, _, _ = layout.extent
    return np.array(
        [[px_per_mm, 0, (margin_mm - x0) * px_per_mm], [0, px_per_mm, (margin_mm - y0) * px_per_mm], [0, 0, 1]]
    )


def draw_top_down(
    layout: TableLayout, px_per_mm: float = 0.5, *, margin_mm: float = 100.0, outlines: bool = True
) -> np.ndarray:
    """A BGR plan of the table: floor, rail, felt, zone outlines (optional) and the ArUco markers."""
    x0, y0, x1, y1 = layout.extent
    size = (round((x1 - x0 + 2 * margin_mm) * px_per_mm), round((y1 - y0 + 2 * margin_mm) * px_per_mm))
    image = np.full((size[1], size[0], 3), FLOOR, np.uint8)
    h = table_to_top_down(layout, px_per_mm, margin_mm=margin_mm)

    def to_px(points: np.ndarray) -> np.ndarray:
        return _apply(h, points)

    _fill(image, to_px(layout.polygon("rail")), RAIL)
    _fill(image, to_px(layout.polygon("felt")), FELT)
    if outlines:
        draw_zones(image, layout, to_px, thickness=max(1, round(2 * px_per_mm)), labels=False)
    draw_markers(image, layout, to_px, px_per_mm=px_per_mm)
    return image


def draw_markers(image: np.ndarray, layout: TableLayout, to_px: MmToPx, *, px_per_mm: float) -> None:
    """Each marker as printed: the ArUco pattern warped onto its corners, on a white quiet zone."""
    dictionary = aruco_dictionary(layout.dictionary)
    side = 6 * 20  # 4x4 bits + border, 20 px per module
    for marker in layout.markers:
        corners = np.asarray(marker.corners, np.float64)
        centre = corners.mean(axis=0)
        grow = 1 + 2 * layout.marker_quiet_zone_mm / marker.size_mm
        _fill(image, to_px(centre + (corners - centre) * grow), (255, 255, 255))
        pattern = cv2.aruco.generateImageMarker(dictionary, marker.id, side)
        src = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32) - 0.5  # pixel edges
        dst = to_px(corners).astype(np.float32)
        m = cv2.getPerspectiveTransform(src, dst)
        warped = cv2.warpPerspective(pattern, m, (image.shape[1], image.shape[0]), flags=cv2.INTER_AREA)
        mask = cv2.warpPerspective(np.full_like(pattern, 255), m, (image.shape[1], image.shape[0]))
        sel = mask > 127
        image[sel] = np.repeat(warped[sel][:, None], 3, axis=1)


def draw_zones(
    image: np.ndarray, layout: TableLayout, to_px: MmToPx, *, thickness: int = 2, labels: bool = True
) -> np.ndarray:
    """Outline every zone, betting line and player position; labels name them. Draws in place."""
    for name in layout.zone_names():
        pts = to_px(densify(layout.polygon(name), closed=True))
        colour = _zone_colour(name)
        cv2.polylines(image, [np.round(pts).astype(np.int32)], True, colour, thickness, cv2.LINE_AA)
        if labels and not name.startswith("board."):
            _label(image, _short(name), pts)
    for seat in layout.seats:
        line = to_px(densify(geometry.as_array(seat.line), closed=False))
        cv2.polylines(image, [np.round(line).astype(np.int32)], False, ZONE_COLOURS["line"], thickness + 1, cv2.LINE_AA)
        player = to_px(np.asarray([seat.player]))[0]
        cv2.circle(image, (int(player[0]), int(player[1])), 3 * thickness, ZONE_COLOURS["line"], -1, cv2.LINE_AA)
    for name in ("felt", "rail"):
        cv2.polylines(image, [np.round(to_px(layout.polygon(name))).astype(np.int32)], True, (230, 230, 230), 1)
    return image


def draw_overlay(
    image: np.ndarray,
    layout: TableLayout,
    to_px: MmToPx,
    *,
    detected: dict[int, np.ndarray] | None = None,
    caption: str = "",
) -> np.ndarray:
    """A copy of ``image`` with the zones and the expected (blue) and detected (green) marker corners."""
    out = image.copy()
    if out.ndim == 2:
        out = cv2.cvtColor(out, cv2.COLOR_GRAY2BGR)
    thickness = max(1, round(out.shape[1] / 900))
    draw_zones(out, layout, to_px, thickness=thickness)
    for mid, corners in layout.marker_corners().items():
        pts = np.round(to_px(corners)).astype(np.int32)
        cv2.polylines(out, [pts], True, (255, 0, 0), thickness, cv2.LINE_AA)
        _label(out, f"id{mid}", pts.astype(np.float64))
    for corners in (detected or {}).values():
        for p in np.asarray(corners).reshape(-1, 2):
            cv2.circle(out, (round(p[0]), round(p[1])), 2 * thickness + 1, (0, 255, 0), thickness)
    _legend(out, caption)
    return out


LEGEND = (
    ("stack", ZONE_COLOURS["stack"]),
    ("bet", ZONE_COLOURS["bet"]),
    ("betting line", ZONE_COLOURS["line"]),
    ("player (dot)", ZONE_COLOURS["line"]),
    ("marker (layout)", (255, 0, 0)),
    ("marker (seen)", (0, 255, 0)),
)


def _legend(image: np.ndarray, caption: str) -> None:
    """The caption on a dark band at the top, and what the colours mean."""
    font, scale = cv2.FONT_HERSHEY_SIMPLEX, 0.5
    cv2.rectangle(image, (0, 0), (image.shape[1], 24), (20, 20, 20), -1)
    cv2.putText(image, caption, (8, 17), font, scale, (255, 255, 255), 1, cv2.LINE_AA)
    x = image.shape[1] - 8
    for text, colour in reversed(LEGEND):
        width = cv2.getTextSize(text, font, 0.4, 1)[0][0]
        x -= width + 22
        cv2.rectangle(image, (x, 8), (x + 10, 16), colour, -1)
        cv2.putText(image, text, (x + 14, 17), font, 0.4, (255, 255, 255), 1, cv2.LINE_AA)


def densify(points: np.ndarray, *, closed: bool, step_mm: float = 20.0) -> np.ndarray:
    """Extra vertices every ``step_mm`` so straight edges bend with the lens when mapped to the image."""
    pts = np.asarray(points, np.float64).reshape(-1, 2)
    ends = np.roll(pts, -1, axis=0) if closed else pts[1:]
    out = []
    for a, b in zip(pts[: len(ends)], ends, strict=True):
        n = max(1, int(np.ceil(np.linalg.norm(b - a) / step_mm)))
        out.append(a + (b - a) * (np.arange(n)[:, None] / n))
    if not closed:
        out.append(pts[-1:])
    return np.concatenate(out)


def _apply(h: np.ndarray, points: np.ndarray) -> np.ndarray:
    pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(pts, h).reshape(-1, 2)


def _fill(image: np.ndarray, pts: np.ndarray, colour: tuple[int, int, int]) -> None:
    cv2.fillPoly(image, [np.round(pts * 16).astype(np.int32)], colour, cv2.LINE_AA, shift=4)


def _label(image: np.ndarray, text: str, pts: np.ndarray) -> None:
    c = pts.mean(axis=0)
    org = (int(c[0]) - 4 * len(text), int(c[1]) + 4)
    cv2.putText(image, text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.35, (0, 0, 0), 3, cv2.LINE_AA)
    cv2.putText(image, text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.35, (255, 255, 255), 1, cv2.LINE_AA)


def _zone_colour(name: str) -> tuple[int, int, int]:
    """A seat's zones by their place (stack, bet), the others by their name or its head (``board.2`` → board)."""
    return ZONE_COLOURS.get(Zone.parse(name).place, ZONE_COLOURS.get(name.split(".")[0], (255, 255, 255)))


def _short(name: str) -> str:
    """``seat3.stack`` → ``seat3``, ``seat3.bet`` → ``bet3``: labels that fit inside the zone."""
    zone = Zone.parse(name)
    if zone.is_stack:
        return f"seat{zone.seat}"
    return f"bet{zone.seat}" if zone.is_bet else name

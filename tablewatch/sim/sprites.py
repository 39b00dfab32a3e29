"""Sprites at a canvas scale: cards from the shipped atlases, chips drawn by denomination, the dealer button, the
felt and rail."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import cache

import cv2
import numpy as np

from tablewatch.calibration.chips import CHIP_PAINTS
from tablewatch.calibration.decks import load_deck
from tablewatch.calibration.layout import TableLayout
from tablewatch.sim.scenario import ChipSpec
from tablewatch.sim.world import BUTTON_DIAMETER, CARD_H, CARD_W, CHIP_DIAMETER

ROTATIONS = 8  # pre-rotated chip tops (their spots make rotation visible)
SUPERSAMPLE = 4  # markers are warped this much finer than the canvas, then box-averaged

Points = np.ndarray | Sequence[tuple[float, float]]  # table millimetres


@cache
def card_sprites(deck: str, scale: float) -> dict[str, np.ndarray]:
    """Card code → BGRA sprite sized for ``scale`` px/mm."""
    size = (max(4, round(CARD_W * scale)), max(6, round(CARD_H * scale)))
    return {code: cv2.resize(img, size, interpolation=cv2.INTER_AREA) for code, img in load_deck(deck).items()}


def chip_sprites(spec: ChipSpec, scale: float) -> tuple[list[np.ndarray], np.ndarray]:
    """(tops at ROTATIONS angles, one side disc) for a chip, BGRA, ``CHIP_DIAMETER * scale`` across."""
    return _chip_sprites(spec.value, spec.colour, spec.spots, round(scale, 4))


@cache
def _chip_sprites(value: int, colour: str, spots: str, scale: float) -> tuple[list[np.ndarray], np.ndarray]:
    d = max(5, round(CHIP_DIAMETER * scale))
    big = d * 4
    base, spot = np.array(CHIP_PAINTS[colour], float), np.array(CHIP_PAINTS[spots], float)
    tops = []
    c = (big - 1) / 2  # the sprite's centre (pixels span -0.5 .. big - 0.5), drawn in 1/16 px (shift=4)
    c16 = (round(c * 16), round(c * 16))
    for k in range(ROTATIONS):
        img = np.zeros((big, big, 4), np.uint8)
        r = big // 2 - 2
        cv2.circle(img, c16, r * 16, (*base.tolist(), 255), -1, cv2.LINE_AA, shift=4)
        for i in range(6):  # edge spots
            a = math.radians(k * 360 / 6 / ROTATIONS + i * 60)
            pts = [(c + math.cos(a + da) * rr, c + math.sin(a + da) * rr) for da, rr in
                   ((-0.16, r), (0.16, r), (0.16, r * 0.78), (-0.16, r * 0.78))]
            cv2.fillConvexPoly(img, np.round(np.array(pts) * 16).astype(np.int32), (*spot.tolist(), 255), cv2.LINE_AA,
                              shift=4)
        cv2.circle(img, c16, round(r * 0.70 * 16), (*spot.tolist(), 255), max(1, big // 60), cv2.LINE_AA, shift=4)
        inlay = base * 0.55 + np.array([235.0, 235.0, 235.0]) * 0.45
        cv2.circle(img, c16, round(r * 0.58 * 16), (*inlay.tolist(), 255), -1, cv2.LINE_AA, shift=4)
        text = f"{value:g}" if value < 1000 else f"{value // 1000}K"
        fs = big / 120 * (1.0 if len(text) <= 2 else 0.75)
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_DUPLEX, fs, max(1, big // 50))
        ink = (20, 20, 20) if inlay.mean() > 120 else (240, 240, 240)
        cv2.putText(img, text, (big // 2 - tw // 2, big // 2 + th // 2), cv2.FONT_HERSHEY_DUPLEX, fs, (*ink, 255),
                    max(1, big // 50), cv2.LINE_AA)
        tops.append(cv2.resize(img, (d, d), interpolation=cv2.INTER_AREA))
    side = np.zeros((big, big, 4), np.uint8)
    dark = base * 0.6
    cv2.circle(side, c16, (big // 2 - 2) * 16, (*dark.tolist(), 255), -1, cv2.LINE_AA, shift=4)
    for i in range(6):
        a = math.radians(i * 60 + 15)
        p = (round((c + math.cos(a) * (big / 2 - 4)) * 16), round((c + math.sin(a) * (big / 2 - 4)) * 16))
        cv2.circle(side, p, big // 10 * 16, (*(spot * 0.8).tolist(), 255), -1, cv2.LINE_AA, shift=4)
    return tops, cv2.resize(side, (d, d), interpolation=cv2.INTER_AREA)


BUTTON_FACE = (235, 235, 235)  # a white puck
BUTTON_INK = (30, 30, 30)  # its ring and "DEALER" lettering
BUTTON_EDGE = (175, 175, 175)  # its side, in the shade


@cache
def button_sprites(scale: float) -> tuple[np.ndarray, np.ndarray]:
    """(top, side) of the dealer button puck, BGRA, ``BUTTON_DIAMETER * scale`` across: a white disc with a dark
    ring near its edge and "DEALER" across it."""
    d = max(7, round(BUTTON_DIAMETER * scale))
    big = d * 4
    c16 = (round((big - 1) / 2 * 16),) * 2
    r = big // 2 - 2
    top = np.zeros((big, big, 4), np.uint8)
    cv2.circle(top, c16, r * 16, (*BUTTON_FACE, 255), -1, cv2.LINE_AA, shift=4)
    cv2.circle(top, c16, round(r * 0.86 * 16), (*BUTTON_INK, 255), max(1, big // 45), cv2.LINE_AA, shift=4)
    fs, thick = big / 150, max(1, big // 60)
    (tw, th), _ = cv2.getTextSize("DEALER", cv2.FONT_HERSHEY_DUPLEX, fs, thick)
    cv2.putText(top, "DEALER", (big // 2 - tw // 2, big // 2 + th // 2), cv2.FONT_HERSHEY_DUPLEX, fs,
                (*BUTTON_INK, 255), thick, cv2.LINE_AA)
    side = np.zeros((big, big, 4), np.uint8)
    cv2.circle(side, c16, r * 16, (*BUTTON_EDGE, 255), -1, cv2.LINE_AA, shift=4)
    return (cv2.resize(top, (d, d), interpolation=cv2.INTER_AREA),
            cv2.resize(side, (d, d), interpolation=cv2.INTER_AREA))


def table_background(layout: TableLayout, *, felt: tuple[int, int, int], origin: tuple[float, float], scale: float,
                     size: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    """The static table on the canvas: floor, rail, felt with a weave, printed betting lines, ArUco markers."""
    w, h = size
    ox, oy = origin

    def px(points: Points) -> np.ndarray:
        return np.round((np.asarray(points, float) - (ox, oy)) * scale * 16).astype(np.int32)

    img: np.ndarray = np.empty((h, w, 3), np.uint8)
    img[:] = (38, 42, 48)  # carpet
    noise = rng.integers(0, 12, size=(h // 4 + 1, w // 4 + 1), dtype=np.uint8)
    carpet = cv2.resize(noise, (w, h), interpolation=cv2.INTER_LINEAR)
    img = cv2.add(img, cv2.merge([carpet, carpet, carpet]))
    cv2.fillPoly(img, [px(layout.rail)], (40, 38, 36), cv2.LINE_AA, shift=4)  # padded leather rail
    felt_mask = np.zeros((h, w), np.uint8)
    cv2.fillPoly(felt_mask, [px(layout.felt)], 255, cv2.LINE_AA, shift=4)
    weave: np.ndarray = rng.normal(0, 5, size=(h, w)).astype(np.float32)
    weave = cv2.GaussianBlur(weave, (0, 0), max(0.6, scale * 0.8))
    felt_img = np.clip(np.array(felt, np.float32)[None, None, :] + weave[..., None] * 1.5, 0, 255).astype(np.uint8)
    a = (felt_mask.astype(np.float32) / 255.0)[..., None]
    img = (img * (1 - a) + felt_img * a).astype(np.uint8)
    cv2.polylines(img, [px(layout.felt)], True, (25, 25, 25), max(1, round(6 * scale)), cv2.LINE_AA, shift=4)
    line_colour = tuple(int(min(255, c * 1.6 + 40)) for c in felt)
    for seat in layout.seats:
        cv2.polylines(img, [px(seat.line)], False, line_colour, max(1, round(4 * scale)), cv2.LINE_AA, shift=4)
    for name in ("board", "pot"):
        cv2.polylines(img, [px(layout.polygon(name))], True, line_colour, max(1, round(2 * scale)), cv2.LINE_AA,
                      shift=4)
    _markers(img, layout, px, origin, scale)
    return img


def _markers(img: np.ndarray, layout: TableLayout, px: Callable[[Points], np.ndarray],
             origin: tuple[float, float], scale: float) -> None:
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, layout.dictionary))
    q = layout.marker_quiet_zone_mm
    for m in layout.markers:
        corners = np.asarray(m.corners, float)
        centre = corners.mean(axis=0)
        quiet = centre + (corners - centre) * (1 + 2 * q / m.size_mm)
        cv2.fillConvexPoly(img, px(quiet), (250, 250, 250), cv2.LINE_AA, shift=4)
        _warp_marker(img, cv2.aruco.generateImageMarker(dictionary, m.id, _pattern_px(dictionary, m.size_mm * scale)),
                     ((corners - np.asarray(origin)) * scale).astype(np.float32))


def _pattern_px(dictionary: cv2.aruco.Dictionary, side_px: float) -> int:
    """A pattern size in whole modules (border included), fine enough for the supersampled warp."""
    modules = dictionary.markerSize + 2
    return modules * max(4, math.ceil(side_px * SUPERSAMPLE / modules))


def _warp_marker(img: np.ndarray, marker: np.ndarray, dst: np.ndarray) -> None:
    """Blend ``marker`` onto ``img`` with its outer corners at ``dst`` (canvas pixels), area-sampled.

    warpPerspective has no area filter (INTER_AREA falls back to bilinear), and point samples of a pattern
    finer than the canvas put its edges up to half a pixel off, so it is warped ``SUPERSAMPLE`` times finer,
    then box-averaged; the coverage is premultiplied, so the edge is the coverage's alone.
    """
    n, k = marker.shape[0], SUPERSAMPLE
    # Pixel edges, not indices: pixel i spans i ± 0.5, so the pattern's outer edge is at -0.5 and n - 0.5.
    src = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32) - 0.5
    x0, y0 = np.floor(dst.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(dst.max(axis=0)).astype(int) + 2
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x1, img.shape[1]), min(y1, img.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    # Canvas x → supersampled X = k (x - x0 + 0.5) - 0.5: fine pixel j is centred at x0 + (j + 0.5) / k - 0.5.
    fine = np.array([[k, 0, k * (0.5 - x0) - 0.5], [0, k, k * (0.5 - y0) - 0.5], [0, 0, 1]], float)
    T = fine @ cv2.getPerspectiveTransform(src, dst)
    size = ((x1 - x0) * k, (y1 - y0) * k)
    ink = cv2.warpPerspective(marker, T, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    cover = cv2.warpPerspective(np.ones(marker.shape, np.float32), T, size, flags=cv2.INTER_LINEAR)

    def area(a: np.ndarray) -> np.ndarray:
        return cv2.resize(a, (x1 - x0, y1 - y0), interpolation=cv2.INTER_AREA)[..., None]

    a, premultiplied = area(cover), area(ink.astype(np.float32) * cover)
    roi = img[y0:y1, x0:x1]
    roi[:] = np.clip(roi * (1 - a) + premultiplied + 0.5, 0, 255).astype(np.uint8)

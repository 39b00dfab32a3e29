"""Chips and the dealer button: discs of a size known from the cards.

A chip is a disc: circles are proposed by the Hough transform (on the picture's brightness and on its
distance from the table colour, so a white chip on a pale table is seen too) with radii a chip can have
beside a card of the measured width (a 39–43 mm chip is 0.31–0.34 of a 63 mm card), then kept only when
most of their rim is an edge running round the centre (``MIN_RIM``), their middle is not inside a card (a
pip or a court card's picture is never a chip), and no better disc sits on the same spot. A disc on the
table is a chip on the felt; one outside the table is in a rack or tray beside it. A larger, white disc is
the dealer button.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from tablewatch.calibration.chips import _body
from tablewatch.vision.snapshot.chipset import NEUTRAL_CHROMA, ChipSet
from tablewatch.vision.snapshot.table import Table

CHIP_RADIUS = (0.25, 0.42)  # a chip's radius as a share of a card's width
BUTTON_RADIUS = (0.42, 0.65)  # a dealer button's (50-80 mm across)
FALLBACK_RADIUS = (0.008, 0.05)  # shares of the picture's long side, when no card gives the scale
MIN_RIM = 0.5  # share of the rim on an edge that runs round the centre
MIN_RIM_OFF_TABLE = 0.7  # off the table (a floor's boards, feet) a disc's rim must be clearer
RIM_ANGLE = 30.0  # degrees: an edge this close to the rim's direction runs round it
# along a rim already proposed a fainter edge is evidence enough (a white chip on a pale table): 4 times the
# table's median gradient, where an object's outline anywhere needs 6 (``table.EDGE_FACTOR``). Lowered from 6
# after a white chip of the development photos was missed.
RIM_EDGE_FACTOR = 4.0
BUTTON_LIGHTNESS = 0.7  # a button is white: at least this share of the paper's lightness


@dataclass(frozen=True)
class Disc:
    x: float
    y: float
    radius: float  # geometry px
    rim: float  # share of the rim seen as an edge
    kind: str  # "chip" or "button"
    colour: str
    lab: tuple[float, float, float]  # body colour, white-balanced
    on_table: bool


def find_discs(image: np.ndarray, table: Table, card_width: float | None, cards: list[np.ndarray]) -> list[Disc]:
    """Discs (chips or buttons, not yet named) in the geometry picture; ``cards``: the polygons of cards (and
    of markers) found there, on which no chip is counted (geometry px)."""
    h, w = image.shape[:2]
    if card_width:
        r_min, r_max = CHIP_RADIUS[0] * card_width, BUTTON_RADIUS[1] * card_width
        chip_max = CHIP_RADIUS[1] * card_width
    else:
        r_min, r_max = FALLBACK_RADIUS[0] * max(h, w), FALLBACK_RADIUS[1] * max(h, w)
        chip_max = r_max
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    distance = np.clip(table.z * 16.0, 0, 255).astype(np.uint8)
    proposals = []
    for picture in (grey, distance):
        found = cv2.HoughCircles(cv2.GaussianBlur(picture, (5, 5), 1.5), cv2.HOUGH_GRADIENT_ALT, dp=1.5,
                                 minDist=max(2.0, r_min), param1=100, param2=0.6,
                                 minRadius=max(2, int(r_min)), maxRadius=int(np.ceil(r_max)))
        if found is not None:
            proposals.append(found.reshape(-1, 3))
    if not proposals:
        return []
    circles = np.vstack(proposals)
    orientation, strength = _edges(image)
    threshold = RIM_EDGE_FACTOR * float(np.median(table.gradient[table.mask > 0]))
    polygons = [p.reshape(-1, 1, 2).astype(np.float32) for p in cards]
    scored = []
    for x, y, r in circles:
        if any(cv2.pointPolygonTest(p, (float(x), float(y)), True) > -0.25 * r for p in polygons):
            continue  # on a card: a pip, a picture, or a chip hiding an index (never counted as one)
        rim = _rim(orientation, strength, threshold, x, y, r)
        if rim >= (MIN_RIM if table.inside((x, y))[0] else MIN_RIM_OFF_TABLE):
            scored.append((rim, float(x), float(y), float(r)))
    scored.sort(reverse=True)
    kept: list[tuple[float, float, float, float]] = []
    for rim, x, y, r in scored:
        if all(np.hypot(x - kx, y - ky) >= max(r, kr) for _, kx, ky, kr in kept):
            kept.append((rim, x, y, r))
    return [Disc(x, y, r, rim, "button" if r > chip_max else "chip", "", (0.0, 128.0, 128.0),
                 bool(table.inside((x, y))[0])) for rim, x, y, r in kept]


def name_discs(discs: list[Disc], image: np.ndarray, chip_set: ChipSet, paper: np.ndarray | None) -> list[Disc]:
    """Each disc's body colour (white-balanced against ``paper``, the card paper's Lab, when known) named in the
    chip set; a disc too big for a chip is kept only as a white button."""
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2Lab)
    named = []
    for disc in discs:
        body = _body_colour(lab, disc.x, disc.y, disc.radius, paper)
        colour = (float(body[0]), float(body[1]), float(body[2]))
        if disc.kind == "button":
            white = body[0] >= BUTTON_LIGHTNESS * 255 and np.hypot(body[1] - 128, body[2] - 128) < NEUTRAL_CHROMA
            if white:
                named.append(replace(disc, colour="white", lab=colour))
            continue
        named.append(replace(disc, colour=chip_set.name(body), lab=colour))
    return named


def _edges(image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each pixel's edge direction (the structure tensor's, radians modulo pi) and strength (Lab, L at half)."""
    lab = cv2.GaussianBlur(cv2.cvtColor(image, cv2.COLOR_BGR2Lab).astype(np.float32), (0, 0), 1.0)
    gx = cv2.Sobel(lab, cv2.CV_32F, 1, 0)
    gy = cv2.Sobel(lab, cv2.CV_32F, 0, 1)
    weight = np.array([0.25, 1.0, 1.0], np.float32)
    jxx = (gx * gx) @ weight
    jyy = (gy * gy) @ weight
    jxy = (gx * gy) @ weight
    orientation = 0.5 * np.arctan2(2 * jxy, jxx - jyy)  # the gradient's direction
    strength = np.sqrt(jxx + jyy)
    return orientation, strength


def _rim(orientation: np.ndarray, strength: np.ndarray, threshold: float, x: float, y: float, r: float) -> float:
    """Share of the circle's rim where the picture has an edge across the radius (gradient along it)."""
    h, w = strength.shape
    angles = np.linspace(0, 2 * np.pi, 72, endpoint=False)
    seen = 0
    for t in angles:
        best = 0
        for dr in (-1.5, 0.0, 1.5):  # the Hough radius is within a pixel or two
            px, py = round(x + (r + dr) * np.cos(t)), round(y + (r + dr) * np.sin(t))
            if not (0 <= px < w and 0 <= py < h) or strength[py, px] < threshold:
                continue
            off = abs((orientation[py, px] - t + np.pi / 2) % np.pi - np.pi / 2)
            if np.degrees(off) <= RIM_ANGLE:
                best = 1
                break
        seen += best
    return seen / len(angles)


def _body_colour(lab: np.ndarray, x: float, y: float, r: float, paper: np.ndarray | None) -> np.ndarray:
    """The chip's body colour (``tablewatch.calibration.chips``' estimate), white-balanced against the paper."""
    h, w = lab.shape[:2]
    x0, x1 = max(0, int(x - r)), min(w, int(x + r) + 1)
    y0, y1 = max(0, int(y - r)), min(h, int(y + r) + 1)
    yy, xx = np.mgrid[y0:y1, x0:x1]
    inside = np.hypot(xx - x, yy - y) <= 0.85 * r
    pixels = lab[y0:y1, x0:x1][inside].astype(np.float32)
    if len(pixels) == 0:
        return np.array([0.0, 128.0, 128.0])
    body: np.ndarray = np.median(_body(pixels), axis=0)
    if paper is not None:
        body = body.astype(np.float64)
        body[1:] -= np.asarray(paper[1:], np.float64) - 128.0
        body[0] = min(255.0, body[0] * 255.0 / max(1.0, float(paper[0])))
    return body

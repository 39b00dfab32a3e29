"""A venue's own deck, registered from photos: one photo per card (and one of the back), each card lying flat on
a plain surface of another colour (the felt) and photographed from above, the file named by the card
(``As.jpg``, ``Td.jpg`` or ``10d.jpg``, ``back.jpg``).

Each card's outline is found (the most card-shaped region unlike the surface, or its outline of edges), its four
edges fitted as straight lines (so a card photographed a little askew, with rounded corners, still gives its
true corners), and the card is
warped flat into the deck atlas tablewatch reads: the shipped decks' 13 × 5 grid of 150 × 210 faces, the back
in the fifth row. A camera's ``deck`` setting then names the atlas file instead of a shipped deck.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from tablewatch.calibration.decks import FACE_H, FACE_W, atlas_cells, corner_index_box, corner_region
from tablewatch.images import ImageError, read_image_file

ASPECT_RANGE = (1.25, 1.65)  # poker size (63 × 88 mm, 1.40) and bridge size (57 × 89 mm, 1.56)
OUTLINE_PX = 1200  # a card photo is looked at this many pixels wide at most: enough for its edges
SURFACE_MARGIN = 12.0  # Lab units: a card differs from the surface it lies on by more than this
MIN_AREA = 0.03  # of the photo: a card filling less than this is too small to register its art
MIN_FILL = 0.85  # of the card's enclosing rectangle: rounded corners and a little blur, not a fan of cards
EDGE_SPAN = (0.2, 0.8)  # the part of each side fitted as a straight line, clear of the rounded corners
PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff")


class DeckPhotoError(ValueError):
    """A photo the deck can't be registered from; the message names the photo and says what to change."""


@dataclass(frozen=True)
class RegisteredCard:
    code: str  # "As", "Td", "back"
    photo: Path
    face: np.ndarray  # BGR, FACE_H × FACE_W, portrait
    index_found: bool  # a rank-and-suit index was found in the top-left corner (faces only)


def card_code(stem: str) -> str | None:
    """The card a photo's file name names (``"As"``, ``"10d"`` → ``"Td"``, ``"back"``), or None."""
    if stem.lower() == "back":
        return "back"
    match = re.fullmatch(r"(10|[2-9TJQKA])([cdhs])", stem, flags=re.IGNORECASE)
    if match is None:
        return None
    rank = "T" if match[1] == "10" else match[1].upper()
    return rank + match[2].lower()


def find_card(image: np.ndarray) -> np.ndarray:
    """The card's four corners in ``image`` (float32, 4 × 2), ordered so the first edge is a short one; raises
    DeckPhotoError when no card-shaped region is found."""
    outline = _card_outline(image)
    if outline is None:
        raise DeckPhotoError("no card found: lay the card alone on a plain surface of another colour (the felt) and "
                             "photograph it from above, the whole card in the picture and filling a good part of it")
    return _fitted_corners(outline)


def flatten_card(image: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """The card warped flat to FACE_W × FACE_H (portrait), BGR: flattened at the size the photo shows it, then
    shrunk by pixel areas (a perspective warp straight to the small size would alias the art)."""
    sides = np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)
    width, height = max(FACE_W, round(max(sides[0], sides[2]))), max(FACE_H, round(max(sides[1], sides[3])))
    target = np.array([(0, 0), (width, 0), (width, height), (0, height)], np.float32)
    warp = cv2.getPerspectiveTransform(corners.astype(np.float32), target)
    flat = cv2.warpPerspective(image, warp, (width, height), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return cv2.resize(flat, (FACE_W, FACE_H), interpolation=cv2.INTER_AREA)


def register_photo(photo: Path) -> RegisteredCard:
    code = card_code(photo.stem)
    if code is None:
        raise DeckPhotoError(f"{photo.name}: name the file by its card (As, Td or 10d, 7h, Qc…, or back)")
    try:
        image = read_image_file(photo)
    except ImageError as exc:
        raise DeckPhotoError(str(exc)) from exc
    try:
        face = flatten_card(image, find_card(image))
    except DeckPhotoError as exc:
        raise DeckPhotoError(f"{photo.name}: {exc}") from exc
    index_found = code == "back" or corner_index_box(face) != corner_region(face)  # the region: none found
    return RegisteredCard(code=code, photo=photo, face=face, index_found=index_found)


def register_folder(folder: Path) -> list[RegisteredCard]:
    """Every card photographed in ``folder``; DeckPhotoError naming every photo that can't be used."""
    if not folder.is_dir():
        raise DeckPhotoError(f"{folder}: not a folder of card photos")
    cards, problems = [], []
    for photo in sorted(p for p in folder.iterdir() if p.suffix.lower() in PHOTO_SUFFIXES):
        try:
            cards.append(register_photo(photo))
        except DeckPhotoError as exc:
            problems.append(str(exc))
    if problems:
        raise DeckPhotoError("\n".join(problems))
    return cards


def build_atlas(cards: Iterable[RegisteredCard]) -> np.ndarray:
    """The deck atlas (BGRA, the shipped decks' grid); DeckPhotoError naming any card missing or given twice."""
    by_code: dict[str, RegisteredCard] = {}
    for card in cards:
        if card.code in by_code:
            raise DeckPhotoError(f"{card.code} is given twice: {by_code[card.code].photo.name} and {card.photo.name}")
        by_code[card.code] = card
    missing = [code for code in atlas_cells() if code not in by_code]
    if missing:
        raise DeckPhotoError(f"{len(missing)} card(s) have no photo: {' '.join(missing)}")
    atlas = np.zeros((FACE_H * 5, FACE_W * 13, 4), np.uint8)
    for code, (row, col) in atlas_cells().items():
        cell = atlas[row * FACE_H : (row + 1) * FACE_H, col * FACE_W : (col + 1) * FACE_W]
        cell[..., :3] = by_code[code].face
        cell[..., 3] = 255
    return atlas


def save_atlas(atlas: np.ndarray, path: Path) -> Path:
    if path.suffix.lower() != ".png":
        raise DeckPhotoError(f"{path}: a deck atlas is a PNG file (name it …/venue-deck.png)")
    path.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(path), atlas, [cv2.IMWRITE_PNG_COMPRESSION, 9]):
        raise DeckPhotoError(f"{path}: could not be written")
    return path


def _card_outline(image: np.ndarray) -> np.ndarray | None:
    """The contour of the most card-like region (in ``image``'s pixels), looked for at most OUTLINE_PX wide:
    the region whose colours differ from the surface's (as the photo's edges show the surface), or else the
    card's outline of edges, for a surface whose light changes across the photo (its hull: the outline may
    have gaps where an edge is faint)."""
    scale = min(1.0, OUTLINE_PX / max(image.shape[:2]))
    small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else image
    small = cv2.GaussianBlur(small, (5, 5), 0)
    masks = [_unlike_the_surface(small), _closed_edges(small)]
    area = small.shape[0] * small.shape[1]
    cards = [(fill, c) for mask in masks for c in cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)[0]
             if cv2.contourArea(cv2.convexHull(c)) >= MIN_AREA * area and _inside(c, small.shape)
             and (fill := _card_fill(c)) >= MIN_FILL]
    if not cards:
        return None
    best = max(cards, key=lambda pair: pair[0])[1]
    return (best.astype(np.float64) / scale).astype(np.float32)


def _unlike_the_surface(image: np.ndarray) -> np.ndarray:
    """Pixels whose colour (Lab) is further from the surface's than the surface's own pixels spread (twice
    their upper quartile: a grain or a neighbouring card at the photo's edge doesn't raise it), the ink inside a
    card closed over and thin runs of shadow or grain out of it cut off."""
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB).astype(np.float32)
    border = np.concatenate([lab[0], lab[-1], lab[:, 0], lab[:, -1]])
    surface = np.median(border, axis=0)
    spread = float(np.percentile(np.linalg.norm(border - surface, axis=1), 75))
    unlike = (np.linalg.norm(lab - surface, axis=2) > max(SURFACE_MARGIN, 2 * spread)).astype(np.uint8) * 255
    closed = cv2.morphologyEx(unlike, cv2.MORPH_CLOSE, np.ones((9, 9), np.uint8))
    return cv2.morphologyEx(closed, cv2.MORPH_OPEN, np.ones((15, 15), np.uint8))  # cut thin bridges to shadows


def _closed_edges(image: np.ndarray) -> np.ndarray:
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    median = float(np.median(grey))
    edges = cv2.Canny(grey, 0.33 * median, 0.66 * median)
    return cv2.morphologyEx(edges, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))


def _inside(contour: np.ndarray, shape: tuple[int, ...]) -> bool:
    """Clear of the photo's edges: a region running off the picture is the surface, or a card cut off."""
    x, y, w, h = cv2.boundingRect(contour)
    return x > 1 and y > 1 and x + w < shape[1] - 1 and y + h < shape[0] - 1


def _card_fill(contour: np.ndarray) -> float:
    """How much of its enclosing rectangle the region fills (a card: nearly all, but for its rounded corners);
    0 when the rectangle isn't card-shaped."""
    (_, _), (w, h), _ = cv2.minAreaRect(contour)
    if min(w, h) == 0 or not ASPECT_RANGE[0] <= max(w, h) / min(w, h) <= ASPECT_RANGE[1]:
        return 0.0
    return float(cv2.contourArea(cv2.convexHull(contour)) / (w * h))


def _fitted_corners(contour: np.ndarray) -> np.ndarray:
    """The four corners where the card's fitted edges meet, starting on a short edge, clockwise in the image."""
    box = cv2.boxPoints(cv2.minAreaRect(contour)).astype(np.float64)
    if np.linalg.norm(box[1] - box[0]) > np.linalg.norm(box[2] - box[1]):
        box = np.roll(box, -1, axis=0)  # start on a short edge, so the card comes out portrait
    points = contour.reshape(-1, 2).astype(np.float64)
    lines = [_edge_line(points, box[i], box[(i + 1) % 4]) for i in range(4)]
    corners = np.array([_meet(lines[i - 1], lines[i]) for i in range(4)])
    return corners.astype(np.float32)


def _edge_line(points: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A point on and the direction of the straight line best fitting the outline along box side ``a``–``b``."""
    side = b - a
    length = float(np.linalg.norm(side))
    offset = points - a
    along = offset @ side / length**2
    across = np.abs(side[0] * offset[:, 1] - side[1] * offset[:, 0]) / length
    near = points[(along > EDGE_SPAN[0]) & (along < EDGE_SPAN[1]) & (across < 0.05 * length)]
    if len(near) < 5:
        return a, side / length
    vx, vy, x0, y0 = cv2.fitLine(near.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).reshape(-1)
    return np.array([x0, y0], np.float64), np.array([vx, vy], np.float64)


def _meet(first: tuple[np.ndarray, np.ndarray], second: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    (p, u), (q, v) = first, second
    t = np.linalg.solve(np.column_stack([u, -v]), q - p)[0]
    return p + t * u


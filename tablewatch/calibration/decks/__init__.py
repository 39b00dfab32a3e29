"""The card decks tablewatch ships: each deck's faces and back (atlases in this folder, see ``LICENSE.md``).

A venue registers its own deck's faces as the templates perception matches face-up cards against; the shipped
decks serve the demo venue and the simulator. ``build.py`` makes the atlases (at build time only)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import cv2
import numpy as np

CARDS_DIR = Path(__file__).resolve().parent
RANKS = "A23456789TJQK"
SUITS = "cdhs"  # the atlas rows: clubs, diamonds, hearts, spades
FACE_W, FACE_H = 150, 210  # one face in the atlas, in pixels; the atlas is 13 × 5 of them
BACK_CELL = (4, 2)  # the back's (row, column): the fifth row holds the jokers and the back


def deck_names() -> tuple[str, ...]:
    return tuple(sorted(p.stem for p in CARDS_DIR.glob("*.png")))


@cache
def load_deck(name: str) -> dict[str, np.ndarray]:
    """Card code (``"As"``, ``"back"``) → BGRA image (210 × 150). ``name``: a shipped deck, or the path of a
    venue's atlas (``….png``, written by ``tablewatch deck register``)."""
    path = Path(name) if name.lower().endswith(".png") else CARDS_DIR / f"{name}.png"
    if not path.is_file():
        shipped = f"shipped decks: {', '.join(deck_names())}; or a venue's atlas (.png) from `tablewatch deck register`"
        raise FileNotFoundError(f"card deck {name!r} not found at {path}; {shipped}")
    atlas = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if atlas is None or atlas.ndim != 3 or atlas.shape[0] % 5 or atlas.shape[1] % 13:
        raise FileNotFoundError(f"{path} is no deck atlas: a PNG of 13 × 5 card faces (`tablewatch deck register`)")
    if atlas.shape[2] == 3:
        atlas = cv2.cvtColor(atlas, cv2.COLOR_BGR2BGRA)
    h, w = atlas.shape[0] // 5, atlas.shape[1] // 13
    return {code: atlas[row * h : (row + 1) * h, col * w : (col + 1) * w].copy()
            for code, (row, col) in atlas_cells().items()}


def atlas_cells() -> dict[str, tuple[int, int]]:
    """Card code → its (row, column) in a deck atlas: a suit a row, ace to king, then the back."""
    cells = {rank + suit: (row, col) for row, suit in enumerate(SUITS) for col, rank in enumerate(RANKS)}
    return {**cells, "back": BACK_CELL}


CORNER = (0.25, 0.33)  # the corner region holding an index, as fractions of the card's width and height
INSET_PX = 4  # the card's printed border and rounded corner lie within this many pixels of its edge


@cache
def index_quads(name: str) -> dict[str, np.ndarray]:
    """Card code → the two corner indices (rank over suit) as tight quads, fractions of the card's edges:
    ``[top-left quad, bottom-right quad]``, each four (x, y) corners. Found in the art itself: the ink in
    the corner region that does not run on into the rest of the card (the big pips and court pictures do)."""
    return {code: _index_quads(img) for code, img in load_deck(name).items() if code != "back"}


def _index_quads(card: np.ndarray) -> np.ndarray:
    h, w = card.shape[:2]
    boxes = [corner_index_box(card), corner_index_box(card[::-1, ::-1])]
    (x0, y0, x1, y1), (u0, v0, u1, v1) = boxes
    top_left = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
    bottom_right = [(w - u1, h - v1), (w - u0, h - v1), (w - u0, h - v0), (w - u1, h - v0)]
    return np.array([top_left, bottom_right], float) / (w, h)


def corner_region(card: np.ndarray) -> tuple[int, int, int, int]:
    """Pixel box (x0, y0, x1, y1) of the top-left corner region an index is looked for in."""
    return 0, 0, round(CORNER[0] * card.shape[1]), round(CORNER[1] * card.shape[0])


def corner_index_box(card: np.ndarray) -> tuple[int, int, int, int]:
    """Pixel box (x0, y0, x1, y1) of the top-left index: the rank (the topmost ink near the edge, with the
    glyphs beside it: "10") and what is printed in a column under it (the suit). Ink running on beyond the
    corner region (big pips, court pictures) is left out; the whole region when no index is found."""
    h = card.shape[0]
    region = corner_region(card)
    _, _, cw, ch = region
    bgr = card[:ch, :cw, :3].astype(np.int16)
    paper = np.median(card[h // 3 : 2 * h // 3, INSET_PX : 2 * INSET_PX, :3].reshape(-1, 3), axis=0)
    ink = (np.abs(bgr - paper).max(axis=2) > 60).astype(np.uint8)
    ink[:INSET_PX, :] = 0
    ink[:, :INSET_PX] = 0
    count, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    parts = [tuple(int(v) for v in st[:4]) for st in stats[1:count]
             if st[4] >= 4 and st[0] + st[2] < cw and st[1] + st[3] < ch]
    near_edge = [b for b in parts if b[0] < cw / 2]
    if not near_edge:
        return region
    rank = min(near_edge, key=lambda b: b[1])
    line = [b for b in parts if abs(b[1] - rank[1]) <= 0.3 * rank[3] and b[0] < rank[0] + 3 * rank[2]]
    x0, y0 = min(b[0] for b in line), min(b[1] for b in line)
    x1, y1 = max(b[0] + b[2] for b in line), max(b[1] + b[3] for b in line)
    for b in sorted(parts, key=lambda b: b[1]):  # the suit (and any second line) under the rank
        centre = b[0] + b[2] / 2
        if b[1] >= y1 - 1 and b[1] - y1 <= 0.8 * rank[3] and x0 - 2 <= centre <= x1 + 2:
            x0, x1, y1 = min(x0, b[0]), max(x1, b[0] + b[2]), b[1] + b[3]
    return max(x0 - 1, 0), max(y0 - 1, 0), min(x1 + 1, cw), min(y1 + 1, ch)

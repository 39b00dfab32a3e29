"""Shipped art for the simulator: card atlases (see ``cards/LICENSE.md``) and chip sprites drawn in code."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import cv2
import numpy as np

CARDS_DIR = Path(__file__).resolve().parent / "cards"
RANKS = "A23456789TJQK"
SUITS = "cdhs"  # the atlas rows: clubs, diamonds, hearts, spades
HELD_OUT_DECKS = ("simplistic",)


def deck_names() -> tuple[str, ...]:
    return tuple(sorted(p.stem for p in CARDS_DIR.glob("*.png")))


def train_decks() -> tuple[str, ...]:
    return tuple(d for d in deck_names() if d not in HELD_OUT_DECKS)


@cache
def load_deck(name: str) -> dict[str, np.ndarray]:
    """Card code (``"As"``, ``"back"``) → BGRA image (210 × 150)."""
    path = CARDS_DIR / f"{name}.png"
    atlas = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if atlas is None:
        raise FileNotFoundError(f"card deck {name!r} not found at {path}; shipped: {', '.join(deck_names())}")
    h, w = atlas.shape[0] // 5, atlas.shape[1] // 13
    cards = {}
    for row, suit in enumerate(SUITS):
        for col, rank in enumerate(RANKS):
            cards[rank + suit] = atlas[row * h : (row + 1) * h, col * w : (col + 1) * w].copy()
    cards["back"] = atlas[4 * h : 5 * h, 2 * w : 3 * w].copy()
    return cards

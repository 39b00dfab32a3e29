"""Photos of a deck's cards as a venue would take them to register the deck: each card alone on the felt, seen
from above by a hand-held camera (a little turned and tilted), with sensor noise."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from tablewatch.calibration.decks import load_deck

PHOTO_W, PHOTO_H = 1200, 900
FELT_BGR = (40, 90, 30)


def photograph(face: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A photo of one card face (BGRA) and the card's true corners in it (4 × 2, the face's corner order)."""
    surface = np.full((PHOTO_H, PHOTO_W, 3), FELT_BGR, np.float64) + rng.normal(0, 6, (PHOTO_H, PHOTO_W, 3))
    face = face.copy()
    face[[0, -1], :, :3] = face[:, [0, -1], :3] = 255  # a real card is paper to its edge; the art has a dark rim
    h, w = face.shape[:2]
    flat = np.array([(0, 0), (w, 0), (w, h), (0, h)], np.float32)
    scale, angle = rng.uniform(1.6, 2.4), rng.uniform(0, 2 * np.pi)
    turn = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    centre = (PHOTO_W / 2 + rng.uniform(-120, 120), PHOTO_H / 2 + rng.uniform(-60, 60))
    corners = ((flat - (w / 2, h / 2)) * scale) @ turn.T + centre + rng.normal(0, 8, (4, 2))  # the tilt
    warp = cv2.getPerspectiveTransform(flat, corners.astype(np.float32))
    card = cv2.warpPerspective(face, warp, (PHOTO_W, PHOTO_H), flags=cv2.INTER_LINEAR)
    alpha = card[..., 3:4] / 255.0
    photo = np.clip(card[..., :3] * alpha + surface * (1 - alpha), 0, 255).astype(np.uint8)
    return photo, corners


def photograph_deck(deck: str, folder: Path, *, seed: int = 0) -> Path:
    """One JPEG per card of a shipped deck in ``folder`` (``As.jpg`` … ``back.jpg``); returns ``folder``."""
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    for code, face in load_deck(deck).items():
        cv2.imwrite(str(folder / f"{code}.jpg"), photograph(face, rng)[0], [cv2.IMWRITE_JPEG_QUALITY, 92])
    return folder

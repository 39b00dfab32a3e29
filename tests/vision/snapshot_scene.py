"""Synthetic top-down table photos with known geometry, for the snapshot reader's unit tests.

A parquet-like floor, a pale table, white cards (63 × 88 mm, rounded corners, a rank and a suit in two
corners, pips in the middle), card backs (a red lattice), chips (discs with edge spots), all at a known scale
and place, so each step of ``tablewatch.vision.snapshot`` can be checked against the truth.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

PX_PER_MM = 1.6
CARD_PX = (63 * PX_PER_MM, 88 * PX_PER_MM)
CHIP_RADIUS_PX = 20 * PX_PER_MM  # a 40 mm chip
TABLE_BGR = (190, 212, 228)
CHIP_BGR = {"red": (40, 40, 190), "blue": (190, 110, 30), "green": (70, 140, 20), "black": (25, 25, 25),
            "white": (240, 240, 240)}


@dataclass
class Scene:
    image: np.ndarray
    table: tuple[int, int, int, int]  # x0, y0, x1, y1
    cards: list[np.ndarray] = field(default_factory=list)  # (4, 2) corners, in the order they were laid (last on top)
    backs: list[int] = field(default_factory=list)  # indices into cards of the face-down ones
    chips: list[tuple[float, float, str]] = field(default_factory=list)


def blank(width: int = 1600, height: int = 1100, seed: int = 0) -> Scene:
    rng = np.random.default_rng(seed)
    image = np.zeros((height, width, 3), np.uint8)
    # a parquet floor: strips of browns
    for y in range(0, height, 40):
        for x in range(-int(rng.integers(0, 160)), width, 160):
            tone = rng.integers(60, 130)
            cv2.rectangle(image, (x, y), (x + 158, y + 38), (int(tone * 0.45), int(tone * 0.75), int(tone)), -1)
    x0, y0, x1, y1 = 280, 100, 1320, 1000
    image[y0:y1, x0:x1] = TABLE_BGR
    noise = rng.normal(0, 2.0, (y1 - y0, x1 - x0, 3))
    image[y0:y1, x0:x1] = np.clip(image[y0:y1, x0:x1] + noise, 0, 255).astype(np.uint8)
    return Scene(image, (x0, y0, x1, y1))


def card_sprite(rank: str = "K", *, back: bool = False, scale: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """A card picture (BGR) and its mask, ``scale`` times the scene's resolution (drawn large, shrunk)."""
    w, h = round(CARD_PX[0] * scale), round(CARD_PX[1] * scale)
    sprite = np.full((h, w, 3), 250, np.uint8)
    mask = np.zeros((h, w), np.uint8)
    radius = round(3.5 * PX_PER_MM * scale)
    cv2.rectangle(mask, (radius, 0), (w - radius, h), 255, -1)
    cv2.rectangle(mask, (0, radius), (w, h - radius), 255, -1)
    for cx, cy in ((radius, radius), (w - radius, radius), (radius, h - radius), (w - radius, h - radius)):
        cv2.circle(mask, (cx, cy), radius, 255, -1)
    mm = PX_PER_MM * scale
    # a card's cut edge shows as a thin grey line all round (its thickness, the light's shading)
    rim = mask - cv2.erode(mask, np.ones((3, 3), np.uint8), iterations=max(1, round(0.4 * mm)))
    if back:
        sprite[:] = (40, 40, 200)
        for k in range(-h, w + h, round(2.5 * mm)):
            cv2.line(sprite, (k, 0), (k + h, h), (235, 235, 250), max(1, round(0.3 * mm)))
            cv2.line(sprite, (k, 0), (k - h, h), (235, 235, 250), max(1, round(0.3 * mm)))
        cv2.rectangle(sprite, (0, 0), (w - 1, h - 1), (250, 250, 250), round(2 * mm))
    else:
        for turn in (0, 2):
            corner = np.rot90(sprite, turn).copy()
            cv2.putText(corner, rank, (round(1.5 * mm), round(9 * mm)), cv2.FONT_HERSHEY_SIMPLEX, 0.28 * mm,
                        (20, 20, 20), max(1, round(0.7 * mm)), cv2.LINE_AA)
            cv2.circle(corner, (round(4.5 * mm), round(14.5 * mm)), round(2.3 * mm), (20, 20, 20), -1)
            sprite[:] = np.rot90(corner, -turn)
        for px, py in ((0.35, 0.3), (0.65, 0.3), (0.35, 0.7), (0.65, 0.7)):  # pips, well inside
            cv2.circle(sprite, (round(px * w), round(py * h)), round(5 * mm), (20, 20, 20), -1)
    sprite[rim > 0] = (175, 175, 175)
    return sprite, mask


def lay_card(scene: Scene, centre: tuple[float, float], angle: float, *, rank: str = "K", back: bool = False) -> int:
    """Lay a card (on top of what is there), ``angle`` degrees (its long side from the vertical)."""
    scale = 4
    sprite, mask = card_sprite(rank, back=back, scale=scale)
    h, w = mask.shape
    matrix = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0 / scale)
    matrix[:, 2] += np.array(centre) - np.array([w / 2, h / 2])
    size = (scene.image.shape[1], scene.image.shape[0])
    # the card's shadow: a soft dark band all round it on what lies under it (the felt, or another card)
    shadow = cv2.warpAffine(mask, matrix, size, flags=cv2.INTER_AREA)
    shadow = cv2.GaussianBlur(cv2.dilate(shadow, np.ones((5, 5), np.uint8)), (0, 0), 2.0).astype(np.float32) / 255.0
    scene.image[:] = (scene.image * (1 - 0.3 * shadow[..., None])).astype(np.uint8)
    picture = cv2.warpAffine(sprite, matrix, size, flags=cv2.INTER_AREA)
    alpha = cv2.warpAffine(mask, matrix, size, flags=cv2.INTER_AREA).astype(np.float32)[..., None] / 255.0
    scene.image[:] = (picture * alpha + scene.image * (1 - alpha)).astype(np.uint8)
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    scene.cards.append(np.hstack([corners, np.ones((4, 1))]) @ matrix.T)
    if back:
        scene.backs.append(len(scene.cards) - 1)
    return len(scene.cards) - 1


def lay_chip(scene: Scene, centre: tuple[float, float], colour: str) -> None:
    x, y = round(centre[0]), round(centre[1])
    r = round(CHIP_RADIUS_PX)
    cv2.circle(scene.image, (x + 2, y + 2), r, (110, 120, 130), -1, cv2.LINE_AA)  # shadow
    cv2.circle(scene.image, (x, y), r, CHIP_BGR[colour], -1, cv2.LINE_AA)
    spot = (250, 250, 250) if colour != "white" else (180, 60, 20)
    for k in range(8):
        t = 2 * np.pi * k / 8
        cv2.circle(scene.image, (round(x + 0.82 * r * np.cos(t)), round(y + 0.82 * r * np.sin(t))), max(2, r // 8),
                   spot, -1, cv2.LINE_AA)
    scene.chips.append((float(x), float(y), colour))


def table_scene(seed: int = 0) -> Scene:
    """A board of five, two hands of two (one fanned, one face down), and chips of four colours."""
    scene = blank(seed=seed)
    for k in range(5):
        lay_card(scene, (520 + k * 118, 850), 0.0, rank="AKQJT"[k])
    lay_card(scene, (480, 260), 8.0, rank="9")  # a fanned hand: the second card lies on the first
    lay_card(scene, (530, 270), -6.0, rank="8")
    lay_card(scene, (1130, 300), 25.0, back=True)
    lay_card(scene, (1165, 330), 15.0, back=True)
    for (x, y), colour in zip(((760, 480), (840, 480), (800, 560), (900, 600), (700, 600)),
                              ("red", "red", "blue", "green", "black"), strict=True):
        lay_chip(scene, (x, y), colour)
    return scene

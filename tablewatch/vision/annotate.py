"""Draw recognised cards on an image (for ``tablewatch cards --annotate``)."""

from __future__ import annotations

import cv2
import numpy as np

from tablewatch.vision.cards import Card

AGREED = (40, 200, 40)  # BGR: both indices read the same
SINGLE = (0, 200, 255)  # one index only, or conflicting readings


def draw_cards(image: np.ndarray, cards: list[Card]) -> np.ndarray:
    """A copy of ``image`` with each card's index boxes and a label ``Th 0.93`` (green when agreed)."""
    out = image.copy()
    scale = max(out.shape[:2]) / 1000.0
    thickness = max(1, round(2 * scale))
    for card in cards:
        colour = AGREED if card.agreed else SINGLE
        for x0, y0, x1, y1 in card.index_boxes:
            cv2.rectangle(out, (round(x0), round(y0)), (round(x1), round(y1)), colour, thickness)
        text = f"{card.card or card.label} {card.confidence:.2f}"
        x0, y0 = round(card.index_boxes[0][0]), round(card.index_boxes[0][1])
        font_scale = max(0.4, 0.6 * scale)
        (w, h), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, font_scale, thickness)
        y_text = max(h + 2, y0 - 3)
        cv2.rectangle(out, (x0, y_text - h - 2), (x0 + w, y_text + 2), colour, -1)
        cv2.putText(out, text, (x0, y_text), cv2.FONT_HERSHEY_SIMPLEX, font_scale, (0, 0, 0), thickness, cv2.LINE_AA)
    return out


def write_image(path: str, image: np.ndarray) -> None:
    """Write ``image``; ValueError naming the path when OpenCV can't (unknown extension, bad folder)."""
    try:
        ok = cv2.imwrite(path, image)
    except cv2.error as exc:
        raise ValueError(f"cannot write {path}: {exc}") from exc
    if not ok:
        raise ValueError(f"cannot write {path} (unknown image extension, or the folder does not exist).")

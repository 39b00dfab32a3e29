"""The snapshot drawn on the photo (``tablewatch snapshot --annotate``): a JPEG of a few megabytes, at most
``ANNOTATE_SIDE`` px wide or high, with the table's outline, each card's outline and reading, each chip's
colour and the button."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from tablewatch.vision.snapshot.reader import Snapshot

ANNOTATE_SIDE = 3000
JPEG_QUALITY = 85
BGR = {
    "white": (235, 235, 235), "red": (40, 30, 210), "green": (60, 160, 40), "blue": (200, 110, 20),
    "black": (20, 20, 20), "other": (160, 160, 160),
}
READ, UNREAD, DOWN, UNKNOWN, TABLE = (40, 200, 40), (0, 200, 255), (220, 120, 40), (150, 150, 150), (255, 0, 255)


def draw_snapshot(image: np.ndarray, snapshot: Snapshot) -> np.ndarray:
    """A copy of ``image`` (the photo, at any size) with the snapshot drawn on it, at most ``ANNOTATE_SIDE``."""
    scale = min(1.0, ANNOTATE_SIDE / max(image.shape[:2]))
    out = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else image.copy()
    k = out.shape[1] / snapshot.size[0]  # file px -> drawing px
    thick = max(2, round(out.shape[1] / 800))
    font = max(0.5, out.shape[1] / 3600)
    cv2.polylines(out, [np.round(snapshot.table * k).astype(np.int32)], True, TABLE, thick)
    for card in snapshot.cards:
        colour = {"down": DOWN, "unknown": UNKNOWN}.get(card.state, READ if card.card else UNREAD)
        corners = np.round(card.corners * k).astype(np.int32)
        cv2.polylines(out, [corners], True, colour, thick)
        text = card.card or {"down": "back", "unknown": "?"}.get(card.state, "face up")
        if card.card:
            text += f" {card.confidence:.2f}"
        if card.place:
            text += f" ({card.place})"
        _label(out, text, corners.mean(axis=0), colour, font, thick)
    for chip in snapshot.chips:
        centre = (round(chip.centre[0] * k), round(chip.centre[1] * k))
        colour = BGR.get(chip.colour, BGR["other"])
        cv2.circle(out, centre, round(chip.radius * k), (0, 0, 0), thick + 2)
        cv2.circle(out, centre, round(chip.radius * k), colour, thick)
        _label(out, chip.colour + ("" if chip.on_table else " (off table)"), np.array(centre, float), colour,
               font * 0.8, thick)
    if snapshot.button is not None:
        centre = np.array(snapshot.button) * k
        _label(out, "BUTTON", centre, (255, 255, 255), font, thick)
    return out


def _label(out: np.ndarray, text: str, centre: np.ndarray, colour: tuple[int, int, int], font: float,
           thick: int) -> None:
    (w, h), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, font, thick)
    x, y = round(float(centre[0]) - w / 2), round(float(centre[1]) + h / 2)
    cv2.rectangle(out, (x - 3, y - h - 4), (x + w + 3, y + 5), colour, -1)
    ink = (0, 0, 0) if sum(colour) > 300 else (255, 255, 255)
    cv2.putText(out, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, font, ink, thick, cv2.LINE_AA)


def write_annotated(path: Path, image: np.ndarray, snapshot: Snapshot) -> Path:
    """Draw and write a JPEG; ValueError naming the path when it can't be written."""
    picture = draw_snapshot(image, snapshot)
    ok, data = cv2.imencode(".jpg", picture, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise ValueError(f"cannot encode the annotated picture for {path}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.tobytes())
    except OSError as exc:
        raise ValueError(f"cannot write {path}: {exc.strerror or exc}") from exc
    return path

"""Corner-index crops for the identity classifier, cut from the prepared by-source splits.

The crop geometry is shared with run time (``tablewatch.vision.classifier.crop_index``), so training
and inference see indices framed the same way.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tablewatch.vision.cards import BACK_LABEL
from tablewatch.vision.classifier import CROP_HW, crop_index
from tablewatch.vision.sources import read_image


def face_up_names(names: list[str]) -> list[str]:
    """The classifier's classes: every detector class but ``BACK``, in the detector's order."""
    return [name for name in names if name != BACK_LABEL]


def extract_crops(
    split_dir: Path, names: list[str], *, jitter: int = 0, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """(N, H, W, 3) uint8 BGR crops of every face-up index box of a split, and their classifier labels.

    ``jitter`` > 0 adds that many extra crops per box with the box moved and scaled by up to 15 % (the
    detector's boxes are not exact either).
    """
    rng = np.random.default_rng(seed)
    classes = face_up_names(names)
    index_of = {name: i for i, name in enumerate(classes)}
    crops, labels = [], []
    for image_path in sorted((split_dir / "images").glob("*")):
        image = read_image(image_path)
        height, width = image.shape[:2]
        label_path = split_dir / "labels" / f"{image_path.stem}.txt"
        for row in label_path.read_text(encoding="utf-8").splitlines():
            parts = row.split()
            if not parts or names[int(parts[0])] == BACK_LABEL:
                continue
            cx, cy, w, h = (float(v) for v in parts[1:5])
            box = np.array([(cx - w / 2) * width, (cy - h / 2) * height, (cx + w / 2) * width, (cy + h / 2) * height])
            for k in range(1 + jitter):
                moved = box if k == 0 else _jitter(box, rng)
                crops.append(crop_index(image, moved))
                labels.append(index_of[names[int(parts[0])]])
    if not crops:
        return np.zeros((0, *CROP_HW, 3), np.uint8), np.zeros(0, np.int64)
    return np.stack(crops), np.asarray(labels, dtype=np.int64)


def _jitter(box: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    w, h = box[2] - box[0], box[3] - box[1]
    cx, cy = (box[0] + box[2]) / 2 + rng.uniform(-0.15, 0.15) * w, (box[1] + box[3]) / 2 + rng.uniform(-0.15, 0.15) * h
    s = rng.uniform(0.85, 1.15)
    return np.array([cx - s * w / 2, cy - s * h / 2, cx + s * w / 2, cy + s * h / 2])

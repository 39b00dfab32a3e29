"""Corner-index crops for the identity classifier, cut from the prepared by-source splits.

The crop geometry is shared with run time (``tablewatch.vision.classifier.crop_index``), so training
and inference see indices framed the same way.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tablewatch.models.dataset import read_class_names
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
    pairs = [(image, split_dir / "labels" / f"{image.stem}.txt") for image in sorted((split_dir / "images").glob("*"))]
    return _crops(pairs, names, face_up_names(names), jitter=jitter, seed=seed)


def extract_rendered_crops(dataset_dir: Path, classes: list[str], *, split: str = "train",
                           jitter: int = 0, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Index crops from a ``tablewatch sim dataset`` folder, labelled in ``classes`` (the real set's
    classifier classes); its chips, hands and backs are skipped."""
    names = read_class_names(dataset_dir)
    images = sorted((dataset_dir / "images" / split).glob("*.jpg"))
    pairs = [(image, dataset_dir / "labels" / split / f"{image.stem}.txt") for image in images]
    return _crops(pairs, names, classes, jitter=jitter, seed=seed)


def _crops(pairs: list[tuple[Path, Path]], names: list[str], classes: list[str], *, jitter: int,
           seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    index_of = {name: i for i, name in enumerate(classes)}
    crops, labels = [], []
    for image_path, label_path in pairs:
        image = read_image(image_path)
        height, width = image.shape[:2]
        for row in label_path.read_text(encoding="utf-8").splitlines():
            parts = row.split()
            if not parts or names[int(parts[0])] not in index_of:
                continue
            cx, cy, w, h = (float(v) for v in parts[1:5])
            box = np.array([(cx - w / 2) * width, (cy - h / 2) * height, (cx + w / 2) * width, (cy + h / 2) * height])
            for k in range(1 + jitter):
                moved = box if k == 0 else jitter_box(box, rng)
                crops.append(crop_index(image, moved))
                labels.append(index_of[names[int(parts[0])]])
    if not crops:
        return np.zeros((0, *CROP_HW, 3), np.uint8), np.zeros(0, np.int64)
    return np.stack(crops), np.asarray(labels, dtype=np.int64)


def jitter_box(box: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``box`` moved by up to 15 % of its size and scaled by 0.85-1.15 (a detector's boxes are not exact)."""
    w, h = box[2] - box[0], box[3] - box[1]
    cx, cy = (box[0] + box[2]) / 2 + rng.uniform(-0.15, 0.15) * w, (box[1] + box[3]) / 2 + rng.uniform(-0.15, 0.15) * h
    s = rng.uniform(0.85, 1.15)
    return np.array([cx - s * w / 2, cy - s * h / 2, cx + s * w / 2, cy + s * h / 2])

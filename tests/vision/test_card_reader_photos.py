"""``CardReader`` (``tablewatch cards``) on a real photo from shared/data/cards-real, enlarged as a phone or a 4K
camera would take it. Skipped without the shared data (set TABLEWATCH_SHARED)."""

from __future__ import annotations

from pathlib import Path

import cv2
import pytest

from tablewatch.models.evaluate import read_class_names, read_labels
from tablewatch.vision.classifier import OnnxIndexClassifier, default_classifier_path
from tablewatch.vision.reader import CardReader
from tablewatch.vision.sources import read_image

PHOTO = "WIN_20240630_19_36_29_Pro_jpg.rf.31947449da0362c157f97278ee6da23b"  # a webcam frame of four cards


def test_a_large_photo_is_read_at_the_scale_its_indices_need_not_magnified_into_pips(shared_dir: Path) -> None:
    split = shared_dir / "data" / "cards-real" / "valid"
    if not (split / "images" / f"{PHOTO}.jpg").is_file():
        pytest.skip(f"{PHOTO} is not in {split}")
    names = read_class_names(split.parent)
    image = read_image(split / "images" / f"{PHOTO}.jpg")
    big = cv2.resize(image, None, fx=3, fy=3, interpolation=cv2.INTER_CUBIC)  # 1,920 px: its indices ~30 px
    classes, _ = read_labels(split / "labels" / f"{PHOTO}.txt", big.shape[1], big.shape[0])
    labelled = {names[int(c)] for c in classes} - {"BACK"}
    reading = CardReader(classifier=OnnxIndexClassifier(default_classifier_path())).read(big)
    assert reading.windows == 1  # the whole picture shows its indices large enough: no tiles
    listed = [card.label for card in reading.cards]
    assert listed and set(listed) <= labelled  # no pip or picture read as a card

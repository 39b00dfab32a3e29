"""Index crops from a rendered dataset are labelled in the real set's classes; chips and backs are skipped."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import yaml

from tablewatch.models.crops import extract_rendered_crops
from tablewatch.vision.classifier import CROP_HW


def test_rendered_crops_keep_only_the_classifier_classes(tmp_path: Path):
    (tmp_path / "images" / "train").mkdir(parents=True)
    (tmp_path / "labels" / "train").mkdir(parents=True)
    (tmp_path / "data.yaml").write_text(yaml.safe_dump({"names": ["AS", "BACK", "chip_25", "KD"]}))
    image = np.zeros((100, 200, 3), np.uint8)
    image[10:30, 10:30] = 255  # where the KD index is labelled
    cv2.imwrite(str(tmp_path / "images" / "train" / "000000.jpg"), image)
    rows = ["3 0.1 0.2 0.1 0.2", "1 0.5 0.5 0.2 0.4", "2 0.8 0.5 0.1 0.2", "0 0.9 0.9 0.05 0.1"]
    (tmp_path / "labels" / "train" / "000000.txt").write_text("\n".join(rows) + "\n")
    crops, labels = extract_rendered_crops(tmp_path, ["AS", "KD"])
    assert labels.tolist() == [1, 0]  # KD then AS, in the classifier's order; BACK and the chip are skipped
    assert crops.shape == (2, *CROP_HW, 3)
    assert crops[0].mean() > 100 > crops[1].mean()  # the KD crop is cut where the KD box is

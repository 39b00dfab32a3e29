"""Index crops for the identity classifier: framing, edges, and a clear error for a bad model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tablewatch.vision.classifier import (
    CROP_HW,
    VIEW_MARGINS,
    OnnxIndexClassifier,
    crop_index,
    index_views,
    resolve_classifier,
)
from tablewatch.vision.detections import Detections
from tablewatch.vision.detector import DetectorError


def test_crop_is_a_square_centred_on_the_box_with_a_margin():
    image = np.zeros((200, 300, 3), np.uint8)
    image[90:110, 140:160] = 255  # a 20 px white square: the "index"
    crop = crop_index(image, (140, 90, 160, 110))
    assert crop.shape == (*CROP_HW, 3)
    white = np.argwhere(crop[:, :, 0] > 127)
    side = CROP_HW[0] / 1.25  # the box fills 1 / CROP_MARGIN of the crop
    assert white.min(0) == pytest.approx([(CROP_HW[0] - side) / 2] * 2, abs=1)
    assert white.max(0) + 1 == pytest.approx([(CROP_HW[0] + side) / 2] * 2, abs=1)


def test_an_index_is_read_framed_three_ways_each_also_upside_down():
    image = np.zeros((200, 300, 3), np.uint8)
    image[90:100, 140:160] = 255  # the top half of the "index" white: up and down differ
    views = index_views(image, (140, 90, 160, 110))
    assert len(views) == 2 * len(VIEW_MARGINS) and all(v.shape == (*CROP_HW, 3) for v in views)
    for k, margin in enumerate(VIEW_MARGINS):
        upright, turned = views[2 * k], views[2 * k + 1]
        np.testing.assert_array_equal(upright, crop_index(image, (140, 90, 160, 110), margin))
        np.testing.assert_array_equal(turned, upright[::-1, ::-1])
        assert upright[: CROP_HW[0] // 2].mean() > upright[CROP_HW[0] // 2:].mean()  # white on top, then below
        assert turned[: CROP_HW[0] // 2].mean() < turned[CROP_HW[0] // 2:].mean()
    # tighter framing shows the index larger
    assert (views[0] > 127).sum() > (views[-2] > 127).sum()


def test_crop_at_the_image_edge_repeats_edge_pixels():
    image = np.full((50, 50, 3), 80, np.uint8)
    crop = crop_index(image, (-10, -10, 10, 10))
    assert crop.shape == (*CROP_HW, 3) and (crop == 80).all()


def test_a_missing_or_broken_classifier_is_a_clear_error(tmp_path: Path):
    with pytest.raises(DetectorError, match="classifier model file not found"):
        OnnxIndexClassifier(tmp_path / "none.onnx")
    broken = tmp_path / "cls.onnx"
    broken.write_bytes(b"nope")
    with pytest.raises(DetectorError, match="cannot load the index classifier"):
        OnnxIndexClassifier(broken)


def test_resolve_classifier_choices(tmp_path: Path):
    assert resolve_classifier("none") is None
    assert resolve_classifier(tmp_path / "x.onnx") == tmp_path / "x.onnx"


class FixedClassifier(OnnxIndexClassifier):
    """The relabelling logic with a stand-in for the network: always answers ``names[1]`` with p = 0.64."""

    def __init__(self) -> None:  # no ONNX file: only ``probabilities`` differs
        self.names = ["AS", "KD"]

    def probabilities(self, crops: np.ndarray) -> np.ndarray:
        return np.tile(np.array([[0.36, 0.64]], np.float32), (len(crops), 1))


def test_relabel_takes_identity_from_crops_and_merges_one_index_boxed_twice():
    names = {0: "AS", 1: "BACK", 2: "KD"}
    image = np.zeros((100, 100, 3), np.uint8)
    boxes = np.array([[10, 10, 20, 25], [10, 11, 20, 25], [50, 50, 90, 95]], np.float32)
    found = Detections(boxes, np.array([0.25, 0.2, 0.9]), np.array([0, 2, 1]))
    out = FixedClassifier().relabel(image, found, names)
    assert out.class_id.tolist() == [2, 1]  # the two boxes on one index became one KD; the back is kept
    np.testing.assert_allclose(out.confidence, [np.sqrt(0.64 * 0.25), 0.9], rtol=1e-5)


def test_draw_cards_marks_the_index_boxes():
    from tablewatch.vision.annotate import AGREED, draw_cards
    from tablewatch.vision.cards import Card

    image = np.zeros((200, 200, 3), np.uint8)
    card = Card(label="AS", card="As", confidence=0.9, box=(50, 60, 150, 170),
                index_boxes=((50, 60, 70, 90), (130, 140, 150, 170)), agreed=True)
    out = draw_cards(image, [card])
    assert tuple(out[75, 50]) == AGREED and tuple(out[155, 150]) == AGREED  # left and right box edges
    assert not image.any()  # the input is not drawn on


def test_a_box_only_detector_gets_names_from_the_classifier():
    detector_names = {0: "INDEX", 1: "BACK"}
    classifier = FixedClassifier()
    names = classifier.output_names(detector_names)
    assert names == {0: "AS", 1: "KD", 2: "BACK"}
    boxes = np.array([[10, 10, 20, 25], [50, 50, 90, 95]], np.float32)
    found = Detections(boxes, np.array([0.5, 0.9]), np.array([0, 1]))
    out = classifier.relabel(np.zeros((100, 100, 3), np.uint8), found, detector_names)
    assert [names[c] for c in out.class_id.tolist()] == ["KD", "BACK"]


class BrightnessClassifier(FixedClassifier):
    """Answers ``AS`` with the crop's mean brightness as its probability, else ``KD``."""

    def probabilities(self, crops: np.ndarray) -> np.ndarray:
        p = crops.mean(axis=(1, 2, 3)) / 255.0
        return np.stack([p, 1 - p], axis=1).astype(np.float32)


def test_each_index_is_named_by_the_average_of_its_own_views():
    image = np.zeros((100, 200, 3), np.uint8)
    image[:, :100] = 255  # white on the left
    white, edge = (40, 40, 60, 50), (101, 40, 121, 50)  # box 2 by the edge: its wider views take in white
    found = Detections(np.array([white, edge], np.float32), np.array([0.9, 0.9]), np.array([0, 0]))
    out = BrightnessClassifier().relabel(image, found, {0: "INDEX", 1: "BACK"})
    assert out.class_id.tolist() == [0, 1]  # AS, KD
    views = np.stack(index_views(image, edge))
    dark = 1 - views.mean(axis=(1, 2, 3)) / 255.0
    assert dark.min() < dark.max()  # (the views of box 2 differ)
    np.testing.assert_allclose(out.confidence, [np.sqrt(0.9), np.sqrt(dark.mean() * 0.9)], rtol=1e-5)


def test_a_box_only_detector_without_a_classifier_is_a_clear_error():
    from tablewatch.vision.reader import CardReader

    class BoxOnlyDetector:
        path, names, imgsz = Path("cards-boxes.onnx"), {0: "INDEX", 1: "BACK"}, 320

    with pytest.raises(DetectorError, match="needs the index classifier"):
        CardReader(BoxOnlyDetector())  # type: ignore[arg-type]


def test_the_default_detector_is_never_the_classifier_or_the_verifier(tmp_path: Path):
    import os

    from tablewatch.vision.detector import default_model_path

    detector, classifier = tmp_path / "cards-yolo11n-320.onnx", tmp_path / "cards-index-cls-32.onnx"
    detector.write_bytes(b"d")
    classifier.write_bytes(b"c")
    (tmp_path / "cards-index-verify-32.onnx").write_bytes(b"v")
    os.utime(detector, (1, 1))  # the classifier and the verifier are the newer files
    assert default_model_path(tmp_path) == detector

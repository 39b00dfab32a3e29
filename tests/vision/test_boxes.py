"""Letterbox, IoU, NMS and the decoding of an ultralytics ONNX detection head."""

from __future__ import annotations

import numpy as np
import pytest

from tablewatch.vision.boxes import PAD_VALUE, batched_nms, box_iou, decode_yolo, letterbox, nms


@pytest.mark.parametrize(
    ("shape", "size", "scale", "pad"),
    [
        ((640, 640), 320, 0.5, (0, 0)),
        ((720, 1280), 320, 0.25, (0, 70)),  # wide: padded top and bottom, (320 - 180) / 2
        ((1280, 720), 320, 0.25, (70, 0)),  # tall: padded left and right
        ((100, 50), 320, 3.2, (80, 0)),  # small images are scaled up
    ],
)
def test_letterbox_scales_and_pads_evenly(shape, size, scale, pad):
    image = np.full((*shape, 3), 200, dtype=np.uint8)
    out, box = letterbox(image, size)
    assert out.shape == (size, size, 3)
    assert box.scale == pytest.approx(scale)
    assert (box.pad_x, box.pad_y) == pad
    if pad[1]:
        assert (out[: pad[1] - 1] == PAD_VALUE).all() and (out[-pad[1] + 1 :] == PAD_VALUE).all()
    assert (out[pad[1] + 1 : size - pad[1] - 1, pad[0] + 1 : size - pad[0] - 1] == 200).all()


def test_letterbox_box_maps_back_to_the_image():
    image = np.zeros((720, 1280, 3), dtype=np.uint8)
    _, box = letterbox(image, 320)
    image_box = np.array([[100.0, 200.0, 300.0, 400.0]], dtype=np.float32)
    model_box = image_box * box.scale + np.array([box.pad_x, box.pad_y] * 2, dtype=np.float32)
    np.testing.assert_allclose(box.to_image(model_box), image_box, atol=1e-3)


def test_letterbox_rejects_an_empty_image():
    with pytest.raises(ValueError, match="empty image"):
        letterbox(np.zeros((0, 10, 3), dtype=np.uint8), 320)


def test_box_iou_known_values():
    a = np.array([[0, 0, 10, 10]])
    b = np.array([[0, 0, 10, 10], [5, 0, 15, 10], [20, 20, 30, 30], [0, 0, 5, 5]])
    np.testing.assert_allclose(box_iou(a, b)[0], [1.0, 50 / 150, 0.0, 0.25], atol=1e-6)


def test_nms_keeps_the_best_of_overlapping_boxes_and_separate_ones():
    boxes = np.array([[0, 0, 10, 10], [1, 1, 11, 11], [50, 50, 60, 60], [0, 0, 10, 9]], dtype=np.float32)
    scores = np.array([0.8, 0.9, 0.5, 0.3])
    assert nms(boxes, scores, 0.5).tolist() == [1, 2]
    assert nms(boxes, scores, 0.99).tolist() == [1, 0, 2, 3]


def test_batched_nms_never_suppresses_across_classes():
    boxes = np.array([[0, 0, 10, 10], [1, 1, 11, 11], [1, 1, 11, 11]], dtype=np.float32)
    scores = np.array([0.9, 0.8, 0.7])
    kept = batched_nms(boxes, scores, np.array([0, 1, 0]), 0.5)
    assert sorted(kept.tolist()) == [0, 1]
    assert batched_nms(np.zeros((0, 4), np.float32), np.zeros(0), np.zeros(0, int), 0.5).size == 0


def _head(boxes_cxcywh: list[tuple[float, ...]], scores: list[list[float]], n_anchors: int = 50) -> np.ndarray:
    """A (1, 4 + nc, n_anchors) array laid out like ultralytics' ONNX output; unused anchors score 0."""
    nc = len(scores[0])
    out = np.zeros((1, 4 + nc, n_anchors), dtype=np.float32)
    out[0, :4, :] = 5.0
    for i, (box, score) in enumerate(zip(boxes_cxcywh, scores, strict=True)):
        out[0, :4, i] = box
        out[0, 4:, i] = score
    return out


def test_decode_yolo_reads_centre_size_and_class_scores():
    output = _head([(100, 50, 20, 10), (101, 51, 20, 10), (200, 200, 40, 40)],
                   [[0.1, 0.9, 0.0], [0.0, 0.6, 0.1], [0.7, 0.0, 0.2]])
    xyxy, conf, cls = decode_yolo(output, conf=0.25, iou=0.5)
    np.testing.assert_allclose(xyxy, [[90, 45, 110, 55], [180, 180, 220, 220]])
    np.testing.assert_allclose(conf, [0.9, 0.7])
    assert cls.tolist() == [1, 0]


def test_decode_yolo_threshold_and_empty_output():
    output = _head([(100, 50, 20, 10)], [[0.2, 0.1]])
    xyxy, conf, cls = decode_yolo(output, conf=0.25, iou=0.5)
    assert xyxy.shape == (0, 4) and conf.size == 0 and cls.size == 0


def test_decode_yolo_rejects_a_wrong_layout():
    with pytest.raises(ValueError, match="4 \\+ classes"):
        decode_yolo(np.zeros((1, 3, 10), np.float32), conf=0.25, iou=0.5)

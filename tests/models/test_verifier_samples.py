"""The index verifier's training samples: decoys sized as indices, on ink, away from every labelled index; and
the AUC its epochs are chosen by."""

from __future__ import annotations

import numpy as np

from tablewatch.models.verifier_train import NO_IOU, auc, augment, decoy_boxes
from tablewatch.vision.boxes import box_iou


def test_decoys_are_index_sized_boxes_on_ink_overlapping_no_labelled_index():
    rng = np.random.default_rng(0)
    image = np.full((400, 400, 3), 230, np.uint8)
    image[50:80, 50:70] = 20  # a labelled index's ink
    for x in (200, 260, 320):  # pips elsewhere
        image[300:320, x:x + 20] = 20
    faces = np.array([[48.0, 48.0, 72.0, 82.0]])
    decoys = decoy_boxes(image, faces, 10, rng)
    assert len(decoys) == 10
    for box in decoys:
        assert box_iou(box[None], faces).max() < NO_IOU
        np.testing.assert_allclose(box[2:] - box[:2], faces[0, 2:] - faces[0, :2])
        cx, cy = ((box[:2] + box[2:]) / 2).round().astype(int)
        around = image[cy - 3:cy + 4, cx - 3:cx + 4, 0]
        assert (around < 128).any() and (around > 128).any()  # centred on ink's edge, not on blank paper
    assert decoy_boxes(image, faces[:0], 10, rng) == []  # no labelled index: no size to copy


def test_auc_counts_indices_scored_above_non_indices():
    labels = np.array([1, 1, 0, 0])
    assert auc(np.array([0.9, 0.8, 0.1, 0.2]), labels) == 1.0
    assert auc(np.array([0.1, 0.2, 0.9, 0.8]), labels) == 0.0
    assert auc(np.array([0.5, 0.5, 0.5, 0.5]), labels) == 0.5
    assert np.isnan(auc(np.array([0.5]), np.array([1])))


def test_augmenting_turns_both_views_of_a_sample_alike():
    sample = np.zeros((32, 32, 6), np.uint8)
    sample[:8, :, :3] = 255  # the top rows of both views white
    sample[:8, :, 3:] = 255
    out = augment(sample, np.random.default_rng(3))
    assert out.shape == sample.shape
    bright = [np.argwhere(out[..., k] > 127).mean(axis=0) for k in (0, 3)]
    np.testing.assert_allclose(bright[0], bright[1], atol=1.0)  # the white moved to the same side in both

"""The evaluation's arithmetic: AP at IoU 0.5, prediction matching, card identity tallies."""

from __future__ import annotations

import numpy as np
import pytest

from tablewatch.models.evaluate import ApInputs, average_precision, map50, match_predictions, tally_cards
from tablewatch.vision.cards import Card

NAMES = {0: "AS", 1: "KD", 2: "BACK"}


def test_perfect_and_empty_precision_recall_curves():
    # as in ultralytics, a perfect curve scores 0.995: the envelope ends at (recall 1, precision 0), so the
    # last of the 100 trapezoids counts half
    assert average_precision(np.array([0.5, 1.0]), np.array([1.0, 1.0])) == pytest.approx(0.995)
    assert average_precision(np.array([0.0]), np.array([0.0])) == pytest.approx(0.0, abs=1e-9)
    # half the labels found with perfect precision: the envelope falls linearly from (0.5, 1) to (1, 0)
    assert average_precision(np.array([0.5]), np.array([1.0])) == pytest.approx(0.75)


def test_match_predictions_one_label_per_prediction_and_class_must_match():
    gt_cls, gt = np.array([0, 1]), np.array([[0, 0, 10, 10], [20, 20, 30, 30]], np.float32)
    pred_cls = np.array([0, 0, 0, 1])
    pred = np.array([[0, 0, 10, 10], [1, 1, 10, 10], [20, 20, 30, 30], [40, 40, 50, 50]], np.float32)
    assert match_predictions(pred_cls, pred, gt_cls, gt).tolist() == [True, False, False, False]


def test_map50_is_the_mean_over_labelled_classes():
    inputs = ApInputs(cls=[np.array([0, 1])], conf=[np.array([0.9, 0.8])], tp=[np.array([True, False])])
    inputs.n_labels.update({0: 1, 1: 1})
    m, per_class = map50(inputs)
    assert per_class == {0: pytest.approx(0.995), 1: pytest.approx(0.0)}
    assert m == pytest.approx(0.4975)


def card(label: str, *boxes: tuple[float, float, float, float], agreed: bool = False) -> Card:
    return Card(label=label, card=None, confidence=0.9, box=boxes[0], index_boxes=boxes, agreed=agreed)


def test_tally_counts_found_correct_and_precision_per_card():
    gt_cls = np.array([0, 0, 1, 2])  # an ace with two indices, a king, a back (not a face-up card)
    gt = np.array([[0, 0, 10, 10], [100, 100, 110, 110], [200, 0, 210, 10], [300, 0, 400, 100]], np.float32)
    read = [card("AS", (0, 0, 10, 10), (100, 100, 110, 110), agreed=True), card("AS", (200, 0, 210, 10))]
    tally = tally_cards(read, gt_cls, gt, NAMES)
    assert (tally.labelled, tally.found, tally.correct) == (2, 2, 1)  # the king was found but misread
    assert (tally.read, tally.read_right, tally.agreed_read, tally.agreed_right) == (2, 1, 1, 1)
    figures = tally.figures()
    assert figures["identity_accuracy"] == 0.5 and figures["precision"] == 0.5 and figures["agreed_precision"] == 1.0


def test_a_card_listed_twice_is_right_once():
    # the ace's two indices were not paired: two listings of one card
    gt_cls = np.array([0, 0])
    gt = np.array([[0, 0, 10, 10], [100, 100, 110, 110]], np.float32)
    read = [card("AS", (0, 0, 10, 10)), card("AS", (100, 100, 110, 110))]
    tally = tally_cards(read, gt_cls, gt, NAMES)
    assert (tally.labelled, tally.correct, tally.read, tally.read_right) == (1, 1, 2, 1)

"""The Detections type, card identity from index boxes, and the tile windows."""

from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from tablewatch.vision.cards import group_cards, pokerkit_card
from tablewatch.vision.detections import Detections
from tablewatch.vision.tiling import (
    detect_windows,
    pyramid_levels,
    read_enough,
    tile_windows,
    windows_1d,
)

NAMES = {0: "10H", 1: "AS", 2: "BACK", 3: "6H", 4: "9H", 5: "RED JOKER"}


def dets(rows: list[tuple[float, float, float, float, float, int]]) -> Detections:
    array = np.array(rows, dtype=np.float32).reshape(-1, 6)
    return Detections(array[:, :4], array[:, 4], array[:, 5].astype(int), metadata={"names": NAMES})


def test_detections_checks_lengths_and_names_the_field():
    with pytest.raises(ValueError, match="confidence has 1 entries; xyxy has 2 boxes"):
        Detections(np.zeros((2, 4)), np.zeros(1), np.zeros(2))


def test_detections_mask_index_merge_and_shift():
    d = dets([(0, 0, 10, 10, 0.9, 0), (5, 5, 20, 20, 0.3, 1)])
    strong = d[d.confidence > 0.5]
    assert len(strong) == 1 and strong.class_id.tolist() == [0]
    assert len(d) == 2  # the input is unchanged
    merged = Detections.merge([d, strong, Detections.empty()])
    assert len(merged) == 3
    np.testing.assert_allclose(strong.shifted(100, 50).xyxy, [[100, 50, 110, 60]])
    assert d.to_dicts()[1] == {"xyxy": [5.0, 5.0, 20.0, 20.0], "confidence": 0.3, "class_id": 1, "class_name": "AS"}


def test_detections_from_ultralytics_reads_attributes_only():
    boxes = SimpleNamespace(xyxy=np.array([[1, 2, 3, 4]]), conf=np.array([0.5]), cls=np.array([1.0]), id=None)
    d = Detections.from_ultralytics(SimpleNamespace(boxes=boxes, names={0: "a", 1: "b"}))
    assert d.class_id.tolist() == [1] and d.tracker_id is None and d.metadata["names"][1] == "b"


@pytest.mark.parametrize(("label", "card"), [("10H", "Th"), ("AS", "As"), ("2C", "2c"), ("QD", "Qd"),
                                             ("RED JOKER", None), ("BACK", None)])
def test_pokerkit_card_notation(label, card):
    assert pokerkit_card(label) == card


def test_two_agreeing_corner_indices_make_one_identified_card():
    # the two indices of one Ten of hearts, 150 px apart (index 20 px): one card, agreed
    cards = group_cards(dets([(0, 0, 20, 30, 0.8, 0), (150, 200, 170, 230, 0.7, 0)]), NAMES)
    assert len(cards) == 1
    card = cards[0]
    assert card.card == "Th" and card.agreed and len(card.index_boxes) == 2
    assert card.confidence == pytest.approx(1 - 0.2 * 0.3)
    assert card.box == (0, 0, 170, 230)


def test_far_apart_boxes_of_one_class_are_two_cards_and_backs_are_not_face_up():
    cards = group_cards(dets([(0, 0, 20, 30, 0.8, 0), (900, 900, 920, 930, 0.7, 0), (300, 0, 400, 150, 0.9, 2)]), NAMES)
    assert [c.card for c in cards] == ["Th", "Th"]
    assert not any(c.agreed for c in cards)


def test_one_index_read_two_ways_keeps_the_stronger_reading_as_unconfirmed():
    cards = group_cards(dets([(0, 0, 20, 30, 0.6, 3), (1, 0, 21, 30, 0.4, 4), (150, 200, 170, 230, 0.7, 3)]), NAMES)
    assert len(cards) == 1
    assert cards[0].card == "6h" and cards[0].alternatives == ("9H",) and not cards[0].agreed


def test_one_index_boxed_twice_is_one_index_and_pairs_with_the_cards_other_corner():
    # the detector boxed the Ten's top index twice, a little apart; its other index is across the card
    cards = group_cards(dets([(0, 0, 20, 30, 0.8, 0), (6, 8, 26, 38, 0.7, 0), (150, 200, 170, 230, 0.6, 0)]), NAMES)
    assert len(cards) == 1
    assert cards[0].agreed and cards[0].index_boxes == ((0, 0, 20, 30), (150, 200, 170, 230))


def test_with_one_deck_an_identity_is_listed_once_on_its_surest_card():
    rows = [(0, 0, 20, 30, 0.6, 0), (900, 900, 920, 930, 0.9, 0), (400, 0, 420, 30, 0.7, 1)]
    cards = group_cards(dets(rows), NAMES, one_deck=True)
    assert [(c.card, c.index_boxes[0][0]) for c in cards] == [("Th", 900), ("As", 400)]


def test_a_card_on_one_index_needs_more_confidence_than_one_its_two_indices_confirm():
    # a Ten read on both its indices at 0.45 each; a lone Ace of spades box at 0.45 (a pip read as an index) and
    # a lone six at 0.6
    rows = [(0, 0, 20, 30, 0.45, 0), (150, 200, 170, 230, 0.45, 0), (400, 0, 420, 30, 0.45, 1),
            (600, 0, 620, 30, 0.6, 3)]
    cards = group_cards(dets(rows), NAMES, lone_conf=0.5)
    assert sorted(c.card for c in cards) == ["6h", "Th"]
    assert len(group_cards(dets(rows), NAMES)) == 3


def test_a_joker_is_a_face_up_card_without_a_poker_identity():
    cards = group_cards(dets([(0, 0, 20, 30, 0.8, 5)]), NAMES)
    assert cards[0].label == "RED JOKER" and cards[0].card is None


@pytest.mark.parametrize(("length", "tile", "overlap", "expected"), [
    (100, 200, 0.25, [(0, 100)]),
    (1000, 400, 0.25, [(0, 400), (300, 700), (600, 1000)]),
    (1000, 500, 0.0, [(0, 500), (500, 1000)]),
])
def test_windows_1d_cover_with_overlap(length, tile, overlap, expected):
    assert windows_1d(length, tile, overlap) == expected


def test_pyramid_starts_with_the_whole_image_and_stops_at_min_tile_coarsest_first():
    levels = pyramid_levels(2160, 3840, min_tile=640)
    assert levels[0] == [(0, 0, 3840, 2160)]
    assert [{max(x1 - x0, y1 - y0) for x0, y0, x1, y1 in level} for level in levels[1:]] == [{1920}, {960}]
    covered = np.zeros((2160, 3840), bool)
    for x0, y0, x1, y1 in tile_windows(2160, 3840, tile=960):
        covered[y0:y1, x0:x1] = True
    assert covered.all()


def test_a_level_is_read_enough_when_its_indices_are_large_at_the_detectors_input():
    level = [(0, 0, 3200, 3200)]  # one window, seen at 320 px: a tenth of its size
    assert read_enough(dets([(0, 0, 150, 250, 0.5, 0), (900, 0, 1000, 220, 0.5, 1)]), level, 320, readable_px=20)
    assert not read_enough(dets([(0, 0, 80, 120, 0.5, 0)]), level, 320, readable_px=20)  # 12 px: tiles needed
    assert not read_enough(dets([]), level, 320, readable_px=20)


def test_detect_windows_drops_boxes_cut_by_a_tile_edge_and_merges_duplicates():
    image = np.zeros((100, 200, 3), np.uint8)
    image[10:40, 90:110] = 255  # whole in both tiles
    image[60:80, 110:130] = 255  # cut by the left tile's right edge (x 120), whole in the right tile

    def blob_detector(crop: np.ndarray) -> Detections:  # a stand-in model: boxes of the white blobs
        contours, _ = cv2.findContours((crop[:, :, 0] > 0).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        rects = [cv2.boundingRect(c) for c in contours]
        return dets([(x, y, x + w, y + h, 0.9, 1) for x, y, w, h in rects])

    found = detect_windows(blob_detector, image, [(0, 0, 120, 100), (80, 0, 200, 100)])
    assert sorted(map(tuple, found.xyxy.astype(int).tolist())) == [(90, 10, 110, 40), (110, 60, 130, 80)]

"""Training-time looks of the classifier's crops: a black deck recoloured from a white one; a render as photographed."""

from __future__ import annotations

import numpy as np

from tablewatch.models.classifier_train import GOLD, SILVER, as_black_deck, is_dark_faced, photo_look


def _index_crop() -> np.ndarray:
    """White paper with a red mark on the left and a black mark on the right (BGR)."""
    crop = np.full((32, 32, 3), 235, np.uint8)
    crop[8:24, 4:14] = (40, 40, 200)
    crop[8:24, 18:28] = (25, 25, 25)
    return crop


def test_white_paper_turns_black_red_ink_gold_and_black_ink_silver() -> None:
    out = as_black_deck(_index_crop(), np.random.default_rng(0)).astype(float)
    paper, red, black = out[2:6, 2:30].mean((0, 1)), out[10:22, 6:12].mean((0, 1)), out[10:22, 20:26].mean((0, 1))
    assert paper.max() < 70
    assert np.linalg.norm(red / red.max() - GOLD / GOLD.max()) < 0.1  # the hue of gold
    assert np.linalg.norm(black / black.max() - SILVER / SILVER.max()) < 0.1
    assert red.mean() > 2 * paper.mean() and black.mean() > 2 * paper.mean()


def test_only_white_faced_crops_count_as_recolourable() -> None:
    crop = _index_crop()
    assert not is_dark_faced(crop)
    assert is_dark_faced(as_black_deck(crop, np.random.default_rng(1)))


def test_a_render_photographed_is_greyer_flatter_and_keeps_its_ink() -> None:
    crop = _index_crop()
    looks = [photo_look(crop, np.random.default_rng(seed)).astype(float) for seed in range(20)]
    assert all(look.shape == crop.shape for look in looks)
    paper = [look[2:6, 2:30].mean() for look in looks]
    contrast = [look[2:6, 2:30].mean() - look[10:22, 20:26].mean() for look in looks]
    assert max(paper) <= 236 and np.mean(paper) < 215  # bright render paper comes out grey, as photographed
    assert min(contrast) > 80 and np.mean(contrast) < 210 - 25  # the black ink still reads, less starkly
    red = [look[10:22, 6:12].mean(axis=(0, 1)) for look in looks]
    assert all(r[2] > r[0] + 60 for r in red)  # red ink stays red


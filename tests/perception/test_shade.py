"""Someone's shadow passing over the felt is less light on the same colour (and its going, more), not a thing on the
table: a sleeve or a chip changes the colour; over a grey felt nothing can be told apart so, and nothing is taken for
a shadow."""

from __future__ import annotations

import numpy as np

from tablewatch.vision.perception.scene import lit_otherwise

FELT = (40, 100, 30)  # BGR: a green felt


def shaded(reference: tuple[int, int, int], now: tuple[int, int, int] | tuple[float, float, float]) -> bool:
    ref = np.full((4, 4, 3), reference, np.uint8)
    cur = np.full((4, 4, 3), np.clip(now, 0, 255), np.uint8)
    return bool(lit_otherwise(cur, ref, np.ones((4, 4), bool)).all())


def test_the_felt_in_a_shadow_or_out_of_it_is_shade_and_a_sleeve_or_a_chip_is_not() -> None:
    assert shaded(FELT, tuple(0.6 * v for v in FELT))  # 40 % less light
    assert shaded(FELT, tuple(0.85 * v for v in FELT))
    assert not shaded(FELT, (60, 60, 60))  # a grey sleeve
    assert not shaded(FELT, (20, 20, 25))  # a black chip
    assert not shaded(FELT, (30, 40, 150))  # a red chip
    assert shaded(FELT, tuple(1.4 * v for v in FELT))  # where a shadow the reference took in has gone
    assert not shaded(FELT, tuple(0.25 * v for v in FELT))  # darker than a shadow leaves a felt


def test_over_a_grey_felt_nothing_is_taken_for_a_shadow() -> None:
    assert not shaded((90, 90, 90), (54, 54, 54))  # a dark grey sleeve looks just so

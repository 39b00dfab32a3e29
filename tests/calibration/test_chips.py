"""Chip colours: learned from a picture of the tray, stored in the profile, used to name a chip's value."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tablewatch.calibration.chips import (
    CHIP_PAINTS,
    DEMO_CHIPS,
    ChipColourError,
    from_palette,
    learn_from_tray,
    painted_chip_colours,
)
from tablewatch.calibration.drawing import draw_top_down, table_to_top_down
from tablewatch.calibration.layout import TableLayout
from tablewatch.calibration.markers import calibrate_image
from tablewatch.calibration.synthetic import add_noise
from tests.calibration.conftest import POSES, draw_tray

VALUES = [s.value for s in DEMO_CHIPS]  # 25, 100, 500, 1000, 5000
BGR = [CHIP_PAINTS[s.colour] for s in DEMO_CHIPS]


def _tray_photo(colours: list[tuple[int, int, int]], *, seed: int = 0) -> np.ndarray:
    """A top-down photo of the tray alone (1 px/mm), the columns in the given colours."""
    from tests.calibration.conftest import layout

    lay = layout()
    tray = lay.polygon("tray")
    (x0, y0), (x1, y1) = tray.min(axis=0), tray.max(axis=0)
    plan_from_mm = np.array([[1.0, 0, -x0], [0, 1.0, -y0], [0, 0, 1]])
    photo = np.zeros((round(y1 - y0) + 1, round(x1 - x0) + 1, 3), np.uint8)
    draw_tray(photo, plan_from_mm, lay, colours)
    return add_noise(photo, sigma=4.0, seed=seed)


def _patch(bgr: tuple[int, int, int], *, gain: float = 1.0, seed: int = 0) -> np.ndarray:
    patch = np.full((12, 12, 3), bgr, np.float32) * gain
    return add_noise(np.clip(patch, 0, 255).astype(np.uint8), sigma=4.0, seed=seed)


def test_colours_learned_from_a_tray_photo_name_each_chip() -> None:
    chips = learn_from_tray(_tray_photo(BGR), VALUES)
    assert chips.values() == VALUES
    for value, bgr in zip(VALUES, BGR, strict=True):
        for gain in (0.85, 1.0, 1.1):  # a little darker or brighter than in the tray
            assert chips.classify_patch(_patch(bgr, gain=gain)) == value
    assert chips.classify((200, 40, 40)) is None  # a blue chip the venue does not use


def _spotted_tray(columns: list[tuple[tuple[int, int, int], tuple[int, int, int], float]]) -> np.ndarray:
    """A tray photo of chips on edge: per column (body, spot colour, share of the edge that is spot)."""
    photo = np.full((80, 60 * len(columns), 3), (150, 160, 170), np.uint8)
    for k, (body, spot, share) in enumerate(columns):
        photo[8:-8, 60 * k + 8 : 60 * k + 52] = body
        for y in range(8, 72, 8):  # one chip every 8 px; its spot band across the middle of the column
            photo[y : y + round(8 * share), 60 * k + 8 : 60 * k + 52] = spot
    return add_noise(photo, sigma=4.0, seed=1)


def test_a_body_outweighed_by_its_dark_spots_is_still_the_body() -> None:
    """The simulator's yellow 1000 shows more black (spots, ring, side) than yellow; a neutral chip (the black
    100) is still read by its larger area."""
    white, black = CHIP_PAINTS["white"], CHIP_PAINTS["black"]
    columns = [(BGR[0], white, 0.3), (BGR[1], white, 0.3), (BGR[3], black, 0.6), (BGR[4], white, 0.3)]
    values = [25, 100, 1000, 5000]
    photo = _spotted_tray(columns)
    chips = learn_from_tray(photo, values)
    palette = painted_chip_colours()
    assert [palette.classify(c.bgr, max_distance=99) for c in chips.chips] == values
    for k, value in enumerate(values):  # each column's chips alone, as a detector would hand them over
        assert chips.classify_pixels(photo[8:72, 60 * k + 8 : 60 * k + 52].reshape(-1, 3)) == value


def test_neighbouring_columns_of_one_colour_are_one_denomination() -> None:
    photo = _tray_photo([BGR[0], BGR[0], BGR[1], BGR[2]])
    chips = learn_from_tray(photo, VALUES[:3])
    assert chips.values() == VALUES[:3]


def test_a_tray_that_does_not_match_the_denominations_says_so() -> None:
    with pytest.raises(ChipColourError, match=r"The tray does not show 4 columns of different colours \(25, 100"):
        learn_from_tray(_tray_photo(BGR), VALUES[:4])  # five columns
    with pytest.raises(ChipColourError, match="The tray does not show 5 columns of different colours"):
        learn_from_tray(_tray_photo(BGR[:4]), VALUES)  # four columns
    with pytest.raises(ChipColourError, match="each denomination once"):
        learn_from_tray(_tray_photo(BGR), [25, 25, 100, 500, 1000])


def test_tray_zone_of_a_calibrated_camera_frame(oval10: TableLayout) -> None:
    """The tray as the overhead camera sees it (about 0.45 px/mm), cut out through the calibration."""
    camera = POSES["leaning"]
    plan = draw_top_down(oval10, 1.0, outlines=False)
    plan_from_mm = table_to_top_down(oval10, 1.0)
    draw_tray(plan, plan_from_mm, oval10, BGR)
    frame = add_noise(camera.render(plan, plan_from_mm), seed=3)
    calibration = calibrate_image(frame, oval10)
    tray = oval10.polygon("tray")
    crop = calibration.rectify(frame, x_range=(tray[:, 0].min(), tray[:, 0].max()),
                               y_range=(tray[:, 1].min(), tray[:, 1].max()), px_per_mm=1.0)  # fmt: skip
    chips = learn_from_tray(crop, VALUES)
    for value, bgr in zip(VALUES, BGR, strict=True):
        assert chips.classify_patch(_patch(bgr)) == value


def test_the_simulators_chip_set() -> None:
    chips = painted_chip_colours()
    assert chips.values() == VALUES
    assert [chips.classify(bgr) for bgr in BGR] == VALUES
    assert from_palette({5: (0, 0, 255)}).classify((10, 10, 240)) == 5
    with pytest.raises(ValueError, match="No chip pixels to classify"):
        chips.classify_patch(np.zeros((0, 4, 3), np.uint8))


def _faded(bgr: tuple[int, int, int], share: float) -> tuple[int, int, int]:
    """A colour as a camera with its colour setting at ``share`` shows it (HSV saturation scaled)."""
    hsv = cv2.cvtColor(np.uint8([[bgr]]), cv2.COLOR_BGR2HSV)
    hsv[..., 1] = np.round(hsv[..., 1] * share).astype(np.uint8)
    b, g, r = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0]
    return int(b), int(g), int(r)


def test_chips_are_read_through_a_camera_whose_colour_was_turned_down_since_they_were_learned() -> None:
    felt = (48, 110, 30)
    chips = painted_chip_colours(felt_bgr=felt)
    assert chips.felt is not None and painted_chip_colours().felt is None
    faded = [_faded(bgr, 0.6) for bgr in BGR]
    assert [chips.classify(bgr) for bgr in faded] != VALUES  # (as learnt, faded chips are misread or unread)
    seen = chips.seen_with(_faded(felt, 0.6))
    assert [seen.classify(bgr) for bgr in faded] == VALUES
    assert chips.seen_with(_faded(felt, 0.9)) is chips  # a felt's noise or a lamp's tint: no change
    brighter = tuple(min(255, round(1.3 * c)) for c in felt)  # exposure past what the light meter took off
    assert chips.seen_with(brighter) is chips
    assert chips.seen_with(_faded(felt, 0.1)) is chips  # past scaling back: the picture reports it (colour faded)
    assert painted_chip_colours().seen_with(_faded(felt, 0.6)).chips == painted_chip_colours().chips

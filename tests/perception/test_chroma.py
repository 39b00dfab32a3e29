"""A picture whose colour lies off its brightness (an analogue camera's or a cable's colour delay) is measured,
moved back into line before anything is read, and reported as a warning; a true picture is left as it is."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tablewatch.events import BoardCardDealt, CameraPicture, CardBurned
from tablewatch.sim.session import Simulation
from tablewatch.vision.perception.chroma import ColourAlignment, colour_offsets
from tests.perception.conftest import Window, run_window


def colour_moved(frame: np.ndarray, cr: tuple[int, int], cb: tuple[int, int]) -> np.ndarray:
    """``frame`` with its Cr and Cb planes moved by (dx, dy) pixels, as a colour delay moves them."""
    y, red, blue = cv2.split(cv2.cvtColor(frame, cv2.COLOR_BGR2YCrCb))
    red = np.roll(red, cr, axis=(1, 0))
    blue = np.roll(blue, cb, axis=(1, 0))
    return np.asarray(cv2.cvtColor(cv2.merge((y, red, blue)), cv2.COLOR_YCrCb2BGR))


@pytest.mark.parametrize(("cr", "cb"), [((-6, 0), (6, 0)), ((0, 3), (4, -2)), ((0, 0), (0, 0))])
def test_colour_planes_off_the_brightness_are_measured_and_moved_back(window: Window, cr: tuple[int, int],
                                                                      cb: tuple[int, int]) -> None:
    frame = window(0.0, 1.0)[-1][0]
    moved = colour_moved(frame, cr, cb)
    alignment = ColourAlignment.measured(moved)
    assert colour_offsets(moved) == ((-cr[0], -cr[1]), (-cb[0], -cb[1]))
    assert alignment.needed is (cr != (0, 0))
    back = alignment.apply(moved).astype(np.int16)
    inner = (slice(10, -10), slice(10, -10))  # (the edge repeated where the planes moved away)
    assert np.abs(back - frame)[inner].mean() < 1.0
    if alignment.needed:
        assert np.abs(moved.astype(np.int16) - frame)[inner].mean() > 2 * np.abs(back - frame)[inner].mean()


def test_a_picture_with_its_colour_off_is_reported_once_and_read_as_a_true_one(demo: Simulation,
                                                                                window: Window) -> None:
    """The demo's burn and flop, filmed with the colour 6 pixels off (red to the left, blue to the right)."""
    frames = window(16.0, 19.8)
    off = [(colour_moved(f, (-6, 0), (6, 0)), ts) for f, ts in frames]
    read = {name: run_window(demo, shown) for name, shown in (("true", frames), ("off", off))}
    reported = {name: [(e.condition, e.usable, e.reliable) for e in events if isinstance(e, CameraPicture)]
                for name, events in read.items()}
    assert reported == {"true": [], "off": [("colour offset", False, True)]}
    for events in read.values():
        assert len([e for e in events if isinstance(e, CardBurned)]) == 1
        assert sorted(e.slot for e in events if isinstance(e, BoardCardDealt)) == [0, 1, 2]


def test_a_higher_resolution_of_the_frame_is_moved_back_by_the_offset_scaled(window: Window) -> None:
    """A camera analysed at a reduced size reads cards from its whole frame: its colour is moved back too."""
    frame = window(0.0, 1.0)[-1][0]
    large = cv2.resize(frame, (frame.shape[1] * 2, frame.shape[0] * 2), interpolation=cv2.INTER_NEAREST)
    alignment = ColourAlignment.measured(colour_moved(frame, (-3, 0), (3, 0)))
    back = alignment.apply(colour_moved(large, (-6, 0), (6, 0)), scale=2).astype(np.int16)
    assert np.abs(back - large)[20:-20, 20:-20].mean() < 1.0


def test_a_picture_without_colour_has_no_colour_offset(window: Window) -> None:
    """A camera switched to black and white has no colour edges to line up: nothing to move (it is reported as
    without colour, ``picture``)."""
    grey = cv2.cvtColor(cv2.cvtColor(window(0.0, 1.0)[-1][0], cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    assert colour_offsets(grey) == ((0, 0), (0, 0))
    assert not ColourAlignment.measured(grey).needed

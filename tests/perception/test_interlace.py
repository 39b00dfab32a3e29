"""An interlaced picture (two fields a moment apart woven into one frame) is told from a progressive one, noisy or
sharpened, and reported as not to be relied on; a progressive camera never is."""

from __future__ import annotations

import cv2
import numpy as np

from tablewatch.events import CameraPicture
from tablewatch.sim.conditions import CameraLook, Conditions
from tablewatch.sim.session import Simulation
from tablewatch.vision.perception.interlace import (
    CLEAR_S,
    COMBED_PX,
    INTERLACED,
    MIN_COMBED,
    InterlaceWatch,
    combed_pixels,
)
from tests.perception.conftest import Window, run_window

SIZE = (640, 360)
STEP = 0.2  # seconds between analysed frames


def table(card_x: int) -> np.ndarray:
    """Felt with a card at ``card_x`` and a dark sleeve reaching in below it."""
    frame = np.full((SIZE[1], SIZE[0], 3), (60, 110, 40), np.uint8)
    frame[150:210, card_x:card_x + 40] = 235
    frame[240:300, card_x // 2:card_x // 2 + 120] = (40, 40, 50)
    return frame


def moving(conditions: Conditions, frames: int = 60, still: int = 0) -> list[np.ndarray]:
    """The card and the sleeve moving for ``frames`` frames, then the table ``still`` frames still."""
    camera = CameraLook(conditions, SIZE, fps=1 / STEP, seed=2)
    places = [60 + (i * 23) % 480 for i in range(frames)]
    return [camera.apply(table(x)) for x in places + places[-1:] * still]


def grey(frame: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)


def watched(frames: list[np.ndarray]) -> list[tuple[float, CameraPicture]]:
    watch = InterlaceWatch(table="T1", camera="overhead")
    return [(round(i * STEP, 3), e) for i, frame in enumerate(frames) for e in watch.update(grey(frame), i * STEP)]


def test_combing_is_counted_where_something_moved_and_not_in_noise_or_a_sharpened_edge() -> None:
    woven = moving(Conditions(interlaced=True))
    assert min(combed_pixels(grey(f)) for f in woven[1:]) >= COMBED_PX  # the card and the sleeve combed in every frame
    still = CameraLook(Conditions(interlaced=True), SIZE, fps=5.0)
    assert [combed_pixels(grey(still.apply(table(100)))) for _ in range(3)] == [0, 0, 0]  # nothing moved between fields
    for progressive in (Conditions(noise=20.0, light=0.5), Conditions(sharpen=2.0, noise=6.0), Conditions(blur_px=1.0)):
        assert max(combed_pixels(grey(f)) for f in moving(progressive)) < COMBED_PX, progressive.describe()


def test_an_interlaced_camera_is_reported_once_and_over_after_a_while_without_combing() -> None:
    found = watched(moving(Conditions(interlaced=True, noise=4.0), frames=40, still=round(CLEAR_S / STEP) + 5))
    assert [(t, e.condition, e.usable, e.reliable) for t, e in found] == [
        (round((MIN_COMBED) * STEP, 3), INTERLACED, False, False), (round(39 * STEP + CLEAR_S, 3), INTERLACED, True,
                                                                     False)]  # the last combed frame: the 40th
    assert "deinterlace" in found[0][1].detail


def test_a_progressive_camera_is_never_reported_interlaced() -> None:
    for conditions in (Conditions(), Conditions(noise=20.0, light=0.5), Conditions(sharpen=2.0, noise=6.0),
                       Conditions(drop=0.2, h264_kbps=0, shake_px=2.0)):
        assert watched(moving(conditions)) == [], conditions.describe()


def test_perception_reports_the_demo_dealt_before_an_interlaced_camera(demo: Simulation, window: Window) -> None:
    camera = CameraLook(Conditions(interlaced=True), (1280, 720), fps=10.0)
    frames = [(camera.apply(frame), ts) for frame, ts in window(16.0, 19.8)]
    reports = [e for e in run_window(demo, frames) if isinstance(e, CameraPicture)]
    assert [(e.condition, e.usable, e.reliable) for e in reports] == [(INTERLACED, False, False)]
    assert [e for e in run_window(demo, window(16.0, 19.8)) if isinstance(e, CameraPicture)] == []

"""A camera's picture that can't be read (too dark, overexposed, without colour, colour faded, flickering) is
reported once it has held a few seconds, not for a hand over the markers or a flash, and reported over once it has
gone; perception on a clean picture reports nothing."""

from __future__ import annotations

import cv2
import numpy as np

from tablewatch.calibration.chips import painted_chip_colours
from tablewatch.events import CameraPicture
from tablewatch.sim.conditions import CameraLook, Conditions
from tablewatch.sim.scenario import FELTS
from tablewatch.sim.session import Simulation
from tablewatch.vision.perception.light import Reading
from tablewatch.vision.perception.picture import CLEAR_S, HOLD_S, SUIT_MM_PER_PX, PictureWatch
from tests.perception.conftest import FPS, Window, perception_for, run_window


def new_watch() -> PictureWatch:
    return PictureWatch(table="T01", camera="overhead")


def watched(levels: list[tuple[float, float]], *, felt: float = 110.0) -> list[tuple[float, str, bool]]:
    """The changes a watch reports for (ts, paper level) readings, five markers at that level."""
    watch = new_watch()
    return [(c.ts, c.condition, c.usable) for ts, level in levels
            for c in watch.update(Reading(np.full(5, level), felt), ts)]


def test_a_condition_is_reported_once_it_has_held_and_over_once_it_has_gone() -> None:
    dark = [(t / 10, 30.0) for t in range(100)]  # 10 s too dark
    light = [(10 + t / 10, 230.0) for t in range(150)]
    changes = watched(dark + light)
    assert [(c, u) for _, c, u in changes] == [("too dark", False), ("too dark", True)]
    assert changes[0][0] == HOLD_S and changes[1][0] >= 9.9 + CLEAR_S


def test_a_short_spell_is_not_reported_nor_one_that_comes_and_goes() -> None:
    flash = [(t / 10, 253.0 if 20 <= t < 40 else 230.0) for t in range(100)]  # 2 s clipped
    flicker = [(t / 10, 253.0 if (t // 15) % 2 else 230.0) for t in range(100)]  # 1.5 s on, 1.5 s off
    assert watched(flash) == [] and watched(flicker) == []
    assert watched([(t / 10, 253.0) for t in range(40)]) == [(HOLD_S, "overexposed", False)]
    assert watched([]) == [] and new_watch().update(Reading(np.zeros(0), 250.0), 1.0) == []  # nothing to judge by


def test_a_felt_as_bright_as_paper_is_washed_out_and_past_relying_on_while_clipped_paper_is_a_warning() -> None:
    watch = new_watch()
    changes = [c for t in range(40) for c in watch.update(Reading(np.full(5, 253.0), 240.0), t / 10)]
    assert [(c.condition, c.reliable) for c in changes] == [("overexposed", True), ("washed out", False)]
    assert watch.status == "picture overexposed and washed out" and new_watch().status == ""


def test_a_camera_too_coarse_to_tell_a_suit_from_its_sibling_is_a_warning_once_per_calibration() -> None:
    watch = new_watch()
    assert watch.resolution(2.0, 0.0) == []  # 720p over the 10-seat oval
    coarse = watch.resolution(3.0, 1.0) + watch.resolution(3.0, 2.0)  # 480p; the same again
    assert [(c.condition, c.usable, c.reliable) for c in coarse] == [("low resolution", False, True)]
    assert "3.0 mm a pixel" in coarse[0].detail and f"{SUIT_MM_PER_PX:g}" in coarse[0].detail
    assert watch.status == "picture low resolution"
    assert [(c.condition, c.usable) for c in watch.resolution(1.0, 3.0)] == [("low resolution", True)]  # 4K now
    assert watch.status == ""


def test_perception_reports_a_480p_camera_as_low_resolution_and_not_a_720p_one(demo: Simulation,
                                                                            window: Window) -> None:
    frames = window(0.0, 1.5)
    at_480p = [(cv2.resize(f, (852, 480), interpolation=cv2.INTER_AREA), ts) for f, ts in frames]
    seen = {size: [(e.condition, e.usable) for e in perception_for(demo).run(shown)
                   if isinstance(e, CameraPicture)] for size, shown in (("720p", frames), ("480p", at_480p))}
    assert seen == {"720p": [], "480p": [("low resolution", False)]}


def test_perception_reports_a_dark_picture_and_nothing_on_a_clean_one(demo: Simulation, window: Window) -> None:
    frames = window(0.0, 5.0)
    clean = perception_for(demo, camera="overhead").run(frames)
    dark = perception_for(demo, camera="overhead").run([((f * 0.15).astype(np.uint8), ts) for f, ts in frames])
    assert [e for e in clean if isinstance(e, CameraPicture)] == []
    seen = [e for e in dark if isinstance(e, CameraPicture)]
    assert [(e.camera, e.condition, e.usable, e.reliable) for e in seen] == [("overhead", "too dark", False, False)]
    assert "reads" in seen[0].detail


def test_a_picture_without_colour_is_reported_past_relying_on_and_a_pale_one_is_not() -> None:
    def seen(colour: float) -> list[tuple[str, bool, bool]]:
        watch = new_watch()
        return [(c.condition, c.usable, c.reliable) for t in range(50)
                for c in watch.update(Reading(np.full(5, 200.0), 110.0, colour), t / 10)]

    assert seen(3.0) == [("no colour", False, False)]  # a camera in night mode: black and white
    assert seen(40.0) == []  # colour turned down to a third: still told apart


def test_lamps_flickering_are_a_warning_and_past_what_the_light_meter_takes_out_past_relying_on() -> None:
    def seen(swing: float) -> list[tuple[str, bool, bool]]:
        watch = new_watch()
        return [(c.condition, c.usable, c.reliable) for t in range(50)
                for c in watch.update(Reading(np.full(5, 200.0), 110.0, swing=swing), t / 10)]

    assert seen(0.42) == [("flickering hard", False, False)]  # a lamp swinging 33 % either way
    assert seen(0.28) == [("flickering", False, True)]  # 25 %: each frame brought back, its clipped whites held
    assert seen(0.10) == []  # 10 %: each frame brought back by its own level


def test_perception_reports_a_black_and_white_camera(demo: Simulation, window: Window) -> None:
    grey = [(cv2.cvtColor(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR), ts)
            for frame, ts in window(16.0, 19.8)]
    reports = [e for e in run_window(demo, grey) if isinstance(e, CameraPicture)]
    assert [(e.condition, e.usable, e.reliable) for e in reports] == [("no colour", False, False)]
    assert [e for e in run_window(demo, window(16.0, 19.8)) if isinstance(e, CameraPicture)] == []


def test_colour_faded_past_half_of_what_the_felt_showed_when_the_chips_were_learned_is_reported() -> None:
    def seen(saturation: float | None, colour: float = 60.0) -> list[tuple[str, bool, bool]]:
        watch = PictureWatch(table="T1", camera="overhead", felt_saturation=0.73)
        return [(c.condition, c.usable, c.reliable) for t in range(50)
                for c in watch.update(Reading(np.full(5, 200.0), 110.0, colour, saturation=saturation), t / 10)]

    assert seen(0.22) == [("colour faded", False, False)]  # the camera's colour turned down to 30 %
    assert seen(0.44) == []  # to 60 %: the chips are read by their colours faded alike
    assert seen(None) == []  # no felt in view
    assert seen(0.0, colour=3.0) == [("no colour", False, False)]  # black and white: said once, as no colour
    unknown = PictureWatch(table="T1", camera="overhead")  # the felt not recorded with the chips: nothing to judge by
    assert [c for t in range(50) for c in unknown.update(Reading(np.full(5, 200.0), 110.0, 60.0, saturation=0.1),
                                                         t / 10)] == []


def test_perception_reports_a_camera_whose_colour_was_turned_down_past_reading(demo: Simulation,
                                                                               window: Window) -> None:
    scenario = demo.scenario
    chips = painted_chip_colours(scenario.chips, felt_bgr=FELTS[scenario.felt])

    def reported(share: float) -> list[tuple[str, bool, bool]]:
        frames = window(16.0, 19.8)
        look = CameraLook(Conditions(saturation=share), (frames[0][0].shape[1], frames[0][0].shape[0]), fps=FPS)
        perception = perception_for(demo, hand_in_progress=True, chips=chips)
        seen = perception.run([(look.apply(frame), ts) for frame, ts in frames])
        return [(e.condition, e.usable, e.reliable) for e in seen if isinstance(e, CameraPicture)]

    assert reported(0.3) == [("colour faded", False, False)]
    assert reported(0.6) == []

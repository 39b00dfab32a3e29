"""A stream that stalls: the same picture delivered for a while is reported frozen, and over when it moves again;
a frame delivered twice, a still table and a stream of exact copies are not stalls."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tablewatch.events import PICTURE_FROZEN, CameraPicture
from tablewatch.sim.session import Simulation
from tablewatch.vision.perception.stall import FROZEN_S, StallWatch
from tests.perception.conftest import Window, run_window

RNG = np.random.default_rng(5)


def noisy(value: int = 90) -> np.ndarray:
    """A still table as a camera shows it: the same scene, the sensor's noise new in every frame."""
    return np.clip(value + RNG.normal(0, 2.0, (180, 320, 3)), 0, 255).astype(np.uint8)


def watched(frames: list[np.ndarray], step: float = 0.1) -> list[tuple[float, CameraPicture]]:
    watch = StallWatch(table="T1", camera="overhead")
    return [(round(i * step, 3), e) for i, frame in enumerate(frames)
            for e in watch.update(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), i * step)]


def test_the_same_picture_for_a_while_is_a_stall_reported_once_and_over_when_it_moves() -> None:
    frames = [noisy() for _ in range(40)]
    held = frames[20]
    frames[21:30] = [held.copy() for _ in range(9)]  # 0.9 s of the frame at 2.0 s, delivered again
    recoded = np.clip(held.astype(int) + 1, 0, 255).astype(np.uint8)  # a key frame coding it again, and its copies
    frames[25:30] = [recoded.copy() for _ in range(5)]
    found = watched(frames)
    assert [(t, e.condition, e.usable, e.reliable) for t, e in found] == [
        (2.1 + FROZEN_S, PICTURE_FROZEN, False, False), (3.1, PICTURE_FROZEN, True, False)]
    assert "stalled" in found[0][1].detail and "1.0 s" in found[1][1].detail


def test_a_stall_over_before_it_is_reported_live_is_reported_as_it_ends() -> None:
    """Half a second of copies: over before ``FROZEN_S``, but a tap or a fold made in it is missed all the same."""
    frames = [noisy() for _ in range(40)]
    frames[21:25] = [frames[20].copy() for _ in range(4)]  # copies from 2.1 s to 2.4 s
    found = watched(frames)
    assert [(t, e.condition, e.usable, e.reliable) for t, e in found] == [
        (2.6, PICTURE_FROZEN, False, False), (2.6, PICTURE_FROZEN, True, False)]
    assert "stalled" in found[0][1].detail and "0.5 s" in found[1][1].detail
    frames[21:25] = [coded_again(frames[20]) for _ in range(4)]  # a still scene coded again: near copies, no stall
    assert watched(frames) == []


def coded_again(frame: np.ndarray, pixels: int = 300) -> np.ndarray:
    """A still scene with no noise, coded again: a few hundred pixels a grey level off (a dark picture, or the
    simulator's frames, which carry no sensor noise)."""
    again = frame.copy()
    ys, xs = RNG.integers(0, frame.shape[0], pixels), RNG.integers(0, frame.shape[1], pixels)
    again[ys, xs] = np.clip(again[ys, xs].astype(int) + 1, 0, 255).astype(np.uint8)
    return again


def test_a_brief_stall_through_h264_is_reported_as_it_ends() -> None:
    """H.264 codes a stalled stream's first copies refining the picture (a few hundred pixels, then a hundred), the
    rest as the same frame give or take a few pixels: the copies' median change is a copy's."""
    frames = [noisy() for _ in range(40)]
    copy = frames[20]
    for i, pixels in zip(range(21, 26), (300, 100, 15, 15, 15), strict=True):  # copies from 2.1 s to 2.5 s
        copy = frames[i] = coded_again(copy, pixels)
    assert [(t, e.usable) for t, e in watched(frames)] == [(2.7, False), (2.7, True)]  # (the second frame moving)


def test_a_frame_delivered_twice_a_still_table_and_a_stream_of_copies_are_no_stall() -> None:
    frames = [noisy() for _ in range(40)]
    frames[10] = frames[9].copy()  # one frame dropped, the one before delivered again
    frames[25] = frames[24].copy()
    frames[26] = frames[24].copy()
    assert watched(frames) == []
    copies = [np.full((180, 320, 3), 90, np.uint8)] * 40  # a still scene coded to exact copies as a matter of course
    assert watched(copies) == []


def test_perception_reports_a_stalled_stream_of_the_demo(demo: Simulation, window: Window) -> None:
    frames = window(16.0, 19.8)
    frozen = frames[10][0]
    stalled = [(frozen if 10 <= i < 22 else frame, ts) for i, (frame, ts) in enumerate(frames)]
    reports = [e for e in run_window(demo, stalled) if isinstance(e, CameraPicture)]
    assert [(e.condition, e.usable) for e in reports] == [(PICTURE_FROZEN, False), (PICTURE_FROZEN, True)]
    assert reports[0].ts == pytest.approx(17.1 + FROZEN_S, abs=0.25) and reports[1].ts == pytest.approx(18.3, abs=0.15)
    assert [e for e in run_window(demo, frames) if isinstance(e, CameraPicture)] == []

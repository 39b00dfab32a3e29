"""A stream's frames timed by its own clock: jittered and bursty arrivals keep the camera's spacing; no frame is placed
after its arrival or before the frame before it; timestamps that restart or stall are taken up afresh."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tablewatch.vision.stream_clock import CLOCK_DRIFT, MAX_BEHIND_S, StreamClock

FPS = 10
INTERVAL = 1 / FPS


def arrivals(delays: list[float], start: float = 100.0) -> list[float]:
    """When frames captured every INTERVAL from ``start`` arrive after ``delays``, in order (TCP keeps it)."""
    times: list[float] = []
    for i, delay in enumerate(delays):
        times.append(max(start + i * INTERVAL + delay, times[-1] if times else 0.0))
    return times


@given(st.lists(st.floats(0.0, 0.3), min_size=3, max_size=200))
def test_from_the_least_delayed_frame_on_jittered_arrivals_keep_the_streams_spacing(delays: list[float]):
    clock = StreamClock()  # no connection start known: the reckoning starts from the first arrival
    arrived = arrivals(delays)
    placed = [clock.place(i * INTERVAL, at) for i, at in enumerate(arrived)]
    least = min(range(len(arrived)), key=lambda i: arrived[i] - i * INTERVAL)
    creep = CLOCK_DRIFT * (arrived[-1] - arrived[0])
    assert all(b - a == pytest.approx(INTERVAL, abs=creep + 1e-9) for a, b in pairwise(placed[least:]))


def test_frames_that_piled_up_behind_a_stall_keep_the_streams_spacing():
    clock = StreamClock()
    steady = [clock.place(i * INTERVAL, 50.0 + i * INTERVAL + 0.2) for i in range(10)]
    burst = [clock.place(i * INTERVAL, 51.9 + (i - 10) * 0.001) for i in range(10, 18)]  # 0.8 s held up
    assert steady + burst == pytest.approx([50.2 + i * INTERVAL for i in range(18)], abs=1e-3)


def test_a_new_connections_first_frames_are_placed_as_they_come():
    # FFmpeg holds the first 28 frames of a 10 fps stream while it probes it, then hands them over at once:
    # placed by the stream, the first would reach back 2.7 s, further than the table waits for a camera.
    clock = StreamClock()
    clock.place(0.0, 52.0)  # the previous connection
    clock.restart()
    burst = [clock.place(i * INTERVAL, 53.0 + i * 0.001) for i in range(28)]
    steady = [clock.place(i * INTERVAL, 53.0 + (i - 27) * INTERVAL) for i in range(28, 33)]
    assert burst == pytest.approx([53.0 + i * 0.001 for i in range(28)])
    assert steady == pytest.approx([53.0 + (i - 27) * INTERVAL for i in range(28, 33)], abs=1e-3)


@given(st.lists(st.tuples(st.floats(-100.0, 1e4), st.floats(0.0, 10.0), st.booleans()), min_size=1, max_size=100))
def test_no_frame_is_placed_after_its_arrival_before_the_one_before_or_far_behind(
        frames: list[tuple[float, float, bool]]):
    clock, arrival, last = StreamClock(), 1000.0, -float("inf")
    for pts, wait, reconnect in frames:
        if reconnect:
            clock.restart()
        arrival += wait
        placed = clock.place(pts, arrival)
        assert last <= placed <= arrival and placed >= arrival - MAX_BEHIND_S
        last = placed


def test_timestamps_that_go_backwards_start_afresh_from_the_arrival():
    clock = StreamClock()
    assert [clock.place(t, 10.2 + t) for t in (0.0, 0.1, 0.2)] == pytest.approx([10.2, 10.3, 10.4], abs=1e-3)
    assert clock.place(0.0, 10.5) == 10.5  # the camera restarted its stream
    assert clock.place(0.1, 10.65) == pytest.approx(10.6, abs=1e-3)  # spaced from there


def test_frames_held_up_longer_than_max_behind_are_placed_at_their_arrival():
    clock = StreamClock()
    assert clock.place(0.0, 0.1) == 0.1
    late = MAX_BEHIND_S + 1.0
    assert clock.place(0.1, 0.2 + late) == 0.2 + late  # a stream that stalled that long, or a jump in its clock
    assert clock.place(0.2, 0.4 + late) == pytest.approx(0.3 + late, abs=1e-3)


def test_a_slow_camera_clock_does_not_fall_further_and_further_behind():
    # A camera clock 800 millionths slow, for 10 hours at 1 fps: without the creep its frames would fall behind
    # by 29 s (a re-reckoning every MAX_BEHIND_S).
    clock = StreamClock()
    behind = [t * 1.0 + 0.05 - clock.place(t * (1 - 800e-6), t * 1.0 + 0.05) for t in range(36_000)]
    assert max(behind) < 0.01

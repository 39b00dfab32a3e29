"""The crop models' learning-rate schedule: a run stopped by time anneals to the end as one stopped by steps."""

import pytest

from tablewatch.models import schedule


def test_progress_is_by_steps_without_a_time_limit() -> None:
    assert schedule.progress(25, 100, elapsed_s=1e6, minutes=None) == 0.25


def test_progress_follows_the_clock_when_time_runs_out_first() -> None:
    assert schedule.progress(10, 100, elapsed_s=90.0, minutes=2.0) == pytest.approx(0.75)
    assert schedule.progress(80, 100, elapsed_s=30.0, minutes=2.0) == pytest.approx(0.8)


def test_the_rate_falls_from_the_base_to_zero_and_stays_there() -> None:
    assert schedule.cosine_rate(2e-3, 0.0) == pytest.approx(2e-3)
    assert schedule.cosine_rate(2e-3, 0.5) == pytest.approx(1e-3)
    assert schedule.cosine_rate(2e-3, 1.0) == pytest.approx(0.0, abs=1e-12)
    assert schedule.cosine_rate(2e-3, 1.7) == pytest.approx(0.0, abs=1e-12)

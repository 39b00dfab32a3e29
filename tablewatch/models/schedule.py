"""The learning-rate schedule the crop models' training scripts share: a cosine from the base rate to 0, over the
epochs asked for or over the minutes given, whichever ends first, so a run stopped by time still anneals."""

from __future__ import annotations

import math


def progress(step: int, steps: int, elapsed_s: float, minutes: float | None) -> float:
    """How far through the schedule a run is: by steps, or by time when that is further along."""
    return max(step / steps, elapsed_s / (minutes * 60) if minutes else 0.0)


def cosine_rate(base: float, done: float) -> float:
    """The rate ``done`` of the way through (clipped at the end)."""
    return base * 0.5 * (1 + math.cos(math.pi * min(done, 1.0)))

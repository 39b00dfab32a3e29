"""A network stream's frames timed by the stream's own clock, placed on ours.

A network camera stamps each frame as it captures it (RTP timestamps under RTSP, an MPEG-TS stream's PTS), and its
frames reach us late by varying amounts, at times in bursts: a congested network, or a reader held up by a slow
frame, lets frames pile up and then hands them over at once. Stamped as they arrive, a burst's frames would all
carry about one moment and a hand's motion between them would look instantaneous; stamped by the stream, they keep
the spacing the camera gave them.
"""

from __future__ import annotations

import math

# The most a frame is placed before its arrival: a frame the stream's clock would place earlier (a stream held up
# that long, or a camera whose timestamps jumped) starts the reckoning afresh from its arrival. The table holds the
# other sensors' events only so long for a camera's (``table.pipeline.VISION_LATENESS_S``, 1.2 s): kept under it.
MAX_BEHIND_S = 1.0
# How much slower than ours a camera's clock may run (a thousandth; a quartz is off by tens of millionths): the
# offset creeps up at that rate, so a slow clock's frames don't fall ever further behind their arrival (a fast
# clock's frames lower the offset themselves).
CLOCK_DRIFT = 1e-3


class StreamClock:
    """Places frames by their stream time (``pts``, seconds) on our clock, at ``pts + offset``, the offset that of
    the least-delayed frame seen (the smallest ``arrival - pts``): the network's varying delay then doesn't move
    frames relative to each other. A frame is never placed after its arrival, nor before the frame placed before
    it. Each connection (``restart``), and timestamps that go backwards (a camera that restarted its stream) or
    that would place a frame more than ``MAX_BEHIND_S`` before its arrival, start the reckoning afresh from the
    frame's arrival.

    A new connection's first frames come at once (FFmpeg holds about 28 while it probes the stream: 3 s of a 10 fps
    camera) and are placed as they come: placed by the stream they would reach back further than the table waits.
    """

    def __init__(self) -> None:
        self._offset = math.inf
        self._last_pts = -math.inf
        self._last_arrival = 0.0
        self._last = -math.inf

    def restart(self) -> None:
        """A new connection to the stream: its timestamps start afresh."""
        self._offset, self._last_pts = math.inf, -math.inf

    def place(self, pts: float, arrival: float) -> float:
        """Our clock's time for a frame of stream time ``pts`` (seconds) that arrived at ``arrival``."""
        least_delay = arrival - pts
        if pts < self._last_pts:
            offset = least_delay
        else:
            offset = min(self._offset + CLOCK_DRIFT * (arrival - self._last_arrival), least_delay)
        if arrival - (pts + offset) > MAX_BEHIND_S:
            offset = least_delay
        placed = max(min(pts + offset, arrival), self._last)  # (min: pts + arrival - pts may round above arrival)
        self._offset, self._last_pts, self._last_arrival, self._last = offset, pts, arrival, placed
        return placed

"""Stacks whose largest chips can't be seen (TDA-16A): a hand over them, or big chips under small ones.

Every ``period`` seconds each seat's stack zone (with the felt just around it) is read on the live
rectified frame (arms included, so a covering hand counts): how many pixels show each denomination. A
seat's *largest* denomination is the biggest one seen there clearly; when its pixels fall below
``HIDDEN_SHARE`` of what they were, the stack is obscured until they come back. Chips that leave
legitimately (a bet, a push) reset the baseline through ``reset``; the largest denomination before it stays the
largest while its colour still shows on more pixels than a covered stack leaves, though fewer than a clear chip's
(a lamp's glare whitens part of a chip's top: a stack of big chips must not lose them by a bet of small ones).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from tablewatch.events import Zone
from tablewatch.vision.perception.appearance import Appearance
from tablewatch.vision.perception.plane import TablePlane

HIDDEN_SHARE = 0.3
MIN_PIXELS = 0.3  # of one chip top: less than this is no chip of that denomination (a short column of the
# largest chips may show only part of its top past a taller neighbour)
EDGE_MM = 20.0  # a stack zone is read this far beyond its edge, on the felt (a chip at the edge shows whole)


@dataclass
class SeatStack:
    """What one seat's stack shows: its largest denomination, how many pixels showed that colour when it was
    learnt, and since when they are out of sight."""

    largest: int | None = None
    baseline: int = 0
    hidden_since: float | None = None
    before: tuple[int, int] | None = None  # (largest, baseline) before the last bet or push

    def relearnt(self) -> SeatStack:
        """The stack to learn again once chips left or joined it legitimately (a bet, a push), remembering what it
        showed."""
        return SeatStack(before=(self.largest, self.baseline) if self.largest is not None else None)

    def read(self, t: float, *, live: dict[int, int], settled: dict[int, int], floor: float) -> None:
        """One reading: ``settled`` (pixels by denomination with no arm in the way) sets the largest, ``live`` says
        whether it still shows; a denomination counts from ``floor`` pixels. A larger one is learnt when the frame
        shows it too (from half the floor: the frame carries its noise), and not while the largest is out of sight:
        then it is what covers them, not chips added (a hand resting on the stack long enough to be taken into the
        reference, its skin in a chip's colours once the camera's colour is turned down)."""
        top = max((d for d, n in settled.items() if n >= floor), default=None)
        if self.largest is None and self.before is not None:
            kept, was = self.before
            if (top is None or kept > top) and settled.get(kept, 0) >= max(HIDDEN_SHARE * was, floor / 2):
                top = kept  # still there after the bet, in part whitened
        if self.largest is None or (top is not None and top > self.largest and self.hidden_since is None
                                    and live.get(top, 0) >= floor / 2):
            self.largest, self.baseline, self.hidden_since = top, settled.get(top, 0) if top else 0, None
            return
        n = live.get(self.largest, 0)
        if n < HIDDEN_SHARE * self.baseline:
            self.hidden_since = self.hidden_since if self.hidden_since is not None else t
        else:
            self.hidden_since = None


class StackWatch:
    def __init__(self, plane: TablePlane, look: Appearance, *, period: float = 0.5) -> None:
        self.plane, self.look, self.period = plane, look, period
        zones = {name: Zone.parse(name) for name in plane.zone_masks}
        free = plane.felt & ~np.logical_or.reduce([m for name, m in plane.zone_masks.items()
                                                   if not zones[name].is_stack])
        self.masks = {zone.seat: _boxed(_read_area(plane, name, free)) for name, zone in zones.items()
                      if zone.is_stack and zone.seat is not None}
        self.seats = {seat: SeatStack() for seat in self.masks}
        self.last = -1e9

    def reset(self, seat: int) -> None:
        if seat in self.seats:
            self.seats[seat] = self.seats[seat].relearnt()

    def update(self, t: float, live: np.ndarray, settled: np.ndarray,
               changed: np.ndarray | None = None) -> dict[int, tuple[float, int | None]]:
        """Seat → (time its largest chips went out of sight, their denomination), for every stack obscured now.

        ``settled`` (the scene's reference, no arms in it) sets what each stack shows; ``live`` (the
        current frame) says whether it still shows it. Where nothing in a stack's area differs from the reference
        (``changed``: the scene's foreground), the live frame shows the stack settled as well, and each colour
        counts as much as the one of the two that shows more of it: the reference is smoothed against the camera's
        noise, which thins the sliver of a short column's top showing past taller ones (a dim club's largest chips
        fell under ``MIN_PIXELS`` there, not in the frame), while the frame carries its own noise and exposure.
        """
        if t - self.last >= self.period:
            self.last = t
            for seat, (box, mask) in self.masks.items():
                now, still = self.look.chip_pixels(live[box][mask]), self.look.chip_pixels(settled[box][mask])
                if changed is not None and not changed[box][mask].any():
                    still = {value: max(n, now.get(value, 0)) for value, n in still.items()}
                self.seats[seat].read(t, live=now, settled=still, floor=MIN_PIXELS * self.look.chip_px)
        return {s: (st.hidden_since, st.largest) for s, st in self.seats.items() if st.hidden_since is not None}


def _read_area(plane: TablePlane, stack_zone: str, free: np.ndarray) -> np.ndarray:
    """A stack zone and the felt EDGE_MM around it that is in no other zone (``free``: the felt outside every
    zone but the stacks): a column at the zone's edge shows whole (half of it outside, its top would count for
    less than a chip and the next denomination down would pass for the stack's largest)."""
    grow = np.ones((2 * round(EDGE_MM * plane.scale) + 1,) * 2, np.uint8)
    area: np.ndarray = (cv2.dilate(plane.zone_masks[stack_zone].view(np.uint8), grow) > 0) & free
    return area


def _boxed(mask: np.ndarray) -> tuple[tuple[slice, slice], np.ndarray]:
    """A zone mask as its bounding box and the mask inside it (indexing a small box is much faster)."""
    ys, xs = np.nonzero(mask)
    box = (slice(int(ys.min()), int(ys.max()) + 1), slice(int(xs.min()), int(xs.max()) + 1))
    return box, mask[box]

"""Where a finding is on the camera's picture: the boxes drawn on an alert's still.

A reviewer opening a still must see at once what it is about: the seats of the finding (their stack and bet
spots) and the places its text names (the pot, the board, the muck, the burn). The table's calibration maps
the layout's zones onto the camera's pixels; each zone is drawn as the rectangle around it, labelled with the
seat's player where the console named them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import numpy as np

from tablewatch.alerts.evidence import Box
from tablewatch.calibration.layout import TableLayout
from tablewatch.calibration.profile import TableProfile
from tablewatch.events import Violation

SEAT_COLOUR = (0, 0, 255)  # BGR: the seats concerned in red
PLACE_COLOUR = (0, 215, 255)  # the places named in the finding in amber
PLACES = ("pot", "board", "muck", "burn", "tray")  # zones a finding may name in its text


class ViolationMarks:
    """The boxes of one camera's picture for a finding (``boxes``), in the pixels its profile was calibrated at
    (``size``, width and height: the evidence recorder scales them to the frame it draws on)."""

    def __init__(self, profile: TableProfile, layout: TableLayout | None = None) -> None:
        self.layout = layout or profile.load_layout()
        self.calibration = profile.calibration
        self.size = profile.calibration.image_size
        self._zones = set(self.layout.zone_names())

    def boxes(self, violation: Violation, players: Mapping[int, str] | None = None) -> list[Box]:
        names = players or {}
        boxes = [self._box(zones, label=f"seat {seat}" + (f" {names[seat]}" if seat in names else ""),
                           colour=SEAT_COLOUR)
                 for seat in violation.seats if (zones := self._seat_zones(seat))]
        text = f"{violation.title} {violation.observed}".lower()
        boxes += [self._box([place], label=place, colour=PLACE_COLOUR) for place in PLACES
                  if place in self._zones and re.search(rf"\b{place}\b", text)]
        return [box for box in boxes if box is not None]

    def _seat_zones(self, seat: int) -> list[str]:
        return [zone for zone in (f"seat{seat}.stack", f"seat{seat}.bet") if zone in self._zones]

    def _box(self, zones: list[str], *, label: str, colour: tuple[int, int, int]) -> Box | None:
        """The rectangle around ``zones`` on the picture; None when it lies wholly outside it."""
        corners = np.vstack([self.calibration.mm_to_px(self.layout.polygon(zone)) for zone in zones])
        width, height = self.size
        x1, y1 = np.clip(corners.min(axis=0), 0, (width - 1, height - 1)).astype(int)
        x2, y2 = np.clip(corners.max(axis=0), 0, (width - 1, height - 1)).astype(int)
        if x2 <= x1 or y2 <= y1:
            return None
        return Box(x1=int(x1), y1=int(y1), x2=int(x2), y2=int(y2), label=label, color=colour)

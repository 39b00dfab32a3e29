"""The shipped layout templates (oval 10-, 9- and 6-max), generated from a few table measurements.

The table is a racetrack oval (a "stadium"): two straight long sides joined by half circles. Every
seat area is a sector of it between two distances from the oval's spine, so seats never overlap and
follow the curve. ``python -m tablewatch.calibration.templates`` rewrites ``layouts/*.toml``; a test
checks the shipped files equal what this module builds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tablewatch.calibration.layout import BUTTON_GAP_MM, LAYOUTS_DIR, Marker, Seat, TableLayout, save_layout
from tablewatch.events import bet_zone, stack_zone

Point = tuple[float, float]


@dataclass(frozen=True, kw_only=True)
class OvalSpec:
    name: str
    seats: int
    length_mm: float  # outside of the rail, along x
    width_mm: float  # outside of the rail, along y
    rail_mm: float  # width of the padded rail
    stack_depth_mm: float = 150.0  # from the felt edge inwards
    bet_depth_mm: float = 130.0  # beyond the betting line
    dealer_gap_mm: float = 900.0  # felt edge left free for the dealer, centred on x = 0
    dealer_depth_mm: float = 230.0
    seat_fill: float = 0.84  # share of each seat's span given to its zones (the rest is a gap)
    button_side: float = 0.25  # the button spot lies off the seat's middle by this share of its span (clockwise)
    marker_mm: float = 72.0


SPECS = {
    "oval10": OvalSpec(name="oval10", seats=10, length_mm=2600, width_mm=1300, rail_mm=120),
    "oval9": OvalSpec(name="oval9", seats=9, length_mm=2600, width_mm=1300, rail_mm=120),
    "oval6": OvalSpec(
        name="oval6", seats=6, length_mm=2000, width_mm=1100, rail_mm=110,
        stack_depth_mm=140, bet_depth_mm=120, dealer_depth_mm=200,
    ),
}  # fmt: skip


class Stadium:
    """A racetrack oval: end-circle centres at (±a, 0). ``u`` is arc length at radius ``ref`` from the
    dealer's point (0, +ref), running clockwise seen from above (first towards -x, seat 1's side)."""

    def __init__(self, a: float, ref: float) -> None:
        self.a, self.ref = a, ref
        self.perimeter = 4 * a + 2 * math.pi * ref
        self.breaks = [0.0, a, a + math.pi * ref, 3 * a + math.pi * ref, 3 * a + 2 * math.pi * ref, self.perimeter]

    def point(self, u: float, r: float) -> Point:
        """The point at ``u`` (arc length at ``ref``) and distance ``r`` from the spine."""
        a, ref, b = self.a, self.ref, self.breaks
        u = u % self.perimeter
        if u <= b[1]:
            cx, n = -u, (0.0, 1.0)
        elif u <= b[2]:
            cx, n = -a, _unit(math.pi / 2 + (u - b[1]) / ref)
        elif u <= b[3]:
            cx, n = -a + (u - b[2]), (0.0, -1.0)
        elif u <= b[4]:
            cx, n = a, _unit(1.5 * math.pi + (u - b[3]) / ref)
        else:
            cx, n = a - (u - b[4]), (0.0, 1.0)
        return (cx + r * n[0], r * n[1])

    def samples(self, u0: float, u1: float, step: float = 25.0) -> list[float]:
        """Parameters from u0 to u1 (u1 may exceed the perimeter) including every corner of the spine."""
        n = max(1, math.ceil((u1 - u0) / step))
        us = set(np.linspace(u0, u1, n + 1).tolist())
        for k in (0, 1):
            us |= {x + k * self.perimeter for x in self.breaks if u0 < x + k * self.perimeter < u1}
        return sorted(us)

    def curve(self, u0: float, u1: float, r: float) -> list[Point]:
        return [self.point(u, r) for u in self.samples(u0, u1)]

    def sector(self, u0: float, u1: float, r0: float, r1: float) -> list[Point]:
        """The area between u0..u1 and distances r0..r1, as a polygon."""
        return self.curve(u0, u1, r1) + self.curve(u0, u1, r0)[::-1]

    def outline(self, r: float) -> list[Point]:
        return self.curve(0.0, self.perimeter, r)[:-1]


def build_oval(spec: OvalSpec) -> TableLayout:
    half_w = spec.width_mm / 2
    a = spec.length_mm / 2 - half_w
    felt_r = half_w - spec.rail_mm
    oval = Stadium(a, felt_r)
    span = (oval.perimeter - spec.dealer_gap_mm) / spec.seats
    line_r = felt_r - spec.stack_depth_mm
    bet_r = line_r - spec.bet_depth_mm
    zones: dict[str, list[Point]] = {}
    seats = []
    for i in range(spec.seats):
        centre = spec.dealer_gap_mm / 2 + span * (i + 0.5)
        u0, u1 = centre - span * spec.seat_fill / 2, centre + span * spec.seat_fill / 2
        n = i + 1
        zones[stack_zone(n)] = oval.sector(u0, u1, line_r, felt_r)
        zones[bet_zone(n)] = oval.sector(u0, u1, bet_r, line_r)
        button = oval.point(centre + span * spec.button_side, bet_r - BUTTON_GAP_MM)  # on the felt before the bet
        seats.append(Seat(number=n, player=oval.point(centre, half_w + 250), line=oval.curve(u0, u1, line_r),
                          button=(round(button[0], 1), round(button[1], 1))))
    zones.update(_centre_zones(spec, felt_r))
    rail_mid = felt_r + spec.rail_mm / 2
    return TableLayout(
        name=spec.name,
        description=(
            f"Oval {spec.seats}-max table, {spec.length_mm:.0f} x {spec.width_mm:.0f} mm over the rail "
            f"({spec.rail_mm:.0f} mm rail), {len(_marker_centres(a, rail_mid))} ArUco markers on the rail."
        ),
        felt=oval.outline(felt_r),
        rail=oval.outline(half_w),
        dealer_position=(0.0, half_w + 150),
        seats=seats,
        zones=zones,
        markers=[_marker(i, c, spec.marker_mm) for i, c in enumerate(_marker_centres(a, rail_mid))],
    )


def _centre_zones(spec: OvalSpec, felt_r: float) -> dict[str, list[Point]]:
    """Board (five slots), burn and muck either side of it, pot towards the dealer, dealer area, tray."""
    half_gap = spec.dealer_gap_mm / 2
    dealer_r = felt_r - spec.dealer_depth_mm
    zones = {
        "board": _rect(-230, -70, 230, 70),
        **{f"board.{k}": _rect(-220 + 90 * k, -55, -140 + 90 * k, 55) for k in range(5)},
        "burn": _rect(-370, -60, -250, 60),
        "muck": _rect(250, -60, 370, 60),
        "pot": _rect(-300, 85, 300, dealer_r - 15),
        "tray": _rect(-200, felt_r - 90, 200, felt_r),
    }
    tray_top = felt_r - 90
    zones["dealer"] = [
        (-half_gap, dealer_r), (half_gap, dealer_r), (half_gap, felt_r), (200.0, felt_r),
        (200.0, tray_top), (-200.0, tray_top), (-200.0, felt_r), (-half_gap, felt_r),
    ]  # fmt: skip
    return zones


def _marker_centres(a: float, rail_mid: float) -> list[Point]:
    """Six markers on the rail: both ends, and where the straight sides meet the curves."""
    return [(-(a + rail_mid), 0.0), (-a, -rail_mid), (a, -rail_mid), (a + rail_mid, 0.0), (a, rail_mid), (-a, rail_mid)]


def _marker(marker_id: int, centre: Point, size: float) -> Marker:
    h = size / 2
    x, y = centre
    return Marker(id=marker_id, corners=((x - h, y - h), (x + h, y - h), (x + h, y + h), (x - h, y + h)))


def _rect(x0: float, y0: float, x1: float, y1: float) -> list[Point]:
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


def _unit(theta: float) -> Point:
    return (math.cos(theta), math.sin(theta))


def build_template(name: str) -> TableLayout:
    return build_oval(SPECS[name])


if __name__ == "__main__":
    LAYOUTS_DIR.mkdir(exist_ok=True)
    for name in SPECS:
        save_layout(build_template(name), LAYOUTS_DIR / f"{name}.toml")
        print(f"wrote {LAYOUTS_DIR / f'{name}.toml'}")

"""Where things go on the simulated table: spots in millimetres derived from a calibration ``TableLayout``.

Each seat gets a local frame: ``inward`` points from the player towards the table centre, ``across``
runs along the rail (to the player's left). Stacks sit in ``seatN.stack``, bets in ``seatN.bet``, hole
cards beside the stack; the dealer's spots (deck, burn, board slots, muck, pot, tray) come from the
centre zones.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tablewatch.calibration.layout import TableLayout, load_layout
from tablewatch.events import bet_zone, stack_zone

Point = tuple[float, float]


@dataclass(frozen=True)
class SeatFrame:
    number: int
    player: Point
    stack: Point  # centre of the stack zone
    bet: Point  # centre of the bet zone
    inward: Point  # unit vector player → table centre
    across: Point  # unit vector along the rail
    angle: float  # degrees: the seat's "up" for cards (card long side along inward)

    def offset(self, origin: Point, along_in: float, along_across: float) -> Point:
        return (
            origin[0] + self.inward[0] * along_in + self.across[0] * along_across,
            origin[1] + self.inward[1] * along_in + self.across[1] * along_across,
        )


class SimTable:
    """Spots on one layout; every method returns millimetres in the table frame."""

    def __init__(self, layout: TableLayout) -> None:
        self.layout = layout
        self.seats = {s.number: self._frame(s.number) for s in layout.seats}
        self.dealer_shoulder: Point = layout.dealer_position

    @classmethod
    def named(cls, name: str) -> SimTable:
        return cls(load_layout(name))

    def _frame(self, number: int) -> SeatFrame:
        seat = self.layout.seat(number)
        stack = _centroid(self.layout.polygon(stack_zone(number)))
        bet = _centroid(self.layout.polygon(bet_zone(number)))
        v = np.array(bet) - np.array(stack)
        inward = v / max(float(np.linalg.norm(v)), 1e-9)
        across = np.array([-inward[1], inward[0]])
        angle = math.degrees(math.atan2(inward[1], inward[0])) + 90.0
        return SeatFrame(
            number=number,
            player=(float(seat.player[0]), float(seat.player[1])),
            stack=stack,
            bet=bet,
            inward=(float(inward[0]), float(inward[1])),
            across=(float(across[0]), float(across[1])),
            angle=angle,
        )

    def centre(self, zone: str) -> Point:
        return _centroid(self.layout.polygon(zone))

    def stack_column(self, seat: int, k: int) -> Point:
        """Column ``k`` of a seat's stack: two rows of six, on the player's right of the zone."""
        f = self.seats[seat]
        row, col = divmod(k, 6)
        return f.offset(f.stack, 20.0 - row * 42.0, -185.0 + col * 41.0)

    def hole_card(self, seat: int, i: int) -> Point:
        f = self.seats[seat]
        return f.offset(f.stack, 10.0, 110.0 + 22.0 * i)

    def bet_column(self, seat: int, k: int) -> Point:
        f = self.seats[seat]
        row, col = divmod(k, 4)
        return f.offset(f.bet, -10.0 + row * 40.0, (col - 1.5) * 40.0)

    def board_slot(self, k: int) -> Point:
        return self.centre(f"board.{k}")

    def burn_spot(self, i: int) -> Point:
        x, y = self.centre("burn")
        return (x + 3.0 * i, y - 4.0 * i)

    def muck_spot(self, i: int) -> Point:
        x, y = self.centre("muck")
        return (x + (i % 5) * 4.0 - 8.0, y + (i % 3) * 5.0 - 5.0)

    def deck_spot(self) -> Point:
        x, y = self.centre("dealer")
        return (x - 260.0, y)

    def pot_column(self, k: int) -> Point:
        x0, y0, x1, _y1 = _bbox(self.layout.polygon("pot"))
        cols = max(1, int((x1 - x0 - 20) // 42))
        row, col = divmod(k, cols)
        return (x0 + 30 + col * 42.0, y0 + 25 + (row % 3) * 42.0)

    def tray_column(self, k: int) -> Point:
        x0, y0, _x1, y1 = _bbox(self.layout.polygon("tray"))
        return (x0 + 25 + (k % 9) * 43.0, (y0 + y1) / 2)

    def extent(self, margin: float = 350.0) -> tuple[float, float, float, float]:
        x0, y0, x1, y1 = self.layout.extent
        return (x0 - margin, y0 - margin, x1 + margin, y1 + margin)


def _centroid(poly: np.ndarray) -> Point:
    c = np.asarray(poly, dtype=float).mean(axis=0)
    return (float(c[0]), float(c[1]))


def _bbox(poly: np.ndarray) -> tuple[float, float, float, float]:
    p = np.asarray(poly, dtype=float)
    return (float(p[:, 0].min()), float(p[:, 1].min()), float(p[:, 0].max()), float(p[:, 1].max()))

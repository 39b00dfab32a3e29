"""Physical steps on the table: arms that carry chips over betting lines, cards pitched, flipped, mucked.

``Stage`` writes keyframes into the ``World`` and returns the time each step ends; the hand script
(``script.py``) decides which steps happen and emits the ground-truth events with those times.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace

from tablewatch.events import seat_actor
from tablewatch.sim.chips import Mint, Pile
from tablewatch.sim.scenario import Timing
from tablewatch.sim.table import SimTable
from tablewatch.sim.world import Card, Chip, Pose, World

CARRY_Z = 60.0  # mm above the felt while carried
SLEEVES = [(40, 40, 40), (90, 60, 30), (30, 30, 110), (110, 110, 110), (60, 90, 40), (20, 50, 90), (150, 140, 130)]
SKINS = [(120, 160, 210), (95, 135, 185), (70, 100, 140), (140, 180, 225), (55, 75, 105)]


@dataclass
class Stage:
    world: World
    table: SimTable
    mint: Mint
    rng: random.Random
    timing: Timing

    def __post_init__(self) -> None:
        self.world.new_arm("dealer", self.table.dealer_shoulder, sleeve=(25, 25, 25), skin=self.rng.choice(SKINS))
        for n, f in self.table.seats.items():
            self.world.new_arm(seat_actor(n), f.player, sleeve=self.rng.choice(SLEEVES), skin=self.rng.choice(SKINS))

    # --- arms -------------------------------------------------------------------------------------

    def reach(self, actor: str, path: Sequence[tuple[float, float, float]], *, z: float = 40.0) -> None:
        """Move ``actor``'s hand through (t, x, y) points, starting and ending at the shoulder."""
        arm = self.world.arms[actor]
        sx, sy = arm.shoulder
        t0, t1 = path[0][0], path[-1][0]
        arm.track.truncate_after(t0 - 0.05)
        if arm.track.last.t < t0 - 0.25:
            arm.track.add(Pose(t=t0 - 0.25, x=sx, y=sy, z=z))
        for t, x, y in path:
            arm.track.add(Pose(t=t, x=x, y=y, z=z))
        arm.track.add(Pose(t=t1 + 0.3, x=sx, y=sy, z=z))

    def arm_free(self, actor: str) -> float:
        return self.world.arms[actor].track.last.t

    # --- the dealer button ------------------------------------------------------------------------

    def move_button(self, to: tuple[float, float], *, t: float) -> float:
        """The dealer slides the button puck to ``to`` from ``t`` (the first time, it lies there from the start);
        returns when it lies there."""
        track = self.world.button
        if not track.keys:
            track.add(Pose(t=0.0, x=to[0], y=to[1], zone="button"))
            return 0.0
        now = track.last
        if distance((now.x, now.y), to) < 1.0:
            return t
        t_pick, t_release = t + 0.35, t + 0.35 + self.timing.motion
        track.add(replace(now, t=t_pick))
        track.add(replace(now, t=t_pick + 0.05, zone=None))
        track.add(Pose(t=t_release, x=to[0], y=to[1], zone="button"))
        self.reach("dealer", [(t, now.x, now.y), (t_pick, now.x, now.y), (t_release, to[0], to[1])])
        return t_release

    # --- chips ------------------------------------------------------------------------------------

    def carry_chips(
        self, actor: str, chips: list[Chip], src: Pile, dst: Pile, *, t: float, duration: float | None = None
    ) -> float:
        """One motion: the hand picks ``chips`` up from ``src`` and releases them in ``dst``. Returns release time."""
        d = duration or self.timing.motion
        if not chips:
            return t
        src.remove(chips)
        sx, sy = _mean([c.track.at(t) or c.track.last for c in chips])
        lands = [dst.place(c) for c in chips]
        dx, dy = _mean(lands)
        t_pick, t_release = t + 0.35 * d, t + d
        for chip, land in zip(chips, lands, strict=True):
            now = chip.track.at(t_pick) or chip.track.last
            chip.track.add(replace(now, t=t_pick))
            off_x, off_y = now.x - sx, now.y - sy
            chip.track.add(replace(now, t=t_pick + 0.05, z=CARRY_Z + now.z, zone=None))
            chip.track.add(Pose(t=t_release - 0.05, x=dx + off_x * 0.3, y=dy + off_y * 0.3, z=CARRY_Z, angle=now.angle))
            chip.track.add(replace(land, t=t_release))
        self.reach(actor, [(t, sx, sy), (t_pick, sx, sy), (t_release, dx, dy)])
        return t_release

    def mint_pile(self, pile: Pile, counts: dict[int, int], *, t: float,
                  counterfeit_uid: str | None = None) -> list[Chip]:
        made = []
        for value, n in sorted(counts.items(), reverse=True):
            for _ in range(n):
                chip = self.mint.chip(value, Pose(t=t, x=0, y=0), counterfeit=counterfeit_uid is not None,
                                      uid=counterfeit_uid)
                chip.track.keys.clear()
                chip.track._times.clear()
                chip.track.add(replace(pile.place(chip), t=t))
                made.append(chip)
        return made

    def vanish(self, chips: list[Chip], *, t: float) -> None:
        for chip in chips:
            chip.track.hide(t)

    def vanish_card(self, card: Card, *, t: float) -> None:
        card.track.hide(t)

    # --- cards ------------------------------------------------------------------------------------

    def new_card(self, code: str, *, t: float) -> Card:
        x, y = self.table.deck_spot()
        return self.world.new_card(code, Pose(t=t, x=x, y=y, z=20.0, angle=90.0, visible=False, zone="dealer"))

    def pitch(self, card: Card, to: tuple[float, float], *, t: float, angle: float, zone: str, face_up: bool = False,
              duration: float | None = None) -> float:
        """The dealer pitches a card from the deck to ``to``; returns when it settles."""
        d = duration or self.timing.deal_card
        dx, dy = self.table.deck_spot()
        card.track.add(Pose(t=t, x=dx, y=dy, z=20.0, angle=90.0, face_up=False, visible=True, zone=None))
        spin = self.rng.uniform(-25, 25)
        mid = ((dx + to[0]) / 2, (dy + to[1]) / 2)
        card.track.add(Pose(t=t + d * 0.5, x=mid[0], y=mid[1], z=10.0, angle=(90 + angle) / 2 + spin, face_up=face_up))
        card.track.add(Pose(t=t + d, x=to[0], y=to[1], angle=angle, face_up=face_up, zone=zone))
        self.reach("dealer", [(t, dx, dy), (t + d * 0.4, dx + (to[0] - dx) * 0.15, dy + (to[1] - dy) * 0.15)])
        return t + d

    def slide(self, actor: str, cards: list[Card], spots: list[tuple[float, float]], *, t: float, zone: str,
              face_up: bool | None = None, angle: float | None = None, duration: float = 0.6) -> float:
        """A hand slides ``cards`` to ``spots`` (a fold to the muck, the board turned over, a burn)."""
        if not cards:
            return t
        starts = [c.track.at(t) or c.track.last for c in cards]
        sx, sy = _mean(starts)
        for card, start, spot in zip(cards, starts, spots, strict=True):
            up = start.face_up if face_up is None else face_up
            t0 = max(t, card.track.last.t)  # a card still settling from an earlier step finishes it first
            card.track.add(replace(start, t=t0 + 0.3 * duration))
            card.track.add(replace(start, t=t0 + duration, x=spot[0], y=spot[1], face_up=up, zone=zone,
                                   angle=start.angle if angle is None else angle + self.rng.uniform(-4, 4)))
        ex, ey = _mean([(s[0], s[1]) for s in spots])
        self.reach(actor, [(t, sx, sy), (t + 0.3 * duration, sx, sy), (t + duration, ex, ey)])
        return max(c.track.last.t for c in cards)

    def flip(self, cards: list[Card], *, t: float, face_up: bool = True) -> float:
        for card in cards:
            now = card.track.at(t) or card.track.last
            card.track.add(replace(now, t=t))
            card.track.add(replace(now, t=t + 0.15, face_up=face_up))
        return t + 0.15


def _mean(points: Sequence[Pose | tuple[float, float]]) -> tuple[float, float]:
    xs = [p.x if isinstance(p, Pose) else p[0] for p in points]
    ys = [p.y if isinstance(p, Pose) else p[1] for p in points]
    return (sum(xs) / len(xs), sum(ys) / len(ys))


def seat_angle(table: SimTable, seat: int, rng: random.Random, spread: float = 8.0) -> float:
    return table.seats[seat].angle + rng.uniform(-spread, spread)


def distance(a: tuple[float, float], b: tuple[float, float]) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])

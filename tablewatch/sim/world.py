"""The simulated table's objects and where each one is over time (keyframes in table millimetres).

Every card, chip and arm has a ``Track``, and so has the dealer button puck (``World.button``): keyframes of
position (x, y on the felt, z above it), angle, face up or down, and the zone it lies in. Between keyframes
positions move linearly; the discrete attributes hold from the earlier key. The renderer, the label writer and the
RFID reads all read the same tracks, so pictures, labels and reads agree by construction.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field, replace
from typing import Literal

CHIP_DIAMETER = 39.0  # mm
CHIP_HEIGHT = 3.3  # mm
CARD_W, CARD_H = 63.0, 88.0  # mm (poker size)
BUTTON_DIAMETER = 76.0  # mm: a standard 3 in dealer button puck
BUTTON_HEIGHT = 12.0  # mm
HIDE_S = 0.01  # an object taken off the table is on its way out this long


@dataclass(frozen=True, slots=True)
class Pose:
    t: float
    x: float
    y: float
    z: float = 0.0
    angle: float = 0.0  # degrees, counter-clockwise in table coordinates
    face_up: bool = False
    visible: bool = True
    zone: str | None = None  # the layout zone it rests in (None while carried)


@dataclass(slots=True)
class Track:
    keys: list[Pose] = field(default_factory=list)
    _times: list[float] = field(default_factory=list)

    def add(self, pose: Pose) -> None:
        """Append a key; a key at the same time as the last one replaces it."""
        if self.keys and pose.t < self.keys[-1].t - 1e-9:
            raise ValueError(f"keyframes must go forward in time: {pose.t} after {self.keys[-1].t}")
        if self.keys and abs(pose.t - self.keys[-1].t) < 1e-9:
            self.keys[-1] = pose
            self._times[-1] = pose.t
            return
        self.keys.append(pose)
        self._times.append(pose.t)

    def at(self, t: float) -> Pose | None:
        """The pose at ``t``; None before the object exists."""
        i = bisect.bisect_right(self._times, t) - 1
        if i < 0:
            return None
        a = self.keys[i]
        if i + 1 >= len(self.keys):
            return a
        b = self.keys[i + 1]
        span = b.t - a.t
        f = 0.0 if span <= 0 else (t - a.t) / span
        if f <= 0:
            return a
        return replace(
            a,
            t=t,
            x=a.x + (b.x - a.x) * f,
            y=a.y + (b.y - a.y) * f,
            z=a.z + (b.z - a.z) * f,
            angle=a.angle + (b.angle - a.angle) * f,
            zone=None if a.zone != b.zone else a.zone,
        )

    def truncate_after(self, t: float) -> None:
        """Drop keys later than ``t`` (an arm's way back, when the next reach starts sooner)."""
        keep = bisect.bisect_right(self._times, t)
        if keep and keep < len(self.keys):
            at = self.at(t)
            del self.keys[keep:], self._times[keep:]
            if at is not None:
                self.add(at)

    def hide(self, t: float) -> None:
        """The object lies where it is until ``t`` (or its last key, if later), then is gone. A hold key just
        before keeps its zone: a key that leaves the zone makes the whole span before it read as carried."""
        last = self.last
        t = max(t, last.t)
        if t - HIDE_S > last.t:
            self.add(replace(last, t=t - HIDE_S))
        self.add(replace(last, t=t, visible=False, zone=None))

    @property
    def last(self) -> Pose:
        return self.keys[-1]

    def move(self, t0: float, t1: float, *, to: Pose) -> None:
        """Hold the current pose until ``t0`` then move to ``to`` by ``t1``."""
        self.add(replace(self.at(t0) or to, t=t0))
        self.add(replace(to, t=t1))


@dataclass(slots=True)
class SimObject:
    oid: int
    track: Track


@dataclass(slots=True)
class Card(SimObject):
    code: str  # "As"; the identity even while face down


@dataclass(slots=True)
class Chip(SimObject):
    uid: str
    value: int
    counterfeit: bool = False


@dataclass(slots=True)
class Arm(SimObject):
    actor: str  # "dealer" or "seatN"
    shoulder: tuple[float, float] = (0.0, 0.0)
    sleeve: tuple[int, int, int] = (60, 60, 60)
    skin: tuple[int, int, int] = (120, 160, 210)


Kind = Literal["card", "chip", "arm"]


@dataclass
class World:
    """All objects of a run. Object ids are unique and stable (they index the label id buffer)."""

    cards: list[Card] = field(default_factory=list)
    chips: list[Chip] = field(default_factory=list)
    arms: dict[str, Arm] = field(default_factory=dict)
    button: Track = field(default_factory=Track)  # the dealer button puck (no keys: no puck on the table)
    _next: int = 1

    def _oid(self) -> int:
        oid, self._next = self._next, self._next + 1
        return oid

    def new_card(self, code: str, pose: Pose) -> Card:
        card = Card(oid=self._oid(), track=Track(), code=code)
        card.track.add(pose)
        self.cards.append(card)
        return card

    def new_chip(self, uid: str, value: int, pose: Pose, *, counterfeit: bool = False) -> Chip:
        chip = Chip(oid=self._oid(), track=Track(), uid=uid, value=value, counterfeit=counterfeit)
        chip.track.add(pose)
        self.chips.append(chip)
        return chip

    def new_arm(self, actor: str, shoulder: tuple[float, float], **colours: tuple[int, int, int]) -> Arm:
        arm = Arm(oid=self._oid(), track=Track(), actor=actor, shoulder=shoulder, **colours)
        arm.track.add(Pose(t=0.0, x=shoulder[0], y=shoulder[1], z=80.0))
        self.arms[actor] = arm
        return arm

    def end_time(self) -> float:
        tracks = [o.track for o in (*self.cards, *self.chips, *self.arms.values())]
        return max((tr.last.t for tr in tracks if tr.keys), default=0.0)

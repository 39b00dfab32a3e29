"""Arms, hands and the dealer's body as solids: capsules and ellipsoids in table millimetres (heights above the felt).

A hand is shaped as a person's is, at the size of one: a palm, four fingers of their own lengths spread a little
and curled down towards the felt, a thumb on the side the hand has, a wrist and a sleeve up to the shoulder. Each
arm keeps its own curl, spread and handedness (drawn from its id), so the hands at a table differ as people's do.
Plain geometry: the renderer turns these into Mitsuba shapes; a test can measure them without Mitsuba.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import numpy as np

from tablewatch.sim.world import Arm, Pose

Colour = tuple[int, int, int]  # BGR, as the 2D renderer keeps an arm's colours

HAND_LIFT_MM = 30.0  # the hand's middle above its pose (the 2D renderer's too)
SHOULDER_MM = 250.0  # a shoulder's height above the felt
SLEEVE_RADIUS_MM = 46.0
WRIST_RADIUS_MM = 25.0
PALM_MM = (46.0, 42.0, 14.0)  # semi-axes: along the fingers, across, thick
FINGERS = ((-27.0, 66.0, 7.5), (-9.0, 80.0, 8.5), (9.0, 76.0, 8.5), (27.0, 62.0, 8.0))  # across, length, radius
THUMB = (58.0, 9.5)  # length, radius
REACHING_MM = 25.0  # an arm this near its shoulder is resting off the table (the 2D renderer draws none either)


@dataclass(frozen=True)
class Capsule:
    """A cylinder with round ends from ``a`` to ``b`` (x, y, height in mm)."""

    a: tuple[float, float, float]
    b: tuple[float, float, float]
    radius: float
    colour: Colour
    skin: bool


@dataclass(frozen=True)
class Ellipsoid:
    """A sphere stretched along three axes (each a vector whose length is that semi-axis)."""

    centre: tuple[float, float, float]
    axes: tuple[tuple[float, float, float], tuple[float, float, float], tuple[float, float, float]]
    colour: Colour
    skin: bool


Solid = Capsule | Ellipsoid


@dataclass(frozen=True)
class HandStyle:
    """How one person holds a hand over the felt."""

    curl: float  # 0 straight fingers .. 1 curled under
    spread_deg: float  # between neighbouring fingers
    right: bool  # a right hand (thumb on the left, seen from above with the fingers pointing away)

    @classmethod
    def of(cls, arm: Arm) -> HandStyle:
        rng = random.Random(arm.oid * 7919)
        return cls(curl=rng.uniform(0.15, 0.65), spread_deg=rng.uniform(3.0, 9.0), right=rng.random() < 0.8)


def arm_solids(arm: Arm, pose: Pose) -> list[Solid]:
    """The arm at ``pose`` (its hand's place), from the shoulder to the finger tips; nothing while it rests."""
    sx, sy = arm.shoulder
    if math.hypot(pose.x - sx, pose.y - sy) <= REACHING_MM:
        return []
    style = HandStyle.of(arm)
    forward = np.array([pose.x - sx, pose.y - sy]) / math.hypot(pose.x - sx, pose.y - sy)
    left = np.array([forward[1], -forward[0]])  # seen from above (the table's y runs towards the dealer)
    hand = np.array([pose.x, pose.y])
    lift = pose.z + HAND_LIFT_MM

    def at(along: float, across: float, height: float) -> tuple[float, float, float]:
        x, y = hand + forward * along + left * across
        return (float(x), float(y), float(height))

    skin, sleeve = arm.skin, arm.sleeve
    solids: list[Solid] = [
        Capsule(at(-60, 0, lift + 8), at(-105, 0, lift + 22), WRIST_RADIUS_MM, skin, True),
        Capsule(at(-100, 0, lift + 24), (sx, sy, SHOULDER_MM), SLEEVE_RADIUS_MM, sleeve, False),
        _palm(forward, left, at(-8, 0, lift), skin),
    ]
    for i, (across, length, radius) in enumerate(FINGERS):
        turn = math.radians((i - 1.5) * style.spread_deg)
        direction = forward * math.cos(turn) + left * math.sin(turn)
        base = at(34, across, lift - 2)
        reach = length * (1 - 0.45 * style.curl)
        tip_x, tip_y = np.array(base[:2]) + direction * reach
        drop = min(base[2] - radius, length * (0.15 + 0.6 * style.curl))  # the tip rests on the felt at most
        solids.append(Capsule(base, (float(tip_x), float(tip_y), base[2] - drop), radius, skin, True))
    side = 1.0 if style.right else -1.0
    thumb_base = at(-12, side * 38, lift - 3)
    thumb_dir = forward * math.cos(math.radians(50)) + left * side * math.sin(math.radians(50))
    tx, ty = np.array(thumb_base[:2]) + thumb_dir * THUMB[0]
    solids.append(Capsule(thumb_base, (float(tx), float(ty), max(THUMB[1], thumb_base[2] - 14)), THUMB[1], skin, True))
    return solids


def _palm(forward: np.ndarray, left: np.ndarray, centre: tuple[float, float, float], skin: Colour) -> Ellipsoid:
    a, b, c = PALM_MM
    return Ellipsoid(centre, ((float(forward[0] * a), float(forward[1] * a), 0.0),
                              (float(left[0] * b), float(left[1] * b), 0.0), (0.0, 0.0, c)), skin, True)


def dealer_body(arm: Arm, dealer_position: tuple[float, float]) -> list[Solid]:
    """The dealer standing at the rail: a torso in the arm's sleeve colour and a head behind the shoulders."""
    sx, sy = arm.shoulder
    back = np.array(dealer_position) - (sx, sy)
    norm = float(np.hypot(*back))
    away = back / norm if norm > 1 else np.array([0.0, 1.0])
    across = np.array([away[1], -away[0]])
    cx, cy = np.array([sx, sy]) + away * 140
    hx, hy = np.array([sx, sy]) + away * 190
    torso = Ellipsoid((float(cx), float(cy), 120.0), ((float(across[0] * 240), float(across[1] * 240), 0.0),
                                                      (float(away[0] * 130), float(away[1] * 130), 0.0),
                                                      (0.0, 0.0, 330.0)), arm.sleeve, False)
    head = Ellipsoid((float(hx), float(hy), 560.0), ((80.0, 0.0, 0.0), (0.0, 95.0, 0.0), (0.0, 0.0, 110.0)),
                     arm.skin, True)
    return [torso, head]

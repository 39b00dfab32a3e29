"""Per frame on the table plane: what moves (arms), and what just came to rest (settles).

A reference picture of the table holds what lies still. A pixel that has not changed for ``still_s``
seconds, and is not under an arm, is copied into it; where that copy changes the reference, something
came to rest or was taken away: a *settle*. Pixels that differ from the reference are foreground; a large
foreground region that reaches beyond the felt is an arm, owned by the seat (or the dealer) whose place it
comes from, and its hand is the point of it farthest from that place (not counting cards it carries ahead
of it). A sleeve the colour of the felt or the rail leaves the hand as a separate moving region beyond the
arm's end, in line with the arm seen: it joins that arm. When that hand comes to rest it stays a hand as
long as it shows neither chips' colours (chips it put down) nor bare felt (where it was, once gone). For the
first second the reference is the median of the frames so far, and moving arms are seen against it already.

An arm that rests without moving for GHOST_S is taken into the reference (so is the imprint of one that
left, which looks the same), but what lay under it is kept: the arm stays foreground until the table under
it shows again, and then the table goes back into the reference at once, leaving no imprint behind.

A camera's auto-exposure brightens the whole picture when a dark sleeve fills the view, and darkens it again
when it goes. The still table is taken into the reference meanwhile, but not what lay under an arm: where it
went, the table shows at another exposure than the reference holds, a region of the arm's shape that never
moves. So the reference remembers each pixel's exposure (the felt's brightness when it was taken) and is
compared as the camera shows it now; bare felt and the table as first seen are judged likewise.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

import cv2
import numpy as np

from tablewatch.calibration.layout import TableLayout
from tablewatch.events import seat_actor
from tablewatch.vision.perception.light import channel_max, felt_level, sampled
from tablewatch.vision.perception.plane import TablePlane

FG_DIFF = 24  # grey levels (max over channels) from the reference: foreground
MOTION_DIFF = 16  # between consecutive processed frames: the pixel moved
ARM_MIN_MM2 = 9000.0  # an arm seen from above is at least ~95 mm wide and reaches 100 mm in
SETTLE_MIN_MM2 = 500.0  # a third of a chip's top: smaller changes are noise
SETTLE_PIECE_MM2 = 100.0  # smaller pieces of a zone's change are noise; larger ones may add up to a settle
SETTLE_PIECES_MIN_MM2 = 400.0  # ... of this much: two strips a card sticks out by beyond the one beneath
PIECES_SPAN_MM = 100.0  # ... lying this near the largest of them (a card is 88 mm long)
ARM_GUARD_PX = 5  # pixels this close to an arm are not absorbed (blur and shadow around it)
EDGE_MM = 70.0  # the felt's outer band: every arm crosses it
ROOT_MAX_MM = 470.0  # an arm shows within this of its owner's place (the felt's edge is 270-370 mm from it)
OWNER_MAX_MM = ROOT_MAX_MM + 250.0  # what is seen of an arm (its nearer end, or a hand alone) is this near its owner
WARM_UP_S = 1.0  # the first moments learn the table (nothing settles)
WARM_MIN_FRAMES = 5  # ... and from this many frames on, a median of them shows the arms moving over it
WARM_MAX_FRAMES = 7  # the median of at most this many latest frames (more: a bench hand read a card in a blind)
PALM_MM = 50.0  # the middle of a hand, back from its leading edge
HAND_REACH_MM = 110.0  # what is seen within this of an arm's leading edge is its hand and wrist: their direction
ELONGATED = 2.0  # an arm's visible part this many times longer than wide has a direction worth following
HAND_MIN_MM2, HAND_MAX_MM2 = 4000.0, 25000.0  # a hand seen without its arm (a few chips are smaller)
HAND_MOVING = 0.25  # and this share of it moved since the last frame (chips just put down lie still)
BRIDGE_MM = 200.0  # the most of a sleeve the felt can hide between the arm seen and its hand
BURN_STILL_S = 0.2  # only cards come to rest on the burn pile, and they land flat: a dealer burning twice pitches
# the second card before the first would have held still the usual time
GHOST_S = 6.0  # a "hand" that has not moved at all for this long is the imprint of one that left
RESTING_MAX_S = 120.0  # an arm resting longer than this becomes table (its imprint stays GHOST_S when it leaves)
CARD_SHARE = 0.5  # a moving region this much in a card's colours is a card in flight, not a hand
IN_FLIGHT_MAX_MM2 = 12000.0  # ... when no larger than a card and its ghost (a camera blending frames shows both)
CHIP_SHARE = 0.25  # a still region this much in chips' colours is chips put down, not a hand resting (~0)
BARE_DIFF = 24  # grey levels (max over channels) from the felt's colour: bare felt (its weave stays within ~13)
BARE_SHARE = 0.5  # a still region this much bare felt is where a hand was, not a hand
IMPRINT_SHARE = 0.8  # a foreground region this much as the table was first seen is the imprint of an arm
FELT_SAMPLE = 31  # the felt's brightness is read off every 31st of its pixels (thousands: plenty for a median)
EXPOSURE_STEP = 0.03  # exposures closer than this share are the same (the felt's median moves ~1 % by noise)
# Someone's shadow passing over the felt darkens it, colour unchanged: a pixel of a coloured reference (its channels
# SHADE_COLOURED apart) whose every channel reads between SHADE_DEPTH of it, by ratios within SHADE_SPREAD of each
# other (in log), is the same thing less lit (or, the other way, more: a shadow the reference took in has gone). A
# sleeve or a chip over the felt changes its colour; over a grey felt nothing is told apart so, and nothing is taken
# for a shadow.
SHADE_COLOURED = 25
SHADE_DEPTH = (0.4, 0.93)
SHADE_SPREAD = 0.15
SHADE_NOISE = 8.0  # grey levels added to both sides of a ratio: dark pixels' noise makes no colour of its own
_LOG_LEVEL = np.log(np.arange(256, dtype=np.float32) + np.float32(SHADE_NOISE))  # (a ratio: a difference of these)


class ObjectColours(Protocol):
    """Which of some BGR pixels (N, 3) are in a card's colours (its back, its paper), in a mix of one with the
    felt, or in a chip's (``Appearance``)."""

    def card_like(self, bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray]: ...

    def card_edge(self, bgr: np.ndarray) -> np.ndarray: ...

    def chip_like(self, bgr: np.ndarray) -> np.ndarray: ...


@dataclass(frozen=True)
class Arm:
    actor: str  # "dealer" or "seatN"
    tip_mm: tuple[float, float]  # the leading edge of the hand
    palm_mm: tuple[float, float]  # the middle of the hand, PALM_MM back from the tip along the hand and wrist
    area_mm2: float


@dataclass(frozen=True)
class Settle:
    """A region of the reference that changed: something came to rest there, or left."""

    t: float
    centre_mm: tuple[float, float]
    area_mm2: float
    zone: str
    held_s: float  # how long it had held still when it was taken as settled (the burn pile's need is shorter)
    box: tuple[int, int, int, int]  # plane pixels x0, y0, x1, y1
    mask: np.ndarray = field(repr=False)  # bool, box-sized
    before: np.ndarray = field(repr=False)  # BGR of the box before and after
    after: np.ndarray = field(repr=False)


class SceneTracker:
    """Reference picture, foreground, arms and settles, one rectified frame at a time."""

    def __init__(self, plane: TablePlane, *, still_s: float = 0.35, seats: Iterable[int] | None = None,
                 colours: ObjectColours | None = None) -> None:
        """``seats``: the occupied seats, when known (an arm is owned by one of them or the dealer);
        ``colours``: the cards' and chips' (without them, a hand carrying a card or resting by chips is taken
        as it shows)."""
        self.plane = plane
        self.still_need = np.full(plane.felt.shape, still_s, np.float32)  # per pixel: still this long, it rests
        if "burn" in plane.zone_masks:
            self.still_need[plane.zone_masks["burn"]] = min(still_s, BURN_STILL_S)
        self.ref: np.ndarray | None = None
        self.prev: np.ndarray | None = None
        self.still_since: np.ndarray | None = None
        layout = plane.layout
        self.origins = actor_places(layout, seats)
        edge = round(EDGE_MM * plane.scale)
        inner = cv2.erode(plane.felt.astype(np.uint8), np.ones((2 * edge + 1,) * 2, np.uint8)) > 0
        outside = (~inner).astype(np.uint8)  # the felt's edge and beyond: every arm crosses it
        self.outside_small = cv2.resize(outside, (outside.shape[1] // 2, outside.shape[0] // 2),
                                        interpolation=cv2.INTER_NEAREST) > 0
        a = plane.scale**2
        self.arm_min_px, self.settle_min_px = ARM_MIN_MM2 * a, SETTLE_MIN_MM2 * a
        self.settle_piece_px, self.settle_pieces_min_px = SETTLE_PIECE_MM2 * a, SETTLE_PIECES_MIN_MM2 * a
        self.hand_min_px, self.hand_max_px = HAND_MIN_MM2 * a, HAND_MAX_MM2 * a
        self.in_flight_max_px = IN_FLIGHT_MAX_MM2 * a
        self.fg: np.ndarray | None = None
        self.t0: float | None = None
        self.warm: list[np.ndarray] = []
        self.actor_names = ["", *self.origins]
        self.actor_ids = {a: i for i, a in enumerate(self.actor_names) if a}
        self.owners: np.ndarray | None = None  # actor id per pixel of last frame's arms (half resolution)
        self.owners_before: np.ndarray | None = None  # ... and of the frame before it
        self.unowned: list[np.ndarray] = []  # points (mm) of each moving hand-sized region no arm took
        self.first: np.ndarray | None = None  # the table as first seen
        self.felt: np.ndarray | None = None  # the felt's median colour as first seen (int16 BGR)
        self.felt_sample = np.flatnonzero((plane.felt & (plane.lines == 0)).ravel())[::FELT_SAMPLE]
        self.first_level = self.level = 1.0  # the felt's brightness in the first frame and now
        self.exposure = np.zeros((0, 0), np.float32)  # per pixel: the felt's brightness when the reference took it
        self._now = np.zeros((0, 0), np.float32)
        self.colours = colours
        self.overexposed = False  # the camera's picture clipped white (``picture``): a hand clips to paper white too
        self.rested_at = np.zeros((0, 0), np.float32)
        self.under = np.zeros((0, 0, 3), np.uint8)

    def update(self, rectified: np.ndarray, t: float) -> tuple[list[Arm], list[Settle]]:
        cur = cv2.GaussianBlur(rectified, (3, 3), 0)
        self.level = max(felt_level(sampled(cur, self.felt_sample)), 1.0)  # (a ratio's denominator)
        if self.ref is None or self.prev is None or self.still_since is None:
            self.ref, self.prev = cur.copy(), cur
            self.still_since = np.full(cur.shape[:2], t, np.float32)
            self.t0 = t
            self.first = cur
            felt = self.plane.felt_colour(cur)
            self.felt = felt.astype(np.uint8).astype(np.int16)
            self.first_level = self.level
            self.exposure = np.full(cur.shape[:2], self.level, np.float32)
            self._now = self.exposure.copy()  # (the level now, to copy where the reference takes the frame)
            self.rested_at = np.full(cur.shape[:2], np.inf, np.float32)  # since when an arm the reference took in rests
            self.under = np.zeros_like(cur)  # what lay under it
            self.warm = [cur]
            return [], []
        moved = channel_max(cv2.absdiff(cur, self.prev)) > MOTION_DIFF
        self.prev = cur
        if self.t0 is not None and t - self.t0 < WARM_UP_S:
            return self._warming(cur, moved), []  # (what is still is timed from the first frame)
        self.warm.clear()
        self.still_since = np.where(moved, np.float32(t), self.still_since)
        fg = self._foreground(cur)
        seen = fg | self._still_resting(cur, t)
        fg_clean = cv2.morphologyEx(seen.view(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        arms, arm_mask = self._arms(fg_clean, moved, cur)
        guard = cv2.dilate(arm_mask, np.ones((2 * ARM_GUARD_PX + 1,) * 2, np.uint8)) > 0
        still = t - self.still_since
        # An arm never becomes table, unless it does not move at all for GHOST_S: then it is the imprint
        # of an arm the reference once took in, seen where the arm has gone.
        absorb = (still >= self.still_need) & (~guard | (still >= GHOST_S))
        changed = absorb & fg
        settles = self._settles(changed, cur, t) if cv2.countNonZero(changed.view(np.uint8)) else []
        self._remember_under(changed & guard, cur, t)
        cv2.copyTo(cur, absorb.view(np.uint8), self.ref)
        self._now.fill(self.level)
        cv2.copyTo(self._now, absorb.view(np.uint8), self.exposure)
        self.fg = fg_clean > 0
        return arms, settles

    def _relative(self, level: float | np.ndarray, to: float | np.ndarray) -> np.ndarray:
        """How much brighter the camera shows things at ``level`` than at ``to`` (1 when within EXPOSURE_STEP)."""
        ratio = np.asarray(level, np.float32) / np.asarray(to, np.float32)
        same: np.ndarray = np.abs(ratio - 1.0) < EXPOSURE_STEP
        return np.where(same, np.float32(1.0), ratio)

    def _foreground(self, cur: np.ndarray) -> np.ndarray:
        """Pixels that differ from the reference as the camera's exposure now shows it."""
        assert self.ref is not None
        expected = self.ref
        taken = np.array([self.exposure.min(), self.exposure.max()])
        if (self._relative(self.level, taken) != 1.0).any():  # (rare: a whole-plane ratio only then)
            expected = np.clip(self.ref * self._relative(self.level, self.exposure)[..., None], 0, 255).astype(np.uint8)
        fg: np.ndarray = channel_max(cv2.absdiff(cur, expected)) > FG_DIFF
        if fg.any():
            fg &= ~lit_otherwise(cur, expected, fg)
        return fg

    def _warming(self, cur: np.ndarray, moved: np.ndarray) -> list[Arm]:
        """The first moments: the reference is the median of the frames so far (a moving arm leaves no trace
        in it), and from WARM_MIN_FRAMES on, the arms that differ from it are seen already, once they have
        moved; nothing settles. (What differs from it and never moved came to rest meanwhile: a table being
        set.)"""
        self.warm.append(cur)
        self.ref = np.median(np.stack(self.warm[-WARM_MAX_FRAMES:]), axis=0).astype(np.uint8)
        self.exposure[:] = self.level
        if len(self.warm) < WARM_MIN_FRAMES:
            return []
        fg = channel_max(cv2.absdiff(cur, self.ref)) > FG_DIFF
        fg_clean = cv2.morphologyEx(fg.view(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        self.fg = fg_clean > 0
        return self._arms(fg_clean, moved, cur)[0]

    def _remember_under(self, resting: np.ndarray, cur: np.ndarray, t: float) -> None:
        """An arm the reference takes in (it rested GHOST_S): keep what lay under it, to know when it leaves.

        What the reference takes in may instead be the table where an imprint was (an arm the first reference
        took in, gone since): then the frame shows more bare felt than the reference held, where an arm coming
        to rest over the table shows less.
        """
        assert self.ref is not None and self.felt is not None
        new = (resting & ~self.resting).view(np.uint8)
        if not cv2.countNonZero(new):
            return
        n, labels = cv2.connectedComponents(new, connectivity=8)
        for k in range(1, n):
            part = labels == k
            on_felt = part & self.plane.felt  # bare felt tells only there (a grey sleeve on a dark rail is felt-like)
            judged = on_felt if on_felt.any() else part
            if self._covers(cur[judged], self.ref[judged], self.exposure[judged]):
                self.under[part] = self.ref[part]
                self.rested_at[part] = t

    def _covers(self, now: np.ndarray, before: np.ndarray, before_level: np.ndarray) -> bool:
        """Whether these pixels of the frame show something over the table the reference held (fewer of them
        are bare felt than before), rather than the table where the reference held an arm's imprint."""
        return bool(self._bare(now).mean() < self._bare(before, before_level).mean())

    def _bare(self, bgr: np.ndarray, level: float | np.ndarray | None = None) -> np.ndarray:
        """Which of these pixels show bare felt, seen at the felt brightness ``level`` (per pixel, or the frame's
        now when None)."""
        assert self.felt is not None
        seen_as = self._relative(self.level if level is None else level, self.first_level).reshape(-1, 1)
        bare: np.ndarray = np.abs(bgr.astype(np.float32) - self.felt * seen_as).max(axis=1) <= BARE_DIFF
        return bare

    def _lone_hand(self, comp: np.ndarray, at: tuple[int, int], moving: np.ndarray, cur: np.ndarray) -> str | None:
        """A hand-sized region apart from any arm (on the half-resolution mask): a hand whose sleeve the felt
        hides if it moves, or if it holds still where an arm was in the last frame and shows neither chips'
        colours nor bare felt (a hand resting on a stack; chips just put down, a card fan or a pushed pot lie
        still too, but an arm left them or they show chips' colours; where a hand rested while the table was
        first learnt, the felt shows when it goes). Never a region in a card's colours (a card in flight, as a
        camera blending frames shows it too: ``_card_coloured``). Its owner ("" when unknown), else None."""
        pixels = cur[_full_window(comp, at)][comp]
        if self._card_coloured(pixels):
            return None
        owner = self._previous_owner(comp, at)
        if not _still(comp, at, moving):
            return owner or ""
        if owner is None or self.colours is None or float(self.colours.chip_like(pixels).mean()) >= CHIP_SHARE:
            return None
        return owner if float(self._bare(pixels).mean()) < BARE_SHARE else None  # else the imprint of one gone

    def _in_flight(self, comp: np.ndarray, at: tuple[int, int], moving: np.ndarray, cur: np.ndarray) -> bool:
        """A card in flight by the felt's edge, not an arm: a moving region no arm was in the last frame, no larger
        than a card and its ghost and mostly in a card's colours (a camera that blends each frame with the last
        draws a pitched card and its fading copy out to an arm's size, in colours between the card's and the
        felt's)."""
        return (4 * float(comp.sum()) <= self.in_flight_max_px and not _still(comp, at, moving)
                and self._previous_owner(comp, at) is None and self._card_coloured(cur[_full_window(comp, at)][comp]))

    def _card_coloured(self, pixels: np.ndarray) -> bool:
        """A region's pixels mostly in a card's colours, or in a mix of one with the felt."""
        if self.colours is None:
            return False
        return float((self._card_like(pixels) | self.colours.card_edge(pixels)).mean()) >= CARD_SHARE

    def _card_like(self, bgr: np.ndarray) -> np.ndarray:
        """Which of these pixels are in a card's colours, back or paper."""
        assert self.colours is not None
        back, face = self.colours.card_like(bgr)
        either: np.ndarray = np.logical_or(back, face)
        return either

    def _uncovered(self, comp: np.ndarray, at: tuple[int, int], moving: np.ndarray) -> bool:
        """A region that lies still and was no arm in the last frame: no arm, since every arm comes into view
        moving, but what came to rest (a table being set while it is learnt) or what an arm left as it went (the
        stack a player sat down with, by the felt's edge as an arm is)."""
        return _still(comp, at, moving) and self._previous_owner(comp, at) is None

    def _revealed(self, comp: np.ndarray, at: tuple[int, int], moving: np.ndarray, cur: np.ndarray) -> bool:
        """A still region that now shows mostly bare felt where the reference held mostly something else: the
        table uncovered, where the reference still holds what lay there (a hand that rested while the table was
        learnt, gone since), not an arm. (A felt-coloured sleeve at rest shows felt-like where the reference
        shows felt too.)"""
        assert self.ref is not None
        if not _still(comp, at, moving):
            return False
        window = _full_window(comp, at)
        on_felt = comp & self.plane.felt[window]  # (bare felt tells only on the felt: the rail is never felt-like)
        if not on_felt.any():
            return False
        now, before = cur[window][on_felt], self.ref[window][on_felt]
        before_level = self.exposure[window][on_felt]
        return bool(self._bare(now).mean() >= BARE_SHARE > self._bare(before, before_level).mean())

    def _imprint(self, comp: np.ndarray, at: tuple[int, int], cur: np.ndarray) -> bool:
        """A region (on the half-resolution mask) that mostly shows the table as first seen: no arm, but the
        imprint of one the reference took in while it was made (an arm resting then)."""
        assert self.first is not None
        window = _full_window(comp, at)
        first = self.first[window][comp] * self._relative(self.level, self.first_level)
        diff = np.abs(cur[window][comp].astype(np.float32) - first).max(axis=1)
        return float((diff <= FG_DIFF).mean()) >= IMPRINT_SHARE

    @property
    def resting(self) -> np.ndarray:
        """Where an arm the reference took in still rests."""
        return self.rested_at < np.inf

    def _still_resting(self, cur: np.ndarray, t: float) -> np.ndarray:
        """Where an arm the reference took in still rests: foreground, though the reference holds it.

        Where the frame shows again what lay under it, the arm has gone: that goes back into the reference
        at once (no imprint of the arm is left). Where it shows neither, something else happened there, and
        the usual foreground and settling take over, as they do after RESTING_MAX_S.
        """
        resting = self.resting
        if not cv2.countNonZero(resting.view(np.uint8)):
            return resting
        assert self.ref is not None
        gone = resting & (channel_max(cv2.absdiff(cur, self.under)) <= FG_DIFF)
        cv2.copyTo(cur, gone.view(np.uint8), self.ref)
        other = channel_max(cv2.absdiff(cur, self.ref)) > FG_DIFF
        self.rested_at[gone | other | (t - self.rested_at > RESTING_MAX_S)] = np.inf
        return self.resting

    def _arms(self, fg: np.ndarray, moved: np.ndarray, cur: np.ndarray) -> tuple[list[Arm], np.ndarray]:
        """Arms on a half-resolution mask (an arm is 15+ pixels wide there): owner and hand of each.

        A region that mostly shows the table as first seen is an imprint (``_imprint``), and so is one that shows
        bare felt where the reference does not (``_revealed``). A moving region in a card's colours that was no
        arm in the last frame is a card in flight (a pitch, ``_in_flight``), not an arm or a hand whose sleeve the
        felt hides. A region is an arm only if it moves or was one in the last frame (``_uncovered``).
        """
        small = cv2.resize(fg, (fg.shape[1] // 2, fg.shape[0] // 2), interpolation=cv2.INTER_NEAREST)
        moving = cv2.resize(moved.view(np.uint8), (small.shape[1], small.shape[0]), interpolation=cv2.INTER_NEAREST)
        n, labels, stats, _ = cv2.connectedComponentsWithStats(small, connectivity=8)
        arm_small = np.zeros(small.shape, np.uint8)
        owners = np.zeros(small.shape, np.uint8)
        parts: list[tuple[np.ndarray, int, str | None, int]] = []  # points (mm), label, owner, area
        for k in range(1, n):
            x, y, w, h, area = stats[k]
            if area * 4 < self.hand_min_px:
                continue
            comp = labels[y:y + h, x:x + w] == k
            if self._imprint(comp, (x, y), cur):
                continue
            if self._uncovered(comp, (x, y), moving) or self._revealed(comp, (x, y), moving, cur):
                continue
            ys, xs = np.nonzero(comp)
            pts = self.plane.to_mm(np.stack([xs + x, ys + y], axis=1) * 2.0 + 0.5)
            out = comp & self.outside_small[y:y + h, x:x + w]
            if area * 4 >= self.arm_min_px and out.sum() >= 0.02 * area:
                if self._in_flight(comp, (x, y), moving, cur):
                    continue
                actor = self._owner(comp, (x, y), pts)
                if actor is not None:
                    parts.append((self._uncarried(pts, comp, (x, y), cur), k, actor, int(area)))
            elif area * 4 <= self.hand_max_px and (hand := self._lone_hand(comp, (x, y), moving, cur)) is not None:
                parts.append((self._uncarried(pts, comp, (x, y), cur), k, hand or None, int(area)))
        main: dict[str, tuple[np.ndarray, int, int]] = {}  # actor -> its largest arm: points, label, area
        for pts, k, actor, area in parts:
            if actor is not None and (actor not in main or area > main[actor][2]):
                main[actor] = (pts, k, area)
        points = {actor: pts for actor, (pts, _, _) in main.items()}
        members = {k: actor for actor, (_, k, _) in main.items()}  # label -> the arm it is part of
        for pts, k, actor, _ in parts:
            joined = None if k in members else self._bridged(pts, points, only=actor)
            if joined is not None:
                points[joined] = np.concatenate([points[joined], pts])
                members[k] = joined
        for k, actor in members.items():
            arm_small[labels == k] = 255
            owners[labels == k] = self.actor_ids[actor]
        self.owners_before, self.owners = self.owners, owners
        # moving hand-sized regions no one owns yet (a hand reaching in, its sleeve hidden over the rail): for
        # the hand finder to confirm and own (``hand_finder``)
        self.unowned = [pts for pts, k, actor, _ in parts if actor is None and k not in members]
        arms = [self._arm(actor, pts, main[actor][2]) for actor, pts in points.items()]
        return arms, cv2.resize(arm_small, (fg.shape[1], fg.shape[0]), interpolation=cv2.INTER_NEAREST)

    def _uncarried(self, pts: np.ndarray, comp: np.ndarray, at: tuple[int, int], cur: np.ndarray) -> np.ndarray:
        """The points of an arm (or lone hand) not in a card's colours: cards drawn in or pushed ahead of a hand
        are one region with it, but the hand's leading edge is where they begin. (Chips' colours stay: a dark
        sleeve and some hands share them.) All the points when less than half a hand's worth would be left, and
        in an overexposed picture, where the fingers clip to paper white and would be cut off as a card."""
        if self.colours is None or self.overexposed:
            return pts
        pixels = cur[_full_window(comp, at)][comp]
        rest = comp.copy()
        rest[comp] = ~self._card_like(pixels)
        # the blurred rim of what is carried is in no one's colours: an opening takes it off
        kept = cv2.morphologyEx(rest.view(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))[comp] > 0
        return pts[kept] if kept.sum() * 4 >= self.hand_min_px / 2 else pts

    def _arm(self, actor: str, pts: np.ndarray, area_px: float) -> Arm:
        """Its leading edge, and its palm back from there along the hand and wrist seen (a hand reaching
        sideways points away from its owner's place)."""
        far, _ = _far_end(pts, self.origins[actor])
        near = pts[np.hypot(*(pts - far).T) <= HAND_REACH_MM]
        back = near.mean(axis=0) - far
        palm = far + back / max(float(np.hypot(*back)), 1.0) * PALM_MM
        return Arm(actor=actor, tip_mm=(float(far[0]), float(far[1])), palm_mm=(float(palm[0]), float(palm[1])),
                   area_mm2=float(4 * area_px / self.plane.scale**2))

    def _bridged(self, part: np.ndarray, arms: dict[str, np.ndarray], *, only: str | None) -> str | None:
        """The arm (``only``'s, when the part was an arm's in the last frame) that a part continues: it begins
        within BRIDGE_MM of the arm's far end, in line with the arm, and reaches farther from the owner (a
        hand beyond a sleeve the felt hides), else None."""
        for actor, pts in arms.items():
            if only is not None and actor != only:
                continue
            origin = self.origins[actor]
            end, reach = _far_end(pts, origin)
            gap = float(np.min(np.hypot(*(part - end).T)))
            axis = _direction(pts, end - origin)
            v = part.mean(axis=0) - end
            off_axis = abs(float(axis[0] * v[1] - axis[1] * v[0]))
            if gap <= BRIDGE_MM and off_axis <= BRIDGE_MM / 2 and float(np.max(np.hypot(*(part - origin).T))) > reach:
                return actor
        return None

    def _owner(self, comp: np.ndarray, at: tuple[int, int], pts: np.ndarray) -> str | None:
        """Whose arm: the owner of the arm it overlaps in the previous frame, or in the one before (an arm that
        faded into the felt for a frame, as a camera blending frames shows a fast one), else the nearest place."""
        return (self._previous_owner(comp, at) or self._owner_in(self.owners_before, comp, at)
                or _nearest_owner(pts, self.origins))

    def _previous_owner(self, comp: np.ndarray, at: tuple[int, int]) -> str | None:
        """The owner of the arm a component overlaps in the previous frame, if it overlaps one."""
        return self._owner_in(self.owners, comp, at)

    def _owner_in(self, owners: np.ndarray | None, comp: np.ndarray, at: tuple[int, int]) -> str | None:
        """The owner of the arm a component overlaps in a frame's map of ``owners``, if it overlaps one."""
        if owners is None:
            return None
        x, y = at
        h, w = comp.shape
        ids = owners[y:y + h, x:x + w][comp]
        ids = ids[ids > 0]
        return self.actor_names[int(np.bincount(ids).argmax())] if ids.size > 0.2 * comp.sum() else None

    def _settles(self, changed: np.ndarray, cur: np.ndarray, t: float) -> list[Settle]:
        """What came to rest this frame: each large enough changed region, and the smaller pieces of one zone
        together (a card dropped onto a pile of its like shows only the strips it sticks out by, often apart)."""
        grown = cv2.dilate(changed.astype(np.uint8), np.ones((5, 5), np.uint8))
        n, labels, stats, _ = cv2.connectedComponentsWithStats(grown, connectivity=8)
        out: list[Settle] = []
        pieces: dict[str, list[tuple[int, int, np.ndarray]]] = {}  # zone -> label, area, centre (mm)
        for k in range(1, n):
            x, y, w, h, _ = stats[k]
            area = int(((labels[y:y + h, x:x + w] == k) & changed[y:y + h, x:x + w]).sum())
            if area >= self.settle_min_px:
                out.append(self._settle(t, labels, [k], stats, changed, cur))
            elif area >= self.settle_piece_px:
                centre = self.plane.to_mm(np.array([x + w / 2, y + h / 2]))
                pieces.setdefault(self.plane.layout.zone_at(*centre), []).append((k, area, centre))
        for zone_pieces in pieces.values():
            together = _near_the_largest(zone_pieces)
            if len(together) > 1 and sum(a for _, a, _ in together) >= self.settle_pieces_min_px:
                out.append(self._settle(t, labels, [k for k, _, _ in together], stats, changed, cur))
        return out

    def _settle(self, t: float, labels: np.ndarray, ks: list[int], stats: np.ndarray, changed: np.ndarray,
                cur: np.ndarray) -> Settle:
        assert self.ref is not None
        x0, y0 = int(stats[ks, 0].min()), int(stats[ks, 1].min())
        x1, y1 = int((stats[ks, 0] + stats[ks, 2]).max()), int((stats[ks, 1] + stats[ks, 3]).max())
        comp = np.isin(labels[y0:y1, x0:x1], ks) & changed[y0:y1, x0:x1]
        ys, xs = np.nonzero(comp)
        centre = self.plane.to_mm(np.array([xs.mean() + x0, ys.mean() + y0]))
        return Settle(t=t, centre_mm=(float(centre[0]), float(centre[1])), area_mm2=comp.sum() / self.plane.scale**2,
                      zone=self.plane.layout.zone_at(*centre),
                      held_s=float(self.still_need[y0:y1, x0:x1][comp].max()), box=(x0, y0, x1, y1), mask=comp,
                      before=self.ref[y0:y1, x0:x1].copy(), after=cur[y0:y1, x0:x1].copy())


def actor_places(layout: TableLayout, seats: Iterable[int] | None = None) -> dict[str, np.ndarray]:
    """Where each actor's arm comes from (mm): the player's place of each occupied seat (of every seat when
    ``seats`` is not known), and the dealer's."""
    taken = set(seats) if seats is not None else {s.number for s in layout.seats}
    places = {seat_actor(s.number): np.array(s.player, float) for s in layout.seats if s.number in taken}
    places["dealer"] = np.array(layout.dealer_position, float)
    return places


def _near_the_largest(pieces: list[tuple[int, int, np.ndarray]]) -> list[tuple[int, int, np.ndarray]]:
    """The pieces of a zone's change that may be one thing: those near the largest (slivers an arm's edge left
    far apart in a large zone are not a card's strips)."""
    largest = max(pieces, key=lambda p: p[1])[2]
    return [p for p in pieces if float(np.hypot(*(p[2] - largest))) <= PIECES_SPAN_MM]


def _still(comp: np.ndarray, at: tuple[int, int], moving: np.ndarray) -> bool:
    """Whether too little of a component (of the half-resolution mask, its box at ``at``) moved since the last
    frame for it to be a hand on the move."""
    x, y = at
    h, w = comp.shape
    return bool(moving[y:y + h, x:x + w][comp].mean() < HAND_MOVING)


def _full_window(comp: np.ndarray, at: tuple[int, int]) -> tuple[slice, slice]:
    """Where a component of the half-resolution mask (its box at ``at``) lies on the full-resolution plane,
    every second pixel: indexed by the component itself."""
    x, y = at
    h, w = comp.shape
    return slice(2 * y, 2 * (y + h), 2), slice(2 * x, 2 * (x + w), 2)


def _far_end(pts: np.ndarray, origin: np.ndarray) -> tuple[np.ndarray, float]:
    """The leading edge of what is seen of an arm (its points within 25 mm of the farthest from ``origin``,
    averaged), and how far the farthest point reaches."""
    reach = np.hypot(*(pts - origin).T)
    return pts[reach >= reach.max() - 25.0].mean(axis=0), float(reach.max())


def _direction(pts: np.ndarray, rough: np.ndarray) -> np.ndarray:
    """The unit direction an arm's points run in (an arm may come from a shoulder well to the side of its
    owner's place), turned the way ``rough`` points: from that place to the arm's far end, itself the
    direction when what is seen is too short to have one."""
    centre = pts.mean(axis=0)
    _, spread, vt = np.linalg.svd(pts - centre, full_matrices=False)
    axis = vt[0] if spread[0] >= ELONGATED * spread[1] else rough
    axis = axis / max(float(np.hypot(*axis)), 1e-9)
    return axis if float(axis @ rough) >= 0 else -axis


def lit_otherwise(cur: np.ndarray, ref: np.ndarray, where: np.ndarray) -> np.ndarray:
    """Of the pixels ``where``, those that differ from ``ref`` by light alone: less (a shadow passing), or more by
    as much (where a shadow the reference took in, lingering, has gone)."""
    out = np.zeros(where.shape, bool)
    at = np.flatnonzero(where)
    ref_px = ref.reshape(-1, 3)[at]
    coloured = (ref_px.max(axis=1) - ref_px.min(axis=1)) >= SHADE_COLOURED
    if not coloured.any():
        return out
    at = at[coloured]
    ratios = _LOG_LEVEL[cur.reshape(-1, 3)[at]] - _LOG_LEVEL[ref_px[coloured]]
    ratios = np.where(ratios.mean(axis=1, keepdims=True) > 0, -ratios, ratios)  # more light: less, the other way
    low, high = np.log(SHADE_DEPTH[0]), np.log(SHADE_DEPTH[1])
    shade = (ratios.min(axis=1) >= low) & (ratios.max(axis=1) <= high) & \
        (ratios.max(axis=1) - ratios.min(axis=1) <= SHADE_SPREAD)
    out.ravel()[at[shade]] = True
    return out


def _nearest_owner(pts: np.ndarray, origins: dict[str, np.ndarray]) -> str | None:
    """The place an arm points back to: near the line of the arm, and near its nearer end.

    A dark sleeve over a dark rail does not show, so the visible arm may start well inside the felt; its
    direction still points at the shoulder.
    """
    centre = pts.mean(axis=0)
    _, spread, vt = np.linalg.svd(pts - centre, full_matrices=False)
    if spread[0] < ELONGATED * spread[1]:
        # Only the hand shows (all of the sleeve over the rail): a blob points nowhere; the nearest place owns it.
        near = {a: float(np.hypot(*(o - centre))) for a, o in origins.items()}
        actor = min(near, key=near.__getitem__)
        return actor if near[actor] <= OWNER_MAX_MM else None
    axis = vt[0]
    along = (pts - centre) @ axis
    ends = (centre + axis * along.min(), centre + axis * along.max())
    best, best_score = None, np.inf
    for actor, o in origins.items():
        end = min(ends, key=lambda e: float(np.hypot(*(o - e))))
        v = o - centre
        perp = abs(float(v[0] * axis[1] - v[1] * axis[0]))
        reach = float(np.hypot(*(o - end)))
        score = perp + 0.25 * reach
        if reach <= OWNER_MAX_MM and score < best_score:
            best, best_score = actor, score
    return best

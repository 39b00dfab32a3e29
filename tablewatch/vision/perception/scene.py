"""Per frame on the table plane: what moves (arms), and what just came to rest (settles).

A reference picture of the table holds what lies still. A pixel that has not changed for ``still_s``
seconds, and is not under an arm, is copied into it; where that copy changes the reference, something
came to rest or was taken away: a *settle*. Pixels that differ from the reference are foreground; a large
foreground region that reaches beyond the felt is an arm, owned by the seat (or the dealer) whose place it
comes from, and its hand is the point of it farthest from that place.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from tablewatch.vision.perception.plane import TablePlane

FG_DIFF = 30  # grey levels (max over channels) from the reference: foreground
MOTION_DIFF = 16  # between consecutive processed frames: the pixel moved
ARM_MIN_MM2 = 9000.0  # an arm seen from above is at least ~95 mm wide and reaches 100 mm in
SETTLE_MIN_MM2 = 500.0  # a third of a chip's top: smaller changes are noise
ARM_GUARD_PX = 5
EDGE_MM = 70.0  # pixels this close to an arm are not absorbed (blur and shadow around it)


@dataclass(frozen=True)
class Arm:
    actor: str  # "dealer" or "seatN"
    tip_mm: tuple[float, float]
    area_mm2: float


@dataclass(frozen=True)
class Settle:
    """A region of the reference that changed: something came to rest there, or left."""

    t: float
    centre_mm: tuple[float, float]
    area_mm2: float
    zone: str
    box: tuple[int, int, int, int]  # plane pixels x0, y0, x1, y1
    mask: np.ndarray = field(repr=False)  # bool, box-sized
    before: np.ndarray = field(repr=False)  # BGR of the box before and after
    after: np.ndarray = field(repr=False)


class SceneTracker:
    """Reference picture, foreground, arms and settles, one rectified frame at a time."""

    def __init__(self, plane: TablePlane, *, still_s: float = 0.35) -> None:
        self.plane, self.still_s = plane, still_s
        self.ref: np.ndarray | None = None
        self.prev: np.ndarray | None = None
        self.still_since: np.ndarray | None = None
        layout = plane.layout
        self.origins = {f"seat{s.number}": np.array(s.player, float) for s in layout.seats}
        self.origins["dealer"] = np.array(layout.dealer_position, float)
        edge = round(EDGE_MM * plane.scale)
        inner = cv2.erode(plane.felt.astype(np.uint8), np.ones((2 * edge + 1,) * 2, np.uint8)) > 0
        self.outside = ~inner  # the felt's edge and beyond: every arm crosses it (a dark sleeve over a dark rail may not show)
        a = plane.scale**2
        self.arm_min_px, self.settle_min_px = ARM_MIN_MM2 * a, SETTLE_MIN_MM2 * a
        self.fg: np.ndarray | None = None

    def update(self, rectified: np.ndarray, t: float) -> tuple[list[Arm], list[Settle]]:
        cur = cv2.GaussianBlur(rectified, (3, 3), 0)
        if self.ref is None or self.prev is None or self.still_since is None:
            self.ref, self.prev = cur.copy(), cur
            self.still_since = np.full(cur.shape[:2], t, np.float64)
            return [], []
        moved = cv2.absdiff(cur, self.prev).max(axis=2) > MOTION_DIFF
        self.still_since[moved] = t
        self.prev = cur
        diff = cv2.absdiff(cur, self.ref).max(axis=2)
        fg = diff > FG_DIFF
        fg_clean = cv2.morphologyEx(fg.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        arms, arm_mask = self._arms(fg_clean)
        guard = cv2.dilate(arm_mask, np.ones((2 * ARM_GUARD_PX + 1,) * 2, np.uint8)) > 0
        absorb = (t - self.still_since >= self.still_s) & ~guard
        changed = absorb & fg
        settles = self._settles(changed, cur, t) if changed.any() else []
        self.ref[absorb] = cur[absorb]
        self.fg = fg_clean > 0
        return arms, settles

    def _arms(self, fg: np.ndarray) -> tuple[list[Arm], np.ndarray]:
        n, labels, stats, _ = cv2.connectedComponentsWithStats(fg, connectivity=8)
        arm_mask = np.zeros(fg.shape, np.uint8)
        best: dict[str, Arm] = {}
        for k in range(1, n):
            x, y, w, h, area = stats[k]
            if area < self.arm_min_px:
                continue
            comp = labels[y:y + h, x:x + w] == k
            out = comp & self.outside[y:y + h, x:x + w]
            if out.sum() < 0.02 * area:
                continue  # a large thing entirely on the felt is no arm (a card fan, a pushed pot)
            ys, xs = np.nonzero(out)
            root = self.plane.to_mm(np.array([xs.mean() + x, ys.mean() + y]))
            actor = min(self.origins, key=lambda a: float(np.hypot(*(self.origins[a] - root))))
            ys, xs = np.nonzero(comp)
            pts = self.plane.to_mm(np.stack([xs + x, ys + y], axis=1))
            d = np.hypot(*(pts - self.origins[actor]).T)
            far = pts[d >= d.max() - 25.0].mean(axis=0)  # the hand's leading edge, averaged
            arm = Arm(actor=actor, tip_mm=(float(far[0]), float(far[1])), area_mm2=float(area / self.plane.scale**2))
            if actor not in best or arm.area_mm2 > best[actor].area_mm2:
                best[actor] = arm
            arm_mask[y:y + h, x:x + w][comp] = 255
        return list(best.values()), arm_mask

    def _settles(self, changed: np.ndarray, cur: np.ndarray, t: float) -> list[Settle]:
        assert self.ref is not None
        grown = cv2.dilate(changed.astype(np.uint8), np.ones((5, 5), np.uint8))
        n, labels, stats, cents = cv2.connectedComponentsWithStats(grown, connectivity=8)
        out = []
        for k in range(1, n):
            x, y, w, h, _ = stats[k]
            comp = (labels[y:y + h, x:x + w] == k) & changed[y:y + h, x:x + w]
            area = int(comp.sum())
            if area < self.settle_min_px:
                continue
            ys, xs = np.nonzero(comp)
            centre = self.plane.to_mm(np.array([xs.mean() + x, ys.mean() + y]))
            out.append(Settle(t=t, centre_mm=(float(centre[0]), float(centre[1])),
                              area_mm2=area / self.plane.scale**2, zone=self.plane.layout.zone_at(*centre),
                              box=(int(x), int(y), int(x + w), int(y + h)), mask=comp,
                              before=self.ref[y:y + h, x:x + w].copy(), after=cur[y:y + h, x:x + w].copy()))
        return out

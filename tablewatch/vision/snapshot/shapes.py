"""Cards as what they are on a table: rectangles of one known shape (63 × 88 mm), white-faced or patterned.

From the straight edges in the picture (line segments, LSD) alone:

1. **The card's size in pixels** (``card_width``): the two long sides of a card are parallel and a card's
   width apart, its short sides a height apart; over all pairs of parallel, facing segments the separations
   weighted by their common length peak at the width *and* at 88/63 of it. No table size or camera height
   is needed, and a straight-down camera sees every card at that size.
2. **Card rectangles** (``find_cards``): for each edge direction that occurs on the table, every position of
   a card-sized rectangle is scored by the share of its four straight sides (rounded corners left out) that
   lie on segments of that direction: a generalised Hough transform for one rectangle. Rectangles are then
   taken greedily, best first, each time re-scored on the edges no taken card has explained: a second
   rectangle drawn on one card's edges finds nothing left to explain and stops, while the card under
   another keeps its own visible sides. A rectangle must also cover new ground (``MIN_NEW``) and lie on
   things that are not the bare table (``MIN_FILL``).
3. **Which card lies on which** (``stack_cards``): where two cards overlap, the upper card's sides run on
   across the lower one and are seen there; the lower card's sides under it are not.

The work is done at a fixed scale (a card ``WORK_WIDTH`` px wide), so every threshold is in card units.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

import cv2
import numpy as np

CARD_MM = (63.0, 88.0)
ASPECT = CARD_MM[1] / CARD_MM[0]
WORK_WIDTH = 40.0  # px: the card width at which rectangles are searched
CORNER_SHARE = 0.07  # a card's rounded corner takes this share of its width at each end of a side
ANGLE_TOL = 4.0  # degrees: a segment this close to a side's direction can be that side
MIN_SUPPORT = 0.4  # share of a rectangle's straight sides seen as edges, none already explained
MIN_NEW = 0.2  # share of a rectangle no card taken before covers
MIN_FILL = 0.6  # share of a rectangle on objects (not bare table)
MIN_SEGMENT_SHARE = 0.0125  # segments shorter than this share of the picture's long side don't size cards
WIDTH_RANGE = (0.015, 0.25)  # a card's width as a share of the picture's long side
PARALLEL_RAD = 0.06


@dataclass
class CardShape:
    """A card rectangle in geometry pixels.

    ``corners``: (4, 2), clockwise on the picture, ``corners[0]``→``corners[1]`` a short side (so the card
    read upright has ``corners[0]`` top-left or, turned half round, bottom-right: the two index corners).
    ``support``: share of its straight outline seen as edges when it was taken; ``covered_by``: indices of the
    cards lying on it.
    """

    corners: np.ndarray
    support: float
    fill: float
    side_points: np.ndarray = field(repr=False)  # (N, 2) sample points on its straight sides
    side_seen: np.ndarray = field(repr=False)  # (N,) bool: an edge of the side's direction there
    covered_by: set[int] = field(default_factory=set)

    @property
    def centre(self) -> tuple[float, float]:
        c = self.corners.mean(axis=0)
        return float(c[0]), float(c[1])

    @property
    def width(self) -> float:
        return float(np.linalg.norm(self.corners[1] - self.corners[0]))

    @property
    def angle(self) -> float:
        """Direction of the long side, degrees in [0, 180)."""
        d = self.corners[3] - self.corners[0]
        return float(np.degrees(np.arctan2(d[1], d[0])) % 180.0)

    def polygon(self) -> np.ndarray:
        return self.corners.astype(np.float32)


def line_segments(grey: np.ndarray, z: np.ndarray, region: np.ndarray) -> np.ndarray:
    """Straight edges (x0, y0, x1, y1) inside ``region``: LSD on the grey picture and on the colour-distance
    map (a white card on a pale table differs more in colour than in brightness)."""
    lsd = cv2.createLineSegmentDetector()
    parts = []
    for image in (grey, np.clip(z * 16.0, 0, 255).astype(np.uint8)):
        found = lsd.detect(image)[0]
        if found is not None:
            parts.append(found.reshape(-1, 4))
    if not parts:
        return np.zeros((0, 4), np.float32)
    segments = np.vstack(parts).astype(np.float32)
    middle = ((segments[:, :2] + segments[:, 2:]) / 2).round().astype(int)
    h, w = region.shape
    middle[:, 0] = middle[:, 0].clip(0, w - 1)
    middle[:, 1] = middle[:, 1].clip(0, h - 1)
    keep = (region[middle[:, 1], middle[:, 0]] > 0) & (_lengths(segments) >= 4)
    kept: np.ndarray = segments[keep]
    return kept


def _lengths(segments: np.ndarray) -> np.ndarray:
    lengths: np.ndarray = np.hypot(segments[:, 2] - segments[:, 0], segments[:, 3] - segments[:, 1])
    return lengths


def card_width(segments: np.ndarray, long_side: int) -> float | None:
    """A card's width in pixels from the separations of parallel facing segments (see the module), or None
    when the picture holds no such pairs."""
    long = segments[_lengths(segments) >= MIN_SEGMENT_SHARE * long_side]
    if len(long) < 2:
        return None
    angle = np.arctan2(long[:, 3] - long[:, 1], long[:, 2] - long[:, 0]) % np.pi
    middle = (long[:, :2] + long[:, 2:]) / 2
    i, j = np.triu_indices(len(long), 1)
    diff = np.abs(angle[i] - angle[j])
    diff = np.minimum(diff, np.pi - diff)
    near = diff < PARALLEL_RAD
    i, j = i[near], j[near]
    direction = np.stack([np.cos(angle[i]), np.sin(angle[i])], axis=1)
    normal = np.stack([-direction[:, 1], direction[:, 0]], axis=1)
    separation = np.abs(((middle[j] - middle[i]) * normal).sum(axis=1))
    # the two segments' extents along the first one's direction, and their common stretch
    a0 = ((long[i, :2] - middle[i]) * direction).sum(axis=1)
    a1 = ((long[i, 2:] - middle[i]) * direction).sum(axis=1)
    b0 = ((long[j, :2] - middle[i]) * direction).sum(axis=1)
    b1 = ((long[j, 2:] - middle[i]) * direction).sum(axis=1)
    common = np.minimum(np.maximum(a0, a1), np.maximum(b0, b1)) - np.maximum(np.minimum(a0, a1), np.minimum(b0, b1))
    lo, hi = WIDTH_RANGE[0] * long_side, WIDTH_RANGE[1] * long_side * ASPECT
    ok = (common > 0) & (separation >= lo) & (separation <= hi)
    if not ok.any():
        return None
    bins = int(np.ceil(hi)) + 2
    counts = np.bincount(separation[ok].astype(int), weights=common[ok], minlength=bins)[:bins]
    histogram = np.convolve(counts, np.ones(5) / 5, mode="same")
    widths = np.arange(int(lo), int(WIDTH_RANGE[1] * long_side) + 1)
    if not len(widths):
        return None
    score = histogram[widths] + np.interp(widths * ASPECT, np.arange(bins), histogram)
    if score.max() <= 0:
        return None
    return float(widths[int(np.argmax(score))])


def orientations(segments: np.ndarray, *, most: int = 8, share: float = 0.1) -> list[float]:
    """The directions (degrees modulo 90) that the segments take, strongest first: a card's sides lie along
    one of them."""
    if not len(segments):
        return []
    angle = np.degrees(np.arctan2(segments[:, 3] - segments[:, 1], segments[:, 2] - segments[:, 0])) % 90.0
    histogram = np.bincount(np.round(angle * 2).astype(int) % 180, weights=_lengths(segments), minlength=180)
    kernel = np.array([1.0, 2.0, 3.0, 2.0, 1.0])
    smooth = np.convolve(np.concatenate([histogram[-2:], histogram, histogram[:2]]), kernel, mode="valid")
    top = smooth.max()
    peaks = [k for k in range(180) if smooth[k] >= smooth[k - 1] and smooth[k] > smooth[(k + 1) % 180]
             and smooth[k] >= share * top]
    peaks.sort(key=lambda k: -smooth[k])
    return [k / 2.0 for k in peaks[:most]]


def object_orientations(segments: np.ndarray, objects: np.ndarray, width: float) -> list[float]:
    """The edge directions of each thing on the table (a connected blob of ``objects``) on its own, merged: a
    lone card turned unlike the rest is not drowned by a board's many parallel edges."""
    count, labels = cv2.connectedComponents(objects.astype(np.uint8))
    middle = np.round((segments[:, :2] + segments[:, 2:]) / 2).astype(int)
    h, w = labels.shape
    owner = labels[middle[:, 1].clip(0, h - 1), middle[:, 0].clip(0, w - 1)]
    found: list[float] = []
    for blob in range(1, count):
        mine = segments[owner == blob]
        if _lengths(mine).sum() < width:
            continue
        for theta in orientations(mine, most=4, share=0.15):
            if all(min(abs(theta - t), 90.0 - abs(theta - t)) > 1.0 for t in found):
                found.append(theta)
    return found


@dataclass
class _Candidate:
    score: float
    corners: np.ndarray  # working px
    points: np.ndarray  # working px, on the straight sides
    seen: np.ndarray


def _candidates(segments: np.ndarray, size: tuple[int, int], theta: float, *, min_score: float) -> list[_Candidate]:
    """Card rectangles along direction ``theta`` (working scale): local maxima of the side-support score."""
    h, w = size
    side = int(np.hypot(h, w)) + 2
    rotate = cv2.getRotationMatrix2D((w / 2, h / 2), theta, 1.0)
    rotate[:, 2] += np.array([(side - w) / 2, (side - h) / 2])
    back = cv2.invertAffineTransform(rotate)
    ones = np.ones((len(segments), 1))
    p = np.hstack([segments[:, :2], ones]) @ rotate.T
    q = np.hstack([segments[:, 2:], ones]) @ rotate.T
    angle = np.degrees(np.arctan2(q[:, 1] - p[:, 1], q[:, 0] - p[:, 0])) % 180.0
    vertical = np.zeros((side, side), np.uint8)
    horizontal = np.zeros((side, side), np.uint8)
    for a, p0, p1 in zip(angle, np.round(p).astype(int), np.round(q).astype(int), strict=True):
        if abs(a - 90.0) < ANGLE_TOL:
            cv2.line(vertical, (int(p0[0]), int(p0[1])), (int(p1[0]), int(p1[1])), 1, 1)
        elif a < ANGLE_TOL or a > 180.0 - ANGLE_TOL:
            cv2.line(horizontal, (int(p0[0]), int(p0[1])), (int(p1[0]), int(p1[1])), 1, 1)
    vertical_wide: np.ndarray = cv2.dilate(vertical, np.ones((1, 3), np.uint8))
    horizontal_wide: np.ndarray = cv2.dilate(horizontal, np.ones((3, 1), np.uint8))
    down = np.vstack([np.zeros((1, side)), np.cumsum(vertical_wide, axis=0)])
    across = np.hstack([np.zeros((side, 1)), np.cumsum(horizontal_wide, axis=1)])
    out: list[_Candidate] = []
    r = round(CORNER_SHARE * WORK_WIDTH)
    window = int(WORK_WIDTH / 4) | 1
    for rw, rh in ((WORK_WIDTH, WORK_WIDTH * ASPECT), (WORK_WIDTH * ASPECT, WORK_WIDTH)):
        cw, ch = round(rw), round(rh)
        ny, nx = side - ch - 1, side - cw - 1
        ys = np.arange(ny)[:, None]
        xs = np.arange(nx)[None, :]
        seen = (down[ys + ch - r, xs] - down[ys + r, xs] + down[ys + ch - r, xs + cw] - down[ys + r, xs + cw]
                + across[ys, xs + cw - r] - across[ys, xs + r] + across[ys + ch, xs + cw - r] - across[ys + ch, xs + r])
        score = (seen / (2 * (cw - 2 * r) + 2 * (ch - 2 * r))).astype(np.float32)
        peak = cv2.dilate(score, np.ones((window, window), np.uint8))
        for y, x in np.argwhere((score >= peak) & (score >= min_score)):
            ts = np.arange(r, ch - r)
            tx = np.arange(r, cw - r)
            pts = np.concatenate([
                np.stack([np.full_like(ts, x), y + ts], 1), np.stack([np.full_like(ts, x + cw), y + ts], 1),
                np.stack([x + tx, np.full_like(tx, y)], 1), np.stack([x + tx, np.full_like(tx, y + ch)], 1)])
            flags = np.concatenate([vertical_wide[y + ts, x], vertical_wide[y + ts, x + cw],
                                    horizontal_wide[y, x + tx], horizontal_wide[y + ch, x + tx]]).astype(bool)
            corners = np.array([[x, y], [x + cw, y], [x + cw, y + ch], [x, y + ch]], np.float64)
            to_work = lambda a: np.hstack([a, np.ones((len(a), 1))]) @ back.T  # noqa: E731
            out.append(_Candidate(float(score[y, x]), _portrait(to_work(corners)), to_work(pts.astype(np.float64)),
                                  flags))
    return out


def _portrait(corners: np.ndarray) -> np.ndarray:
    """Corners re-ordered so the first side is a short one (keeping the clockwise order)."""
    if np.linalg.norm(corners[1] - corners[0]) > np.linalg.norm(corners[2] - corners[1]):
        corners = np.roll(corners, -1, axis=0)
    return corners


def find_cards(segments: np.ndarray, width: float, objects: np.ndarray, region: np.ndarray) -> list[CardShape]:
    """Card rectangles (geometry px) from the segments, the card width and the objects mask; see the module."""
    if not len(segments) or width <= 0:
        return []
    k = WORK_WIDTH / width
    ys, xs = np.nonzero(region)
    x0, y0 = max(0, int(xs.min()) - 2), max(0, int(ys.min()) - 2)
    x1, y1 = int(xs.max()) + 3, int(ys.max()) + 3
    offset = np.array([x0, y0, x0, y0], np.float32)
    work = (segments - offset) * k
    size = (int((y1 - y0) * k) + 2, int((x1 - x0) * k) + 2)
    objects_work = cv2.resize(objects[y0:y1, x0:x1], (size[1], size[0]), interpolation=cv2.INTER_NEAREST)
    candidates: list[_Candidate] = []
    for theta in object_orientations(segments, objects, width):
        candidates += _candidates(work, size, theta, min_score=MIN_SUPPORT)
    taken = _select(candidates, objects_work, size)
    shift = np.array([x0, y0], np.float64)
    return [CardShape(corners=c.corners / k + shift, support=c.score, fill=fill, side_points=c.points / k + shift,
                      side_seen=c.seen) for c, fill in taken]


def _select(candidates: list[_Candidate], objects: np.ndarray, size: tuple[int, int]) -> list[tuple[_Candidate, float]]:
    h, w = size
    explained = np.zeros(size, np.uint8)
    covered = np.zeros(size, np.uint8)
    heap = [(-c.score, i) for i, c in enumerate(candidates)]
    heapq.heapify(heap)
    taken: list[tuple[_Candidate, float]] = []
    while heap:
        _, i = heapq.heappop(heap)
        c = candidates[i]
        p = np.round(c.points).astype(int)
        inside = (p[:, 0] >= 0) & (p[:, 0] < w) & (p[:, 1] >= 0) & (p[:, 1] < h)
        fresh = c.seen & inside
        fresh[inside] &= explained[p[inside, 1], p[inside, 0]] == 0
        score = float(fresh.mean())
        if heap and score < -heap[0][0] - 1e-9:
            c.score = score
            heapq.heappush(heap, (-score, i))
            continue
        if score < MIN_SUPPORT:
            break
        mask = np.zeros(size, np.uint8)
        cv2.fillPoly(mask, [np.round(c.corners).astype(np.int32)], 1)
        area = max(1, int(mask.sum()))
        fill = float((mask & objects).sum()) / area
        new = float((mask & (1 - covered)).sum()) / area
        if fill < MIN_FILL or new < MIN_NEW:
            continue
        c.score = score
        taken.append((c, fill))
        covered |= mask
        cv2.polylines(explained, [np.round(c.corners).astype(np.int32)], True, 1, 5)
    return taken


def stack_cards(cards: list[CardShape]) -> None:
    """Fill each card's ``covered_by`` (the cards lying on it) from where their sides are seen (see the module)."""
    for a in range(len(cards)):
        for b in range(a + 1, len(cards)):
            pa, pb = cards[a].polygon(), cards[b].polygon()
            overlap, _ = cv2.intersectConvexConvex(pa, pb)
            if overlap <= 0.02 * cv2.contourArea(pa):
                continue
            seen_a = _seen_inside(cards[a], pb)  # a's sides across b: a lies on b if they show
            seen_b = _seen_inside(cards[b], pa)
            if seen_a is not None and (seen_b is None or seen_a > seen_b + 0.1):
                cards[b].covered_by.add(a)
            elif seen_b is not None and (seen_a is None or seen_b > seen_a + 0.1):
                cards[a].covered_by.add(b)
            else:  # can't tell: each may hide the other
                cards[a].covered_by.add(b)
                cards[b].covered_by.add(a)


def _seen_inside(card: CardShape, polygon: np.ndarray, *, margin: float = 2.0) -> float | None:
    contour = polygon.reshape(-1, 1, 2)
    inside = np.array([cv2.pointPolygonTest(contour, (float(x), float(y)), True) > margin
                       for x, y in card.side_points])
    if inside.sum() < 5:
        return None
    return float(card.side_seen[inside].mean())

"""What a card rectangle shows: its face (read from the index in a corner) or its back.

Each card is rectified from the high-resolution copy to a 63 × 88 mm picture (``PX_PER_MM``), upright or
turned half round: either way its indices are in the top-left and bottom-right corners (a face-up card seen
from above is never mirrored). An index is the ink of a corner: the dark or coloured marks of the corner zone
(``INDEX_ZONE_MM``) that lie wholly inside it, away from the card's edge; a pip, a court card's frame or
another card's edge crossing into the zone touches its inner sides and is not part of it. Only an index of
a plausible size (``INDEX_MM``) is read, by the shipped index classifier, in the views it was trained on;
the identity must be more likely than all others together (``MIN_IDENTITY``), and two indices of one card
are read as one (their evidence multiplied). A corner under another card, or under a chip, is not read.

A card with no index in any corner whose middle and margin are mostly not paper (a back's pattern, seen at a
millimetre's scale) is face down.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from tablewatch.vision.cards import pokerkit_card
from tablewatch.vision.classifier import OnnxIndexClassifier, index_views
from tablewatch.vision.snapshot.shapes import CARD_MM

PX_PER_MM = 6.0
REFINE_MM = 5.0  # a card's side found on the geometry copy is this close to its true place
EDGE_LOOK_MM = 1.5  # a card's edge has paper this far inside it, and something else this far outside
PAPER_EDGE = 12.0  # Lab: within this of the card's paper is paper
PAPER_MM = (1.0, 3.0)  # a face's blank edge: from this far in from its sides to this far
INDEX_ZONE_MM = (12.5, 28.0)  # from a corner, along the short and the long side: where an index can lie
INDEX_MM = ((2.5, 11.0), (7.0, 26.0))  # (min, max) width and height of a rank-and-suit index
LINE_MM = (8.0, 12.0)  # a horizontal or vertical mark longer than this is a line (a glyph is smaller)
EDGE_MM = 0.6  # ink this close to the card's edge is the edge's shadow, not print
PAPER_DISTANCE = 25.0  # Lab distance from the paper within which a pixel is paper
MIN_PAPER_SHARE = 0.6  # an index zone is mostly blank paper (an index covers about a fifth of it)
JOIN_MM = 2.0  # marks this close are pieces of one glyph
MAX_GLYPHS = 4  # marks of an index: a rank (two for a ten), a suit, and one broken off
INK_NOISE_FACTOR = 4.0  # ink differs from the paper by this many times the zone's median difference...
INK_SHARE = 0.25  # ...and by this share of its boldest marks' difference
MIN_INK = 8.0  # Lab units: nothing fainter is print
MIN_IDENTITY = 0.5  # an identity is read when it is more likely than all the others together
MARGIN_MM = (3.0, 7.0)  # the blank margin of a face: from this far in from the edge to this far
BACK_DISTANCE = 20.0  # Lab (L at half weight): a pixel this far from the paper is not paper...
BACK_SHARE = 0.6  # ...and a card this much not paper in its middle and in its margin shows its back
MIN_SEEN_SHARE = 0.2  # a card part less seen than this is not judged face down


@dataclass(frozen=True)
class Corner:
    """One index corner of a card: ``visible`` (nothing on it), ``box`` (the index in the corner's own picture,
    xyxy px, None when no index is there) and the identity probabilities read from it."""

    visible: bool
    box: tuple[float, float, float, float] | None
    probabilities: np.ndarray | None


@dataclass(frozen=True)
class Face:
    """``state``: "up" (an index was read; ``card`` is None when no identity was likely enough), "down", or
    "unknown" (no index seen; ``read_face`` never says "down": see ``shows_back``)."""

    state: str
    card: str | None  # pokerkit notation, e.g. "Th"
    confidence: float
    corners: tuple[Corner, Corner]  # top-left, bottom-right (the card read upright)
    alternatives: tuple[str, ...] = ()
    paper: tuple[float, float, float] | None = None  # Lab of the paper round a read index


def to_card(corners: np.ndarray) -> np.ndarray:
    """The homography from the picture (``corners``' pixels) to the upright card picture."""
    w, h = round(CARD_MM[0] * PX_PER_MM), round(CARD_MM[1] * PX_PER_MM)
    target = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    matrix: np.ndarray = cv2.getPerspectiveTransform(corners.astype(np.float32), target)
    return matrix


def rectify(detail: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """The card at ``corners`` (detail px, ``CardShape`` order) as an upright 63 × 88 mm picture."""
    w, h = round(CARD_MM[0] * PX_PER_MM), round(CARD_MM[1] * PX_PER_MM)
    matrix = to_card(corners)
    card: np.ndarray = cv2.warpPerspective(detail, matrix, (w, h), flags=cv2.INTER_AREA,
                                           borderMode=cv2.BORDER_REPLICATE)
    return card


def corner_zone(card: np.ndarray, which: int) -> np.ndarray:
    """The index zone of corner ``which`` (0 top-left, 1 bottom-right turned upright)."""
    zw, zh = round(INDEX_ZONE_MM[0] * PX_PER_MM), round(INDEX_ZONE_MM[1] * PX_PER_MM)
    view = card if which == 0 else np.rot90(card, 2)
    return np.ascontiguousarray(view[:zh, :zw])


def zone_polygon(corners: np.ndarray, which: int) -> np.ndarray:
    """The index zone of corner ``which`` as a polygon in the corners' own pixels."""
    w, h = CARD_MM
    zx, zy = INDEX_ZONE_MM[0] / w, INDEX_ZONE_MM[1] / h
    tl, tr, br, bl = corners
    if which == 1:
        tl, tr, br, bl = br, bl, tl, tr

    def at(u: float, v: float) -> np.ndarray:
        top = tl + (tr - tl) * u
        bottom = bl + (br - bl) * u
        point: np.ndarray = top + (bottom - top) * v
        return point

    return np.array([at(0, 0), at(zx, 0), at(zx, zy), at(0, zy)], np.float32)


def paper_colour(picture: np.ndarray) -> np.ndarray:
    """The paper (Lab) of a card or a corner of one: the median of its lighter half. Print covers less than
    half of a face, and a glare or shadow changes over a card, so a corner's own paper is measured there."""
    step = max(1, round(np.sqrt(picture.shape[0] * picture.shape[1] / 20_000)))  # ~20,000 pixels are plenty
    lab = cv2.cvtColor(np.ascontiguousarray(picture[::step, ::step]), cv2.COLOR_BGR2Lab).reshape(-1, 3)
    lab = lab.astype(np.float32)
    lighter = lab[lab[:, 0] >= np.median(lab[:, 0])]
    paper: np.ndarray = np.median(lighter, axis=0)
    return paper


def refine_corners(detail: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """``corners`` (detail px) moved onto the card's own edges: each half of each side is slid across its
    direction (at most ``REFINE_MM``) to where the picture changes most along it *from paper inside to
    something else outside*: a court card's frame line (picture inside) and the outer rim of a card's shadow
    (shadow inside) are passed over. A side with no such edge (under another card) stays."""
    w, h = (round(v * PX_PER_MM) for v in CARD_MM)
    reach = round(REFINE_MM * PX_PER_MM)
    look = round(EDGE_LOOK_MM * PX_PER_MM)
    pad = reach + look + 2
    target = np.array([[pad, pad], [pad + w, pad], [pad + w, pad + h], [pad, pad + h]], np.float32)
    matrix = cv2.getPerspectiveTransform(corners.astype(np.float32), target)
    picture = cv2.warpPerspective(detail, matrix, (w + 2 * pad, h + 2 * pad), flags=cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_REPLICATE)
    lab = cv2.GaussianBlur(cv2.cvtColor(picture, cv2.COLOR_BGR2Lab).astype(np.float32), (0, 0), 1.0)
    paper = paper_colour(picture[pad:pad + h, pad:pad + w])
    gx = np.abs(cv2.Sobel(lab, cv2.CV_32F, 1, 0)).sum(axis=2)
    gy = np.abs(cv2.Sobel(lab, cv2.CV_32F, 0, 1)).sum(axis=2)
    r = round(0.08 * w)  # the rounded corners
    lines = []
    # each side: (fixed coordinate, along-range, vertical?, the inward sign)
    sides = ((pad, (pad + r, pad + w - r), False, 1), (pad + w, (pad + r, pad + h - r), True, -1),
             (pad + h, (pad + r, pad + w - r), False, -1), (pad, (pad + r, pad + h - r), True, 1))
    for fixed, (a, b), vertical, inward in sides:
        points = []
        for lo, hi in ((a, (a + b) // 2), ((a + b) // 2, b)):
            span = np.arange(fixed - reach - look, fixed + reach + look + 1)
            strip = lab[lo:hi, span].mean(axis=0) if vertical else lab[span, lo:hi].mean(axis=1)
            grad = gx[lo:hi, span].mean(axis=0) if vertical else gy[span, lo:hi].mean(axis=1)
            distance = np.linalg.norm(strip - paper, axis=1)
            at = np.arange(look, len(span) - look)  # the offsets tried, within ``reach`` of the side
            inside, outside = distance[at + inward * look], distance[at - inward * look]
            edge = (inside < PAPER_EDGE) & (outside >= PAPER_EDGE)
            profile = np.where(edge, grad[at], 0.0)
            best = int(np.argmax(profile))
            if edge[best] and profile[best] >= 2.0 * float(np.median(grad[at])) + 1.0:
                points.append(((lo + hi) / 2, float(span[at[best]])))
        lines.append((fixed, vertical, points))
    refined = []
    for fixed, vertical, points in lines:
        if len(points) == 2:
            (t0, v0), (t1, v1) = points
            slope = (v1 - v0) / (t1 - t0)
            refined.append((vertical, slope, v0 - slope * t0))
        elif len(points) == 1:
            refined.append((vertical, 0.0, points[0][1]))
        else:
            refined.append((vertical, 0.0, float(fixed)))
    # corners: top∩left, top∩right, bottom∩right, bottom∩left; a horizontal side is y = s·x + c, a vertical x = s·y + c
    top, right, bottom, left = refined
    new = np.array([_meet(top, left), _meet(top, right), _meet(bottom, right), _meet(bottom, left)], np.float32)
    if np.abs(new - target).max() > reach + 2:
        return corners
    inverse = np.linalg.inv(matrix)
    moved = cv2.perspectiveTransform(new.reshape(-1, 1, 2).astype(np.float64), inverse).reshape(4, 2)
    return moved


def _meet(horizontal: tuple[bool, float, float], vertical: tuple[bool, float, float]) -> tuple[float, float]:
    _, sh, ch = horizontal  # y = sh·x + ch
    _, sv, cv = vertical  # x = sv·y + cv
    y = (sh * cv + ch) / (1.0 - sh * sv)
    return sv * y + cv, y


def find_index(zone: np.ndarray) -> tuple[float, float, float, float] | None:
    """The index in a corner zone (xyxy px), or None when the zone holds no index-like ink (see the module)."""
    lab = cv2.cvtColor(zone, cv2.COLOR_BGR2Lab).astype(np.float32)
    distance = np.linalg.norm(lab - paper_colour(zone), axis=2)
    if float((distance < PAPER_DISTANCE).mean()) < MIN_PAPER_SHARE:
        return None  # the zone is not mostly paper: a back, a picture, or not a card corner
    # print is what stands out of the paper's own noise and is not far fainter than the zone's boldest marks;
    # in a washed-out photo a red suit keeps its colour while the rank above it fades, so when that leaves no
    # index, the faint marks are looked at too
    noise = float(np.median(distance))
    floor = max(INK_NOISE_FACTOR * noise, MIN_INK)
    for threshold in dict.fromkeys((max(floor, INK_SHARE * float(np.percentile(distance, 99))), floor)):
        box = _index_box(distance > threshold)
        if box is not None:
            return box
    return None


def _index_box(ink_mask: np.ndarray) -> tuple[float, float, float, float] | None:
    """The box round the marks of ``ink_mask`` away from the zone's sides, if they are a few and of an index's
    size."""
    ink = ink_mask.astype(np.uint8)
    # long straight marks are a court card's frame or an edge, never a glyph: cut them off the print
    tall: np.ndarray = cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((round(LINE_MM[1] * PX_PER_MM), 1), np.uint8))
    wide: np.ndarray = cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((1, round(LINE_MM[0] * PX_PER_MM)), np.uint8))
    lines: np.ndarray = cv2.dilate(np.maximum(tall, wide), np.ones((5, 5), np.uint8))
    ink[lines > 0] = 0
    count, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    zh, zw = ink.shape
    edge = EDGE_MM * PX_PER_MM
    min_area = (0.8 * PX_PER_MM) ** 2
    boxes = []
    for i in range(1, count):
        x, y, w, h, area = (int(v) for v in stats[i])
        if area < min_area:
            continue
        if x <= edge or y <= edge or x + w >= zw - 1 or y + h >= zh - 1:
            continue  # touches the card's edge or the zone's inner sides: not the index
        boxes.append((x, y, x + w, y + h))
    if not boxes or _glyphs(boxes) > MAX_GLYPHS:
        return None  # no print, or a pattern (a back's) rather than a rank and a suit
    array = np.array(boxes, np.float32)
    box = (float(array[:, 0].min()), float(array[:, 1].min()), float(array[:, 2].max()), float(array[:, 3].max()))
    width, height = (box[2] - box[0]) / PX_PER_MM, (box[3] - box[1]) / PX_PER_MM
    (wmin, wmax), (hmin, hmax) = INDEX_MM
    if not (wmin <= width <= wmax and hmin <= height <= hmax):
        return None
    return box


def _glyphs(boxes: list[tuple[int, int, int, int]]) -> int:
    """How many marks ``boxes`` (xyxy) make when pieces within ``JOIN_MM`` of each other are one: a blurred
    glyph's thin strokes break into pieces at the ink threshold."""
    gap = JOIN_MM * PX_PER_MM
    group = list(range(len(boxes)))

    def root(i: int) -> int:
        while group[i] != i:
            i = group[i]
        return i

    for i, a in enumerate(boxes):
        for j in range(i):
            b = boxes[j]
            if max(a[0] - b[2], b[0] - a[2]) <= gap and max(a[1] - b[3], b[1] - a[3]) <= gap:
                group[root(i)] = root(j)
    return len({root(i) for i in range(len(boxes))})


def shows_back(card: np.ndarray, paper: np.ndarray | None = None, *, seen: np.ndarray | None = None) -> bool:
    """Whether the card's middle (inset by the index zone's width) and its margin (``MARGIN_MM`` in from the
    edge, blank paper round a court card's picture on a face) are both mostly far from the paper (Lab; the
    faces read in the same photo show it, else the card's own lighter half): a back. ``seen``: a mask of the
    card's pixels not under another card (default: all); a card mostly hidden is not judged."""
    paper = paper_colour(card) if paper is None else paper
    # a back's fine pattern is one tint at a millimetre's scale; a face's print (pips, a picture) is not
    lab = cv2.GaussianBlur(cv2.cvtColor(card, cv2.COLOR_BGR2Lab).astype(np.float32), (0, 0), PX_PER_MM)
    far = _colour_distance(lab, paper) >= BACK_DISTANCE
    inset = round(INDEX_ZONE_MM[0] * PX_PER_MM)
    outer, inner = (round(v * PX_PER_MM) for v in MARGIN_MM)
    ring = np.zeros(card.shape[:2], bool)
    ring[outer:-outer, outer:-outer] = True
    ring[inner:-inner, inner:-inner] = False
    seen = np.ones(card.shape[:2], bool) if seen is None else seen.astype(bool)
    middle = np.zeros(card.shape[:2], bool)
    middle[inset:-inset, inset:-inset] = True
    shares = []
    for part in (middle, ring):
        visible = part & seen
        if visible.sum() < MIN_SEEN_SHARE * part.sum():
            return False
        shares.append(float(far[visible].mean()))
    return all(share >= BACK_SHARE for share in shares)


def _colour_distance(lab: np.ndarray, reference: np.ndarray) -> np.ndarray:
    difference = lab - reference
    difference[..., 0] *= 0.5  # light varies more in brightness than in hue
    distance: np.ndarray = np.linalg.norm(difference, axis=-1)
    return distance


def _corner(card: np.ndarray, which: int) -> np.ndarray:
    """The corner ``which`` of the upright card (turned upright), twice the index zone's size."""
    zw, zh = round(2 * INDEX_ZONE_MM[0] * PX_PER_MM), round(2 * INDEX_ZONE_MM[1] * PX_PER_MM)
    view = card if which == 0 else np.rot90(card, 2)
    return np.ascontiguousarray(view[:zh, :zw])


def _stretch(card: np.ndarray, zone: np.ndarray) -> np.ndarray:
    """The card with the zone's paper made white in each channel and its darkest print black, by one gain for
    all channels: a washed-out or tinted photo's index looks like crisp print (the classifier learned from many
    lights, not this one), and red ink stays red (a gain per channel would blow up the paper's noise in the
    channel red ink hardly darkens)."""
    paper = cv2.cvtColor(np.clip(paper_colour(zone), 0, 255).astype(np.uint8).reshape(1, 1, 3), cv2.COLOR_Lab2BGR)
    paper = paper.reshape(3).astype(np.float32)
    low = np.percentile(zone.reshape(-1, 3), 1, axis=0).astype(np.float32)
    span = max(float((paper - low).max()), 16.0)
    stretched: np.ndarray = np.clip(255.0 - (paper - card.astype(np.float32)) / span * 255.0, 0, 255).astype(np.uint8)
    return stretched


def read_face(card: np.ndarray, visible: tuple[bool, bool], classifier: OnnxIndexClassifier) -> Face:
    """Face up (identity from the visible corners' indices), face down, or unknown."""
    zones = [corner_zone(card, which) for which in (0, 1)]
    boxes = [find_index(zone) if seen else None for zone, seen in zip(zones, visible, strict=True)]
    # the classifier sees the index with some of the card round it, as it learned: cut from the card round the
    # index's corner (twice the zone, enough for its widest view)
    views = [np.stack(index_views(_stretch(_corner(card, which), zone), box))
             for which, (zone, box) in enumerate(zip(zones, boxes, strict=True)) if box is not None]
    probabilities: list[np.ndarray | None] = [None, None]
    if views:
        probs = classifier.probabilities(np.concatenate(views))
        per_view = len(views[0])
        k = 0
        for which in (0, 1):
            if boxes[which] is not None:
                probabilities[which] = probs[k * per_view:(k + 1) * per_view].mean(axis=0)
                k += 1
    corners = (Corner(visible[0], boxes[0], probabilities[0]), Corner(visible[1], boxes[1], probabilities[1]))
    read_zones = [zone for zone, box in zip(zones, boxes, strict=True) if box is not None]
    paper: tuple[float, float, float] | None = None
    if read_zones:
        lab = paper_colour(read_zones[0])
        paper = (float(lab[0]), float(lab[1]), float(lab[2]))
    read = [p for p in probabilities if p is not None]
    if not read:
        return Face("unknown", None, 0.0, corners)
    joint = np.exp(np.sum([np.log(np.clip(p, 1e-9, 1.0)) for p in read], axis=0))
    joint = joint / joint.sum()
    order = np.argsort(-joint)
    best = int(order[0])
    confidence = float(joint[best])
    names = classifier.names
    label = names[best]
    alternatives = tuple(str(pokerkit_card(names[int(i)]) or names[int(i)]) for i in order[1:3]
                         if joint[int(i)] >= 0.05)
    if confidence < MIN_IDENTITY or pokerkit_card(label) is None:
        return Face("up", None, confidence, corners, alternatives=(str(pokerkit_card(label) or label), *alternatives),
                    paper=paper)
    return Face("up", pokerkit_card(label), confidence, corners, alternatives=alternatives,
                paper=paper)

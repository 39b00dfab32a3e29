"""Plane geometry on the table in millimetres: point-in-polygon, clipping, areas, overlaps.

Pure numpy, so the layout needs no geometry library.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

Point = tuple[float, float]
Points = npt.NDArray[np.float64]  # (N, 2): x, y in mm
PointsLike = Sequence[Sequence[float]] | Points
PointLike = Sequence[float] | npt.NDArray[np.float64]


def as_array(points: PointsLike) -> Points:
    return np.asarray(points, dtype=np.float64).reshape(-1, 2)


def polygon_area(points: PointsLike) -> float:
    """Unsigned area (shoelace)."""
    p = as_array(points)
    if len(p) < 3:
        return 0.0
    x, y = p[:, 0], p[:, 1]
    return abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))) / 2.0


def contains(points: PointsLike, x: float, y: float) -> bool:
    """Whether (x, y) lies inside the polygon (even-odd rule; a point on an edge may go either way)."""
    p = as_array(points)
    xi, yi = p[:, 0], p[:, 1]
    xj, yj = np.roll(xi, 1), np.roll(yi, 1)
    crosses = (yi > y) != (yj > y)
    with np.errstate(divide="ignore", invalid="ignore"):
        x_cross = (xj - xi) * (y - yi) / (yj - yi) + xi
    return bool(np.count_nonzero(crosses & (x < x_cross)) % 2)


def contains_many(points: PointsLike, xy: npt.ArrayLike) -> npt.NDArray[np.bool_]:
    """Vectorised ``contains`` for an (N, 2) array of points: a boolean array of N."""
    p = as_array(points)
    xy = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
    x, y = xy[:, 0:1], xy[:, 1:2]
    xi, yi = p[:, 0][None, :], p[:, 1][None, :]
    xj, yj = np.roll(xi, 1, axis=1), np.roll(yi, 1, axis=1)
    crosses = (yi > y) != (yj > y)
    with np.errstate(divide="ignore", invalid="ignore"):
        x_cross = (xj - xi) * (y - yi) / (yj - yi) + xi
    crossings: npt.NDArray[np.intp] = np.count_nonzero(crosses & (x < x_cross), axis=1)
    return (crossings % 2).astype(bool)


def clip_to_convex(subject: PointsLike, window: PointsLike) -> Points:
    """Sutherland–Hodgman: the part of ``subject`` (any simple polygon) inside the convex ``window``.

    For a concave subject the result may carry zero-width bridges; its area is still right.
    """
    out = [tuple(p) for p in as_array(subject)]
    w = as_array(window)
    if _signed_area(w) < 0:  # the inside test below wants a counter-clockwise window (y up) / clockwise (y down)
        w = w[::-1]
    for a, b in zip(w, np.roll(w, -1, axis=0), strict=True):
        if not out:
            break
        src, out = out, []
        for i, cur in enumerate(src):
            prev = src[i - 1]
            cur_in, prev_in = _left_of(a, b, cur), _left_of(a, b, prev)
            if cur_in:
                if not prev_in:
                    out.append(_intersection(prev, cur, a, b))
                out.append(cur)
            elif prev_in:
                out.append(_intersection(prev, cur, a, b))
    return as_array(out) if out else np.zeros((0, 2))


def overlap_area(a: PointsLike, b: PointsLike, *, resolution_mm: float = 1.0) -> float:
    """Area (mm²) shared by two simple polygons, either of them concave, sampled on a grid over their common box.

    Grid points are tested with the half-open even-odd rule, so polygons that only share an edge give ~0.
    """
    pa, pb = as_array(a), as_array(b)
    lo = np.maximum(pa.min(axis=0), pb.min(axis=0))
    hi = np.minimum(pa.max(axis=0), pb.max(axis=0))
    if np.any(hi <= lo):
        return 0.0
    xs = np.arange(lo[0] + resolution_mm / 2, hi[0], resolution_mm)
    ys = np.arange(lo[1] + resolution_mm / 2, hi[1], resolution_mm)
    grid = np.stack(np.meshgrid(xs, ys), axis=-1).reshape(-1, 2)
    inside_a = contains_many(pa, grid)
    both = np.count_nonzero(contains_many(pb, grid[inside_a])) if inside_a.any() else 0
    return float(both) * resolution_mm**2


def distance_to_polyline(points: PointsLike, x: float, y: float) -> tuple[float, int]:
    """Distance from (x, y) to the polyline and the index of the nearest segment."""
    p = as_array(points)
    a, b = p[:-1], p[1:]
    ab = b - a
    q = np.array([x, y])
    t = np.clip(np.einsum("ij,ij->i", q - a, ab) / np.maximum(np.einsum("ij,ij->i", ab, ab), 1e-12), 0, 1)
    d = np.linalg.norm(a + ab * t[:, None] - q, axis=1)
    i = int(np.argmin(d))
    return float(d[i]), i


def side_of_segment(a: PointLike, b: PointLike, x: float, y: float) -> float:
    """Positive on one side of the directed segment a→b, negative on the other (a cross product)."""
    return float((b[0] - a[0]) * (y - a[1]) - (b[1] - a[1]) * (x - a[0]))


def _signed_area(p: Points) -> float:
    x, y = p[:, 0], p[:, 1]
    return float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2.0


def _left_of(a: PointLike, b: PointLike, p: Sequence[float]) -> bool:
    return side_of_segment(a, b, p[0], p[1]) >= 0


def _intersection(p: Sequence[float], q: Sequence[float], a: Points, b: Points) -> tuple[float, float]:
    d1 = np.subtract(q, p)
    d2 = b - a
    denom = d1[0] * d2[1] - d1[1] * d2[0]
    if abs(denom) < 1e-12:
        return (float(q[0]), float(q[1]))
    t = ((a[0] - p[0]) * d2[1] - (a[1] - p[1]) * d2[0]) / denom
    return (float(p[0] + t * d1[0]), float(p[1] + t * d1[1]))

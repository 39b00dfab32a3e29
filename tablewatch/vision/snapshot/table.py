"""The table in a still: where the playing surface is, and which pixels differ from it.

No layout is needed. The camera looks at the table, so the middle of the picture is mostly playing surface
(felt, wood, cloth): its colour is taken there, robustly (pixels far from the running estimate are dropped,
which removes the cards and chips lying there). Light falls off smoothly across a table, so the surface's
colour is then fitted as a smooth (cubic) function of the position over the pixels that match it, and every
pixel is scored by its Mahalanobis distance from the surface colour *at its place* (``z``). The table region
is the connected smooth, surface-coloured area around the middle of the picture, holes filled, its convex
hull; with ArUco markers in view (the rail's markers of a calibrated table) it is the hull of the markers.

Objects on the table (``objects``) are the pixels far from the surface colour or on a strong edge, with the
holes of their outlines filled: a card's white face may match a pale table almost exactly (a light wood table
under a bright lamp), but its outline does not.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

# Mahalanobis distance (in the surface's own colour spread) from which a pixel is "not table": beyond it a
# pixel is about a thousand times less likely to be surface than the surface's own pixels (chi-square, 3 dof).
OBJECT_Z = 4.0
SURFACE_Z = 5.0  # a looser bound for growing the table region (its vignetted edges)
EDGE_FACTOR = 6.0  # a gradient this many times the surface's median gradient is an object's edge
MIN_TABLE_SHARE = 0.05  # a "table" smaller than this share of the picture is no table


class TableNotFound(ValueError):
    """The picture shows no playing surface the reader can find."""


@dataclass
class Table:
    """The playing surface in geometry pixels (see ``Still``)."""

    hull: np.ndarray  # (N, 2) int32 polygon
    mask: np.ndarray  # uint8 0/1, inside the hull
    z: np.ndarray  # float32, each pixel's colour distance from the local surface colour
    gradient: np.ndarray  # float32 gradient magnitude (Lab, L at half weight)
    objects: np.ndarray  # uint8 0/1: pixels of things lying on the table, outlines filled
    surface_lab: tuple[float, float, float]  # the surface colour at the middle of the picture
    found_by: str  # "surface" or "markers"

    def inside(self, xy: np.ndarray | tuple[float, float]) -> np.ndarray:
        """Whether each point (x, y) lies inside the table's hull."""
        points = np.asarray(xy, np.float32).reshape(-1, 2)
        hull = self.hull.reshape(-1, 1, 2).astype(np.float32)
        return np.array([cv2.pointPolygonTest(hull, (float(x), float(y)), False) >= 0 for x, y in points], bool)


def find_table(image: np.ndarray, *, markers: np.ndarray | None = None) -> Table:
    """The table in a BGR picture (a geometry-scale copy, ~1,200 px). ``markers``: (N, 2) marker corners, if any."""
    h, w = image.shape[:2]
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2Lab).astype(np.float32)
    gradient = _gradient(lab)
    middle = np.zeros((h, w), bool)
    middle[h // 3 : 2 * h // 3, w // 3 : 2 * w // 3] = True
    if markers is not None and len(markers) >= 3:
        hull = cv2.convexHull(np.round(markers).astype(np.int32)).reshape(-1, 2)
        region = np.zeros((h, w), np.uint8)
        cv2.fillPoly(region, [hull], 1)
        middle &= region.astype(bool)
        if middle.sum() < 100:
            middle = region.astype(bool)
        found_by = "markers"
    else:
        hull, region, found_by = np.zeros((0, 2), np.int32), np.zeros((h, w), np.uint8), "surface"

    # the surface's chroma at the middle of the picture, and its gradient there (texture noise)
    centre, cov = _robust_gaussian(lab[..., 1:][middle])
    chroma_z = _mahalanobis(lab[..., 1:] - centre, cov)
    window = max(3, round(0.01 * max(h, w))) | 1
    energy = cv2.blur(gradient, (window, window))
    typical_energy = float(np.median(energy[middle])) + 1e-3
    surface = ((chroma_z < SURFACE_Z) & (energy < 3 * typical_energy)).astype(np.uint8)
    if found_by == "surface":
        hull, region = _surface_region(surface, h, w)
    surface &= region
    if surface.sum() < MIN_TABLE_SHARE * h * w * 0.5:
        raise TableNotFound("no playing surface found in the picture (is the camera looking at the table?)")

    z, surface_lab = _local_colour_distance(lab, surface)
    median_gradient = float(np.median(gradient[region > 0])) + 1e-3
    strong = (z > OBJECT_Z) | (gradient > EDGE_FACTOR * median_gradient)
    objects: np.ndarray = cv2.morphologyEx(strong.astype(np.uint8) & region, cv2.MORPH_CLOSE,
                                           np.ones((3, 3), np.uint8))
    outlines, _ = cv2.findContours(objects, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(objects)
    cv2.drawContours(filled, outlines, -1, 1, -1)
    opened: np.ndarray = cv2.morphologyEx(filled, cv2.MORPH_OPEN,
                                          cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)))
    return Table(hull=hull.astype(np.int32), mask=region, z=z, gradient=gradient, objects=opened & region,
                 surface_lab=surface_lab, found_by=found_by)


def _gradient(lab: np.ndarray) -> np.ndarray:
    smooth = cv2.GaussianBlur(lab, (0, 0), 1.0)
    gx = cv2.Sobel(smooth, cv2.CV_32F, 1, 0)
    gy = cv2.Sobel(smooth, cv2.CV_32F, 0, 1)
    magnitude: np.ndarray = np.sqrt((gx * gx + gy * gy) @ np.array([0.25, 1.0, 1.0], np.float32))
    return magnitude


def _robust_gaussian(pixels: np.ndarray, *, rounds: int = 5, cut: float = 9.0) -> tuple[np.ndarray, np.ndarray]:
    """Mean and covariance of the main cluster of ``pixels`` (N, d): outliers beyond ``cut`` (squared
    Mahalanobis) of the running estimate are dropped each round."""
    pixels = pixels.reshape(-1, pixels.shape[-1]).astype(np.float64)
    if len(pixels) > 200_000:
        pixels = pixels[:: len(pixels) // 200_000 + 1]
    ridge = np.eye(pixels.shape[1]) * 0.5
    mean = np.median(pixels, axis=0)
    keep = pixels
    for _ in range(rounds):
        d = pixels - mean
        cov = np.cov((keep - mean).T) + ridge if len(keep) > 3 else ridge
        m = _mahalanobis(d, cov) ** 2
        if (m < cut).sum() < 10:
            break
        keep = pixels[m < cut]
        mean = keep.mean(axis=0)
    cov = np.cov((keep - mean).T) + ridge if len(keep) > 3 else ridge
    return mean, cov


def _mahalanobis(d: np.ndarray, cov: np.ndarray) -> np.ndarray:
    """Distances of the vectors ``d`` (..., k) under covariance ``cov`` (whitened, then their norms)."""
    whiten = np.linalg.inv(np.linalg.cholesky(cov)).astype(np.float32)  # whiten @ d has identity covariance
    k = d.shape[-1]
    flat = np.ascontiguousarray(d.reshape(-1, 1, k), dtype=np.float32)
    white = cv2.transform(flat, whiten).reshape(-1, k)
    distance: np.ndarray = np.sqrt(np.einsum("ij,ij->i", white, white)).reshape(d.shape[:-1])
    return distance


def _surface_region(surface: np.ndarray, h: int, w: int) -> tuple[np.ndarray, np.ndarray]:
    """The connected surface around the middle of the picture: opened (thin bridges to a similar floor cut),
    its convex hull."""
    k = max(3, round(0.02 * max(h, w))) | 1
    opened = cv2.morphologyEx(surface, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(opened)
    if count <= 1:
        raise TableNotFound("no playing surface found in the picture (is the camera looking at the table?)")
    label = int(labels[h // 2, w // 2])
    if label == 0:
        label = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    if stats[label, cv2.CC_STAT_AREA] < MIN_TABLE_SHARE * h * w:
        raise TableNotFound("no playing surface found in the picture (is the camera looking at the table?)")
    component = (labels == label).astype(np.uint8)
    outlines, _ = cv2.findContours(component, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    hull = cv2.convexHull(max(outlines, key=cv2.contourArea)).reshape(-1, 2)
    region = np.zeros((h, w), np.uint8)
    cv2.fillPoly(region, [hull], 1)
    return hull, region


def _design(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """A cubic polynomial's terms in x and y (both about -0.5..0.5)."""
    return np.stack([np.ones_like(x), x, y, x * x, x * y, y * y, x**3, x * x * y, x * y * y, y**3], axis=-1)


def _local_colour_distance(lab: np.ndarray, surface: np.ndarray) -> tuple[np.ndarray, tuple[float, float, float]]:
    """Each pixel's Mahalanobis distance from the surface colour fitted at its place (a smooth cubic in x, y)."""
    h, w = surface.shape
    step = max(1, round(max(h, w) / 150))
    ys, xs = np.nonzero(surface[::step, ::step])
    ys, xs = ys * step, xs * step
    terms = _design(xs / w - 0.5, ys / h - 0.5)
    values = lab[ys, xs].astype(np.float64)
    keep = np.ones(len(values), bool)
    coef = np.zeros((terms.shape[1], 3))
    residual_cov = np.eye(3)
    for _ in range(3):
        chosen = terms[keep]
        coef = np.linalg.solve(chosen.T @ chosen + np.eye(chosen.shape[1]) * 1e-6, chosen.T @ values[keep])
        residual = values - terms @ coef
        residual_cov = np.cov(residual[keep].T) + np.eye(3) * 0.25
        keep = _mahalanobis(residual, residual_cov) ** 2 < 11.3  # chi-square, 3 dof, 1 %
    # the fitted surface on a coarse grid, resized (smooth by construction)
    gh, gw = max(2, h // 8), max(2, w // 8)
    gy, gx = np.mgrid[0:gh, 0:gw]
    grid = (_design((gx * w / gw) / w - 0.5, (gy * h / gh) / h - 0.5).reshape(-1, terms.shape[1]) @ coef)
    background = cv2.resize(grid.reshape(gh, gw, 3).astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    z = _mahalanobis(lab - background, residual_cov)
    middle = background[h // 2, w // 2]
    return z, (float(middle[0]), float(middle[1]), float(middle[2]))

"""The camera's view of the table: lens model and the image ↔ table-plane mapping in millimetres.

``CameraModel`` holds the lens (intrinsics and distortion, from a ChArUco capture; optional: without it
the image is taken as distortion-free). ``TableCalibration`` holds the homography from *undistorted*
pixels to the table frame of ``layout.py`` plus how well it fits, and maps points both ways.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
from pydantic import Field

from tablewatch.config import StrictModel

# The default 5 iterations leave ~0.5 px at the corners of a wide lens; 40 converge.
UNDISTORT_CRITERIA = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-9)
Matrix3 = tuple[tuple[float, float, float], tuple[float, float, float], tuple[float, float, float]]


class CalibrationError(ValueError):
    """Calibration could not be done: the message says why (no markers, too few, a bad fit)."""


class CameraModel(StrictModel):
    """A pinhole camera with OpenCV's distortion model, for one image size."""

    image_size: tuple[int, int] = Field(description="(width, height) in pixels the model was fitted at.")
    camera_matrix: Matrix3
    dist_coeffs: list[float] = Field(description="OpenCV order: k1, k2, p1, p2, k3[, k4, k5, k6, ...].")
    rms_px: float | None = Field(default=None, description="RMS reprojection error of the lens fit, pixels.")
    views: int | None = Field(default=None, description="How many board views the fit used.")
    source: str = Field(default="", description="Where the model came from: charuco, table markers, given.")

    @property
    def k(self) -> np.ndarray:
        return np.asarray(self.camera_matrix, np.float64)

    @property
    def dist(self) -> np.ndarray:
        return np.asarray(self.dist_coeffs, np.float64)

    def undistort_points(self, pixels: np.ndarray) -> np.ndarray:
        """Distorted pixels → the pixels an ideal (same K) camera would see."""
        pts = np.asarray(pixels, np.float64).reshape(-1, 1, 2)
        if len(pts) == 0:
            return np.zeros((0, 2))
        return cv2.undistortPoints(pts, self.k, self.dist, R=None, P=self.k, criteria=UNDISTORT_CRITERIA).reshape(-1, 2)

    def distort_points(self, pixels: np.ndarray) -> np.ndarray:
        """Ideal pixels → where the real lens puts them."""
        pts = np.asarray(pixels, np.float64).reshape(-1, 2)
        k = self.k
        norm = np.column_stack([(pts[:, 0] - k[0, 2]) / k[0, 0], (pts[:, 1] - k[1, 2]) / k[1, 1], np.ones(len(pts))])
        out, _ = cv2.projectPoints(norm.reshape(-1, 1, 3), np.zeros(3), np.zeros(3), k, self.dist)
        return out.reshape(-1, 2)

    def undistort_image(self, image: np.ndarray) -> np.ndarray:
        return cv2.undistort(image, self.k, self.dist)

    def scaled_to(self, width: int, height: int) -> CameraModel:
        """The same lens at another resolution of the same sensor (e.g. 4K model used on 1280×720)."""
        sx, sy = width / self.image_size[0], height / self.image_size[1]
        k = self.k.copy()
        k[0] *= sx
        k[1] *= sy
        return self.model_copy(update={"image_size": (width, height), "camera_matrix": _tuple3(k)})


class TableCalibration(StrictModel):
    """Undistorted image pixels ↔ table millimetres, for one camera at one position."""

    image_size: tuple[int, int]
    homography: Matrix3 = Field(description="Maps undistorted pixels (u, v, 1) to table mm (x, y, 1).")
    camera: CameraModel | None = None
    markers_used: list[int] = Field(description="Marker ids the fit used.")
    marker_pixels: dict[str, list[tuple[float, float]]] = Field(
        description="Detected corners (pixels, as seen) of each marker at calibration time; for drift checks."
    )
    mean_error_mm: float = Field(description="Mean distance between mapped and known marker corners, mm.")
    max_error_mm: float
    mean_error_px: float = Field(description="The same residual measured in the image, pixels.")
    mm_per_px: float = Field(description="Scale at the table centre (mm per pixel), for tolerances.")

    @property
    def h(self) -> np.ndarray:
        return np.asarray(self.homography, np.float64)

    def px_to_mm(self, pixels: np.ndarray | Sequence[Sequence[float]]) -> np.ndarray:
        """(N, 2) image pixels (as the camera delivers them) → (N, 2) table mm."""
        pts = np.asarray(pixels, np.float64).reshape(-1, 2)
        if self.camera is not None:
            pts = self.camera.undistort_points(pts)
        return _apply(self.h, pts)

    def mm_to_px(self, points_mm: np.ndarray | Sequence[Sequence[float]]) -> np.ndarray:
        """(N, 2) table mm → (N, 2) image pixels (with the lens distortion put back)."""
        pts = _apply(np.linalg.inv(self.h), np.asarray(points_mm, np.float64).reshape(-1, 2))
        if self.camera is not None:
            pts = self.camera.distort_points(pts)
        return pts

    def box_to_mm(self, x_min: float, y_min: float, x_max: float, y_max: float) -> np.ndarray:
        """An image box → its footprint on the table, a (4, 2) polygon in mm (for ``zones_for_polygon``)."""
        return self.px_to_mm([(x_min, y_min), (x_max, y_min), (x_max, y_max), (x_min, y_max)])

    def rectify(self, image: np.ndarray, *, x_range: tuple[float, float], y_range: tuple[float, float],
                px_per_mm: float) -> np.ndarray:  # fmt: skip
        """A top-down crop of the table between x_range and y_range (mm) at px_per_mm (e.g. a card, the tray)."""
        if self.camera is not None:
            image = self.camera.undistort_image(image)
        out_to_mm = np.array([[1 / px_per_mm, 0, x_range[0]], [0, 1 / px_per_mm, y_range[0]], [0, 0, 1]])
        m = np.linalg.inv(self.h) @ out_to_mm  # output pixel → mm → undistorted image pixel
        size = (round((x_range[1] - x_range[0]) * px_per_mm), round((y_range[1] - y_range[0]) * px_per_mm))
        return cv2.warpPerspective(image, m, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)


def fit_homography(
    pixels: np.ndarray, points_mm: np.ndarray, *, ransac_mm: float = 15.0
) -> tuple[np.ndarray, np.ndarray]:
    """Homography undistorted px → mm from matched points; RANSAC drops a misplaced or misread marker.

    Returns the matrix and the inlier mask. The final fit is a least-squares refit on the inliers.
    """
    if len(pixels) < 4:
        raise CalibrationError(f"A homography needs at least 4 points, got {len(pixels)}.")
    h, mask = cv2.findHomography(pixels, points_mm, cv2.RANSAC, ransac_mm)
    if h is None:
        raise CalibrationError("The marker positions do not fit one plane (findHomography failed).")
    inliers = mask.ravel().astype(bool)
    refit, _ = cv2.findHomography(pixels[inliers], points_mm[inliers], 0)
    return (refit if refit is not None else h), inliers


def residuals(h: np.ndarray, pixels: np.ndarray, points_mm: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-point distance in mm (pixels mapped to the table) and in px (mm mapped to the image)."""
    err_mm = np.linalg.norm(_apply(h, pixels) - points_mm, axis=1)
    err_px = np.linalg.norm(_apply(np.linalg.inv(h), points_mm) - pixels, axis=1)
    return err_mm, err_px


def scale_at(h: np.ndarray, pixel: Sequence[float]) -> float:
    """mm per pixel at an image point (mean of the two axes)."""
    p = np.asarray([pixel, (pixel[0] + 1, pixel[1]), (pixel[0], pixel[1] + 1)], np.float64)
    q = _apply(h, p)
    return float((np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[0])) / 2)


def _apply(h: np.ndarray, points: np.ndarray) -> np.ndarray:
    pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
    if len(pts) == 0:
        return np.zeros((0, 2))
    return cv2.perspectiveTransform(pts, h).reshape(-1, 2)


def _tuple3(m: np.ndarray) -> Matrix3:
    return tuple(tuple(float(v) for v in row) for row in m)  # type: ignore[return-value]

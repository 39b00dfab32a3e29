"""Pictures of a table through a known camera: the ground truth calibration is tested against.

``SyntheticCamera`` is a full pinhole camera with OpenCV lens distortion at a pose above the table
frame (x right, y towards the dealer, z down into the table). ``render`` warps a top-down plan (from
``drawing.draw_top_down``) into what that camera would see, pixel by pixel (undistort → ray → plane).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np
import numpy.typing as npt

from tablewatch.calibration.camera import CameraModel, _tuple3


@dataclass(frozen=True, kw_only=True)
class SyntheticCamera:
    k: np.ndarray
    rvec: np.ndarray
    tvec: np.ndarray
    dist: np.ndarray = field(default_factory=lambda: np.zeros(5))
    size: tuple[int, int] = (1280, 720)

    @classmethod
    def looking_at(
        cls,
        target_mm: tuple[float, float] = (0.0, 0.0),
        *,
        distance_mm: float = 2600.0,
        tilt_deg: float = 0.0,
        roll_deg: float = 0.0,
        yaw_deg: float = 0.0,
        focal_px: float = 1150.0,
        size: tuple[int, int] = (1280, 720),
        dist: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0, 0.0),
    ) -> SyntheticCamera:
        """A camera ``distance_mm`` from ``target_mm`` on the table; tilt leans it towards the dealer side
        (a camera mounted off-centre), roll sideways, yaw turns the picture."""
        rot = _rot_x(math.radians(tilt_deg)) @ _rot_y(math.radians(roll_deg)) @ _rot_z(math.radians(yaw_deg))
        axis = rot.T @ np.array([0.0, 0.0, 1.0])  # the optical axis in the table frame
        centre = np.array([target_mm[0], target_mm[1], 0.0]) - distance_mm * axis
        rvec, _ = cv2.Rodrigues(rot)
        k = np.array([[focal_px, 0, size[0] / 2], [0, focal_px, size[1] / 2], [0, 0, 1]])
        return cls(k=k, rvec=rvec.ravel(), tvec=-rot @ centre, dist=np.asarray(dist, np.float64), size=size)

    @property
    def rotation(self) -> npt.NDArray[np.float64]:
        return np.asarray(cv2.Rodrigues(self.rvec)[0], np.float64)

    @property
    def centre(self) -> npt.NDArray[np.float64]:
        centre: npt.NDArray[np.float64] = -self.rotation.T @ self.tvec
        return centre

    def camera_model(self) -> CameraModel:
        return CameraModel(image_size=self.size, camera_matrix=_tuple3(self.k), dist_coeffs=self.dist.tolist())

    def project(self, points_mm: np.ndarray) -> np.ndarray:
        """Table points (N, 2) mm → image pixels (N, 2), lens distortion included."""
        pts = np.asarray(points_mm, np.float64).reshape(-1, 2)
        obj = np.column_stack([pts, np.zeros(len(pts))]).reshape(-1, 1, 3)
        out, _ = cv2.projectPoints(obj, self.rvec, self.tvec, self.k, self.dist)
        return out.reshape(-1, 2)

    def unproject(self, pixels: np.ndarray) -> np.ndarray:
        """Image pixels (N, 2) → the table points (N, 2) mm they see."""
        px = np.asarray(pixels, np.float64).reshape(-1, 1, 2)
        criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-10)
        norm = cv2.undistortPoints(px, self.k, self.dist, None, None, None, criteria).reshape(-1, 2)
        rays = np.column_stack([norm, np.ones(len(norm))]) @ self.rotation  # rows: Rᵀ·d
        c = self.centre
        s = -c[2] / rays[:, 2]
        table_mm: npt.NDArray[np.float64] = c[:2] + rays[:, :2] * s[:, None]
        return table_mm

    def render(self, plan: np.ndarray, plan_from_mm: np.ndarray) -> np.ndarray:
        """What the camera sees of a top-down ``plan`` whose pixels are ``plan_from_mm`` · (x, y, 1)."""
        w, h = self.size
        u, v = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
        mm = self.unproject(np.column_stack([u.ravel(), v.ravel()]))
        plan_px = cv2.perspectiveTransform(mm.reshape(-1, 1, 2), plan_from_mm).reshape(h, w, 2).astype(np.float32)
        smooth = cv2.GaussianBlur(plan, (0, 0), _blur_sigma(plan_from_mm, self))
        return cv2.remap(smooth, plan_px[..., 0], plan_px[..., 1], cv2.INTER_LINEAR, borderValue=(70, 70, 70))


def add_noise(image: np.ndarray, *, sigma: float = 3.0, seed: int = 0) -> np.ndarray:
    """Sensor noise, so detection does not work on perfect edges only."""
    rng = np.random.default_rng(seed)
    noisy = image.astype(np.float32) + rng.normal(0, sigma, image.shape).astype(np.float32)
    return np.clip(noisy, 0, 255).astype(np.uint8)


def cover(image: np.ndarray, polygon_px: np.ndarray, colour: tuple[int, int, int] = (90, 140, 200)) -> np.ndarray:
    """A copy with an opaque shape (a hand, a stack of chips) painted over ``polygon_px``."""
    out = image.copy()
    cv2.fillPoly(out, [np.round(np.asarray(polygon_px)).astype(np.int32)], colour, cv2.LINE_AA)
    return out


def _blur_sigma(plan_from_mm: np.ndarray, camera: SyntheticCamera) -> float:
    """Blur the plan to the camera's sampling before resampling it, against aliasing."""
    plan_px_per_mm = float(abs(plan_from_mm[0, 0]))
    cam_px_per_mm = float(camera.k[0, 0]) / float(np.linalg.norm(camera.centre[:3]) or 1.0)
    return max(0.5, 0.5 * plan_px_per_mm / max(cam_px_per_mm, 1e-6))


def _rot_x(a: float) -> np.ndarray:
    return np.array([[1, 0, 0], [0, math.cos(a), -math.sin(a)], [0, math.sin(a), math.cos(a)]])


def _rot_y(a: float) -> np.ndarray:
    return np.array([[math.cos(a), 0, math.sin(a)], [0, 1, 0], [-math.sin(a), 0, math.cos(a)]])


def _rot_z(a: float) -> np.ndarray:
    return np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])

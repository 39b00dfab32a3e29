"""Simulated cameras: a pinhole with lens distortion looking at the table plane.

World frame = the calibration table frame (mm): x to the dealer's right, y towards the dealer, and z
*into* the table (so a point h mm above the felt has z = -h). A camera straight overhead with no tilt
therefore sees the table as the top-down layout picture, dealer at the bottom.

The renderer draws the scene on the table plane and resamples it through ``plane_maps``: for every
image pixel, the table point it sees (through the true distortion). ``project`` is the forward model
(OpenCV's ``projectPoints``), used for labels and kept with the true parameters in the run's output so
calibration can be scored against them.
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np


@dataclass(frozen=True)
class CameraModel:
    name: str
    width: int
    height: int
    K: np.ndarray  # 3 × 3 intrinsics
    dist: np.ndarray  # k1, k2, p1, p2, k3 (OpenCV order)
    rvec: np.ndarray  # world → camera rotation (Rodrigues)
    tvec: np.ndarray  # world → camera translation (mm)

    @property
    def R(self) -> np.ndarray:
        return np.asarray(cv2.Rodrigues(self.rvec)[0])

    @property
    def centre(self) -> np.ndarray:
        """The camera's optical centre in the world frame (mm; z negative = above the felt)."""
        return np.asarray(-self.R.T @ self.tvec.reshape(3), dtype=np.float64)

    def project(self, points: np.ndarray) -> np.ndarray:
        """(N, 3) or (N, 2) world points (mm; 2-D means on the felt) → (N, 2) pixels."""
        pts = np.asarray(points, dtype=np.float64).reshape(-1, points.shape[-1])
        if pts.shape[1] == 2:
            pts = np.hstack([pts, np.zeros((len(pts), 1))])
        img, _ = cv2.projectPoints(pts, self.rvec, self.tvec, self.K, self.dist)
        return img.reshape(-1, 2)

    def plane_homography(self) -> np.ndarray:
        """Felt (x, y, 1) → undistorted normalised image coordinates (a 3 × 3 homography)."""
        R = self.R
        return np.column_stack([R[:, 0], R[:, 1], self.tvec.reshape(3)])

    def plane_maps(self, *, step: int = 4) -> tuple[np.ndarray, np.ndarray]:
        """For each pixel, the felt point (x, y) in mm it sees: two float32 maps of the image size.

        Undistortion is computed on a grid every ``step`` pixels and interpolated (it is smooth).
        """
        gw, gh = self.width // step + 2, self.height // step + 2
        gx, gy = np.meshgrid(np.arange(gw, dtype=np.float32) * step, np.arange(gh, dtype=np.float32) * step)
        pts = np.stack([gx.ravel(), gy.ravel()], axis=1).reshape(-1, 1, 2)
        norm = cv2.undistortPoints(pts, self.K, self.dist, None, np.eye(3), np.eye(3),
                                       (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 20, 1e-6)).reshape(-1, 2)
        hinv = np.linalg.inv(self.plane_homography())
        ones = np.ones((len(norm), 1))
        w = np.hstack([norm, ones]) @ hinv.T
        xy = (w[:, :2] / w[:, 2:3]).astype(np.float32)
        u = (np.arange(self.width, dtype=np.float32) / step)[None, :].repeat(self.height, axis=0)
        v = (np.arange(self.height, dtype=np.float32) / step)[:, None].repeat(self.width, axis=1)
        mx = cv2.remap(xy[:, 0].reshape(gh, gw).copy(), u, v, cv2.INTER_LINEAR)
        my = cv2.remap(xy[:, 1].reshape(gh, gw).copy(), u, v, cv2.INTER_LINEAR)
        return mx, my

    def mm_per_px(self) -> float:
        """Approximate size of one pixel on the felt at the image centre."""
        c = self.centre
        return float(abs(c[2]) / self.K[0, 0])

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "width": self.width,
            "height": self.height,
            "K": self.K.tolist(),
            "dist": self.dist.tolist(),
            "rvec": self.rvec.reshape(3).tolist(),
            "tvec": self.tvec.reshape(3).tolist(),
            "centre_mm": self.centre.tolist(),
            "frame": "table mm: x to the dealer's right, y towards the dealer, z into the table",
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CameraModel:
        return cls(name=data["name"], width=int(data["width"]), height=int(data["height"]),
                   K=np.array(data["K"], dtype=np.float64), dist=np.array(data["dist"], dtype=np.float64),
                   rvec=np.array(data["rvec"], dtype=np.float64), tvec=np.array(data["tvec"], dtype=np.float64))

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)


def look_at(centre: np.ndarray, target: np.ndarray, *, roll_deg: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """rvec, tvec of a camera at ``centre`` looking at ``target``, image "down" towards +y (the dealer)."""
    z = target - centre
    z = z / np.linalg.norm(z)
    down = np.array([0.0, 1.0, 0.0])
    y = down - np.dot(down, z) * z
    y = y / np.linalg.norm(y)
    x = np.cross(y, z)
    R = np.stack([x, y, z])
    if roll_deg:
        r = math.radians(roll_deg)
        Rz = np.array([[math.cos(r), -math.sin(r), 0], [math.sin(r), math.cos(r), 0], [0, 0, 1]])
        R = Rz @ R
    rvec = cv2.Rodrigues(R)[0].reshape(3)
    tvec = -R @ centre
    return rvec, tvec


def overhead_camera(extent: tuple[float, float, float, float], *, width: int = 1280, height: int = 720,
                    rng: random.Random | None = None, name: str = "overhead", tilt_deg: float = 0.0) -> CameraModel:
    """A camera above the table centre that sees the whole rail, with a little tilt and barrel distortion;
    ``tilt_deg``: mounted that far off vertical on the dealer's side, still aimed at the table's centre (its
    focal length shortened so that the whole rail stays in view)."""
    rng = rng or random.Random(0)
    x0, y0, x1, y1 = extent
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    cam_h = 2300.0 + rng.uniform(-150, 150)
    off = cam_h * math.tan(math.radians(tilt_deg))
    centre = np.array([cx + rng.uniform(-40, 40), cy + rng.uniform(-40, 40) + 60.0 + off, -cam_h])
    target = np.array([cx + rng.uniform(-20, 20), cy + rng.uniform(-20, 20), 0.0])
    rvec, tvec = look_at(centre, target, roll_deg=rng.uniform(-1.5, 1.5))
    f = min(width * cam_h / ((x1 - x0) * 1.08), height * cam_h / ((y1 - y0) * 1.08))
    f *= math.cos(math.radians(tilt_deg)) ** 3  # the near rail comes closer, the far one goes away
    K = np.array([[f, 0, width / 2 + rng.uniform(-6, 6)], [0, f, height / 2 + rng.uniform(-6, 6)], [0, 0, 1]])
    dist = np.array([rng.uniform(-0.12, -0.04), rng.uniform(0.0, 0.04), rng.uniform(-1e-3, 1e-3),
                     rng.uniform(-1e-3, 1e-3), 0.0])
    return CameraModel(name=name, width=width, height=height, K=K, dist=dist, rvec=rvec, tvec=tvec)


def board_camera(target: tuple[float, float], *, width: int = 1280, height: int = 720, span_mm: float = 1000.0,
                 rng: random.Random | None = None) -> CameraModel:
    """A second camera on the board and dealer area: closer, looking down at an angle from the far side."""
    rng = rng or random.Random(1)
    tx, ty = target
    centre = np.array([tx + rng.uniform(-30, 30), ty - 700.0, -1100.0 + rng.uniform(-50, 50)])
    rvec, tvec = look_at(centre, np.array([tx, ty + 60.0, 0.0]))
    dist_to = float(np.linalg.norm(centre - np.array([tx, ty, 0.0])))
    f = width * dist_to / span_mm
    K = np.array([[f, 0, width / 2], [0, f, height / 2], [0, 0, 1]])
    dist = np.array([rng.uniform(-0.08, -0.02), 0.01, 0.0, 0.0, 0.0])
    return CameraModel(name="board", width=width, height=height, K=K, dist=dist, rvec=rvec, tvec=tvec)

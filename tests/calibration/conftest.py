"""Synthetic table pictures with known cameras: the ground truth the calibration tests measure against."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from tablewatch.calibration.drawing import draw_top_down, table_to_top_down
from tablewatch.calibration.layout import TableLayout, load_layout
from tablewatch.calibration.synthetic import SyntheticCamera, add_noise

PLAN_PX_PER_MM = 1.0

# Camera poses over a 10-seat table at 1280×720: straight down, leaning and turned, and a wide lens.
POSES = {
    "overhead": SyntheticCamera.looking_at(),
    "leaning": SyntheticCamera.looking_at(tilt_deg=14, roll_deg=-5, yaw_deg=4, distance_mm=2500, focal_px=1080),
    "wide_lens": SyntheticCamera.looking_at(tilt_deg=10, dist=(-0.18, 0.05, 0.0, 0.0, 0.0), focal_px=1100),
}


@cache
def layout(name: str = "oval10") -> TableLayout:
    return load_layout(name)


@cache
def _plan(name: str) -> tuple[np.ndarray, np.ndarray]:
    lay = layout(name)
    return draw_top_down(lay, PLAN_PX_PER_MM, outlines=False), table_to_top_down(lay, PLAN_PX_PER_MM)


def render(camera: SyntheticCamera, name: str = "oval10", *, seed: int = 0) -> np.ndarray:
    """What ``camera`` sees of the layout's table, with sensor noise."""
    plan, plan_from_mm = _plan(name)
    return add_noise(camera.render(plan, plan_from_mm), seed=seed)


@cache
def rendered(pose: str) -> np.ndarray:
    return render(POSES[pose])


def table_grid(step: float = 100.0) -> np.ndarray:
    """Points over the felt (mm) where the ground truth and the calibration are compared."""
    return np.array([(x, y) for x in np.arange(-1100, 1101, step) for y in np.arange(-500, 501, step)], float)


@pytest.fixture(scope="session")
def oval10() -> TableLayout:
    return layout("oval10")


TRAY_BGR = (150, 160, 170)  # a light smoked-plastic tray


def draw_tray(
    plan: np.ndarray, plan_from_mm: np.ndarray, lay: TableLayout, colours: list[tuple[int, int, int]]
) -> None:
    """Chips in the tray zone: one 40 mm column per colour, left to right, with white edge spots. In place."""
    import cv2

    tray = lay.polygon("tray")
    (x0, y0), (x1, y1) = tray.min(axis=0), tray.max(axis=0)

    def px(x: float, y: float) -> tuple[int, int]:
        p = plan_from_mm @ np.array([x, y, 1.0])
        return (round(p[0] / p[2]), round(p[1] / p[2]))

    cv2.rectangle(plan, px(x0, y0), px(x1, y1), TRAY_BGR, -1)
    pitch = (x1 - x0) / len(colours)
    for k, colour in enumerate(colours):
        cx = x0 + pitch * (k + 0.5)
        cv2.rectangle(plan, px(cx - 20, y0 + 8), px(cx + 20, y1 - 8), colour, -1)
        for y in np.arange(y0 + 14, y1 - 10, 9.0):  # edge spots on every chip
            cv2.rectangle(plan, px(cx - 20, y), px(cx - 12, y + 2), (235, 235, 235), -1)


LENS = {"focal_px": 1100.0, "dist": (-0.18, 0.05, 0.0, 0.0, 0.0)}  # the wide_lens pose's lens
# (dx, dy, tilt, roll, yaw): a ChArUco board near the centre and each corner of the picture, seen at angles.
VIEWS = [(0, 0, 0, 0, 0), (-230, -110, 20, 0, 10), (230, -110, 0, 20, -10), (-230, 110, -20, 0, 5),
         (230, 110, 0, -20, -5), (0, -120, 25, 10, 30)]  # fmt: skip


@cache
def charuco_views() -> list[np.ndarray]:
    """The lens-calibration board (7×5 squares of 40 mm) through the wide lens, in six poses."""
    import cv2

    from tablewatch.calibration.markers import charuco_board

    scale, margin = 4.0, 20
    size = (round(280 * scale) + 2 * margin, round(200 * scale) + 2 * margin)
    plan = cv2.cvtColor(charuco_board().generateImage(size, marginSize=margin), cv2.COLOR_GRAY2BGR)
    plan_from_mm = np.array([[scale, 0, margin], [0, scale, margin], [0, 0, 1.0]])
    views = []
    for i, (dx, dy, tilt, roll, yaw) in enumerate(VIEWS):
        camera = SyntheticCamera.looking_at(
            (140 + dx, 100 + dy), distance_mm=650, tilt_deg=tilt, roll_deg=roll, yaw_deg=yaw, **LENS
        )
        views.append(add_noise(camera.render(plan, plan_from_mm), seed=i))
    return views

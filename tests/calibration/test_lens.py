"""Lens distortion from ChArUco views: the fitted lens is the synthetic camera's, and it fixes the table fit."""

from __future__ import annotations

import numpy as np
import pytest

from tablewatch.calibration.camera import CalibrationError, CameraModel
from tablewatch.calibration.layout import TableLayout
from tablewatch.calibration.markers import calibrate_image, calibrate_lens, charuco_board
from tests.calibration.conftest import LENS, POSES, VIEWS, charuco_views, rendered, table_grid


@pytest.fixture(scope="module")
def board_views() -> list[np.ndarray]:
    return charuco_views()


@pytest.fixture(scope="module")
def lens(board_views: list[np.ndarray]) -> CameraModel:
    return calibrate_lens(board_views, charuco_board())


def test_lens_fit_finds_the_true_lens(lens: CameraModel) -> None:
    assert lens.views == len(VIEWS)
    assert lens.image_size == (1280, 720)
    assert lens.rms_px is not None and lens.rms_px < 0.3
    assert lens.k[0, 0] == pytest.approx(LENS["focal_px"], rel=0.01)
    assert lens.k[1, 1] == pytest.approx(LENS["focal_px"], rel=0.01)
    assert lens.k[0, 2] == pytest.approx(640, abs=5)
    assert lens.dist[0] == pytest.approx(LENS["dist"][0], abs=0.02)


def test_the_fitted_lens_gives_a_table_fit_under_2_mm(lens: CameraModel, oval10: TableLayout) -> None:
    camera = POSES["wide_lens"]
    calibration = calibrate_image(rendered("wide_lens"), oval10, camera=lens)
    grid = table_grid()
    grid = grid[[z not in ("off_table", "rail") for z in oval10.zones_at(grid)]]
    error = np.linalg.norm(calibration.px_to_mm(camera.project(grid)) - grid, axis=1)
    assert calibration.mean_error_mm < 2.0
    assert error.mean() < 2.0


def test_lens_model_scales_to_another_resolution(lens: CameraModel) -> None:
    small = lens.scaled_to(640, 360)
    assert small.k[0, 0] == pytest.approx(lens.k[0, 0] / 2)
    px = np.array([[100.0, 50.0], [600.0, 300.0]])
    assert np.allclose(small.undistort_points(px) * 2, lens.undistort_points(px * 2), atol=1e-6)


def test_too_few_board_views_is_an_error(board_views: list[np.ndarray]) -> None:
    blank = np.full((720, 1280, 3), 128, np.uint8)
    with pytest.raises(CalibrationError, match="at least 3 views"):
        calibrate_lens([board_views[0], blank, blank], charuco_board())

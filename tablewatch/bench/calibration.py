"""Measure calibration on synthetic 1280×720 pictures from known cameras and print the figures.

``python -m tablewatch.bench.calibration [--overlay docs/calibration-overlay.png]``

For each camera pose (and with one marker under a hand): the fit's own residual, the error against
the true camera over a grid of felt points (mm), and how long detection + fit and look-ups take.
Then frames of the simulator's renderer (oval10): the same figures for each lens option, with each marker
hidden in turn and with two hidden, and the share of resting chips and cards (and felt grid points) whose
zone through the calibration is their true zone.
"""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import click
import cv2
import numpy as np

from tablewatch.calibration.camera import CameraModel, TableCalibration
from tablewatch.calibration.drawing import draw_overlay, draw_top_down, table_to_top_down
from tablewatch.calibration.layout import TableLayout, load_layout
from tablewatch.calibration.markers import calibrate_image, detect_markers
from tablewatch.calibration.synthetic import SyntheticCamera, add_noise, cover

if TYPE_CHECKING:
    from tablewatch.sim.script import SimRun

CLEARANCE = [np.array(d) for d in ((5.0, 0.0), (-5.0, 0.0), (0.0, 5.0), (0.0, -5.0))]


class Projector(Protocol):
    """A camera with known pose: table mm → image pixels (the synthetic camera, the simulator's)."""

    def project(self, points_mm: np.ndarray) -> np.ndarray: ...


POSES = {
    "overhead": SyntheticCamera.looking_at(),
    "leaning": SyntheticCamera.looking_at(tilt_deg=14, roll_deg=-5, yaw_deg=4, distance_mm=2500, focal_px=1080),
    "wide_lens": SyntheticCamera.looking_at(tilt_deg=10, dist=(-0.18, 0.05, 0.0, 0.0, 0.0), focal_px=1100),
}


def felt_grid(layout: TableLayout, step: float = 50.0) -> np.ndarray:
    x0, y0, x1, y1 = layout.extent
    grid = np.array([(x, y) for x in np.arange(x0, x1, step) for y in np.arange(y0, y1, step)])
    return grid[[z not in ("rail", "off_table") for z in layout.zones_at(grid)]]


def hide_marker(image: np.ndarray, camera: Projector, layout: TableLayout, marker: int) -> np.ndarray:
    corners = layout.marker_corners()[marker]
    centre = corners.mean(axis=0)
    return cover(image, camera.project((corners - centre) * 1.8 + centre))


@click.command()
@click.option("--layout", "layout_name", default="oval10", show_default=True)
@click.option("--overlay", type=click.Path(dir_okay=False, path_type=Path), help="Write the leaning pose's overlay.")
def main(layout_name: str, overlay: Path | None) -> None:
    layout = load_layout(layout_name)
    plan, plan_from_mm = draw_top_down(layout, 1.0, outlines=False), table_to_top_down(layout, 1.0)
    grid = felt_grid(layout)
    click.echo(f"layout {layout.name}, {len(grid)} felt points every 50 mm, 1280x720")
    click.echo(f"{'pose':<24}{'markers':>8}{'fit mm':>8}{'true mean':>10}{'true max':>9}{'fit ms':>8}")
    for name, camera in POSES.items():
        image = add_noise(camera.render(plan, plan_from_mm))
        lens = camera.camera_model() if name == "wide_lens" else None
        for label, picture in ((name, image), (f"{name}, marker 4 hidden", hide_marker(image, camera, layout, 4))):
            start = time.perf_counter()
            cal = calibrate_image(picture, layout, camera=lens)
            ms = (time.perf_counter() - start) * 1000
            err = np.linalg.norm(cal.px_to_mm(camera.project(grid)) - grid, axis=1)
            click.echo(
                f"{label:<24}{len(cal.markers_used):>8}{cal.mean_error_mm:>8.2f}{err.mean():>10.2f}{err.max():>9.2f}"
                f"{ms:>8.1f}"
            )
            if overlay is not None and label == "leaning, marker 4 hidden":
                caption = f"{layout.name}: mean fit error {cal.mean_error_mm:.2f} mm, marker 4 hidden"
                detected = detect_markers(picture, dictionary=layout.dictionary)
                drawn = draw_overlay(picture, layout, cal.mm_to_px, detected=detected, caption=caption)
                cv2.imwrite(str(overlay), drawn)
    if layout.name == "oval10":
        _sim_rows(layout)
    _lookups(layout)
    if overlay is not None:
        click.echo(f"wrote {overlay}")


def _sim_rows(layout: TableLayout) -> None:
    """Frames of the simulator's renderer (its own camera, with barrel distortion), scored against its true camera:
    each lens option with all markers, the true lens with each marker hidden in turn and with two hidden, and
    zone assignment of the resting chips and cards and of a felt grid."""
    from tablewatch.sim.camera import overhead_camera
    from tablewatch.sim.render import Renderer
    from tablewatch.sim.scenario import Scenario
    from tablewatch.sim.script import simulate

    scenario = Scenario.model_validate({
        "layout": "oval10", "seed": 3, "hands": [{"button": 1, "actions": ["s1 cbr 300", "s4 f", "s8 f"]}],
        "players": [{"seat": s, "name": f"P{s}", "stack": 5000} for s in (1, 4, 8)],
    })  # fmt: skip
    run = simulate(scenario)
    t = run.duration * 0.4  # mid-hand: chips in stacks, bets and the tray, cards dealt
    zone_rows = []
    for seed in (5, 6):
        cam = overhead_camera(run.table.extent(), rng=random.Random(seed))
        image = Renderer(run, cam).render(t, labels=False).image
        true_lens = CameraModel(image_size=(cam.width, cam.height), camera_matrix=cam.K.tolist(),
                                dist_coeffs=cam.dist.tolist())  # fmt: skip
        for label, lens, radial in (("true lens", true_lens, True), ("k1 from markers", None, True),
                                    ("no lens", None, False)):  # fmt: skip
            cal, ms = _timed_fit(image, layout, lens, radial)
            _row(f"sim{seed} {label}", cal, _truth_error(cal, cam, layout), ms)
        hidden = [_timed_fit(hide_marker(image, cam, layout, m), layout, true_lens, True) for m in range(6)]
        errors = np.concatenate([_truth_error(cal, cam, layout) for cal, _ in hidden])
        fits = [cal.mean_error_mm for cal, _ in hidden]
        click.echo(f"{f'sim{seed} 1 hidden (x6)':<24}{5:>8}{max(fits):>8.2f}{errors.mean():>10.2f}"
                   f"{errors.max():>9.2f}{np.mean([ms for _, ms in hidden]):>8.1f}")  # fmt: skip
        two = hide_marker(hide_marker(image, cam, layout, 1), cam, layout, 4)
        cal, ms = _timed_fit(two, layout, true_lens, True)
        _row(f"sim{seed} 2 hidden (1, 4)", cal, _truth_error(cal, cam, layout), ms)
        zone_rows.append(_zone_accuracy(run, t, cam, _timed_fit(image, layout, true_lens, True)[0], layout))
    for seed, (clear, objects, grid_clear, grid) in zip((5, 6), zone_rows, strict=True):
        click.echo(f"sim{seed} zones, true lens: objects >=5 mm from an edge {clear}, all resting objects {objects}, "
                   f"felt grid points >=5 mm from an edge {grid_clear}, all {grid}")  # fmt: skip


def _timed_fit(image: np.ndarray, layout: TableLayout, lens: CameraModel | None, radial: bool
               ) -> tuple[TableCalibration, float]:  # fmt: skip
    start = time.perf_counter()
    cal = calibrate_image(image, layout, camera=lens, fit_radial=radial)
    return cal, (time.perf_counter() - start) * 1000


def _truth_error(cal: TableCalibration, camera: Projector, layout: TableLayout) -> np.ndarray:
    grid = felt_grid(layout)
    return np.asarray(np.linalg.norm(cal.px_to_mm(camera.project(grid)) - grid, axis=1))


def _row(name: str, cal: TableCalibration, err: np.ndarray, ms: float) -> None:
    click.echo(
        f"{name:<24}{len(cal.markers_used):>8}{cal.mean_error_mm:>8.2f}{err.mean():>10.2f}{err.max():>9.2f}{ms:>8.1f}"
    )


def _zone_accuracy(run: SimRun, t: float, camera: Projector, cal: TableCalibration, layout: TableLayout
                   ) -> tuple[str, str, str, str]:  # fmt: skip
    """Correct zone through the calibration / total: resting objects at least 5 mm from a zone edge, all resting
    objects, felt grid points (every 50 mm) at least 5 mm from an edge, and all of them (the grid meets many
    zone edges exactly, where any error, however small, flips the zone)."""
    poses = [o.track.at(t) for o in [*run.world.chips, *run.world.cards]]
    spots = np.array([(p.x, p.y) for p in poses if p is not None and p.zone is not None and p.visible])
    objects_ok, objects_clear = _zones_through(cal, camera, layout, spots)
    grid_ok, grid_clear = _zones_through(cal, camera, layout, felt_grid(layout))

    def share(ok: np.ndarray) -> str:
        return f"{int(ok.sum())}/{len(ok)} ({100 * ok.mean():.1f} %)"

    return share(objects_ok[objects_clear]), share(objects_ok), share(grid_ok[grid_clear]), share(grid_ok)


def _zones_through(cal: TableCalibration, camera: Projector, layout: TableLayout, spots: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Per table point: is its zone seen through the calibration its true zone, and is it 5 mm clear of an edge."""
    truth = np.array(layout.zones_at(spots))
    clear = np.all([truth == layout.zones_at(spots + step) for step in CLEARANCE], axis=0)
    seen = np.array(layout.zones_at(cal.px_to_mm(camera.project(spots))))
    return seen == truth, clear


def _lookups(layout: TableLayout) -> None:
    rng = np.random.default_rng(0)
    points = rng.uniform([-1400, -750], [1400, 750], size=(20000, 2))
    start = time.perf_counter()
    layout.zones_at(points)
    vectorised = (time.perf_counter() - start) / len(points) * 1e6
    start = time.perf_counter()
    for x, y in points[:2000]:
        layout.zone_at(x, y)
    single = (time.perf_counter() - start) / 2000 * 1e6
    click.echo(f"zone look-up: zone_at {single:.1f} us/point, zones_at {vectorised:.2f} us/point (20k points)")


if __name__ == "__main__":
    main()

"""``tablewatch calibrate IMAGE_OR_VIDEO --layout NAME -o table.toml``: the table profile and an overlay."""

from __future__ import annotations

from pathlib import Path

import click
import cv2
import numpy as np

from tablewatch.calibration.camera import CalibrationError, CameraModel, TableCalibration
from tablewatch.calibration.chips import ChipColourError, ChipColours, learn_from_tray, painted_chip_colours
from tablewatch.calibration.drawing import draw_overlay
from tablewatch.calibration.layout import LayoutError, TableLayout, load_layout
from tablewatch.calibration.markers import (
    calibrate_frames,
    calibrate_lens,
    charuco_board,
    detect_markers,
)
from tablewatch.calibration.profile import TableProfile, new_profile, save_profile
from tablewatch.config import ConfigError, StrictModel, load_config
from tablewatch.images import MAX_IMAGE_PIXELS, ImageError, check_pixels, read_image_file

TRAY_INSET_MM = 8.0  # keep the rail and felt at the tray's edge out of the crop
FELT_PX_PER_MM = 0.3  # the felt's colour is read at this resolution (a median: plenty)
IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"}


@click.command(name="calibrate")
@click.argument("source", type=click.Path(exists=True, dir_okay=False, path_type=Path), metavar="IMAGE_OR_VIDEO")
@click.option("--layout", "layout_name", required=True, help="Layout template (oval10, oval9, oval6) or a layout file.")
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False, path_type=Path), required=True, help="Profile to write."
)
@click.option("--table", "table_id", default="T01", show_default=True,
              help="Table id stored in the profile: the `table` of the configuration that uses it.")
@click.option(
    "--overlay", type=click.Path(dir_okay=False, path_type=Path), help="Overlay PNG (default: OUTPUT-overlay.png)."
)
@click.option("--frames", default=30, show_default=True, type=click.IntRange(1, 1000), help="Video frames to use.")
@click.option(
    "--lens",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A lens model: a TOML file with a [camera] table (e.g. an earlier profile's calibration).",
)
@click.option(
    "--charuco",
    type=click.Path(exists=True, path_type=Path),
    help="A folder of ChArUco board photos (7x5 squares of 40 mm, DICT_5X5_50) to fit the lens from.",
)
@click.option("--denominations", default=None, help="Chip values in tray order, left to right, e.g. 25,100,500.")
@click.option(
    "--tray-photo",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A top-down photo of the tray (default: the tray zone of the calibration image).",
)
@click.option("--sim-chips", is_flag=True,
              help="Store the shipped demo chip set's colours (the simulator's chips) instead of learning them.")
@click.option("--max-error-mm", default=5.0, show_default=True, help="Fail when the mean fit error is larger.")
def calibrate(
    source: Path, layout_name: str, output: Path, table_id: str, overlay: Path | None, frames: int,
    lens: Path | None, charuco: Path | None, denominations: str | None, tray_photo: Path | None, sim_chips: bool,
    max_error_mm: float,
) -> None:  # fmt: skip
    """Calibrate a table camera from an image or video that shows the layout's ArUco markers.

    Writes the table profile (TOML: homography, lens, fit quality, chip colours) and an overlay picture
    with the zones drawn on the image for a person to check.
    """
    try:
        layout = load_layout(layout_name)
        images = read_frames(source, limit=frames)
        camera = _camera(lens, charuco)
        calibration, used = _calibrated(source, images, layout, camera)
        chips = _chips(images[0], layout, calibration, denominations=denominations, tray_photo=tray_photo,
                       sim_chips=sim_chips)  # fmt: skip
    except (LayoutError, CalibrationError, ChipColourError, ConfigError) as exc:
        raise click.ClickException(str(exc)) from exc
    if calibration.mean_error_mm > max_error_mm:
        raise click.ClickException(
            f"The markers fit the layout badly: mean error {calibration.mean_error_mm:.1f} mm"
            f" (limit {max_error_mm} mm)."
            " Is it the right layout, and are the markers where the layout says?"
        )
    profile = new_profile(table=table_id, layout=layout_name, calibration=calibration, chips=chips,
                          source=str(source))  # fmt: skip
    overlay = overlay or output.with_name(f"{output.stem}-overlay.png")
    _write(profile, output, overlay, images[0], layout)
    _report(profile, used, output, overlay)


def _calibrated(source: Path, images: list[np.ndarray], layout: TableLayout,
                camera: CameraModel | None) -> tuple[TableCalibration, int]:
    try:
        return calibrate_frames(images, layout, camera=camera)
    except CalibrationError as exc:
        raise CalibrationError(f"{source}: {exc}") from exc


def read_frames(source: Path, *, limit: int) -> list[np.ndarray]:
    """An image, or up to ``limit`` frames spread over a video; ClickException when it can't be read."""
    if source.suffix.lower() in IMAGE_SUFFIXES:
        try:
            return [read_image_file(source)]
        except ImageError as exc:
            raise click.ClickException(str(exc)) from exc
    capture = cv2.VideoCapture(str(source))
    try:
        size = (int(capture.get(cv2.CAP_PROP_FRAME_WIDTH)), int(capture.get(cv2.CAP_PROP_FRAME_HEIGHT)))
        try:
            check_pixels(size, str(source), max_pixels=MAX_IMAGE_PIXELS)
        except ImageError as exc:
            raise click.ClickException(str(exc)) from exc
        total = int(capture.get(cv2.CAP_PROP_FRAME_COUNT)) if capture.isOpened() else 0
        step = max(1, total // limit) if total > 0 else 1
        frames: list[np.ndarray] = []
        index = 0
        while len(frames) < limit:
            ok, frame = capture.read()
            if not ok:
                break
            if index % step == 0:
                frames.append(frame)
            index += 1
    finally:
        capture.release()
    if not frames:
        raise click.ClickException(f"{source}: not a readable image or video (no frames could be decoded).")
    return frames


def _camera(lens: Path | None, charuco: Path | None) -> CameraModel | None:
    if lens is not None:
        return _load_lens(lens).model_copy(update={"source": f"from {lens}"})
    if charuco is None:
        return None
    paths = (
        sorted(p for p in charuco.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES) if charuco.is_dir() else [charuco]
    )
    images = [_read_photo(p) for p in paths]
    if not images:
        raise CalibrationError(f"{charuco}: no readable ChArUco board photos.")
    return calibrate_lens(images, charuco_board())


def _read_photo(path: Path) -> np.ndarray:
    try:
        return read_image_file(path)
    except ImageError as exc:
        raise click.ClickException(str(exc)) from exc


def _load_lens(path: Path) -> CameraModel:
    """A lens from a TOML with [camera] (a lens file) or [calibration.camera] (a profile)."""
    try:
        profile = load_config(path, TableProfile)
    except ConfigError:
        profile = None
    if profile is not None and profile.calibration.camera is not None:
        return profile.calibration.camera
    return load_config(path, _LensFile).camera


class _LensFile(StrictModel):
    camera: CameraModel


def _chips(
    image: np.ndarray,
    layout: TableLayout,
    calibration: TableCalibration,
    *,
    denominations: str | None,
    tray_photo: Path | None,
    sim_chips: bool,
) -> ChipColours | None:
    if sim_chips:
        return painted_chip_colours()
    if denominations is None:
        if tray_photo is not None:
            raise click.ClickException("--tray-photo needs --denominations (the chip values in tray order).")
        return None
    try:
        values = [int(v) for v in denominations.split(",") if v.strip()]
    except ValueError as exc:
        raise click.ClickException(
            f"--denominations must be whole numbers separated by commas, got {denominations!r}."
        ) from exc
    if tray_photo is not None:
        return learn_from_tray(_read_photo(tray_photo), values, source=str(tray_photo))
    return tray_zone_chips(image, layout, calibration, values)


def tray_zone_chips(image: np.ndarray, layout: TableLayout, calibration: TableCalibration,
                    denominations: list[int]) -> ChipColours:
    """Chip colours learned from the tray zone of a calibrated camera's image (columns in ``denominations``
    order, left to right as the camera sees the tray)."""
    tray = layout.polygon("tray")
    (x0, y0), (x1, y1) = tray.min(axis=0) + TRAY_INSET_MM, tray.max(axis=0) - TRAY_INSET_MM
    crop = calibration.rectify(image, x_range=(x0, x1), y_range=(y0, y1), px_per_mm=1.0)
    chips = learn_from_tray(crop, denominations, source="tray zone of the calibration image")
    return chips.with_felt(felt_colour(image, layout, calibration))  # (the camera's colour when the chips were learned)


def felt_colour(image: np.ndarray, layout: TableLayout, calibration: TableCalibration) -> np.ndarray:
    """The felt's colour (BGR) in a calibrated camera's image: the median over the felt seen from above (most of
    it is bare)."""
    felt = layout.polygon("felt")
    (x0, y0), (x1, y1) = felt.min(axis=0), felt.max(axis=0)
    top = calibration.rectify(image, x_range=(x0, x1), y_range=(y0, y1), px_per_mm=FELT_PX_PER_MM)
    inside = np.zeros(top.shape[:2], np.uint8)
    cv2.fillPoly(inside, [np.round((felt - (x0, y0)) * FELT_PX_PER_MM).astype(np.int32)], 255)
    colour: np.ndarray = np.median(top[inside > 0], axis=0)
    return colour


def _write(profile: TableProfile, output: Path, overlay: Path, image: np.ndarray, layout: TableLayout) -> None:
    cal = profile.calibration
    detected = detect_markers(image, dictionary=layout.dictionary)
    caption = (f"{layout.name}: {len(cal.markers_used)} markers, mean error {cal.mean_error_mm:.2f} mm "
               f"(max {cal.max_error_mm:.2f})")  # fmt: skip
    picture = draw_overlay(image, layout, cal.mm_to_px, detected=detected, caption=caption)
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        save_profile(profile, output)
        if not cv2.imwrite(str(overlay), picture):
            raise OSError(f"OpenCV could not write {overlay} (is the suffix .png?)")
    except OSError as exc:
        raise click.ClickException(f"Cannot write the results: {exc}") from exc


def _describe_lens(lens: CameraModel) -> str:
    if lens.source == "charuco":
        return f"ChArUco fit, {lens.views} views, rms {lens.rms_px or 0:.2f} px"
    if lens.source.startswith("table markers"):
        return f"radial k1 {lens.dist_coeffs[0]:.3f} fitted from the table markers (--charuco gives a full model)"
    return f"given ({lens.source or 'lens file'})"


def _report(profile: TableProfile, frames: int, output: Path, overlay: Path) -> None:
    cal = profile.calibration
    click.echo(f"table {profile.table}, layout {profile.layout}, {frames} frame(s)")
    click.echo(f"markers used: {', '.join(map(str, cal.markers_used))}")
    click.echo(f"fit error: mean {cal.mean_error_mm:.2f} mm, max {cal.max_error_mm:.2f} mm "
               f"({cal.mean_error_px:.2f} px); scale {cal.mm_per_px:.2f} mm/px")  # fmt: skip
    if cal.camera is not None:
        click.echo(f"lens: {_describe_lens(cal.camera)}")
    if profile.chips is not None:
        click.echo(f"chip colours: {', '.join(str(v) for v in profile.chips.values())} ({profile.chips.source})")
    click.echo(f"wrote {output} and {overlay}")


@click.command(name="markers")
@click.option("--layout", "layout_name", required=True, help="Layout template (oval10, oval9, oval6) or a layout file.")
@click.option("-o", "--out", type=click.Path(file_okay=False, path_type=Path), default=Path("markers"),
              show_default=True, help="Folder for the pages (marker-NN.svg).")
def markers(layout_name: str, out: Path) -> None:
    """Write the layout's ArUco markers as printable pages at true size, one SVG per marker.

    Print them at 100 % (not "fit to page"), check one black square with a ruler against the size on its label,
    and fix each on the rail where its label says (its centre, in the layout's millimetres).
    """
    from tablewatch.calibration.printing import write_marker_pages

    try:
        layout = load_layout(layout_name)
    except LayoutError as exc:
        raise click.ClickException(str(exc)) from exc
    for path in write_marker_pages(layout, out):
        click.echo(path)


@click.group(name="deck")
def deck() -> None:
    """Card decks: the shipped ones, and a venue's own registered from photos."""


@deck.command(name="list")
def deck_list() -> None:
    """The decks shipped with tablewatch (a camera's `deck` setting takes one of these, or an atlas file)."""
    from tablewatch.calibration.decks import deck_names

    for name in deck_names():
        click.echo(name)


@deck.command(name="register")
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("-o", "--out", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="The deck atlas to write (a .png); a camera's `deck` setting then names this file.")
def deck_register(folder: Path, out: Path) -> None:
    """Register the venue's own deck from FOLDER: one photo per card named by the card (As.jpg, Td.jpg or
    10d.jpg, 7h.jpg…) and one of the back (back.jpg), 53 in all.

    Lay each card on a plain surface that differs from the card (the felt), and photograph it from above, the
    whole card in the picture and filling a good part of it. Each card is found, flattened and written into the
    atlas; look at the atlas once: every face should sit upright or upside down, edge to edge.
    """
    from tablewatch.calibration.decks.register import DeckPhotoError, build_atlas, register_folder, save_atlas

    try:
        cards = register_folder(folder)
        atlas = save_atlas(build_atlas(cards), out)
    except DeckPhotoError as exc:
        raise click.ClickException(str(exc)) from exc
    unread = [card.photo.name for card in cards if not card.index_found]
    if unread:
        click.echo(f"no corner index found on {', '.join(unread)}: check those faces in the atlas", err=True)
    click.echo(f"{len(cards)} cards registered from {folder} → {atlas}")

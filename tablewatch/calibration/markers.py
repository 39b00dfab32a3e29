"""ArUco markers → the table calibration; a ChArUco board → the lens model (OpenCV 5 detector classes).

``calibrate_table`` fits the homography image → table mm from the layout's markers in one image (or the
merged detections of several video frames, so a marker hidden in one frame is seen in another). It
works with any two or more markers visible; RANSAC drops one that was moved or misread.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import cv2
import numpy as np

from tablewatch.calibration.camera import (
    CalibrationError,
    CameraModel,
    TableCalibration,
    _tuple3,
    fit_homography,
    residuals,
    scale_at,
)
from tablewatch.calibration.layout import TableLayout

Detections = dict[int, np.ndarray]  # marker id -> (4, 2) corner pixels in ArUco order
MIN_MARKERS = 2
RADIAL_MIN_MARKERS = 4  # fewer leave too few points beyond the homography's 8 unknowns
RADIAL_RANGE = (-1.0, 0.6)  # k1 at a focal of max(width, height): from strong barrel to mild pincushion
RADIAL_GAIN = 0.25  # keep k1 only when it cuts the mean residual by this share
GOLDEN = (5**0.5 - 1) / 2
CROP_MIN_PERIMETER = 0.2  # of a crop's longer side: the smallest marker outline looked for there


def marker_detector(dictionary: str = "DICT_4X4_50") -> cv2.aruco.ArucoDetector:
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX  # sub-pixel corners: ~0.1 px
    params.cornerRefinementWinSize = 3
    return cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary)), params)


def detect_markers(
    image: np.ndarray, *, dictionary: str = "DICT_4X4_50", detector: cv2.aruco.ArucoDetector | None = None
) -> Detections:
    """Every marker found in a BGR or grey image: id → (4, 2) corners in pixels.

    An id seen twice (a reflection, a stray print) is dropped: it can't be told which one is on the table.
    """
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    corners, ids, _ = (detector or marker_detector(dictionary)).detectMarkers(grey)
    if ids is None:
        return {}
    flat = [int(i) for i in ids.ravel()]
    return {i: c.reshape(4, 2).astype(np.float64) for i, c in zip(flat, corners, strict=True) if flat.count(i) == 1}


def crop_marker_detector(dictionary: str = "DICT_4X4_50") -> cv2.aruco.ArucoDetector:
    """A detector for a small crop around where a marker is expected. In a crop the default minimum outline (3 %
    of the picture's side) is a few pixels, and the felt's texture gives many tiny candidates to decode (a look
    in crops cost as much as one over the whole frame)."""
    detector = marker_detector(dictionary)
    params = detector.getDetectorParameters()
    params.minMarkerPerimeterRate = CROP_MIN_PERIMETER
    detector.setDetectorParameters(params)
    return detector


def find_near(image: np.ndarray, where: Detections, *, margin_px: float, detector: cv2.aruco.ArucoDetector,
              reduction: int = 1) -> Detections:
    """The markers of ``where`` (id -> corners in the frame's pixels) found within ``margin_px`` of those corners.
    ``image`` is the frame reduced by ``reduction`` (1, 2, 4 or 8); the corners come back in the frame's pixels."""
    height, width = image.shape[:2]
    seen: Detections = {}
    margin = margin_px / reduction
    for marker, corners in where.items():
        at = reduced_px(corners, reduction)
        low, high = np.floor(at.min(axis=0) - margin), np.ceil(at.max(axis=0) + margin)
        x0, y0 = max(0, int(low[0])), max(0, int(low[1]))
        x1, y1 = min(width, int(high[0])), min(height, int(high[1]))
        if x1 - x0 < 8 or y1 - y0 < 8:
            continue  # off the picture
        found = detect_markers(image[y0:y1, x0:x1], detector=detector).get(marker)
        if found is not None:
            seen[marker] = whole_px(found + np.array([x0, y0], float), reduction)
    return seen


def reduced_px(points: np.ndarray, reduction: int) -> np.ndarray:
    """Pixel coordinates of a frame in the frame reduced by ``reduction`` (pixel centres map to centres)."""
    return (points + 0.5) / reduction - 0.5


def whole_px(points: np.ndarray, reduction: int) -> np.ndarray:
    """Pixel coordinates of a frame reduced by ``reduction`` in the frame itself."""
    return (points + 0.5) * reduction - 0.5


def merge_detections(frames: Iterable[Detections]) -> Detections:
    """One set of corners from many frames: per marker, the median of its corners where it was seen."""
    seen: dict[int, list[np.ndarray]] = {}
    for detections in frames:
        for mid, corners in detections.items():
            seen.setdefault(mid, []).append(corners)
    return {mid: np.median(np.stack(c), axis=0) for mid, c in seen.items()}


def calibrate_table(
    detections: Detections,
    layout: TableLayout,
    *,
    image_size: tuple[int, int],
    camera: CameraModel | None = None,
    fit_radial: bool = True,
) -> TableCalibration:
    """The homography from the detected markers the layout knows; raise CalibrationError when too few.

    Without a lens model (``camera``), and with ``fit_radial`` and four or more markers, a one-term
    radial distortion is fitted from the markers themselves and kept when it clearly improves the fit
    (see ``estimate_radial``); a ChArUco lens model is better still.
    """
    known = layout.marker_corners()
    usable = sorted(mid for mid in detections if mid in known)
    if not detections:
        raise CalibrationError(
            f"No ArUco markers ({layout.dictionary}) found in the image: check the markers are in view, lit and "
            "not covered."
        )
    if len(usable) < MIN_MARKERS:
        raise CalibrationError(
            f"Found marker(s) {sorted(detections)} but layout {layout.name!r} places ids {sorted(known)}: "
            f"at least {MIN_MARKERS} of the layout's markers must be visible."
        )
    raw = np.concatenate([detections[m] for m in usable])
    pixels = camera.undistort_points(raw) if camera is not None else raw
    points_mm = np.concatenate([known[m] for m in usable])
    h, inliers = fit_homography(pixels, points_mm)
    kept = [m for k, m in enumerate(usable) if inliers[4 * k : 4 * k + 4].all()]
    if len(kept) < MIN_MARKERS:
        raise CalibrationError(f"Markers {usable} do not agree with the layout's positions; is this layout right?")
    if len(kept) < len(usable):  # refit on whole markers only
        pixels = np.concatenate([camera.undistort_points(detections[m]) if camera else detections[m] for m in kept])
        points_mm = np.concatenate([known[m] for m in kept])
        h, _ = fit_homography(pixels, points_mm)
    err_mm, err_px = residuals(h, pixels, points_mm)
    centre_x, centre_y = cv2.perspectiveTransform(np.zeros((1, 1, 2)), np.linalg.inv(h)).reshape(2)
    plain = TableCalibration(
        image_size=image_size,
        homography=_tuple3(h / h[2, 2]),
        camera=camera,
        markers_used=kept,
        marker_pixels={str(m): [(float(x), float(y)) for x, y in detections[m]] for m in kept},
        mean_error_mm=float(err_mm.mean()),
        max_error_mm=float(err_mm.max()),
        mean_error_px=float(err_px.mean()),
        mm_per_px=scale_at(h, (float(centre_x), float(centre_y))),
    )
    if camera is None and fit_radial:
        return _with_radial(detections, layout, image_size=image_size, plain=plain, kept=kept, usable=usable)
    return plain


def _with_radial(detections: Detections, layout: TableLayout, *, image_size: tuple[int, int],
                 plain: TableCalibration, kept: list[int], usable: list[int]) -> TableCalibration:
    """Through a one-term radial distortion fitted on the homography's inliers, when one shows and every usable
    marker then fits. Otherwise whichever fits best of that, the plain homography, and a distortion fitted on
    every usable marker: a lens's curve can make the markers far from the middle look like outliers to a plain
    homography (fitted on the rest alone, the curve puts the table's far side centimetres off), while a marker
    stuck in the wrong place bends the curve fitted with it, and fits worse."""
    candidates = [plain]
    for group in (kept, usable):
        if len(group) < RADIAL_MIN_MARKERS or (group is usable and usable == kept):
            continue
        lens = estimate_radial({m: detections[m] for m in group}, layout, image_size=image_size)
        if lens is None:
            continue
        lensed = calibrate_table(detections, layout, image_size=image_size, camera=lens, fit_radial=False)
        if group is kept and lensed.markers_used == usable:
            return lensed
        candidates.append(lensed)
    return min(candidates, key=lambda c: c.mean_error_mm)


def estimate_radial(detections: Detections, layout: TableLayout, *, image_size: tuple[int, int]) -> CameraModel | None:
    """A lens with one radial term k1 (centre at the image centre) that best straightens the markers.

    Barrel distortion bends the rail's markers off any one homography; a k1 that brings the fit's
    residual down by ``RADIAL_GAIN`` or more is kept. Returns None when distortion does not show.
    """
    known = layout.marker_corners()
    raw = np.concatenate([detections[m] for m in sorted(detections)])
    points_mm = np.concatenate([known[m] for m in sorted(detections)])
    w, h = image_size
    focal = float(max(w, h))  # any focal will do: k1 absorbs the scale of r²

    def lens(k1: float) -> CameraModel:
        k = ((focal, 0.0, w / 2), (0.0, focal, h / 2), (0.0, 0.0, 1.0))
        return CameraModel(image_size=image_size, camera_matrix=k, dist_coeffs=[k1, 0.0, 0.0, 0.0, 0.0],
                           source="table markers (radial k1 only)")  # fmt: skip

    def residual(k1: float) -> float:
        pixels = lens(k1).undistort_points(raw)
        hom, _ = cv2.findHomography(pixels, points_mm, 0)
        return float("inf") if hom is None else float(residuals(hom, pixels, points_mm)[0].mean())

    grid = np.linspace(*RADIAL_RANGE, 33)
    scores = [residual(k1) for k1 in grid]
    i = int(np.argmin(scores))
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
    for _ in range(20):  # golden-section search around the best grid point
        a, b = hi - GOLDEN * (hi - lo), lo + GOLDEN * (hi - lo)
        lo, hi = (lo, b) if residual(a) < residual(b) else (a, hi)
    best = 0.5 * (lo + hi)
    return lens(best) if residual(best) < (1 - RADIAL_GAIN) * residual(0.0) else None


def calibrate_image(
    image: np.ndarray, layout: TableLayout, *, camera: CameraModel | None = None, fit_radial: bool = True
) -> TableCalibration:
    """Detect the layout's markers in one image and calibrate (see ``calibrate_table``)."""
    detections = detect_markers(image, dictionary=layout.dictionary)
    size = (image.shape[1], image.shape[0])
    return calibrate_table(detections, layout, image_size=size, camera=camera, fit_radial=fit_radial)


def calibrate_frames(
    frames: Iterable[np.ndarray], layout: TableLayout, *, camera: CameraModel | None = None
) -> tuple[TableCalibration, int]:
    """Calibrate from several frames of a still camera (markers merged across frames); also the frame count."""
    detector = marker_detector(layout.dictionary)
    found: list[Detections] = []
    size: tuple[int, int] | None = None
    for frame in frames:
        size = (frame.shape[1], frame.shape[0])
        found.append(detect_markers(frame, detector=detector))
    if size is None:
        raise CalibrationError("No frames to calibrate from.")
    return calibrate_table(merge_detections(found), layout, image_size=size, camera=camera), len(found)


# --- lens: ChArUco ----------------------------------------------------------------------------------


def charuco_board(
    squares: tuple[int, int] = (7, 5), *, square_mm: float = 40.0, marker_mm: float = 30.0,
    dictionary: str = "DICT_5X5_50",
) -> cv2.aruco.CharucoBoard:  # fmt: skip
    """The lens-calibration board: its own dictionary, so it is never confused with the table's markers."""
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
    return cv2.aruco.CharucoBoard(squares, square_mm, marker_mm, d)


def calibrate_lens(
    images: Sequence[np.ndarray], board: cv2.aruco.CharucoBoard, *, min_corners: int = 8, rational: bool = False
) -> CameraModel:
    """Intrinsics and distortion from several views of a ChArUco board (different angles and places)."""
    detector = cv2.aruco.CharucoDetector(board)
    object_points, image_points = [], []
    size: tuple[int, int] | None = None
    for image in images:
        size = (image.shape[1], image.shape[0])
        grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        corners, ids, _, _ = detector.detectBoard(grey)
        if ids is None or len(ids) < min_corners:
            continue
        # OpenCV's stub wants a list of marker corners; a ChArUco board takes its corners as one array.
        obj, img = board.matchImagePoints(corners, ids)  # type: ignore[call-overload]
        object_points.append(obj.astype(np.float32))
        image_points.append(img.astype(np.float32))
    if size is None or len(object_points) < 3:
        raise CalibrationError(
            f"Lens calibration needs at least 3 views with {min_corners}+ ChArUco corners; got {len(object_points)}."
        )
    flags = cv2.CALIB_RATIONAL_MODEL if rational else 0
    rms, k, dist, _, _ = cv2.calibrateCamera(object_points, image_points, size, None, None, flags=flags)
    return CameraModel(
        image_size=size, camera_matrix=_tuple3(k), dist_coeffs=[float(v) for v in dist.ravel()],
        rms_px=float(rms), views=len(object_points), source="charuco",
    )  # fmt: skip

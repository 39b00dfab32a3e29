"""``Perception``: frames of a calibrated overhead camera in, events of ``tablewatch.events`` out.

    perception = Perception(layout=load_layout("oval10"), table="T01", chips=chip_colours, deck="anglo_poker")
    # or Perception.from_profile(load_profile("T01.toml"), deck="anglo_poker")
    for frame, ts in frames:                       # BGR uint8, seconds on the table's clock, in order
        for event in perception.process(frame, ts):   # hires=4K frame (or a callable making it), optional
            ...
    perception.flush(ts_end)   # decisions still waiting for the table to settle

Calibration comes from the table's ArUco markers in the first ``calibration_frames`` frames (merged, and a few
more while a marker has not shown: ``MarkerCalibration``) unless a ``TableCalibration`` is given (a table
profile's). Motion is analysed on the rectified plane at ``px_per_mm``, at most once per
``min_interval_s`` (frames in between return at once); card identity on a crop of the original frame, or
of ``hires`` when given. A frame may also come compressed (``tablewatch.vision.sources.Frame`` of a
Motion-JPEG camera or file): it is decoded only when analysed, reduced as far as the plane allows (a 4K frame
to a quarter), and in full only when a card's identity is read. A hand the motion path misses (an arm lost for
a moment, a hand reaching in before its arm shows) is looked for with the table-objects detector
(``hand_finder``; ``hand_finder=False`` turns that off). The dealer button is looked for in the seats' button
spots every half second (``ButtonSeen`` when its seat changes; its look is the profile's). Events come out when
they are certain: a bet ~0.7 s after the hand leaves, a card ~0.4 s after it lands; every event's ``ts`` is when it
happened, not when it was reported.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

import cv2
import numpy as np

from tablewatch.calibration.button import ButtonLook
from tablewatch.calibration.camera import CalibrationError, TableCalibration
from tablewatch.calibration.chips import ChipColours
from tablewatch.calibration.layout import TableLayout
from tablewatch.calibration.markers import (
    MIN_MARKERS,
    Detections,
    calibrate_table,
    detect_markers,
    marker_detector,
    merge_detections,
)
from tablewatch.calibration.profile import TableProfile
from tablewatch.events import ButtonSeen, Event
from tablewatch.vision.detector import DetectorError
from tablewatch.vision.perception.appearance import Appearance
from tablewatch.vision.perception.button import ButtonWatch
from tablewatch.vision.perception.chroma import ColourAlignment
from tablewatch.vision.perception.felt_light import FeltLight
from tablewatch.vision.perception.gestures import Gestures
from tablewatch.vision.perception.hand_finder import HandFinder, check_scale, region_detector
from tablewatch.vision.perception.interlace import InterlaceWatch
from tablewatch.vision.perception.light import LightMeter
from tablewatch.vision.perception.picture import PictureWatch
from tablewatch.vision.perception.plane import TablePlane
from tablewatch.vision.perception.scene import Arm, SceneTracker, actor_places
from tablewatch.vision.perception.settles import SettleReader
from tablewatch.vision.perception.stacks import StackWatch
from tablewatch.vision.perception.stall import StallWatch
from tablewatch.vision.perception.steady import Steadier
from tablewatch.vision.table_objects import TableObjectDetector

HiRes = np.ndarray | Callable[[], np.ndarray]
ASPECT_TOLERANCE = 0.01  # a frame whose width / height is within this share of the calibration's shows the same view

log = logging.getLogger(__name__)


class Picture(Protocol):
    """A frame decoded when looked at, whole or reduced (``tablewatch.vision.sources.Frame``)."""

    @property
    def image(self) -> np.ndarray: ...

    def reduced(self, factor: int) -> np.ndarray: ...


class PerceptionError(ValueError):
    """Frames that can't be used: not a colour image, a different size, or no calibration."""


MORE_FRAMES = 12  # frames merged beyond the first ones while a marker of the layout has not shown
Deck = dict[str, np.ndarray]  # card code ("As", "back") → BGRA face (``tablewatch.sim.assets.load_deck``)


class MarkerCalibration:
    """A calibration from the table's ArUco markers: merged over ``frames`` frames, and over up to
    ``MORE_FRAMES`` more while a marker of the layout has not shown in any (a marker lost in one frame's noise or
    under an arm shows in another; fitted without it, the lens's curve is guessed from the others and the far
    side of the table lands centimetres off); sliding on by a frame while they show too few, for at most
    ``patience`` frames."""

    def __init__(self, layout: TableLayout, *, frames: int, patience: int) -> None:
        self.layout, self.frames, self.patience = layout, frames, patience
        self.detector = marker_detector(layout.dictionary)
        self.pending: list[Detections] = []  # the markers each frame showed
        self.failures = 0

    def add(self, frame: np.ndarray) -> TableCalibration | None:
        """The calibration once this frame completes one, else None (``PerceptionError`` past ``patience``)."""
        self.pending.append(detect_markers(frame, detector=self.detector))
        if len(self.pending) < self.frames:
            return None
        merged = merge_detections(self.pending)
        if len(self.pending) < self.frames + MORE_FRAMES and \
                len(merged) >= MIN_MARKERS and not all(m.id in merged for m in self.layout.markers):
            return None
        try:
            calibration = calibrate_table(merged, self.layout, image_size=(frame.shape[1], frame.shape[0]))
        except CalibrationError as exc:
            self.pending = self.pending[1:]  # keep trying on the next frames
            self.failures += 1
            if self.failures >= self.patience:
                raise PerceptionError(f"no table calibration after {self.failures + len(self.pending)} frames: "
                                      f"{exc}") from exc
            return None
        self.pending = []
        return calibration


@dataclass(frozen=True)
class TableView:
    """Perception's parts for one calibration of the camera, built from the first frame analysed through it:
    how cards and chips look is judged against the felt's colour, which shows only then."""

    look: Appearance
    scene: SceneTracker
    settles: SettleReader
    stacks: StackWatch
    button: ButtonWatch

    @classmethod
    def first_seen(cls, plane: TablePlane, flat: np.ndarray, *, chips: ChipColours, deck: Deck | None,
                   px_per_mm: float, still_s: float, seats: list[int] | None, settle_lag_s: float,
                   button: ButtonLook) -> TableView:
        """``flat``: the first frame rectified onto the plane."""
        felt = plane.felt_colour(flat)
        seen = chips.seen_with(felt)
        if seen is not chips:
            log.warning("the felt shows more or less colour than when the chip colours were learned (the camera's "
                        "colour setting moved): the chips' colours are taken as scaled alike")
        look = Appearance(felt_bgr=felt, chips=seen, deck=deck, px_per_mm=px_per_mm)
        scene = SceneTracker(plane, still_s=still_s, seats=seats, colours=look)
        settles = SettleReader(look, plane, lag_s=settle_lag_s - still_s)
        return cls(look=look, scene=scene, settles=settles, stacks=StackWatch(plane, look),
                   button=ButtonWatch(plane, button))


class Perception:
    """Stateful: feed frames in time order with ``process``; events come out when they are certain."""

    def __init__(self, *, layout: TableLayout, table: str, chips: ChipColours, deck: str | Deck | None = None,
                 calibration: TableCalibration | None = None, calibration_frames: int = 3, px_per_mm: float = 0.3,
                 still_s: float = 0.35, min_interval_s: float = 0.09, hand_in_progress: bool = False,
                 calibration_patience: int = 150, seats: Iterable[int] | None = None,
                 hand_finder: bool = True, button: ButtonLook | None = None, camera: str = "camera") -> None:
        self.layout, self.table, self.px_per_mm, self.still_s = layout, table, px_per_mm, still_s
        # (camera: its name in the events it raises)
        self.picture = PictureWatch(table=table, camera=camera, felt_saturation=chips.felt_saturation())
        self.stall = StallWatch(table=table, camera=camera)
        self.interlace = InterlaceWatch(table=table, camera=camera)
        self.min_interval_s = min_interval_s
        self.chips = chips
        self.button = button or ButtonLook()
        self.deck = _load_deck(deck)
        self.seats = sorted(seats) if seats is not None else None  # occupied seats, when known
        unknown = set(self.seats or ()) - set(layout.seat_numbers)
        if unknown:
            raise PerceptionError(f"seat(s) {sorted(unknown)} are not in layout {layout.name!r} "
                                  f"(seats {layout.seat_numbers})")
        self.hand_detector = _hand_detector(px_per_mm) if hand_finder else None
        self.markers = MarkerCalibration(layout, frames=calibration_frames, patience=calibration_patience)
        self.gestures = Gestures(layout, table=table, hand_in_progress=hand_in_progress)
        # Known once calibrated (from the start with a profile's calibration, else from the first frames' markers):
        self.calibration: TableCalibration | None = None
        self.plane: TablePlane | None = None
        self.hand_finder: HandFinder | None = None
        # ... and from the first frame analysed through that calibration:
        self.view: TableView | None = None
        self._last_done: float | None = None
        self._last_ts: float | None = None
        # the frame being analysed, for card crops: the image, and a higher resolution of it (or its maker)
        self._frame: np.ndarray | None = None
        self._hires: HiRes | None = None
        self._hires_planes: dict[tuple[int, int], TablePlane] = {}
        # the earliest time an event still to come may carry (None: nothing pending), for the pipeline
        # to hold the other sensors' events that long and no longer
        self.horizon: float | None = None
        self.timing = {"decode": 0.0, "rectify": 0.0, "scene": 0.0, "hand_finder": 0.0, "events": 0.0,
                       "frames": 0}
        # the last analysed frame: its time, its table plane and the arms on it (for overlays and scoring)
        self.analysed: tuple[float, np.ndarray, list[Arm]] | None = None
        if calibration is not None:
            self._start(calibration)

    @classmethod
    def from_profile(cls, profile: TableProfile, *, deck: str | Deck | None = None, **options: Any) -> Perception:
        """Perception for a calibrated table: layout, calibration and chip colours from its profile."""
        if profile.chips is None:
            raise PerceptionError(f"the profile of table {profile.table} has no chip colours: calibrate them from "
                                  "a tray photo first (tablewatch calibrate)")
        options.setdefault("button", profile.button)
        return cls(layout=profile.load_layout(), table=profile.table, chips=profile.chips, deck=deck,
                   calibration=profile.calibration, **options)

    # --- set-up -----------------------------------------------------------------------------------------

    @property
    def look(self) -> Appearance | None:
        return self.view.look if self.view is not None else None

    @property
    def scene(self) -> SceneTracker | None:
        return self.view.scene if self.view is not None else None

    @property
    def stacks(self) -> StackWatch | None:
        return self.view.stacks if self.view is not None else None

    def _start(self, calibration: TableCalibration) -> None:
        self.calibration = calibration
        self.plane = TablePlane(calibration, self.layout, px_per_mm=self.px_per_mm)
        self.light = LightMeter(self.plane)
        self.felt_light = FeltLight(self.plane)
        self.steadier = Steadier(calibration, dictionary=self.layout.dictionary)
        self.plane.lighting = self._lit
        self.hand_finder = (HandFinder(self.plane, actor_places(self.layout, self.seats), self.hand_detector)
                            if self.hand_detector is not None else None)
        self.view = None
        self._resolution_due = True  # judged at the first frame analysed through this calibration
        self.colour: ColourAlignment | None = None  # ... and its colour planes' offset measured

    def recalibrate(self, calibration: TableCalibration) -> None:
        """Go on with a new calibration of the same camera (it was knocked and has settled).

        The view of the table is rebuilt from the next frame (the old reference, felt colour and stacks were
        seen through the old homography); what the hand has shown so far (cards dealt, board) is kept.
        """
        self._start(calibration)
        self._last_done = None
        self._hires_planes.clear()

    # --- frames -----------------------------------------------------------------------------------------

    def process(self, frame: np.ndarray | Picture, ts: float, *, hires: HiRes | None = None) -> list[Event]:
        """One BGR frame taken at ``ts`` seconds; the events it completes (often none).

        ``frame``: an image, or a ``Picture`` decoded only if this frame is analysed (and then reduced as far
        as the plane allows; card crops come from it decoded in full).
        ``hires``: the same moment at a higher resolution of the same camera (an image, or a callable that
        makes one, called only when a card's identity is read): card crops come from it.
        """
        if self._last_ts is not None and ts <= self._last_ts:
            raise PerceptionError(f"frames must come in time order: {ts} after {self._last_ts}")
        if isinstance(frame, np.ndarray) or not hasattr(frame, "reduced"):
            _checked(frame)  # (a Picture is checked once decoded)
        self._last_ts = ts
        if self.plane is None:
            calibration = self.markers.add(decoded(frame))
            if calibration is None:
                return []
            self._start(calibration)
        if self._last_done is not None and ts - self._last_done < self.min_interval_s:
            return []  # analysis runs at about 1 / min_interval_s: motion between is slow enough to follow
        self._last_done = ts
        assert self.plane is not None
        t0 = time.perf_counter()
        reduction = 1 if isinstance(frame, np.ndarray) else self.plane.reduction()
        if reduction > 1 and hires is None:
            hires = lambda whole=frame: decoded(whole)  # noqa: E731 (card identity from the whole frame)
        image = decoded(frame, reduction)
        if not self._fits(image, reduction):
            self._follow_size(decoded(frame))
            return []  # analysed from the next frame on, through the calibration that fits it
        colour_offset: list[Event] = []
        if self.colour is None:
            self.colour = ColourAlignment.measured(image)
            colour_offset += self.colour.report(ts, table=self.table, camera=self.picture.camera)
        if self.colour.needed:
            image, hires = self._colour_aligned(image, hires)
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)  # (what the stall and interlace watches read)
        stalled, interlaced = self.stall.update(grey, ts), self.interlace.update(grey, ts)
        t_decoded = time.perf_counter()
        self.plane.shift = self.steadier.measure(image, reduction=reduction)
        try:
            flat = self.plane.rectify(image, reduction=reduction)
        except ValueError as exc:
            raise PerceptionError(str(exc)) from exc
        flat = self.felt_light.correct(self.light.correct(flat, ts), ts)
        picture = self.picture.update(self.light.reading, ts)
        if self._resolution_due:
            self._resolution_due = False
            picture += self.picture.resolution(self.plane.calibration.mm_per_px, ts)
        t1 = time.perf_counter()
        if self.view is None:
            self.view = TableView.first_seen(self.plane, flat, chips=self.chips, deck=self.deck,
                                             px_per_mm=self.px_per_mm, still_s=self.still_s, seats=self.seats,
                                             settle_lag_s=self.settle_lag_s, button=self.button)
        view = self.view
        view.settles.overexposed = view.scene.overexposed = self.picture.holds("overexposed")
        view.settles.shade_passing = self.felt_light.shade_passing(ts)
        arms, settles = view.scene.update(flat, ts)
        t_scene = time.perf_counter()
        if self.hand_finder is not None:
            arms = self.hand_finder.update(ts, flat, arms, view.scene.unowned)
        self.analysed = (ts, flat, arms)
        t2 = time.perf_counter()
        self._frame, self._hires = image, hires
        events = colour_offset + picture + stalled + interlaced + self.gestures.arms(ts, arms)
        for settle in settles:
            for found in view.settles.classify(settle, self._identity_source):
                events += self.gestures.settled(found)
        events += self.gestures.decide(ts)
        for seat in self.gestures.chips_moved:
            view.stacks.reset(seat)
        self.gestures.chips_moved.clear()
        assert view.scene.ref is not None  # (set by the scene's first update)
        events += self.gestures.obscured(ts, view.stacks.update(ts, flat, view.scene.ref, view.scene.fg))
        if (button_seat := view.button.update(ts, view.scene.ref)) is not None:
            since = max(ts - self.settle_lag_s, view.scene.t0 if view.scene.t0 is not None else ts)
            events.append(ButtonSeen(ts=round(since, 3), table=self.table, source="vision", seat=button_seat))
        self.horizon = min(self.gestures.horizon(ts), ts - self.settle_lag_s)
        t3 = time.perf_counter()
        for key, dt in (("decode", t_decoded - t0), ("rectify", t1 - t_decoded), ("scene", t_scene - t1),
                        ("hand_finder", t2 - t_scene), ("events", t3 - t2)):
            self.timing[key] += dt
        self.timing["frames"] += 1
        return sorted(events, key=lambda e: e.ts)

    def _fits(self, image: np.ndarray, reduction: int) -> bool:
        """Whether a frame (reduced by ``reduction``) is the size the calibration is for."""
        assert self.plane is not None
        return (image.shape[1], image.shape[0]) == self.plane.frame_size(reduction)

    def _follow_size(self, whole: np.ndarray) -> None:
        """The camera delivers frames of another size than it was calibrated at. The same view at another
        resolution (a recorder set to a sub-stream, a camera's resolution changed) keeps its calibration, scaled;
        another view (cropped, another aspect) is calibrated again from the markers, as at a first start."""
        assert self.calibration is not None
        size, calibrated = (whole.shape[1], whole.shape[0]), self.calibration.image_size
        if abs(size[0] / size[1] / (calibrated[0] / calibrated[1]) - 1.0) <= ASPECT_TOLERANCE:
            log.warning("%s: frames of %dx%d from a camera calibrated at %dx%d: its calibration scaled to them",
                        self.picture.camera, *size, *calibrated)
            self.recalibrate(scaled_calibration(self.calibration, size))
            return
        log.warning("%s: frames of %dx%d from a camera calibrated at %dx%d: another view, calibrated again from the "
                    "markers", self.picture.camera, *size, *calibrated)
        self.calibration, self.plane, self.view, self._last_done = None, None, None, None
        self.markers = MarkerCalibration(self.layout, frames=self.markers.frames, patience=self.markers.patience)

    def run(self, frames: Iterable[tuple[np.ndarray | Picture, float]]) -> list[Event]:
        """Every event of a whole stream of (frame, ts), flushed at the end."""
        out: list[Event] = []
        ts = 0.0
        for frame, ts in frames:
            out += self.process(frame, ts)
        out += self.flush(ts + 5.0)
        return sorted(out, key=lambda e: e.ts)

    def flush(self, ts: float) -> list[Event]:
        """Decide what still waits (call at the end of a stream, with a time past its last frame: at least
        ``decision_wait_s`` past it for every decision to be due)."""
        return sorted(self.gestures.decide(ts), key=lambda e: e.ts)

    @property
    def settle_lag_s(self) -> float:
        """How long before the frame it is seen in a thing came to rest: it held still ``still_s``, and moved
        last somewhere between two analysed frames."""
        return self.still_s + 0.5 * max(self.min_interval_s, 1 / 30)

    @property
    def decision_wait_s(self) -> float:
        """How long after a stream's last frame every decision still waiting on it is due."""
        config = self.gestures.config
        return max(config.decide_s, config.gather_gap_s) + self.min_interval_s

    def chip_value_at(self, centre_mm: tuple[float, float]) -> int | None:
        """The denomination of the chip top the camera shows at ``centre_mm`` in the last analysed frame (see
        ``SettleReader.chip_value_at``)."""
        assert self.view is not None and self._frame is not None
        return self.view.settles.chip_value_at(centre_mm, self._identity_source)

    def _colour_aligned(self, image: np.ndarray, hires: HiRes | None) -> tuple[np.ndarray, HiRes | None]:
        """The frame, and the maker of its higher resolution, with their colour planes moved back into line."""
        assert self.colour is not None
        alignment = self.colour
        if hires is not None:
            def aligned(source: HiRes = hires, width: int = image.shape[1]) -> np.ndarray:
                whole = source() if callable(source) else source
                return alignment.apply(whole, scale=max(1, round(whole.shape[1] / width)))
            hires = aligned
        return alignment.apply(image), hires

    def _identity_source(self) -> tuple[np.ndarray, TablePlane]:
        """The frame to crop cards from, and its plane: the high-resolution one when there is one."""
        assert self.plane is not None and self._frame is not None
        if callable(self._hires):
            self._hires = self._hires()  # made once per frame, and only when a card is to be read
        hires = self._hires
        if hires is None:
            return self._frame, self.plane
        size = (hires.shape[1], hires.shape[0])
        if size not in self._hires_planes:
            self._hires_planes[size] = TablePlane(scaled_calibration(self.plane.calibration, size), self.layout,
                                                  px_per_mm=0.05)  # only its crop() is used
            self._hires_planes[size].lighting = self._lit
        plane = self._hires_planes[size]
        scale = size[0] / self.plane.calibration.image_size[0]
        plane.shift = (self.plane.shift[0] * scale, self.plane.shift[1] * scale)
        return hires, plane

    def _lit(self, crop: np.ndarray, centre_mm: tuple[float, float]) -> np.ndarray:
        """A crop of the camera's frame corrected as the plane is for the light where it was taken (a card's
        index read under a lamp's pool of light as under even light)."""
        assert self.plane is not None
        x, y = (int(v) for v in self.plane.to_px(np.asarray(centre_mm, float)))
        return self.felt_light.correct_at(self.light.correct_at(crop, (x, y)), (x, y))

    def report_timing(self) -> dict[str, float]:
        n = max(1, int(self.timing["frames"]))
        return {k: 1000.0 * v / n for k, v in self.timing.items() if k != "frames"} | {"frames": n}


def decoded(frame: np.ndarray | Picture, reduction: int = 1) -> np.ndarray:
    """The pixels of a frame: an image as it is, a ``Picture`` decoded now (reduced by ``reduction``: 1, 2, 4
    or 8) and checked to be a BGR image."""
    if isinstance(frame, np.ndarray):
        return frame
    return _checked(frame.image if reduction == 1 else frame.reduced(reduction))


def _checked(frame: object) -> np.ndarray:
    if not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
        shape = getattr(frame, "shape", None)
        raise PerceptionError(f"a frame must be a BGR uint8 image (H, W, 3); got {type(frame).__name__} {shape}")
    return frame


def scaled_calibration(calibration: TableCalibration, size: tuple[int, int]) -> TableCalibration:
    """The calibration of the same camera at another resolution (a 4K frame of a camera calibrated at 720p)."""
    sx, sy = size[0] / calibration.image_size[0], size[1] / calibration.image_size[1]
    # pixel centres map to centres: x' = (x + 0.5) sx - 0.5
    h = calibration.h @ np.array([[1 / sx, 0.0, 0.5 / sx - 0.5], [0.0, 1 / sy, 0.5 / sy - 0.5], [0.0, 0.0, 1.0]])
    camera = calibration.camera.scaled_to(*size) if calibration.camera is not None else None
    markers = {m: [((x + 0.5) * sx - 0.5, (y + 0.5) * sy - 0.5) for x, y in corners]
               for m, corners in calibration.marker_pixels.items()}
    return calibration.model_copy(update={
        "image_size": size, "homography": tuple(tuple(float(v) for v in row) for row in h / h[2, 2]),
        "camera": camera, "mm_per_px": calibration.mm_per_px / max(sx, sy), "marker_pixels": markers})


def _hand_detector(px_per_mm: float) -> TableObjectDetector:
    """The table-objects detector that finds the hands the motion path misses, its scale checked now rather than
    at the first calibrated frame."""
    try:
        check_scale(px_per_mm)
    except ValueError as exc:
        raise PerceptionError(f"{exc}: pass hand_finder=False") from exc
    try:
        return region_detector()
    except DetectorError as exc:
        raise PerceptionError(f"no hand finder: {exc}") from exc


def _load_deck(deck: str | Deck | None) -> Deck | None:
    if deck is None or isinstance(deck, dict):
        return deck
    from tablewatch.calibration.decks import load_deck  # the shipped deck faces double as a venue's card templates

    try:
        return load_deck(deck)
    except FileNotFoundError as exc:
        raise PerceptionError(str(exc)) from exc

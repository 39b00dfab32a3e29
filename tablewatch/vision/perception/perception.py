"""``Perception``: frames of a calibrated overhead camera in, events of ``tablewatch.events`` out.

    perception = Perception(layout=load_layout("oval10"), table="T01", chips=chip_colours, deck="anglo_poker")
    # or Perception.from_profile(load_profile("T01.toml"), deck="anglo_poker")
    for frame, ts in frames:                       # BGR uint8, seconds on the table's clock, in order
        for event in perception.process(frame, ts):   # hires=4K frame (or a callable making it), optional
            ...
    perception.flush(ts_end)   # decisions still waiting for the table to settle

Calibration comes from the table's ArUco markers in the first ``calibration_frames`` frames (merged, via
``tablewatch.calibration.markers.calibrate_frames``) unless a ``TableCalibration`` is given (a table
profile's). Motion is analysed on the rectified plane at ``px_per_mm``, at most once per
``min_interval_s`` (frames in between return at once); card identity on a crop of the original frame, or
of ``hires`` when given. A frame may also come compressed (``tablewatch.vision.sources.Frame`` of a
Motion-JPEG camera or file): it is decoded only when analysed, reduced as far as the plane allows (a 4K frame
to a quarter), and in full only when a card's identity is read. A hand the motion path misses (an arm lost for
a moment, a hand reaching in before its arm shows) is looked for with the table-objects detector
(``hand_finder``; ``hand_finder=False`` turns that off). Events come out when they are certain: a
bet ~0.7 s after the hand leaves, a card ~0.4 s after it lands; every event's ``ts`` is when it happened,
not when it was reported.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any, Protocol

import cv2
import numpy as np

from tablewatch.calibration.camera import CalibrationError, TableCalibration
from tablewatch.calibration.chips import ChipColours
from tablewatch.calibration.layout import TableLayout
from tablewatch.calibration.markers import calibrate_frames
from tablewatch.calibration.profile import TableProfile
from tablewatch.events import Event
from tablewatch.vision.detector import DetectorError
from tablewatch.vision.perception.appearance import CARD_H, CARD_W, Appearance
from tablewatch.vision.perception.gestures import Found, Gestures, SettleKind
from tablewatch.vision.perception.hand_finder import HandFinder, check_scale, region_detector
from tablewatch.vision.perception.plane import TablePlane
from tablewatch.vision.perception.scene import Arm, SceneTracker, Settle
from tablewatch.vision.perception.stacks import StackWatch

CARD_AREA = CARD_W * CARD_H
SEVERAL_CARDS = 1.5  # a face-up region this many cards' area is several cards side by side
MATCH_SCORE = 0.3  # a face template's correlation with a card's crop above which it names the card
FACE_SCORE = 0.45  # ... above which the card is face up, whatever its colours say
CHIP_READ_MM = 15.0  # a chip top is read inside this radius (its rim blends with what lies beside it)
CHIP_READ_PX_PER_MM = 1.0  # enough to see a chip's body ring apart from its inlay and spots
FACES_MIN = 0.3  # share of paper-light pixels from which a region may be face-up cards (a face template decides)
HiRes = np.ndarray | Callable[[], np.ndarray]


class Picture(Protocol):
    """A frame decoded when looked at, whole or reduced (``tablewatch.vision.sources.Frame``)."""

    @property
    def image(self) -> np.ndarray: ...

    def reduced(self, factor: int) -> np.ndarray: ...


class PerceptionError(ValueError):
    """Frames that can't be used: not a colour image, a different size, or no calibration."""


class Perception:
    """Stateful: feed frames in time order with ``process``; events come out when they are certain."""

    def __init__(self, *, layout: TableLayout, table: str, chips: ChipColours, deck: str | dict | None = None,
                 calibration: TableCalibration | None = None, calibration_frames: int = 3, px_per_mm: float = 0.3,
                 still_s: float = 0.35, min_interval_s: float = 0.09, hand_in_progress: bool = False,
                 calibration_patience: int = 150, seats: Iterable[int] | None = None,
                 hand_finder: bool = True) -> None:
        self.layout, self.table, self.px_per_mm, self.still_s = layout, table, px_per_mm, still_s
        self.chips = chips
        self.deck = _load_deck(deck)
        self.calibration = calibration
        self.calibration_frames = calibration_frames
        self.calibration_patience = calibration_patience  # frames without enough markers before giving up
        self.seats = sorted(seats) if seats is not None else None  # occupied seats, when known
        unknown = set(self.seats or ()) - set(layout.seat_numbers)
        if unknown:
            raise PerceptionError(f"seat(s) {sorted(unknown)} are not in layout {layout.name!r} "
                                  f"(seats {layout.seat_numbers})")
        self._failures = 0
        self._pending: list[np.ndarray] = []
        self.plane: TablePlane | None = None
        self.scene: SceneTracker | None = None
        self.look: Appearance | None = None
        self.stacks: StackWatch | None = None
        try:  # the hand finder's scale, checked now rather than at the first calibrated frame
            if hand_finder:
                check_scale(px_per_mm)
        except ValueError as exc:
            raise PerceptionError(f"{exc}: pass hand_finder=False") from exc
        try:  # the table-objects detector finds hands the motion path misses
            self.hand_detector = region_detector() if hand_finder else None
        except DetectorError as exc:
            raise PerceptionError(f"no hand finder: {exc}") from exc
        self.hand_finder: HandFinder | None = None
        self.gestures = Gestures(layout, table=table, hand_in_progress=hand_in_progress)
        self.min_interval_s = min_interval_s
        self._last_done: float | None = None
        self._frame: np.ndarray | None = None
        self._hires: HiRes | None = None
        self._hires_planes: dict[tuple[int, int], TablePlane] = {}
        self._last_ts: float | None = None
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
    def from_profile(cls, profile: TableProfile, *, deck: str | dict | None = None, **options: Any) -> Perception:
        """Perception for a calibrated table: layout, calibration and chip colours from its profile."""
        if profile.chips is None:
            raise PerceptionError(f"the profile of table {profile.table} has no chip colours: calibrate them from "
                                  "a tray photo first (tablewatch calibrate)")
        return cls(layout=profile.load_layout(), table=profile.table, chips=profile.chips, deck=deck,
                   calibration=profile.calibration, **options)

    # --- set-up -----------------------------------------------------------------------------------------

    def _start(self, calibration: TableCalibration) -> None:
        self.calibration = calibration
        self.plane = TablePlane(calibration, self.layout, px_per_mm=self.px_per_mm)
        self.scene = SceneTracker(self.plane, still_s=self.still_s, seats=self.seats)
        if self.hand_detector is not None:
            self.hand_finder = HandFinder(self.plane, self.scene.origins, self.hand_detector)

    def recalibrate(self, calibration: TableCalibration) -> None:
        """Go on with a new calibration of the same camera (it was knocked and has settled).

        The view of the table is rebuilt from the next frame (the old reference, felt colour and stacks were
        seen through the old homography); what the hand has shown so far (cards dealt, board) is kept.
        """
        self._start(calibration)
        self.look, self.stacks, self._last_done = None, None, None
        self._hires_planes.clear()

    def _calibrate(self, frame: np.ndarray) -> bool:
        self._pending.append(frame)
        if len(self._pending) < self.calibration_frames:
            return False
        try:
            calibration, _ = calibrate_frames(self._pending, self.layout)
        except CalibrationError as exc:
            self._pending = self._pending[1:]  # keep trying on the next frames
            self._failures += 1
            if self._failures >= self.calibration_patience:
                raise PerceptionError(f"no table calibration after {self._failures + len(self._pending)} frames: "
                                      f"{exc}") from exc
            return False
        self._pending = []
        self._start(calibration)
        return True

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
            _checked(frame)  # type: ignore[arg-type] (a Picture is checked once decoded)
        self._last_ts = ts
        if self.plane is None and not self._calibrate(decoded(frame)):
            return []
        if self._last_done is not None and ts - self._last_done < self.min_interval_s:
            return []  # analysis runs at about 1 / min_interval_s: motion between is slow enough to follow
        self._last_done = ts
        assert self.plane is not None and self.scene is not None
        t0 = time.perf_counter()
        reduction = 1 if isinstance(frame, np.ndarray) else self.plane.reduction()
        if reduction > 1 and hires is None:
            hires = lambda whole=frame: decoded(whole)  # noqa: E731 (card identity from the whole frame)
        image = decoded(frame, reduction)
        t_decoded = time.perf_counter()
        try:
            flat = self.plane.rectify(image, reduction=reduction)
        except ValueError as exc:
            raise PerceptionError(str(exc)) from exc
        t1 = time.perf_counter()
        arms, settles = self.scene.update(flat, ts)
        t_scene = time.perf_counter()
        if self.hand_finder is not None:
            arms = self.hand_finder.update(ts, flat, arms, self.scene.unowned)
        self.analysed = (ts, flat, arms)
        t2 = time.perf_counter()
        if self.look is None:
            felt = np.median(flat[self.plane.felt & (self.plane.lines == 0)], axis=0)
            self.look = Appearance(felt_bgr=felt, chips=self.chips, deck=self.deck, px_per_mm=self.px_per_mm)
            self.stacks = StackWatch(self.plane, self.look)
            look = self.look
            self.scene.card_like = lambda bgr: np.logical_or(*look.card_like(bgr))
            self.scene.chip_like = look.chip_like
        self._frame, self._hires = image, hires
        events = self.gestures.arms(ts, arms)
        for settle in settles:
            for found in self._classify(settle):
                events += self.gestures.settled(found)
        events += self.gestures.decide(ts)
        for seat in self.gestures.chips_moved:
            self.stacks.reset(seat)
        self.gestures.chips_moved.clear()
        events += self.gestures.obscured(ts, self.stacks.update(ts, flat, self.scene.ref))
        self.horizon = min(self.gestures.horizon(ts), ts - self.settle_lag_s)
        t3 = time.perf_counter()
        for key, dt in (("decode", t_decoded - t0), ("rectify", t1 - t_decoded), ("scene", t_scene - t1),
                        ("hand_finder", t2 - t_scene), ("events", t3 - t2)):
            self.timing[key] += dt
        self.timing["frames"] += 1
        return sorted(events, key=lambda e: e.ts)

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

    # --- what came to rest ------------------------------------------------------------------------------------

    def _classify(self, s: Settle) -> list[Found]:
        """What came to rest (or left): one finding, or one per card when face-up cards settle together."""
        found = self._classify_one(s)
        if found.what != SettleKind.CARD_IN or not found.face_up or s.area_mm2 < SEVERAL_CARDS * CARD_AREA:
            return [found]
        assert self.plane is not None
        several = []
        for card, at in self._identify_several(s):
            zone = self.plane.layout.zone_at(*at)  # a board slot is each card's own; elsewhere the region's zone
            several.append(Found(t=found.t, zone=zone if zone.startswith("board.") else found.zone,
                                 what=SettleKind.CARD_IN, face_up=True, card=card, centre=at))
        return several or [found]

    def _classify_one(self, s: Settle) -> Found:
        assert self.look is not None and self.plane is not None
        t = s.t - self.settle_lag_s
        after, before = s.after[s.mask], s.before[s.mask]
        back, face = self.look.card_like(after)
        backs, faces = float(back.mean()), float(face.mean())
        cardish = float((back | face).mean())
        b_back, b_face = self.look.card_like(before)
        was_card = float((b_back | b_face).mean()) >= 0.5
        strip = 0.08 * CARD_AREA <= s.area_mm2 < 0.3 * CARD_AREA and faces < 0.3
        if strip and (cardish >= 0.5 or (s.zone == "burn" and self._burn_strip(after, back))):
            return Found(t=t, zone=s.zone, what=SettleKind.CARD_ON_CARD, centre=s.centre_mm)
        if cardish >= 0.5 and s.area_mm2 >= 0.3 * CARD_AREA:
            up, card = self._face_up(s, backs, faces)
            return Found(t=t, zone=s.zone, what=SettleKind.CARD_IN, face_up=up, card=card, centre=s.centre_mm)
        pictures = faces >= max(FACES_MIN, backs) and s.area_mm2 >= 0.6 * CARD_AREA
        if pictures and (read := self._faces_match(s)) is not None:
            return Found(t=t, zone=s.zone, what=SettleKind.CARD_IN, face_up=True, card=read or None,
                         centre=s.centre_mm)
        if float(self.look.felt_like(after).mean()) >= 0.6:
            if was_card:
                return Found(t=t, zone=s.zone, what=SettleKind.CARD_OUT, centre=s.centre_mm)
            return Found(t=t, zone=s.zone, what=SettleKind.CHIPS_OUT, chips=self.look.chip_counts(before),
                         centre=s.centre_mm)
        chips = self.look.chip_counts(after)
        what = SettleKind.CHIPS_IN if chips else SettleKind.OTHER
        return Found(t=t, zone=s.zone, what=what, chips=chips, centre=s.centre_mm)

    def _faces_match(self, s: Settle) -> str | None:
        """Face-up cards whose pictures leave under half their pixels paper-light (court cards, a hand tabled
        with chips beside it) still match their face templates: the card read ("" when several cards lie
        there, each read later), or None when no face matches."""
        if s.area_mm2 >= SEVERAL_CARDS * CARD_AREA:
            return "" if self._identify_several(s, min_score=FACE_SCORE) else None
        card, score = self._read(s)
        return card if score >= FACE_SCORE else None

    def _burn_strip(self, after: np.ndarray, back: np.ndarray) -> bool:
        """A burn dropped onto the burn pile shows only the narrow strips it sticks out by, many of whose pixels
        mix the card's edge with the felt. Only cards go there, so the back's colours need not fill them."""
        assert self.look is not None
        return float(back.mean()) >= 0.25 and float((back | self.look.card_edge(after)).mean()) >= 0.5

    def _face_up(self, s: Settle, back: float, face: float) -> tuple[bool, str | None]:
        """Is the card that came to rest face up, and which is it.

        Colour decides when one side clearly dominates. A light patterned back blends into a tint the faces'
        ink can show too, so when neither does, the card's identity decides: a face matches its template
        (scores 0.55-0.85 on 720p frames), a back matches none (0.3 at most).
        """
        if back > face and face < 0.5 * back:
            return False, None
        card, score = self._read(s)
        up = face > back or score >= FACE_SCORE
        return up, card if up and score > MATCH_SCORE else None

    def _read(self, s: Settle) -> tuple[str | None, float]:
        """The best-matching face for a crop of the original frame, upright along the card's long side."""
        assert self.look is not None and self.plane is not None and self._frame is not None
        ys, xs = np.nonzero(s.mask)
        pts = np.stack([xs + s.box[0], ys + s.box[1]], axis=1).astype(np.float32)
        (cx, cy), (w, h), angle = cv2.minAreaRect(pts)
        if w > h:
            angle += 90.0
        centre = self.plane.to_mm(np.array([cx, cy]))
        image, plane = self._identity_source()
        native = 1.0 / max(plane.calibration.mm_per_px, 1e-3)
        scale = min(2.4, 1.5 * native)
        coarse = (float(centre[0]), float(centre[1])), angle
        best: tuple[str | None, float] = (None, 0.0)
        tries = [coarse] if plane is self.plane else [coarse, self._refine(image, plane, *coarse, scale)]
        for at, turn in tries:  # at full resolution, also a crop centred on the card itself; the better one wins
            crop = plane.crop(image, at, size_mm=(CARD_W, CARD_H), px_per_mm=scale, angle_deg=turn)
            best = max(best, self.look.identify(crop), key=lambda r: r[1])
        return best

    def _identify_several(self, s: Settle, *, min_score: float = MATCH_SCORE) -> list[tuple[str, tuple[float, float]]]:
        """Face-up cards laid side by side that settled as one region (a hand tabled, a flop spread
        touching): (card, centre) of each one read, best first.

        The cards lie in a row along the region's long side: a card-sized crop slides along that row and
        the best-read distinct cards, a card's width apart, are kept.
        """
        assert self.look is not None and self.plane is not None
        ys, xs = np.nonzero(s.mask)
        pts = np.stack([xs + s.box[0], ys + s.box[1]], axis=1).astype(np.float32)
        (cx, cy), (w, h), angle = cv2.minAreaRect(pts)
        row = np.radians(angle if w >= h else angle + 90.0)  # the row's direction; the cards upright across it
        length = max(w, h) / self.plane.scale
        count = max(2, round(s.area_mm2 / CARD_AREA))
        centre = self.plane.to_mm(np.array([cx, cy]))
        image, plane = self._identity_source()
        scale = min(2.4, 1.5 / max(plane.calibration.mm_per_px, 1e-3))
        turn = float(np.degrees(row))
        read: list[tuple[float, str, tuple[float, float]]] = []
        for offset in np.linspace(-1.0, 1.0, 2 * count + 1) * max(0.0, length - CARD_W) / 2:
            at = (float(centre[0] + offset * np.cos(row)), float(centre[1] + offset * np.sin(row)))
            tries = [(at, turn)] if plane is self.plane else [(at, turn), self._refine(image, plane, at, turn, scale)]
            for where, a in tries:
                card, score = self.look.identify(plane.crop(image, where, size_mm=(CARD_W, CARD_H), px_per_mm=scale,
                                                            angle_deg=a))
                if card is not None and score > min_score:
                    read.append((score, card, where))
        chosen: list[tuple[str, tuple[float, float]]] = []
        for _, card, at in sorted(read, key=lambda r: -r[0]):
            if all(card != c and np.hypot(at[0] - a[0], at[1] - a[1]) >= 0.6 * CARD_W for c, a in chosen):
                chosen.append((card, at))
        return chosen[:count]

    def _refine(self, image: np.ndarray, plane: TablePlane, centre: tuple[float, float], angle: float,
                scale: float) -> tuple[tuple[float, float], float]:
        """Centre the crop on the card itself: its face is the light rectangle in a slightly larger crop.

        The coarse plane places a card to a few millimetres; a full-resolution crop needs better.
        """
        assert self.look is not None
        margin = 14.0
        wide = plane.crop(image, centre, size_mm=(CARD_W + 2 * margin, CARD_H + 2 * margin), px_per_mm=scale,
                          angle_deg=angle)
        back, face = self.look.card_like(wide.reshape(-1, 3))
        mask = (back | face).reshape(wide.shape[:2]).astype(np.uint8)
        n, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
        if n < 2:
            return centre, angle
        k = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
        ys, xs = np.nonzero(labels == k)
        if len(xs) < 0.5 * CARD_AREA * scale**2:
            return centre, angle
        (cx, cy), (w, h), a = cv2.minAreaRect(np.stack([xs, ys], axis=1).astype(np.float32))
        if w > h:
            a -= 90.0
        a = (a + 45.0) % 90.0 - 45.0  # the turn left to make, whatever way minAreaRect reports it
        du, dv = (cx - wide.shape[1] / 2) / scale, (cy - wide.shape[0] / 2) / scale
        r = np.radians(angle)
        dx, dy = du * np.cos(r) - dv * np.sin(r), du * np.sin(r) + dv * np.cos(r)
        return (centre[0] + float(dx), centre[1] + float(dy)), angle + float(a)

    def chip_value_at(self, centre_mm: tuple[float, float]) -> int | None:
        """The denomination of the chip top the camera shows at ``centre_mm`` in the last analysed frame, read
        from the high-resolution frame when there is one: at the plane's 0.3 px/mm a black chip on grey felt
        is a grey blur, at 1 px/mm its body ring shows."""
        assert self.look is not None and self._frame is not None
        image, plane = self._identity_source()
        scale = min(CHIP_READ_PX_PER_MM, 1.0 / max(plane.calibration.mm_per_px, 1e-3))
        side = 2 * CHIP_READ_MM
        crop = plane.crop(image, centre_mm, size_mm=(side, side), px_per_mm=scale)
        h, w = crop.shape[:2]
        yy, xx = np.ogrid[:h, :w]
        disc = (xx - (w - 1) / 2) ** 2 + (yy - (h - 1) / 2) ** 2 <= (CHIP_READ_MM * scale) ** 2
        return self.look.chip_value(crop[disc])

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
        return hires, self._hires_planes[size]

    def report_timing(self) -> dict[str, float]:
        n = max(1, int(self.timing["frames"]))
        return {k: 1000.0 * v / n for k, v in self.timing.items() if k != "frames"} | {"frames": n}


def decoded(frame: np.ndarray | Picture, reduction: int = 1) -> np.ndarray:
    """The pixels of a frame: an image as it is, a ``Picture`` decoded now (reduced by ``reduction``: 1, 2, 4
    or 8) and checked to be a BGR image."""
    if isinstance(frame, np.ndarray):
        return frame
    return _checked(frame.image if reduction == 1 else frame.reduced(reduction))


def _checked(frame: np.ndarray) -> np.ndarray:
    if not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
        shape = getattr(frame, "shape", None)
        raise PerceptionError(f"a frame must be a BGR uint8 image (H, W, 3); got {type(frame).__name__} {shape}")
    return frame


def scaled_calibration(calibration: TableCalibration, size: tuple[int, int]) -> TableCalibration:
    """The calibration of the same camera at another resolution (a 4K frame of a camera calibrated at 720p)."""
    sx, sy = size[0] / calibration.image_size[0], size[1] / calibration.image_size[1]
    h = calibration.h @ np.diag([1 / sx, 1 / sy, 1.0])
    camera = calibration.camera.scaled_to(*size) if calibration.camera is not None else None
    return calibration.model_copy(update={
        "image_size": size, "homography": tuple(tuple(float(v) for v in row) for row in h / h[2, 2]),
        "camera": camera, "mm_per_px": calibration.mm_per_px / max(sx, sy), "marker_pixels": {}})


def _load_deck(deck: str | dict | None) -> dict | None:
    if deck is None or isinstance(deck, dict):
        return deck
    from tablewatch.sim.assets import load_deck  # the shipped deck faces double as a venue's card templates

    try:
        return load_deck(deck)
    except FileNotFoundError as exc:
        raise PerceptionError(str(exc)) from exc

"""The room's light and the camera's exposure, read off the white paper of the calibration markers on the rail.

Perception judges colours against fixed looks (a card's paper is light, the felt is its colour), which hold for a
camera exposed as at calibration. A dimmer room, a camera whose auto-exposure swings when a dark sleeve fills the
view, or lamps that light one side of the table more than the other move every colour. The markers' paper is the
same white wherever they lie, so on each analysed plane its brightness at each marker tells the light there; a
plane fitted through them spreads that over the table (light falling off across it), and each pixel is scaled by
the gain that brings the paper under that light back to ``PAPER_WHITE``. A marker a hand or an arm covers reads
darker than the others and is left out; with fewer than three in view one level serves the whole table, with none
the last one stands.

A lamp's hot spot or flare in the lens adds light rather than scaling it: the markers' black ink reads grey. Once
that grey is clearly above the ink's own black (``INK_BLACK``) it is taken off every pixel, whole, before the gain
(spread over the table as the paper's level is), so the veil goes and the colours under it come back. Paper clipped
white says only that the light is at least that bright: its gain is held at 1 or less, and a pixel clipped white at
the camera is taken as white paper, or as white as the last frame showed it where that was whiter.

The light followed settles over ``SETTLE_S`` (one frame's reading is noisy), but lamps on the mains flicker, and a
camera with a short exposure catches each frame at another moment of the swing: when the markers shown read
brighter or darker than the followed light by ``FLASH_STEP`` or more, that frame is brought back by its own level
(read off the felt, darker, where the swing clips the paper white: such a frame does not move the light followed).

The paper is white in every channel, so it also tells a colour cast: a tungsten lamp, or a camera's white balance
set for other light, shows it tinted. Each channel is brought back by its share of the paper's grey (once any is
off by ``BALANCE_STEP``), so the felt, the chips and the cards keep the colours they were calibrated in.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, replace

import cv2
import numpy as np

from tablewatch.calibration.chips import saturation
from tablewatch.vision.perception.plane import TablePlane

PAPER_WHITE = 232.0  # the grey level the markers' paper is brought to (a well-exposed camera's white)
PAPER_PERCENTILE = 90  # a marker's paper: this percentile of the grey levels over it and its quiet zone
COVERED = 0.75  # a marker whose paper reads under this share of the markers' median is covered
FADED = 0.5  # ... and one whose paper and ink differ by under this share of the markers' median difference: a
# light sleeve over it reads nearly as bright as paper but shows no ink, where light added over a marker (a veil)
# lifts its ink and paper alike and leaves their difference
GAIN_LIMITS = (0.5, 4.0)  # beyond these the picture is past saving: clipped white, or noise
SETTLE_S = 0.3  # the gain follows the light with this time constant (one frame's reading is noisy) ...
FLASH_STEP = 0.02  # ... and a frame whose markers all read this much brighter or darker is taken as it is (flicker)
FELT_SAMPLE = 7  # the felt's level is read off every 7th of its pixels (a median: plenty)
COLOUR_SAMPLE = 4  # the table's colour is read off every 4th pixel of every 4th row of the plane
COLOUR_PERCENTILE = 99  # ... its most colourful pixels: the chips in the tray and on the felt, the red suits
INK_PERCENTILE = 5  # a marker's black ink: this percentile of the grey levels over it
INK_BLACK = 20.0  # printed black on a well-exposed camera reads at most this: from twice it, all light added
CLIPPED = 250  # a grey level this bright was clipped at the camera (255 less its noise and compression)
NEAR_WHITE = 240  # ... and one this bright may have been: compression and the plane's resampling spread clipped
# white paper over 235-255 (a lamp's bright flicker: half a card's paper reads under 250)
BALANCE_STEP = 0.04  # a channel of the paper this far off its grey is a colour cast (compression's tint is less)
FIELD_STEP = 8  # the light's fields are worked out every 8 pixels each way and spread between (they are smooth)
SWING_FRAMES = 15  # the light's swing from frame to frame is judged over this many analysed frames ...
FLICKERING = 0.15  # ... and from this swing on, lamps flicker (the felt's median moves ~1 % by noise, and a hand
# over the felt or the exposure drifting move it little)


@dataclass(frozen=True)
class Reading:
    """One frame's light before correction: the paper's grey level at each marker in view, and the felt's level
    (the median over the felt of each pixel's brightest channel); and how colourful the felt is after it. What
    ``picture`` judges a picture by."""

    papers: np.ndarray
    felt: float
    colour: float = 255.0  # how colourful the table's most colourful pixels are (``colour_of``), at paper white
    swing: float = 0.0  # the felt's level from one frame to the next, the median relative change over the last
    # ``SWING_FRAMES`` (lamps on the mains caught at another moment of their flicker each frame; a hand over the
    # felt or the exposure drifting moves it little)
    saturation: float | None = None  # how colourful the felt is once corrected (``chips.saturation`` of its median
    # colour; ``LightMeter.correct``)


def colour_of(picture: np.ndarray) -> float:
    """How colourful the table's most colourful pixels are: the ``COLOUR_PERCENTILE`` of the difference between a
    pixel's brightest and darkest channels, over a sample of the plane (about 0 in a black-and-white picture, and
    well over 50 where a chip's colour shows)."""
    b, g, r = cv2.split(np.ascontiguousarray(picture[::COLOUR_SAMPLE, ::COLOUR_SAMPLE]))
    return percentile_u8(cv2.max(cv2.max(b, g), r) - cv2.min(cv2.min(b, g), r), COLOUR_PERCENTILE, empty=255.0)


def sampled(picture: np.ndarray, at_px: np.ndarray) -> np.ndarray:
    """These pixels of a BGR picture (flat indices) as one column, (N, 1, 3), the form cv2 takes."""
    pixels: np.ndarray = picture.reshape(-1, 1, 3)[at_px]
    return pixels


def felt_saturation(felt: np.ndarray) -> float | None:
    """How colourful the felt is: ``saturation`` of the median of each channel over these felt pixels
    (``sampled``); None when there are none."""
    if not len(felt):
        return None
    return saturation([percentile_u8(channel, 50) for channel in cv2.split(felt)])


def felt_level(felt: np.ndarray) -> float:
    """The felt's brightness: the median of the brightest channel of these felt pixels (``sampled``; most of the
    felt is bare whatever lies on it), 0 when there are none."""
    return percentile_u8(channel_max(felt), 50) if len(felt) else 0.0


def channel_max(picture: np.ndarray) -> np.ndarray:
    """Per pixel, the largest of the three channels (cv2, much faster than numpy's max over an axis)."""
    b, g, r = cv2.split(picture)
    brightest: np.ndarray = cv2.max(cv2.max(b, g), r)
    return brightest


def percentile_u8(values: np.ndarray, q: float, *, empty: float = 0.0) -> float:
    """``np.percentile(values, q)`` of 8-bit values, read off their histogram (no sort: several times faster on
    the tens of thousands of pixels read each frame); ``empty`` when there are none."""
    counts = np.cumsum(np.bincount(values.ravel(), minlength=256))
    n = int(counts[-1])
    if n == 0:
        return empty
    at = q / 100 * (n - 1)  # numpy's linear interpolation between the two values nearest this rank
    below = int(at)
    low, high = np.searchsorted(counts, (below, min(below + 1, n - 1)), side="right")
    return float(low + (at - below) * (int(high) - int(low)))


class LightMeter:
    """The light over the table, from the markers' paper, kept up to date frame by frame."""

    def __init__(self, plane: TablePlane) -> None:
        layout = plane.layout
        quiet = layout.marker_quiet_zone_mm
        self.boxes: list[tuple[slice, slice]] = []
        centres = []
        height, width = plane.size[1], plane.size[0]
        for marker in layout.markers:
            corners = np.asarray(marker.corners, float)
            lo, hi = plane.to_px(corners.min(axis=0) - quiet), plane.to_px(corners.max(axis=0) + quiet)
            lo, hi = np.maximum(lo, 0), np.minimum(hi, (width, height))
            if (hi - lo).min() >= 2:
                self.boxes.append((slice(lo[1], hi[1]), slice(lo[0], hi[0])))
                centres.append(((lo + hi) / 2) / (width, height) * 2 - 1)  # -1 … 1 across the plane
        self.centres = np.asarray(centres, float).reshape(-1, 2)
        self.size = (width, height)
        coarse = (-(-width // FIELD_STEP), -(-height // FIELD_STEP))
        # the coarse grid's pixels where cv2.resize puts them on the plane's (pixel centres to pixel centres)
        xs = ((np.arange(coarse[0], dtype=np.float32) + 0.5) * width / coarse[0] - 0.5) / width * 2 - 1
        ys = ((np.arange(coarse[1], dtype=np.float32) + 0.5) * height / coarse[1] - 0.5) / height * 2 - 1
        self.xs, self.ys = np.meshgrid(xs, ys)
        self.felt_px = np.flatnonzero(plane.felt.ravel() > 0)[::FELT_SAMPLE]
        self.reading = Reading(np.zeros(0), 0.0)  # the last frame's
        self.shown = np.zeros((0, 2))  # ... the centres of the markers it was read at (-1 … 1 across the plane)
        self.coefficients: np.ndarray | None = None  # the paper's grey level = a + b·x + c·y over the plane
        self.veil: np.ndarray | None = None  # light added over the picture = d + e·x + f·y (the ink's grey)
        self.tint = np.ones(3)  # the paper's B, G, R as shares of its grey: (1, 1, 1) under white light
        self.flash = 1.0  # this frame's light over the light followed (a lamp's flicker)
        self.felt_followed = 0.0  # the felt's level followed as the light is
        self.swings: deque[float] = deque(maxlen=SWING_FRAMES)  # the felt's level over the last frame's, less 1
        self.t: float | None = None
        self.last: np.ndarray | None = None  # the plane as last corrected

    @property
    def gain(self) -> float:
        """The gain at the table's centre (1: as at a well-exposed camera)."""
        return PAPER_WHITE / float(self.coefficients[0]) if self.coefficients is not None else 1.0

    def correct(self, flat: np.ndarray, ts: float) -> np.ndarray:
        """The plane as a well-exposed camera under even light would show it. The reading's felt saturation is
        read off it: with a lamp's veil and a colour cast taken off, what is left is the camera's colour setting."""
        measured = self._follow(flat, ts)
        corrected = flat if self.coefficients is None else self._corrected(flat, measured=measured)
        self.reading = replace(self.reading, saturation=felt_saturation(sampled(corrected, self.felt_px)))
        return corrected

    def _follow(self, flat: np.ndarray, ts: float) -> bool:
        """Read this frame's light (``reading``) and follow it; False when no marker shows."""
        measured = self._measure(flat)
        if measured is not None and not self._flashed_white():
            keep = 0.0 if self.coefficients is None or self.t is None else math.exp(-(ts - self.t) / SETTLE_S)
            paper, veil, tint = measured
            if self.coefficients is None or self.veil is None:
                self.coefficients, self.veil, self.tint = paper, veil, tint
                self.felt_followed = self.reading.felt
            else:
                self.coefficients = keep * self.coefficients + (1 - keep) * paper
                self.veil = keep * self.veil + (1 - keep) * veil
                self.tint = keep * self.tint + (1 - keep) * tint
                self.felt_followed = keep * self.felt_followed + (1 - keep) * self.reading.felt
            self.t = ts
        return measured is not None

    def _corrected(self, flat: np.ndarray, *, measured: bool) -> np.ndarray:
        """``flat`` brought back by the light followed (and this frame's flash, when ``measured``)."""
        assert self.veil is not None
        self.flash = self._flash() if measured else 1.0
        veil, gains = self._light_at(self.xs, self.ys)
        coarse_gains = (gains[..., None] / self.cast()).astype(np.float32)
        channel_gains = self._spread_out(coarse_gains)
        darkened = float(coarse_gains.min()) < 1.0  # (spreading never goes below the coarse least)
        if self.veil.any():
            corrected = _exposed(flat, self._spread_out(veil)[..., None], channel_gains)
        else:
            corrected = cv2.multiply(flat, channel_gains, dtype=cv2.CV_8U)  # (rounded, saturated)
            if darkened:  # (a lamp's bright flicker, an overexposed camera: see _exposed)
                white = cv2.inRange(flat, (CLIPPED,) * 3, (255,) * 3)
                cv2.copyTo(cv2.max(corrected, np.full(3, PAPER_WHITE)), white, corrected)
        if darkened:
            self._hold_white(flat, corrected)
        self.last = corrected.copy()
        return corrected

    def _hold_white(self, flat: np.ndarray, corrected: np.ndarray) -> None:
        """Pixels that may have been clipped white (``NEAR_WHITE``), in a frame the gain brings down, as bright as
        the last frame showed them where that was brighter. Clipped, a pixel is at least as bright as its gain
        makes it, by how much is unknown; the last frame's level is seen, not made up. A card's paper, whiter than
        the markers', stays as white through a lamp's bright flicker instead of greying one frame in three."""
        if self.last is None or self.last.shape != corrected.shape:
            return
        near = cv2.inRange(flat, (NEAR_WHITE,) * 3, (255,) * 3)
        if cv2.countNonZero(near):
            cv2.copyTo(cv2.max(corrected, self.last), near, corrected)

    def _spread_out(self, field: np.ndarray) -> np.ndarray:
        """A field worked out on the coarse grid (``FIELD_STEP``) over every pixel of the plane."""
        spread: np.ndarray = cv2.resize(field, self.size, interpolation=cv2.INTER_LINEAR)
        return spread

    def cast(self) -> np.ndarray:
        """What each channel is divided by to take off a colour cast: the paper's tint, or 1 under white light
        (within ``BALANCE_STEP``)."""
        tint = np.asarray(self.tint, np.float32)
        return tint if float(np.abs(tint - 1.0).max()) >= BALANCE_STEP else np.ones(3, np.float32)

    def correct_at(self, picture: np.ndarray, at_px: tuple[int, int]) -> np.ndarray:
        """A small picture taken at ``at_px`` of the plane (a card's crop from the camera's frame) as ``correct``
        would show it, the light there held for the whole of it."""
        if self.coefficients is None or self.veil is None:
            return picture
        width, height = self.size
        veil, gain = self._light_at(np.float32(at_px[0] / width * 2 - 1), np.float32(at_px[1] / height * 2 - 1))
        return _exposed(picture, float(veil), float(gain) / self.cast())

    def _light_at(self, x: np.ndarray | np.floating, y: np.ndarray | np.floating) -> tuple[np.ndarray, np.ndarray]:
        """The veil and the gain at plane positions ``x``, ``y`` (-1 … 1 across the plane)."""
        assert self.coefficients is not None and self.veil is not None
        a, b, c = self.coefficients
        d, e, f = self.veil
        veil = np.maximum(d + e * x + f * y, 0.0)
        paper = (a + b * x + c * y) * self.flash
        return veil, np.clip(PAPER_WHITE / np.maximum(paper - veil, 1.0), *GAIN_LIMITS)

    def _flashed_white(self) -> bool:
        """Lamps flicker, and this frame is one of the bright ones that clip the markers' paper white: its paper says
        only that the light is at least that bright, so the light followed is kept as it was, for the felt's level
        to tell the flash against (the felt's level is followed alike). A camera whose exposure rises clips the
        paper for good and swings little: the light followed goes on following it."""
        reading = self.reading
        return (self.coefficients is not None and len(reading.papers) > 0 and float(reading.papers.max()) >= CLIPPED
                and reading.swing >= FLICKERING and reading.felt / max(self.felt_followed, 1.0) - 1.0 >= FLASH_STEP)

    def _flash(self) -> float:
        """This frame's light over the light followed so far: the median over the markers shown of their paper now
        over the paper the followed light puts there. The followed light settles over ``SETTLE_S``, a lamp's
        flicker swings from one frame to the next; a change under ``FLASH_STEP`` is the paper's own noise."""
        papers, centres = self.reading.papers, self.shown
        if not len(papers) or self.coefficients is None:
            return 1.0
        if papers.max() >= CLIPPED:  # paper clipped white tells no more light: the felt, darker, still does
            flash = self.reading.felt / max(self.felt_followed, 1.0)
        else:
            a, b, c = self.coefficients
            followed = a + b * centres[:, 0] + c * centres[:, 1]
            flash = float(np.median(papers / np.maximum(followed, 1.0)))
        return flash if abs(flash - 1.0) >= FLASH_STEP else 1.0

    def _measure(self, flat: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """(a, b, c) of the paper's grey level and (d, e, f) of the veil's, each as a plane through the uncovered
        markers, and the paper's tint (``tint``); None when no marker shows."""
        grey = cv2.cvtColor(flat, cv2.COLOR_BGR2GRAY)
        levels = np.array([np.percentile(grey[box], (INK_PERCENTILE, PAPER_PERCENTILE)) for box in self.boxes],
                          float).reshape(-1, 2)  # each marker's ink and paper
        papers = levels[:, 1]
        level = float(np.median(papers)) if len(papers) else 0.0
        contrast = papers - levels[:, 0]
        typical = float(np.median(contrast)) if len(contrast) else 0.0
        shown = (papers >= COVERED * level) & (contrast >= FADED * typical)
        felt = felt_level(sampled(flat, self.felt_px))
        colour = colour_of(flat) * PAPER_WHITE / max(level, 1.0)  # (as bright as a well-exposed camera shows it)
        if self.reading.felt > 0 and felt > 0:
            self.swings.append(abs(felt / self.reading.felt - 1.0))
        swing = float(np.median(self.swings)) if len(self.swings) == SWING_FRAMES else 0.0
        self.reading = Reading(papers[shown], felt, colour, swing)
        self.shown = self.centres[shown]
        if level < 8 or not shown.any():  # no marker in view, or no light at all: nothing to read the gain from
            return None
        veils = _veil(levels[shown, 0])
        # clipped paper is at least as bright as it reads: no more gain than 1 over what the veil leaves of it
        papers = np.where(papers[shown] >= CLIPPED, np.maximum(papers[shown], veils + PAPER_WHITE), papers[shown])
        return self._spread(papers, shown), self._spread(veils, shown), self._tint(flat, shown, levels[shown, 1])

    def _tint(self, flat: np.ndarray, shown: np.ndarray, papers: np.ndarray) -> np.ndarray:
        """The paper's B, G, R as shares of its grey, the median over the markers shown (a channel clipped white
        reads no brighter than 255: under a strong cast its share is a little short)."""
        boxes = [box for box, seen in zip(self.boxes, shown, strict=True) if seen]
        channels = np.array([np.percentile(flat[box].reshape(-1, 3), PAPER_PERCENTILE, axis=0) for box in boxes])
        return np.median(channels / np.maximum(papers, 1.0)[:, None], axis=0)

    def _spread(self, values: np.ndarray, shown: np.ndarray) -> np.ndarray:
        """(a, b, c) of ``values`` at the markers shown as a plane a + b·x + c·y over the table (one level for all
        with fewer than three)."""
        if shown.sum() < 3:
            return np.array([float(np.median(values)), 0.0, 0.0])
        design = np.column_stack([np.ones(int(shown.sum())), self.centres[shown]])
        solution, *_ = np.linalg.lstsq(design, values, rcond=None)
        return np.asarray(solution, float)


def _veil(ink: np.ndarray) -> np.ndarray:
    """The light added over the picture, from the markers' black ink as it reads: none while the ink is as dark as
    printed black reads (``INK_BLACK``), all of the ink's grey from twice that on (the ink's own black is then a
    small part of it), and a ramp between, so a lamp's veil growing does not jump."""
    return np.clip(2.0 * (ink - INK_BLACK), 0.0, ink)


def _exposed(picture: np.ndarray, veil: np.ndarray | float, gain: np.ndarray | float) -> np.ndarray:
    """``picture`` with ``veil`` taken off and brought up by ``gain``; a pixel clipped white stays white paper,
    however much brighter it was."""
    out = (picture - veil) * gain
    white = (picture.min(axis=2) >= CLIPPED)[..., None]
    return np.clip(np.where(white, np.maximum(out, PAPER_WHITE), out), 0, 255).astype(np.uint8)

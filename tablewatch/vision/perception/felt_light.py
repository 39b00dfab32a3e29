"""Light that changes across the middle of the table, read off the felt: a lamp's hot spot over the pot.

The light meter (``light``) reads the light at the markers on the rail and spreads it over the table as a plane, which
a pendant lamp's pool of light in the middle of the table is not. The felt is one colour all over, so where it reads
brighter or darker than it does by the rail, the light there differs. Each cell of felt is fitted as the felt's colour
by the rail under a gain and an added grey (``reading = gain · felt + added``: white light scales every channel alike
and adds to each alike, and a coloured felt's three channels tell the two apart); the fields are smoothed over the
table, filled in under what hides the felt, and each pixel is brought back to how it would look by the rail.

Only felt-coloured pixels are read (cards, chips, arms and the printed lines are not felt), each cell's median twice
a second, followed over a few seconds: a lamp does not move, and an arm's shadow passing over a cell must not be taken
for it. Under even light the cells differ by little more than the felt's weave and the lens's fall-off; below
``EVEN_GREY`` nothing is changed. White paper stays white: under a lamp it is clipped, and how far is unknown.

Someone standing between a lamp and the table casts a shadow that crosses it in a few seconds: too fast to follow, and
its edge, moving, would pass for motion and its darkness for something on the felt. So the felt is also read on
every frame, and where a wide part of it (``PASSING_CELLS``; an arm's own shadow is a few cells) reads ``PASSING_STEP``
or more darker or brighter than the light followed there, that part is brought back by the ratio, smoothed over the
table as the fields are; the cells under it follow it only slowly (``PASSING_S``), so a shadow that stays, or a lamp
switched on, is learnt in the end.
"""

from __future__ import annotations

import cv2
import numpy as np

from tablewatch.vision.perception.light import PAPER_WHITE
from tablewatch.vision.perception.plane import TablePlane

CELL_MM = 40.0  # the felt is read in squares this size
EDGE_MM = 60.0  # ... this far inside its edge
SMOOTH_CELLS = 1.5  # the fields are smoothed over this many cells (a lamp's pool is wider than a chip stack)
SETTLE_S = 2.0  # the fields follow the light with this time constant
MEASURE_S = 0.5  # the felt is read this often
SAMPLE = 3  # ... from every this many pixels each way
HUE_TOLERANCE = 10  # a felt pixel's hue within this of the felt's (OpenCV's 0–180 hue)
MIN_SATURATION = 40  # ... and at least this saturated (cards, chips' white and the rail are not felt)
MIN_FELT_SHARE = 0.4  # a cell is read when this share of it is felt
RAIL_SHARE = 0.3  # the felt's colour is that of the darkest this share of cells (the rail's side of any lamp)
EVEN_GREY = 12.0  # with 19 cells in 20 this close (grey levels) to the felt's colour the light is even
RIDGE = 0.05  # pulls an ill-conditioned cell's fit toward no change (gain 1, nothing added)
PASSING_STEP = 0.06  # a cell of felt this much darker or brighter than the light followed there is in a passing shade
PASSING_CELLS = 40  # ... heeded when this many cells are (0.06 m² of felt: a person's shadow, not an arm's)
PASSING_S = 20.0  # a cell in a passing shade follows the light with this time constant
PASSED_S = 1.5  # a shade passed this recently may still be in what comes to rest now (it held still a while first)
MODE_BIN = 0.02  # the light over most of the felt is told to within this share


class FeltLight:
    """The light over the felt, cell by cell, kept up to date frame by frame."""

    def __init__(self, plane: TablePlane) -> None:
        self.size = plane.size  # (width, height) of the plane in pixels
        self.cell = max(4, round(CELL_MM * plane.scale))
        self.grid = (max(1, self.size[0] // self.cell), max(1, self.size[1] // self.cell))
        lines = cv2.dilate(plane.lines, np.ones((5, 5), np.uint8))  # (their anti-aliased edges are no felt either)
        edge = max(1, round(EDGE_MM * plane.scale))  # the rail's shadow darkens the felt beside it
        disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * edge + 1, 2 * edge + 1))
        inner = cv2.erode((plane.felt > 0).astype(np.uint8), disc)
        self.felt = ((inner > 0) & (lines == 0))[:self.grid[1] * self.cell, :self.grid[0] * self.cell]
        self.hue: float | None = None
        self.cells: np.ndarray | None = None  # each cell's felt colour (grid h × w × 3), NaN where unread
        self.t: float | None = None
        self.fields: tuple[np.ndarray, np.ndarray] | None = None  # per-pixel gain and added grey, when uneven
        self.passing: np.ndarray | None = None  # per-pixel light now over the light followed, in a passing shade
        self.passing_at = float("-inf")  # when a passing shade was last over the felt

    def correct(self, flat: np.ndarray, ts: float) -> np.ndarray:
        """``flat`` as it would look were the light over the felt as even as by the rail."""
        now = self._read(flat)
        self.passing, shaded = self._passing(now) if self.cells is not None else (None, None)
        self.passing_at = ts if self.passing is not None else self.passing_at
        if self.t is None or ts - self.t >= MEASURE_S:
            self._follow(now, ts, shaded)
        if self.fields is None and self.passing is None:
            return flat
        gain, added = self.fields if self.fields is not None else (np.float32(1.0), np.float32(0.0))
        if self.passing is not None:
            gain = gain * self.passing
        return self._even(flat, np.asarray(gain)[..., None], np.asarray(added)[..., None])

    def shade_passing(self, ts: float) -> bool:
        """A passing shade is over the felt at ``ts``, or was a moment before."""
        return ts - self.passing_at <= PASSED_S

    def correct_at(self, picture: np.ndarray, at_px: tuple[int, int]) -> np.ndarray:
        """A small picture taken at ``at_px`` of the plane (a card's crop) as ``correct`` would show it, the light
        there held for the whole of it."""
        if self.fields is None and self.passing is None:
            return picture
        x = min(max(at_px[0], 0), self.size[0] - 1)
        y = min(max(at_px[1], 0), self.size[1] - 1)
        gain, added = (1.0, 0.0) if self.fields is None else (float(self.fields[0][y, x]), float(self.fields[1][y, x]))
        if self.passing is not None:
            gain *= float(self.passing[y, x])
        return self._even(picture, gain, added)

    @staticmethod
    def _even(picture: np.ndarray, gain: np.ndarray | float, added: np.ndarray | float) -> np.ndarray:
        out = (picture - added) / gain
        white = (picture.min(axis=2) >= PAPER_WHITE)[..., None]  # paper, clipped under the lamp by how much unknown
        return np.clip(np.where(white, np.maximum(out, picture), out), 0, 255).astype(np.uint8)

    def _follow(self, now: np.ndarray, ts: float, shaded: np.ndarray | None) -> None:
        """The light followed, brought toward this frame's cells (those ``shaded`` by a passing shade slowly)."""
        if self.cells is None or self.t is None:
            self.cells = now
        else:
            settle = SETTLE_S if shaded is None else np.where(shaded, PASSING_S, SETTLE_S)
            keep = np.exp(-(ts - self.t) / np.asarray(settle))[..., None]
            self.cells = np.where(np.isnan(self.cells), now,
                                  np.where(np.isnan(now), self.cells, keep * self.cells + (1 - keep) * now))
        self.t = ts
        self.fields = self._fields(self.cells)

    def _read(self, flat: np.ndarray) -> np.ndarray:
        """Each cell's felt colour in this plane (grid h × w × 3), NaN where too little of it shows felt."""
        (gw, gh), c = self.grid, self.cell
        # every SAMPLE-th pixel of each cell each way: a median of a dozen felt pixels reads a cell well enough
        part = flat[:gh * c, :gw * c].reshape(gh, c, gw, c, 3)[:, ::SAMPLE, :, ::SAMPLE]
        felt = self.felt.reshape(gh, c, gw, c)[:, ::SAMPLE, :, ::SAMPLE]
        hsv = cv2.cvtColor(np.ascontiguousarray(part).reshape(-1, 1, 3), cv2.COLOR_BGR2HSV).reshape(part.shape)
        if self.hue is None:
            self.hue = float(np.median(hsv[..., 0][felt]))
        hue_off = np.abs(hsv[..., 0].astype(np.int16) - int(self.hue))
        felt_like = felt & (np.minimum(hue_off, 180 - hue_off) <= HUE_TOLERANCE) & (hsv[..., 1] >= MIN_SATURATION)
        share = felt_like.mean(axis=(1, 3))
        cells: np.ndarray = np.where((share >= MIN_FELT_SHARE)[..., None], _cell_medians(part, felt_like), np.nan)
        return cells

    def _shade(self, now: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each cell's felt now over the light followed there, over most cells' and smoothed over the table as
        the fields are (a camera's noise and a cell's few pixels average out; 1 where unread), and the cells read
        that are in a shade by it."""
        assert self.cells is not None
        read = ~np.isnan(now[..., 0]) & ~np.isnan(self.cells[..., 0])
        level = np.where(read, np.nan_to_num(self.cells).mean(axis=2), 1.0)
        ratio = np.where(read, np.nan_to_num(now).mean(axis=2) / np.maximum(level, 1.0), 1.0)
        if read.any():  # the whole table lit otherwise is the light meter's to follow; a shade covers a part of it
            ratio = np.where(read, ratio / _most_common(ratio[read]), 1.0)
        smoothed = _fill(ratio.astype(np.float32), read, 1.0)
        return smoothed, read & (np.abs(smoothed - 1.0) >= PASSING_STEP)

    def _passing(self, now: np.ndarray) -> tuple[np.ndarray, np.ndarray] | tuple[None, None]:
        """Where a passing shade covers a wide part of the felt: the light now over the light followed, per pixel,
        and the cells in the shade; (None, None) when none does."""
        ratio, shaded = self._shade(now)
        return (self._per_pixel(ratio), shaded) if int(shaded.sum()) >= PASSING_CELLS else (None, None)

    def _fields(self, cells: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """Per-pixel gain and added grey from the cells' colours; None when the felt is evenly lit."""
        read = ~np.isnan(cells[..., 0])
        if read.sum() < 4:
            return None
        colours = cells[read]
        brightness = colours.sum(axis=1)
        base = np.median(colours[brightness <= np.quantile(brightness, RAIL_SHARE)], axis=0)  # the felt's colour
        if np.quantile(np.abs(colours - base).mean(axis=1), 0.95) < EVEN_GREY:
            return None
        gain, added = _fit(np.nan_to_num(cells), base)
        return self._per_pixel(_fill(gain, read, 1.0)), self._per_pixel(_fill(added, read, 0.0), low=None)

    def _per_pixel(self, per_cell: np.ndarray, *, low: float | None = 0.25) -> np.ndarray:
        """A field of cells over the plane's pixels (the plane's few past the last cells take their values), held
        at ``low`` or more."""
        (gw, gh), c = self.grid, self.cell
        whole = (gw * c, gh * c)
        field = cv2.resize(per_cell, whole, interpolation=cv2.INTER_LINEAR)
        field = np.pad(field, ((0, self.size[1] - whole[1]), (0, self.size[0] - whole[0])), mode="edge")
        return field if low is None else np.maximum(field, low)


def _most_common(ratios: np.ndarray) -> float:
    """The ratio most cells share: the median of those in the fullest bin ``MODE_BIN`` wide and its two neighbours (a
    shade, soft-edged, spreads its cells over many bins; the felt out of it stands in one)."""
    bins = np.floor(ratios / MODE_BIN).astype(np.int64)
    values, counts = np.unique(bins, return_counts=True)
    fullest = values[counts.argmax()]
    return max(float(np.median(ratios[np.abs(bins - fullest) <= 1])), 1e-3)


def _cell_medians(part: np.ndarray, felt_like: np.ndarray) -> np.ndarray:
    """Each cell's median colour over its felt pixels (``part``: cells × samples × cells × samples × 3, 8-bit); NaN
    in a cell with none. (Sorted with the others at 255, last, and the median taken among the felt's: numpy's
    nanmedian is ten times slower. A felt pixel at 255 sorts with them, and is 255 where it lands.)"""
    gh, sh, gw, sw = felt_like.shape
    values = np.where(felt_like[..., None], part, np.uint8(255)).transpose(0, 2, 4, 1, 3).reshape(gh, gw, 3, sh * sw)
    values = np.sort(values, axis=-1)
    count = felt_like.sum(axis=(1, 3))
    middle = np.maximum(count - 1, 0) // 2
    medians = np.take_along_axis(values, np.broadcast_to(middle[:, :, None, None], (gh, gw, 3, 1)), axis=-1)[..., 0]
    return np.where(count[..., None] > 0, medians, np.nan)


def _fit(cells: np.ndarray, base: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each cell's (gain, added) with cell = gain · base + added over its three channels: least squares, pulled
    toward no change (1, 0) by ``RIDGE`` of each unknown's own weight (a grey felt can't tell the two apart)."""
    design = np.column_stack([base, np.ones(3)])  # 3 channels × (gain, added)
    data = design.T @ design
    pull = RIDGE * np.diag(np.diag(data))
    rhs = cells.reshape(-1, 3) @ design + pull @ np.array([1.0, 0.0])
    solution = np.linalg.solve(data + pull, rhs.T).T
    h, w = cells.shape[:2]
    return solution[:, 0].reshape(h, w).astype(np.float32), solution[:, 1].reshape(h, w).astype(np.float32)


def _fill(values: np.ndarray, read: np.ndarray, default: float) -> np.ndarray:
    """``values`` smoothed over the cells read, and filled in from them where the felt was hidden (a median over
    each cell's neighbours for a stack of felt-green chips, then a normalised Gaussian: each cell the weighted mean
    of the read cells around it)."""
    values = cv2.medianBlur(np.where(read, values, default).astype(np.float32), 3)
    weights = read.astype(np.float32)
    smoothed = cv2.GaussianBlur(np.where(read, values, 0).astype(np.float32), (0, 0), SMOOTH_CELLS)
    norm = cv2.GaussianBlur(weights, (0, 0), SMOOTH_CELLS)
    return np.where(norm > 1e-3, smoothed / np.maximum(norm, 1e-3), default).astype(np.float32)

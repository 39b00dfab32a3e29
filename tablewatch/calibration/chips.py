"""Chip colours of a venue's chip set, learned from one top-down photo of the dealer's tray.

The tray holds one denomination per column (tube), left to right in an order the venue states
(``--denominations 25,100,500,1000,5000``). Chips are told from the tray by their colour distance to
the tray's own border colour; the picture is then cut along x into as many stretches as there are
denominations, each as near one mix of colours as can be (see ``_segments``), and each stretch must be
one colour unlike its neighbours. Colours are kept in CIELAB (OpenCV's 8-bit scale), where distances
follow what people see, with each denomination's spread so classification can say "none of these".

A chip's body colour is not the median of its pixels: edge spots, the printed ring, the inlay and the
stack's darker side take up much of a chip seen from above (the simulator's yellow 1000 shows more black
spot and side than yellow). ``_body`` reads a chip with a colour (at least ``COLOURED_SHARE`` of its pixels
with chroma ``CHROMATIC`` or more) by its coloured pixels alone, so white or black spots and rings never
compete with the body; a neutral chip (black, white, grey) by all of them. Among those it takes the
densest colour, each pixel counting ``1 + chroma / CHROMA_SCALE``: the stack's side is a darker, less
saturated shade of the body and the inlay a paler one, so the body is the densest and most saturated.
A density peak, unlike a fixed number of clusters, is not split when one colour fills most of the chip.
Learning and classifying a chip's pixels use the same estimate, so a chip in a frame is measured the way
the tray was. Known limit: a neutral body with strongly coloured spots (white with red spots) is read by
its spots.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import cv2
import numpy as np
import numpy.typing as npt
from pydantic import Field

from tablewatch.config import StrictModel

BACKGROUND_DISTANCE = 30.0  # Lab units: a pixel this far from the tray colour is chip
MERGE_DISTANCE = 18.0  # neighbouring runs closer than this are one denomination
MIN_PIXELS = 20  # fewer chip pixels than this in a column: no chips there
MAX_SPREAD = 40.0  # a column whose pixels stray further than this from its median mixes colours
LIGHTNESS_WEIGHT = 0.5  # light over a table varies more in brightness than in hue: L counts half
MIN_SPREAD = 8.0
COLOUR_BIN = 12.0  # Lab units (L at half weight): colour cells for cutting the tray and finding a chip's body
COLOUR_STEP = 0.15  # the felt's chroma this far off its own when the chips were learned: the camera's colour moved
FAINTEST = 0.3  # ... though not below this share of it: colours that faint are past scaling back (the picture says so)
LIGHTNESS_STEP = 8.0  # ... and only with the felt's lightness this near its own (Lab, 8-bit scale): a colour setting
# keeps lightness, where light the meters did not take off (a lamp's pool, exposure past the paper's clipping) moves
# lightness and chroma together, and the chips' chroma by other shares than the felt's

# The named colours (BGR) of the chip sets tablewatch ships: the demo venue's and the simulator's.
CHIP_PAINTS: dict[str, tuple[int, int, int]] = {
    "white": (235, 235, 235),
    "red": (40, 30, 200),
    "green": (50, 140, 30),
    "black": (30, 30, 30),
    "purple": (130, 40, 110),
    "yellow": (30, 200, 230),
    "orange": (20, 120, 240),
    "blue": (170, 80, 20),
    "pink": (170, 120, 240),
    "brown": (40, 70, 110),
    "grey": (140, 140, 140),
}


class PaintedChip(Protocol):
    """A denomination painted in one of ``CHIP_PAINTS`` (``spots``: the colour of its edge spots)."""

    @property
    def value(self) -> int: ...

    @property
    def colour(self) -> str: ...

    @property
    def spots(self) -> str: ...


@dataclass(frozen=True)
class ShippedChip:
    value: int
    colour: str
    spots: str = "white"


DEMO_CHIPS: tuple[ShippedChip, ...] = (
    ShippedChip(25, "green"),
    ShippedChip(100, "black"),
    ShippedChip(500, "purple"),
    ShippedChip(1000, "yellow", spots="black"),
    ShippedChip(5000, "orange"),
)
MAX_CUT_POSITIONS = 600  # a wider tray photo is cut between groups of columns (keeps the search quick)
CHROMATIC = 20.0  # Lab chroma from which a pixel has a colour (the simulator's felt: 47, its black chip: under 10)
COLOURED_SHARE = 1 / 3  # a chip with at least this share of coloured pixels is read by them alone (see ``_body``)
CHROMA_SCALE = 30.0  # Lab chroma at which a pixel counts twice toward the body colour (see ``_body``)


class ChipColour(StrictModel):
    value: int = Field(gt=0, description="Denomination in the table's smallest unit.")
    lab: tuple[float, float, float] = Field(description="Median colour, CIELAB on OpenCV's 8-bit scale.")
    bgr: tuple[int, int, int] = Field(description="The same colour as 8-bit BGR, for drawing.")
    spread: float = Field(gt=0, description="Typical distance of this chip's pixels from ``lab``.")


class ChipColours(StrictModel):
    """The venue's chip set by colour; ``classify`` names a denomination from a colour or a patch."""

    source: str = Field(default="", description="Where the colours came from (a photo, the simulator).")
    chips: list[ChipColour] = Field(min_length=1)
    felt: tuple[float, float, float] | None = Field(
        default=None, description="The felt's colour (CIELAB, OpenCV's 8-bit scale) as the camera showed it when "
        "the chips were learned: a camera whose colour setting has moved since shows the felt otherwise.")

    def felt_saturation(self) -> float | None:
        """How colourful the felt was when the chips were learned (``saturation``); None when not recorded."""
        if self.felt is None:
            return None
        lab = np.clip(np.round(self.felt), 0, 255).astype(np.uint8).reshape(1, 1, 3)
        return saturation(cv2.cvtColor(lab, cv2.COLOR_Lab2BGR).reshape(3))

    def with_felt(self, felt_bgr: npt.ArrayLike) -> ChipColours:
        """These colours with the felt's as the camera showed it with them (``felt``)."""
        return self.model_copy(update={"felt": _t3(_lab_of(np.asarray([felt_bgr], np.float32))[0])})

    def seen_with(self, felt_bgr: npt.ArrayLike) -> ChipColours:
        """These colours as a camera shows them that shows the felt in ``felt_bgr`` (its light corrected): with the
        camera's colour turned down (or up) since the chips were learned, every colour's chroma moves toward grey
        (or away) by the share the felt's did. Unchanged within ``COLOUR_STEP``, below ``FAINTEST``, with the felt's
        lightness moved too (``LIGHTNESS_STEP``), or when the felt was not recorded with the chips."""
        if self.felt is None:
            return self
        felt, learned = _lab_of(np.asarray([felt_bgr], np.float32))[0], np.asarray(self.felt)
        scale = _chroma(felt) / max(_chroma(learned), 1.0)
        if abs(scale - 1.0) < COLOUR_STEP or scale < FAINTEST or abs(felt[0] - learned[0]) >= LIGHTNESS_STEP:
            return self
        chips = [chip.model_copy(update={"lab": _t3(_chroma_scaled(np.asarray(chip.lab), scale))})
                 for chip in self.chips]
        return self.model_copy(update={"chips": chips})

    def classify(self, bgr: Sequence[float], *, max_distance: float = 3.0) -> int | None:
        """The denomination whose colour is nearest (in units of its spread), or None when none is close."""
        return self._nearest(_lab_of(np.asarray([bgr], np.float32))[0], max_distance)

    def classify_patch(self, patch_bgr: np.ndarray, *, max_distance: float = 3.0) -> int | None:
        """Classify a crop of one chip (its box) by the body colour of the disc inscribed in it (no felt corners)."""
        h, w = patch_bgr.shape[:2]
        yy, xx = np.mgrid[0:h, 0:w]
        disc = np.hypot(yy - (h - 1) / 2, xx - (w - 1) / 2) <= min(h, w) / 2
        return self.classify_pixels(patch_bgr[disc], max_distance=max_distance)

    def classify_pixels(self, pixels_bgr: np.ndarray, *, max_distance: float = 3.0) -> int | None:
        """Classify one chip's own pixels ((N, 3) BGR, e.g. under a detector's mask) by their body colour."""
        pixels = np.asarray(pixels_bgr).reshape(-1, 3)
        if not len(pixels):
            raise ValueError("No chip pixels to classify (an empty crop or mask).")
        lab = _lab_of(pixels)
        return self._nearest(np.median(_body(lab), axis=0), max_distance)

    def _nearest(self, lab: np.ndarray, max_distance: float) -> int | None:
        best, best_d = None, np.inf
        for chip in self.chips:
            d = float(colour_distance(lab, np.asarray(chip.lab))) / chip.spread
            if d < best_d:
                best, best_d = chip.value, d
        return best if best_d <= max_distance else None

    def values(self) -> list[int]:
        return [c.value for c in self.chips]


class ChipColourError(ValueError):
    """The tray photo could not be read as the stated chip set."""


def learn_from_tray(tray_bgr: np.ndarray, denominations: Sequence[int], *, source: str = "tray photo") -> ChipColours:
    """Chip colours from a top-down crop of the tray, columns left to right in ``denominations`` order."""
    if tray_bgr.ndim != 3 or tray_bgr.shape[0] < 8 or tray_bgr.shape[1] < 8:
        raise ChipColourError(f"The tray image is too small or not a colour image (shape {tray_bgr.shape}).")
    if len(set(denominations)) != len(denominations) or not denominations:
        raise ChipColourError(f"Give each denomination once, in tray order; got {list(denominations)}.")
    lab = _lab_of(tray_bgr.reshape(-1, 3).astype(np.float32)).reshape(tray_bgr.shape)
    background = np.median(_border(lab), axis=0)
    mask = np.linalg.norm(lab - background, axis=2) > BACKGROUND_DISTANCE
    mask = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)).astype(bool)
    segments = _segments(lab, mask, len(denominations))
    _check_segments(segments, denominations)
    chips = [_chip(value, pixels) for value, pixels in zip(denominations, segments, strict=True)]
    _check_neighbours(chips)
    return ChipColours(source=source, chips=chips)


def from_palette(
    palette: Mapping[int, Sequence[int]], *, source: str = "palette", spread: float = MIN_SPREAD
) -> ChipColours:
    """Chip colours from known BGR colours (e.g. the simulator's chip set)."""
    chips = []
    for value, bgr in sorted(palette.items()):
        lab = _lab_of(np.asarray([bgr], np.float32))[0]
        chips.append(ChipColour(value=value, lab=_t3(lab), bgr=_b3(bgr), spread=spread))
    return ChipColours(source=source, chips=chips)


def painted_chip_colours(chips: Iterable[PaintedChip] = DEMO_CHIPS, *,
                         felt_bgr: Sequence[int] | None = None) -> ChipColours:
    """The colours of a chip set painted in the named ``CHIP_PAINTS`` (the demo venue's unless given), as a
    calibration would learn them: how the simulated venue's chips are registered without a tray photo.
    ``felt_bgr``: the felt's paint, the colour a camera that shows the chips so shows it."""
    colours = from_palette({c.value: CHIP_PAINTS[c.colour] for c in chips}, source="shipped chip paints")
    return colours if felt_bgr is None else colours.with_felt(felt_bgr)


def _segments(lab: np.ndarray, mask: np.ndarray, k: int) -> list[np.ndarray]:
    """Cut the image into ``k`` stretches along x, each as near one mix of colours as can be (1-D dynamic programming).

    A stretch costs the bits needed to name its chip pixels' colours (binned ``COLOUR_BIN`` apart) with its own
    colour frequencies: a stretch of one denomination's chips (body, spots, inlay, side, in whatever shares) is
    cheap, and joining two denominations' colours costs about a bit per pixel, however near the colours are.
    A variance cost would rather cut a many-coloured chip (yellow, black spots, dark side) in two, pairing its
    body with a neighbour of a similar hue. Works whether the columns stand apart or touch (a tray photographed
    from far away blurs the gaps). Returns each stretch's chip pixels (Lab).
    """
    width = lab.shape[1]
    step = max(1, -(-width // MAX_CUT_POSITIONS))  # wide photos are cut between groups of ``step`` columns
    n_groups = -(-width // step)
    _, colour = np.unique(_cells(lab[mask]), axis=0, return_inverse=True)
    colour = colour.ravel()
    n_colours = int(colour.max()) + 1 if len(colour) else 1
    group = np.nonzero(mask)[1] // step  # row-major, as ``lab[mask]``
    hist = np.bincount(group * n_colours + colour, minlength=n_groups * n_colours).reshape(n_groups, n_colours)
    cum = np.vstack([np.zeros((1, n_colours)), np.cumsum(hist, axis=0)])

    # nats to name the colours of groups a..b-1, one code per stretch
    def cost(a: npt.NDArray[np.intp], b: int) -> npt.NDArray[np.float64]:
        h: npt.NDArray[np.float64] = cum[b] - cum[a]
        nats: npt.NDArray[np.float64] = _xlogx(h.sum(axis=1)) - _xlogx(h).sum(axis=1)
        return nats

    best = np.full((k + 1, n_groups + 1), np.inf)
    cut = np.zeros((k + 1, n_groups + 1), int)
    best[0, 0] = 0.0
    for j in range(1, k + 1):
        for b in range(j, n_groups + 1):
            a = np.arange(j - 1, b)
            options = best[j - 1, a] + cost(a, b)
            i = int(np.argmin(options))
            best[j, b], cut[j, b] = options[i], a[i]
    bounds, b = [], n_groups
    for j in range(k, 0, -1):
        bounds.append((cut[j, b] * step, min(b * step, width)))
        b = cut[j, b]
    return [lab[:, a:b][mask[:, a:b]] for a, b in reversed(bounds)]


def _xlogx(x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    result: npt.NDArray[np.float64] = x * np.log(np.maximum(x, 1.0))  # counts are whole numbers: 0 log 0 = 0
    return result


def _cells(lab: np.ndarray) -> npt.NDArray[np.int64]:
    """(N, 3) Lab → (N, 3) integer colour cells ``COLOUR_BIN`` wide (L at half weight, as in ``colour_distance``)."""
    cells: npt.NDArray[np.int64] = np.floor(lab * np.array([LIGHTNESS_WEIGHT, 1.0, 1.0]) / COLOUR_BIN).astype(np.int64)
    return cells


def _check_segments(segments: list[np.ndarray], denominations: Sequence[int]) -> None:
    """Each stretch must hold chips of one colour; else the count is wrong."""
    for value, pixels in zip(denominations, segments, strict=True):
        if len(pixels) < MIN_PIXELS:
            raise ChipColourError(_count_error(denominations, f"no chips where the {value} column should be"))
        if float(np.median(colour_distance(pixels, np.median(pixels, axis=0)))) > MAX_SPREAD:
            raise ChipColourError(_count_error(denominations, f"the {value} column holds more than one colour"))


def _check_neighbours(chips: list[ChipColour]) -> None:
    """Neighbouring stretches must differ in body colour (not in raw median: spots can outweigh a body)."""
    for c1, c2 in itertools.pairwise(chips):
        if float(colour_distance(np.asarray(c1.lab), np.asarray(c2.lab))) < MERGE_DISTANCE:
            why = f"the {c1.value} and {c2.value} columns look the same colour"
            raise ChipColourError(_count_error([c.value for c in chips], why))


def _count_error(denominations: Sequence[int], why: str) -> str:
    return (
        f"The tray does not show {len(denominations)} columns of different colours "
        f"({', '.join(map(str, denominations))}): {why}. Give one denomination per column, left to right."
    )


def _chip(value: int, pixels: np.ndarray) -> ChipColour:
    pixels = _body(pixels)
    centre = np.median(pixels, axis=0)
    spread = max(MIN_SPREAD, float(np.median(colour_distance(pixels, centre))) * 1.5)
    bgr = cv2.cvtColor(np.clip(centre, 0, 255).astype(np.uint8).reshape(1, 1, 3), cv2.COLOR_Lab2BGR).reshape(3)
    return ChipColour(value=value, lab=_t3(centre), bgr=_b3(bgr), spread=spread)


def _body(pixels: np.ndarray) -> np.ndarray:
    """The chip body's pixels among a chip's (Lab), see above: the chip's densest colour, each pixel counting
    ``1 + chroma / CHROMA_SCALE``, among its coloured pixels when it has a colour; returns the pixels near it."""
    chroma = np.hypot(pixels[:, 1] - 128.0, pixels[:, 2] - 128.0)
    coloured = chroma >= CHROMATIC
    if coloured.mean() >= COLOURED_SHARE:
        pixels, chroma = pixels[coloured], chroma[coloured]
    if len(pixels) < 2 * MIN_PIXELS:
        return pixels
    cells, which = np.unique(_cells(pixels), axis=0, return_inverse=True)
    which = which.ravel()
    weight = np.bincount(which, weights=1.0 + chroma / CHROMA_SCALE)
    near = np.abs(cells[:, None, :] - cells[None, :, :]).max(axis=2) <= 1  # a cell and its 26 neighbours
    densest = int(np.argmax(near @ weight))
    body: np.ndarray = pixels[near[densest][which]]
    return body


def colour_distance(lab_a: npt.ArrayLike, lab_b: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Distance in Lab with lightness down-weighted (a shadow or a bright lamp moves mostly L)."""
    d = np.asarray(lab_a, np.float64) - np.asarray(lab_b, np.float64)
    d[..., 0] *= LIGHTNESS_WEIGHT
    distance: npt.NDArray[np.float64] = np.linalg.norm(d, axis=-1)
    return distance


def saturation(bgr: npt.ArrayLike) -> float:
    """How colourful a colour is whatever its brightness: its brightest channel less its darkest, over its brightest
    (0 for grey, 1 for a pure colour; a camera's gain leaves it, its colour setting scales it)."""
    channels = np.asarray(bgr, np.float64).reshape(3)
    return float((channels.max() - channels.min()) / max(channels.max(), 1.0))


def _chroma(lab: np.ndarray) -> float:
    """How colourful a Lab colour is (OpenCV's 8-bit scale: a and b about 128 for grey)."""
    return float(np.hypot(lab[1] - 128.0, lab[2] - 128.0))


def _chroma_scaled(lab: np.ndarray, scale: float) -> np.ndarray:
    """A Lab colour with its chroma scaled toward grey (below 1) or away, its lightness and hue kept."""
    return np.array([lab[0], 128.0 + (lab[1] - 128.0) * scale, 128.0 + (lab[2] - 128.0) * scale])


def _lab_of(bgr: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """(N, 3) BGR 0..255 → (N, 3) Lab on OpenCV's 8-bit scale, as float."""
    pix = np.clip(np.asarray(bgr, np.float32), 0, 255).astype(np.uint8).reshape(-1, 1, 3)
    return cv2.cvtColor(pix, cv2.COLOR_BGR2Lab).reshape(-1, 3).astype(np.float32)


def _border(image: np.ndarray, width: int = 3) -> np.ndarray:
    return np.concatenate(
        [image[:width].reshape(-1, 3), image[-width:].reshape(-1, 3), image[:, :width].reshape(-1, 3),
         image[:, -width:].reshape(-1, 3)]
    )  # fmt: skip


def _t3(v: Sequence[float] | np.ndarray) -> tuple[float, float, float]:
    return (round(float(v[0]), 2), round(float(v[1]), 2), round(float(v[2]), 2))


def _b3(v: Sequence[float]) -> tuple[int, int, int]:
    return (int(v[0]), int(v[1]), int(v[2]))

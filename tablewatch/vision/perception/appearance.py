"""What a settled region looks like: a card (face up or back), chips by denomination, or bare felt.

Back or face comes from the venue's deck itself (``card_look``): the back's colours as the plane shows them
(a fine pattern blends into a tint there), the faces' light paper, and colour histograms of both for the
colours they share. When colour leaves it open, ``Perception`` asks whether a face template matches.
Card identity is template matching: the rectified crop of a face-up card (from the original frame, at
its own resolution) is compared with every face of the venue's deck resampled to the same size, both
ways up; the best normalised correlation wins. Chips are counted by colour against the venue's chip
colour profile (``calibration.chips.ChipColours``): only chip tops are seen from above, so a column
counts as one chip (see the package docstring).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import cv2
import numpy as np

from tablewatch.calibration.chips import ChipColours

CARD_W, CARD_H = 63.0, 88.0
CARDS_APART = 0.6 * CARD_W  # mm: face-up cards read with their centres closer than this are one card read twice
CHIP_DIAMETER = 39.0
FELT_DISTANCE = 28.0  # Lab units: closer than this to the felt is felt
BACK_DISTANCE = 22.0  # Lab units: this close to one of the back's colours (as the plane shows them) may be a back
EDGE_DISTANCE = 18.0  # grey levels: this close to a mix of felt and a card colour is a card's edge
PAPER_GAP = 14.0  # Lab units: a back colour this close to the paper's cannot tell a back from a face
BACK_COLOURS = 8  # the back's colours: k-means centres of its pixels at the plane's and twice its resolution
HISTOGRAM_SHIFT = 4  # colour histograms of 16 levels a channel
HISTOGRAM_BINS = 256 >> HISTOGRAM_SHIFT
CHIP_DISTANCE = 4.5  # in units of a chip colour's spread
CHIP_TOP_SHARE = 0.15  # of a chip top's pixels in its denomination's colour (inlay, spots and print show others)
ALIGN_CANDIDATES = 4  # faces scoring within ALIGN_GAP of the best are told apart on the crop aligned to each
ALIGN_GAP = 0.08
ALIGN_MAX_WARP = 0.15  # an alignment that scales, shears or shifts a card by more than this is rejected
# A face whose suit's sibling (clubs/spades, diamonds/hearts: the same shape but for the pip) aligns within this of it
# is not told apart from it: at 720p under a 1 px blur every misread lay within 0.015, and a fifth to a third of the
# right reads (faces of every shipped deck seen as the camera shows them, ``tests/perception/test_decks.py``)
UNSURE_MARGIN = 0.02
SUIT_SIBLING = {"c": "s", "s": "c", "d": "h", "h": "d"}
# A camera out of focus, or its picture softened by compression, blurs the ink further than its resolution does: the
# faces are also compared blurred this much (camera pixels), and the blur they match best decides. Under a 1 px blur
# that misreads 15 of 260 faces rather than 23, and as many as before of a sharp picture's (2).
FACE_BLURS_PX = (0.0, 0.8)
# An overexposed picture (the paper clipped white: auto-exposure opening up on a dark scene) pales the ink: faces are
# also compared as drawn this much brighter, clipped (the light meter brings the paper back, not the ink's shape).
OVEREXPOSED_GAIN = 1.6
LAB_WEIGHTS = np.array([0.4, 1.0, 1.0], np.float32)  # lightness counts less: light drifts, corners are darker


def _lab(bgr: np.ndarray) -> np.ndarray:
    px = np.asarray(bgr, np.uint8).reshape(-1, 1, 3)
    return cv2.cvtColor(px, cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.float32)


def _weighted(lab: np.ndarray) -> np.ndarray:
    """Lab with lightness weighted 0.4: brightness drifts and vignetting move colours mostly along L."""
    return lab * LAB_WEIGHTS


def _resampled_pixels(card: np.ndarray, px_per_mm: float) -> np.ndarray:
    """The BGR pixels of a BGRA card image wholly inside the card, shrunk to ``px_per_mm`` as a camera would."""
    size = (max(2, round(CARD_W * px_per_mm)), max(2, round(CARD_H * px_per_mm)))
    small = cv2.resize(card, size, interpolation=cv2.INTER_AREA)
    inside: np.ndarray = small[small[..., 3] == 255][:, :3]
    return inside


class Identity(NamedTuple):
    """A card's face as read: the deck's face (None: no deck), its score, and the face it may as well be."""

    card: str | None
    score: float
    rival: str | None = None


class CardLook(NamedTuple):
    """A deck's colours as the plane shows them."""

    paper: np.ndarray  # weighted Lab of the light colour most of every face shows
    back: np.ndarray  # (n, 3) weighted Lab colours of the back, none near the paper
    back_likelier: np.ndarray  # per BGR histogram bin: is the colour likelier on the back than on a face


def card_look(deck: dict[str, np.ndarray], px_per_mm: float) -> CardLook:
    """What a deck's faces and back look like on the plane.

    The card images are shrunk to the plane's resolution and twice it (a fine pattern blends into tints there;
    which tints depends on where the pixel grid falls). The back's colours are k-means centres of its pixels;
    one near the paper is left out, as it cannot tell a back from a face (the white frame round many backs).
    A colour both show (the red of a red back and of the hearts, the blue of a back and of a court picture)
    goes to the side that shows more of it: colour histograms of backs and faces.
    """
    faces = np.concatenate([_resampled_pixels(img, s * px_per_mm) for code, img in deck.items() if code != "back"
                            for s in (1.0, 2.0)])  # fmt: skip
    face_lab = _weighted(_lab(faces))
    paper = np.median(face_lab[face_lab[:, 0] >= np.percentile(face_lab[:, 0], 50)], axis=0)
    if "back" not in deck:
        return CardLook(paper, np.zeros((0, 3), np.float32), np.zeros(HISTOGRAM_BINS**3, bool))
    back = np.concatenate([_resampled_pixels(deck["back"], s * px_per_mm) for s in (1.0, 2.0)])
    centres = _centres(_weighted(_lab(back)), BACK_COLOURS)
    centres = centres[np.linalg.norm(centres - paper, axis=1) >= PAPER_GAP]
    return CardLook(paper, centres, _colour_density(back) > _colour_density(faces))


def _centres(points: np.ndarray, k: int) -> np.ndarray:
    """k-means centres of these colours (seeded: the same deck always gives the same centres)."""
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 50, 0.5)
    cv2.setRNGSeed(0)
    # (no labels to start from: OpenCV takes None, which its stubs do not know)
    _, _, centres = cv2.kmeans(points, min(k, len(points)), None, criteria, 3,  # type: ignore[call-overload]
                               cv2.KMEANS_PP_CENTERS)
    return np.asarray(centres)


def _histogram_bins(bgr: np.ndarray) -> np.ndarray:
    """Each pixel's bin in a BGR histogram of ``HISTOGRAM_BINS`` levels a channel."""
    q = (np.asarray(bgr, np.uint8).reshape(-1, 3) >> HISTOGRAM_SHIFT).astype(np.int32)
    return (q[:, 0] * HISTOGRAM_BINS + q[:, 1]) * HISTOGRAM_BINS + q[:, 2]


def _colour_density(bgr: np.ndarray) -> np.ndarray:
    """A smoothed, normalised BGR histogram of these pixels seen a little darker and brighter (the light on a
    table drifts, and the corners of a frame are darker)."""
    lit = np.concatenate([np.clip(bgr.astype(np.float32) * g, 0, 255) for g in (0.8, 0.9, 1.0, 1.08)])
    hist = np.bincount(_histogram_bins(lit.astype(np.uint8)), minlength=HISTOGRAM_BINS**3).astype(np.float32)
    hist = hist.reshape((HISTOGRAM_BINS,) * 3)
    for axis in range(3):  # a [1, 2, 1] blur along each channel: neighbouring bins share sensor noise
        padded = np.concatenate([hist.take([0], axis), hist, hist.take([-1], axis)], axis=axis)
        n = hist.shape[axis]
        hist = (padded.take(range(0, n), axis) + 2 * padded.take(range(1, n + 1), axis)
                + padded.take(range(2, n + 2), axis)) / 4
    return (hist / max(float(hist.sum()), 1.0)).reshape(-1)


def _aligned_score(crop: np.ndarray, template: np.ndarray) -> float:
    """The correlation of a card's crop with a face template once the crop is warped onto it (OpenCV's ECC
    alignment, affine): a pixel or two of misplacement costs a face more than the shape of its pips does."""
    grey = [cv2.cvtColor(np.ascontiguousarray(a, np.float32), cv2.COLOR_BGR2GRAY) for a in (template, crop)]
    criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 50, 1e-4)
    try:
        # (no mask: OpenCV takes None, which its stubs do not know)
        _, warp = cv2.findTransformECC(grey[0], grey[1], np.eye(2, 3, dtype=np.float32), cv2.MOTION_AFFINE,
                                       criteria, None, 3)  # type: ignore[call-overload]
    except cv2.error:  # no convergence: the crop as it is
        warp = np.eye(2, 3, dtype=np.float32)
    h, w = template.shape[:2]
    if np.abs(warp[:, :2] - np.eye(2)).max() > ALIGN_MAX_WARP or np.abs(warp[:, 2]).max() > ALIGN_MAX_WARP * w:
        warp = np.eye(2, 3, dtype=np.float32)  # a fit that bends the card out of shape is no alignment
    back = cv2.warpAffine(np.ascontiguousarray(crop, np.float32), warp, (w, h),
                          flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)
    v = back.reshape(-1)
    return float(template.reshape(-1) @ ((v - v.mean()) / (v.std() + 1e-6))) / v.size


def _bgr(weighted_lab: np.ndarray) -> np.ndarray:
    lab = np.clip(weighted_lab / LAB_WEIGHTS, 0, 255).astype(np.uint8)
    return cv2.cvtColor(lab.reshape(-1, 1, 3), cv2.COLOR_LAB2BGR).reshape(-1, 3).astype(np.float32)


def _nearest(lab: np.ndarray, colours: np.ndarray) -> np.ndarray:
    """Each pixel's distance to the nearest of ``colours``."""
    distance: np.ndarray = np.linalg.norm(lab[:, None, :] - colours[None, :, :], axis=2).min(axis=1)
    return distance


class Appearance:
    """Classifies pixels of the rectified plane: felt, card (back or face) or chip of a denomination."""

    def __init__(self, *, felt_bgr: np.ndarray, chips: ChipColours, deck: dict[str, np.ndarray] | None,
                 px_per_mm: float) -> None:
        self.felt_lab = _lab(felt_bgr)[0]
        self.felt_bgr = np.asarray(felt_bgr, np.float32).reshape(3)
        self.chips = chips
        self.chip_lab = np.array([c.lab for c in chips.chips], np.float32)
        self.chip_spread = np.array([max(c.spread, 8.0) for c in chips.chips], np.float32)
        self.chip_values = [c.value for c in chips.chips]
        self.deck = {k: v for k, v in (deck or {}).items() if k != "back"}
        self.cards = card_look(deck, px_per_mm) if deck else None
        # felt-to-card colour steps: a card's edge pixel lies part way along one (see card_edge)
        self._edge_steps: np.ndarray | list[np.ndarray] = (
            _bgr(np.vstack([self.cards.paper, self.cards.back])) - self.felt_bgr if self.cards else [])
        self.chip_px = math.pi * (CHIP_DIAMETER / 2) ** 2 * px_per_mm**2
        self._templates: dict[tuple[int, int, float | None, float, float], tuple[list[str], np.ndarray]] = {}
        levels = (np.arange(32) << 3) + 4
        b, g, r = np.meshgrid(levels, levels, levels, indexing="ij")
        self._lut = self._chip_classes(np.stack([b.ravel(), g.ravel(), r.ravel()], axis=1))

    # --- pixels -----------------------------------------------------------------------------------------

    def card_edge(self, bgr: np.ndarray) -> np.ndarray:
        """Pixels that mix the felt with a card's colour (its paper or one of its back's colours): a card's
        edge, which fills most of the narrow strips a card sticks out by beyond another."""
        x = np.asarray(bgr, np.float32).reshape(-1, 3) - self.felt_bgr
        edge = np.zeros(len(x), bool)
        for colour in self._edge_steps:
            share = x @ colour / max(float(colour @ colour), 1.0)  # how much of the card colour the pixel holds
            off = np.linalg.norm(x - share[:, None] * colour, axis=1)
            edge |= (share >= 0.15) & (share <= 0.85) & (off < EDGE_DISTANCE)
        return edge

    def felt_like(self, bgr: np.ndarray) -> np.ndarray:
        felt: np.ndarray = np.sqrt((_weighted(_lab(bgr) - self.felt_lab) ** 2).sum(axis=1)) < FELT_DISTANCE
        return felt

    def card_like(self, bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(back, face) masks: near one of the back's colours and likelier on the back than on a face, or else
        a light grey-white (a light patterned back is a tint of the paper at the plane's resolution)."""
        b = np.asarray(bgr, np.float32).reshape(-1, 3)
        light = (b.min(axis=1) > 150) & (b.max(axis=1) - b.min(axis=1) < 45)
        if self.cards is None or not len(self.cards.back):
            return np.zeros(len(b), bool), light
        to_back = _nearest(_weighted(_lab(bgr)), self.cards.back)
        back = (to_back < BACK_DISTANCE) & self.cards.back_likelier[_histogram_bins(bgr)]
        return back, light & ~back

    def chip_counts(self, bgr: np.ndarray) -> dict[int, int]:
        """Chip tops by denomination among these pixels (a top shows its colour on about half its area)."""
        out = {}
        for value, n in self.chip_pixels(bgr).items():
            if n >= 0.12 * self.chip_px:
                out[value] = max(1, round(n / (0.55 * self.chip_px)))
        return out

    def chip_like(self, bgr: np.ndarray) -> np.ndarray:
        """Which of these pixels show one of the chips' colours."""
        chip: np.ndarray = self._looked_up(bgr) > 0
        return chip

    def chip_pixels(self, bgr: np.ndarray) -> dict[int, int]:
        """How many of these pixels show each denomination's colour."""
        counts = np.bincount(self._looked_up(bgr), minlength=len(self.chip_values) + 1)
        return {value: int(counts[k + 1]) for k, value in enumerate(self.chip_values)}

    def _looked_up(self, bgr: np.ndarray) -> np.ndarray:
        """``_chip_classes`` of each pixel from a lookup table of 32 levels a channel."""
        q = (np.asarray(bgr, np.uint8).reshape(-1, 3) >> 3).astype(np.int32)
        classes: np.ndarray = self._lut[(q[:, 0] << 10) | (q[:, 1] << 5) | q[:, 2]]
        return classes

    def chip_value(self, bgr: np.ndarray) -> int | None:
        """The denomination of one chip top from its pixels: the colour most of them show (None: no chip's)."""
        counts = self.chip_pixels(bgr)
        value, n = max(counts.items(), key=lambda kv: kv[1], default=(None, 0))
        if n >= CHIP_TOP_SHARE * len(np.asarray(bgr).reshape(-1, 3)):
            return value
        # a chip the felt's hue: its pixels are taken for felt, but its body colour is the chip's
        return self.chips.classify_pixels(bgr, max_distance=CHIP_DISTANCE)

    def _chip_classes(self, bgr: np.ndarray) -> np.ndarray:
        """0 for no chip colour, else 1 + the index of the nearest denomination's colour."""
        lab = _lab(bgr)
        raw = np.sqrt((_weighted(lab[:, None, :] - self.chip_lab[None, :, :]) ** 2).sum(axis=-1))
        dist = raw / self.chip_spread
        best = dist.argmin(axis=1)
        rows = np.arange(len(best))
        ok = dist[rows, best] < CHIP_DISTANCE
        # nearer that chip's colour than the felt's: a chip the felt's hue (green 25s on green felt) still counts
        ok &= raw[rows, best] < np.sqrt((_weighted(lab - self.felt_lab) ** 2).sum(axis=1))
        return np.where(ok, best + 1, 0).astype(np.uint8)

    # --- card identity -------------------------------------------------------------------------------------

    def identify(self, crop: np.ndarray, seen_px_per_mm: float | None = None, *,
                 overexposed: bool = False) -> Identity:
        """The deck face best matching a portrait crop of one card (either way up), with its score, and the face
        of its suit's sibling when the two are not told apart (``UNSURE_MARGIN``).

        ``seen_px_per_mm``: the resolution the camera saw the card at, when the crop is finer (resampled up):
        the faces are compared as the camera would show them, blurred alike. A sharp template would favour
        whichever face has the blurrier ink: a club's three lobes seen at 0.5 px/mm (720p) look like a spade's
        point, and match a sharp spade better than a sharp club; and as a softer picture would show them
        (``FACE_BLURS_PX``, unless overexposed), the blur the crop matches best chosen. ``overexposed``: the camera's
        picture is overexposed (the paper clipped white): its pale ink thins a club's lobes to a spade's point, so
        the faces are also compared as drawn overexposed (``OVEREXPOSED_GAIN``), and the pips aligned under either
        decide.
        """
        if not self.deck:
            return Identity(None, 0.0)
        h, w = crop.shape[:2]
        seen = None if seen_px_per_mm is None or seen_px_per_mm * CARD_W >= 0.95 * w else seen_px_per_mm
        x = crop.astype(np.float32).reshape(-1)
        x = (x - x.mean()) / (x.std() + 1e-6)
        gains = (1.0, OVEREXPOSED_GAIN) if overexposed and seen is not None else (1.0,)
        blurs = FACE_BLURS_PX if seen is not None and not overexposed else (0.0,)  # (paled ink is no blur)
        candidates = max(([c for gain in gains for c in self._candidates(x, self._bank(w, h, seen, gain, blur))]
                          for blur in blurs), key=lambda found: found[0][0])
        code, rival = candidates[0][1], None
        if len(candidates) > 1:  # faces alike but for their pips (a club and a spade): aligned closely, the pips decide
            image = x.reshape(h, w, 3)
            aligned: dict[str, float] = {}
            for _, face, template in candidates:
                aligned[face] = max(aligned.get(face, -1.0), _aligned_score(image, template.reshape(h, w, 3)))
            code = max(aligned, key=aligned.__getitem__)
            sibling = code[:-1] + SUIT_SIBLING.get(code[-1], code[-1])
            if sibling != code and aligned[code] - aligned.get(sibling, -1.0) < UNSURE_MARGIN:
                rival = sibling
        return Identity(code, max(score for score, face, _ in candidates if face == code),  # (its best way up and look)
                        rival)

    @staticmethod
    def _candidates(x: np.ndarray, banked: tuple[list[str], np.ndarray]) -> list[tuple[float, str, np.ndarray]]:
        """(score, face, template): the templates of the bank (up to ``ALIGN_CANDIDATES``, each face both ways up)
        that match the normalised crop ``x`` within ``ALIGN_GAP`` of the best, best first."""
        names, bank = banked
        scores = bank @ x / x.size
        best = float(scores.max())
        return [(float(scores[i]), names[int(i) // 2], bank[i]) for i in np.argsort(-scores)[:ALIGN_CANDIDATES]
                if scores[i] >= best - ALIGN_GAP]

    def _bank(self, w: int, h: int, seen_px_per_mm: float | None, gain: float = 1.0,
              blur_px: float = 0.0) -> tuple[list[str], np.ndarray]:
        """Every face both ways up, ``w`` x ``h``, normalised: as the camera shows them at ``seen_px_per_mm`` (None:
        as printed), blurred ``blur_px`` of its pixels more, ``gain`` times brighter and clipped white."""
        key = (w, h, None if seen_px_per_mm is None else round(seen_px_per_mm, 2), gain, blur_px)
        if key not in self._templates:
            names, rows = [], []
            for code, img in sorted(self.deck.items()):
                face = img[..., :3]
                if seen_px_per_mm is not None:  # as the camera saw it, then resampled up like the crop
                    size = (round(CARD_W * seen_px_per_mm), round(CARD_H * seen_px_per_mm))
                    face = cv2.resize(face, size, interpolation=cv2.INTER_AREA)
                    face = cv2.GaussianBlur(face, (0, 0), blur_px) if blur_px else face
                if gain != 1.0:
                    face = np.clip(face.astype(np.float32) * gain, 0, 255)
                small = cv2.resize(face, (w, h), interpolation=cv2.INTER_LINEAR if seen_px_per_mm else cv2.INTER_AREA
                                   ).astype(np.float32)
                for t in (small, small[::-1, ::-1]):
                    v = t.reshape(-1)
                    rows.append((v - v.mean()) / (v.std() + 1e-6))
                names.append(code)
            self._templates[key] = (names, np.stack(rows))
        return self._templates[key]

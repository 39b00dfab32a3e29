"""What a settled region looks like: a card (face up or back), chips by denomination, or bare felt.

Card identity is template matching: the rectified crop of a face-up card (from the original frame, at
its own resolution) is compared with every face of the venue's deck resampled to the same size, both
ways up; the best normalised correlation wins. Chips are counted by colour against the venue's chip
colour profile (``calibration.chips.ChipColours``): only chip tops are seen from above, so a column
counts as one chip (see the package docstring).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from tablewatch.calibration.chips import ChipColours

CARD_W, CARD_H = 63.0, 88.0
CHIP_DIAMETER = 39.0
CARD_BACK_CHROMA = 0.07  # distance in normalised rgb from the deck's back colour
FELT_DISTANCE = 28.0  # Lab units: closer than this to the felt is felt
CHIP_DISTANCE = 4.5  # in units of a chip colour's spread


def _lab(bgr: np.ndarray) -> np.ndarray:
    px = np.asarray(bgr, np.uint8).reshape(-1, 1, 3)
    return cv2.cvtColor(px, cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.float32)


def _chroma(bgr: np.ndarray) -> np.ndarray:
    b = np.asarray(bgr, np.float32).reshape(-1, 3)
    return b / np.maximum(b.sum(axis=1, keepdims=True), 1.0)


class Appearance:
    """Classifies pixels of the rectified plane: felt, card (back or face) or chip of a denomination."""

    def __init__(self, *, felt_bgr: np.ndarray, chips: ChipColours, deck: dict[str, np.ndarray] | None,
                 px_per_mm: float) -> None:
        self.felt_lab = _lab(felt_bgr)[0]
        self.chips = chips
        self.chip_lab = np.array([c.lab for c in chips.chips], np.float32)
        self.chip_spread = np.array([max(c.spread, 8.0) for c in chips.chips], np.float32)
        self.chip_values = [c.value for c in chips.chips]
        self.deck = {k: v for k, v in (deck or {}).items() if k != "back"}
        back = (deck or {}).get("back")
        self.back_chroma = _chroma(back[..., :3].reshape(-1, 3).mean(axis=0))[0] if back is not None else None
        self.chip_px = math.pi * (CHIP_DIAMETER / 2) ** 2 * px_per_mm**2
        self._templates: dict[tuple[int, int], tuple[list[str], np.ndarray]] = {}
        levels = (np.arange(32) << 3) + 4
        b, g, r = np.meshgrid(levels, levels, levels, indexing="ij")
        self._lut = self._chip_classes(np.stack([b.ravel(), g.ravel(), r.ravel()], axis=1))

    # --- pixels -----------------------------------------------------------------------------------------

    def felt_like(self, bgr: np.ndarray) -> np.ndarray:
        d = _lab(bgr) - self.felt_lab
        return np.sqrt((d[:, 0] * 0.4) ** 2 + d[:, 1] ** 2 + d[:, 2] ** 2) < FELT_DISTANCE

    def card_like(self, bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(back, face) masks: the deck's back colour, or a light grey-white face."""
        b = np.asarray(bgr, np.float32).reshape(-1, 3)
        face = (b.min(axis=1) > 150) & (b.max(axis=1) - b.min(axis=1) < 45)
        if self.back_chroma is None:
            return np.zeros(len(b), bool), face
        back = np.linalg.norm(_chroma(b) - self.back_chroma, axis=1) < CARD_BACK_CHROMA
        back &= b.sum(axis=1) > 200
        return back & ~face, face

    def chip_counts(self, bgr: np.ndarray) -> dict[int, int]:
        """Chip tops by denomination among these pixels (a top shows its colour on about half its area)."""
        out = {}
        for value, n in self.chip_pixels(bgr).items():
            if n >= 0.12 * self.chip_px:
                out[value] = max(1, round(n / (0.55 * self.chip_px)))
        return out

    def chip_pixels(self, bgr: np.ndarray) -> dict[int, int]:
        """How many of these pixels show each denomination's colour (a lookup table of 32 levels a channel)."""
        q = (np.asarray(bgr, np.uint8).reshape(-1, 3) >> 3).astype(np.int32)
        classes = self._lut[(q[:, 0] << 10) | (q[:, 1] << 5) | q[:, 2]]
        counts = np.bincount(classes, minlength=len(self.chip_values) + 1)
        return {value: int(counts[k + 1]) for k, value in enumerate(self.chip_values)}

    def _chip_classes(self, bgr: np.ndarray) -> np.ndarray:
        """0 for no chip colour, else 1 + the index of the nearest denomination's colour."""
        lab = _lab(bgr)
        d = lab[:, None, :] - self.chip_lab[None, :, :]
        dist = np.sqrt((d[..., 0] * 0.4) ** 2 + d[..., 1] ** 2 + d[..., 2] ** 2) / self.chip_spread
        best = dist.argmin(axis=1)
        ok = dist[np.arange(len(best)), best] < CHIP_DISTANCE
        ok &= ~self.felt_like(bgr)
        return np.where(ok, best + 1, 0).astype(np.uint8)

    # --- card identity -------------------------------------------------------------------------------------

    def identify(self, crop: np.ndarray) -> tuple[str | None, float]:
        """The deck face best matching a portrait crop of one card (either way up), with its score."""
        if not self.deck:
            return None, 0.0
        h, w = crop.shape[:2]
        names, bank = self._bank(w, h)
        x = crop.astype(np.float32).reshape(-1)
        x = (x - x.mean()) / (x.std() + 1e-6)
        scores = bank @ x / x.size
        i = int(np.argmax(scores))
        return names[i // 2], float(scores[i])

    def _bank(self, w: int, h: int) -> tuple[list[str], np.ndarray]:
        if (w, h) not in self._templates:
            names, rows = [], []
            for code, img in sorted(self.deck.items()):
                small = cv2.resize(img[..., :3], (w, h), interpolation=cv2.INTER_AREA).astype(np.float32)
                for t in (small, small[::-1, ::-1]):
                    v = t.reshape(-1)
                    rows.append((v - v.mean()) / (v.std() + 1e-6))
                names.append(code)
            self._templates[(w, h)] = (names, np.stack(rows))
        return self._templates[(w, h)]

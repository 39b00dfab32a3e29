"""Whether a box the detector found is a card's corner index at all: a small CNN exported to ONNX.

Many wrong cards a photo's reader lists are one box on something else that looks like an index at the
detector's scale: a pip, a court card's picture, a chip's print, a back's corner (most of them where tiles
magnify a large photo). The classifier names any such box confidently, as it only ever learned indices. The
verifier looks at the box twice: the index as the classifier sees it, and the box three times as wide, where a
real index shows the corner of a card (the card's edges close by on two sides, the rank over the suit) and a pip
shows more pips or a picture around it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tablewatch.vision.classifier import CROP_MARGIN, crop_index, crop_model_session, resolve_model, shipped_model
from tablewatch.vision.detector import MODELS_DIR

CONTEXT_MARGIN = 3.0  # the context crop's side, relative to the box's longer side
VERIFIER_GLOB = "cards-index-verify-*.onnx"
VIEW_TURNS = (0, 1, 2, 3)  # read in the four quarter turns (a card's corner may point any way), averaged


def verifier_input(image: np.ndarray, box: np.ndarray | tuple[float, ...]) -> np.ndarray:
    """(H, W, 6) uint8: the index crop and the context crop of ``box``, BGR each, stacked as channels."""
    return np.concatenate([crop_index(image, box, CROP_MARGIN), crop_index(image, box, CONTEXT_MARGIN)], axis=2)


def default_verifier_path(models_dir: Path = MODELS_DIR) -> Path | None:
    return shipped_model(VERIFIER_GLOB, models_dir)


def resolve_verifier(choice: str | Path) -> Path | None:
    """``"auto"``: the shipped verifier if there is one; ``"none"``: none; otherwise a path."""
    return resolve_model(choice, VERIFIER_GLOB)


def to_blob(inputs: np.ndarray) -> np.ndarray:
    """(N, H, W, 6) BGR uint8 -> (N, 6, H, W) RGB float 0-1, the network's input (training shares it)."""
    rgb = np.concatenate([inputs[..., 2::-1], inputs[..., 5:2:-1]], axis=3)
    return np.ascontiguousarray(rgb.transpose(0, 3, 1, 2), dtype=np.float32) / np.float32(255.0)


class OnnxIndexVerifier:
    """The probability that each box is a card's corner index (``probabilities``)."""

    def __init__(self, model_path: str | Path, *, threads: int | None = None):
        self.path = Path(model_path)
        self.session = crop_model_session(self.path, name="verifier", threads=threads)
        self.input_name = self.session.get_inputs()[0].name

    def probabilities(self, image: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        """(N,) probability that each xyxy box of ``image`` is a corner index, averaged over ``VIEW_TURNS``."""
        if len(boxes) == 0:
            return np.zeros(0, np.float32)
        inputs = np.stack([verifier_input(image, box) for box in boxes])
        views = np.concatenate([np.rot90(inputs, turns, axes=(1, 2)) for turns in VIEW_TURNS])
        logits = self.session.run(None, {self.input_name: to_blob(views)})[0].reshape(len(VIEW_TURNS), len(boxes))
        probabilities: np.ndarray = (1.0 / (1.0 + np.exp(-logits))).mean(axis=0).astype(np.float32)
        return probabilities

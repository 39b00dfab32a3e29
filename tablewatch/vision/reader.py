"""``CardReader``: the face-up cards in a photo or frame (detector + tiling + card identity), timed per stage."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tablewatch.vision.cards import BACK_LABEL, Card, count_backs, group_cards
from tablewatch.vision.classifier import OnnxIndexClassifier, is_box_only, resolve_classifier
from tablewatch.vision.detections import Detections
from tablewatch.vision.detector import DetectorError, OnnxDetector, default_model_path
from tablewatch.vision.tiling import StageTimes, Window, detect_windows, merge_found, pyramid_levels, read_enough
from tablewatch.vision.verifier import OnnxIndexVerifier, resolve_verifier

BOX_CONF_WITH_CLASSIFIER = 0.05
# A card is reported from this confidence (box score x identity probability, square-rooted). Chosen on the
# val split with the session-4 models: 0.25 -> 0.4 kept recall (0.861 -> 0.852) and raised precision
# (0.56 -> 0.74); 0.5 costs recall (0.81).
CARD_CONF = 0.4
# ... and from this one when its other index confirms nothing: a lone box is most of what a pip, a court picture or
# a back's corner read as an index gives (val split: 0.4 -> 0.5 kept 29 of 31 right lone cards, 6 of 10 wrong).
LONE_CARD_CONF = 0.5
# A level of the tile pyramid whose indices are this large (px at the detector's input) is read, and no finer one:
# the training photos' index boxes are 15-70 px at a 320-px input (5th to 95th percentile; lower quartile 22,
# median 28)
READABLE_PX = 20.0
SURE_BOX = 0.25  # the boxes that say how large a level shows the indices
# With the index verifier, a face-up box it gives less than even odds of being a corner index is dropped (its
# decision boundary, not tuned: on the val photos 0.3-0.6 each lose one card of 101 and drop 0-2 of 9 wrong listings).
INDEX_MIN_P = 0.5


def crop_models(classifier: str | Path = "auto", verifier: str | Path = "auto", *,
                threads: int | None = None) -> tuple[OnnxIndexClassifier | None, OnnxIndexVerifier | None]:
    """The index classifier and verifier a ``CardReader`` uses, from the commands' options (``"auto"``, ``"none"``
    or a path each)."""
    classifier_path, verifier_path = resolve_classifier(classifier), resolve_verifier(verifier)
    return (OnnxIndexClassifier(classifier_path, threads=threads) if classifier_path else None,
            OnnxIndexVerifier(verifier_path, threads=threads) if verifier_path else None)


@dataclass(frozen=True)
class CardReading:
    cards: list[Card]
    backs: int
    detections: Detections
    windows: int


class CardReader:
    """Reads the cards of any image. ``tiles`` chooses the windows the detector sees:

    - ``"auto"``: the whole image, then a pyramid of tiles down to ``min_tile`` px (default: twice the
      model input, the scale the model was trained at), so any resolution works; the descent stops at the
      first level that shows the indices ``READABLE_PX`` large (finer tiles would read pips and pictures);
    - ``"none"``: the whole image once (fastest; fine when the cards fill the picture).

    With a ``classifier``, the identity of each face-up box comes from a full-resolution crop instead of
    the detector's class (see ``tablewatch.vision.classifier``).
    """

    def __init__(self, detector: OnnxDetector | None = None, *, model_path: str | Path | None = None,
                 conf: float = CARD_CONF, tiles: str = "auto", min_tile: int | None = None, overlap: float = 0.25,
                 classifier: OnnxIndexClassifier | None = None, verifier: OnnxIndexVerifier | None = None):
        if tiles not in {"auto", "none"}:
            raise ValueError(f"tiles must be 'auto' or 'none', not {tiles!r}.")
        # with a classifier the detector only has to find index boxes: its own class scores are weaker
        # than the combined confidence, so it keeps boxes from a lower threshold
        box_conf = min(conf, BOX_CONF_WITH_CLASSIFIER) if classifier is not None else conf
        self.detector = detector or OnnxDetector(model_path or default_model_path(), conf=box_conf)
        self.conf = conf
        self.tiles, self.overlap = tiles, overlap
        self.min_tile = min_tile or 2 * self.detector.imgsz
        self.times = StageTimes()
        self.classifier, self.verifier = classifier, verifier
        if classifier is None and is_box_only(self.detector.names):
            raise DetectorError(f"{self.detector.path} only finds index boxes: card identity needs the index "
                                "classifier (tablewatch/vision/weights/cards-index-cls-*.onnx, or --classifier PATH).")
        # the classes of what ``read`` returns (a box-only detector's boxes are named by the classifier)
        self.names = classifier.output_names(self.detector.names) if classifier else self.detector.names

    def levels(self, height: int, width: int) -> list[list[Window]]:
        """The windows the detector may see, coarsest first (``tiling.pyramid_levels``)."""
        if self.tiles == "none":
            return [[(0, 0, width, height)]]
        return pyramid_levels(height, width, min_tile=self.min_tile, overlap=self.overlap)

    def detect(self, image: np.ndarray) -> Detections:
        """One window through the detector, each stage timed into ``self.times``."""
        t0 = time.perf_counter()
        blob, box = self.detector.preprocess(image)
        t1 = time.perf_counter()
        output = self.detector.infer(blob)
        t2 = time.perf_counter()
        found = self.detector.postprocess(output, box, image.shape[:2])
        t3 = time.perf_counter()
        for stage, seconds in (("preprocess", t1 - t0), ("infer", t2 - t1), ("decode+nms", t3 - t2)):
            self.times.add(stage, seconds)
        self.times.windows += 1
        return found

    def _sure_faces(self, found: Detections) -> Detections:
        """The face-up boxes the detector is fairly sure of (they tell how large a level shows the indices)."""
        sure = [self.detector.names[int(c)] != BACK_LABEL and score >= SURE_BOX
                for c, score in zip(found.class_id, found.confidence, strict=True)]
        return found[np.array(sure, bool)]

    def read(self, image: np.ndarray) -> CardReading:
        height, width = image.shape[:2]
        parts, windows = [], 0
        for level in self.levels(height, width):
            found = detect_windows(self.detect, image, level, times=self.times)
            parts.append(found)
            windows += len(level)
            if read_enough(self._sure_faces(found), level, self.detector.imgsz, readable_px=READABLE_PX):
                break
        detections = merge_found(parts, times=self.times)
        if self.classifier is not None:
            start = time.perf_counter()
            detections = self.classifier.relabel(image, detections, self.detector.names)
            self.times.add("classify", time.perf_counter() - start)
            detections = detections[detections.confidence >= self.conf]
        if self.verifier is not None:
            start = time.perf_counter()
            detections = self.verified(image, detections)
            self.times.add("verify", time.perf_counter() - start)
        start = time.perf_counter()
        cards = group_cards(detections, self.names, one_deck=True, lone_conf=max(self.conf, LONE_CARD_CONF))
        backs = count_backs(detections, self.names)
        self.times.add("cards", time.perf_counter() - start)
        self.times.calls += 1
        return CardReading(cards=cards, backs=backs, detections=detections, windows=windows)

    def verified(self, image: np.ndarray, detections: Detections) -> Detections:
        """``detections`` with each face-up box's chance of being a corner index (``data["index_p"]``, 1 for
        backs), less the face-up boxes under ``INDEX_MIN_P``."""
        assert self.verifier is not None
        face = np.array([self.names[int(c)] != BACK_LABEL for c in detections.class_id], bool)
        chance = np.ones(len(detections), np.float32)
        chance[face] = self.verifier.probabilities(image, detections.xyxy[face])
        scored = Detections(detections.xyxy, detections.confidence, detections.class_id,
                            tracker_id=detections.tracker_id, data={**detections.data, "index_p": chance},
                            metadata=dict(detections.metadata))
        return scored[chance >= INDEX_MIN_P]

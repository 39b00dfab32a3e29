"""Card identity from full-resolution crops of the corner indices: a small CNN exported to ONNX.

The detector finds index boxes (its own class guess is kept as a fallback); each box is cut from the
full-resolution image as a square a little larger than the box, resized to ``CROP_HW``, and classified
into the 54 face-up classes. This is the "expensive look" of the design's pixel budget, done only on the
boxes, at whatever resolution the camera gives.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from tablewatch.vision.boxes import nms
from tablewatch.vision.cards import BACK_LABEL, INDEX_LABEL
from tablewatch.vision.detections import Detections
from tablewatch.vision.detector import MODELS_DIR, DetectorError

if TYPE_CHECKING:
    from onnxruntime import InferenceSession

CROP_HW = (32, 32)
CROP_MARGIN = 1.25  # the square crop's side, relative to the box's longer side
# Each index is read in six views, their probabilities averaged: framed a little tighter and looser than in
# training (a detector's box is never exactly the labeller's), each also turned half round (an index upside
# down in its corner). Chosen on the val photos (identity 0.967 → 0.989, precision 0.81 → 0.86), then
# measured once on test (0.970 → 0.977, 0.77 → 0.84); see tablewatch/vision/weights/MODEL_CARD.md.
VIEW_MARGINS = (1.1, CROP_MARGIN, 1.4)
VIEW_TURNS = (0, 2)  # quarter turns (np.rot90)
CLASSIFIER_GLOB = "cards-index-cls-*.onnx"
AGNOSTIC_IOU = 0.5


def crop_index(image: np.ndarray, box: np.ndarray | tuple[float, ...], margin: float = CROP_MARGIN) -> np.ndarray:
    """A ``CROP_HW`` BGR square centred on ``box`` (xyxy), side ``margin`` × the longer box side."""
    x0, y0, x1, y1 = (float(v) for v in box)
    side = max(x1 - x0, y1 - y0, 2.0) * margin
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    scale = CROP_HW[1] / side
    # an affine warp crops, scales and pads (edge pixels repeated) in one step
    matrix = np.array([[scale, 0, CROP_HW[1] / 2 - cx * scale], [0, scale, CROP_HW[0] / 2 - cy * scale]])
    interpolation = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    return cv2.warpAffine(image, matrix, (CROP_HW[1], CROP_HW[0]), flags=interpolation,
                          borderMode=cv2.BORDER_REPLICATE)


def index_views(image: np.ndarray, box: np.ndarray | tuple[float, ...]) -> list[np.ndarray]:
    """The crops an index is read in: each of ``VIEW_MARGINS``, each turned by each of ``VIEW_TURNS``."""
    crops = [crop_index(image, box, margin) for margin in VIEW_MARGINS]
    return [np.ascontiguousarray(np.rot90(crop, turns)) for crop in crops for turns in VIEW_TURNS]


def is_box_only(detector_names: dict[int, str]) -> bool:
    """A detector that finds index boxes without naming them (``tablewatch train --index-only``)."""
    return INDEX_LABEL in detector_names.values()


def shipped_model(pattern: str, models_dir: Path = MODELS_DIR) -> Path | None:
    """The last of the shipped models whose file name matches ``pattern``, if any."""
    found = sorted(models_dir.glob(pattern))
    return found[-1] if found else None


def resolve_model(choice: str | Path, pattern: str) -> Path | None:
    """A model option: ``"auto"``, the shipped model matching ``pattern`` if there is one; ``"none"``, none;
    otherwise a path."""
    if str(choice) == "none":
        return None
    if str(choice) == "auto":
        return shipped_model(pattern)
    return Path(choice)


def default_classifier_path(models_dir: Path = MODELS_DIR) -> Path | None:
    return shipped_model(CLASSIFIER_GLOB, models_dir)


def resolve_classifier(choice: str | Path) -> Path | None:
    """``"auto"``: the shipped classifier if there is one; ``"none"``: none; otherwise a path."""
    return resolve_model(choice, CLASSIFIER_GLOB)


def crop_model_session(path: Path, *, name: str, threads: int | None = None) -> InferenceSession:
    """An ONNX Runtime CPU session of one of the crops' models (the index classifier or verifier); a clear
    ``DetectorError`` naming it when the file is missing or is no model."""
    import onnxruntime as ort

    if not path.is_file():
        raise DetectorError(f"{name} model file not found: {path}")
    options = ort.SessionOptions()
    options.log_severity_level = 3
    if threads:
        options.intra_op_num_threads = threads
    try:
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime's own exception types
        raise DetectorError(f"cannot load the index {name} {path}: {exc}") from exc


class OnnxIndexClassifier:
    """Classifies index crops; ``names`` are its classes (the detector's names without ``BACK``)."""

    def __init__(self, model_path: str | Path, *, threads: int | None = None):
        self.path = Path(model_path)
        self.session = crop_model_session(self.path, name="classifier", threads=threads)
        try:
            self.names: list[str] = ast.literal_eval(self.session.get_modelmeta().custom_metadata_map["names"])
        except (KeyError, ValueError, SyntaxError) as exc:
            raise DetectorError(f"cannot load the index classifier {self.path}: no class names ({exc})") from exc
        self.input_name = self.session.get_inputs()[0].name

    def probabilities(self, crops: np.ndarray) -> np.ndarray:
        """(N, H, W, 3) BGR uint8 crops -> (N, classes) probabilities."""
        if len(crops) == 0:
            return np.zeros((0, len(self.names)), np.float32)
        blob = crops[:, :, :, ::-1].transpose(0, 3, 1, 2).astype(np.float32) / np.float32(255.0)
        logits = self.session.run(None, {self.input_name: np.ascontiguousarray(blob)})[0]
        logits = logits - logits.max(axis=1, keepdims=True)
        exp = np.exp(logits)
        probabilities: np.ndarray = exp / exp.sum(axis=1, keepdims=True)
        return probabilities

    def output_names(self, detector_names: dict[int, str]) -> dict[int, str]:
        """The classes of relabelled detections: the detector's own when it names cards; for a box-only
        detector (``INDEX``/``BACK``), the classifier's classes plus ``BACK``."""
        if not is_box_only(detector_names):
            return detector_names
        return dict(enumerate([*self.names, BACK_LABEL]))

    def relabel(self, image: np.ndarray, detections: Detections, detector_names: dict[int, str]) -> Detections:
        """Face-up boxes get the classifier's identity (its probabilities averaged over ``index_views``);
        confidence = sqrt(box score × identity probability).

        Class ids of the result are in ``output_names(detector_names)``.

        Overlapping face-up boxes are first reduced to one (class-agnostic NMS): the detector may box one
        index under two classes, which would otherwise become two agreeing indices of one identity.
        """
        names = self.output_names(detector_names)
        ids = {name: c for c, name in names.items()}
        back = np.array([detector_names[int(c)] == BACK_LABEL for c in detections.class_id], dtype=bool)
        face = np.flatnonzero(~back)
        face = face[nms(detections.xyxy[face], detections.confidence[face], AGNOSTIC_IOU)] if len(face) else face
        detections = detections[np.sort(np.concatenate([face, np.flatnonzero(back)]))]
        back = np.array([detector_names[int(c)] == BACK_LABEL for c in detections.class_id], dtype=bool)
        face = np.flatnonzero(~back)
        class_id, confidence = detections.class_id.copy(), detections.confidence.copy()
        class_id[back] = ids[BACK_LABEL]
        if not len(face):
            return Detections(detections.xyxy, confidence, class_id, tracker_id=detections.tracker_id,
                              data=dict(detections.data), metadata=dict(detections.metadata))
        views = np.stack([view for i in face for view in index_views(image, detections.xyxy[i])])
        probs = self.probabilities(views).reshape(len(face), -1, len(self.names)).mean(axis=1)
        best = probs.argmax(axis=1)
        class_id[face] = [ids[self.names[b]] for b in best]
        confidence[face] = np.sqrt(probs[np.arange(len(face)), best] * confidence[face])
        return Detections(detections.xyxy, confidence, class_id, tracker_id=detections.tracker_id,
                          data=dict(detections.data), metadata=dict(detections.metadata))

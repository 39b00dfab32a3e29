"""The card detector at run time: an ultralytics model exported to ONNX, run with ONNX Runtime (no torch).

Stages are separate methods (``preprocess``, ``infer``, ``postprocess``) so the benchmark can time each;
``detect`` runs the three. Class names and input size come from the metadata ultralytics writes into the
ONNX file, so one file is the whole model.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path
from typing import Any

import numpy as np

from tablewatch.vision.boxes import Letterbox, decode_yolo, letterbox
from tablewatch.vision.detections import Detections

MODELS_DIR = Path(__file__).resolve().parent / "weights"  # in the package: the wheel carries them
DEFAULT_MODEL_GLOB = "cards-*.onnx"
# ``cards-index-cls-*.onnx`` (the identity classifier) and ``cards-index-verify-*.onnx`` (the index verifier) are
# the crops' models, not detectors
CROP_MODEL_MARK = "cards-index-"


class DetectorError(RuntimeError):
    """A model that can't be loaded or run; the message names the file and the problem."""


def default_model_path(models_dir: Path = MODELS_DIR) -> Path:
    """The shipped card detector: ``tablewatch/vision/weights/cards-*.onnx`` (the newest if there are several)."""
    found = sorted((path for path in models_dir.glob(DEFAULT_MODEL_GLOB) if not path.name.startswith(CROP_MODEL_MARK)),
                   key=lambda path: path.stat().st_mtime)
    if not found:
        raise DetectorError(f"no card model ({DEFAULT_MODEL_GLOB}) in {models_dir}; train one with 'tablewatch train'.")
    return found[-1]


class OnnxDetector:
    """A YOLOv8/11 detection model in ONNX. ``detect(image_bgr)`` gives ``Detections`` in image pixels.

    ``conf`` and ``iou`` are the confidence and NMS thresholds; ``threads`` caps ONNX Runtime's intra-op
    threads (default: all cores, or ``TABLEWATCH_THREADS``).
    """

    def __init__(self, model_path: str | Path, *, conf: float = 0.25, iou: float = 0.5, threads: int | None = None):
        import onnxruntime as ort

        self.path = Path(model_path)
        if not self.path.is_file():
            raise DetectorError(f"model file not found: {self.path}")
        options = ort.SessionOptions()
        options.log_severity_level = 3
        threads = threads or int(os.environ.get("TABLEWATCH_THREADS", "0"))
        if threads:
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = 1
        try:
            self.session = ort.InferenceSession(str(self.path), options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own exception types for bad files
            raise DetectorError(f"cannot load the ONNX model {self.path}: {exc}") from exc
        model_input = self.session.get_inputs()[0]
        self.input_name = model_input.name
        self.input_hw = _input_size(model_input.shape, self.path)
        self.names = _class_names(self.session.get_modelmeta().custom_metadata_map, self.session, self.path)
        self.conf, self.iou = conf, iou

    @property
    def imgsz(self) -> int:
        return max(self.input_hw)

    def preprocess(self, image: np.ndarray) -> tuple[np.ndarray, Letterbox]:
        """BGR uint8 (H, W, 3) -> the model's (1, 3, h, w) float32 RGB input in 0-1, and the letterbox."""
        if image is None or image.ndim != 3 or image.shape[2] != 3 or image.size == 0:
            raise DetectorError(f"expected a BGR image of shape (H, W, 3); got {getattr(image, 'shape', None)}.")
        padded, box = letterbox(image, self.input_hw)
        blob = padded[:, :, ::-1].transpose(2, 0, 1)[None].astype(np.float32) / np.float32(255.0)
        return np.ascontiguousarray(blob), box

    def infer(self, blob: np.ndarray) -> np.ndarray:
        output: np.ndarray = self.session.run(None, {self.input_name: blob})[0]
        return output

    def postprocess(self, output: np.ndarray, box: Letterbox, image_hw: tuple[int, int]) -> Detections:
        xyxy, confidence, class_id = decode_yolo(output, conf=self.conf, iou=self.iou)
        xyxy = box.to_image(xyxy)
        h, w = image_hw
        np.clip(xyxy[:, 0::2], 0, w, out=xyxy[:, 0::2])
        np.clip(xyxy[:, 1::2], 0, h, out=xyxy[:, 1::2])
        return Detections(xyxy, confidence, class_id, metadata={"names": self.names})

    def detect(self, image: np.ndarray) -> Detections:
        blob, box = self.preprocess(image)
        return self.postprocess(self.infer(blob), box, image.shape[:2])


def _input_size(shape: list[Any], path: Path) -> tuple[int, int]:
    if len(shape) != 4 or not all(isinstance(side, int) for side in shape[2:]):
        raise DetectorError(f"{path}: expected a fixed (1, 3, H, W) input; the model has {shape}.")
    return int(shape[2]), int(shape[3])


def _class_names(metadata: dict[str, str], session: object, path: Path) -> dict[int, str]:
    """Ultralytics stores ``names`` as a Python dict literal in the ONNX metadata."""
    try:
        names = ast.literal_eval(metadata["names"])
        names = {int(key): str(value) for key, value in names.items()}
    except (KeyError, ValueError, SyntaxError, AttributeError) as exc:
        raise DetectorError(f"{path}: no class names in the model metadata (not an ultralytics export?).") from exc
    n_outputs = session.get_outputs()[0].shape[1]  # type: ignore[attr-defined]
    if isinstance(n_outputs, int) and n_outputs != 4 + len(names):
        raise DetectorError(f"{path}: output has {n_outputs} rows but metadata names {len(names)} classes.")
    return names

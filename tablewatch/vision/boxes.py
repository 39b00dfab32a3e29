"""Box geometry for the detector: letterbox, IoU, non-maximum suppression, decoding YOLO output.

Pure numpy and OpenCV, so it is tested without a model.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

PAD_VALUE = 114  # the grey ultralytics pads with; the model was trained on it


@dataclass(frozen=True)
class Letterbox:
    """How an image was fitted into the model input: ``input = image * scale + (pad_x, pad_y)``."""

    scale: float
    pad_x: float
    pad_y: float

    def to_image(self, xyxy: np.ndarray) -> np.ndarray:
        """Boxes from model-input pixels back to image pixels."""
        pad = np.array([self.pad_x, self.pad_y, self.pad_x, self.pad_y], dtype=np.float32)
        return (xyxy - pad) / np.float32(self.scale)


def letterbox(image: np.ndarray, size: int | tuple[int, int]) -> tuple[np.ndarray, Letterbox]:
    """Resize ``image`` (H, W, 3) to fit ``size`` (square int or (height, width)), keeping its aspect
    ratio, and pad the rest evenly with grey, as ultralytics does for a fixed-size export."""
    out_h, out_w = (size, size) if isinstance(size, int) else size
    h, w = image.shape[:2]
    if h == 0 or w == 0:
        raise ValueError(f"cannot letterbox an empty image of shape {image.shape}.")
    scale = min(out_h / h, out_w / w)
    new_w, new_h = round(w * scale), round(h * scale)
    interpolation = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    resized = cv2.resize(image, (new_w, new_h), interpolation=interpolation) if (new_w, new_h) != (w, h) else image
    pad_x, pad_y = (out_w - new_w) / 2, (out_h - new_h) / 2
    top, left = round(pad_y - 0.1), round(pad_x - 0.1)
    bottom, right = out_h - new_h - top, out_w - new_w - left
    padded = cv2.copyMakeBorder(resized, top, bottom, left, right, cv2.BORDER_CONSTANT, value=(PAD_VALUE,) * 3)
    return padded, Letterbox(scale=scale, pad_x=float(left), pad_y=float(top))


def xyxy_tuple(box: np.ndarray) -> tuple[float, float, float, float]:
    """One box (4,) as plain floats x0, y0, x1, y1."""
    x0, y0, x1, y1 = (float(v) for v in box)
    return x0, y0, x1, y1


def box_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU matrix (len(a), len(b)) of xyxy boxes."""
    a, b = np.asarray(a, np.float32).reshape(-1, 4), np.asarray(b, np.float32).reshape(-1, 4)
    top_left = np.maximum(a[:, None, :2], b[None, :, :2])
    bottom_right = np.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = np.prod(np.clip(bottom_right - top_left, 0, None), axis=2)
    area_a = np.prod(a[:, 2:] - a[:, :2], axis=1)
    area_b = np.prod(b[:, 2:] - b[:, :2], axis=1)
    union = area_a[:, None] + area_b[None, :] - inter
    return np.where(union > 0, inter / np.maximum(union, 1e-9), 0.0).astype(np.float32)


def nms(xyxy: np.ndarray, scores: np.ndarray, iou_threshold: float) -> np.ndarray:
    """Indices of the boxes kept by greedy non-maximum suppression, highest score first."""
    order = np.argsort(-np.asarray(scores), kind="stable")
    keep: list[int] = []
    while order.size:
        best = int(order[0])
        keep.append(best)
        if order.size == 1:
            break
        overlaps = box_iou(xyxy[best : best + 1], xyxy[order[1:]])[0]
        order = order[1:][overlaps <= iou_threshold]
    return np.asarray(keep, dtype=np.int64)


def batched_nms(xyxy: np.ndarray, scores: np.ndarray, class_id: np.ndarray, iou_threshold: float) -> np.ndarray:
    """NMS within each class only (boxes of different classes never suppress each other)."""
    if len(xyxy) == 0:
        return np.zeros(0, dtype=np.int64)
    # Shift each class to its own far-away region: one NMS pass then never mixes classes.
    offset = (class_id.astype(np.float32) * (float(xyxy.max()) + 1.0))[:, None]
    return nms(xyxy + offset, scores, iou_threshold)


def decode_yolo(
    output: np.ndarray, *, conf: float, iou: float, max_det: int = 300, agnostic: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Boxes from an ultralytics YOLOv8/11 detection head exported to ONNX.

    ``output`` is (1, 4 + nc, N) or (4 + nc, N): per anchor, the box centre x, y, width and height in
    model-input pixels, then one sigmoid score per class (no objectness). Returns xyxy, confidence and
    class id after the confidence threshold and NMS (per class unless ``agnostic``), best first.
    """
    pred = np.asarray(output)
    if pred.ndim == 3:
        pred = pred[0]
    if pred.ndim != 2 or pred.shape[0] < 5:
        raise ValueError(f"expected YOLO output of shape (1, 4 + classes, anchors); got {np.shape(output)}.")
    scores_all = pred[4:]
    class_id = scores_all.argmax(axis=0)
    confidence = scores_all[class_id, np.arange(pred.shape[1])]
    keep = confidence > conf
    boxes, confidence, class_id = pred[:4, keep].T, confidence[keep], class_id[keep]
    xyxy = np.concatenate([boxes[:, :2] - boxes[:, 2:] / 2, boxes[:, :2] + boxes[:, 2:] / 2], axis=1)
    if len(confidence) > 30 * max_det:  # NMS is quadratic: bound its input as ultralytics does
        top = np.argsort(-confidence)[: 30 * max_det]
        xyxy, confidence, class_id = xyxy[top], confidence[top], class_id[top]
    kept = nms(xyxy, confidence, iou) if agnostic else batched_nms(xyxy, confidence, class_id, iou)
    kept = kept[:max_det]
    return xyxy[kept].astype(np.float32), confidence[kept].astype(np.float32), class_id[kept].astype(np.int64)

"""``Detections``: the boxes of one frame as parallel numpy arrays (the shape of supervision's type).

The core works on this type only; adapters at the edge (``from_ultralytics``, the ONNX detector's decode)
build it, so nothing past the edge imports ultralytics or onnxruntime. Indexing with a boolean mask or an
index array returns a new ``Detections``: a filter is one line, and the input is never changed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Detections:
    """``n`` boxes: ``xyxy`` (n, 4) float32 pixels, ``confidence`` (n,) float32, ``class_id`` (n,) int64.

    ``tracker_id`` (n,) int64 or None until a tracker sets it (on a copy); ``data`` holds more per-box
    arrays of length n (e.g. ``"tile"``); ``metadata`` is per frame (e.g. the class names).
    """

    xyxy: np.ndarray
    confidence: np.ndarray
    class_id: np.ndarray
    tracker_id: np.ndarray | None = None
    data: dict[str, np.ndarray] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        xyxy = np.asarray(self.xyxy, dtype=np.float32).reshape(-1, 4) if np.size(self.xyxy) else _empty_boxes()
        object.__setattr__(self, "xyxy", xyxy)
        object.__setattr__(self, "confidence", np.asarray(self.confidence, dtype=np.float32).reshape(-1))
        object.__setattr__(self, "class_id", np.asarray(self.class_id, dtype=np.int64).reshape(-1))
        n = len(xyxy)
        arrays = {"confidence": self.confidence, "class_id": self.class_id} | dict(self.data)
        if self.tracker_id is not None:
            object.__setattr__(self, "tracker_id", np.asarray(self.tracker_id, dtype=np.int64).reshape(-1))
            arrays["tracker_id"] = self.tracker_id
        for name, array in arrays.items():
            if len(array) != n:
                raise ValueError(f"Detections.{name} has {len(array)} entries; xyxy has {n} boxes.")

    @classmethod
    def empty(cls, **metadata: Any) -> Detections:
        return cls(_empty_boxes(), np.zeros(0, np.float32), np.zeros(0, np.int64), metadata=dict(metadata))

    @classmethod
    def merge(cls, parts: list[Detections]) -> Detections:
        """One ``Detections`` of all boxes of ``parts`` (data keys must match; metadata of the first)."""
        parts = [part for part in parts if len(part)]
        if not parts:
            return cls.empty()
        keys = set(parts[0].data)
        if any(set(part.data) != keys for part in parts):
            raise ValueError("cannot merge Detections whose 'data' keys differ.")
        trackers = [part.tracker_id for part in parts]
        return cls(
            xyxy=np.concatenate([part.xyxy for part in parts]),
            confidence=np.concatenate([part.confidence for part in parts]),
            class_id=np.concatenate([part.class_id for part in parts]),
            tracker_id=_joined(trackers),
            data={key: np.concatenate([part.data[key] for part in parts]) for key in keys},
            metadata=dict(parts[0].metadata),
        )

    @classmethod
    def from_ultralytics(cls, result: Any) -> Detections:
        """From an ultralytics ``Results`` (reads its attributes only: no ultralytics import here)."""
        boxes = result.boxes

        def array(value: Any) -> np.ndarray:
            return value.cpu().numpy() if hasattr(value, "cpu") else np.asarray(value)

        tracker = None if getattr(boxes, "id", None) is None else array(boxes.id)
        return cls(array(boxes.xyxy), array(boxes.conf), array(boxes.cls), tracker_id=tracker,
                   metadata={"names": dict(result.names)})

    def __len__(self) -> int:
        return len(self.xyxy)

    def __getitem__(self, index: np.ndarray | slice | list[int]) -> Detections:
        """A subset: a boolean mask, an index array or a slice (an int gives a one-box Detections)."""
        if isinstance(index, int | np.integer):
            index = [int(index)]
        return Detections(
            xyxy=self.xyxy[index],
            confidence=self.confidence[index],
            class_id=self.class_id[index],
            tracker_id=None if self.tracker_id is None else self.tracker_id[index],
            data={key: value[index] for key, value in self.data.items()},
            metadata=dict(self.metadata),
        )

    def shifted(self, dx: float, dy: float, *, scale: float = 1.0) -> Detections:
        """Boxes mapped by ``p * scale + (dx, dy)`` (from a tile or a resized frame back to the frame)."""
        offset = np.array([dx, dy, dx, dy], dtype=np.float32)
        return Detections(self.xyxy * np.float32(scale) + offset, self.confidence, self.class_id,
                          tracker_id=self.tracker_id, data=dict(self.data), metadata=dict(self.metadata))

    @property
    def area(self) -> np.ndarray:
        area: np.ndarray = (self.xyxy[:, 2] - self.xyxy[:, 0]) * (self.xyxy[:, 3] - self.xyxy[:, 1])
        return area

    @property
    def center(self) -> np.ndarray:
        return np.stack([(self.xyxy[:, 0] + self.xyxy[:, 2]) / 2, (self.xyxy[:, 1] + self.xyxy[:, 3]) / 2], axis=1)

    def to_dicts(self, names: dict[int, str] | list[str] | None = None) -> list[dict[str, Any]]:
        """JSON-ready rows: box, confidence, class id and (with ``names``) class name."""
        names = names if names is not None else self.metadata.get("names")
        rows = []
        for i in range(len(self)):
            cls = int(self.class_id[i])
            row: dict[str, Any] = {"xyxy": [round(float(v), 1) for v in self.xyxy[i]],
                                   "confidence": round(float(self.confidence[i]), 4), "class_id": cls}
            if names is not None:
                row["class_name"] = names[cls]
            if self.tracker_id is not None:
                row["tracker_id"] = int(self.tracker_id[i])
            rows.append(row)
        return rows


def _empty_boxes() -> np.ndarray:
    return np.zeros((0, 4), dtype=np.float32)


def _joined(trackers: list[np.ndarray | None]) -> np.ndarray | None:
    """The parts' tracker ids end to end, or None unless every part has them."""
    present = [t for t in trackers if t is not None]
    return np.concatenate(present) if len(present) == len(trackers) else None

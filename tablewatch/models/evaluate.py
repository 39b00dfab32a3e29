"""Score a card detector (ONNX, run exactly as the monitor runs it) on held-out source photos.

Two figures, over a prepared split (``out/cards-real/test``: every copy of each held-out source photo):

- **mAP50**: per-class average precision at IoU 0.5 over index boxes, averaged over the classes present,
  computed as ultralytics' validator does (confidence 0.001, NMS IoU 0.7, 101-point interpolation), but
  on the ONNX model through our own letterbox/decode/NMS;
- **per-card identity accuracy**: the labelled cards of an image are its distinct face-up classes (a card
  has up to two index boxes); the reader's cards come from ``group_cards`` at the working confidence.
  A labelled card is *found* when a read card has an index box at IoU >= 0.5 with one of its boxes, and
  *correct* when such a read card names it. Accuracy = correct / found; recall = correct / labelled;
  precision = read cards that match a labelled card of the same name / read cards, each labelled card matched
  by one read card at most (a card listed twice is right once and wrong once).

Figures are also given per kind of photo (``source_group``), since the webcam frames are the closest to
a table camera.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict

import cv2
import numpy as np

from tablewatch.models.dataset import DatasetError, read_class_names, source_group, source_of
from tablewatch.vision.boxes import box_iou
from tablewatch.vision.cards import BACK_LABEL, Card, group_cards
from tablewatch.vision.classifier import OnnxIndexClassifier
from tablewatch.vision.detector import OnnxDetector
from tablewatch.vision.reader import CARD_CONF, LONE_CARD_CONF, CardReader
from tablewatch.vision.sources import read_image
from tablewatch.vision.verifier import OnnxIndexVerifier

MAP_CONF, MAP_NMS_IOU, MATCH_IOU = 0.001, 0.7, 0.5


@dataclass
class CardTally:
    labelled: int = 0
    found: int = 0
    correct: int = 0
    read: int = 0
    read_right: int = 0
    agreed_read: int = 0
    agreed_right: int = 0

    def add(self, other: CardTally) -> None:
        for name in vars(self):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def figures(self) -> dict[str, float | int]:
        def ratio(a: int, b: int) -> float:
            return round(a / b, 4) if b else float("nan")

        return {"labelled_cards": self.labelled, "identity_accuracy": ratio(self.correct, self.found),
                "recall": ratio(self.correct, self.labelled), "precision": ratio(self.read_right, self.read),
                "agreed_cards": self.agreed_read, "agreed_precision": ratio(self.agreed_right, self.agreed_read)}


@dataclass
class ApInputs:
    """Per prediction: class, confidence, true positive at IoU 0.5; per class: number of labelled boxes."""

    cls: list[np.ndarray] = field(default_factory=list)
    conf: list[np.ndarray] = field(default_factory=list)
    tp: list[np.ndarray] = field(default_factory=list)
    n_labels: dict[int, int] = field(default_factory=lambda: defaultdict(int))


def read_labels(label_path: Path, width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    """YOLO boxes of a prepared label file as class ids and xyxy pixels."""
    rows = [line.split() for line in label_path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if not rows:
        return np.zeros(0, np.int64), np.zeros((0, 4), np.float32)
    data = np.array([[float(v) for v in row[:5]] for row in rows], dtype=np.float32)
    cx, cy, w, h = data[:, 1] * width, data[:, 2] * height, data[:, 3] * width, data[:, 4] * height
    return data[:, 0].astype(np.int64), np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1)


def match_predictions(
    pred_cls: np.ndarray, pred_xyxy: np.ndarray, gt_cls: np.ndarray, gt_xyxy: np.ndarray
) -> np.ndarray:
    """True positives at IoU 0.5: one labelled box per prediction of its class, highest IoU first."""
    tp = np.zeros(len(pred_cls), dtype=bool)
    if not len(pred_cls) or not len(gt_cls):
        return tp
    iou = box_iou(gt_xyxy, pred_xyxy) * (gt_cls[:, None] == pred_cls[None, :])
    gt_idx, pred_idx = np.nonzero(iou >= MATCH_IOU)
    if len(gt_idx):
        order = np.argsort(-iou[gt_idx, pred_idx], kind="stable")
        gt_idx, pred_idx = gt_idx[order], pred_idx[order]
        _, first = np.unique(pred_idx, return_index=True)
        gt_idx, pred_idx = gt_idx[first], pred_idx[first]
        order = np.argsort(-iou[gt_idx, pred_idx], kind="stable")
        _, first = np.unique(gt_idx[order], return_index=True)
        tp[pred_idx[order][first]] = True
    return tp


def average_precision(recall: np.ndarray, precision: np.ndarray) -> float:
    """Area under the precision envelope, sampled at 101 recall points (COCO, as ultralytics)."""
    mrec = np.concatenate(([0.0], recall, [1.0]))
    mpre = np.concatenate(([1.0], precision, [0.0]))
    mpre = np.flip(np.maximum.accumulate(np.flip(mpre)))
    x = np.linspace(0, 1, 101)
    return float(np.trapezoid(np.interp(x, mrec, mpre), x))


def map50(inputs: ApInputs) -> tuple[float, dict[int, float]]:
    cls = np.concatenate(inputs.cls) if inputs.cls else np.zeros(0, np.int64)
    conf = np.concatenate(inputs.conf) if inputs.conf else np.zeros(0, np.float32)
    tp = np.concatenate(inputs.tp) if inputs.tp else np.zeros(0, bool)
    per_class = {}
    for c, n in sorted(inputs.n_labels.items()):
        mask = cls == c
        order = np.argsort(-conf[mask], kind="stable")
        hits = tp[mask][order].astype(np.float64)
        tpc, fpc = np.cumsum(hits), np.cumsum(1 - hits)
        recall = tpc / n
        precision = tpc / np.maximum(tpc + fpc, 1e-9)
        per_class[c] = average_precision(recall, precision) if len(hits) else 0.0
    return (float(np.mean(list(per_class.values()))) if per_class else float("nan")), per_class


def tally_cards(cards: list[Card], gt_cls: np.ndarray, gt_xyxy: np.ndarray, names: dict[int, str]) -> CardTally:
    tally = CardTally(read=len(cards), agreed_read=sum(card.agreed for card in cards))
    labelled = {c for c in gt_cls.tolist() if names[c] != BACK_LABEL}
    for c in labelled:
        boxes = gt_xyxy[gt_cls == c]
        tally.labelled += 1
        near = [card for card in cards if box_iou(np.array(card.index_boxes), boxes).max(initial=0) >= MATCH_IOU]
        tally.found += bool(near)
        tally.correct += any(card.label == names[c] for card in near)
    claimed: set[str] = set()
    for card in cards:  # strongest first: the surest listing of a card is the right one
        same = gt_xyxy[gt_cls == _class_of(card.label, names)]
        right = (card.label not in claimed and len(same) > 0
                 and box_iou(np.array(card.index_boxes), same).max(initial=0) >= MATCH_IOU)
        if right:
            claimed.add(card.label)
        tally.read_right += right
        tally.agreed_right += right and card.agreed
    return tally


class SplitReport(TypedDict):
    """What ``evaluate_split`` finds on a split (printed as JSON by ``tablewatch evaluate --json``)."""

    model: str
    split: str
    images: int
    sources: int
    conf: float
    min_tile: int | None
    enlarge: float
    classifier: str | None
    verifier: str | None
    mAP50: float
    cards: dict[str, float | int]  # CardTally.figures() of every image
    by_kind: dict[str, dict[str, float | int]]  # the same by source group
    ap50_per_class: dict[str, float]


def evaluate_split(model_path: Path, split_dir: Path, *, conf: float = CARD_CONF, min_tile: int | None = None,
                   classifier_path: Path | None = None, verifier_path: Path | None = None,
                   enlarge: float = 1.0) -> SplitReport:
    """mAP50 and card identity figures of ``model_path`` on the images of ``split_dir``.

    Each image is seen whole at the model's input size (as in training), or, with ``min_tile``, also as a
    pyramid of tiles down to that size (what ``tablewatch cards`` does on large photos); with ``enlarge``, each
    image is first enlarged that many times (bicubic), as a larger camera would show the same scene.
    """
    images = sorted((split_dir / "images").glob("*")) if (split_dir / "images").is_dir() else []
    if not images:
        raise DatasetError(f"no images in {split_dir / 'images'}; prepare the dataset first ('tablewatch train').")
    detector = OnnxDetector(model_path, conf=MAP_CONF, iou=MAP_NMS_IOU)
    classifier = OnnxIndexClassifier(classifier_path) if classifier_path else None
    tiled = min_tile is not None or enlarge != 1.0  # an enlarged photo is read as `tablewatch cards` reads it
    verifier = OnnxIndexVerifier(verifier_path) if verifier_path else None
    reader = CardReader(detector, conf=MAP_CONF, tiles="auto" if tiled else "none", min_tile=min_tile,
                        classifier=classifier, verifier=verifier)
    names = reader.names
    to_reader_id = _label_ids(read_class_names(split_dir.parent), names)
    ap_inputs = ApInputs()
    tallies: dict[str, CardTally] = defaultdict(CardTally)
    for image_path in images:
        image = read_image(image_path)
        if enlarge != 1.0:
            image = cv2.resize(image, None, fx=enlarge, fy=enlarge, interpolation=cv2.INTER_CUBIC)
        gt_cls, gt_xyxy = read_labels(split_dir / "labels" / f"{image_path.stem}.txt", image.shape[1], image.shape[0])
        gt_cls = to_reader_id[gt_cls]
        found = reader.read(image).detections
        ap_inputs.cls.append(found.class_id)
        ap_inputs.conf.append(found.confidence)
        ap_inputs.tp.append(match_predictions(found.class_id, found.xyxy, gt_cls, gt_xyxy))
        for c in gt_cls.tolist():
            ap_inputs.n_labels[c] += 1
        cards = group_cards(found[found.confidence >= conf], names, one_deck=True,
                            lone_conf=max(conf, LONE_CARD_CONF))
        tallies[source_group(source_of(image_path.name))].add(tally_cards(cards, gt_cls, gt_xyxy, names))
    total = CardTally()
    for tally in tallies.values():
        total.add(tally)
    m, per_class = map50(ap_inputs)
    sources = {source_of(path.name) for path in images}
    return {"model": str(model_path), "split": str(split_dir), "images": len(images), "sources": len(sources),
            "conf": conf, "min_tile": reader.min_tile if tiled else None, "enlarge": enlarge,
            "classifier": str(classifier_path) if classifier_path else None,
            "verifier": str(verifier_path) if verifier_path else None,
            "mAP50": round(m, 4), "cards": total.figures(),
            "by_kind": {kind: tally.figures() for kind, tally in sorted(tallies.items())},
            "ap50_per_class": {names[c]: round(ap, 4) for c, ap in per_class.items()}}


def format_report(report: SplitReport) -> str:
    cards = report["cards"]
    lines = [
        f"model {report['model']}",
        f"split {report['split']}: {report['images']} images of {report['sources']} held-out source photos"
        + (f", enlarged {report['enlarge']:g} times" if report["enlarge"] != 1.0 else "")
        + (f", tiles down to {report['min_tile']} px" if report["min_tile"] else ", whole images")
        + (f", identity from crops by {report['classifier']}" if report["classifier"] else "")
        + (f", boxes verified by {report['verifier']}" if report["verifier"] else ""),
        f"mAP50 (index boxes; classes present: {len(report['ap50_per_class'])}): {report['mAP50']:.3f}",
        f"cards (conf >= {report['conf']}): {cards['labelled_cards']} labelled; identity accuracy "
        f"{cards['identity_accuracy']:.3f}, recall {cards['recall']:.3f}, precision {cards['precision']:.3f}; "
        f"{cards['agreed_cards']} read with two agreeing indices, precision {cards['agreed_precision']:.3f}",
    ]
    for kind, figures in report["by_kind"].items():
        lines.append(f"  {kind}: {figures['labelled_cards']} cards, "
                     f"identity accuracy {figures['identity_accuracy']:.3f}, "
                     f"recall {figures['recall']:.3f}, precision {figures['precision']:.3f}")
    return "\n".join(lines)


def _label_ids(dataset_names: list[str], reader_names: dict[int, str]) -> np.ndarray:
    """Dataset class id -> the reader's class id of the same name (a box-only detector + classifier
    names classes in its own order)."""
    ids = {name: c for c, name in reader_names.items()}
    missing = [name for name in dataset_names if name not in ids]
    if missing:
        raise DatasetError(f"the model can't name these dataset classes: {', '.join(missing)}.")
    return np.array([ids[name] for name in dataset_names], dtype=np.int64)


def _class_of(label: str, names: dict[int, str]) -> int:
    return next(c for c, name in names.items() if name == label)

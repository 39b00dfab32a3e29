"""Train the index verifier (``tablewatch.vision.verifier``) on the boxes the shipped reader finds; export ONNX.

Needs torch (the ``train`` extra). The samples are what the verifier will be asked about: every face-up box the
card reader keeps (detector and classifier as shipped, whole images) on the by-source splits, a box matching a
labelled index (IoU >= 0.5) a yes, a box near none (IoU < 0.25 with every labelled index) a no; the labelled
indices themselves, moved and scaled a little, are more yeses. Augmentation: quarter turns and small angles,
brightness and contrast, blur, and grey pictures (some photos have no colour).
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from tablewatch.models import schedule
from tablewatch.models.crops import jitter_box
from tablewatch.models.dataset import read_class_names
from tablewatch.models.evaluate import read_labels
from tablewatch.vision.boxes import box_iou
from tablewatch.vision.cards import BACK_LABEL
from tablewatch.vision.classifier import CROP_HW, OnnxIndexClassifier, default_classifier_path
from tablewatch.vision.detector import OnnxDetector, default_model_path
from tablewatch.vision.reader import CardReader
from tablewatch.vision.sources import read_image
from tablewatch.vision.verifier import to_blob, verifier_input

if TYPE_CHECKING:
    import torch

YES_IOU, NO_IOU = 0.5, 0.25
SAMPLE_CONF = 0.25  # boxes the reader keeps from this confidence are asked about (it lists cards from 0.4)
BASE_LR = 2e-3


@dataclass(frozen=True)
class VerifierResult:
    onnx: Path
    epochs: int
    val_auc: float
    test_auc: float


def box_samples(split_dir: Path, reader: CardReader, *, labelled_copies: int = 0, decoys: int = 0,
                enlarged: CardReader | None = None, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(N, H, W, 6) verifier inputs of a split's boxes and whether each is an index (1) or not (0).

    ``labelled_copies``: more yeses per labelled index, its box moved a little; ``decoys``: more noes per photo,
    index-sized boxes on ink away from every labelled index (``decoy_boxes``): the pips, pictures and prints the
    detector may take for an index somewhere else, where on its own training photos it seldom does; ``enlarged``:
    a tiling reader that also reads each photo enlarged twice, as a phone's or a 4K camera's larger picture is
    read, where its tiles magnify pips and pictures to an index's size (``tablewatch evaluate --enlarge``)."""
    rng = np.random.default_rng(seed)
    names = read_class_names(split_dir.parent)
    inputs: list[np.ndarray] = []
    labels: list[int] = []
    for image_path in sorted((split_dir / "images").glob("*")):
        image = read_image(image_path)
        classes, boxes = read_labels(split_dir / "labels" / f"{image_path.stem}.txt", image.shape[1], image.shape[0])
        faces = boxes[np.array([names[int(c)] != BACK_LABEL for c in classes], bool)] if len(classes) else boxes
        _found_samples(reader, image, faces, inputs, labels)
        if enlarged is not None:
            _found_samples(enlarged, cv2.resize(image, None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC), faces * 2,
                           inputs, labels)
        for box in decoy_boxes(image, faces, decoys, rng):
            inputs.append(verifier_input(image, box))
            labels.append(0)
        for box in faces:
            for _ in range(labelled_copies):
                inputs.append(verifier_input(image, jitter_box(box, rng)))
                labels.append(1)
    if not inputs:
        return np.zeros((0, *CROP_HW, 6), np.uint8), np.zeros(0, np.int64)
    return np.stack(inputs), np.asarray(labels, np.int64)


def _found_samples(reader: CardReader, image: np.ndarray, faces: np.ndarray, inputs: list[np.ndarray],
                   labels: list[int]) -> None:
    """The face-up boxes ``reader`` keeps in ``image``: a yes on a labelled index, a no away from every one."""
    found = reader.read(image).detections
    keep = np.array([reader.names[int(c)] != BACK_LABEL for c in found.class_id], bool)
    for box in found.xyxy[keep]:
        overlap = box_iou(box[None], faces).max(initial=0.0) if len(faces) else 0.0
        if overlap >= YES_IOU or overlap < NO_IOU:
            inputs.append(verifier_input(image, box))
            labels.append(int(overlap >= YES_IOU))


def decoy_boxes(image: np.ndarray, faces: np.ndarray, count: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Up to ``count`` boxes the size of a labelled index, centred on ink (strong edges) and overlapping no
    labelled index (IoU < ``NO_IOU``)."""
    if not count or not len(faces):
        return []
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    edges = np.abs(cv2.Laplacian(cv2.GaussianBlur(grey, (3, 3), 0), cv2.CV_32F))
    ys, xs = np.nonzero(edges > np.percentile(edges, 90))
    boxes: list[np.ndarray] = []
    for _ in range(8 * count):
        if len(boxes) >= count or not len(xs):
            break
        k = int(rng.integers(len(xs)))
        face = faces[int(rng.integers(len(faces)))]
        w, h = face[2:] - face[:2]
        box = np.array([xs[k] - w / 2, ys[k] - h / 2, xs[k] + w / 2, ys[k] + h / 2])
        if box_iou(box[None], faces).max(initial=0.0) < NO_IOU:
            boxes.append(box)
    return boxes


def shipped_reader(*, tiles: str = "none") -> CardReader:
    """The reader as ``tablewatch evaluate`` runs it (no verifier), keeping boxes from ``SAMPLE_CONF``."""
    classifier_path = default_classifier_path()
    if classifier_path is None:
        raise FileNotFoundError("no index classifier in tablewatch/vision/weights")
    detector = OnnxDetector(default_model_path(), conf=0.05)
    return CardReader(detector, conf=SAMPLE_CONF, tiles=tiles, classifier=OnnxIndexClassifier(classifier_path))


def build_net() -> torch.nn.Module:
    """A small CNN over the two stacked crops: one logit, "this box is a corner index"."""
    from torch import nn

    def block(c_in: int, c_out: int) -> nn.Sequential:
        return nn.Sequential(nn.Conv2d(c_in, c_out, 3, padding=1, bias=False), nn.BatchNorm2d(c_out),
                             nn.ReLU(inplace=True))

    return nn.Sequential(block(6, 24), block(24, 24), nn.MaxPool2d(2), block(24, 48), block(48, 48), nn.MaxPool2d(2),
                         block(48, 96), nn.MaxPool2d(2), block(96, 128), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                         nn.Dropout(0.2), nn.Linear(128, 1))


def augment(sample: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Both crops of a sample moved alike: a quarter turn and a small angle, light, blur, sometimes grey."""
    h, w = sample.shape[:2]
    angle = 90 * int(rng.integers(4)) + rng.uniform(-12, 12)
    matrix = cv2.getRotationMatrix2D((w / 2 + rng.uniform(-2, 2), h / 2 + rng.uniform(-2, 2)), angle,
                                     rng.uniform(0.9, 1.1))
    crops = [cv2.warpAffine(np.ascontiguousarray(sample[..., k:k + 3]), matrix, (w, h),
                            borderMode=cv2.BORDER_REPLICATE) for k in (0, 3)]
    out: np.ndarray = np.concatenate(crops, axis=2).astype(np.float32) * rng.uniform(0.7, 1.3) + rng.uniform(-30, 30)
    if rng.random() < 0.2:
        for k in (0, 3):
            out[..., k:k + 3] = out[..., k:k + 3].mean(axis=2, keepdims=True)
    if rng.random() < 0.3:
        out = cv2.GaussianBlur(out, (3, 3), 0)
    return np.clip(out, 0, 255).astype(np.uint8)


def auc(scores: np.ndarray, labels: np.ndarray) -> float:
    """The chance a random index scores above a random non-index (ties half)."""
    pos, neg = scores[labels == 1], scores[labels == 0]
    if not len(pos) or not len(neg):
        return float("nan")
    above, tied = (pos[:, None] > neg[None]).mean(), (pos[:, None] == neg[None]).mean()
    return float(above + tied / 2)


def scores_of(net: torch.nn.Module, inputs: np.ndarray) -> np.ndarray:
    import torch

    net.eval()
    with torch.no_grad():
        return np.concatenate([net(torch.from_numpy(to_blob(inputs[i:i + 256]))).numpy().ravel()
                               for i in range(0, len(inputs), 256)]) if len(inputs) else np.zeros(0)


def train_verifier(prepared: Path, out_dir: Path, *, epochs: int = 30, batch: int = 128, seed: int = 0,
                   minutes: float | None = None, decoys: int = 6) -> VerifierResult:
    """Train on ``prepared/train`` boxes, keep the best ``val`` epoch (AUC), report ``test``."""
    import torch

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    reader = shipped_reader()
    train_x, train_y = box_samples(prepared / "train", reader, labelled_copies=1, decoys=decoys,
                                   enlarged=shipped_reader(tiles="auto"), seed=seed)
    val_x, val_y = box_samples(prepared / "val", reader)
    test_x, test_y = box_samples(prepared / "test", reader)
    print(f"samples: train {len(train_y)} ({int(train_y.sum())} indices), val {len(val_y)} ({int(val_y.sum())}), "
          f"test {len(test_y)} ({int(test_y.sum())})", flush=True)
    net = build_net()
    optimizer = torch.optim.AdamW(net.parameters(), lr=BASE_LR, weight_decay=1e-4)
    loss_fn = torch.nn.BCEWithLogitsLoss(pos_weight=torch.tensor((len(train_y) - train_y.sum()) / train_y.sum()))
    out_dir.mkdir(parents=True, exist_ok=True)
    best, best_path, started, done = -1.0, out_dir / "best.pt", time.time(), 0
    steps = epochs * math.ceil(len(train_y) / batch)
    step = 0
    for epoch in range(epochs):
        if schedule.progress(step, steps, time.time() - started, minutes) >= 1:
            break
        net.train()
        order = rng.permutation(len(train_y))
        for start in range(0, len(order), batch):
            idx = order[start:start + batch]
            x = torch.from_numpy(to_blob(np.stack([augment(train_x[i], rng) for i in idx])))
            loss = loss_fn(net(x).ravel(), torch.from_numpy(train_y[idx]).float())
            for group in optimizer.param_groups:
                group["lr"] = schedule.cosine_rate(BASE_LR, schedule.progress(step, steps, time.time() - started,
                                                                              minutes))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            step += 1
        done = epoch + 1
        val_auc = auc(scores_of(net, val_x), val_y)
        print(f"epoch {done}/{epochs} loss {loss.item():.3f} val AUC {val_auc:.4f} {time.time() - started:.0f} s",
              flush=True)
        if val_auc > best:
            best = val_auc
            torch.save(net.state_dict(), best_path)
    net.load_state_dict(torch.load(best_path))
    test_auc = auc(scores_of(net, test_x), test_y)
    onnx = export_verifier(net, out_dir / f"cards-index-verify-{CROP_HW[0]}.onnx")
    (out_dir / "metrics.json").write_text(json.dumps({"val_auc": best, "test_auc": test_auc, "epochs": done,
                                                      "train_samples": len(train_y), "test_samples": len(test_y)}))
    return VerifierResult(onnx, done, best, test_auc)


def export_verifier(net: torch.nn.Module, path: Path) -> Path:
    import torch

    net.eval()
    torch.onnx.export(net, torch.zeros(1, 6, *CROP_HW), str(path), input_names=["crops"], output_names=["logits"],
                      dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}}, opset_version=17, dynamo=False)
    return path


def main() -> None:
    """``python -m tablewatch.models.verifier_train`` (train venv): prepared split in, ONNX out."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--prepared", type=Path, default=Path("out/cards-real"))
    parser.add_argument("--out", type=Path, default=Path("runs/cards-index-verify"))
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--minutes", type=float, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--decoys", type=int, default=6, help="index-sized boxes on ink taken per photo as noes")
    args = parser.parse_args()
    result = train_verifier(args.prepared, args.out, epochs=args.epochs, minutes=args.minutes, seed=args.seed,
                            decoys=args.decoys)
    print(f"{result.onnx}: {result.epochs} epochs, val AUC {result.val_auc:.4f}, test AUC {result.test_auc:.4f}")


if __name__ == "__main__":
    main()

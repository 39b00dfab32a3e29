"""Score the table-objects detector on held-out table planes (a deck and felt no training image has).

``python -m tablewatch.models.objects_evaluate [HELD_OUT_DIR]`` prints, on the planes of
``plane_dataset.make_plane_dataset(..., held_out=True)``:
- mAP50 per class (chips by denomination, hands), as ultralytics computes it, on our ONNX path;
- at the operating confidence: chip tops found (IoU 0.5 with a chip box of any denomination), their
  denomination accuracy, precision; hands found and precision;
- beside it, perception's colour rule (``Appearance.chip_value``) on the same plane pixels of each labelled
  chip top: what the detector's denomination is measured against (perception itself reads a chip's colour
  from the camera frame at up to 1 px/mm, where the plane has 0.3);
- the detector's time per plane on this machine.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from pathlib import Path
from typing import TypedDict

import cv2
import numpy as np

from tablewatch.calibration.chips import painted_chip_colours
from tablewatch.calibration.layout import load_layout
from tablewatch.models.evaluate import MATCH_IOU, ApInputs, map50, match_predictions, read_labels
from tablewatch.models.plane_dataset import OBJECT_CLASSES, held_out_planes
from tablewatch.vision.boxes import box_iou
from tablewatch.vision.perception.appearance import Appearance
from tablewatch.vision.perception.plane import plane_frame
from tablewatch.vision.table_objects import OBJECTS_CONF, OBJECTS_MODEL, PLANE_PX_PER_MM, TableObjectDetector

HAND = OBJECT_CLASSES.index("hand")


class ObjectsReport(TypedDict):
    planes: int
    map50: float
    per_class: dict[str, float]  # AP50 by class name
    tally: dict[str, int]  # chips and hands labelled, detected, found, right (see _tally)
    colour: dict[str, int]  # labelled chip tops, and those the colour rule values right
    ms_per_plane: float
    conf: float


def felt_mask(shape: tuple[int, int], layout: str = "oval10") -> np.ndarray:
    """The felt on a plane picture of ``layout`` (the plane's frame is the layout's, whatever the camera)."""
    lay = load_layout(layout)
    origin, _ = plane_frame(lay, PLANE_PX_PER_MM)
    pts = np.round((np.asarray(lay.polygon("felt"), float) - origin) * PLANE_PX_PER_MM).astype(np.int32)
    mask = np.zeros(shape, np.uint8)
    cv2.fillPoly(mask, [pts], 255)
    return mask > 0


def colour_rule(plane_picture: np.ndarray, box: np.ndarray, look: Appearance) -> int | None:
    """Perception's colour rule on the disc of a labelled chip top."""
    x0, y0, x1, y1 = np.round(box).astype(int)
    crop = plane_picture[y0:y1, x0:x1]
    h, w = crop.shape[:2]
    yy, xx = np.ogrid[:h, :w]
    disc = (xx - (w - 1) / 2) ** 2 / max(w / 2, 1) ** 2 + (yy - (h - 1) / 2) ** 2 / max(h / 2, 1) ** 2 <= 1
    return look.chip_value(crop[disc]) if disc.any() else None


def evaluate(held_out: Path, model: Path = OBJECTS_MODEL, *, conf: float = OBJECTS_CONF) -> ObjectsReport:
    scoring = TableObjectDetector(model, conf=0.001)  # every box, for mAP
    ap = ApInputs()
    tally: Counter[str] = Counter()
    colour: Counter[str] = Counter()
    chip_values = [int(n.removeprefix("chip_")) for n in OBJECT_CLASSES if n.startswith("chip_")]
    felt_area: np.ndarray | None = None
    seconds, images = 0.0, sorted((held_out_planes(held_out) / "images").glob("*/*.png"))
    if not images:
        raise SystemExit(f"no held-out planes under {held_out}/images (delete the folder to have them made again)")
    for path in images:
        picture = cv2.imread(str(path))
        if picture is None:
            raise SystemExit(f"can't read the held-out plane {path}")
        gt_cls, gt_xyxy = read_labels(path.parent.parent.parent / "labels" / path.parent.name / f"{path.stem}.txt",
                                      picture.shape[1], picture.shape[0])
        t0 = time.perf_counter()
        found = scoring.detector.detect(picture)
        seconds += time.perf_counter() - t0
        ap.cls.append(found.class_id)
        ap.conf.append(found.confidence)
        ap.tp.append(match_predictions(found.class_id, found.xyxy, gt_cls, gt_xyxy))
        for c in gt_cls:
            ap.n_labels[int(c)] += 1
        kept = found[found.confidence >= conf]
        _tally(tally, kept.class_id, kept.xyxy, gt_cls, gt_xyxy)
        if felt_area is None or felt_area.shape != picture.shape[:2]:
            felt_area = felt_mask(picture.shape[:2])
        felt = np.median(picture[felt_area], axis=0)
        look = Appearance(felt_bgr=felt, chips=painted_chip_colours(), deck=None, px_per_mm=PLANE_PX_PER_MM)
        for c, box in zip(gt_cls, gt_xyxy, strict=True):
            if c != HAND:
                colour["chips"] += 1
                colour["right"] += colour_rule(picture, box, look) == chip_values[c]
    mean, per_class = map50(ap)
    return {"planes": len(images), "map50": mean, "per_class": {OBJECT_CLASSES[c]: v for c, v in per_class.items()},
            "tally": dict(tally), "colour": dict(colour), "ms_per_plane": 1000 * seconds / len(images), "conf": conf}


def _tally(tally: Counter[str], cls: np.ndarray, xyxy: np.ndarray, gt_cls: np.ndarray, gt_xyxy: np.ndarray) -> None:
    """Chips and hands matched one to one at IoU 0.5 whatever the denomination; then the denomination."""
    for is_hand in (False, True):
        pred = np.flatnonzero((cls == HAND) == is_hand)
        gt = np.flatnonzero((gt_cls == HAND) == is_hand)
        kind = "hands" if is_hand else "chips"
        tally[f"{kind}_labelled"] += len(gt)
        tally[f"{kind}_detected"] += len(pred)
        if not len(pred) or not len(gt):
            continue
        iou = box_iou(gt_xyxy[gt], xyxy[pred])
        pairs = sorted(zip(*np.nonzero(iou >= MATCH_IOU), strict=True), key=lambda ij: -iou[ij])
        used_gt, used_pred = set(), set()
        for i, j in pairs:
            if i in used_gt or j in used_pred:
                continue
            used_gt.add(i)
            used_pred.add(j)
            tally[f"{kind}_found"] += 1
            tally[f"{kind}_right"] += cls[pred[j]] == gt_cls[gt[i]]


def format_report(r: ObjectsReport) -> str:
    t, c = r["tally"], r["colour"]

    def pct(n: int, d: int) -> str:
        return f"{100 * n / d:.1f} % ({n}/{d})" if d else "n/a"

    lines = [f"held-out planes: {r['planes']}   mAP50 {r['map50']:.3f}   "
             + "  ".join(f"{k} {v:.3f}" for k, v in r["per_class"].items()),
             f"at confidence {r['conf']}:",
             f"  chip tops found {pct(t.get('chips_found', 0), t.get('chips_labelled', 0))}, "
             f"denomination right {pct(t.get('chips_right', 0), t.get('chips_found', 0))}, "
             f"precision {pct(t.get('chips_found', 0), t.get('chips_detected', 0))}",
             f"  hands found {pct(t.get('hands_found', 0), t.get('hands_labelled', 0))}, "
             f"precision {pct(t.get('hands_found', 0), t.get('hands_detected', 0))}",
             f"colour rule on the same plane pixels of the labelled chip tops: "
             f"{pct(c.get('right', 0), c.get('chips', 0))}",
             f"detector: {r['ms_per_plane']:.0f} ms per plane (whole plane, one pass)"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("held_out", type=Path, nargs="?", default=Path("out/plane-objects-held-out"))
    parser.add_argument("--model", type=Path, default=OBJECTS_MODEL)
    parser.add_argument("--conf", type=float, default=OBJECTS_CONF)
    args = parser.parse_args(argv)
    print(format_report(evaluate(args.held_out, args.model, conf=args.conf)))


if __name__ == "__main__":
    main()

"""Train the table-objects detector (chips by denomination, hands) on simulated table planes; one command.

``python -m tablewatch.models.objects_train`` (train venv) renders the training tiles and the held-out
planes (``plane_dataset``; deterministic from ``--seed``), trains a YOLO from its YAML architecture (random
init, or layers copied from a local ``--init`` of ours), exports ONNX at the whole plane's size, so run time
reads a plane in one pass, and once more at the size of the regions perception reads to find a hand it lost
(``vision.perception.hand_finder``), and with ``--ship`` copies them into ``tablewatch/vision/weights/``.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from tablewatch.models.plane_dataset import TILE, held_out_planes, make_plane_dataset, plane_input_hw
from tablewatch.models.train import export_onnx, train_detector
from tablewatch.vision.detector import MODELS_DIR
from tablewatch.vision.perception.hand_finder import REGION_INPUT_PX, REGION_MODEL

OBJECTS_STEM = "table-objects-yolo11n-plane"
REGION_STEM = REGION_MODEL.stem  # the same weights, exported for a region's input


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("out/plane-objects"), help="training tiles (made if missing)")
    parser.add_argument("--held-out", type=Path, default=Path("out/plane-objects-held-out"),
                        help="held-out planes: deck and felt no training image has (made if missing)")
    parser.add_argument("--frames", type=int, default=250, help="rendered frames for training (6 tiles each)")
    parser.add_argument("--hours", type=float, default=1.4, help="training time; the schedule is fitted to it")
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--init", type=Path, default=None, help="a local .pt of ours to copy matching layers from")
    parser.add_argument("--run-dir", type=Path, default=Path("runs") / OBJECTS_STEM)
    parser.add_argument("--ship", action="store_true", help="copy the weights into tablewatch/vision/weights/")
    args = parser.parse_args(argv)
    if not (args.data / "data.yaml").exists():
        print(make_plane_dataset(args.data, count=args.frames, seed=args.seed))
    held_out_planes(args.held_out)
    result = train_detector(args.data / "data.yaml", imgsz=TILE, hours=args.hours, batch=args.batch,
                            run_dir=args.run_dir.resolve(), seed=args.seed, init=args.init, fliplr=0.5)
    onnx = export_onnx(result.best_pt, imgsz=plane_input_hw())
    region_pt = result.best_pt.with_name(f"{REGION_STEM}.pt")  # the export is named after its weights
    shutil.copyfile(result.best_pt, region_pt)
    region_onnx = export_onnx(region_pt, imgsz=REGION_INPUT_PX)
    print(f"trained {result.epochs_done} epochs in {result.seconds / 60:.1f} min: {result.best_pt}, {onnx}, "
          f"{region_onnx}")
    if args.ship:
        for source, name in ((result.best_pt, f"{OBJECTS_STEM}.pt"), (onnx, f"{OBJECTS_STEM}.onnx"),
                             (region_onnx, REGION_MODEL.name)):
            shutil.copyfile(source, MODELS_DIR / name)
        print(f"shipped {OBJECTS_STEM}.pt and .onnx, {REGION_MODEL.name} into {MODELS_DIR}")


if __name__ == "__main__":
    main()

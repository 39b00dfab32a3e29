"""Train a detector (cards, table objects) with ultralytics from a YAML architecture (random init); export it.

Needs the ``train`` extra (torch, ultralytics) — install it in its own venv (``.venv-train``); nothing at
run time imports this module. Ultralytics is made to work without a network: its settings live in the
project's ``out/`` folder, the font its dataset checks ask for is copied from matplotlib, and only
``*.yaml`` architectures are accepted, because any ``*.pt`` name it can't find would be downloaded.
"""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tablewatch.vision.detector import MODELS_DIR

if TYPE_CHECKING:
    from ultralytics import YOLO

PROJECT_ROOT = Path(__file__).resolve().parents[2]
OUT_DIR = PROJECT_ROOT / "out"
ARCHITECTURES = ("yolo11n.yaml", "yolov8n.yaml", "yolo11s.yaml", "yolov8s.yaml")


class TrainingError(RuntimeError):
    """Training can't start or finish; the message says why."""


@dataclass(frozen=True)
class TrainResult:
    run_dir: Path
    best_pt: Path
    onnx: Path
    epochs_done: int
    seconds: float


def offline_ultralytics(config_dir: Path | None = None) -> Path:
    """Point ultralytics at a settings folder of ours and keep it off the network. Call before importing it."""
    config_dir = (config_dir or OUT_DIR / "yolo-config").resolve()
    (config_dir / "Ultralytics").mkdir(parents=True, exist_ok=True)
    os.environ["YOLO_CONFIG_DIR"] = str(config_dir)
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ["YOLO_AUTOINSTALL"] = "false"
    font = config_dir / "Ultralytics" / "Arial.ttf"
    if not font.exists():
        shutil.copyfile(_any_ttf(), font)  # dataset checks ask for Arial.ttf even with plots=False
    return config_dir


def _any_ttf() -> Path:
    try:
        import matplotlib
    except ImportError as exc:
        raise TrainingError("matplotlib (a dependency of ultralytics) is missing: install the 'train' extra.") from exc
    font = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
    if not font.exists():
        raise TrainingError(f"no TTF font found at {font} to stand in for Arial.ttf.")
    return font


def _import_yolo() -> type[YOLO]:
    offline_ultralytics()
    try:
        from ultralytics import YOLO, settings
    except ImportError as exc:
        raise TrainingError(
            "ultralytics is not installed here: training runs in the 'train' venv "
            "(python3 -m venv .venv-train && .venv-train/bin/pip install -e '.[train]')."
        ) from exc
    settings.update({"sync": False})
    return YOLO  # type: ignore[no-any-return, unused-ignore]  # ultralytics is Any where it is not installed


def train_detector(
    data_yaml: Path,
    *,
    arch: str = "yolo11n.yaml",
    imgsz: int = 320,
    epochs: int = 100,
    hours: float | None = None,
    batch: int = 16,
    run_dir: Path,
    workers: int = 0,
    seed: int = 0,
    resume: bool = False,
    init: Path | None = None,
    fliplr: float = 0.0,
    device: str = "cpu",
) -> TrainResult:
    """Train from scratch; ``hours`` (if given) overrides ``epochs`` and fits the schedule to the time.

    A checkpoint (``weights/last.pt`` and ``best.pt``) is written every epoch, so a stopped run still
    leaves weights; ``resume`` continues ``run_dir``'s ``last.pt``.
    """
    if arch not in ARCHITECTURES:
        raise TrainingError(f"architecture {arch!r} is not one of {', '.join(ARCHITECTURES)} (random init only).")
    YOLO = _import_yolo()
    started = time.time()
    last = run_dir / "weights" / "last.pt"
    if resume:
        if not last.exists():
            raise TrainingError(f"nothing to resume: {last} does not exist.")
        YOLO(str(last)).train(resume=True)
    else:
        model = YOLO(arch)
        if init is not None:
            if not init.is_file():
                raise TrainingError(f"--init weights not found: {init} (only local files; nothing is downloaded).")
            model.load(str(init))
        model.train(
            data=str(data_yaml.resolve()),
            imgsz=imgsz,
            epochs=epochs,
            time=hours,
            batch=batch,
            workers=workers,
            device=device,
            project=str(run_dir.parent.resolve()),
            name=run_dir.name,
            exist_ok=True,
            seed=seed,
            deterministic=True,
            pretrained=str(init) if init is not None else False,
            cache=True,
            plots=False,
            amp=device != "cpu",  # mixed precision on a GPU only
            patience=1000,
            fliplr=fliplr,  # default 0: a mirrored corner index is never seen on a table
            verbose=True,
        )
    best = run_dir / "weights" / "best.pt"
    if not best.exists():
        best = last
    onnx = export_onnx(best, imgsz=imgsz)
    return TrainResult(run_dir, best, onnx, _epochs_done(run_dir), time.time() - started)


def export_onnx(weights: Path, *, imgsz: int | tuple[int, int]) -> Path:
    """Export ``weights`` to ONNX (opset the ultralytics default, fixed input size (``imgsz`` or (h, w)), no NMS
    in the graph)."""
    YOLO = _import_yolo()
    path = YOLO(str(weights)).export(format="onnx", imgsz=imgsz, simplify=True, dynamic=False, nms=False)
    return Path(path)


def model_stem(arch: str, imgsz: int, kind: str = "") -> str:
    """``cards-[<kind>-]<arch>-<imgsz>``: the name of a run folder and of the shipped files."""
    return "-".join(part for part in ("cards", kind, arch.removesuffix(".yaml"), str(imgsz)) if part)


def ship(
    result_pt: Path, result_onnx: Path, *, arch: str, imgsz: int, models_dir: Path = MODELS_DIR, kind: str = ""
) -> tuple[Path, Path]:
    """Copy the weights into ``tablewatch/vision/weights/`` as ``cards-[<kind>-]<arch>-<imgsz>.{pt,onnx}``."""
    stem = model_stem(arch, imgsz, kind)
    models_dir.mkdir(parents=True, exist_ok=True)
    pt, onnx = models_dir / f"{stem}.pt", models_dir / f"{stem}.onnx"
    shutil.copyfile(result_pt, pt)
    shutil.copyfile(result_onnx, onnx)
    return pt, onnx


def _epochs_done(run_dir: Path) -> int:
    results = run_dir / "results.csv"
    if not results.exists():
        return 0
    return max(0, len(results.read_text(encoding="utf-8").strip().splitlines()) - 1)

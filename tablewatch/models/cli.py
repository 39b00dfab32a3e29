"""``tablewatch train`` and ``tablewatch evaluate``: the card detector on the real photos, split by source."""

from __future__ import annotations

from pathlib import Path

import click

from tablewatch.models.dataset import DatasetError
from tablewatch.shared import shared_dir
from tablewatch.vision.reader import CARD_CONF

DEFAULT_DATA = shared_dir() / "data" / "cards-real"
DEFAULT_PREPARED = Path("out/cards-real")


@click.command()
@click.option("--data", "data_root", type=click.Path(path_type=Path), default=DEFAULT_DATA, show_default=True,
              help="Roboflow export with train/valid/test folders and data.yaml.")
@click.option("--prepared", type=click.Path(path_type=Path), default=DEFAULT_PREPARED, show_default=True,
              help="Where the by-source split is written (symlinks, labels, data.yaml, split.json).")
@click.option("--arch", default="yolo11n.yaml", show_default=True, help="Ultralytics YAML architecture.")
@click.option("--imgsz", type=click.IntRange(64, 1280), default=320, show_default=True)
@click.option("--epochs", type=click.IntRange(1, 10000), default=100, show_default=True)
@click.option("--hours", type=click.FloatRange(0.01, 100), default=None,
              help="Train for this long instead (the schedule is fitted to the time).")
@click.option("--batch", type=click.IntRange(1, 512), default=16, show_default=True)
@click.option("--run-dir", type=click.Path(path_type=Path), default=None,
              help="Run folder (default runs/cards-<arch>-<imgsz>).")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--resume", is_flag=True, help="Continue the run folder's last.pt.")
@click.option("--index-only", is_flag=True,
              help="Two classes, INDEX and BACK: a box finder for the identity classifier (names it 'cards-boxes-…').")
@click.option("--init", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="Start from this local .pt of ours (layers of matching shape are copied).")
@click.option("--ship/--no-ship", default=True, show_default=True,
              help="Copy the weights into tablewatch/vision/weights/ (shipped in the package).")
@click.option("--device", default="cpu", show_default=True,
              help="Where to train: cpu, or a CUDA device number (0); on a GPU in mixed precision.")
@click.option("--workers", type=click.IntRange(0, 64), default=0, show_default=True,
              help="Processes loading the images (0: in the training process).")
def train(
    data_root: Path, prepared: Path, arch: str, imgsz: int, epochs: int, hours: float | None, batch: int,
    run_dir: Path | None, seed: int, resume: bool, index_only: bool, init: Path | None, ship: bool, device: str,
    workers: int,
) -> None:
    """Train the card detector from scratch on the real photos (needs the 'train' extra)."""
    from tablewatch.models.dataset import prepare_dataset
    from tablewatch.models.train import TrainingError, model_stem, train_detector
    from tablewatch.models.train import ship as ship_weights

    kind = "boxes" if index_only else ""
    run_dir = run_dir or Path("runs") / model_stem(arch, imgsz, kind)
    try:
        data_yaml = (prepare_dataset(data_root, prepared, seed=seed, index_only=index_only) if not resume
                     else prepared / "data.yaml")
        click.echo(f"dataset: {data_yaml}")
        result = train_detector(data_yaml, arch=arch, imgsz=imgsz, epochs=epochs, hours=hours, batch=batch,
                                run_dir=run_dir.resolve(), seed=seed, resume=resume, init=init, device=device,
                                workers=workers)
    except (DatasetError, TrainingError) as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"trained {result.epochs_done} epochs in {result.seconds / 60:.1f} min: {result.best_pt}")
    if ship:
        pt, onnx = ship_weights(result.best_pt, result.onnx, arch=arch, imgsz=imgsz, kind=kind)
        click.echo(f"shipped {pt} and {onnx}")


@click.command()
@click.option("--model", type=click.Path(path_type=Path), default=None,
              help="ONNX model (default: the one shipped in tablewatch/vision/weights/).")
@click.option("--prepared", type=click.Path(path_type=Path), default=DEFAULT_PREPARED, show_default=True,
              help="Prepared dataset (from 'tablewatch train'); its test split is scored.")
@click.option("--data", "data_root", type=click.Path(path_type=Path), default=DEFAULT_DATA, show_default=True,
              help="Used to prepare the split when --prepared does not exist yet.")
@click.option("--split", type=click.Choice(["test", "val", "train"]), default="test", show_default=True)
@click.option("--conf", type=click.FloatRange(0, 1), default=CARD_CONF, show_default=True,
              help="Confidence threshold for identity accuracy (mAP uses every box).")
@click.option("--min-tile", type=click.IntRange(64, 10000), default=None,
              help="Also read tiles down to this many pixels (default: whole images only, as in training).")
@click.option("--classifier", default="auto", show_default=True,
              help="Index classifier ONNX for identity from crops: a path, 'auto' (the shipped one if any) or 'none'.")
@click.option("--enlarge", type=click.FloatRange(1.0, 8.0), default=1.0, show_default=True,
              help="Enlarge each photo this many times first and read it as `tablewatch cards` does (the tile "
                   "pyramid down to --min-tile, by default twice the model's input): a phone's or a 4K camera's "
                   "larger picture.")
@click.option("--verifier", default="auto", show_default=True,
              help="Index verifier ONNX (drops boxes that are no card's corner): a path, 'auto' or 'none'.")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
def evaluate(
    model: Path | None, prepared: Path, data_root: Path, split: str, conf: float, min_tile: int | None,
    classifier: str, verifier: str, enlarge: float, as_json: bool,
) -> None:
    """Score a detector on held-out source photos: mAP50 and per-card identity accuracy."""
    import json

    from tablewatch.models.dataset import prepare_dataset
    from tablewatch.models.evaluate import evaluate_split, format_report
    from tablewatch.vision.classifier import resolve_classifier
    from tablewatch.vision.detector import DetectorError, default_model_path
    from tablewatch.vision.verifier import resolve_verifier

    try:
        if not (prepared / "split.json").exists():
            prepare_dataset(data_root, prepared)
        report = evaluate_split(model or default_model_path(), prepared / split, conf=conf, min_tile=min_tile,
                                classifier_path=resolve_classifier(classifier),
                                verifier_path=resolve_verifier(verifier), enlarge=enlarge)
    except (DatasetError, DetectorError) as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(json.dumps(report, indent=1) if as_json else format_report(report))

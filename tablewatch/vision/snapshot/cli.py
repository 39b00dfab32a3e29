"""``tablewatch snapshot IMAGE|FOLDER...``: a whole table in one still: the board, the players' cards, the
chips on the felt by colour (see docs/snapshot.md)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp", ".ppm", ".pgm")


def expand_images(paths: tuple[Path, ...]) -> list[Path]:
    """The images named, a folder standing for the image files directly in it (sorted)."""
    images: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = sorted(p for p in path.iterdir() if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES)
            if not found:
                raise click.ClickException(f"no images ({', '.join(IMAGE_SUFFIXES)}) in the folder {path}")
            images += found
        else:
            images.append(path)
    return images


@click.command()
@click.argument("images", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print JSON: an object for one image, a list for several.")
@click.option("--annotate", "annotate_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Write each image with what was read drawn on it, as OUT_DIR/<name>.snapshot.jpg.")
@click.option("--chips", "chips_spec", default=None, metavar="CHIPSET",
              help="The chip set: a TOML file, or inline 'white=1,red=5,blue=10,green=25,black=100' "
                   "(colours and values). Default: white, red, green, blue, black, no values.")
@click.option("--classifier", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Index classifier ONNX (default: the shipped one).")
def snapshot(images: tuple[Path, ...], as_json: bool, annotate_dir: Path | None, chips_spec: str | None,
             classifier: Path | None) -> None:
    """Read a whole table from still photos taken from above: the board, each player's cards (face up read,
    face down counted), the chips on the felt by colour, chips off the table apart, the dealer button."""
    from tqdm import tqdm

    from tablewatch.vision.detector import DetectorError
    from tablewatch.vision.snapshot.chipset import ChipSetError, parse_chip_set
    from tablewatch.vision.snapshot.draw import write_annotated
    from tablewatch.vision.snapshot.reader import SnapshotReader
    from tablewatch.vision.snapshot.still import load_still
    from tablewatch.vision.snapshot.table import TableNotFound

    paths = expand_images(images)
    try:
        chip_set = parse_chip_set(chips_spec) if chips_spec else None
        reader = SnapshotReader(chip_set=chip_set, classifier=classifier)
    except (ChipSetError, DetectorError) as exc:
        raise click.ClickException(str(exc)) from exc
    results: list[dict[str, Any]] = []
    failed = 0
    progress = tqdm(paths, desc="snapshot", unit="photo", disable=len(paths) < 2, file=sys.stderr)
    for path in progress:
        try:
            still = load_still(path)
            shot = reader.read_still(still)
            if annotate_dir is not None:
                write_annotated(annotate_dir / f"{path.stem}.snapshot.jpg", still.detail, shot)
        except (ValueError, TableNotFound) as exc:  # ImageError, ChipSetError and TableNotFound are ValueErrors
            failed += 1
            if len(paths) == 1:
                raise click.ClickException(str(exc)) from exc
            progress.write(f"error: {exc}", file=sys.stderr)
            results.append({"image": str(path), "error": str(exc)})
            continue
        payload = shot.to_dict()
        results.append(payload)
        if not as_json:
            progress.write(_describe(payload))
    if as_json:
        click.echo(json.dumps(results[0] if len(results) == 1 else results, indent=1))
    if failed:
        raise click.ClickException(f"{failed} of {len(paths)} images could not be read")


def _describe(payload: dict[str, Any]) -> str:
    board = " ".join(c or "??" for c in payload["board"]) or "none"
    lines = [f"{payload['image']}: {payload['width']}x{payload['height']}, {payload['seconds']:.2f} s",
             f"  board: {board}"]
    for player in payload["players"]:
        cards = " ".join(c or "??" for c in player["cards"])
        extra = []
        if player["face_down"]:
            extra.append(f"{player['face_down']} face down")
        if player["unknown"]:
            extra.append(f"{player['unknown']} not seen")
        lines.append(f"  seat {player['seat']}: {cards or '-'}" + (f" ({', '.join(extra)})" if extra else ""))
    chips = ", ".join(f"{n} {c}" for n, c in payload["chips"].items()) or "none"
    lines.append(f"  chips on the table: {chips}")
    if "chips_total" in payload:
        lines.append(f"  value on the table: {payload['chips_total']:g}")
    if payload["rack"]:
        lines.append("  off the table: " + ", ".join(f"{n} {c}" for n, c in payload["rack"].items()))
    if payload["button"]:
        lines.append(f"  dealer button at {payload['button'][0]:.0f}, {payload['button'][1]:.0f}")
    lines += [f"  note: {note}" for note in payload["notes"]]
    return "\n".join(lines)

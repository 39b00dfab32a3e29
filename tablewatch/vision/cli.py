"""``tablewatch cards IMAGE``: face-up cards in any photo."""

from __future__ import annotations

import json
from pathlib import Path

import click

from tablewatch.vision.detector import DetectorError
from tablewatch.vision.reader import CARD_CONF
from tablewatch.vision.sources import SourceError


@click.command()
@click.argument("image", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the cards as JSON.")
@click.option("--annotate", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write a copy of the image with the cards drawn (e.g. OUT.png).")
@click.option("--model", type=click.Path(path_type=Path), default=None, help="ONNX model (default: the shipped one).")
@click.option("--conf", type=click.FloatRange(0.0, 1.0), default=CARD_CONF, show_default=True,
              help="Confidence threshold.")
@click.option("--tiles", type=click.Choice(["auto", "none"]), default="auto", show_default=True,
              help="auto: also look at overlapping tiles, so small cards in a big photo are read.")
@click.option("--min-tile", type=click.IntRange(64, 100000), default=None,
              help="Smallest tile side in pixels (default: twice the model input).")
@click.option("--classifier", default="auto", show_default=True,
              help="Index classifier ONNX (identity from crops): a path, 'auto' (the shipped one if any) or 'none'.")
@click.option("--verifier", default="auto", show_default=True,
              help="Index verifier ONNX (drops boxes that are no card's corner): a path, 'auto' or 'none'.")
def cards(image: Path, as_json: bool, annotate: Path | None, model: Path | None, conf: float, tiles: str,
          min_tile: int | None, classifier: str, verifier: str) -> None:
    """List the face-up cards recognised in IMAGE, with boxes and confidences."""
    from tablewatch.vision.annotate import draw_cards, write_image
    from tablewatch.vision.reader import CardReader, crop_models
    from tablewatch.vision.sources import read_image

    try:
        picture = read_image(image)
        index_classifier, index_verifier = crop_models(classifier, verifier)
        reader = CardReader(model_path=model, conf=conf, tiles=tiles, min_tile=min_tile, classifier=index_classifier,
                            verifier=index_verifier)
        reading = reader.read(picture)
        if annotate is not None:
            write_image(str(annotate), draw_cards(picture, reading.cards))
    except (SourceError, DetectorError, ValueError) as exc:
        raise click.ClickException(str(exc)) from exc
    if as_json:
        payload = {"image": str(image), "width": picture.shape[1], "height": picture.shape[0],
                   "model": str(reader.detector.path), "windows": reading.windows, "backs": reading.backs,
                   "cards": [card.to_dict() for card in reading.cards]}
        click.echo(json.dumps(payload, indent=1))
        return
    click.echo(f"{image}: {picture.shape[1]}x{picture.shape[0]}, {len(reading.cards)} face-up cards "
               f"({reading.windows} windows, {reading.backs} backs)")
    for card in reading.cards:
        x0, y0, x1, y1 = card.box
        how = "2 indices agree" if card.agreed else f"{len(card.index_boxes)} index"
        extra = f", also read as {'/'.join(card.alternatives)}" if card.alternatives else ""
        box = f"({x0:.0f}, {y0:.0f}, {x1:.0f}, {y1:.0f})"
        click.echo(f"  {card.card or card.label:<12} {card.confidence:.2f}  box {box}  {how}{extra}")

"""``tablewatch bench-snapshot FOLDER``: how well ``tablewatch snapshot`` reads labelled photos of whole tables.

The labels are a ``labels.csv`` of the table-photos form (``shared/data/table-photos``): one row a photo
(``Image``: its name without extension), the board ``T1``–``T5``, the players' cards ``P1.1``–``P4.2``
(``null``: face down or no player), and the chips on the table by colour: ``R G B K W`` (red, green, blue,
black, white; a rack's chips are not counted). Per photo:

- **cards**: a card is right when its identity is among the photo's labelled cards, once (a card listed twice
  is right once and wrong once; recall: right / labelled; precision: right / cards listed); *placed right*
  when it is also on the board or in the seat the label gives (seats numbered as ``snapshot`` numbers them);
- **chips**: each (photo, colour) pair is right when the count on the table is exactly the label's;
- **seconds**: the wall time of one photo, decoding included.

``--baseline cards`` also scores ``tablewatch cards`` (the detector and index classifier on tiles) on the
same photos, by the same card rule (it counts no chips).
"""

from __future__ import annotations

import csv
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from tablewatch.vision.cards import pokerkit_card

BOARD = ("T1", "T2", "T3", "T4", "T5")
PLAYERS = tuple(f"P{seat}.{k}" for seat in range(1, 5) for k in (1, 2))
CHIP_COLUMNS = {"R": "red", "G": "green", "B": "blue", "K": "black", "W": "white"}
DEVELOPMENT_NOTE = ("These 5 photos are the development set: the reader was built looking at them, and a few of its "
                    "rules and thresholds were chosen or changed after seeing its mistakes there. These figures say "
                    "how it does on its own development photos, not how it does on unseen ones.")


class LabelsError(ValueError):
    """A labels file that can't be read."""


@dataclass(frozen=True)
class Truth:
    image: str
    board: tuple[str, ...]
    seats: dict[int, tuple[str, ...]]
    chips: dict[str, int]

    @property
    def cards(self) -> set[str]:
        return set(self.board) | {c for cards in self.seats.values() for c in cards}


@dataclass
class PhotoScore:
    image: str
    labelled: int
    read: int
    right: int
    placed: int
    chip_pairs: int
    chip_pairs_right: int
    seconds: float
    wrong: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)
    chips: dict[str, tuple[int, int]] = field(default_factory=dict)  # colour -> (read, labelled)

    def to_dict(self) -> dict[str, Any]:
        return {"image": self.image, "labelled": self.labelled, "read": self.read, "right": self.right,
                "placed_right": self.placed, "recall": _ratio(self.right, self.labelled),
                "precision": _ratio(self.right, self.read), "chip_pairs_right": self.chip_pairs_right,
                "chip_pairs": self.chip_pairs, "seconds": round(self.seconds, 3), "wrong": self.wrong,
                "missed": self.missed, "chips": {k: {"read": r, "labelled": t} for k, (r, t) in self.chips.items()}}


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 4) if b else None


def _card(label: str) -> str | None:
    label = label.strip().upper()
    if label in {"", "NULL", "NONE"}:
        return None
    card = pokerkit_card(label)
    if card is None:
        raise LabelsError(f"not a card: {label!r}")
    return card


def load_labels(path: Path) -> list[Truth]:
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
    except OSError as exc:
        raise LabelsError(f"cannot read the labels {path}: {exc.strerror or exc}") from exc
    if not rows or "Image" not in rows[0]:
        raise LabelsError(f"{path}: expected a CSV with an Image column (the table-photos labels form)")
    truths = []
    for row in rows:
        try:
            board = tuple(c for c in (_card(row.get(k) or "") for k in BOARD) if c)
            seats = {}
            for seat in range(1, 5):
                cards = tuple(c for c in (_card(row.get(f"P{seat}.{k}") or "") for k in (1, 2)) if c)
                if cards:
                    seats[seat] = cards
            chips = {name: int(row[col]) for col, name in CHIP_COLUMNS.items() if (row.get(col) or "").strip()}
        except (LabelsError, ValueError) as exc:
            raise LabelsError(f"{path}, {row.get('Image')}: {exc}") from exc
        truths.append(Truth(row["Image"].strip(), board, seats, chips))
    return truths


def find_photo(folder: Path, name: str) -> Path | None:
    for path in sorted(folder.iterdir()):
        if path.is_file() and path.stem.lower() == name.lower() and path.suffix.lower() in {".jpg", ".jpeg", ".png"}:
            return path
    return None


def score_cards(truth: Truth, read: list[str], placed: dict[str, str]) -> tuple[int, int, list[str], list[str]]:
    """(right, placed right, wrong, missed) for the identities read (``placed``: card -> "board"/"seat N")."""
    labelled = truth.cards
    right: list[str] = []
    wrong: list[str] = []
    for card in read:  # a card listed twice is right once: the second listing is wrong
        if card in labelled and card not in right:
            right.append(card)
        else:
            wrong.append(card if card not in labelled else f"{card}(again)")
    wrong.sort()
    missed = sorted(labelled - set(read))
    where = {c: "board" for c in truth.board} | {c: f"seat {s}" for s, cards in truth.seats.items() for c in cards}
    placed_right = sum(placed.get(c) == where[c] for c in right)
    return len(right), placed_right, wrong, missed


def run_snapshot(truths: list[Truth], folder: Path, progress: Any) -> list[PhotoScore]:
    from tablewatch.vision.snapshot.reader import SnapshotReader

    reader = SnapshotReader()
    scores = []
    for truth in progress(truths):
        path = find_photo(folder, truth.image)
        if path is None:
            raise click.ClickException(f"no photo for {truth.image} in {folder}")
        start = time.perf_counter()
        shot = reader.read(path)
        seconds = time.perf_counter() - start
        read = [c.card for c in shot.cards if c.card]
        placed = {c.card: c.place for c in shot.cards if c.card}
        right, placed_right, wrong, missed = score_cards(truth, read, placed)
        counts = shot.chip_counts()
        chips = {name: (counts.get(name, 0), truth.chips[name])
                 for name in CHIP_COLUMNS.values() if name in truth.chips}
        scores.append(PhotoScore(truth.image, len(truth.cards), len(read), right, placed_right, len(chips),
                                 sum(r == t for r, t in chips.values()), seconds, wrong, missed, chips))
    return scores


def run_cards_baseline(truths: list[Truth], folder: Path, progress: Any) -> list[PhotoScore]:
    """``tablewatch cards`` with its defaults on each photo, scored by the same card rule."""
    from tablewatch.vision.reader import CardReader, crop_models
    from tablewatch.vision.sources import read_image

    index_classifier, index_verifier = crop_models()
    reader = CardReader(classifier=index_classifier, verifier=index_verifier)
    scores = []
    for truth in progress(truths):
        path = find_photo(folder, truth.image)
        if path is None:
            raise click.ClickException(f"no photo for {truth.image} in {folder}")
        start = time.perf_counter()
        reading = reader.read(read_image(path))
        seconds = time.perf_counter() - start
        read = [c.card for c in reading.cards if c.card]
        right, _placed, wrong, missed = score_cards(truth, read, {})
        scores.append(PhotoScore(truth.image, len(truth.cards), len(read), right, 0, 0, 0, seconds, wrong, missed))
    return scores


def summary(scores: list[PhotoScore]) -> dict[str, Any]:
    labelled = sum(s.labelled for s in scores)
    read = sum(s.read for s in scores)
    right = sum(s.right for s in scores)
    pairs = sum(s.chip_pairs for s in scores)
    return {"photos": len(scores), "labelled": labelled, "read": read, "right": right,
            "placed_right": sum(s.placed for s in scores), "recall": _ratio(right, labelled),
            "precision": _ratio(right, read), "chip_pairs": pairs,
            "chip_pairs_right": sum(s.chip_pairs_right for s in scores),
            "chip_accuracy": _ratio(sum(s.chip_pairs_right for s in scores), pairs),
            "seconds_per_photo": round(sum(s.seconds for s in scores) / max(1, len(scores)), 3),
            "wrong": sum(len(s.wrong) for s in scores)}


def table_text(title: str, scores: list[PhotoScore], *, chips: bool = True) -> str:
    head = f"{'photo':<10} {'cards':>5} {'read':>4} {'right':>5} {'recall':>6} {'prec.':>6} {'placed':>6}"
    if chips:
        head += f" {'chips':>7}"
    head += f" {'s':>6}  wrong / missed"
    lines = [title, head]
    for s in scores:
        line = (f"{s.image:<10} {s.labelled:>5} {s.read:>4} {s.right:>5} {_pct(s.right, s.labelled):>6} "
                f"{_pct(s.right, s.read):>6} {s.placed:>6}")
        if chips:
            line += f" {s.chip_pairs_right:>3}/{s.chip_pairs:<3}"
        line += f" {s.seconds:>6.2f}  {' '.join(s.wrong) or '-'} / {' '.join(s.missed) or '-'}"
        lines.append(line)
    total = summary(scores)
    line = (f"{'all':<10} {total['labelled']:>5} {total['read']:>4} {total['right']:>5} "
            f"{_pct(total['right'], total['labelled']):>6} {_pct(total['right'], total['read']):>6} "
            f"{total['placed_right']:>6}")
    if chips:
        line += f" {total['chip_pairs_right']:>3}/{total['chip_pairs']:<3}"
    line += f" {total['seconds_per_photo']:>6.2f}  ({total['wrong']} wrong)"
    lines.append(line)
    return "\n".join(lines)


def _pct(a: int, b: int) -> str:
    return f"{a / b:.3f}" if b else "-"


@click.command("bench-snapshot")
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--labels", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="The labels CSV (default: FOLDER/labels.csv).")
@click.option("--baseline", type=click.Choice(["none", "cards"]), default="none", show_default=True,
              help="Also score `tablewatch cards` on the same photos (about 20 s a photo).")
@click.option("--json", "json_out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the figures as JSON to this file.")
def bench_snapshot(folder: Path, labels: Path | None, baseline: str, json_out: Path | None) -> None:
    """Score `tablewatch snapshot` on labelled photos of whole tables: card recall and precision (identity must
    match), cards placed right, chip counts right per (photo, colour), seconds per photo."""
    from tqdm import tqdm

    try:
        truths = load_labels(labels or folder / "labels.csv")
    except LabelsError as exc:
        raise click.ClickException(str(exc)) from exc

    def progress(items: list[Truth]) -> Any:
        return tqdm(items, desc="photos", unit="photo", leave=False)

    scores = run_snapshot(truths, folder, progress)
    click.echo(table_text(f"tablewatch snapshot on {folder} ({len(scores)} photos)", scores))
    result: dict[str, Any] = {"folder": str(folder), "snapshot": {"summary": summary(scores),
                                                                  "photos": [s.to_dict() for s in scores]}}
    if baseline == "cards":
        base = run_cards_baseline(truths, folder, progress)
        click.echo("")
        click.echo(table_text("tablewatch cards (before), same photos, same card rule", base, chips=False))
        result["cards"] = {"summary": summary(base), "photos": [s.to_dict() for s in base]}
    if folder.resolve().name == "table-photos":
        click.echo("")
        click.echo(DEVELOPMENT_NOTE)
        result["note"] = DEVELOPMENT_NOTE
    if json_out is not None:
        json_out.write_text(json.dumps(result, indent=1), encoding="utf-8")

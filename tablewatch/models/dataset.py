"""The real card photos split by SOURCE photo into train/val/test folders that ultralytics can read.

Roboflow exports each source photo in up to three augmented copies named ``<source>_jpg.rf.<hash>.jpg``.
Copies of one photo are nearly the same picture, so a split by file would test on training photos: every
split here is by source, and the manifest (``split.json``) records which sources went where.

Images are symlinked (no copies); label files are rewritten as plain YOLO boxes (Roboflow mixes in a few
polygons, which ultralytics would otherwise treat as a segmentation set).
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from tablewatch.vision.cards import BACK_LABEL, INDEX_LABEL

SPLITS = ("train", "val", "test")
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")
# Roboflow turns "IMG_1.jpg" into "IMG_1_jpg.rf.<hash>.jpg"; the part before "_jpg.rf." is the source photo.
_ROBOFLOW_NAME = re.compile(r"^(?P<source>.+?)_(?:jpe?g|png)\.rf\.[0-9a-f]+$", re.IGNORECASE)
_MARKER = ".tablewatch-dataset"  # written in every prepared folder: only such folders are ever deleted
# The box-only detector's classes: every face-up index is one class, the identity comes from the classifier.
INDEX_CLASSES = (INDEX_LABEL, BACK_LABEL)


class DatasetError(ValueError):
    """A dataset folder that can't be used; the message says which file and why."""


@dataclass(frozen=True)
class Sample:
    image: Path
    label: Path | None
    given_split: str  # the split Roboflow put it in: train, valid or test


@dataclass
class SplitPlan:
    """Which source photos go to which split (and so every copy of them)."""

    sources: dict[str, list[str]] = field(default_factory=lambda: {name: [] for name in SPLITS})

    def split_of(self, source: str) -> str:
        for name, members in self.sources.items():
            if source in members:
                return name
        raise KeyError(source)


def source_of(image_name: str) -> str:
    """The source photo of a Roboflow file name: ``IMG_1_jpg.rf.ab12.jpg`` -> ``IMG_1``."""
    stem = Path(image_name).stem
    match = _ROBOFLOW_NAME.match(stem)
    return match.group("source") if match else stem


def source_group(source: str) -> str:
    """The kind of photo, to stratify the split: in this set the first six characters tell it apart
    (``IMG_20`` phone close-ups, ``WIN_20`` overhead webcam frames, ``IMG_78`` the black deck)."""
    return source[:6]


def read_class_names(root: Path) -> list[str]:
    path = root / "data.yaml"
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise DatasetError(f"{path}: cannot read the dataset description ({exc}).") from exc
    names = data.get("names") if isinstance(data, dict) else None
    if not isinstance(names, list) or not names:
        raise DatasetError(f"{path}: no 'names' list of classes.")
    return [str(name) for name in names]


def collect_samples(root: Path) -> dict[str, list[Sample]]:
    """Every labelled image under ``root/{train,valid,test}/images``, grouped by source photo."""
    by_source: dict[str, list[Sample]] = defaultdict(list)
    for given in ("train", "valid", "test"):
        image_dir = root / given / "images"
        if not image_dir.is_dir():
            continue
        for image in sorted(image_dir.iterdir()):
            if image.suffix.lower() not in IMAGE_SUFFIXES:
                continue
            label = root / given / "labels" / f"{image.stem}.txt"
            by_source[source_of(image.name)].append(
                Sample(image=image, label=label if label.is_file() else None, given_split=given)
            )
    if not by_source:
        raise DatasetError(f"{root}: no images found under train/, valid/ or test/ 'images' folders.")
    return dict(by_source)


def plan_split(
    by_source: dict[str, list[Sample]], *, val_fraction: float = 0.08, test_fraction: float = 0.12, seed: int = 0
) -> SplitPlan:
    """Assign each source photo to one split, deterministically, stratified by kind of photo.

    Sources Roboflow put in its test split stay in test and its valid ones in val; of the rest, each kind of
    photo gives ``test_fraction`` of its sources to test and ``val_fraction`` to val, chosen by a hash of the
    name (stable when photos are added, unlike a shuffled list).
    """
    plan = SplitPlan()
    free: dict[str, list[str]] = defaultdict(list)
    for source, samples in sorted(by_source.items()):
        given = {sample.given_split for sample in samples}
        if "test" in given:
            plan.sources["test"].append(source)
        elif "valid" in given:
            plan.sources["val"].append(source)
        else:
            free[source_group(source)].append(source)
    for _group, sources in sorted(free.items()):
        ranked = sorted(sources, key=lambda name: hashlib.sha1(f"{seed}:{name}".encode()).hexdigest())
        n_test = round(len(ranked) * test_fraction)
        n_val = round(len(ranked) * val_fraction)
        plan.sources["test"].extend(ranked[:n_test])
        plan.sources["val"].extend(ranked[n_test : n_test + n_val])
        plan.sources["train"].extend(ranked[n_test + n_val :])
    for name in SPLITS:
        plan.sources[name].sort()
    return plan


def yolo_boxes(label: Path | None, n_classes: int) -> list[str]:
    """The label file as ``class cx cy w h`` lines; polygons become their bounding boxes."""
    if label is None:
        return []
    lines = []
    for number, line in enumerate(label.read_text(encoding="utf-8").splitlines(), start=1):
        parts = line.split()
        if not parts:
            continue
        try:
            cls, values = int(parts[0]), [float(value) for value in parts[1:]]
        except ValueError as exc:
            raise DatasetError(f"{label}:{number}: not a YOLO label line: {line!r}.") from exc
        if not 0 <= cls < n_classes or len(values) < 4 or (len(values) > 4 and len(values) % 2):
            raise DatasetError(f"{label}:{number}: bad class or coordinate count: {line!r}.")
        if len(values) > 4:
            xs, ys = values[0::2], values[1::2]
            x0, x1, y0, y1 = max(min(xs), 0.0), min(max(xs), 1.0), max(min(ys), 0.0), min(max(ys), 1.0)
            values = [(x0 + x1) / 2, (y0 + y1) / 2, x1 - x0, y1 - y0]
        lines.append(f"{cls} " + " ".join(f"{value:.6f}" for value in values))
    return lines


def prepare_dataset(
    root: Path,
    out_dir: Path,
    *,
    val_fraction: float = 0.08,
    test_fraction: float = 0.12,
    seed: int = 0,
    one_copy_in_val: bool = True,
    index_only: bool = False,
) -> Path:
    """Write ``out_dir/{train,val,test}`` (image symlinks, YOLO labels), ``data.yaml`` and ``split.json``.

    Returns the path of ``data.yaml`` (with an absolute ``path:``, which ultralytics needs). ``val`` keeps
    one copy per source when ``one_copy_in_val``: it only picks the best epoch, and is scored every epoch.
    With ``index_only`` the classes become ``INDEX_CLASSES``: a detector that only finds boxes, for the
    identity classifier to name (far easier to learn from scratch than 55 look-alike classes).
    """
    root, out_dir = root.resolve(), out_dir.resolve()
    names = read_class_names(root)
    by_source = collect_samples(root)
    plan = plan_split(by_source, val_fraction=val_fraction, test_fraction=test_fraction, seed=seed)
    _reset_folder(out_dir)
    counts = {}
    for split in SPLITS:
        (out_dir / split / "images").mkdir(parents=True)
        (out_dir / split / "labels").mkdir(parents=True)
        n = 0
        for source in plan.sources[split]:
            samples = by_source[source][:1] if split == "val" and one_copy_in_val else by_source[source]
            for sample in samples:
                (out_dir / split / "images" / sample.image.name).symlink_to(sample.image)
                boxes = yolo_boxes(sample.label, len(names))
                if index_only:
                    boxes = [_as_index_class(box, names) for box in boxes]
                label_text = "\n".join(boxes) + ("\n" if boxes else "")
                (out_dir / split / "labels" / f"{sample.image.stem}.txt").write_text(label_text, encoding="utf-8")
                n += 1
        counts[split] = {"sources": len(plan.sources[split]), "images": n}
    data_yaml = out_dir / "data.yaml"
    description: dict[str, object] = {"path": str(out_dir), "train": "train/images", "val": "val/images",
                                       "test": "test/images"}
    classes = list(INDEX_CLASSES) if index_only else names
    description |= {"nc": len(classes), "names": classes}
    data_yaml.write_text(yaml.safe_dump(description, sort_keys=False), encoding="utf-8")
    manifest = {"root": str(root), "seed": seed, "counts": counts, "sources": plan.sources}
    (out_dir / "split.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    return data_yaml


def _as_index_class(box: str, names: list[str]) -> str:
    cls, rest = box.split(" ", 1)
    return f"{INDEX_CLASSES.index(BACK_LABEL) if names[int(cls)] == BACK_LABEL else 0} {rest}"


def read_split(out_dir: Path) -> dict[str, list[str]]:
    """The sources of each split of a prepared dataset (from its manifest)."""
    path = out_dir / "split.json"
    try:
        sources: dict[str, list[str]] = json.loads(path.read_text(encoding="utf-8"))["sources"]
        return sources
    except (OSError, ValueError, KeyError) as exc:
        raise DatasetError(f"{path}: not a prepared dataset manifest ({exc}); run 'tablewatch train' first.") from exc


def _reset_folder(out_dir: Path) -> None:
    if out_dir.exists():
        if not (out_dir / _MARKER).exists():
            raise DatasetError(f"{out_dir} exists and was not made by tablewatch; refusing to overwrite it.")
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True)
    (out_dir / _MARKER).write_text("prepared by tablewatch.models.dataset\n", encoding="utf-8")

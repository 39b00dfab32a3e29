"""The split of the real photos is by source photo: no source is ever in two splits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tablewatch.models.dataset import (
    DatasetError,
    collect_samples,
    plan_split,
    prepare_dataset,
    source_of,
    yolo_boxes,
)


@pytest.mark.parametrize(("name", "source"), [
    ("IMG_20220921_193915_jpg.rf.10adff74ee70be9c7dd54b7c8f388473.jpg", "IMG_20220921_193915"),
    ("IMG_7803_JPG.rf.d20b194214b473c822dbcccbc748aa9b.jpg", "IMG_7803"),
    ("WIN_20240630_19_36_29_Pro_jpg.rf.abc123.jpg", "WIN_20240630_19_36_29_Pro"),
    ("plain_photo.jpg", "plain_photo"),
])
def test_source_of_roboflow_names(name: str, source: str):
    assert source_of(name) == source


def make_export(root: Path, layout: dict[str, list[str]]) -> Path:
    """A tiny Roboflow-like export: {given split: [image names]} with one label line each."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "data.yaml").write_text(yaml.safe_dump({"nc": 2, "names": ["AS", "BACK"]}))
    for split, names in layout.items():
        (root / split / "images").mkdir(parents=True)
        (root / split / "labels").mkdir(parents=True)
        for name in names:
            (root / split / "images" / name).write_bytes(b"not needed: images are only linked")
            (root / split / "labels" / f"{Path(name).stem}.txt").write_text("0 0.5 0.5 0.1 0.2\n")
    return root


def copies(source: str, n: int = 3) -> list[str]:
    return [f"{source}_jpg.rf.{k:032x}.jpg" for k in range(n)]


def test_every_copy_of_a_source_lands_in_one_split(tmp_path: Path):
    train = [name for i in range(40) for name in copies(f"IMG_2022_{i:03d}")]
    layout = {"train": train, "valid": copies("WIN_1", 1), "test": copies("IMG_78", 1)}
    export = make_export(tmp_path / "export", layout)
    data_yaml = prepare_dataset(export, tmp_path / "prepared", one_copy_in_val=False)
    where: dict[str, set[str]] = {}
    for split in ("train", "val", "test"):
        for image in (tmp_path / "prepared" / split / "images").iterdir():
            where.setdefault(source_of(image.name), set()).add(split)
            assert image.is_symlink() and image.resolve().parent == (export / _given(image.name) / "images")
    assert all(len(splits) == 1 for splits in where.values())
    assert where["IMG_78"] == {"test"} and where["WIN_1"] == {"val"}
    assert len(where) == 42
    description = yaml.safe_load(data_yaml.read_text())
    assert Path(description["path"]).is_absolute() and description["names"] == ["AS", "BACK"]


def _given(name: str) -> str:
    return "test" if name.startswith("IMG_78") else "valid" if name.startswith("WIN") else "train"


def test_the_split_is_deterministic_and_stratified(tmp_path: Path):
    phone = [n for i in range(50) for n in copies(f"IMG_20_{i}")]
    webcam = [n for i in range(20) for n in copies(f"WIN_20_{i}")]
    layout = {"train": phone + webcam}
    by_source = collect_samples(make_export(tmp_path, layout))
    first, second = plan_split(by_source), plan_split(by_source)
    assert first.sources == second.sources
    assert sum(s.startswith("WIN_20") for s in first.sources["test"]) == round(20 * 0.12)
    assert plan_split(by_source, seed=1).sources != first.sources


def test_the_real_photos_split_by_source(shared_dir: Path, tmp_path: Path):
    root = shared_dir / "data" / "cards-real"
    if not root.is_dir():
        pytest.skip(f"real card photos not found at {root}")
    prepare_dataset(root, tmp_path / "prepared")
    manifest = json.loads((tmp_path / "prepared" / "split.json").read_text())
    sources = manifest["sources"]
    seen = [s for split in ("train", "val", "test") for s in sources[split]]
    assert len(seen) == len(set(seen)), "a source photo is in two splits"
    for split in ("train", "val", "test"):
        for image in (tmp_path / "prepared" / split / "images").iterdir():
            assert source_of(image.name) in sources[split]
    given_test = {source_of(p.name) for p in (root / "test" / "images").iterdir()}
    assert given_test <= set(sources["test"])


def test_polygon_labels_become_boxes(tmp_path: Path):
    label = tmp_path / "a.txt"
    label.write_text("1 0.1 0.2 0.3 0.2 0.3 0.6 0.1 0.6\n0 0.5 0.5 0.2 0.2\n")
    assert yolo_boxes(label, 2) == ["1 0.200000 0.400000 0.200000 0.400000", "0 0.500000 0.500000 0.200000 0.200000"]


@pytest.mark.parametrize("line", ["7 0.5 0.5 0.1 0.1", "0 0.5 0.5", "x 0.5 0.5 0.1 0.1"])
def test_bad_label_lines_name_file_and_line(tmp_path: Path, line: str):
    label = tmp_path / "bad.txt"
    label.write_text(f"0 0.5 0.5 0.1 0.1\n{line}\n")
    with pytest.raises(DatasetError, match=r"bad.txt:2"):
        yolo_boxes(label, 2)


def test_never_overwrites_a_folder_it_did_not_make(tmp_path: Path):
    export = make_export(tmp_path / "export", {"train": copies("IMG_1")})
    (tmp_path / "precious").mkdir()
    with pytest.raises(DatasetError, match="refusing to overwrite"):
        prepare_dataset(export, tmp_path / "precious")
    prepare_dataset(export, tmp_path / "ours")
    prepare_dataset(export, tmp_path / "ours")  # its own folder is rebuilt


def test_index_only_keeps_the_boxes_and_names_every_face_up_index_index(tmp_path: Path):
    export = make_export(tmp_path / "export", {"train": copies("IMG_20_1"), "test": copies("IMG_78", 1)})
    label = export / "train" / "labels" / f"{Path(copies('IMG_20_1')[0]).stem}.txt"
    (export / "data.yaml").write_text(yaml.safe_dump({"nc": 3, "names": ["AS", "KD", "BACK"]}))
    label.write_text("1 0.5 0.5 0.1 0.2\n2 0.3 0.3 0.2 0.2\n")  # KD becomes INDEX (0), BACK becomes 1
    data_yaml = prepare_dataset(export, tmp_path / "prepared", index_only=True)
    assert yaml.safe_load(data_yaml.read_text())["names"] == ["INDEX", "BACK"]
    split = next(s for s in ("train", "val", "test") if (tmp_path / "prepared" / s / "labels" / label.name).exists())
    rewritten = (tmp_path / "prepared" / split / "labels" / label.name).read_text().splitlines()
    assert rewritten == ["0 0.500000 0.500000 0.100000 0.200000", "1 0.300000 0.300000 0.200000 0.200000"]

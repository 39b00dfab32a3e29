"""The shipped ONNX card model: loads with no network, reads the cards of a real held-out photo, CLI errors.

``data/held_out_cards.jpg`` is an overhead webcam frame (source ``WIN_20240627_17_19_30_Pro``, in the
held-out test split; Roboflow Universe ``cadyzedevelopmenthub/card-detection-zk7wu`` v12, CC BY 4.0) with
its label file: four face-up twos, eight index boxes.

The shipped pair (a box-only detector, INDEX/BACK, and the rank × suit index classifier; see the model
card: identity accuracy 0.97, recall 0.94 on held-out sources) reads the photo's cards with at most one
missed and one extra (an earlier pair, identity about 0.5, read three cards that are not there: the test
was a strict xfail until this one).
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from tablewatch.cli import cli
from tablewatch.vision.cards import BACK_LABEL
from tablewatch.vision.classifier import OnnxIndexClassifier, default_classifier_path
from tablewatch.vision.detector import DetectorError, OnnxDetector, default_model_path
from tablewatch.vision.reader import CardReader
from tablewatch.vision.sources import read_image
from tests.support.images import huge_png

DATA = Path(__file__).parent / "data"
PHOTO = DATA / "held_out_cards.jpg"
# Each held-out test photo is one of this many distinct labelled cards; the model reads most but not all
# (model card: per-card identity accuracy and recall on held-out sources). One miss and one extra card
# are tolerated so the test guards the run-time path (letterbox, colour order, decode, NMS, grouping:
# any of them wrong reads almost nothing) without failing on the model's known error rate.
ALLOWED_MISSES, ALLOWED_EXTRA = 1, 1


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any attempt to open a network connection or resolve a name fails the test."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"network access attempted: {args!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)


# the photo's label file numbers classes as the real data set does (tests/vision/data: 55 names)
DATASET_NAMES = ["10C", "10D", "10H", "10S", "2C", "2D", "2H", "2S"]


def labelled_cards() -> set[str]:
    rows = (DATA / "held_out_cards.txt").read_text().split("\n")
    return {DATASET_NAMES[int(row.split()[0])] for row in rows if row.strip()} - {BACK_LABEL}


def shipped_reader(**options: object) -> CardReader:
    classifier_path = default_classifier_path()
    assert classifier_path is not None, "no index classifier shipped in tablewatch/vision/weights/"
    return CardReader(OnnxDetector(default_model_path()), classifier=OnnxIndexClassifier(classifier_path), **options)


def test_the_shipped_model_loads_and_runs_without_network(no_network: None):
    detector = OnnxDetector(default_model_path())
    assert detector.names == {0: "INDEX", 1: "BACK"} and detector.input_hw == (320, 320)
    image = read_image(PHOTO)
    found = OnnxDetector(default_model_path(), conf=0.001).detect(image)
    assert len(found) > 0  # the graph runs and decodes to boxes
    assert (found.xyxy >= 0).all() and (found.xyxy[:, [0, 2]] <= 640).all() and (found.xyxy[:, [1, 3]] <= 640).all()
    assert ((found.confidence > 0) & (found.confidence <= 1)).all()
    reader = shipped_reader()
    assert len(reader.names) == 55 and "AS" in reader.names.values()  # the classifier names the boxes
    reading = reader.read(image)
    assert reading.cards and all(card.label in reader.names.values() for card in reading.cards)
    # a guard on the run-time path (crop, colour order, classifier input): the twos are mostly read as twos
    assert sum(card.label.startswith("2") for card in reading.cards) >= len(reading.cards) // 2


def test_the_shipped_model_reads_a_held_out_photo_without_network(no_network: None):
    reading = shipped_reader().read(read_image(PHOTO))
    expected = labelled_cards()
    read = {card.label for card in reading.cards}
    assert len(expected) >= 3
    assert len(expected - read) <= ALLOWED_MISSES, f"missed {expected - read}; read {read}"
    assert len(read - expected) <= ALLOWED_EXTRA, f"read cards that are not there: {read - expected}"
    assert all(0 < card.confidence <= 1 for card in reading.cards)


def test_the_card_is_found_where_it_is():
    image = read_image(PHOTO)
    reading = shipped_reader(tiles="none").read(image)
    height, width = image.shape[:2]
    rows = [row.split() for row in (DATA / "held_out_cards.txt").read_text().splitlines() if row.strip()]
    centres = {(DATASET_NAMES[int(r[0])], float(r[1]) * width, float(r[2]) * height) for r in rows}
    hits = 0
    for card in reading.cards:
        for x0, y0, x1, y1 in card.index_boxes:
            hits += any(label == card.label and x0 <= cx <= x1 and y0 <= cy <= y1 for label, cx, cy in centres)
    assert hits >= len(centres) - 2 * ALLOWED_MISSES


def test_cards_command_json_and_annotation(tmp_path: Path):
    out = tmp_path / "annotated.png"
    result = CliRunner().invoke(cli, ["cards", str(PHOTO), "--json", "--annotate", str(out)])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert payload["width"] == 640 and isinstance(payload["cards"], list)
    assert set(payload) >= {"image", "height", "model", "windows", "backs", "cards"}
    annotated = cv2.imread(str(out))
    assert annotated.shape == (640, 640, 3)
    assert np.array_equal(annotated, read_image(PHOTO)) == (not payload["cards"])  # drawn over only if cards


def _windows_read(tmp_path: Path, image: np.ndarray) -> int:
    path = tmp_path / "big.jpg"
    cv2.imwrite(str(path), image)
    result = CliRunner().invoke(cli, ["cards", str(path), "--json"])
    assert result.exit_code == 0, result.output
    windows: int = json.loads(result.output)["windows"]
    return windows


def test_cards_command_on_a_large_photo_of_small_cards_uses_tiles(tmp_path: Path):
    many = np.tile(read_image(PHOTO), (4, 4, 1))  # 2,560 px: its indices a quarter of their size at the input
    assert _windows_read(tmp_path, many) > 1  # the whole image, then tiles


def test_cards_command_on_a_large_photo_of_large_cards_reads_it_whole(tmp_path: Path):
    assert _windows_read(tmp_path, cv2.resize(read_image(PHOTO), (2400, 2400))) == 1


@pytest.mark.parametrize(("content", "message"), [
    (None, "image not found"),
    (b"\xff\xd8\xff\xe0 truncated jpeg", "not a readable image"),
    pytest.param(huge_png(), "30000x30000 is 900 megapixels, over the limit of 100; scale it down first", id="huge"),
])
def test_cards_command_bad_image_is_a_clear_error(tmp_path: Path, content: bytes | None, message: str):
    path = tmp_path / "photo.jpg"
    if content is not None:
        path.write_bytes(content)
    result = CliRunner().invoke(cli, ["cards", str(path)])
    assert result.exit_code == 1
    assert message in result.output and "Traceback" not in result.output


def test_a_broken_model_file_is_a_clear_error(tmp_path: Path):
    model = tmp_path / "cards.onnx"
    model.write_bytes(b"not an onnx graph")
    with pytest.raises(DetectorError, match="cannot load the ONNX model"):
        OnnxDetector(model)
    result = CliRunner().invoke(cli, ["cards", str(PHOTO), "--model", str(model)])
    assert result.exit_code == 1 and "cannot load the ONNX model" in result.output
    result = CliRunner().invoke(cli, ["cards", str(PHOTO), "--model", str(tmp_path / "missing.onnx")])
    assert result.exit_code == 1 and "model file not found" in result.output


def test_bench_vision_prints_fps_per_stage():
    result = CliRunner().invoke(cli, ["bench-vision", "--frames", "1", "--mode", "whole", "--photos", str(DATA)])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if "fps" in line]
    assert [line.split()[0] for line in lines] == ["1280x720", "3840x2160"]
    assert all("infer" in line and "capture" in line for line in lines)

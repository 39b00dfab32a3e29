"""``tablewatch sim render`` and ``dataset``: the folder they write, and clear errors for bad input."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest
import yaml
from click.testing import CliRunner

from tablewatch.cli import cli
from tablewatch.events import load_events
from tablewatch.sim.scenarios import example
from tests.conftest import SHARED

PHH = SHARED / "data/hands/high_stakes/ps_1000nl_.phh"


def invoke(*args: str):
    return CliRunner().invoke(cli, ["sim", *args], catch_exceptions=False)


def test_render_writes_video_labels_and_truth(tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = invoke("render", str(example("demo")), "-o", str(out), "--max-frames", "4", "--view", "overhead_720p")
    assert result.exit_code == 0, result.output
    names = {p.name for p in out.iterdir()}
    assert {"overhead_720p.mp4", "events.jsonl", "rfid.jsonl", "truth.phhs", "violations.json", "cameras.json",
            "registry.csv", "classes.txt", "run.json", "labels"} <= names
    video = cv2.VideoCapture(str(out / "overhead_720p.mp4"))
    count = 0
    while True:
        ok, image = video.read()
        if not ok:
            break
        assert image.shape == (720, 1280, 3)
        count += 1
    assert count == 4
    labels = sorted((out / "labels/overhead_720p").glob("*.txt"))
    assert len(labels) == 4 and labels[0].read_text().strip()
    assert load_events((out / "events.jsonl").read_text())
    assert [v["type"] for v in json.loads((out / "violations.json").read_text())] == [
        "missing_burn", "string_raise", "wrong_pot_push"]
    cams = json.loads((out / "cameras.json").read_text())
    assert cams["layout"] == "oval10" and len(cams["overhead_720p"]["dist"]) == 5


def test_render_twice_writes_the_same_video_bytes(tmp_path: Path) -> None:
    for name in ("a", "b"):
        invoke("render", str(example("demo")), "-o", str(tmp_path / name), "--max-frames", "2", "--view",
               "board_720p")
    assert (tmp_path / "a/board_720p.mp4").read_bytes() == (tmp_path / "b/board_720p.mp4").read_bytes()


@pytest.mark.skipif(not PHH.exists(), reason="needs shared/data/hands (the PHH dataset)")
def test_render_a_phh_hand_with_violations(tmp_path: Path) -> None:
    result = invoke("render", "--phh", str(PHH), "--hand", "1", "--violation", "double_burn:street=flop",
                    "--violation", "chips_pocketed:seat=2,chips=500:1", "-o", str(tmp_path), "--no-video",
                    "--max-frames", "1")
    assert result.exit_code == 0, result.output
    kinds = [v["type"] for v in json.loads((tmp_path / "violations.json").read_text())]
    assert kinds == ["chips_pocketed", "double_burn"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["render", "--phh", str(PHH), "--violation", "card_sharking", "-o", "x"], "unknown violation 'card_sharking'"),
        (["render", "--phh", str(PHH), "--violation", "missing_burn:street", "-o", "x"], "is not KEY=VALUE"),
        (["render", "-o", "x"], "give a SCENARIO file or --phh FILE"),
        (["render", "--phh", str(PHH), "--hand", "99999", "-o", "x"], "has no hand 99999"),
        (["render", "--phh", str(PHH), "--violation", "missing_burn:street=preflop", "-o", "x"], "street"),
    ],
)
def test_bad_input_is_a_clear_error(args: list[str], message: str) -> None:
    if not PHH.exists():
        pytest.skip("needs shared/data/hands (the PHH dataset)")
    result = CliRunner().invoke(cli, ["sim", *args])
    assert result.exit_code != 0
    assert message in result.output
    assert "Traceback" not in result.output


def test_bad_scenario_file_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("hands: [{actions: ['s1 f']}]\nplayers: [{seat: 1, name: A, stack: -5}]\n")
    result = CliRunner().invoke(cli, ["sim", "render", str(bad), "-o", str(tmp_path / "o")])
    assert result.exit_code == 1
    assert "players.0.stack" in result.output


def test_dataset_writes_images_labels_and_data_yaml(tmp_path: Path) -> None:
    result = invoke("dataset", "-n", "3", "-o", str(tmp_path), "--resolution", "480x270", "--val-share", "0")
    assert result.exit_code == 0, result.output
    data = yaml.safe_load((tmp_path / "data.yaml").read_text())
    assert Path(data["path"]).is_absolute() and data["names"][-1] == "hand"
    images = sorted((tmp_path / "images/train").glob("*.jpg"))
    assert len(images) == 3
    for image in images:
        lines = (tmp_path / "labels/train" / f"{image.stem}.txt").read_text().splitlines()
        assert lines
        for line in lines:
            cls, *xywh = line.split()
            assert 0 <= int(cls) < data["nc"] and all(0 <= float(v) <= 1 for v in xywh)

"""Stopping a run with many alerts whose clips are still to write: ``run`` ends within its bound, and only whole
clips are announced ready (an RFID line with counterfeit chips for the alerts, an HTTP Motion-JPEG camera whose
frames are slow to encode for the clips)."""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from tablewatch.alerts import evidence
from tablewatch.alerts.config import BrokerConfig
from tablewatch.devices.emulator import ReaderEmulator
from tablewatch.rules.game import GameConfig
from tablewatch.table.config import RunConfig
from tablewatch.table.run import run_table
from tests.alerts.helpers import Collector
from tests.support.mjpeg_server import MjpegServer
from tests.support.mosquitto import Mosquitto
from tests.support.video import frame_count
from tests.support.wait import wait_until

KNOWN = "E007000000000001"
COUNTERFEIT = [f"E0FFFFFFFFFFFF{n:02X}" for n in range(1, 9)]  # one alert each
CLIPS_AT_STOP_S = 3.0  # the bound, shortened for the test
CAMERA_UP = re.compile(r"camera overhead [1-9]")  # its frame rate on the status line
FRAME_GAP_S = 0.5  # between two frames of the camera on a busy machine
SLACK_S = 30.0  # the sources, the outbox and one frame in the encoder, on a busy machine


def test_a_run_with_many_alerts_stops_within_its_bound_and_announces_only_whole_clips(
        tmp_path: Path, mqtt_broker: Mosquitto, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(evidence, "CLIPS_AT_STOP_S", CLIPS_AT_STOP_S)
    registry = tmp_path / "registry.csv"
    registry.write_text(f"uid,denomination,chip_set\n{KNOWN},100,house\n")
    camera = MjpegServer(size=(1280, 720), noise=True).start()
    floor = Collector(BrokerConfig(url=mqtt_broker.url), ["tablewatch/+/T07/alert"]).start()
    stop = threading.Event()
    console = tmp_path / "console.txt"
    try:
        with ReaderEmulator({"seat3.stack": 1}, tags={"seat3.stack": [KNOWN]}) as emulator:
            config = RunConfig(table="T07", game=GameConfig(), registry=registry, out=tmp_path / "out",
                               mqtt=mqtt_broker.url, cameras=[{"source": camera.url}],
                               evidence={"before_s": 2.0, "after_s": 1.0},
                               readers=[{"url": emulator.serve_pty(), "antennas": {"seat3.stack": 1},
                                         "response_timeout": 0.2}])
            stopped_at: list[float] = []

            def play() -> None:
                try:
                    wait_until("the camera's frames", lambda: camera_up(console))
                    for n, uid in enumerate(COUNTERFEIT, 1):  # one at a time: each its own alert
                        emulator.add_tags("seat3.stack", [uid])
                        floor.wait(lambda n=n: len(new_alerts(floor)) >= n, 60, f"alert {n}")
                        if n == len(COUNTERFEIT) // 2:  # the first half's clips are whole; the last alert's is cut
                            floor.wait(lambda: bool(ready_clips(floor)), 60, "a clip written")
                    stopped_at.append(time.monotonic())
                finally:
                    stop.set()

            player = threading.Thread(target=play, daemon=True)
            player.start()
            with console.open("w") as screen:
                run_table(config, console=Console(file=screen, width=300), status_every=0.5, stop=stop)
            ended = time.monotonic()
            player.join(5)
        assert stopped_at, f"the alerts never came: {new_alerts(floor)}"
        assert ended - stopped_at[0] < CLIPS_AT_STOP_S + SLACK_S
    finally:
        floor.stop()
        camera.kill()
    booked = {m.json()["id"]: m.json()["evidence"] for m in floor.messages if m.json()["type"] == "new"}
    ready = ready_clips(floor)
    assert 0 < len(ready) < len(booked), "the stop cut no clip short: it was not tested"
    for update in ready:  # announced: a whole file covering the window booked with the alert
        clip, window = update["evidence"], booked[update["id"]]
        assert clip["clip_to_ts"] >= window["clip_to_ts"] - FRAME_GAP_S, f"{update['id']}: clip cut short"
        assert frame_count(clip["clip_path"]) > 0
    assert not list((tmp_path / "out").rglob("*.partial.*"))


def new_alerts(floor: Collector) -> list[str]:
    return [m.json()["id"] for m in floor.messages if m.json()["type"] == "new"]


def ready_clips(floor: Collector) -> list[dict[str, Any]]:
    return [m.json() for m in floor.messages if m.json()["type"] == "update" and m.json()["evidence"]["clip_ready"]]


def camera_up(console: Path) -> bool:
    return console.exists() and CAMERA_UP.search(console.read_text()) is not None



"""Evidence: ring buffer, still with the objects drawn, clip before/after, and the alert's update."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import cv2
import numpy as np
import pytest

from tablewatch.alerts.config import BrokerConfig
from tablewatch.alerts.evidence import (
    EvidenceConfig,
    EvidenceRecorder,
    FrameRing,
    _opencv_tag_notice_dropped,
    write_clip,
)
from tablewatch.alerts.payloads import Evidence
from tablewatch.vision.sources import Frame
from tests.alerts.helpers import Collector, validate
from tests.alerts.scenes import felt_frame, string_raise
from tests.alerts.test_publisher import make_publisher
from tests.support.mosquitto import Mosquitto

FPS = 10


def test_ring_keeps_only_the_last_seconds() -> None:
    ring = FrameRing(seconds=2.0)
    for i in range(50):
        ring.add(i / FPS, np.zeros((4, 4, 3), np.uint8))
    assert ring.times[-1] == pytest.approx(4.9) and 2.89 < ring.times[0] < 3.01  # 2 s span, float edges
    assert ring.fps() == pytest.approx(FPS)
    assert ring.times[ring.nearest(3.52) or 0] == pytest.approx(3.5)
    with pytest.raises(ValueError, match="older than the last one"):
        ring.add(1.0, np.zeros((4, 4, 3), np.uint8))


def test_bad_frame_shape_is_a_clear_error(tmp_path: Path) -> None:
    recorder = EvidenceRecorder(EvidenceConfig(folder=tmp_path))
    with pytest.raises(ValueError, match=r"camera overhead: expected a BGR frame .* got shape \(4, 4\)"):
        recorder.add_frame("overhead", 0.0, np.zeros((4, 4), np.uint8))


def test_clip_spans_before_and_after_and_the_still_shows_the_box(tmp_path: Path) -> None:
    done: list[tuple[str, Evidence]] = []
    ready = threading.Event()
    recorder = EvidenceRecorder(EvidenceConfig(folder=tmp_path, before_s=2.0, after_s=1.0, url_base="evidence"),
                                on_clip=lambda alert, ev: (done.append((alert, ev)), ready.set()))
    for i in range(40):  # 4 s of video before the alert
        frame, box = felt_frame(i / FPS)
        recorder.add_frame("overhead", i / FPS, frame, [box])
    evidence = recorder.capture("al-0123456789abcdef", 3.95, label="TDA-29 seats 3", frame_ts=(3.5, 3.95))
    assert evidence.still_path and Path(evidence.still_path).exists() and not evidence.clip_ready
    assert evidence.still_url == "evidence/al-0123456789abcdef-overhead.jpg"
    assert (evidence.clip_from_ts, evidence.clip_to_ts) == pytest.approx((1.95, 4.95))
    for i in range(40, 55):  # the "after" second arrives
        frame, _ = felt_frame(i / FPS)
        recorder.add_frame("overhead", i / FPS, frame)
    assert ready.wait(20)
    alert, final = done[0]
    assert alert == "al-0123456789abcdef" and final.clip_ready and final.clip_path
    capture = cv2.VideoCapture(final.clip_path)
    frames = 0
    while capture.read()[0]:
        frames += 1
    assert frames == 30  # 2.0 s before + 1.0 s after at 10 fps (1.95 .. 4.95 inclusive -> 2.0 .. 4.9)
    still = cv2.imread(evidence.still_path)
    plain, box = felt_frame(3.9)
    drawn = np.abs(still.astype(int) - plain.astype(int)).sum(axis=2) > 60
    assert drawn[box.y1, box.x1 : box.x2].mean() > 0.8  # the box's top edge is drawn
    assert drawn[:20].mean() > 0.2  # the caption bar


def test_a_clip_is_written_without_opencvs_tag_notice_on_stderr(tmp_path: Path,
                                                                 capfd: pytest.CaptureFixture[str]) -> None:
    frames = [(i / FPS, felt_frame(i / FPS)[0]) for i in range(5)]
    first, last = write_clip(tmp_path / "clip.webm", frames, fps=FPS)
    assert (first, last) == (0.0, 4 / FPS) and cv2.VideoCapture(str(tmp_path / "clip.webm")).read()[0]
    assert "FFMPEG" not in capfd.readouterr().err


def test_what_else_reaches_stderr_while_a_writer_opens_is_passed_on(capfd: pytest.CaptureFixture[str]) -> None:
    with _opencv_tag_notice_dropped():
        os.write(2, b"OpenCV: FFMPEG: tag 0x30385056/'VP80' is not supported with codec id 139\n")
        os.write(2, b"a reader went offline\n")
    assert capfd.readouterr().err == "a reader went offline\n"


def jpeg_frame(image: np.ndarray, index: int, ts: float) -> Frame:
    return Frame(jpeg=cv2.imencode(".jpg", image)[1].reshape(-1), index=index, ts=ts)


def test_compressed_frames_are_kept_so_and_decoded_for_the_still_and_clip(tmp_path: Path) -> None:
    # A Motion-JPEG camera's frames stay compressed in the ring; one whose data is broken is left out of the
    # clip, not the end of it.
    ready = threading.Event()
    recorder = EvidenceRecorder(EvidenceConfig(folder=tmp_path, before_s=1.0, after_s=0.5),
                                on_clip=lambda alert, ev: ready.set())
    for i in range(30):
        frame = jpeg_frame(felt_frame(i / FPS)[0], i, i / FPS)
        if i == 25:
            frame = Frame(jpeg=np.zeros(64, np.uint8), index=i, ts=i / FPS)
        recorder.add_frame("overhead", i / FPS, frame)
    ring = recorder.rings["overhead"]
    assert all(isinstance(f, Frame) and f.jpeg is not None for f in ring.frames)
    evidence = recorder.capture("al-00000000000000aa", 2.0, label="TDA-29")
    still = cv2.imread(evidence.still_path or "")
    assert still is not None and still.shape == felt_frame(2.0)[0].shape
    recorder.flush()
    assert ready.is_set()
    capture = cv2.VideoCapture(evidence.clip_path or "")
    frames = 0
    while capture.read()[0]:
        frames += 1
    assert frames == 15  # 1.0 .. 2.5 s at 10 fps, less the broken frame at 2.5 s
    assert recorder.capture("al-00000000000000ab", 2.5).still_path is None  # the broken frame: no still


def test_alert_carries_the_still_then_an_update_with_the_clip(tmp_path: Path, mqtt_broker: Mosquitto) -> None:
    recorder = EvidenceRecorder(EvidenceConfig(folder=tmp_path / "ev", before_s=1.0, after_s=0.5))
    with Collector(BrokerConfig(url=mqtt_broker.url), ["tablewatch/casino/TE/alert"]) as sub:
        publisher = make_publisher(tmp_path, mqtt_broker.url, table="TE", recorder=recorder).start()
        for i in range(20):
            recorder.add_frame("overhead", i / FPS, felt_frame(i / FPS)[0])
        ident = publisher.publish_violation(string_raise(1.9, table="TE"))
        for i in range(20, 30):
            recorder.add_frame("overhead", i / FPS, felt_frame(i / FPS)[0])
        new, update = (m.json() for m in sub.wait_count("/alert", 2, timeout=20))
        publisher.stop()
    for body in (new, update):
        validate("alert", body)
        assert body["id"] == ident
    assert new["type"] == "new" and not new["evidence"]["clip_ready"] and Path(new["evidence"]["still_path"]).exists()
    assert update["type"] == "update" and update["revision"] == 1 and update["evidence"]["clip_ready"]
    assert Path(update["evidence"]["clip_path"]).stat().st_size > 1000
    assert update["evidence"]["frame_ts"] == [1.5, 1.9]

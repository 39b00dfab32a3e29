"""Each hand recorded whole: from just before its start to its end, thinned and scaled, with the video's time the
table's clock less ``from_ts`` (a stalled camera's slots hold the frame before); named in the hand's payload; kept
and pruned like an alert's evidence."""

from __future__ import annotations

import os
from pathlib import Path
from typing import ClassVar

import cv2
import numpy as np
import pytest

from tablewatch.alerts.config import BrokerConfig
from tablewatch.alerts.evidence import EvidenceConfig, EvidenceRecorder
from tablewatch.alerts.handclips import HandClipConfig
from tablewatch.alerts.retention import KeepList, RetentionConfig, prune
from tablewatch.events import HandEnded, HandStarted
from tablewatch.vision.sources import Frame, jpeg_frame
from tests.alerts.helpers import Collector, validate
from tests.alerts.scenes import felt_frame
from tests.alerts.test_publisher import make_publisher
from tests.support.mosquitto import Mosquitto

FPS = 10
HAND = "hd-0123456789abcdef"


def recorder_for(folder: Path, **hand_clips: object) -> EvidenceRecorder:
    return EvidenceRecorder(EvidenceConfig(folder=folder, url_base="evidence",
                                           hand_clips=HandClipConfig.model_validate(hand_clips)))


def chip_time(frame: np.ndarray, scale: float) -> float:
    """The time ``felt_frame`` drew: its red chip moves 60 px a second from x = 80 (in the frame before scaling)."""
    _, xs = np.nonzero((frame[:, :, 2] > 150) & (frame[:, :, 1] < 90) & (frame[:, :, 0] < 90))
    return (float(xs.mean()) / scale - 80) / 60


def video_frames(path: Path) -> list[np.ndarray]:
    capture, frames = cv2.VideoCapture(str(path)), []
    while (read := capture.read())[0]:
        frames.append(read[1])
    return frames


def test_a_hand_is_recorded_from_its_lead_to_its_end_on_the_tables_clock(tmp_path: Path) -> None:
    recorder = recorder_for(tmp_path, fps=5, width=320, lead_s=1.0)
    times = [i / FPS for i in range(71) if not 4.5 < i / FPS < 5.5]  # 0 .. 7 s; the camera stalls for a second
    for ts in times:
        if ts == 3.0:  # the hand's start is found at 2.0 s, and told a second later
            recorder.start_hand(HAND, 2.0)
        recorder.add_frame("overhead", ts, felt_frame(ts)[0])
    clip = recorder.end_hand()
    recorder.close()
    assert clip is not None and (clip.from_ts, clip.to_ts) == pytest.approx((1.0, 7.0))
    assert clip.url == f"evidence/{HAND}-overhead.webm" and clip.path == (tmp_path / f"{HAND}-overhead.webm").resolve()
    frames = video_frames(clip.path)
    assert len(frames) == 31 and frames[0].shape == (180, 320, 3)  # 1.0 .. 7.0 s at 5 frames a second, scaled
    shown = [chip_time(frame, 0.5) for frame in frames]
    assert shown[:18] == pytest.approx([1.0 + k / 5 for k in range(18)], abs=0.05)  # video time k/5 = table 1 + k/5
    assert shown[18:22] == pytest.approx([4.4] * 4, abs=0.05)  # the stall: the frame before, held
    assert shown[22] == pytest.approx(5.5, abs=0.05)  # the first frame in the slot of 5.4 .. 5.6 s
    assert shown[23:] == pytest.approx([1.0 + k / 5 for k in range(23, 31)], abs=0.05)
    assert not list(tmp_path.glob("*.partial.*"))


def test_a_hand_started_before_any_frame_is_recorded_from_the_first_and_a_new_hand_ends_the_last(
        tmp_path: Path) -> None:
    recorder = recorder_for(tmp_path, fps=2, width=640)
    recorder.start_hand(HAND, 0.0)
    for i in range(10):
        recorder.add_frame("overhead", 0.5 + i / FPS, felt_frame(i / FPS)[0])
    recorder.start_hand("hd-fedcba9876543210", 1.5)  # a redeal: the voided hand's recording ends here
    for i in range(10, 20):
        recorder.add_frame("overhead", 0.5 + i / FPS, felt_frame(i / FPS)[0])
    second = recorder.end_hand()
    assert recorder.end_hand() is None  # nothing recorded any more
    assert recorder.hands_written(30)
    assert second is not None and second.from_ts == pytest.approx(0.5)  # the ring's frames since 1.5 - lead_s
    assert len(video_frames(tmp_path / f"{HAND}-overhead.webm")) == 2  # 0.5 .. 1.4 s at 2 a second
    assert len(video_frames(second.path)) == 4  # 0.5 .. 2.4 s
    recorder.close()


def test_no_frame_no_recording_and_fps_zero_records_nothing(tmp_path: Path) -> None:
    recorder = recorder_for(tmp_path / "a")
    recorder.start_hand(HAND, 0.0)
    assert recorder.end_hand() is None
    off = recorder_for(tmp_path / "b", fps=0)
    off.start_hand(HAND, 0.0)
    for i in range(10):
        off.add_frame("overhead", i / FPS, felt_frame(i / FPS)[0])
    assert off.end_hand() is None
    recorder.close()
    off.close()
    assert not [p for p in (tmp_path / "b").iterdir() if p.suffix == ".webm"]


def test_the_hand_payload_names_its_recording(tmp_path: Path, mqtt_broker: Mosquitto) -> None:
    recorder = recorder_for(tmp_path / "evidence", fps=4)
    with Collector(BrokerConfig(url=mqtt_broker.url), ["tablewatch/casino/HC/hand"]) as sub:
        publisher = make_publisher(tmp_path, mqtt_broker.url, table="HC", recorder=recorder).start()
        publisher.publish_event(HandStarted(ts=1.0, table="HC", source="console", hand_no=3, button=1, seats=(1, 2)))
        for i in range(40):
            recorder.add_frame("overhead", 1.0 + i / FPS, felt_frame(i / FPS)[0])
        publisher.publish_event(HandEnded(ts=4.9, table="HC", source="scene", hand_no=3))
        publisher.publish_hand(3, phh="variant = 'NT'\n")
        hand = sub.wait_count("/hand", 1)[0].json()
        publisher.stop()
    validate("hand", hand)
    assert hand["clip"]["url"] == f"evidence/{hand['msg_id']}-overhead.webm"
    assert (hand["clip"]["from_ts"], hand["clip"]["to_ts"]) == pytest.approx((1.0, 4.8))  # 4 a second: the last
    assert recorder.hands_written(30) and len(video_frames(Path(hand["clip"]["path"]))) == 16


def test_retention_prunes_a_hands_recording_by_age_unless_kept(tmp_path: Path) -> None:
    old = [tmp_path / f"hd-{n:016x}-overhead.webm" for n in range(2)]
    for path in old:
        path.write_bytes(b"video")
        os.utime(path, (1_000_000, 1_000_000))
    kept = KeepList.beside(tmp_path)
    kept.keep([old[1].name[:19]])
    report = prune(tmp_path, RetentionConfig(max_age_days=1), kept=kept)
    assert [p.exists() for p in old] == [False, True] and report.bytes_freed == 5


class CountedFrame(Frame):
    """A compressed frame that counts how it is decoded."""

    __slots__ = ()
    decoded: ClassVar[list[int]] = []

    def reduced(self, factor: int) -> np.ndarray:
        CountedFrame.decoded.append(factor)
        return super().reduced(factor)


def test_a_compressed_cameras_frames_are_decoded_straight_to_the_recordings_size(tmp_path: Path) -> None:
    recorder = recorder_for(tmp_path, fps=5, width=320)
    recorder.start_hand(HAND, 0.0)
    for i in range(20):
        image = cv2.resize(felt_frame(i / FPS)[0], (1280, 720))
        encoded = jpeg_frame(image, index=i, ts=i / FPS)
        recorder.add_frame("overhead", i / FPS, CountedFrame(jpeg=encoded.jpeg, index=i, ts=i / FPS))
    assert recorder.end_hand() is not None and recorder.hands_written(30)
    recorder.close()
    assert CountedFrame.decoded[0] == 1 and set(CountedFrame.decoded[1:]) == {4}  # the first tells the width
    frames = video_frames(tmp_path / f"{HAND}-overhead.webm")
    assert len(frames) == 10 and frames[0].shape == (180, 320, 3)

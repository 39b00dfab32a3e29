"""Stopping with clips still to write: the writer ends within its bound, between two frames, the process exits
cleanly, no clip path ever holds a partial file, and only a clip whose window was recorded to its end is announced
ready."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np

from tablewatch.alerts.evidence import EvidenceConfig, EvidenceRecorder
from tablewatch.alerts.payloads import Evidence
from tests.support.video import frame_count

FPS = 15.0
SLACK_S = 20.0  # one frame's encoding on a busy machine, and then some


def noisy_frames(n: int, size: tuple[int, int] = (1280, 720)) -> list[np.ndarray]:
    """Frames that are slow to encode (noise), so clips are still being written when the table stops."""
    rng = np.random.default_rng(7)
    return [rng.integers(0, 255, (size[1], size[0], 3), np.uint8) for _ in range(n)]


def test_a_clip_cut_short_by_the_stop_is_kept_but_not_announced_ready(tmp_path: Path) -> None:
    announced: list[tuple[str, Evidence]] = []
    recorder = EvidenceRecorder(EvidenceConfig(folder=tmp_path, before_s=1.0, after_s=1.0, codec="MJPG",
                                               extension=".avi"), on_clip=lambda a, ev: announced.append((a, ev)))
    frames = noisy_frames(2, (160, 120))
    for i in range(45):  # 3 s
        recorder.add_frame("overhead", i / FPS, frames[i % 2])
    whole = recorder.capture("al-00000000000000a1", 1.5)  # its window (0.5 .. 2.5 s) is recorded
    cut = recorder.capture("al-00000000000000a2", 2.8)  # its window ends at 3.8 s: the table stops at 3 s
    recorder.close()
    assert [a for a, _ in announced] == ["al-00000000000000a1"]
    assert announced[0][1].clip_ready and announced[0][1].clip_path == whole.clip_path
    assert frame_count(whole.clip_path or "") == 30  # 0.5 .. 2.5 s at 15 fps
    assert frame_count(cut.clip_path or "") == 18  # kept for whoever looks (1.8 .. 2.93 s), never announced
    assert not list(tmp_path.glob("*.partial.*"))


def test_close_ends_the_writer_within_its_bound_and_no_clip_path_holds_a_partial_file(tmp_path: Path) -> None:
    announced: list[str] = []
    recorder = EvidenceRecorder(EvidenceConfig(folder=tmp_path, before_s=2.0, after_s=1.0),
                                on_clip=lambda alert, _: announced.append(alert))
    frames = noisy_frames(4)
    for i in range(60):
        recorder.add_frame("overhead", i / FPS, frames[i % 4])
    booked = {f"al-{n:016x}": recorder.capture(f"al-{n:016x}", 2.0 + n * 0.05) for n in range(20)}
    started = time.monotonic()
    recorder.close(timeout=0.5)
    assert time.monotonic() - started < 0.5 + SLACK_S
    assert not recorder._worker.is_alive()  # nothing left inside the encoder when the process exits
    assert recorder.clips_dropped > 0, "every clip was written in time: the stop was not tested"
    assert len(announced) + recorder.clips_dropped == len(booked)
    assert not list(tmp_path.glob("*.partial.*"))
    for alert, evidence in booked.items():
        clip = Path(evidence.clip_path or "")
        assert clip.exists() == (alert in announced), alert
        if clip.exists():
            assert frame_count(str(clip)) == 45  # whole: 3 s at 15 fps


STOPPING_PROCESS = """
    import sys, time
    from pathlib import Path
    import numpy as np
    from tablewatch.alerts.evidence import EvidenceConfig, EvidenceRecorder
    recorder = EvidenceRecorder(EvidenceConfig(folder=Path(sys.argv[1]), before_s=2.0, after_s=1.0))
    frames = [np.random.default_rng(n).integers(0, 255, (720, 1280, 3), np.uint8) for n in range(4)]
    for i in range(60):
        recorder.add_frame("overhead", i / 15, frames[i % 4])
    for n in range(20):
        recorder.capture(f"al-{n:016x}", 2.0 + n * 0.05)
    recorder.close(timeout=0.5)
    print("stopped", flush=True)
"""


def test_a_process_stopping_while_clips_are_written_exits_cleanly(tmp_path: Path) -> None:
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(STOPPING_PROCESS), str(tmp_path)],
                          capture_output=True, text=True, timeout=120, cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr[-2000:]  # never 134 (terminate called ...) from inside the encoder
    assert "stopped" in done.stdout and time.monotonic() - started < 60
    assert not list(tmp_path.glob("*.partial.*"))
    for clip in tmp_path.glob("*.webm"):
        assert frame_count(str(clip)) == 45, f"{clip.name} is not whole"

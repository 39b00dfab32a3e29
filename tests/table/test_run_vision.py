"""``tablewatch run`` with a camera and its calibrated table profile: the frames go through vision.

The video is the simulator's demo hand rendered to a file (``tablewatch sim render``), the profile is
calibrated from that video's frames (``tablewatch calibrate``): the table runs on them as on a camera, and
vision's events join the pipeline.
"""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

from tablewatch.bench.card_reader import write_video
from tablewatch.config import ConfigError
from tablewatch.events import CardDealt, ChipsMoved, HandEnded, HandStarted, load_events
from tablewatch.sim.session import Simulation
from tablewatch.table.cli import run as run_command
from tablewatch.table.config import CameraConfig, RunConfig
from tablewatch.table.run import run_table
from tablewatch.table.sources import CameraSource, camera_perception
from tablewatch.vision.sources import VideoFileSource
from tests.support.demo_camera import DEMO, FPS, SECONDS, render_demo_camera, run_until_the_cameras_end
from tests.vision.test_sources import corrupt_frame

pytestmark = pytest.mark.slow



@pytest.fixture(scope="module")
def video_and_profile(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return render_demo_camera(tmp_path_factory.mktemp("camera"))


def test_a_calibrated_camera_feeds_vision_events_into_the_table(
        video_and_profile: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    video, profile = video_and_profile
    config = RunConfig(table="T01", out=tmp_path / "out",
                       cameras=[{"source": str(video), "profile": profile, "deck": "anglo_poker"}])
    with (tmp_path / "console.txt").open("w") as screen:
        pipeline = run_until_the_cameras_end(config, console=Console(file=screen), monkeypatch=monkeypatch)

    logged = load_events((tmp_path / "out" / "events.jsonl").read_text())
    frame = [e for e in logged if isinstance(e, HandStarted | HandEnded)]  # the hand the table found from the deal
    events = [e for e in logged if e not in frame]
    truth = [e for e in Simulation.from_file(DEMO).events if e.ts <= SECONDS - 0.5]
    dealt = [e for e in events if isinstance(e, CardDealt)]
    blinds = [e for e in events if isinstance(e, ChipsMoved)]
    assert {e.source for e in events} == {"vision"} and {e.table for e in events} == {"T01"}
    assert [(e.kind, e.source) for e in frame] == [("HandStarted", "scene"), ("HandEnded", "scene")]
    assert [e.seat for e in dealt] == [e.seat for e in truth if isinstance(e, CardDealt)]
    assert [(e.seat, e.src, e.dst) for e in blinds] == [(e.seat, e.src, e.dst) for e in truth
                                                        if isinstance(e, ChipsMoved)]
    # On the table's clock, the deal keeps the pace it had in the video.
    gaps = [b.ts - a.ts for a, b in pairwise(dealt)]
    assert gaps == pytest.approx([0.35] * len(gaps), abs=0.15)
    assert pipeline.stats.output_errors == 0
    assert "events" in (tmp_path / "console.txt").read_text()


def test_a_motion_jpeg_camera_with_a_corrupt_frame_goes_on(video_and_profile: tuple[Path, Path],
                                                           tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The same video as a Motion-JPEG file, as a USB camera sends it: its frames reach perception and the
    # evidence ring compressed; one whose JPEG data is broken is skipped, counted, and shown in the status.
    video, profile = video_and_profile
    source = VideoFileSource(video)
    try:
        mjpg = write_video((frame.image for frame in source.frames()), tmp_path / "camera.avi", FPS)
    finally:
        source.close()
    corrupt_frame(mjpg, 40)
    config = RunConfig(table="T01", out=tmp_path / "out",
                       cameras=[{"source": str(mjpg), "profile": profile, "deck": "anglo_poker"}])
    with (tmp_path / "console.txt").open("w") as screen:
        pipeline = run_until_the_cameras_end(config, console=Console(file=screen), monkeypatch=monkeypatch)

    camera = next(s for s in pipeline.sources if isinstance(s, CameraSource))
    assert VideoFileSource(mjpg).compressed and camera.bad_frames == 1 and camera.error == ""
    assert camera.frames == round(SECONDS * FPS)  # every frame reached the sinks, the broken one too
    events = load_events((tmp_path / "out" / "events.jsonl").read_text())
    truth = [e for e in Simulation.from_file(DEMO).events if e.ts <= SECONDS - 0.5]
    assert [e.seat for e in events if isinstance(e, CardDealt)] == [e.seat for e in truth if isinstance(e, CardDealt)]
    assert "1 corrupt frame skipped" in " ".join((tmp_path / "console.txt").read_text().split())


def test_the_hand_finder_is_on_unless_the_camera_turns_it_off(video_and_profile: tuple[Path, Path]) -> None:
    video, profile = video_and_profile
    finding, plain = (camera_perception(CameraConfig(source=str(video), profile=profile, **options), table="T01")
                      for options in ({}, {"hand_finder": False}))
    assert finding is not None and finding.hand_finder is not None  # the profile's calibration: started at once
    assert plain is not None and plain.hand_finder is None and plain.hand_detector is None


def test_a_camera_without_a_profile_gives_evidence_only(video_and_profile: tuple[Path, Path], tmp_path: Path) -> None:
    video, _ = video_and_profile
    config = RunConfig(table="T01", out=tmp_path / "out", cameras=[{"source": str(video)}])
    with (tmp_path / "console.txt").open("w") as screen:
        pipeline = run_table(config, console=Console(file=screen), duration=1.5, status_every=0.5)
    assert pipeline.stats.events_in == 0
    assert "evidence only" in (tmp_path / "console.txt").read_text()


def test_a_profile_of_another_table_is_refused_before_anything_runs(video_and_profile: tuple[Path, Path],
                                                                    tmp_path: Path) -> None:
    video, profile = video_and_profile
    config = tmp_path / "table.toml"
    config.write_text(f'table = "T02"\n[[cameras]]\nsource = "{video}"\nprofile = "{profile}"\n')
    result = CliRunner().invoke(run_command, [str(config), "--validate"])
    assert result.exit_code != 0
    assert "T01" in result.output and "T02" in result.output
    with pytest.raises(ConfigError, match="table 'T01'"):
        run_table(RunConfig(table="T02", out=tmp_path / "out", cameras=[{"source": str(video), "profile": profile}]),
                  console=Console(file=None), duration=0.1)

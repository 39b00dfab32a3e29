"""Bad frames and bad arguments give clear errors; the scoring matches events as it says."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tablewatch.bench.perception_evaluate import main, match
from tablewatch.calibration.layout import load_layout
from tablewatch.events import BetMotion, BoardCardDealt, Chips, Tap
from tablewatch.sim.session import Simulation
from tablewatch.vision.perception import Perception, PerceptionError
from tests.perception.conftest import Window, perception_for


def test_a_frame_that_is_not_a_colour_image_is_refused(demo: Simulation) -> None:
    perception = perception_for(demo)
    with pytest.raises(PerceptionError, match="BGR uint8"):
        perception.process(np.zeros((720, 1280), np.uint8), 0.0)
    with pytest.raises(PerceptionError, match="BGR uint8"):
        perception.process("frame.png", 0.0)  # type: ignore[arg-type]


def test_frames_out_of_order_are_refused_and_a_blank_frame_of_another_view_waits_for_markers(
        demo: Simulation, window: Window, caplog: pytest.LogCaptureFixture) -> None:
    perception = perception_for(demo)
    frames = window(18.5, 21.8)
    for image, ts in frames[:4]:  # calibrated from the markers of the first three
        perception.process(image, ts)
    assert perception.calibration is not None and perception.calibration.mean_error_mm < 5.0
    with pytest.raises(PerceptionError, match="time order"):
        perception.process(frames[4][0], frames[2][1])
    assert perception.process(np.zeros((480, 640, 3), np.uint8), 30.0) == []
    assert "frames of 640x480 from a camera calibrated at 1280x720: another view" in caplog.text
    assert perception.calibration is None  # calibrated again once markers show (tests/perception/test_frame_size.py)


def test_no_markers_in_sight_is_a_clear_error(demo: Simulation) -> None:
    perception = perception_for(demo, calibration_frames=2, calibration_patience=5)
    with pytest.raises(PerceptionError, match="no table calibration after 6 frames: No ArUco markers"):
        for i in range(10):
            perception.process(np.full((720, 1280, 3), 60, np.uint8), i / 10)


def test_an_unknown_deck_or_seat_is_a_clear_error(demo: Simulation) -> None:
    with pytest.raises(PerceptionError, match="no_such_deck"):
        perception_for(demo, deck="no_such_deck")
    with pytest.raises(PerceptionError, match=r"seat\(s\) \[12\] are not in layout 'oval10'"):
        perception_for(demo, seats=[1, 12])


def test_match_scores_by_kind_seat_slot_and_time() -> None:
    def bet(ts: float, seat: int, motions: int, value: int) -> BetMotion:
        return BetMotion(ts=ts, table="T", source="sim", seat=seat, chips=Chips.of({value: 1}), motions=motions)

    truth = [bet(1.0, 3, 1, 100), bet(5.0, 6, 2, 500), Tap(ts=7.0, table="T", source="sim", seat=3),
             BoardCardDealt(ts=9.0, table="T", source="sim", card="As", slot=0)]
    seen = [bet(1.3, 3, 1, 100), bet(5.2, 6, 1, 500), bet(5.3, 8, 1, 500), Tap(ts=7.9, table="T", source="vision",
            seat=3), BoardCardDealt(ts=9.1, table="T", source="vision", card="Ks", slot=0)]
    score = match(truth, seen, tolerance=0.5)
    assert score.counts["BetMotion"] == [2, 3, 2]  # seat 8 is no match for seat 6
    assert score.counts["Tap"] == [0, 1, 1]  # 0.9 s late
    assert sorted(score.motions) == [False, True]  # the seat-6 bet was seen as one motion
    assert score.values == [True, True]
    assert score.identity == [False]


def test_evaluate_names_a_missing_scenario(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["no/such/scenario.yaml"]) == 2
    assert "error:" in capsys.readouterr().err


def test_perception_from_a_table_profile(demo: Simulation, window: Window) -> None:
    from tablewatch.calibration.chips import painted_chip_colours
    from tablewatch.calibration.markers import calibrate_image
    from tablewatch.calibration.profile import new_profile

    image, _ = window(18.5, 21.8)[0]
    calibration = calibrate_image(image, load_layout("oval10"))
    bare = new_profile(table="T01", layout="oval10", calibration=calibration)
    with pytest.raises(PerceptionError, match="no chip colours"):
        Perception.from_profile(bare, deck="anglo_poker")
    profile = new_profile(table="T01", layout="oval10", calibration=calibration,
                          chips=painted_chip_colours(demo.scenario.chips))
    perception = Perception.from_profile(profile, deck="anglo_poker")
    assert perception.plane is not None  # calibrated from the start: no frames spent on markers
    first = perception.process(image, 18.5)  # the table as it lies: only where the dealer button is
    assert [(e.kind, e.seat) for e in first] == [("ButtonSeen", demo.scenario.hands[0].button)]


def test_evaluate_deals_another_deck_on_another_felt(capsys: pytest.CaptureFixture[str]) -> None:
    from tests.perception.conftest import DEMO

    assert main([str(DEMO), "--deck", "simplistic", "--felt", "grey", "--seconds", "6.5"]) == 0
    rows = {line.split()[0]: line.split()[1:4] for line in capsys.readouterr().out.splitlines() if line[:1].isupper()}
    assert rows["CardDealt"] == ["8", "8", "8"]  # true, seen, matched: the pale held-out backs are not faces
    assert "CardExposed" not in rows


def test_evaluate_objects_scores_hands_and_chip_tops(capsys: pytest.CaptureFixture[str]) -> None:
    from tests.perception.conftest import DEMO

    assert main([str(DEMO), "--objects", "--seconds", "3.2"]) == 0
    out = capsys.readouterr().out
    assert "hands over the felt found:" in out and "chip tops by denomination:" in out


def test_perception_bench_reads_every_frame_of_a_video_and_analyses_some(tmp_path: Path) -> None:
    from tablewatch.bench.perception_speed import bench_video, render_video
    from tests.perception.conftest import DEMO

    sim = Simulation.from_file(DEMO)
    video = render_video(sim, tmp_path / "demo.avi", resolution="720p", fps=30, start=2.0, seconds=1.5)
    decoded, compressed = (bench_video(sim, video, resolution="720p", fps=30, start=2.0, reading=reading)
                           for reading in ("decoded", "compressed"))
    for speed in (decoded, compressed):
        assert speed.frames == 45  # every frame of the video read and given to perception
        assert 10 <= speed.analysed <= 20  # about one in three analysed (perception's 0.09 s interval)
        assert set(speed.ms_per_frame) == {"read", "perception"}
        assert set(speed.ms_per_analysed) == {"decode", "rectify", "scene", "hand_finder", "events"}
        assert "frames/s" in speed.line()
    assert decoded.analysed == compressed.analysed and decoded.events == compressed.events
    twice = bench_video(sim, video, resolution="720p", fps=30, start=2.0, loops=2)  # the clock runs on
    assert twice.frames == 90 and twice.analysed >= 2 * compressed.analysed - 1
    assert all(mb > 0 for mb in twice.memory_mb) and "memory" in twice.line()


def test_perception_bench_names_a_broken_video(tmp_path: Path) -> None:
    from tablewatch.bench.perception_speed import bench_video
    from tablewatch.vision.sources import SourceError
    from tests.perception.conftest import DEMO

    broken = tmp_path / "broken.avi"
    broken.write_bytes(b"RIFF\x00\x00not a video")
    with pytest.raises(SourceError, match=r"broken\.avi"):
        bench_video(Simulation.from_file(DEMO), broken, resolution="720p", fps=30, start=0.0)

"""A camera's conditions laid over frames: each moves the picture its own way, and only that; the H.264 recorder
stores at about its bitrate what OpenCV reads back; the tilted camera still sees the whole rail."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from tablewatch.sim.camera import overhead_camera
from tablewatch.sim.conditions import CameraLook, Conditions, degrade_video, filtered_video, frames_of

SIZE = (320, 180)
FPS = 15.0


def felt(value: int = 120) -> np.ndarray:
    frame = np.full((SIZE[1], SIZE[0], 3), value, np.uint8)
    frame[80:100, 150:170] = 235  # a white card
    return frame


def look(**conditions: float) -> CameraLook:
    return CameraLook(Conditions(**conditions), SIZE, fps=FPS, seed=3)  # type: ignore[arg-type]


def test_a_clean_camera_changes_nothing() -> None:
    assert np.array_equal(look().apply(felt()), felt())


def test_light_falloff_and_hot_spot_shape_the_brightness() -> None:
    assert look(light=0.5).apply(felt()).mean() == pytest.approx(felt().mean() / 2, abs=1)
    fallen = look(falloff=0.5).apply(felt()).astype(float)
    assert fallen[:10].mean() < 0.6 * fallen[-10:].mean()  # the far side (the top) darker
    hot = look(hotspot=0.4).apply(felt()).astype(float)
    lamp = hot[int(0.45 * SIZE[1]), int(0.55 * SIZE[0])].mean()
    assert lamp > 200 and hot[0, 0].mean() < 130  # bright under the lamp, the corner as it was


def test_glare_whitens_what_is_bright_near_the_lamp_only() -> None:
    frame = felt()
    glared = look(glare=1.0).apply(frame).astype(int)
    assert glared[90, 160].min() > 245  # the card under the lamp goes white
    assert np.abs(glared[0:60, 0:60] - frame[0:60, 0:60]).max() == 0  # the felt is not glossy


def test_blur_noise_and_jpeg_degrade_detail() -> None:
    card_edge = lambda f: int(np.abs(np.diff(f[90, 140:180, 0].astype(int))).max())  # noqa: E731
    assert card_edge(look(blur_px=2.0).apply(felt())) < card_edge(felt()) // 2
    assert look(noise=10.0).apply(felt())[:60, :60].astype(float).std() == pytest.approx(10, abs=1.5)
    blocky = look(jpeg_quality=10).apply(felt())
    assert not np.array_equal(blocky, felt()) and abs(float(blocky.mean()) - float(felt().mean())) < 3


def test_dropped_frames_deliver_the_one_before_and_auto_exposure_lifts_a_dark_view() -> None:
    camera = look(drop=1.0)
    first = camera.apply(felt(100))
    assert np.array_equal(camera.apply(felt(200)), first)  # every frame after the first dropped
    exposing = look(auto_exposure=1.0)
    means = [float(exposing.apply(felt(40)).mean()) for _ in range(int(3 * FPS))]
    assert means[0] < 45 and means[-1] > 90 and means == sorted(means)  # it brightens, within about a second


def test_warm_light_tints_the_picture_blue_down_and_red_up() -> None:
    warm = look(warmth=1.0).apply(felt()).astype(float)
    b, g, r = (warm[..., k].mean() / felt()[..., k].mean() for k in range(3))
    assert b == pytest.approx(0.78, abs=0.02) and g == pytest.approx(0.95, abs=0.02) and r > 1.08


def test_flicker_swings_the_brightness_either_way_and_a_camera_at_25_frames_a_second_catches_none() -> None:
    camera = CameraLook(Conditions(flicker=0.2), SIZE, fps=30.0, seed=3)
    means = np.array([float(camera.apply(felt()).mean()) for _ in range(30)]) / felt().mean()
    assert means.min() == pytest.approx(1 - 0.2 * np.sin(np.pi / 3), abs=0.01) and means.max() > 1.15
    assert np.allclose(means[3:], means[:-3], atol=0.01)  # 10 Hz at 30 frames/s: every third frame alike
    pal = CameraLook(Conditions(flicker=0.2), SIZE, fps=25.0, seed=3)
    assert all(np.array_equal(pal.apply(felt()), felt()) for _ in range(10))  # each frame at the same moment


def test_a_stalled_stream_delivers_its_last_frame_a_while_every_twenty_seconds() -> None:
    camera = look(freeze_s=1.0)
    frames = [camera.apply(felt(i % 200 + 20)) for i in range(int(25 * FPS))]
    repeated = [i for i in range(1, len(frames)) if np.array_equal(frames[i], frames[i - 1])]
    stall = round(20.0 / 3 * FPS)  # a third of the way into the first twenty seconds
    assert repeated == list(range(stall, stall + round(FPS)))


def test_shake_moves_the_picture_a_pixel_or_two_and_a_lens_bends_its_edges_not_its_middle() -> None:
    frame = felt()
    shaken = look(shake_px=2.0).apply(frame)
    assert not np.array_equal(shaken, frame)
    ys, xs = np.nonzero(shaken[..., 0] > 200)  # the card, moved under 2 px each way
    assert abs(xs.mean() - 159.5) <= 2.0 and abs(ys.mean() - 89.5) <= 2.0
    grid = felt()
    grid[::20, :] = 0
    bent = look(barrel=0.12).apply(grid)
    middle = (slice(80, 100), slice(150, 170))
    assert np.array_equal(bent[middle], grid[middle]) and not np.array_equal(bent[:20], grid[:20])


def test_tone_colour_and_the_burnt_in_time_change_what_they_should() -> None:
    grey = np.full((SIZE[1], SIZE[0], 3), 128, np.uint8)
    assert look(gamma=1.4).apply(grey).mean() == pytest.approx(255 * (128 / 255) ** 1.4, abs=1)
    green = np.zeros((SIZE[1], SIZE[0], 3), np.uint8)
    green[..., 1] = 160
    muted = cv2.cvtColor(look(saturation=0.5).apply(green), cv2.COLOR_BGR2HSV)
    assert muted[..., 1].mean() == pytest.approx(128, abs=2)
    stamped = look(timestamp=True).apply(felt())
    changed = np.nonzero((stamped != felt()).any(axis=2))
    assert changed[0].max() < 50 and changed[1].min() >= 15  # the time, top left, and nothing else


def test_the_recorder_keeps_every_nth_frame_and_scales_the_picture(tmp_path: Path) -> None:
    source = tmp_path / "clean.mp4"
    writer = cv2.VideoWriter(str(source), cv2.VideoWriter.fourcc(*"mp4v"), FPS, SIZE)
    for i in range(30):
        writer.write(felt(100 + i))
    writer.release()
    dest = tmp_path / "nvr.mp4"
    assert degrade_video(source, dest, Conditions(frame_step=3, height=90)) == 10
    capture = cv2.VideoCapture(str(dest))
    assert capture.get(cv2.CAP_PROP_FPS) == pytest.approx(FPS / 3)
    assert (capture.get(cv2.CAP_PROP_FRAME_WIDTH), capture.get(cv2.CAP_PROP_FRAME_HEIGHT)) == (160, 90)
    capture.release()


@pytest.mark.parametrize("coded", [{"h264_kbps": 300}, {"h265_kbps": 300}])
def test_h264_and_h265_are_stored_near_their_bitrate_and_read_back_whole(tmp_path: Path,
                                                                          coded: dict[str, int]) -> None:
    source = tmp_path / "clean.mp4"
    writer = cv2.VideoWriter(str(source), cv2.VideoWriter.fourcc(*"mp4v"), FPS, SIZE)
    rng = np.random.default_rng(0)
    for i in range(60):
        frame = felt()
        frame[:, (i * 4) % SIZE[0]:] = rng.integers(0, 255, (SIZE[1], SIZE[0] - (i * 4) % SIZE[0], 3))
        writer.write(frame)
    writer.release()
    dest = tmp_path / "cctv.mp4"
    assert degrade_video(source, dest, Conditions(**coded, noise=4.0)) == 60  # type: ignore[arg-type]
    assert len(list(frames_of(dest))) == 60
    kbps = dest.stat().st_size * 8 / 1000 / (60 / FPS)
    assert 100 < kbps < 600  # about the 300 kbit/s asked (rate control settles over the first frames)


def test_sharpening_rings_round_edges_and_leaves_flat_areas_alone() -> None:
    sharp = look(sharpen=1.0).apply(felt()).astype(float)[..., 0]
    assert sharp[90, 151] > 245 and sharp[90, 149] < 100  # the card's edge overshoots inside and out
    assert sharp[90, 160] == pytest.approx(235, abs=1) and sharp[20, 20] == pytest.approx(120, abs=1)


def card_at(x: int, noise: np.random.Generator | None = None) -> np.ndarray:
    frame = np.full((SIZE[1], SIZE[0], 3), 120, np.uint8)
    if noise is not None:
        frame = np.clip(frame + noise.normal(0, 6, frame.shape), 0, 255).astype(np.uint8)
    frame[80:100, x:x + 20] = 235
    return frame


def test_noise_reduction_averages_still_noise_away_and_leaves_what_moves_alone() -> None:
    rng, camera = np.random.default_rng(1), look(denoise=0.6)
    frames = [camera.apply(card_at(150, rng)) for _ in range(10)]
    assert frames[-1][:60].std() < 0.6 * frames[0][:60].std()  # the still felt's noise averaged down
    moved = camera.apply(card_at(200, rng)).astype(float)
    assert moved[90, 205].mean() > 225 and moved[90, 155].mean() < 135  # no trail where the card was


def test_an_interlaced_picture_shows_the_odd_lines_a_frame_late() -> None:
    camera = look(interlaced=True)
    assert np.array_equal(camera.apply(card_at(100)), card_at(100))  # the first frame has no field before it
    woven = camera.apply(card_at(140))
    assert (woven[90, 145] == 235).all() and (woven[91, 145] == 120).all()  # even lines now, odd lines before
    assert (woven[91, 105] == 235).all() and (woven[90, 105] == 120).all()


def test_a_tilted_overhead_camera_still_sees_the_whole_rail() -> None:
    extent = (-1400.0, -800.0, 1400.0, 800.0)
    straight = overhead_camera(extent)
    tilted = overhead_camera(extent, tilt_deg=8.0)
    assert tilted.centre[1] - straight.centre[1] == pytest.approx(-straight.centre[2] * np.tan(np.radians(8)),
                                                                    rel=0.01)
    corners = np.array([[extent[0], extent[1]], [extent[2], extent[1]], [extent[0], extent[3]], [extent[2], extent[3]]])
    seen = tilted.project(corners)
    assert ((seen[:, 0] > 0) & (seen[:, 0] < tilted.width) & (seen[:, 1] > 0) & (seen[:, 1] < tilted.height)).all()


def test_a_shadow_crosses_the_picture_now_and_then_and_is_gone_between() -> None:
    camera = CameraLook(Conditions(shadow=0.5), SIZE, fps=10.0, seed=3)
    frames = [camera.apply(felt()).astype(float) for _ in range(160)]  # 16 s
    middle = [f[99, 140].mean() / 120 for f in frames]  # the felt in the middle of the picture
    assert min(middle[:40]) == pytest.approx(0.5, abs=0.03)  # at its deepest over the middle, within the crossing
    assert middle[5] > 0.95 and middle[35] > 0.95  # still to come at the left, gone off the right
    assert all(np.array_equal(f, felt()) for f in frames[40:150])  # none until the next one


def test_an_ffmpeg_filter_chain_writes_the_video_again_as_ffmpeg_degrades_it(tmp_path: Path) -> None:
    """Degradations the simulator does not make, laid by FFmpeg's own filters: frames averaged, the picture
    letterboxed, the frame rate converted."""
    source = tmp_path / "clean.mp4"
    writer = cv2.VideoWriter(str(source), cv2.VideoWriter.fourcc(*"mp4v"), FPS, SIZE)
    for i in range(30):
        writer.write(felt(40 if i % 2 else 200))  # the picture flashing every frame
    writer.release()
    averaged = tmp_path / "tmix.mp4"
    assert filtered_video(source, averaged, "tmix=frames=2") == 30
    middle = [float(frame[:60].mean()) for frame in frames_of(averaged)][1:-1]
    assert all(abs(level - 120) < 12 for level in middle)  # each frame half the last: no flash left
    boxed = tmp_path / "pad.mp4"
    assert filtered_video(source, boxed, "pad=320:240:0:30, fps=7.5") == 15
    capture = cv2.VideoCapture(str(boxed))
    assert capture.get(cv2.CAP_PROP_FPS) == pytest.approx(FPS / 2)
    assert (capture.get(cv2.CAP_PROP_FRAME_WIDTH), capture.get(cv2.CAP_PROP_FRAME_HEIGHT)) == (320, 240)
    capture.release()
    with pytest.raises(ValueError, match="no filter 'fog'"):
        filtered_video(source, tmp_path / "x.mp4", "tmix=frames=2,fog=1")
    with pytest.raises(ValueError, match="scale=wide"):
        filtered_video(source, tmp_path / "x.mp4", "scale=wide")

"""Images, video files and live sources: frames from real files, clear errors for missing or broken ones."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import cv2
import numpy as np
import pytest

from tablewatch.images import image_size
from tablewatch.vision.sources import Frame, LiveSource, SourceError, VideoFileSource, open_source, read_image
from tests.support.images import huge_jpeg, huge_png


def write_video(path: Path, frames: int = 5, size: tuple[int, int] = (64, 48)) -> Path:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, size)
    assert writer.isOpened()
    for i in range(frames):
        writer.write(np.full((size[1], size[0], 3), i * 40, dtype=np.uint8))
    writer.release()
    return path


def test_read_image_round_trip(tmp_path: Path):
    path = tmp_path / "photo.png"
    cv2.imwrite(str(path), np.full((20, 30, 3), 7, np.uint8))
    assert read_image(path).shape == (20, 30, 3)


@pytest.mark.parametrize(("content", "message"), [
    (None, "image not found"),
    (b"", "not a readable image"),
    (b"this is not a picture", "not a readable image"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "not a readable image"),  # a truncated PNG
])
def test_read_image_errors_name_the_file(tmp_path: Path, content: bytes | None, message: str):
    path = tmp_path / "photo.png"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(SourceError, match=message) as info:
        read_image(path)
    assert str(path) in str(info.value)


def test_read_image_rejects_a_folder(tmp_path: Path):
    with pytest.raises(SourceError, match="not a file"):
        read_image(tmp_path)


def test_video_file_frames_with_times(tmp_path: Path):
    source = open_source(write_video(tmp_path / "clip.avi"))
    assert isinstance(source, VideoFileSource) and source.size == (64, 48)
    frames = list(source.frames())
    source.close()
    assert [f.index for f in frames] == [0, 1, 2, 3, 4]
    assert frames[1].ts == pytest.approx(0.1)
    assert frames[4].image.shape == (48, 64, 3)


@pytest.mark.parametrize(("content", "message"), [
    (None, "video file not found"),
    (b"", "cannot open|no frame"),
    (b"garbage, not a video" * 100, "cannot open|no frame"),
])
def test_missing_or_broken_video_is_a_clear_error(tmp_path: Path, content: bytes | None, message: str):
    path = tmp_path / "clip.mp4"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(SourceError, match=message) as info:
        open_source(path)
    assert str(path) in str(info.value)


def write_av1(path: Path, frames: int = 6, size: tuple[int, int] = (64, 48)) -> Path:
    """An AV1 video (a recorder's newer exports), which the opencv-python wheels' FFmpeg does not decode."""
    import av

    with av.open(str(path), "w") as container:
        stream = container.add_stream("libsvtav1", rate=10)
        stream.width, stream.height, stream.pix_fmt = size[0], size[1], "yuv420p"
        for i in range(frames):
            picture = np.full((size[1], size[0], 3), (30 + i * 30) % 240, np.uint8)
            for packet in stream.encode(av.VideoFrame.from_ndarray(picture, format="bgr24")):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    return path


def test_a_recording_with_frames_missing_keeps_each_frame_at_its_own_time(tmp_path: Path):
    """A recorder that writes only the frames it got (every fourth lost here, the rest at their times): counting
    frames at the file's rate would close the gaps and run the picture ahead of the readers and the console."""
    from fractions import Fraction

    import av

    path = tmp_path / "gaps.mkv"
    kept = [i for i in range(24) if i % 4 != 3]
    with av.open(str(path), "w") as container:
        stream = container.add_stream("libx264", rate=15)
        stream.width, stream.height, stream.pix_fmt = 64, 48, "yuv420p"
        stream.options = {"x264-params": "log-level=error"}
        for i in kept:
            frame = av.VideoFrame.from_ndarray(np.full((48, 64, 3), 10 * i, np.uint8), format="bgr24")
            frame.pts, frame.time_base = round(i * 1000 / 15), Fraction(1, 1000)
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    source = open_source(path)
    frames = list(source.frames())
    source.close()
    assert [f.index for f in frames] == list(range(len(kept)))
    assert [f.ts for f in frames] == pytest.approx([i / 15 for i in kept], abs=0.002)


@pytest.fixture
def quiet_svt(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SVT_LOG", "1")  # the AV1 encoder's errors only (it prints its settings otherwise)


@pytest.mark.usefixtures("quiet_svt")
def test_a_video_in_a_codec_opencv_lacks_is_decoded_by_pyav(tmp_path: Path):
    path = write_av1(tmp_path / "export.mkv")
    capture = cv2.VideoCapture(str(path))
    assert not capture.read()[0], "OpenCV decodes AV1 here: this test no longer covers the fallback"
    capture.release()
    source = open_source(path)
    frames = list(source.frames())
    source.close()
    assert source.size == (64, 48) and len(frames) == 6 and [f.index for f in frames] == list(range(6))
    assert frames[2].ts == pytest.approx(0.2) and abs(int(frames[2].image.mean()) - 90) <= 6


@pytest.mark.usefixtures("quiet_svt")
def test_a_video_broken_part_way_gives_its_frames_up_to_the_break(tmp_path: Path):
    whole = write_av1(tmp_path / "whole.mkv", frames=30).read_bytes()
    path = tmp_path / "cut.mkv"
    path.write_bytes(whole[: len(whole) * 2 // 3] + b"\x00garbage" * 50)
    source = open_source(path)
    frames = list(source.frames())
    source.close()
    assert 0 < len(frames) < 30 and all(f.image.shape == (48, 64, 3) for f in frames)


def test_a_live_source_reconnects_when_the_stream_drops(tmp_path: Path):
    # A real stream stands in for a camera: a video file opened by OpenCV ends, which reads like a drop;
    # the source reopens it and goes on, then gives up after max_reconnects failed attempts.
    video = write_video(tmp_path / "stream.avi", frames=3)
    opened: list[str] = []

    def opener(spec: str | int) -> cv2.VideoCapture:
        opened.append(str(spec))
        return cv2.VideoCapture(str(spec)) if len(opened) <= 2 else cv2.VideoCapture(str(tmp_path / "gone.avi"))

    source = LiveSource(str(video), max_reconnects=2, retry_delay=0.001, opener=opener)
    frames = []
    with pytest.raises(SourceError, match="stream lost; 2 reconnect attempts failed"):
        frames.extend(source.frames())
    assert len(frames) == 6 and [f.index for f in frames] == list(range(6))
    assert all(f.jpeg is not None for f in frames)  # a Motion-JPEG stream's frames come compressed
    assert [round(float(f.image.mean())) for f in frames] == pytest.approx([0, 40, 80] * 2, abs=2)
    assert source.reconnects == 3
    assert all(b >= a for a, b in zip([f.ts for f in frames], [f.ts for f in frames[1:]], strict=False))


def test_a_live_stream_in_another_codec_is_decoded_as_it_comes(tmp_path: Path):
    video = tmp_path / "stream.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"FFV1"), 10.0, (64, 48))
    assert writer.isOpened()
    for i in range(3):
        writer.write(np.full((48, 64, 3), i * 40, np.uint8))
    writer.release()
    source = LiveSource(str(video), max_reconnects=0)
    with pytest.raises(SourceError, match="stream lost"):
        frames = []
        frames.extend(source.frames())
    assert not source.compressed and len(frames) == 3 and all(f.jpeg is None for f in frames)
    assert [round(float(f.image.mean())) for f in frames] == [0, 40, 80]


@pytest.mark.parametrize("spec", ["rtsp://127.0.0.1:9/none", "/dev/video97"])
def test_an_unreachable_camera_is_a_clear_error(spec: str):
    with pytest.raises(SourceError, match="cannot open camera or stream"):
        open_source(spec, max_reconnects=0)


def corrupt_frame(video: Path, index: int) -> Path:
    """Break the JPEG data of frame ``index`` of a Motion-JPEG file in place (its start-of-image marker)."""
    data = bytearray(video.read_bytes())
    at = -1
    for _ in range(index + 1):
        at = data.index(b"\xff\xd8\xff", at + 1)
    data[at:at + 3] = b"\x00\x00\x00"
    video.write_bytes(bytes(data))
    return video


def test_a_motion_jpeg_file_hands_over_its_frames_compressed(tmp_path: Path):
    video = write_video(tmp_path / "clip.avi", frames=3, size=(640, 480))
    source = VideoFileSource(video)
    frames = list(source.frames())
    source.close()
    assert source.compressed and source.size == (640, 480)
    assert all(f.jpeg is not None and f.jpeg.size < 640 * 480 for f in frames)  # bytes, not pixels
    capture = cv2.VideoCapture(str(video))
    for frame in frames:
        _, decoded = capture.read()  # the same frame as OpenCV decodes it
        assert np.abs(frame.image.astype(int) - decoded).mean() < 2.0
    capture.release()
    assert frames[2].reduced(4).shape == (120, 160, 3)
    assert frames[2].reduced(4).mean() == pytest.approx(frames[2].image.mean(), abs=2.0)
    with pytest.raises(ValueError, match="reduced by 1, 2, 4 or 8"):
        frames[0].reduced(3)


def test_a_frame_in_pixels_reduces_by_averaging():
    image = np.zeros((9, 10, 3), np.uint8)
    image[:, :5] = 200
    frame = Frame(image, index=4, ts=0.4)
    assert frame.image is image and frame.reduced(1) is image
    assert frame.reduced(2).shape == (5, 5, 3)  # rounded up, as a JPEG decodes
    assert frame.reduced(2)[0, :2, 0].tolist() == [200, 200] and frame.reduced(2)[0, 3:, 0].tolist() == [0, 0]
    with pytest.raises(ValueError, match="one of the two"):
        Frame(image, jpeg=np.zeros(4, np.uint8))


def test_a_corrupt_frame_is_a_clear_error_and_the_next_ones_still_come(tmp_path: Path):
    video = corrupt_frame(write_video(tmp_path / "clip.avi", frames=5), 2)
    source = VideoFileSource(video)
    frames = list(source.frames())
    source.close()
    assert len(frames) == 5
    with pytest.raises(SourceError, match=r"frame 2 at 0\.200 s: its JPEG data does not decode"):
        _ = frames[2].image
    assert frames[3].image.mean() == pytest.approx(120, abs=3)


def test_a_motion_jpeg_file_our_decoder_cannot_read_is_decoded_as_any_video(tmp_path: Path):
    # FFmpeg finds the picture past a broken start marker; the JPEG decoder that reads compressed frames
    # does not: judged on the first frame, the file is read decoded, every frame there.
    video = corrupt_frame(write_video(tmp_path / "clip.avi", frames=3), 0)
    source = VideoFileSource(video)
    frames = list(source.frames())
    source.close()
    assert not source.compressed and all(f.jpeg is None for f in frames)
    assert [round(float(f.image.mean())) for f in frames] == pytest.approx([0, 40, 80], abs=2)


@pytest.mark.parametrize(("name", "content", "size"), [
    ("huge.png", huge_png(), "30000x30000 is 900 megapixels"),
    ("huge.jpg", huge_jpeg(), "60000x60000 is 3600 megapixels"),
], ids=["png", "jpeg"])
def test_read_image_refuses_an_image_over_the_pixel_limit_before_decoding_it(tmp_path: Path, name: str,
                                                                             content: bytes, size: str):
    path = tmp_path / name
    path.write_bytes(content)
    tracemalloc.start()
    try:
        with pytest.raises(SourceError, match=f"{size}, over the limit of 100") as info:
            read_image(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert str(path) in str(info.value) and peak < 10_000_000


@pytest.mark.parametrize("suffix", [".png", ".jpg", ".bmp", ".tif", ".webp", ".ppm", ".pgm"])
def test_the_size_is_read_from_the_header_of_each_format(tmp_path: Path, suffix: str):
    picture = np.zeros((37, 53, 3 if suffix != ".pgm" else 1), np.uint8)
    ok, data = cv2.imencode(suffix, picture)
    assert ok
    assert image_size(data.tobytes()) == (53, 37)

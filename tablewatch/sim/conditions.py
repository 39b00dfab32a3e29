"""A camera's conditions laid over a recorded session's video, each on its own scale: the room's light (its level,
its fall-off across the table, a pendant lamp's hot spot, a warm lamp's tint), glare off glossy cards and chips,
focus, sensor noise, the camera's own processing (edge sharpening, temporal noise reduction, an analogue camera's
interlaced fields), compression as a surveillance recorder stores it (H.264 or H.265 at a bitrate, or Motion-JPEG at a
quality), frames the camera drops, a stream that stalls, auto-exposure pulling the picture's brightness about (a dark
sleeve filling the view), lamps flickering with the mains, a shadow crossing the table, the camera's tone curve and
colour setting, a wide lens's distortion, a vibrating mount, and a recorder that burns in the time, keeps fewer frames
or scales the picture down.

The renderer draws what the table shows (with its own light drift, vignetting, noise and motion blur of moving
hands: ``render.Effects``); these act on its frames as a camera and recorder would, so one clean recording is
scored under many conditions (``tablewatch bench-conditions``). The camera's tilt is the one condition of the
scene itself: ``Scenario.camera_tilt_deg``, drawn by the renderer.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, fields
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, cast

import cv2
import numpy as np

if TYPE_CHECKING:
    import av
    import av.container
    import av.filter
    import av.video.stream

LAMP_AT = (0.55, 0.45)  # where the lamp's hot spot and its glare fall, as a fraction of the frame's width, height
AE_TARGET = 118.0  # the grey level auto-exposure aims the picture's mean at
AE_SETTLE_S = 1.0  # ... moving its gain this fast (a time constant)
WARM_CAST = np.array([-0.22, -0.05, 0.12])  # B, G, R: what warmth 1 takes off and adds (about 3000 K on 5500 K)
FREEZE_EVERY_S = 20.0  # a stalling stream stalls this often
SHADOW_EVERY_S = 15.0  # someone's shadow crosses the table this often ...
SHADOW_CROSS_S = 4.0  # ... taking this long, from one side of the picture to the other
SHARPEN_SIGMA = 1.5  # the blur a camera's edge enhancement (an unsharp mask) subtracts, in pixels
STILL_CHANGE = 16  # grey levels: a pixel changing less is still to temporal noise reduction, and blended
LAMP_HZ = 100.0  # lamps on 50 Hz mains flicker at twice it: a short exposure catches each frame at its own moment
# of the swing, which beats at 10 Hz at 30 frames/s and 5 Hz at 15 (and holds still at 25)


@dataclass(frozen=True)
class Conditions:
    """How far each condition departs from a clean camera (every default: not at all)."""

    light: float = 1.0  # the room's light: the picture's gain (0.45: a dim club)
    falloff: float = 0.0  # light lost toward the frame's far side (0.3: 30 % darker there)
    hotspot: float = 0.0  # a lamp's hot spot: light added at its centre, as a share of white
    glare: float = 0.0  # glossy things under the lamp pushed toward white (0..1: how far, near the lamp)
    blur_px: float = 0.0  # out of focus: a Gaussian blur of this sigma in pixels
    noise: float = 0.0  # sensor noise: its sigma in grey levels
    h264_kbps: int = 0  # stored as H.264 at this bitrate (0: not)
    h265_kbps: int = 0  # stored as H.265 (HEVC, a newer recorder's default) at this bitrate (0: not)
    jpeg_quality: int = 0  # each frame stored as Motion-JPEG at this quality (0: not)
    drop: float = 0.0  # share of frames dropped, the one before delivered again
    auto_exposure: float = 0.0  # auto-exposure's pull toward a mean brightness (0: fixed exposure, 1: full)
    warmth: float = 0.0  # light warmer than the camera's white balance (1: a tungsten lamp on a daylight setting)
    freeze_s: float = 0.0  # the stream stalls this long every FREEZE_EVERY_S, its last frame delivered meanwhile
    flicker: float = 0.0  # lamps flickering with the mains (LAMP_HZ), caught by a short exposure: the brightness
    # swings this share either way
    shadow: float = 0.0  # someone between a lamp and the table: a soft shadow this deep (a share of the light) crosses
    # the picture every SHADOW_EVERY_S
    shake_px: float = 0.0  # a vibrating mount: each frame moved up to this many pixels each way
    barrel: float = 0.0  # a wide lens's distortion, uncorrected: the k1 of its radial model (0.12: strong)
    gamma: float = 1.0  # the camera's tone curve (above 1: mid-tones darker)
    saturation: float = 1.0  # colour in the camera's settings (below 1: turned down)
    sharpen: float = 0.0  # the camera's edge enhancement: an unsharp mask of this amount (1: a CCTV camera's strong)
    denoise: float = 0.0  # temporal noise reduction: a still pixel blended this share with the last frame's (motion
    # adaptive, as cameras do it in a dim room: what moves is left alone)
    interlaced: bool = False  # an analogue camera's picture woven from two fields, the odd lines a frame late (a
    # recorder that does not deinterlace)
    timestamp: bool = False  # the recorder's date and time burnt into the picture's top left corner
    frame_step: int = 1  # the recorder keeps every n-th frame (its frame rate divided by n)
    height: int = 0  # the recorder scales the picture to this height (0: as the camera gives it)

    def describe(self) -> str:
        """The conditions that depart from a clean camera, as ``name=value`` pairs."""
        clean = Conditions()
        return ", ".join(f"{f.name}={getattr(self, f.name)}" for f in fields(self)
                         if getattr(self, f.name) != getattr(clean, f.name)) or "clean"


class CameraLook:
    """Applies ``Conditions`` to one video's frames in order (auto-exposure and drops carry from frame to frame)."""

    def __init__(self, conditions: Conditions, size: tuple[int, int], *, fps: float, seed: int = 0) -> None:
        self.c, self.fps = conditions, fps
        self.rng = np.random.default_rng(seed)
        self.light = _light_map(conditions, size)
        self.glare_map = _lamp(size, sigma=0.12) * conditions.glare
        self.hot = (255.0 * conditions.hotspot * _lamp(size, sigma=0.25))[..., None]
        self.gain = 1.0
        self.last: np.ndarray | None = None
        self.index = -1  # the frame being applied, counted from 0
        self.lens = _barrel_maps(size, conditions.barrel) if conditions.barrel else None
        self.tone = _tone(conditions.gamma) if conditions.gamma != 1.0 else None
        self.denoised: np.ndarray | None = None  # temporal noise reduction's last frame
        self.field: np.ndarray | None = None  # the last frame's odd lines, woven into this one's

    def apply(self, frame: np.ndarray) -> np.ndarray:
        """The frame as the camera delivers it (before the recorder's compression)."""
        self.index += 1
        if self.last is not None and (self._stalled() or (self.c.drop and self.rng.random() < self.c.drop)):
            return self.last
        if self.lens is not None:
            frame = cv2.remap(frame, *self.lens, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        if self.c.shake_px:
            dx, dy = self.rng.uniform(-self.c.shake_px, self.c.shake_px, 2)
            moved = np.array([[1, 0, dx], [0, 1, dy]], np.float32)
            frame = cv2.warpAffine(frame, moved, (frame.shape[1], frame.shape[0]), borderMode=cv2.BORDER_REPLICATE)
        img = frame.astype(np.float32) * self.light[..., None]
        if self.c.shadow and (passing := self._shadow()) is not None:
            img *= passing[..., None]
        if self.c.flicker:
            img *= np.float32(1.0 + self.c.flicker * math.sin(2 * math.pi * LAMP_HZ * self.index / self.fps))
        if self.c.warmth:
            img *= (1.0 + WARM_CAST * self.c.warmth).astype(np.float32)
        if self.c.hotspot:
            img += self.hot
        if self.c.glare:
            bright = np.clip((img.max(axis=2) - 150.0) / 60.0, 0.0, 1.0) * self.glare_map
            img += (255.0 - img) * bright[..., None]
        if self.c.auto_exposure:
            wanted = (AE_TARGET / max(float(img.mean()), 1.0)) ** self.c.auto_exposure
            step = 1.0 - math.exp(-1.0 / (self.fps * AE_SETTLE_S))
            self.gain += (min(max(wanted, 0.5), 2.5) - self.gain) * step
            img *= self.gain
        if self.c.blur_px:
            img = cv2.GaussianBlur(img, (0, 0), self.c.blur_px)
        if self.c.noise:
            img += self.rng.normal(0.0, self.c.noise, img.shape).astype(np.float32)
        out = self._processed(self._denoised(np.clip(img, 0, 255).astype(np.uint8)))
        if self.c.interlaced:
            out, self.field = self._woven(out), out
        if self.c.jpeg_quality:
            ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, self.c.jpeg_quality])
            out = np.asarray(cv2.imdecode(data, cv2.IMREAD_COLOR)) if ok else out
        self.last = out
        return out

    def _denoised(self, frame: np.ndarray) -> np.ndarray:
        """Temporal noise reduction: each still pixel (changed under ``STILL_CHANGE`` since the last frame's) blended
        ``denoise`` with the last frame's, so noise averages away where nothing moves; the frame as it was without."""
        if not self.c.denoise:
            return frame
        last, self.denoised = self.denoised, frame
        if last is None:
            return frame
        change = cv2.absdiff(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), cv2.cvtColor(last, cv2.COLOR_BGR2GRAY))
        blended = cv2.addWeighted(frame, 1.0 - self.c.denoise, last, self.c.denoise, 0)
        self.denoised = np.where((change < STILL_CHANGE)[..., None], blended, frame)
        return self.denoised

    def _woven(self, frame: np.ndarray) -> np.ndarray:
        """The frame with the last one's odd lines: its second field a frame late (the first frame as it is)."""
        if self.field is None:
            return frame
        woven = frame.copy()
        woven[1::2] = self.field[1::2]
        return woven

    def _shadow(self) -> np.ndarray | None:
        """The light left under a passing shadow (1: none), or None while none passes: a soft ellipse a quarter of
        the picture wide and half its height, crossing from left to right through the middle."""
        into = (self.index / self.fps) % SHADOW_EVERY_S
        if into >= SHADOW_CROSS_S:
            return None
        height, width = self.light.shape
        ys, xs = np.ogrid[0:height, 0:width]
        cx = width * (-0.15 + 1.3 * into / SHADOW_CROSS_S)
        blob = np.exp(-(((xs - cx) / (0.12 * width)) ** 2 + ((ys - 0.55 * height) / (0.25 * height)) ** 2))
        return (1.0 - self.c.shadow * blob).astype(np.float32)

    def _stalled(self) -> bool:
        """Whether the stream is stalled at this frame: ``freeze_s`` from a third of the way into each
        ``FREEZE_EVERY_S``."""
        if not self.c.freeze_s:
            return False
        into = (self.index / self.fps) % FREEZE_EVERY_S - FREEZE_EVERY_S / 3
        return 0.0 <= into < self.c.freeze_s

    def _processed(self, out: np.ndarray) -> np.ndarray:
        """The camera's edge enhancement, tone curve and colour setting, and the recorder's time burnt in."""
        if self.c.sharpen:
            blur = cv2.GaussianBlur(out, (0, 0), SHARPEN_SIGMA)
            out = cv2.addWeighted(out, 1.0 + self.c.sharpen, blur, -self.c.sharpen, 0)
        if self.tone is not None:
            out = cv2.LUT(out, self.tone)
        if self.c.saturation != 1.0:
            hsv = cv2.cvtColor(out, cv2.COLOR_BGR2HSV)
            hsv[..., 1] = np.clip(hsv[..., 1] * self.c.saturation, 0, 255).astype(np.uint8)
            out = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)
        if self.c.timestamp:
            seconds = int(self.index / self.fps)
            text = f"2026-12-05 21:{seconds // 60 % 60:02d}:{seconds % 60:02d}  CAM 07"
            for colour, width in (((0, 0, 0), 4), ((255, 255, 255), 2)):  # white on a black edge, as NVRs draw it
                cv2.putText(out, text, (20, 40), cv2.FONT_HERSHEY_SIMPLEX, 0.9, colour, width, cv2.LINE_AA)
        return out


def _barrel_maps(size: tuple[int, int], k1: float) -> tuple[np.ndarray, np.ndarray]:
    """Where each pixel of the distorted picture comes from in the scene's (a pinhole of focal length the width)."""
    w, h = size
    matrix = np.array([[w, 0, w / 2], [0, w, h / 2], [0, 0, 1]], np.float64)
    maps = cv2.initUndistortRectifyMap(matrix, np.array([k1, 0, 0, 0, 0.0]), None, matrix, size, cv2.CV_16SC2)
    return maps[0], maps[1]


def _tone(gamma: float) -> np.ndarray:
    return np.round(np.linspace(0.0, 1.0, 256) ** gamma * 255).astype(np.uint8)


def _lamp(size: tuple[int, int], *, sigma: float) -> np.ndarray:
    """A lamp's light on the frame: 1 under it, falling off as a Gaussian of ``sigma`` frame widths."""
    w, h = size
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    r2 = ((xx - LAMP_AT[0] * w) ** 2 + (yy - LAMP_AT[1] * h) ** 2) / (sigma * w) ** 2
    return np.exp(-0.5 * r2)


def _light_map(c: Conditions, size: tuple[int, int]) -> np.ndarray:
    """The room's light level and its fall-off from the near side (the frame's bottom) to the far one."""
    w, h = size
    ramp = np.linspace(1.0 - c.falloff, 1.0, h, dtype=np.float32)[:, None]
    return np.repeat(ramp, w, axis=1) * np.float32(c.light)


def frames_of(video: Path) -> Iterator[np.ndarray]:
    capture = cv2.VideoCapture(str(video))
    if not capture.isOpened():
        raise ValueError(f"{video}: not a readable video")
    try:
        while (read := capture.read())[0]:
            yield read[1]
    finally:
        capture.release()


def degrade_video(source: Path, dest: Path, conditions: Conditions, *, seed: int = 0) -> int:
    """Write ``source`` again to ``dest`` as the camera and recorder of ``conditions`` would have; its frame count.
    H.264 and H.265 go through PyAV's libx264 and libx265 at the bitrate; anything else is written as the simulator
    writes video."""
    capture = cv2.VideoCapture(str(source))
    fps = capture.get(cv2.CAP_PROP_FPS) or 15.0
    size = (int(capture.get(cv2.CAP_PROP_FRAME_WIDTH)), int(capture.get(cv2.CAP_PROP_FRAME_HEIGHT)))
    capture.release()
    look = CameraLook(conditions, size, fps=fps, seed=seed)
    step = max(1, conditions.frame_step)
    fps /= step
    kept = (look.apply(frame) for i, frame in enumerate(frames_of(source)) if i % step == 0)
    if conditions.height:
        size = (round(size[0] * conditions.height / size[1]), conditions.height)
        kept = (cv2.resize(frame, size, interpolation=cv2.INTER_AREA) for frame in kept)
    frames = kept
    if conditions.h264_kbps:
        return _write_coded(dest, frames, fps=fps, size=size, codec="libx264", kbps=conditions.h264_kbps)
    if conditions.h265_kbps:
        return _write_coded(dest, frames, fps=fps, size=size, codec="libx265", kbps=conditions.h265_kbps)
    return _stored(dest, frames, fps=fps, size=size)


def _stored(dest: Path, frames: Iterable[np.ndarray], *, fps: float, size: tuple[int, int]) -> int:
    """``frames`` written to ``dest`` as the simulator stores video (``record.write_video``); how many."""
    from tablewatch.sim.record import write_video  # (the recorder's module: calibration and devices come with it)

    count = 0

    def counted() -> Iterator[np.ndarray]:
        nonlocal count
        for frame in frames:
            count += 1
            yield frame

    write_video(dest, counted(), fps=fps, size=size)
    return count


def filter_chain(chain: str) -> list[tuple[str, str]]:
    """(name, args) of each filter of an FFmpeg filter chain; ValueError for an empty chain or a filter this FFmpeg
    lacks (its arguments are checked as the chain is built)."""
    import av

    parts = [part.strip().partition("=") for part in chain.split(",") if part.strip()]
    if not parts:
        raise ValueError("an empty FFmpeg filter chain")
    for name, _, _ in parts:
        if name not in av.filter.filters_available:
            raise ValueError(f"FFmpeg (as PyAV ships it) has no filter {name!r}")
    return [(name, args) for name, _, args in parts]


def filtered_video(source: Path, dest: Path, chain: str) -> int:
    """Write ``source`` again to ``dest`` through an FFmpeg filter chain (``"tmix=frames=3"``,
    ``"pad=1280:960:0:120,fps=10"``: filters as FFmpeg's ``-vf`` takes them, comma-separated, each ``name=args``),
    stored as the simulator writes video at the rate the chain gives; its frame count. Degradations the simulator
    does not make itself, laid by FFmpeg (through PyAV). ValueError names a filter FFmpeg lacks or refuses."""
    import av  # only filtered cells need it

    with av.open(str(source)) as container:
        stream = container.streams.video[0]
        filtered = _filtered(container, stream, _filter_graph(stream, chain))
        first = next(filtered, None)
        if first is None:
            return 0
        per_s = 1 / first.time_base if first.time_base else 0  # (a chain that sets the frame rate times by it)
        fps = float(per_s) if 0 < per_s <= 240 else float(stream.average_rate or 15)
        frames = (frame.to_ndarray(format="bgr24") for frame in itertools.chain([first], filtered))
        return _stored(dest, frames, fps=fps, size=(first.width, first.height))


def _filtered(container: av.container.InputContainer, stream: av.video.stream.VideoStream,
              graph: av.filter.Graph) -> Iterator[av.VideoFrame]:
    """``stream``'s frames as ``graph`` gives them, to the last one it holds back at the end."""
    for frame in itertools.chain(container.decode(stream), [None]):  # (None: the end of the stream)
        graph.push(frame)
        yield from _pulled(graph)


def _filter_graph(stream: av.video.stream.VideoStream, chain: str) -> av.filter.Graph:
    """A filter graph taking ``stream``'s frames through ``chain`` (``filter_chain``)."""
    import av

    graph = av.filter.Graph()
    last = graph.add_buffer(template=stream)
    for name, args in filter_chain(chain):
        try:
            node = graph.add(name, args or None)
        except (ValueError, av.FFmpegError) as exc:
            raise ValueError(f"FFmpeg filter {name}={args}: {exc}") from exc
        last.link_to(node)
        last = node
    last.link_to(graph.add("buffersink"))
    try:
        graph.configure()
    except av.FFmpegError as exc:
        raise ValueError(f"FFmpeg filter chain {chain!r}: {exc}") from exc
    return graph


def _pulled(graph: av.filter.Graph) -> Iterator[av.VideoFrame]:
    """The frames a filter graph has ready (a filter that blends or drops frames holds some back)."""
    import av

    while True:
        try:
            yield graph.vpull()
        except (av.BlockingIOError, av.EOFError):
            return


def _write_coded(dest: Path, frames: Iterator[np.ndarray], *, fps: float, size: tuple[int, int], codec: str,
                 kbps: int) -> int:
    import av  # only the H.264 and H.265 conditions need it

    count = 0
    with av.open(str(dest), "w") as container:
        stream = cast("av.video.stream.VideoStream",
                      container.add_stream(codec, rate=Fraction(fps).limit_denominator(1001)))
        stream.width, stream.height, stream.pix_fmt = size[0], size[1], "yuv420p"
        stream.bit_rate = kbps * 1000
        stream.options = {"preset": "veryfast", "g": str(round(2 * fps))}  # a keyframe every 2 s, as NVRs do
        if codec == "libx265":
            stream.options |= {"x265-params": "log-level=error"}  # (it prints its settings otherwise)
        for frame in frames:
            for packet in stream.encode(av.VideoFrame.from_ndarray(frame, format="bgr24")):
                container.mux(packet)
            count += 1
        for packet in stream.encode():
            container.mux(packet)
    return count

"""A camera's conditions laid over a recorded session's video, each on its own scale: the room's light (its level,
its fall-off across the table, a pendant lamp's hot spot), glare off glossy cards and chips, focus, sensor noise,
compression as a surveillance recorder stores it (H.264 at a bitrate, or Motion-JPEG at a quality), frames the
camera drops, and auto-exposure pulling the picture's brightness about (a dark sleeve filling the view).

The renderer draws what the table shows (with its own light drift, vignetting, noise and motion blur of moving
hands: ``render.Effects``); these act on its frames as a camera and recorder would, so one clean recording is
scored under many conditions (``tablewatch bench-conditions``). The camera's tilt is the one condition of the
scene itself: ``Scenario.camera_tilt_deg``, drawn by the renderer.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, fields
from fractions import Fraction
from pathlib import Path

import cv2
import numpy as np

from tablewatch.sim.output import VIDEO_FOURCC

LAMP_AT = (0.55, 0.45)  # where the lamp's hot spot and its glare fall, as a fraction of the frame's width, height
AE_TARGET = 118.0  # the grey level auto-exposure aims the picture's mean at
AE_SETTLE_S = 1.0  # ... moving its gain this fast (a time constant)
WARM_CAST = np.array([-0.22, -0.05, 0.12])  # B, G, R: what warmth 1 takes off and adds (about 3000 K on 5500 K)


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
    jpeg_quality: int = 0  # each frame stored as Motion-JPEG at this quality (0: not)
    drop: float = 0.0  # share of frames dropped, the one before delivered again
    auto_exposure: float = 0.0  # auto-exposure's pull toward a mean brightness (0: fixed exposure, 1: full)
    warmth: float = 0.0  # light warmer than the camera's white balance (1: a tungsten lamp on a daylight setting)

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

    def apply(self, frame: np.ndarray) -> np.ndarray:
        """The frame as the camera delivers it (before the recorder's compression)."""
        if self.last is not None and self.c.drop and self.rng.random() < self.c.drop:
            return self.last
        img = frame.astype(np.float32) * self.light[..., None]
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
        out = np.clip(img, 0, 255).astype(np.uint8)
        if self.c.jpeg_quality:
            ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, self.c.jpeg_quality])
            out = cv2.imdecode(data, cv2.IMREAD_COLOR) if ok else out
        self.last = out
        return out


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
    H.264 goes through PyAV's libx264 at the bitrate; anything else is written as the simulator writes video."""
    capture = cv2.VideoCapture(str(source))
    fps = capture.get(cv2.CAP_PROP_FPS) or 15.0
    size = (int(capture.get(cv2.CAP_PROP_FRAME_WIDTH)), int(capture.get(cv2.CAP_PROP_FRAME_HEIGHT)))
    capture.release()
    look = CameraLook(conditions, size, fps=fps, seed=seed)
    frames = (look.apply(frame) for frame in frames_of(source))
    if conditions.h264_kbps:
        return _write_h264(dest, frames, fps=fps, size=size, kbps=conditions.h264_kbps)
    writer = cv2.VideoWriter(str(dest), cv2.VideoWriter.fourcc(*VIDEO_FOURCC), fps, size)
    count = 0
    try:
        for frame in frames:
            writer.write(frame)
            count += 1
    finally:
        writer.release()
    return count


def _write_h264(dest: Path, frames: Iterator[np.ndarray], *, fps: float, size: tuple[int, int], kbps: int) -> int:
    import av  # only the H.264 conditions need it

    count = 0
    with av.open(str(dest), "w") as container:
        stream = container.add_stream("libx264", rate=Fraction(fps).limit_denominator(1001))
        stream.width, stream.height, stream.pix_fmt = size[0], size[1], "yuv420p"
        stream.bit_rate = kbps * 1000
        stream.options = {"preset": "veryfast", "g": str(round(2 * fps))}  # a keyframe every 2 s, as NVRs do
        for frame in frames:
            for packet in stream.encode(av.VideoFrame.from_ndarray(frame, format="bgr24")):
                container.mux(packet)
            count += 1
        for packet in stream.encode():
            container.mux(packet)
    return count

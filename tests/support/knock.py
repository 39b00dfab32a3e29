"""A simulated camera knocked on its mount, and a video of a session in which that happens part-way."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from tablewatch.sim.camera import CameraModel
from tablewatch.sim.output import VIDEO_FOURCC
from tablewatch.sim.render import Renderer
from tablewatch.sim.session import Simulation

SHIFT_MM = (40.0, -25.0, 0.0)  # the mount slides 40 mm one way, 25 mm the other...
TURN_DEG = 1.5  # ...and turns about the camera's axis


def knocked(camera: CameraModel, *, shift_mm: tuple[float, float, float] = SHIFT_MM,
            turn_deg: float = TURN_DEG) -> CameraModel:
    """The same camera (same lens) after a knock: shifted and turned about its optical axis."""
    rot = cv2.Rodrigues(camera.rvec)[0] @ cv2.Rodrigues(np.array([0.0, 0.0, math.radians(turn_deg)]))[0]
    return replace(camera, rvec=cv2.Rodrigues(rot)[0].ravel(), tvec=np.add(camera.tvec, shift_mm))


def write_knocked_video(sim: Simulation, path: Path, *, fps: float, start_s: float, stop_s: float,
                        knock_s: float) -> CameraModel:
    """The overhead 720p view of ``sim`` from ``start_s`` to ``stop_s`` (frame i shows ``start_s + i / fps``),
    the camera knocked at ``knock_s`` and still from then on; returns the knocked camera."""
    steady = sim.renderer("overhead", "720p")
    moved = knocked(steady.camera)
    after = Renderer(sim.run, moved, effects=steady.effects)  # same seed: same lighting drift and noise
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*VIDEO_FOURCC), fps, (moved.width, moved.height))
    if not writer.isOpened():
        raise RuntimeError(f"OpenCV cannot write {VIDEO_FOURCC} video to {path}")
    try:
        for i in range(round((stop_s - start_s) * fps)):
            t = start_s + i / fps
            writer.write((steady if t < knock_s else after).render(t, labels=False).image)
    finally:
        writer.release()
    return moved

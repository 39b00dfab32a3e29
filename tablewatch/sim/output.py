"""Everything one simulated run produces, written into a folder.

    DIR/
      overhead_720p.mp4         video (mp4v; what the headless OpenCV build writes), one per camera/resolution
      board_720p.mp4            the second camera, on the board and dealer area
      labels/overhead_720p/000042.txt   YOLO labels of frame 42 (class cx cy w h, normalised)
      classes.txt               class names, one per line (ids 0-54 are those of cards-real)
      events.jsonl              ground-truth events (tablewatch.events.dump_events)
      rfid.jsonl                RfidInventory per antenna over time
      registry.csv              the chip tag registry, as `tablewatch run` reads it (counterfeits absent)
      truth.phhs                ground-truth hand histories (PHHS: pokerkit's HandHistory.load_all)
      violations.json           injected violations with times and frame numbers
      cameras.json              true camera parameters (K, distortion, pose) and the layout name
      run.json                  summary: seed, duration, fps, frame counts, files
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cv2
from tqdm import tqdm

from tablewatch.devices.registry import ChipTag, TagRegistry
from tablewatch.events import dump_events
from tablewatch.sim.labels import CLASS_NAMES, yolo_lines
from tablewatch.sim.session import Simulation

VIDEO_FOURCC = "mp4v"


DEFAULT_VIEWS = (("overhead", "720p"), ("board", "720p"))


def write_registry(sim: Simulation, path: Path) -> None:
    """The simulated chips' tag registry (uid,denomination,chip_set), the file `tablewatch run` reads."""
    tags = (ChipTag(uid=uid, denomination=value, chip_set="sim") for uid, value in sim.registry.items())
    TagRegistry(tags).to_csv(path)


def write_run(sim: Simulation, out: Path, *, fps: float = 30.0, views: Sequence[tuple[str, str]] = DEFAULT_VIEWS,
              labels: bool = True, video: bool = True, max_frames: int | None = None, effects: bool = True,
              card_boxes: str = "card", progress: bool = True) -> Path:
    """Render ``views`` (camera, resolution) and write the truth files; returns ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "events.jsonl").write_text(dump_events(sim.events), encoding="utf-8")
    (out / "rfid.jsonl").write_text(dump_events(sim.rfid_reads()), encoding="utf-8")
    write_registry(sim, out / "registry.csv")
    (out / "truth.phhs").write_text(sim.phh_text(), encoding="utf-8")
    (out / "violations.json").write_text(json.dumps([v.to_dict(fps) for v in sim.violations], indent=2),
                                         encoding="utf-8")
    (out / "classes.txt").write_text("".join(n + "\n" for n in CLASS_NAMES), encoding="utf-8")
    cameras: dict[str, Any] = {"layout": sim.run.layout.name}
    files: dict[str, Any] = {}
    total = sim.frame_count(fps) if max_frames is None else min(max_frames, sim.frame_count(fps))
    for camera, resolution in views:
        name = f"{camera}_{resolution}"
        cameras[name] = sim.camera(camera, resolution).to_dict()
        files[name] = _render_view(sim, out, name, camera=camera, resolution=resolution, fps=fps, count=total,
                                   labels=labels, video=video, effects=effects, card_boxes=card_boxes,
                                   progress=progress)
    (out / "cameras.json").write_text(json.dumps(cameras, indent=2), encoding="utf-8")
    summary = {**sim.summary, "fps": fps, "frames": total, "views": files}
    (out / "run.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    return out


def _render_view(sim: Simulation, out: Path, name: str, *, camera: str, resolution: str, fps: float, count: int,
                 labels: bool, video: bool, effects: bool, card_boxes: str, progress: bool) -> dict[str, Any]:
    cam = sim.camera(camera, resolution)
    writer = None
    if video:
        writer = cv2.VideoWriter(str(out / f"{name}.mp4"), cv2.VideoWriter.fourcc(*VIDEO_FOURCC), fps,
                                 (cam.width, cam.height))
        if not writer.isOpened():
            raise RuntimeError(f"OpenCV cannot write {VIDEO_FOURCC} video to {out / f'{name}.mp4'}")
    label_dir = out / "labels" / name
    if labels:
        label_dir.mkdir(parents=True, exist_ok=True)
    frames = sim.frames(camera, resolution, fps=fps, stop=count, labels=labels, effects=effects,
                        card_boxes=card_boxes)
    try:
        for i, frame in enumerate(tqdm(frames, total=count, desc=name, unit="frame", disable=not progress)):
            if writer is not None:
                writer.write(frame.image)
            if labels:
                (label_dir / f"{i:06d}.txt").write_text(yolo_lines(frame.labels, cam.width, cam.height))
    finally:
        if writer is not None:
            writer.release()
    return {"video": f"{name}.mp4" if video else None, "labels": f"labels/{name}" if labels else None,
            "frames": count, "width": cam.width, "height": cam.height}

"""Training sets for the table-objects detector: chips by denomination and hands, on the rectified table plane.

Perception sees the table top-down at ``PLANE_PX_PER_MM`` (``vision.perception.plane.TablePlane``): sizes
are in millimetres whatever the camera, so the detector learns one size of chip and of hand. Each image is
a simulated camera frame (random hand, deck, felt, camera pose: ``sim.dataset.random_scenario``),
JPEG-compressed as a camera sends it, calibrated from its own markers as the monitor does, and rectified;
the boxes come from the renderer's id image rectified the same way (exact after occlusion, no box
transformed approximately). Training images are ``TILE`` px tiles of the plane (the size the detector is
trained at, so a chip keeps its plane size); the held-out set keeps whole planes, as run time sees them.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import yaml
from tqdm import tqdm

from tablewatch.calibration.layout import load_layout
from tablewatch.calibration.markers import calibrate_frames
from tablewatch.sim.dataset import random_scenario
from tablewatch.sim.labels import Label
from tablewatch.sim.render import Frame, Renderer
from tablewatch.sim.scenario import DEFAULT_CHIPS
from tablewatch.sim.session import Simulation
from tablewatch.vision.perception.plane import TablePlane, plane_frame
from tablewatch.vision.sources import jpeg_frame
from tablewatch.vision.table_objects import PLANE_PX_PER_MM

TILE = 320
OBJECT_CLASSES = (*(f"chip_{chip.value}" for chip in DEFAULT_CHIPS), "hand")
MIN_PIXELS = {"chip": 40, "hand": 120}  # of the object's own pixels on the plane (a whole chip top is ~110)
MIN_INSIDE = 0.6  # share of a box that must lie in a tile for the tile to label it
IMAGES_PER_SCENE = 5
PLANE_STACKS = (8000, 15000, 30000, 50000, 80000)  # from 30,000 up a stack holds 5,000s (sim.chips.compose_stack)
HAND_SHARE, HAND_TRIES = 0.8, 10
HELD_OUT_FRAMES, HELD_OUT_SEED = 60, 1
STRIDE = 32  # a YOLO input's sides are multiples of its largest stride
Boxes = list[tuple[int, tuple[int, int, int, int]]]  # (class, (x0, y0, x1, y1) plane pixels)


def plane_input_hw(layout: str = "oval10") -> tuple[int, int]:
    """The detector's run-time input (h, w): the largest layout's whole plane, rounded up to the model's stride."""
    _, (w, h) = plane_frame(load_layout(layout), PLANE_PX_PER_MM)
    return (-(-h // STRIDE) * STRIDE, -(-w // STRIDE) * STRIDE)


def _class_of(name: str) -> int | None:
    return OBJECT_CLASSES.index(name) if name in OBJECT_CLASSES else None


def plane_boxes(plane: TablePlane, ids: np.ndarray, labels: list[Label]) -> Boxes:
    """(class, plane box) for each chip and hand label, from the id image rectified like the picture."""
    plane_ids = plane.rectify(ids.astype(np.float32), nearest=True).astype(np.int64)
    out = []
    for label in labels:
        cls = _class_of(label.name)
        if cls is None:
            continue
        ys, xs = np.nonzero(plane_ids == label.oid)
        if len(xs) < MIN_PIXELS[label.name.split("_")[0]]:
            continue
        out.append((cls, (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1)))
    return out


def _yolo(boxes: Boxes, width: int, height: int) -> str:
    lines = []
    for cls, (x0, y0, x1, y1) in boxes:
        lines.append(f"{cls} {(x0 + x1) / 2 / width:.6f} {(y0 + y1) / 2 / height:.6f} "
                     f"{(x1 - x0) / width:.6f} {(y1 - y0) / height:.6f}")
    return "\n".join(lines) + ("\n" if lines else "")


def tile_origins(length: int, tile: int = TILE) -> list[int]:
    """Tile starts covering ``length`` with the fewest tiles, evenly overlapped."""
    if length <= tile:
        return [0]
    n = -(-length // tile)
    return [round(i * (length - tile) / (n - 1)) for i in range(n)]


def tiles(image: np.ndarray, boxes: Boxes) -> Iterator[tuple[np.ndarray, Boxes]]:
    """(tile image, its boxes in tile pixels) for each tile of the plane; a box cut by a tile edge stays
    when ``MIN_INSIDE`` of it is in the tile."""
    h, w = image.shape[:2]
    for y in tile_origins(h):
        for x in tile_origins(w):
            inside = []
            for cls, (x0, y0, x1, y1) in boxes:
                cx0, cy0, cx1, cy1 = max(x0, x), max(y0, y), min(x1, x + TILE), min(y1, y + TILE)
                if cx1 <= cx0 or cy1 <= cy0:
                    continue
                if (cx1 - cx0) * (cy1 - cy0) >= MIN_INSIDE * (x1 - x0) * (y1 - y0):
                    inside.append((cls, (cx0 - x, cy0 - y, cx1 - x, cy1 - y)))
            yield image[y:y + TILE, x:x + TILE], inside


def scene_plane(sim: Simulation, renderer: Renderer) -> TablePlane:
    """The table plane of a simulated camera, calibrated from its markers as the monitor calibrates."""
    layout = sim.run.table.layout
    calibration, _ = calibrate_frames([renderer.render(0.0, labels=False).image], layout)
    return TablePlane(calibration, layout, px_per_mm=PLANE_PX_PER_MM)


def _frame(renderer: Renderer, duration: float, rng: random.Random) -> Frame:
    """A frame at a random moment; most of the time one with a hand in it (arms are on the table a small part
    of a hand's time, and hands are the class with the fewest examples)."""
    tries = HAND_TRIES if rng.random() < HAND_SHARE else 1
    for _ in range(tries):
        frame = renderer.render(rng.uniform(0.5, duration - 0.5), card_boxes="card")
        if any(label.name == "hand" for label in frame.labels):
            break
    return frame


def make_plane_dataset(out: Path, *, count: int, seed: int = 0, held_out: bool = False, val_share: float = 0.1,
                       resolution: str = "720p", whole: bool | None = None, progress: bool = True) -> dict[str, int]:
    """``count`` rendered frames as plane tiles (or whole planes: ``whole``, the default for ``held_out``)
    with YOLO labels under ``out/images|labels/{train,val}`` and ``data.yaml``."""
    whole = held_out if whole is None else whole
    rng = random.Random(seed)
    out = out.resolve()
    for split in ("train", "val"):
        (out / "images" / split).mkdir(parents=True, exist_ok=True)
        (out / "labels" / split).mkdir(parents=True, exist_ok=True)
    made = written = boxes = 0
    bar = tqdm(total=count, desc="plane dataset", unit="frame", disable=not progress)
    while made < count:
        sim = Simulation(random_scenario(rng, held_out=held_out, stacks=PLANE_STACKS))
        renderer = sim.renderer("overhead", resolution)
        plane = scene_plane(sim, renderer)
        split = "val" if rng.random() < val_share else "train"  # whole scenes per split
        for _ in range(min(IMAGES_PER_SCENE, count - made)):
            frame = _frame(renderer, sim.duration, rng)
            image = plane.rectify(jpeg_frame(frame.image, quality=rng.randint(60, 95)).image)
            found = plane_boxes(plane, frame.ids, frame.labels)
            pieces = [(image, found)] if whole else list(tiles(image, found))
            for k, (picture, inside) in enumerate(pieces):
                name = f"{made:06d}_{k}"
                cv2.imwrite(str(out / "images" / split / f"{name}.png"), picture)
                h, w = picture.shape[:2]
                (out / "labels" / split / f"{name}.txt").write_text(_yolo(inside, w, h), encoding="utf-8")
                written, boxes = written + 1, boxes + len(inside)
            made += 1
            bar.update(1)
        sim.release_renderers()
    bar.close()
    data = {"path": str(out), "train": "images/train", "val": "images/val", "nc": len(OBJECT_CLASSES),
            "names": list(OBJECT_CLASSES)}
    (out / "data.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return {"frames": made, "images": written, "labels": boxes}


def held_out_planes(out: Path, *, frames: int = HELD_OUT_FRAMES, seed: int = HELD_OUT_SEED) -> Path:
    """The held-out planes (whole, the deck and felt no training image has) in ``out``, made if missing."""
    if not (out / "data.yaml").exists():
        make_plane_dataset(out, count=frames, seed=seed, held_out=True, val_share=0.0)
    return out

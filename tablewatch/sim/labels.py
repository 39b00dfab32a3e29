"""YOLO labels read from the rendered id image: one box per visible card, chip top and hand.

Class ids 0-54 are exactly those of ``shared/data/cards-real/data.yaml`` (52 cards, ``BACK``, two
jokers) so simulated and real images train one model; chips by denomination and ``hand`` follow.
A card box covers the whole visible card (the real photos box the corner index instead; the models part
decides how to mix them). An object is labelled when enough of it is visible: a box is the extent of
its visible pixels, so occlusion by a hand, another card or the frame edge shrinks or removes it.
A box must also be mostly about its object: when the visible pixels fill under ``MIN_BOX_FILL`` of their
own box (a hole card showing only as a diagonal strip beside the card on top of it, or corners sticking
out from under a crossed card), the box would mostly show the other card and the felt under this card's
class, so the object gets no box. A whole card at its least favourable angle (45 degrees) fills about
half its box, a chip top about three quarters.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import cv2
import numpy as np

from tablewatch.sim.world import CARD_H, CARD_W, CHIP_DIAMETER

if TYPE_CHECKING:
    from tablewatch.sim.render import Renderer

_RANKS = {"T": "10"}
CARD_CLASSES = [
    *[f"{r}{s}" for r in ("10",) for s in "CDHS"],
    *[f"{r}{s}" for r in "23456789" for s in "CDHS"],
    *[f"A{s}" for s in "CDHS"],
    "BACK",
    "BLACK JOKER",
    *[f"J{s}" for s in "CDHS"],
    *[f"K{s}" for s in "CDHS"],
    *[f"Q{s}" for s in "CDHS"],
    "RED JOKER",
]
CHIP_VALUES = (1, 5, 25, 100, 500, 1000, 5000, 25000, 100000)
CLASS_NAMES = [*CARD_CLASSES, *(f"chip_{v}" for v in CHIP_VALUES), "chip_other", "hand"]
CLASS_INDEX = {name: i for i, name in enumerate(CLASS_NAMES)}
MIN_VISIBLE = {"card": 0.30, "chip": 0.45, "hand": 0.30}
MIN_BOX_FILL = 0.35  # share of a box that must be its object's own pixels (see above)
HAND_AREA_MM2 = math.pi * 52 * 40


@dataclass(frozen=True)
class Label:
    cls: int
    name: str
    oid: int  # the world object (card, chip or arm)
    box: tuple[int, int, int, int]  # x0, y0, x1, y1 pixels, inclusive-exclusive
    visible: float  # share of the object's full area that is visible

    def yolo(self, width: int, height: int) -> str:
        x0, y0, x1, y1 = self.box
        cx, cy = (x0 + x1) / 2 / width, (y0 + y1) / 2 / height
        return f"{self.cls} {cx:.6f} {cy:.6f} {(x1 - x0) / width:.6f} {(y1 - y0) / height:.6f}"


def class_name(kind: str) -> str:
    """``"Td"`` → ``"10D"``, ``"back"`` → ``"BACK"``, ``"chip_500"``, ``"hand"``."""
    if kind == "back":
        return "BACK"
    if kind.startswith("chip_"):
        return kind if int(kind[5:]) in CHIP_VALUES else "chip_other"
    if kind == "hand":
        return kind
    return _RANKS.get(kind[0], kind[0]) + kind[1].upper()


def label_objects(renderer: Renderer, id_img: np.ndarray, drawn: dict[int, tuple[str, tuple[int, int, int, int]]],
                  *, index_quads: dict[int, np.ndarray] | None = None) -> list[Label]:
    """Boxes of the objects drawn on the canvas, as seen (after occlusion) in the id image.

    With ``index_quads`` (card id → two corner quads in canvas pixels) a face-up card gets a box per
    corner index that is mostly visible, as in the real photos, instead of one box for the card.
    """
    if not drawn:
        return []
    extra: list[Label] = []
    if index_quads is not None:
        named = {oid: (drawn[oid][0], q) for oid, q in index_quads.items() if oid in drawn}
        extra = _index_labels(renderer, id_img, named)
        drawn = {oid: v for oid, v in drawn.items() if oid not in index_quads}
    oids = list(drawn)
    s, (ox, oy) = renderer.scale, renderer.origin
    corners = []
    for oid in oids:
        x0, y0, x1, y1 = drawn[oid][1]
        corners += [(x0 / s + ox, y0 / s + oy), (x1 / s + ox, y0 / s + oy), (x1 / s + ox, y1 / s + oy),
                    (x0 / s + ox, y1 / s + oy)]
    img_pts = renderer.camera.project(np.asarray(corners, float)).reshape(-1, 4, 2)
    H, W = id_img.shape
    labels = []
    for oid, pts in zip(oids, img_pts, strict=True):
        name, _ = drawn[oid]
        x0, y0 = np.floor(pts.min(axis=0)).astype(int) - 4
        x1, y1 = np.ceil(pts.max(axis=0)).astype(int) + 4
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
        if x1 <= x0 or y1 <= y0:
            continue
        ys, xs = np.nonzero(id_img[y0:y1, x0:x1] == oid)
        if len(xs) == 0:
            continue
        kind = "card" if not name.startswith(("chip_", "hand")) else name.split("_")[0]
        full = _full_area_px(renderer, kind, pts.mean(axis=0))
        visible = min(1.0, len(xs) / full)
        box = (int(x0 + xs.min()), int(y0 + ys.min()), int(x0 + xs.max() + 1), int(y0 + ys.max() + 1))
        if visible < MIN_VISIBLE[kind] or len(xs) < MIN_BOX_FILL * (box[2] - box[0]) * (box[3] - box[1]):
            continue
        cls_name = class_name(name)
        labels.append(Label(cls=CLASS_INDEX[cls_name], name=cls_name, oid=oid, visible=round(visible, 3), box=box))
    return labels + extra


def _index_labels(renderer: Renderer, id_img: np.ndarray, cards: dict[int, tuple[str, np.ndarray]]) -> list[Label]:
    """One box per corner index of each face-up card, when at least 60 % of the index is visible."""
    s, (ox, oy) = renderer.scale, renderer.origin
    H, W = id_img.shape
    out = []
    for oid, (name, quads) in cards.items():
        cls_name = class_name(name)
        for quad in quads:
            pts = renderer.camera.project(quad / s + (ox, oy))
            x0, y0 = np.floor(pts.min(axis=0)).astype(int)
            x1, y1 = np.ceil(pts.max(axis=0)).astype(int) + 1
            x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
            if x1 - x0 < 2 or y1 - y0 < 2:
                continue
            mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
            cv2.fillConvexPoly(mask, np.round(pts - (x0, y0)).astype(np.int32), 1)
            inside = mask.astype(bool)
            if inside.sum() < 4:
                continue
            visible = float(np.mean(id_img[y0:y1, x0:x1][inside] == oid))
            if visible >= 0.6:
                out.append(Label(cls=CLASS_INDEX[cls_name], name=cls_name, oid=oid, box=(int(x0), int(y0), int(x1),
                                 int(y1)), visible=round(visible, 3)))
    return out


def _full_area_px(renderer: Renderer, kind: str, at_px: np.ndarray) -> float:
    """Unoccluded area of an object in image pixels at ``at_px`` (the local scale of the camera)."""
    area_mm2 = {"card": CARD_W * CARD_H, "chip": math.pi * (CHIP_DIAMETER / 2) ** 2, "hand": HAND_AREA_MM2}[kind]
    mm_per_px = _local_mm_per_px(renderer, at_px)
    return area_mm2 / mm_per_px**2


def _local_mm_per_px(renderer: Renderer, at_px: np.ndarray) -> float:
    u = int(np.clip(at_px[0], 1, renderer.camera.width - 2))
    v = int(np.clip(at_px[1], 1, renderer.camera.height - 2))
    mx, my = renderer.nmap_x, renderer.nmap_y
    du = math.hypot(mx[v, u + 1] - mx[v, u - 1], my[v, u + 1] - my[v, u - 1]) / 2
    dv = math.hypot(mx[v + 1, u] - mx[v - 1, u], my[v + 1, u] - my[v - 1, u]) / 2
    return math.sqrt(max(du * dv, 1e-9)) / renderer.scale


def yolo_lines(labels: Iterable[Label], width: int, height: int) -> str:
    return "".join(label.yolo(width, height) + "\n" for label in labels)

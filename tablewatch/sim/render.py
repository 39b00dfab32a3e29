"""Render a simulated run through a camera: the scene is drawn on the table plane, then resampled.

Per frame: copy the static table, draw the dealer button puck, cards, chips (stack sides, then tops) and arms
with their shadows on a canvas in table millimetres (raised things shifted by their parallax for this camera), and
an id buffer alongside; ``cv2.remap`` through the camera's distortion gives the image and the id image.
Labels are read from the id image, so a box covers only what is visible (a hand over a card shrinks or
removes the card's box). Lighting drift, vignetting, motion blur and sensor noise come last.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

import cv2
import numpy as np

from tablewatch.calibration.decks import index_quads
from tablewatch.sim.camera import CameraModel
from tablewatch.sim.labels import Label, label_objects
from tablewatch.sim.scenario import FELTS, ChipSpec
from tablewatch.sim.script import SimRun
from tablewatch.sim.sprites import button_sprites, card_sprites, chip_sprites, table_background
from tablewatch.sim.world import BUTTON_HEIGHT, CARD_H, CARD_W, CHIP_DIAMETER, CHIP_HEIGHT, Arm, Card, Chip, Pose

SLEEVE_OFFSET = 1 << 20  # id of an arm's sleeve = arm id + this (only the hand itself is labelled)
LIGHT = np.array([0.35, 0.25])  # shadow direction on the felt per mm of height

Box = tuple[int, int, int, int]  # canvas pixels: x0, y0, x1, y1
ChipArt = tuple[np.ndarray, np.ndarray, np.ndarray]  # a sprite premultiplied: colour × alpha, 256 - alpha, mask
Flat = tuple[float, Card | Chip, Pose]  # a card or chip to draw, by the height it is drawn at
Placed = tuple[Arm, Pose]


@dataclass
class Effects:
    """Image degradations; ``Effects.none()`` for exact pictures in tests."""

    lighting: float = 0.08  # amplitude of the slow brightness drift
    vignette: float = 0.25
    noise: float = 4.0  # sensor noise sigma (grey levels)
    motion_blur: bool = True
    shadows: bool = True

    @classmethod
    def none(cls) -> Effects:
        return cls(lighting=0.0, vignette=0.0, noise=0.0, motion_blur=False, shadows=False)


@dataclass
class Frame:
    t: float
    image: np.ndarray  # BGR uint8, camera resolution
    ids: np.ndarray  # int32 object id per pixel (0 = table), camera resolution
    labels: list[Label] = field(default_factory=list)


class Renderer:
    """Draws ``run`` as seen by ``camera``. Deterministic: the same run, camera and seed give the same bytes."""

    def __init__(self, run: SimRun, camera: CameraModel, *, deck: str | None = None, felt: str | None = None,
                 effects: Effects | None = None, seed: int | None = None) -> None:
        self.run, self.camera = run, camera
        self.effects = effects if effects is not None else Effects()
        self.seed = run.scenario.seed if seed is None else seed
        self.deck = deck or run.scenario.deck
        self.felt = FELTS[felt or run.scenario.felt]
        self.chip_specs: dict[int, ChipSpec] = {c.value: c for c in run.scenario.chips}
        self._chip_cache: dict[int, tuple[list[ChipArt], ChipArt]] = {}
        mx, my = camera.plane_maps()
        self._setup_canvas(mx, my)
        rng = np.random.default_rng(self.seed)
        self.background = table_background(run.layout, felt=self.felt, origin=self.origin, scale=self.scale,
                                           size=self.size, rng=rng)
        self.cards = card_sprites(self.deck, self.scale)
        self.button = tuple(_premultiply(s) for s in button_sprites(round(self.scale, 4)))
        self.index_quads = index_quads(self.deck)  # where each card's two corner indices are printed
        self.vignette = self._vignette()
        self.noise = [np.clip(rng.normal(8, self.effects.noise, (camera.height, camera.width, 3)), 0, 16)
                      .astype(np.uint8) for _ in range(3)] if self.effects.noise else []
        self.phase = random.Random(self.seed).uniform(0, 2 * math.pi)
        c = camera.centre
        self.eye = (float(c[0]), float(c[1]), float(-c[2]))  # camera x, y and height above the felt (mm)

    # --- set-up ---------------------------------------------------------------------------------------

    def _setup_canvas(self, mx: np.ndarray, my: np.ndarray) -> None:
        ex0, ey0, ex1, ey1 = self.run.table.extent(margin=500.0)
        x0, x1 = max(float(mx.min()), ex0), min(float(mx.max()), ex1)
        y0, y1 = max(float(my.min()), ey0), min(float(my.max()), ey1)
        # Finest felt detail the camera resolves anywhere in view, oversampled a little.
        step = 8
        du = np.hypot(np.diff(mx[::step, ::step], axis=1), np.diff(my[::step, ::step], axis=1)) / step
        mm_per_px = float(np.percentile(du, 2))
        scale = min(1.0 / max(mm_per_px, 1e-3), 7000.0 / max(x1 - x0, y1 - y0))
        self.scale, self.origin = scale, (x0, y0)
        self.size = (math.ceil((x1 - x0) * scale) + 1, math.ceil((y1 - y0) * scale) + 1)
        fx = ((mx - x0) * scale).astype(np.float32)
        fy = ((my - y0) * scale).astype(np.float32)
        self.map1, self.map2 = cv2.convertMaps(fx, fy, cv2.CV_16SC2)
        self.nmap_x, self.nmap_y = fx, fy

    def _vignette(self) -> np.ndarray | None:
        if not self.effects.vignette:
            return None
        h, w = self.camera.height, self.camera.width
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        r2 = ((xx - w / 2) / (w / 2)) ** 2 + ((yy - h / 2) / (h / 2)) ** 2
        v = 1.0 - self.effects.vignette * r2 / 2
        return np.asarray(cv2.merge([(v * 255).astype(np.uint8)] * 3))

    # --- geometry -------------------------------------------------------------------------------------

    def to_canvas(self, x: float, y: float, z: float = 0.0) -> tuple[float, float]:
        """Canvas pixel of a point ``z`` mm above the felt, moved along the camera ray onto the felt."""
        ex, ey, eh = self.eye
        if z:
            k = eh / max(eh - z, 1.0)
            x, y = ex + (x - ex) * k, ey + (y - ey) * k
        return ((x - self.origin[0]) * self.scale, (y - self.origin[1]) * self.scale)

    # --- frames ---------------------------------------------------------------------------------------

    def render(self, t: float, *, labels: bool = True, card_boxes: str = "card") -> Frame:
        """The picture at ``t`` seconds; ``card_boxes``: ``card`` (whole face-up cards) or ``index`` (their corners)."""
        self._index_quads: dict[int, np.ndarray] = {}
        canvas = self.background.copy()
        ids = np.zeros(canvas.shape[:2], np.int32)
        drawn: dict[int, tuple[str, Box]] = {}
        flat, placed = self.visible(t)
        arms = [(arm, pose) for arm, pose in placed if _reach(arm.shoulder, pose) > 25.0]
        if self.effects.shadows:
            self._shadows(canvas, arms)
        self._draw_button(canvas, ids, t)
        covered = covered_chips(flat)
        for _z, obj, pose in sorted(flat, key=lambda it: (it[0], it[1].oid)):
            box: Box | None
            if isinstance(obj, Card):
                box = self._draw_card(canvas, ids, obj.oid, obj.code if pose.face_up else "back", pose)
                name = obj.code if pose.face_up else "back"
            else:
                box = self._draw_chip(canvas, ids, obj.oid, obj.value, pose, obj.oid in covered)
                name = f"chip_{obj.value}"
            if box:
                drawn[obj.oid] = (name, box)
        for arm, pose in arms:
            arm_box = self._draw_arm(canvas, ids, arm, pose, t)
            drawn[arm.oid] = ("hand", arm_box)
        image = cv2.remap(canvas, self.map1, self.map2, cv2.INTER_LINEAR, borderValue=(30, 30, 30))
        id_img = cv2.remap(ids, self.nmap_x, self.nmap_y, cv2.INTER_NEAREST, borderValue=0)
        image = self._post(image, t)
        frame = Frame(t=t, image=image, ids=id_img)
        if labels:
            frame.labels = label_objects(self, id_img, drawn, index_quads=self._index_quads if card_boxes == "index"
                                         else None)
        return frame

    def visible(self, t: float) -> tuple[list[Flat], list[Placed]]:
        """What is on the table at ``t``: cards and chips by the height they lie at, and every arm's pose."""
        flat: list[Flat] = []
        arms: list[Placed] = []
        for card in self.run.world.cards:
            pose = card.track.at(t)
            if pose is not None and pose.visible:
                flat.append((pose.z, card, pose))
        for chip in self.run.world.chips:
            pose = chip.track.at(t)
            if pose is not None and pose.visible:
                flat.append((pose.z + CHIP_HEIGHT, chip, pose))
        for arm in self.run.world.arms.values():
            pose = arm.track.at(t)
            if pose is not None:
                arms.append((arm, pose))
        return flat, arms

    def _draw_button(self, canvas: np.ndarray, ids: np.ndarray, t: float) -> None:
        """The dealer button puck, under everything else (it lies on the felt; nothing is labelled for it)."""
        pose = self.run.world.button.at(t)
        if pose is None or not pose.visible:
            return
        top, side = self.button
        self._paste(canvas, ids, 0, side, self.to_canvas(pose.x, pose.y, pose.z))
        self._paste(canvas, ids, 0, top, self.to_canvas(pose.x, pose.y, pose.z + BUTTON_HEIGHT))

    def _draw_card(self, canvas: np.ndarray, ids: np.ndarray, oid: int, code: str, pose: Pose) -> Box | None:
        sprite = self.cards[code]
        cx, cy = self.to_canvas(pose.x, pose.y, pose.z)
        sh, sw = sprite.shape[:2]
        mid = ((sw - 1) / 2, (sh - 1) / 2)  # the sprite's centre: its pixels span -0.5 .. size - 0.5
        M = cv2.getRotationMatrix2D(mid, -pose.angle, 1.0)
        half = math.hypot(sw, sh) / 2 + 2
        x0, y0 = int(cx - half), int(cy - half)
        x1, y1 = int(cx + half) + 1, int(cy + half) + 1
        M[:, 2] += (cx - mid[0] - x0, cy - mid[1] - y0)
        if code != "back":  # where the two corner indices land, for index-style labels
            quads = self.index_quads[code] * (sw, sh) - 0.5  # fractions of the card, in pixel-centre coordinates
            self._index_quads[oid] = (quads @ M[:, :2].T + M[:, 2]) + (x0, y0)
        return self._blit(canvas, ids, oid, sprite, M, (x0, y0, x1, y1))

    def _blit(self, canvas: np.ndarray, ids: np.ndarray, oid: int, sprite: np.ndarray, M: np.ndarray,
              box: Box) -> Box | None:
        x0, y0, x1, y1 = box
        H, W = canvas.shape[:2]
        cx0, cy0, cx1, cy1 = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
        if cx1 <= cx0 or cy1 <= cy0:
            return None
        M = M.copy()
        M[:, 2] -= (cx0 - x0, cy0 - y0)
        warped = cv2.warpAffine(sprite, M, (cx1 - cx0, cy1 - cy0), flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
        a = warped[..., 3:4].astype(np.uint16)
        roi = canvas[cy0:cy1, cx0:cx1]
        roi[:] = ((roi.astype(np.uint16) * (255 - a) + warped[..., :3].astype(np.uint16) * a) // 255).astype(np.uint8)
        ids[cy0:cy1, cx0:cx1][warped[..., 3] > 127] = oid
        return (cx0, cy0, cx1, cy1)

    def _draw_chip(self, canvas: np.ndarray, ids: np.ndarray, oid: int, value: int, pose: Pose,
                   covered: bool) -> Box | None:
        """A chip's edge, then (unless another chip lies right on it) its top face."""
        tops, side = self._chip_art(value)
        box = self._paste(canvas, ids, oid, side, self.to_canvas(pose.x, pose.y, pose.z))
        if covered:
            return None  # only a sliver of edge shows: not labelled
        top = tops[int(pose.angle / 360 * len(tops)) % len(tops)]
        return self._paste(canvas, ids, oid, top, self.to_canvas(pose.x, pose.y, pose.z + CHIP_HEIGHT)) or box

    def _chip_art(self, value: int) -> tuple[list[ChipArt], ChipArt]:
        """Per denomination: sprites split into (premultiplied colour, 256 - alpha, mask), cached."""
        if value not in self._chip_cache:
            spec = self.chip_specs.get(value) or ChipSpec(value=value, colour="grey")
            tops, side = chip_sprites(spec, self.scale)
            self._chip_cache[value] = ([_premultiply(t) for t in tops], _premultiply(side))
        return self._chip_cache[value]

    def _paste(self, canvas: np.ndarray, ids: np.ndarray, oid: int, art: ChipArt,
               centre: tuple[float, float]) -> Box | None:
        """Alpha-blend a premultiplied sprite at a whole-pixel position (chips need no rotation)."""
        pre, inv, mask = art
        s = pre.shape[0]
        x0, y0 = round(centre[0] - (s - 1) / 2), round(centre[1] - (s - 1) / 2)  # sprite centre at (s - 1) / 2
        H, W = canvas.shape[:2]
        cx0, cy0, cx1, cy1 = max(x0, 0), max(y0, 0), min(x0 + s, W), min(y0 + s, H)
        if cx1 <= cx0 or cy1 <= cy0:
            return None
        sl = (slice(cy0 - y0, cy1 - y0), slice(cx0 - x0, cx1 - x0))
        roi = canvas[cy0:cy1, cx0:cx1]
        roi[:] = ((roi * inv[sl] + pre[sl]) >> 8).astype(np.uint8)
        ids[cy0:cy1, cx0:cx1][mask[sl]] = oid
        return (cx0, cy0, cx1, cy1)

    def _arm_shape(self, arm: Arm, pose: Pose) -> tuple[np.ndarray, tuple[float, float], float, float]:
        sx, sy = arm.shoulder
        hx, hy = self.to_canvas(pose.x, pose.y, pose.z + 30.0)
        px, py = self.to_canvas(sx, sy, 250.0)
        ang = math.atan2(hy - py, hx - px)
        wrist = (hx - math.cos(ang) * 55 * self.scale, hy - math.sin(ang) * 55 * self.scale)
        sleeve = np.array([(px, py), wrist])
        return sleeve, (hx, hy), ang, 95 * self.scale

    def _draw_arm(self, canvas: np.ndarray, ids: np.ndarray, arm: Arm, pose: Pose, t: float) -> Box:
        sleeve, (hx, hy), ang, width = self._arm_shape(arm, pose)
        blur = self._motion(arm, t) if self.effects.motion_blur else None
        roi_box = self._arm_roi(canvas, (hx, hy), width) if blur is not None else None
        base = canvas[roi_box[1]:roi_box[3], roi_box[0]:roi_box[2]].copy() if roi_box else None
        pts = np.round(sleeve * 16).astype(np.int32)
        thick = max(2, int(width))
        cv2.line(canvas, tuple(pts[0]), tuple(pts[1]), arm.sleeve, thick, cv2.LINE_AA, shift=4)
        cv2.line(ids, tuple(pts[0]), tuple(pts[1]), arm.oid + SLEEVE_OFFSET, thick, cv2.LINE_8, shift=4)
        axes = (max(2, int(52 * self.scale)), max(2, int(40 * self.scale)))
        centre = (round(hx), round(hy))
        deg = math.degrees(ang)
        cv2.ellipse(canvas, centre, axes, deg, 0, 360, arm.skin, -1, cv2.LINE_AA)
        cv2.ellipse(ids, centre, axes, deg, 0, 360, arm.oid, -1, cv2.LINE_8)
        thumb = (int(hx + math.cos(ang + 1.2) * axes[1] * 1.1), int(hy + math.sin(ang + 1.2) * axes[1] * 1.1))
        cv2.ellipse(canvas, thumb, (axes[1] // 2, axes[1] // 3), deg + 60, 0, 360, arm.skin, -1, cv2.LINE_AA)
        shade = tuple(int(c * 0.8) for c in arm.skin)
        for k in (-1, 0, 1):  # knuckle creases
            a = ang + k * 0.35
            p0 = (int(hx + math.cos(a) * axes[0] * 0.45), int(hy + math.sin(a) * axes[0] * 0.45))
            p1 = (int(hx + math.cos(a) * axes[0] * 0.95), int(hy + math.sin(a) * axes[0] * 0.95))
            cv2.line(canvas, p0, p1, shade, max(1, int(3 * self.scale)), cv2.LINE_AA)
        r = axes[0] + 2
        box = (max(centre[0] - r, 0), max(centre[1] - r, 0), centre[0] + r, centre[1] + r)
        if blur is not None and roi_box is not None and base is not None:
            self._blur(canvas, ids, arm.oid, roi_box, base, blur)
        return box

    def _motion(self, arm: Arm, t: float) -> tuple[float, float] | None:
        a, b = arm.track.at(t - 1 / 60), arm.track.at(t + 1 / 60)
        if a is None or b is None:
            return None
        dx, dy = (b.x - a.x) * self.scale, (b.y - a.y) * self.scale
        return (dx, dy) if math.hypot(dx, dy) >= 2.0 else None

    def _arm_roi(self, canvas: np.ndarray, hand: tuple[float, float], width: float) -> Box | None:
        """Around the hand and forearm: they move most (the arm swings from the shoulder)."""
        r = int(width * 1.8) + 32
        x0, y0, x1, y1 = int(hand[0]) - r, int(hand[1]) - r, int(hand[0]) + r, int(hand[1]) + r
        H, W = canvas.shape[:2]
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
        return (x0, y0, x1, y1) if x1 > x0 and y1 > y0 else None

    def _blur(self, canvas: np.ndarray, ids: np.ndarray, oid: int, box: Box, base: np.ndarray,
              motion: tuple[float, float]) -> None:
        """Smear the arm (only the arm: the felt under it stays sharp) along its motion."""
        dx, dy = motion
        n = int(min(31, max(3, math.hypot(dx, dy)))) | 1
        kernel = np.zeros((n, n), np.float32)
        c = n // 2
        ux, uy = dx / math.hypot(dx, dy), dy / math.hypot(dx, dy)
        cv2.line(kernel, (int(c - ux * c), int(c - uy * c)), (int(c + ux * c), int(c + uy * c)), 1.0, 1)
        kernel /= kernel.sum()
        x0, y0, x1, y1 = box
        roi = canvas[y0:y1, x0:x1]
        owner = ids[y0:y1, x0:x1]
        mask = ((owner == oid) | (owner == oid + SLEEVE_OFFSET)).astype(np.float32)
        m = cv2.filter2D(mask, -1, kernel)[..., None]
        smeared = cv2.filter2D(roi, -1, kernel).astype(np.float32)
        roi[:] = (base * (1 - m) + smeared * m).astype(np.uint8)

    def _shadows(self, canvas: np.ndarray, arms: list[Placed]) -> None:
        for arm, pose in arms:
            sleeve, (hx, hy), _, width = self._arm_shape(arm, pose)
            off = LIGHT * (pose.z + 40.0) * self.scale
            x0 = int(min(sleeve[:, 0].min(), hx) - width + off[0])
            y0 = int(min(sleeve[:, 1].min(), hy) - width + off[1])
            x1 = int(max(sleeve[:, 0].max(), hx) + width + off[0])
            y1 = int(max(sleeve[:, 1].max(), hy) + width + off[1])
            H, W = canvas.shape[:2]
            x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
            if x1 <= x0 or y1 <= y0:
                continue
            mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
            p = np.round((sleeve + off - (x0, y0)) * 16).astype(np.int32)
            cv2.line(mask, tuple(p[0]), tuple(p[1]), 90, max(2, int(width)), cv2.LINE_AA, shift=4)
            cv2.circle(mask, (int(hx + off[0] - x0), int(hy + off[1] - y0)), max(2, int(50 * self.scale)), 90, -1)
            k = max(3, int(25 * self.scale)) | 1
            mask = cv2.GaussianBlur(mask, (k, k), 0)
            roi = canvas[y0:y1, x0:x1]
            roi[:] = (roi.astype(np.uint16) * (255 - mask[..., None]) // 255).astype(np.uint8)

    def _post(self, image: np.ndarray, t: float) -> np.ndarray:
        e = self.effects
        if self.vignette is not None:
            image = cv2.multiply(image, self.vignette, scale=1 / 255)
        if e.lighting:
            gain = 1.0 + e.lighting * math.sin(2 * math.pi * t / 9.0 + self.phase)
            image = cv2.convertScaleAbs(image, alpha=gain)
        if self.noise:
            n = self.noise[int(t * 30) % len(self.noise)]
            image = cv2.subtract(cv2.add(image, n), np.full_like(n, 8))
        return image

    def card_area_px(self) -> float:
        """A card's area in image pixels near the image centre (for visible-fraction tests)."""
        return CARD_W * CARD_H / self.camera.mm_per_px() ** 2

    def chip_area_px(self) -> float:
        return math.pi * (CHIP_DIAMETER / 2) ** 2 / self.camera.mm_per_px() ** 2


def _premultiply(sprite: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """BGRA → (colour × alpha, 256 - alpha, alpha mask), uint16 for a ``>> 8`` blend."""
    a = sprite[..., 3:4].astype(np.uint16)
    a = a + (a >> 7)  # 0..256
    return sprite[..., :3].astype(np.uint16) * a, (256 - a), sprite[..., 3] > 127


def covered_chips(flat: list[Flat]) -> set[int]:  # (the physically based renderer leaves their tops off too)
    """Chips with another chip lying right on top of them (same column, next level)."""
    tops = set()
    for _z, obj, pose in flat:
        if isinstance(obj, Chip):
            tops.add((round(pose.x / 4), round(pose.y / 4), round(pose.z / CHIP_HEIGHT)))
    out = set()
    for _z, obj, pose in flat:
        if not isinstance(obj, Chip):
            continue
        gx, gy, level = round(pose.x / 4), round(pose.y / 4), round(pose.z / CHIP_HEIGHT)
        if any((gx + dx, gy + dy, level + 1) in tops for dx in (-1, 0, 1) for dy in (-1, 0, 1)):
            out.add(obj.oid)
    return out


def _reach(shoulder: tuple[float, float], pose: Pose) -> float:
    return math.hypot(pose.x - shoulder[0], pose.y - shoulder[1])

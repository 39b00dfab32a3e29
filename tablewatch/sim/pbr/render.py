"""``PbrRenderer``: a simulated run's frames traced by Mitsuba 3 through the same camera as the 2D renderer.

The felt, rail and markers are the 2D renderer's table picture, laid on the plane as a matte cloth; the dealer
button, cards and chips are solids at their poses (a card a 0.3 mm body under its glossy face, a sheet bowed or
curled a little as cards lie; a chip a 3.3 mm disc with a striped edge and its face on top, satin); the arms and
the dealer's body are ``body``'s solids. Lamps hang over the table and the room gives a little light. Mitsuba
renders a pinhole picture a margin wider than the camera's; the camera's lens distortion is then applied with
OpenCV, so the picture lands where the camera model (and so its calibration) says it does. Labels come from the
2D renderer at the same moment: the objects are the same, only the arms' outlines differ.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from functools import cache, cached_property
from typing import Any

import cv2
import numpy as np

from tablewatch.calibration.chips import CHIP_PAINTS
from tablewatch.sim.pbr.body import Capsule, Ellipsoid, Solid, arm_solids, dealer_body
from tablewatch.sim.render import Frame, Renderer, covered_chips
from tablewatch.sim.scenario import ChipSpec
from tablewatch.sim.sprites import button_sprites, card_sprites, chip_sprites, table_background
from tablewatch.sim.world import (
    BUTTON_DIAMETER,
    BUTTON_HEIGHT,
    CARD_H,
    CARD_W,
    CHIP_DIAMETER,
    CHIP_HEIGHT,
    Card,
    Pose,
)

TEXTURE_PX_PER_MM = 4.0  # cards, chips and the button: finer than any camera here sees them
FELT_PX_PER_MM = 1.5
CARD_THICK_MM = 0.3
MARGIN = 0.12  # the pinhole picture's extra width on each side, for the lens distortion to draw from
LAMP_HEIGHT_MM = 2700.0  # above the camera: a lamp it looked through would hide the felt
LAMP_SIDE_MM = 500.0
AMBIENT = 0.25  # the room's light, against the lamps' (linear radiance)


@dataclass(frozen=True)
class Lighting:
    """Pendant lamps over the table (their places along the table's long axis, mm) and the room's light."""

    lamps_x: tuple[float, ...] = (-700.0, 0.0, 700.0)
    lamp_radiance: float = 9.0
    ambient: float = AMBIENT


def mitsuba() -> Any:
    """Mitsuba on the CPU (scalar: no LLVM or CUDA needed), or a clear error where it is not installed."""
    try:
        import mitsuba as mi
    except ImportError as exc:  # an optional part: the monitor itself never needs it
        raise RuntimeError("the physically based renderer needs Mitsuba 3: pip install 'tablewatch[pbr]'") from exc
    if mi.variant() is None:
        mi.set_variant("scalar_rgb")
        mi.set_log_level(mi.LogLevel.Error)  # (its shape checks warn of shear in a cylinder's frame at float precision)
    return mi


class PbrRenderer:
    """Draws ``flat.run`` through ``flat.camera`` as Mitsuba traces it; ``flat`` (the 2D renderer of the same run
    and camera) lends its table picture, chip specs and labels. Deterministic for a given ``spp`` and ``seed``."""

    def __init__(self, flat: Renderer, *, spp: int = 8, lighting: Lighting | None = None, seed: int = 0) -> None:
        self.mi = mitsuba()
        self.flat, self.run, self.camera = flat, flat.run, flat.camera
        self.spp, self.seed = spp, seed
        self.lighting = lighting or Lighting()
        self._felt_texture()
        self._bsdfs: dict[str, Any] = {}
        self._bitmaps: dict[str, Any] = {}
        self._meshes: dict[Hashable, Any] = {}  # the meshes of the last frame, by what shapes them
        self._meshes_now: dict[Hashable, Any] = {}
        self._sensor = self._make_sensor()
        self.exposure: float | None = None

    # --- set-up ---------------------------------------------------------------------------------------

    def _felt_texture(self) -> None:
        """The 2D renderer's table picture at ``FELT_PX_PER_MM``, and the felt's extent in mm, pixel edges included
        (the picture's pixel i is centred on x0 + i / scale, as the 2D renderer draws it)."""
        ex0, ey0, ex1, ey1 = self.run.table.extent(margin=500.0)
        size = (math.ceil((ex1 - ex0) * FELT_PX_PER_MM), math.ceil((ey1 - ey0) * FELT_PX_PER_MM))
        self.felt_picture = table_background(self.run.layout, felt=self.flat.felt, origin=(ex0, ey0),
                                             scale=FELT_PX_PER_MM, size=size, rng=np.random.default_rng(self.flat.seed))
        half = 0.5 / FELT_PX_PER_MM
        self.felt_box = (ex0 - half, ey0 - half, ex0 - half + size[0] / FELT_PX_PER_MM,
                         ey0 - half + size[1] / FELT_PX_PER_MM)

    def _make_sensor(self) -> dict[str, Any]:
        """A pinhole at the camera's centre with its focal length and principal point, ``MARGIN`` wider each side."""
        cam, T = self.camera, self.mi.ScalarTransform4f
        down, forward = cam.R[1], cam.R[2]  # the image's y and the optical axis, in the table frame
        centre = cam.centre
        fx = float(cam.K[0, 0])
        self.pad = (round(cam.width * MARGIN), round(cam.height * MARGIN))
        width, height = cam.width + 2 * self.pad[0], cam.height + 2 * self.pad[1]
        cx, cy = float(cam.K[0, 2]) + self.pad[0], float(cam.K[1, 2]) + self.pad[1]
        self.pinhole = (width, height, cx, cy)
        return {
            "type": "perspective",
            "fov_axis": "x",
            "fov": math.degrees(2 * math.atan(width / 2 / fx)),
            # (Mitsuba's offsets run against the image's axes: measured on the markers, see the tests)
            "principal_point_offset_x": (width / 2 - cx) / width,
            "principal_point_offset_y": (height / 2 - cy) / height,
            "near_clip": 10.0, "far_clip": 10000.0,
            "to_world": T.look_at(origin=centre.tolist(), target=(centre + forward).tolist(), up=(-down).tolist()),
            "film": {"type": "hdrfilm", "width": width, "height": height, "pixel_format": "rgb",
                     "rfilter": {"type": "gaussian"}},
            "sampler": {"type": "independent", "sample_count": self.spp},
        }

    # --- frames ---------------------------------------------------------------------------------------

    def render(self, t: float, *, labels: bool = True) -> Frame:
        """The picture at ``t`` seconds (BGR uint8, the camera's size), with the 2D renderer's ids and labels."""
        scene = self.mi.load_dict(self.scene_dict(t))
        noise = self.seed * 1_000_003 + round(t * 1000)  # the sampling noise changes from frame to frame, as a sensor's
        linear = np.asarray(self.mi.render(scene, seed=noise % 2**31), dtype=np.float32)
        image = self._camera_picture(linear)
        reference = self.flat.render(t, labels=labels)
        return Frame(t=t, image=image, ids=reference.ids, labels=reference.labels)

    def scene_dict(self, t: float) -> dict[str, Any]:
        """Mitsuba's scene at ``t``: the sensor, the lights, the felt and every object then on the table."""
        T = self.mi.ScalarTransform4f
        room = {"type": "constant", "radiance": {"type": "rgb", "value": self.lighting.ambient}}
        scene: dict[str, Any] = {"type": "scene", "integrator": {"type": "path", "max_depth": 4},
                                 "sensor": self._sensor, "room": room}
        for i, x in enumerate(self.lighting.lamps_x):
            scene[f"lamp{i}"] = {
                "type": "rectangle",
                "to_world": T.translate([x, 0.0, -LAMP_HEIGHT_MM]) @ T.scale([LAMP_SIDE_MM / 2, LAMP_SIDE_MM / 2, 1]),
                "emitter": {"type": "area", "radiance": {"type": "rgb", "value": self.lighting.lamp_radiance}},
            }
        x0, y0, x1, y1 = self.felt_box
        scene["felt"] = {
            "type": "rectangle",  # normal -z (up, towards the lamps): rotated half a turn about the x axis
            "to_world": T.translate([(x0 + x1) / 2, (y0 + y1) / 2, 0.0]) @ T.scale([(x1 - x0) / 2, (y1 - y0) / 2, 1])
            @ T.rotate([1, 0, 0], 180),
            "bsdf": self._bsdf("felt", lambda: {"type": "diffuse",
                                                "reflectance": self._texture("felt", self.felt_picture, flip=True)}),
        }
        self._meshes_now = {}
        self._objects(scene, t)
        self._meshes = self._meshes_now
        return scene

    def _objects(self, scene: dict[str, Any], t: float) -> None:
        flat, placed = self.flat.visible(t)
        covered = covered_chips(flat)
        for _z, obj, pose in flat:
            if isinstance(obj, Card):
                self._card(scene, obj.oid, obj.code if pose.face_up else "back", pose)
            else:
                self._chip(scene, obj.oid, obj.value, pose, top=obj.oid not in covered)
        button = self.run.world.button.at(t)
        if button is not None and button.visible:
            self._button(scene, button)
        solids: list[Solid] = []
        for arm, pose in placed:
            solids += arm_solids(arm, pose)
            if arm.actor == "dealer":
                x, y = self.run.layout.dealer_position
                solids += dealer_body(arm, (x, y))
        for k, solid in enumerate(solids):
            self._solid(scene, f"body{k}", solid)

    # --- objects --------------------------------------------------------------------------------------

    def _card(self, scene: dict[str, Any], oid: int, code: str, pose: Pose) -> None:
        T = self.mi.ScalarTransform4f
        h = pose.z + CARD_THICK_MM
        place = T.translate([pose.x, pose.y, -h / 2]) @ T.rotate([0, 0, 1], pose.angle)
        scene[f"card{oid}"] = {"type": "cube", "to_world": place @ T.scale([CARD_W / 2 - 0.2, CARD_H / 2 - 0.2, h / 2]),
                               "bsdf": self._bsdf("card_edge", lambda: _plastic((0.82, 0.82, 0.80), 0.3))}
        face = self._bsdf(f"card_{code}", lambda: self._card_face(code))
        scene[f"face{oid}"] = self._reused((oid, code, pose), lambda: _mesh(
            self.mi, *card_sheet(pose, h + 0.01, card_bend_mm(oid)), face))

    def _card_face(self, code: str) -> dict[str, Any]:
        sprite = card_sprites(self.flat.deck, TEXTURE_PX_PER_MM)[code]
        face = {"type": "roughplastic", "alpha": 0.18, "int_ior": 1.45,
                "diffuse_reflectance": self._texture(f"face_{code}", sprite[..., :3], flip=True)}
        opacity = self._texture(f"shape_{code}", sprite[..., 3:], flip=True, colour=False)
        return {"type": "mask", "opacity": opacity, "bsdf": face}

    def _chip(self, scene: dict[str, Any], oid: int, value: int, pose: Pose, *, top: bool) -> None:
        T = self.mi.ScalarTransform4f
        spec = self.flat.chip_specs.get(value) or ChipSpec(value=value, colour="grey")
        r = CHIP_DIAMETER / 2
        scene[f"chip{oid}"] = {"type": "cylinder", "radius": r,
                               "p0": [pose.x, pose.y, -pose.z], "p1": [pose.x, pose.y, -(pose.z + CHIP_HEIGHT)],
                               "bsdf": self._bsdf(f"edge_{value}", lambda: self._chip_edge(spec))}
        if top:
            tops, _side = chip_sprites(spec, TEXTURE_PX_PER_MM)
            k = int(pose.angle / 360 * len(tops)) % len(tops)
            place = T.translate([pose.x, pose.y, -(pose.z + CHIP_HEIGHT)]) @ T.scale([r, r, 1])
            look = f"{value}_{k}"
            scene[f"top{oid}"] = {"type": "disk", "to_world": place @ T.rotate([1, 0, 0], 180),
                                  "bsdf": self._bsdf(f"top_{look}", lambda: self._chip_top(look, tops[k]))}

    def _chip_top(self, name: str, sprite: np.ndarray) -> dict[str, Any]:
        """A chip's printed face on a disk: Mitsuba's disk maps (u, v) polar, so the sprite is unrolled first."""
        polar = _polar(sprite)
        return _satin(self._texture(f"polar_{name}", polar[..., :3], flip=False))

    def _chip_edge(self, spec: ChipSpec) -> dict[str, Any]:
        return _satin(self._texture(f"stripes_{spec.value}", _edge_stripes(spec), flip=False))

    def _button(self, scene: dict[str, Any], pose: Pose) -> None:
        T = self.mi.ScalarTransform4f
        r = BUTTON_DIAMETER / 2
        scene["button"] = {"type": "cylinder", "radius": r, "p0": [pose.x, pose.y, -pose.z],
                           "p1": [pose.x, pose.y, -(pose.z + BUTTON_HEIGHT)],
                           "bsdf": self._bsdf("button_edge", lambda: _plastic((0.55, 0.55, 0.55), 0.3))}
        top, _side = button_sprites(TEXTURE_PX_PER_MM)
        place = T.translate([pose.x, pose.y, -(pose.z + BUTTON_HEIGHT)]) @ T.scale([r, r, 1])
        scene["button_top"] = {"type": "disk", "to_world": place @ T.rotate([1, 0, 0], 180),
                               "bsdf": self._bsdf("button_top", lambda: {
                                   "type": "roughplastic", "alpha": 0.25,
                                   "diffuse_reflectance": self._texture("button", _polar(top)[..., :3], flip=False)})}

    def _solid(self, scene: dict[str, Any], key: str, solid: Solid) -> None:
        colour = _linear(solid.colour)
        name = f"{'skin' if solid.skin else 'cloth'}_{solid.colour}"
        bsdf = self._bsdf(name, lambda: _plastic(colour, 0.45) if solid.skin
                          else {"type": "diffuse", "reflectance": {"type": "rgb", "value": colour}})
        if isinstance(solid, Capsule):
            a, b = _down(solid.a), _down(solid.b)
            scene[key] = {"type": "cylinder", "p0": a, "p1": b, "radius": solid.radius, "bsdf": bsdf}
            for end, at in (("a", a), ("b", b)):
                scene[f"{key}{end}"] = {"type": "sphere", "center": at, "radius": solid.radius, "bsdf": bsdf}
        elif isinstance(solid, Ellipsoid):
            scene[key] = self._reused(solid, lambda: _ellipsoid(self.mi, solid, bsdf))

    def _reused(self, key: Hashable, make: Callable[[], Any]) -> Any:
        """The mesh ``key`` shapes, made again only when it changed since the last frame (a card lying still, the
        dealer's body): making a mesh costs more than tracing it."""
        mesh = self._meshes.get(key) or make()
        self._meshes_now[key] = mesh
        return mesh

    def _bsdf(self, name: str, make: Callable[[], dict[str, Any]]) -> Any:
        """One BSDF per look, loaded once (textures and all) and shared by every object that wears it."""
        if name not in self._bsdfs:
            self._bsdfs[name] = self.mi.load_dict(make())
        return self._bsdfs[name]

    def _texture(self, name: str, image: np.ndarray, *, flip: bool, colour: bool = True) -> dict[str, Any]:
        """A bitmap texture of an 8-bit BGR picture (or, ``colour`` False, of one channel read as it is)."""
        if name not in self._bitmaps:
            self._bitmaps[name] = _bitmap(self.mi, image[::-1] if flip else image, colour=colour)
        return {"type": "bitmap", "bitmap": self._bitmaps[name], "filter_type": "bilinear", "raw": not colour}

    # --- the camera's picture -------------------------------------------------------------------------

    def _camera_picture(self, linear: np.ndarray) -> np.ndarray:
        """Exposure (set on the first frame so the felt shows as bright as its cloth), the sRGB curve, then the
        lens: each camera pixel takes the pinhole picture's pixel its undistorted ray falls on."""
        if self.exposure is None:
            self.exposure = self._meter(linear)
        srgb = _to_srgb(linear * self.exposure)
        bgr = cv2.cvtColor((srgb * 255 + 0.5).astype(np.uint8), cv2.COLOR_RGB2BGR)
        map_x, map_y = self.lens_maps
        return np.asarray(cv2.remap(bgr, map_x, map_y, cv2.INTER_LINEAR, borderValue=(30, 30, 30)))

    def _meter(self, linear: np.ndarray) -> float:
        """Exposure that shows the felt at the table's middle as bright as the felt's own colour."""
        width = self.pinhole[0]
        centre = self.camera.project(np.array([[0.0, 0.0]]))[0] + self.pad
        x, y = int(centre[0]), int(centre[1])
        r = max(4, width // 40)
        seen = float(np.median(linear[max(0, y - r):y + r, max(0, x - r):x + r].mean(axis=2)))
        cloth = float(np.mean(_linear(self.flat.felt)))
        return cloth / max(seen, 1e-6)

    @cached_property
    def lens_maps(self) -> tuple[np.ndarray, np.ndarray]:
        """For each camera pixel, where the pinhole picture shows what it sees (OpenCV's remap maps)."""
        cam = self.camera
        u, v = np.meshgrid(np.arange(cam.width, dtype=np.float32), np.arange(cam.height, dtype=np.float32))
        pts = np.stack([u.ravel(), v.ravel()], axis=1).reshape(-1, 1, 2)
        norm = cv2.undistortPoints(pts, cam.K, cam.dist).reshape(-1, 2)
        _w, _h, cx, cy = self.pinhole
        fx, fy = float(cam.K[0, 0]), float(cam.K[1, 1])
        map_x = (norm[:, 0] * fx + cx).reshape(cam.height, cam.width).astype(np.float32)
        map_y = (norm[:, 1] * fy + cy).reshape(cam.height, cam.width).astype(np.float32)
        return map_x, map_y


# --- materials and pictures -------------------------------------------------------------------------------


def _down(point: tuple[float, float, float]) -> list[float]:
    """(x, y, height above the felt) → the table frame, whose z runs into the table."""
    return [point[0], point[1], -point[2]]


def _linear(bgr: tuple[int, int, int] | tuple[float, ...]) -> tuple[float, float, float]:
    r, g, b = (float(c) for c in _srgb_to_linear(np.asarray(bgr[:3], np.float64)[::-1] / 255))
    return (r, g, b)


def _srgb_to_linear(srgb: np.ndarray) -> np.ndarray:
    """The sRGB curve undone (values 0..1)."""
    return np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)


def _to_srgb(linear: np.ndarray) -> np.ndarray:
    x = np.clip(linear, 0.0, 1.0)
    return np.where(x <= 0.0031308, x * 12.92, 1.055 * np.power(x, 1 / 2.4) - 0.055)


def _plastic(colour: tuple[float, float, float], alpha: float) -> dict[str, Any]:
    return {"type": "roughplastic", "alpha": alpha, "diffuse_reflectance": {"type": "rgb", "value": list(colour)}}


def _satin(texture: dict[str, Any]) -> dict[str, Any]:
    """A clay chip's finish: mostly matte, with a faint broad sheen."""
    return {"type": "blendbsdf", "weight": 0.15, "bsdf_0": {"type": "diffuse", "reflectance": texture},
            "bsdf_1": {"type": "roughplastic", "alpha": 0.4, "diffuse_reflectance": texture}}


def _bitmap(mi: Any, image: np.ndarray, *, colour: bool) -> Any:
    """A Mitsuba bitmap of an 8-bit picture: BGR as linear RGB floats (``colour``), or one channel as it is."""
    scaled = image.astype(np.float32) / 255
    values = _srgb_to_linear(scaled[..., ::-1]) if colour else scaled
    return mi.Bitmap(np.ascontiguousarray(values, dtype=np.float32))


def _ellipsoid(mi: Any, solid: Ellipsoid, bsdf: Any) -> Any:
    """An ellipsoid as a mesh (Mitsuba's sphere takes no stretch): a unit sphere's vertices through its axes."""
    unit, faces = _unit_sphere()
    axes = np.array([_down(axis) for axis in solid.axes])  # rows: the three semi-axis vectors
    normals = unit @ np.linalg.inv(axes).T  # a surface's normals go through the inverse transpose
    normals /= np.linalg.norm(normals, axis=1, keepdims=True)
    return _mesh(mi, unit @ axes + np.array(_down(solid.centre)), faces, normals, None, bsdf)


def card_bend_mm(oid: int) -> float:
    """How far a card's middle stands above its ends (negative: its ends curl up), its own for every card."""
    return random.Random(oid * 104729).uniform(-1.5, 1.5)


def card_sheet(pose: Pose, height: float, bend_mm: float, *, across: int = 6, along: int = 10) -> Sheet:
    """A card's face as a bent sheet in the table frame: vertices, triangles (facing up), normals and texture
    coordinates (the card art's top-left corner at the card's -x, -y corner before it turns by ``pose.angle``)."""
    u, v = np.meshgrid(np.linspace(0.0, 1.0, across + 1), np.linspace(0.0, 1.0, along + 1))
    x, y = (u - 0.5) * CARD_W, (v - 0.5) * CARD_H
    bow, curl = max(bend_mm, 0.0), max(-bend_mm, 0.0)  # (either way the sheet lies on or above the card's body)
    q = (2 * y / CARD_H) ** 2
    lift = bow * (1 - q) + curl * q
    slope = (curl - bow) * 8 * y / CARD_H**2  # d lift / d y
    c, s = math.cos(math.radians(pose.angle)), math.sin(math.radians(pose.angle))
    vertices = np.stack([pose.x + c * x - s * y, pose.y + s * x + c * y, -(height + lift)], axis=-1).reshape(-1, 3)
    normals = np.stack([s * slope, -c * slope, -np.ones_like(slope)], axis=-1).reshape(-1, 3)  # up is -z
    normals /= np.linalg.norm(normals, axis=1, keepdims=True)
    faces = []
    for i in range(along):
        for j in range(across):
            a, b = i * (across + 1) + j, i * (across + 1) + j + 1
            faces += [(a, a + across + 1, b), (b, a + across + 1, b + across + 1)]  # (counter-clockwise from above)
    texcoords = np.stack([u, 1.0 - v], axis=-1).reshape(-1, 2)  # (the art is handed to Mitsuba upside down)
    return vertices, np.array(faces), normals, texcoords


Sheet = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _mesh(mi: Any, vertices: np.ndarray, faces: np.ndarray, normals: np.ndarray, texcoords: np.ndarray | None,
          bsdf: Any) -> Any:
    """A Mitsuba triangle mesh of these arrays, wearing ``bsdf``."""
    props = mi.Properties()
    props["bsdf"] = bsdf
    mesh = mi.Mesh("solid", vertex_count=len(vertices), face_count=len(faces), props=props,
                   has_vertex_normals=True, has_vertex_texcoords=texcoords is not None)
    params = mi.traverse(mesh)
    arrays = {"vertex_positions": vertices, "vertex_normals": normals, "vertex_texcoords": texcoords}
    for name, values in arrays.items():
        if values is not None:
            params[name] = type(params[name])(values.astype(np.float32).ravel())
    params["faces"] = type(params["faces"])(faces.astype(np.uint32).ravel())
    params.update()
    return mesh


@cache
def _unit_sphere(rings: int = 16, segments: int = 32) -> tuple[np.ndarray, np.ndarray]:
    """Vertices and triangles of a sphere of radius 1 (poles on the z axis), outward-facing."""
    theta = np.linspace(0, np.pi, rings + 1)
    phi = np.linspace(0, 2 * np.pi, segments, endpoint=False)
    tt, pp = np.meshgrid(theta, phi, indexing="ij")
    vertices = np.stack([np.sin(tt) * np.cos(pp), np.sin(tt) * np.sin(pp), np.cos(tt)], axis=-1).reshape(-1, 3)
    faces = []
    for i in range(rings):
        for j in range(segments):
            a, b = i * segments + j, i * segments + (j + 1) % segments
            c, d = a + segments, b + segments
            faces += [(a, c, b), (b, c, d)]
    return vertices, np.array(faces)


def _polar(sprite: np.ndarray) -> np.ndarray:
    """A round sprite unrolled as Mitsuba's disk reads it: u the radius (0 at the centre), v the angle."""
    size = sprite.shape[0]
    radius = size / 2
    rows, cols = 256, 64
    u = (np.arange(cols) + 0.5) / cols
    v = (np.arange(rows) + 0.5) / rows
    uu, vv = np.meshgrid(u, v)
    map_x = ((radius - 0.5) + uu * radius * np.cos(2 * np.pi * vv)).astype(np.float32)
    map_y = ((radius - 0.5) - uu * radius * np.sin(2 * np.pi * vv)).astype(np.float32)
    return np.asarray(cv2.remap(sprite, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE))


def _edge_stripes(spec: ChipSpec) -> np.ndarray:
    """A chip's edge unrolled (u around, v across its height): its colour with six stripes of its spots' colour."""
    base, spot = np.array(CHIP_PAINTS[spec.colour], float), np.array(CHIP_PAINTS[spec.spots], float)
    strip = np.empty((8, 240, 3), np.uint8)
    strip[:] = (base * 0.8).astype(np.uint8)
    for i in range(6):
        strip[:, i * 40 + 12:i * 40 + 24] = (spot * 0.85).astype(np.uint8)
    return strip

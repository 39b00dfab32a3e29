"""Table layouts: where every zone of a table lies, in millimetres on the table plane.

Coordinates (the *table frame*, used by every part of tablewatch):

- origin at the centre of the table (the centre of the felt), units millimetres;
- ``x`` along the long axis, positive to the dealer's RIGHT (seat 1 sits at negative ``x``);
- ``y`` across the table, positive TOWARDS THE DEALER; the dealer sits at the middle of the long side at
  positive ``y`` (``dealer_position`` is about ``(0, width/2 + 150)``);
- seen from above with the dealer at the bottom, ``x`` points right and ``y`` points down, exactly like
  image columns and rows: a top-down picture at ``s`` px/mm maps ``(x, y)`` to
  ``(cx + s·x, cy + s·y)`` with no flip. Seat numbers go clockwise (seen from above) starting at the
  dealer's left: seat 1 is left of the dealer, the last seat right of the dealer.

Zones are simple polygons (lists of ``[x, y]`` vertices, either winding). Names follow
``tablewatch/events.py``: ``seatN.stack``, ``seatN.bet``, ``pot``, ``board`` (with optional card slots
``board.0``…``board.4``, slot 0 at the dealer's left), ``burn``, ``muck``, ``tray``, ``dealer``.
Zones may not overlap, except a dotted child inside its parent (``board.2`` inside ``board``). A point on
the open felt is ``felt``, on the padded rail ``rail``, beyond the rail ``off_table``.

Each seat also has its betting ``line`` (a polyline, the boundary between its stack and bet areas: chips
beyond it are a bet), its ``player`` position (where the player sits; arms come from there) and its ``button``
spot: the centre of the dealer button puck when that seat has the button, on the open felt just beyond the bet
zone, clear of every zone by ``BUTTON_CLEAR_MM`` (a layout that gives none gets one ``BUTTON_GAP_MM`` beyond the
middle of its bet zone's inner edge, straight out from the player).

Markers are ArUco markers (``dictionary``, default ``DICT_4X4_50``) fixed to the rail: each has an id
and its four corners in mm, in ArUco's order (the marker's top-left, top-right, bottom-right,
bottom-left as printed). A white quiet zone of ``marker_quiet_zone_mm`` surrounds each marker's black
square. A venue edits a copy of a template file (TOML or YAML; see ``layouts/oval10.toml``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import cv2
import numpy as np
from pydantic import Field, PrivateAttr, model_validator

from tablewatch.calibration import geometry
from tablewatch.config import ConfigError, StrictModel, load_config
from tablewatch.events import Zone

Point = tuple[float, float]
Polygon = Annotated[list[Point], Field(min_length=3)]

LAYOUTS_DIR = Path(__file__).with_name("layouts")
SIMPLE_ZONES = ("pot", "board", "burn", "muck", "tray", "dealer")
REQUIRED_ZONES = SIMPLE_ZONES
BOARD_SLOT = re.compile(r"^board\.([0-4])$")
SEAT_LINE = re.compile(r"^seat(\d+)\.line$")
OVERLAP_TOLERANCE_MM2 = 50.0  # touching zones share a raster edge; a real overlap is much larger
ARUCO_DICTIONARIES = {"DICT_4X4_50": 50, "DICT_4X4_100": 100, "DICT_5X5_50": 50, "DICT_6X6_50": 50}
BUTTON_CLEAR_MM = 40.0  # half a dealer button (2.5-3.5 in across): a button spot keeps this clear of every zone
BUTTON_GAP_MM = 55.0  # a default button spot's centre lies this far beyond its bet zone (the puck clears it)


class LayoutError(ConfigError):
    """A layout that can't be used: a bad file, an unknown template, or an inconsistent table."""


class Seat(StrictModel):
    number: int = Field(ge=1, le=12, description="Seat number, 1 at the dealer's left, clockwise.")
    player: Point = Field(description="Where the player sits (mm): the side arms come from.")
    line: list[Point] = Field(description="The betting line (polyline, mm) between stack and bet areas.")
    button: Point | None = Field(default=None, description="Where the dealer button lies when this seat has it "
                                 "(mm, on the felt clear of every zone); default: just beyond the bet zone.")


class Marker(StrictModel):
    id: int = Field(ge=0, description="ArUco id in the layout's dictionary.")
    corners: tuple[Point, Point, Point, Point] = Field(
        description="Corners of the black square (mm) in ArUco order: top-left, top-right, bottom-right, bottom-left."
    )

    @property
    def centre(self) -> Point:
        c = np.mean(np.asarray(self.corners), axis=0)
        return (float(c[0]), float(c[1]))

    @property
    def size_mm(self) -> float:
        c = np.asarray(self.corners)
        return float(np.mean(np.linalg.norm(c - np.roll(c, -1, axis=0), axis=1)))


class TableLayout(StrictModel):
    """One table's map in the table frame (see the module docstring for axes and names)."""

    name: str = Field(min_length=1)
    description: str = ""
    felt: Polygon = Field(description="Outline of the playing surface (inner edge of the rail), mm.")
    rail: Polygon = Field(description="Outer edge of the padded rail, mm.")
    dealer_position: Point = Field(description="Where the dealer stands (mm), beyond the rail at +y.")
    seats: list[Seat] = Field(min_length=2, max_length=12)
    zones: dict[str, Polygon]
    dictionary: str = Field(default="DICT_4X4_50", description="ArUco dictionary of the markers.")
    marker_quiet_zone_mm: float = Field(default=12.0, ge=0, description="White border around each marker.")
    markers: list[Marker] = Field(min_length=4, description="At least four markers, spread around the table.")

    _arrays: dict[str, np.ndarray] = PrivateAttr(default_factory=dict)
    _order: list[str] = PrivateAttr(default_factory=list)
    _boxes: dict[str, tuple[float, float, float, float]] = PrivateAttr(default_factory=dict)
    _lookup: list[tuple[str, tuple[float, float, float, float], np.ndarray]] = PrivateAttr(default_factory=list)

    @model_validator(mode="after")
    def _verify(self) -> TableLayout:
        problems = verify_layout(self)
        if problems:
            raise ValueError(f"layout {self.name!r} is inconsistent:\n  - " + "\n  - ".join(problems))
        return self

    def model_post_init(self, context: Any) -> None:
        self._arrays = {name: geometry.as_array(poly) for name, poly in self.zones.items()}
        self._arrays["felt"] = geometry.as_array(self.felt)
        self._arrays["rail"] = geometry.as_array(self.rail)
        # Most specific first: deeper dotted names win, then smaller areas.
        self._order = sorted(self.zones, key=lambda n: (-n.count("."), geometry.polygon_area(self.zones[n])))
        self._boxes = {name: _bbox(poly) for name, poly in self._arrays.items()}
        self._lookup = [
            (name, self._boxes[name], self._arrays[name].astype(np.float32).reshape(-1, 1, 2))
            for name in [*self._order, "felt", "rail"]
        ]  # most specific first; float32 contours for cv2.pointPolygonTest

    def __eq__(self, other: object) -> bool:  # the cached numpy arrays can't take part in ==
        return isinstance(other, TableLayout) and self.model_dump() == other.model_dump()

    __hash__ = None  # type: ignore[assignment]  # lists inside: not hashable anyway

    # --- look-ups -------------------------------------------------------------------------------------

    @property
    def seat_numbers(self) -> list[int]:
        return sorted(s.number for s in self.seats)

    def seat(self, number: int) -> Seat:
        for s in self.seats:
            if s.number == number:
                return s
        raise KeyError(f"layout {self.name!r} has no seat {number}; seats: {self.seat_numbers}.")

    def button_spot(self, seat: int) -> Point:
        """The centre (mm) of the dealer button when ``seat`` has it: the seat's own spot, else the default one."""
        spot = self.seat(seat).button
        return spot if spot is not None else default_button_spot(self.zones[Zone.bet(seat).name],
                                                                 self.seat(seat).player)

    def zone_names(self) -> list[str]:
        return list(self.zones)

    def polygon(self, name: str) -> np.ndarray:
        """Vertices (N, 2) in mm of a zone, ``felt``, ``rail`` (outer edge) or ``seatN.line`` (a polyline)."""
        if name in self._arrays:
            return self._arrays[name].copy()
        match = SEAT_LINE.match(name)
        if match:
            return geometry.as_array(self.seat(int(match.group(1))).line)
        raise KeyError(f"layout {self.name!r} has no zone {name!r}; zones: {', '.join(self.zones)}.")

    def zone_at(self, x_mm: float, y_mm: float) -> str:
        """The most specific zone holding the point: a named zone, else ``felt``, ``rail`` or ``off_table``."""
        point = (float(x_mm), float(y_mm))
        for name, (x0, y0, x1, y1), contour in self._lookup:
            if x0 <= point[0] <= x1 and y0 <= point[1] <= y1 and cv2.pointPolygonTest(contour, point, False) > 0:
                return name
        return "off_table"

    def zones_at(self, points_mm: np.ndarray) -> list[str]:
        """``zone_at`` for an (N, 2) array of points, vectorised per zone."""
        pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2)
        out = np.full(len(pts), "", dtype=object)
        for name in [*self._order, "felt", "rail"]:
            x0, y0, x1, y1 = self._boxes[name]
            todo = (out == "") & (pts[:, 0] >= x0) & (pts[:, 0] <= x1) & (pts[:, 1] >= y0) & (pts[:, 1] <= y1)
            if todo.any():
                hit = geometry.contains_many(self._arrays[name], pts[todo])
                out[np.flatnonzero(todo)[hit]] = name
        out[out == ""] = "off_table"
        return [str(v) for v in out]

    def zones_for_box(self, x_min: float, y_min: float, x_max: float, y_max: float) -> dict[str, float]:
        """Zones a box (mm) overlaps, as the fraction of the box's area inside each, largest first.

        Nested zones both count (a card in ``board.2`` is also in ``board``); ``off_table`` is the part
        beyond the rail.
        """
        if x_max <= x_min or y_max <= y_min:
            raise ValueError(f"Empty box: ({x_min}, {y_min}) to ({x_max}, {y_max}).")
        box = [(x_min, y_min), (x_max, y_min), (x_max, y_max), (x_min, y_max)]
        return self.zones_for_polygon(box)

    def zones_for_polygon(self, points_mm: Sequence[Sequence[float]]) -> dict[str, float]:
        """Like ``zones_for_box`` for a convex polygon (e.g. an image box mapped onto the table)."""
        query = geometry.as_array(points_mm)
        total = geometry.polygon_area(query)
        if total <= 0:
            raise ValueError("The query polygon has no area.")
        found: dict[str, float] = {}
        for name in self._order:
            area = geometry.polygon_area(geometry.clip_to_convex(self._arrays[name], query))
            if area > 0:
                found[name] = min(1.0, area / total)
        outside = 1.0 - geometry.polygon_area(geometry.clip_to_convex(self._arrays["rail"], query)) / total
        if outside > 1e-9:
            found["off_table"] = outside
        return dict(sorted(found.items(), key=lambda kv: -kv[1]))

    def beyond_line(self, seat: int, x_mm: float, y_mm: float) -> bool:
        """Whether the point is on the bet side of ``seat``'s betting line (away from the player)."""
        line = geometry.as_array(self.seat(seat).line)
        _, i = geometry.distance_to_polyline(line, x_mm, y_mm)
        px, py = self.seat(seat).player
        player_side = geometry.side_of_segment(line[i], line[i + 1], px, py)
        return geometry.side_of_segment(line[i], line[i + 1], x_mm, y_mm) * player_side < 0

    def marker_corners(self) -> dict[int, np.ndarray]:
        """Marker id → (4, 2) corners in mm."""
        return {m.id: np.asarray(m.corners, dtype=np.float64) for m in self.markers}

    @property
    def extent(self) -> tuple[float, float, float, float]:
        """(x_min, y_min, x_max, y_max) of the rail in mm."""
        r = self._arrays["rail"]
        return (float(r[:, 0].min()), float(r[:, 1].min()), float(r[:, 0].max()), float(r[:, 1].max()))


def default_button_spot(bet: Sequence[Point], player: Point) -> Point:
    """BUTTON_GAP_MM beyond the middle of a bet zone, straight out from the player: on the felt in front of it."""
    pts = geometry.as_array(bet)
    m = cv2.moments(pts.astype(np.float32).reshape(-1, 1, 2))
    centre = np.array([m["m10"] / m["m00"], m["m01"] / m["m00"]]) if m["m00"] else pts.mean(axis=0)
    out = centre - np.asarray(player, float)
    out /= max(float(np.linalg.norm(out)), 1e-9)
    reach = float(((pts - centre) @ out).max())
    spot = centre + out * (reach + BUTTON_GAP_MM)
    return (round(float(spot[0]), 1), round(float(spot[1]), 1))


def button_disc(spot: Point, radius: float = BUTTON_CLEAR_MM) -> list[Point]:
    """A 16-gon around a button spot: the felt its puck covers."""
    angles = np.linspace(0, 2 * np.pi, 16, endpoint=False)
    return [(spot[0] + radius * float(np.cos(a)), spot[1] + radius * float(np.sin(a))) for a in angles]


# --- validation ---------------------------------------------------------------------------------------


def verify_layout(layout: TableLayout) -> list[str]:
    """Every problem of a layout as a sentence; empty when it is consistent."""
    problems: list[str] = []
    problems += _verify_names(layout)
    problems += _verify_seats(layout)
    problems += _verify_shapes(layout)
    if not problems:  # overlaps only make sense once names and shapes are right
        problems += _verify_overlaps(layout)
        problems += _verify_button_spots(layout)
    problems += _verify_markers(layout)
    return problems


def _verify_names(layout: TableLayout) -> list[str]:
    problems = []
    seats = {s.number for s in layout.seats}
    for name in layout.zones:
        seat = Zone.parse(name).seat
        if seat is not None:
            if seat not in seats:
                problems.append(f"zone {name!r} belongs to seat {seat}, which the layout does not have")
        elif name not in SIMPLE_ZONES and not BOARD_SLOT.match(name):
            known = "seatN.stack, seatN.bet, " + ", ".join(SIMPLE_ZONES) + ", board.0 … board.4"
            problems.append(f"unknown zone name {name!r} (known names: {known})")
    problems += [f"the required zone {z!r} is missing" for z in REQUIRED_ZONES if z not in layout.zones]
    return problems


def _verify_seats(layout: TableLayout) -> list[str]:
    problems = []
    numbers = [s.number for s in layout.seats]
    problems += [f"seat {n} is listed more than once" for n in sorted(set(numbers)) if numbers.count(n) > 1]
    for seat in layout.seats:
        for zone in (Zone.stack(seat.number), Zone.bet(seat.number)):
            if zone.name not in layout.zones:
                problems.append(f"seat {seat.number} has no {zone.place} zone ({zone.name})")
        if len(seat.line) < 2:
            problems.append(f"seat {seat.number} has no betting line (it needs a polyline of 2 or more points)")
    return problems


def _verify_shapes(layout: TableLayout) -> list[str]:
    problems = []
    rail = geometry.as_array(layout.rail).astype(np.float32)
    for name, poly in [("felt", layout.felt), *layout.zones.items()]:
        if geometry.polygon_area(poly) < 1.0:
            problems.append(f"zone {name!r} has no area")
            continue
        outside = [p for p in poly if cv2.pointPolygonTest(rail, (float(p[0]), float(p[1])), True) < -1.0]
        if outside:
            problems.append(f"zone {name!r} reaches beyond the rail at {_fmt(outside[0])}")
    for name in layout.zones:
        slot = BOARD_SLOT.match(name)
        if slot and "board" in layout.zones:
            board = geometry.as_array(layout.zones["board"]).astype(np.float32)
            if any(cv2.pointPolygonTest(board, (float(x), float(y)), True) < -1.0 for x, y in layout.zones[name]):
                problems.append(f"board slot {name!r} is not inside 'board'")
    return problems


def _verify_overlaps(layout: TableLayout) -> list[str]:
    problems = []
    names = list(layout.zones)
    boxes = {n: _bbox(layout.zones[n]) for n in names}
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            if _nested(a, b) or not _boxes_meet(boxes[a], boxes[b]):
                continue
            area = geometry.overlap_area(layout.zones[a], layout.zones[b])
            if area > OVERLAP_TOLERANCE_MM2:
                problems.append(f"zones {a!r} and {b!r} overlap ({area:.0f} mm²); zones must not overlap")
    return problems


def _verify_button_spots(layout: TableLayout) -> list[str]:
    """A seat's own button spot lies on the felt with its puck clear of every zone (defaults are not held to it:
    a layout written before button spots still loads)."""
    problems = []
    felt = geometry.as_array(layout.felt).astype(np.float32)
    for seat in layout.seats:
        if seat.button is None:
            continue
        disc = button_disc(seat.button)
        if cv2.pointPolygonTest(felt, (float(seat.button[0]), float(seat.button[1])), True) < BUTTON_CLEAR_MM:
            problems.append(f"seat {seat.number}'s button spot {_fmt(seat.button)} is not on the felt "
                            f"{BUTTON_CLEAR_MM:.0f} mm clear of its edge")
            continue
        hit = [name for name, poly in layout.zones.items()
               if geometry.overlap_area(poly, disc) > OVERLAP_TOLERANCE_MM2]
        if hit:
            problems.append(f"seat {seat.number}'s button spot {_fmt(seat.button)} is not "
                            f"{BUTTON_CLEAR_MM:.0f} mm clear of zone {hit[0]!r}")
    return problems


def _verify_markers(layout: TableLayout) -> list[str]:
    problems = []
    limit = ARUCO_DICTIONARIES.get(layout.dictionary)
    if limit is None:
        return [f"unknown ArUco dictionary {layout.dictionary!r} (known: {', '.join(ARUCO_DICTIONARIES)})"]
    ids = [m.id for m in layout.markers]
    problems += [f"marker id {i} is used more than once" for i in sorted(set(ids)) if ids.count(i) > 1]
    problems += [f"marker id {i} is outside {layout.dictionary} (0…{limit - 1})" for i in ids if i >= limit]
    problems += [f"marker {m.id} is degenerate (size {m.size_mm:.1f} mm)" for m in layout.markers if m.size_mm < 10]
    return problems


def _nested(a: str, b: str) -> bool:
    return a.startswith(b + ".") or b.startswith(a + ".")


def _bbox(poly: Sequence[Point] | np.ndarray) -> tuple[float, float, float, float]:
    p = geometry.as_array(poly)
    return (float(p[:, 0].min()), float(p[:, 1].min()), float(p[:, 0].max()), float(p[:, 1].max()))


def _boxes_meet(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _fmt(p: Sequence[float]) -> str:
    return f"({p[0]:.0f}, {p[1]:.0f}) mm"


# --- files --------------------------------------------------------------------------------------------


def available_layouts() -> list[str]:
    return sorted(p.stem for p in LAYOUTS_DIR.glob("*.toml"))


def load_layout(name_or_path: str | Path) -> TableLayout:
    """A template by name (``oval10``, ``oval9``, ``oval6``) or a layout file (``.toml``, ``.yaml``, ``.json``).

    Raises LayoutError naming the file, key path and problem, or listing the templates for an unknown name.
    """
    text = str(name_or_path)
    path = Path(text)
    if path.suffix.lower() in (".toml", ".yaml", ".yml", ".json") or path.exists():
        if not path.is_file():
            raise LayoutError(f"{path}: no such layout file.")
    elif text in available_layouts():
        path = LAYOUTS_DIR / f"{text}.toml"
    else:
        raise LayoutError(f"Unknown layout {text!r}: give a layout file or one of {', '.join(available_layouts())}.")
    try:
        return load_config(path, TableLayout)
    except ConfigError as exc:
        raise LayoutError(str(exc)) from exc


def layout_to_toml(layout: TableLayout) -> str:
    """The layout as an editable TOML file (the format of ``layouts/*.toml``)."""
    lines = [
        f"# Table layout {layout.name!r}: millimetres in the table frame (see tablewatch/calibration/layout.py).",
        "# Origin at the table centre; x along the long axis to the dealer's right; y towards the dealer.",
        f"name = {_q(layout.name)}",
        f"description = {_q(layout.description)}",
        f"dictionary = {_q(layout.dictionary)}",
        f"marker_quiet_zone_mm = {layout.marker_quiet_zone_mm:g}",
        f"dealer_position = {_pt(layout.dealer_position)}",
        f"felt = {_pts(layout.felt)}",
        f"rail = {_pts(layout.rail)}",
        "",
        "[zones]",
    ]
    lines += [f"{_q(name)} = {_pts(poly)}" for name, poly in layout.zones.items()]
    for seat in layout.seats:
        lines += [
            "",
            "[[seats]]",
            f"number = {seat.number}",
            f"player = {_pt(seat.player)}",
            f"line = {_pts(seat.line)}",
            *([f"button = {_pt(seat.button)}"] if seat.button is not None else []),
        ]
    for m in layout.markers:
        lines += ["", "[[markers]]", f"id = {m.id}", f"corners = {_pts(m.corners)}"]
    return "\n".join(lines) + "\n"


def save_layout(layout: TableLayout, path: str | Path) -> None:
    Path(path).write_text(layout_to_toml(layout), encoding="utf-8")


def _q(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _pt(p: Sequence[float]) -> str:
    return f"[{p[0]:.1f}, {p[1]:.1f}]"


def _pts(points: Sequence[Sequence[float]]) -> str:
    return "[" + ", ".join(_pt(p) for p in points) + "]"

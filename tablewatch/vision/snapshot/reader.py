"""``SnapshotReader``: one still of a whole table → the board, each player's cards, the chips by colour.

The steps (each in its own module): the still at two sizes (``still``); the table and what lies on it
(``table``); card rectangles from straight edges and which lies on which (``shapes``); chips and the button
(``discs``); each card's face or back, read only from an index in a visible corner (``faces``); the board
and the hands (``seats``). Nothing is read anywhere but in a card's corner: a chip, a card back, a pip or
a court card's picture is never a card, and a card is listed once however many of its indices show.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from tablewatch.calibration.markers import detect_markers
from tablewatch.vision.classifier import OnnxIndexClassifier, default_classifier_path
from tablewatch.vision.detector import DetectorError
from tablewatch.vision.snapshot import discs as disc_finder
from tablewatch.vision.snapshot import faces, seats, shapes
from tablewatch.vision.snapshot.chipset import ChipSet, default_chip_set
from tablewatch.vision.snapshot.still import Still, load_still
from tablewatch.vision.snapshot.table import find_table

COVERED_SHARE = 0.05  # an index zone this much under another card or a chip is not read


@dataclass
class SnapshotCard:
    corners: np.ndarray  # (4, 2) in the file's pixels, clockwise from an index corner
    state: str  # "up", "down" or "unknown"
    card: str | None
    confidence: float
    indices: int  # indices read (0, 1 or 2)
    alternatives: tuple[str, ...] = ()
    place: str = ""  # "board", "seat N", or "" (alone)

    @property
    def centre(self) -> tuple[float, float]:
        c = self.corners.mean(axis=0)
        return float(c[0]), float(c[1])

    def to_dict(self) -> dict[str, Any]:
        return {"card": self.card, "state": self.state, "confidence": round(self.confidence, 3),
                "indices": self.indices, "alternatives": list(self.alternatives), "place": self.place,
                "centre": [round(v, 1) for v in self.centre],
                "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in self.corners]}


@dataclass
class SnapshotChip:
    centre: tuple[float, float]  # the file's pixels
    radius: float
    colour: str
    on_table: bool

    def to_dict(self) -> dict[str, Any]:
        return {"colour": self.colour, "centre": [round(v, 1) for v in self.centre], "radius": round(self.radius, 1),
                "on_table": self.on_table}


@dataclass
class Snapshot:
    image: str
    size: tuple[int, int]
    table: np.ndarray  # hull, the file's pixels
    table_found_by: str
    card_width: float | None  # the file's pixels
    cards: list[SnapshotCard]
    chips: list[SnapshotChip]
    button: tuple[float, float] | None
    chip_set: ChipSet
    seats: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def board(self) -> list[SnapshotCard]:
        return [c for c in self.cards if c.place == "board"]

    def chip_counts(self, *, on_table: bool = True) -> dict[str, int]:
        counts: dict[str, int] = {}
        for chip in self.chips:
            if chip.on_table == on_table:
                counts[chip.colour] = counts.get(chip.colour, 0) + 1
        return dict(sorted(counts.items()))

    def to_dict(self) -> dict[str, Any]:
        chips = self.chip_counts()
        payload: dict[str, Any] = {
            "image": self.image, "width": self.size[0], "height": self.size[1],
            "table": {"found_by": self.table_found_by, "outline": [[int(x), int(y)] for x, y in self.table]},
            "card_width_px": None if self.card_width is None else round(self.card_width, 1),
            "board": [c.card for c in self.board],
            "players": self.seats,
            "chips": chips,
            "rack": self.chip_counts(on_table=False),
            "button": None if self.button is None else [round(v, 1) for v in self.button],
            "cards": [c.to_dict() for c in self.cards],
            "chip_list": [c.to_dict() for c in self.chips],
            "chip_set": self.chip_set.source,
            "seconds": round(self.seconds, 3),
            "notes": self.notes,
        }
        if self.chip_set.has_values:
            values = {name: self.chip_set.value_of(name) for name in chips}
            payload["chip_values"] = values
            payload["chips_total"] = sum((v or 0) * chips[name] for name, v in values.items())
        return payload


class SnapshotReader:
    """Reads stills with one classifier and chip set (load once, read many)."""

    def __init__(self, *, chip_set: ChipSet | None = None, classifier: str | Path | None = None):
        path = Path(classifier) if classifier else default_classifier_path()
        if path is None:
            raise DetectorError("no index classifier (tablewatch/vision/weights/cards-index-cls-*.onnx) is installed")
        self.classifier = OnnxIndexClassifier(path)
        self.chip_set = chip_set or default_chip_set()

    def read(self, path: str | Path) -> Snapshot:
        start = time.perf_counter()
        return self.read_still(load_still(path), start=start)

    def read_still(self, still: Still, *, start: float | None = None) -> Snapshot:
        start = time.perf_counter() if start is None else start
        image = still.geometry
        notes: list[str] = []
        markers = detect_markers(image)
        marker_points = np.concatenate(list(markers.values())) if len(markers) >= 3 else None
        table = find_table(image, markers=marker_points)
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        segments = shapes.line_segments(grey, table.z, table.mask)
        width = shapes.card_width(segments, max(image.shape[:2]))
        shapes_found = shapes.find_cards(segments, width, table.objects, table.mask) if width else []
        if width is None:
            notes.append("no card edges found: card size unknown, chips sized by the picture")
        shapes.stack_cards(shapes_found)
        polygons = [c.corners for c in shapes_found]
        markers_seen = [np.asarray(quad, np.float64) for quad in markers.values()]
        discs = disc_finder.find_discs(image, table, width, polygons + markers_seen)

        scale = still.detail_per_geometry
        faces_read: list[faces.Face] = []
        pictures: list[np.ndarray] = []
        for card in shapes_found:
            detail_corners = faces.refine_corners(still.detail, card.corners * scale)
            card.corners = detail_corners / scale
            pictures.append(faces.rectify(still.detail, detail_corners))
        for i, card in enumerate(shapes_found):
            visible = tuple(self._visible(card.corners, which, [shapes_found[j].corners for j in card.covered_by],
                                          discs) for which in (0, 1))
            faces_read.append(faces.read_face(pictures[i], visible, self.classifier))  # type: ignore[arg-type]

        papers = [np.asarray(f.paper) for f in faces_read if f.card is not None and f.paper is not None]
        paper = np.median(np.stack(papers), axis=0) if papers else None
        for i, face in enumerate(faces_read):
            if face.state != "unknown":
                continue
            seen = _seen_mask(shapes_found[i].corners * scale, [shapes_found[j].corners * scale
                                                                  for j in shapes_found[i].covered_by])
            if faces.shows_back(pictures[i], paper, seen=seen):
                faces_read[i] = faces.Face("down", None, 0.0, face.corners)
        discs = disc_finder.name_discs(discs, image, self.chip_set, paper)

        to_file = still.size[0] / image.shape[1]
        cards = [SnapshotCard(corners=shape.corners * to_file, state=face.state, card=face.card,
                              confidence=face.confidence,
                              indices=sum(c.probabilities is not None for c in face.corners),
                              alternatives=face.alternatives)
                 for shape, face in zip(shapes_found, faces_read, strict=True)]
        _one_of_each(cards, notes)
        seat_list = _place(cards)
        chips = [SnapshotChip((d.x * to_file, d.y * to_file), d.radius * to_file, d.colour, d.on_table)
                 for d in discs if d.kind == "chip"]
        buttons = sorted((d for d in discs if d.kind == "button" and d.on_table), key=lambda d: -d.rim)
        button = (buttons[0].x * to_file, buttons[0].y * to_file) if buttons else None
        return Snapshot(image=still.path, size=still.size, table=table.hull * to_file, table_found_by=table.found_by,
                        card_width=None if width is None else width * to_file, cards=cards, chips=chips,
                        button=button, chip_set=self.chip_set, seats=seat_list,
                        seconds=time.perf_counter() - start, notes=notes)

    @staticmethod
    def _visible(corners: np.ndarray, which: int, above: list[np.ndarray], discs: list[disc_finder.Disc]) -> bool:
        """Whether the index zone of corner ``which`` is clear of the cards lying on this one and of chips."""
        zone = faces.zone_polygon(corners, which)
        area = max(1e-6, float(cv2.contourArea(zone)))
        for other in above:
            overlap, _ = cv2.intersectConvexConvex(zone, other.astype(np.float32))
            if overlap > COVERED_SHARE * area:
                return False
        for disc in discs:
            circle = np.asarray(cv2.ellipse2Poly((round(disc.x), round(disc.y)),
                                                 (round(disc.radius), round(disc.radius)), 0, 0, 360, 15), np.float32)
            overlap, _ = cv2.intersectConvexConvex(zone, circle)
            if overlap > COVERED_SHARE * area:
                return False
        return True


def _seen_mask(corners: np.ndarray, above: list[np.ndarray]) -> np.ndarray:
    """The upright card picture's pixels not under the cards lying on it (all corners in the same pixels)."""
    matrix = faces.to_card(corners)
    w, h = (round(v * faces.PX_PER_MM) for v in shapes.CARD_MM)
    seen = np.ones((h, w), np.uint8)
    for other in above:
        moved = cv2.perspectiveTransform(other.reshape(-1, 1, 2).astype(np.float64), matrix).reshape(-1, 2)
        cv2.fillPoly(seen, [np.round(moved).astype(np.int32)], 0)
    return seen


def _one_of_each(cards: list[SnapshotCard], notes: list[str]) -> None:
    """One deck holds each card once: of two cards read as the same, the less sure is left unread."""
    by_card: dict[str, list[SnapshotCard]] = {}
    for card in cards:
        if card.card:
            by_card.setdefault(card.card, []).append(card)
    for name, same in by_card.items():
        if len(same) > 1:
            same.sort(key=lambda c: -c.confidence)
            for card in same[1:]:
                card.alternatives = (name, *card.alternatives)
                card.card = None
            notes.append(f"{name} read on {len(same)} cards: kept the surest")


def _place(cards: list[SnapshotCard]) -> list[dict[str, Any]]:
    """Mark the board's cards and number the hands (see ``seats``); the players' list for the payload."""
    if not cards:
        return []
    placed = [seats.placed(c.corners) for c in cards]
    board = seats.find_board(placed, [c.state != "down" for c in cards])
    for i in board:
        cards[i].place = "board"
    # the board's own order, left to right, first in the list
    order = board + [i for i in range(len(cards)) if i not in set(board)]
    cards[:] = [cards[i] for i in order]
    placed = [placed[i] for i in order]
    hands = seats.find_hands(placed, set(range(len(board))))
    everything = np.concatenate([p.polygon for p in placed])
    middle = everything.mean(axis=0)
    board_centre = np.mean([placed[i].centre for i in range(len(board))], axis=0) if board else None
    centres = [np.mean([placed[i].centre for i in hand], axis=0) for hand in hands]
    players = []
    for seat, h in enumerate(seats.seat_order(centres, middle, board_centre), start=1):
        hand = sorted(hands[h], key=lambda i: -cards[i].confidence)
        for i in hand:
            cards[i].place = f"seat {seat}"
        players.append({
            "seat": seat, "centre": [round(float(v), 1) for v in centres[h]],
            "cards": [cards[i].card for i in hand if cards[i].state == "up"],
            "face_down": sum(cards[i].state == "down" for i in hand),
            "unknown": sum(cards[i].state == "unknown" for i in hand),
        })
    return players

"""Card identity from corner-index boxes: two boxes of one card -> one card, identified when they agree.

The detector boxes the rank-and-suit index in a card's corners (a face-up card shows two, rotated 180°
apart; an overlapped one may show one). Here the boxes of one frame become ``Card`` records:

1. boxes of *different* classes on the same spot (IoU above ``overlap_iou``) are one index read two ways:
   the stronger reading stays, the other is kept as an ``alternative`` (the card is then not ``agreed``);
2. boxes of the *same* class within an index's size of each other are one index boxed twice: the stronger
   stays;
3. boxes of the *same* class close enough to be the two corners of one card (centre distance at most
   ``pair_factor`` times the index size) pair up, closest first: such a card is ``agreed``;
4. every box left over is a card seen by one index only.

With one deck an identity occurs once: a third box of a class becomes a second card, or, with ``one_deck``,
only the surest card of an identity is listed. ``BACK`` boxes (whole card backs) are counted apart, never as
face-up cards.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tablewatch.vision.boxes import box_iou, xyxy_tuple
from tablewatch.vision.detections import Detections

BACK_LABEL = "BACK"
INDEX_LABEL = "INDEX"  # a box-only detector's face-up class: the identity comes from the classifier
RANKS = {"10": "T", "A": "A", "K": "K", "Q": "Q", "J": "J"} | {str(n): str(n) for n in range(2, 10)}
SUITS = {"C": "c", "D": "d", "H": "h", "S": "s"}
SAME_INDEX_FACTOR = 1.0  # boxes of one class whose centres are within this many index sizes box one index


@dataclass(frozen=True)
class Card:
    """One face-up card. ``card`` is pokerkit's notation (``"Th"``), None for a joker.

    ``box`` is the union of its index boxes (not the card outline); ``confidence`` combines the boxes
    (1 - product of misses when two agree); ``agreed`` when two index boxes read the same identity.
    """

    label: str
    card: str | None
    confidence: float
    box: tuple[float, float, float, float]
    index_boxes: tuple[tuple[float, float, float, float], ...]
    agreed: bool
    alternatives: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, object]:
        return {
            "card": self.card, "label": self.label, "confidence": round(self.confidence, 4),
            "box": [round(v, 1) for v in self.box], "index_boxes": [[round(v, 1) for v in b] for b in self.index_boxes],
            "agreed": self.agreed, "alternatives": list(self.alternatives),
        }


def pokerkit_card(label: str) -> str | None:
    """``"10H"`` -> ``"Th"``, ``"AS"`` -> ``"As"``; None for jokers, backs and unknown labels."""
    rank, suit = label[:-1], label[-1:]
    if rank in RANKS and suit in SUITS:
        return RANKS[rank] + SUITS[suit]
    return None


def is_face_up_label(label: str) -> bool:
    return label != BACK_LABEL


def group_cards(detections: Detections, names: dict[int, str], *, pair_factor: float = 10.0,
                overlap_iou: float = 0.6, one_deck: bool = False, lone_conf: float = 0.0) -> list[Card]:
    """The face-up cards of one frame's index boxes, strongest first. ``one_deck``: each identity is listed
    once, on its surest card (a photo of one deck). ``lone_conf``: a card whose other index no box confirms is
    listed only from this confidence."""
    labels = np.array([names[int(c)] for c in detections.class_id], dtype=object)
    face_up = np.array([is_face_up_label(str(label)) for label in labels], dtype=bool)
    face = detections[face_up] if len(labels) else detections
    if not len(face):
        return []
    keep, alternatives = _resolve_conflicts(face, names, overlap_iou)
    face = face[keep]
    cards: list[Card] = []
    for cls in np.unique(face.class_id):
        members = np.flatnonzero(face.class_id == cls)
        label = names[int(cls)]
        for group in _pair_boxes(face.xyxy[members], pair_factor):
            idx = members[group]
            alts = tuple(sorted({alt for i in idx for alt in alternatives.get(int(keep[i]), ())}))
            card = _card(label, face.xyxy[idx], face.confidence[idx], alts)
            if len(idx) > 1 or card.confidence >= lone_conf:
                cards.append(card)
    cards.sort(key=lambda card: -card.confidence)
    if one_deck:
        surest: dict[str, Card] = {}
        for card in cards:
            surest.setdefault(card.label, card)
        cards = list(surest.values())
    return cards


def count_backs(detections: Detections, names: dict[int, str]) -> int:
    return int(sum(names[int(c)] == BACK_LABEL for c in detections.class_id))


def _resolve_conflicts(
    face: Detections, names: dict[int, str], overlap_iou: float
) -> tuple[np.ndarray, dict[int, tuple[str, ...]]]:
    """Keep the strongest of boxes that overlap across classes; remember the losing readings."""
    order = np.argsort(-face.confidence, kind="stable")
    iou = box_iou(face.xyxy, face.xyxy)
    suppressed = np.zeros(len(face), dtype=bool)
    keep: list[int] = []
    alternatives: dict[int, tuple[str, ...]] = {}
    same_index = _same_index(face.xyxy)
    for i in order:
        if suppressed[i]:
            continue
        keep.append(int(i))
        same_class = face.class_id == face.class_id[i]
        # the same spot read two ways; fanned cards' indices lie side by side, so only boxes that overlap well
        rivals = np.flatnonzero((iou[i] > overlap_iou) & ~suppressed & ~same_class)
        if len(rivals):
            alternatives[int(i)] = tuple(dict.fromkeys(names[int(face.class_id[r])] for r in rivals))
        # one index boxed twice (one deck holds no two cards of a class side by side)
        echoes = np.flatnonzero(same_index[i] & ~suppressed & same_class)
        suppressed[rivals] = True
        suppressed[echoes[echoes != i]] = True
    return np.asarray(keep, dtype=np.int64), alternatives


def _index_distances(xyxy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(n, n) each: the distance between two boxes' centres, and the larger of their index sizes (a box's longer
    side), the unit a distance between indices is judged in."""
    centers = (xyxy[:, :2] + xyxy[:, 2:]) / 2
    sizes = np.maximum(xyxy[:, 2] - xyxy[:, 0], xyxy[:, 3] - xyxy[:, 1])
    distance: np.ndarray = np.linalg.norm(centers[:, None] - centers[None], axis=2)
    return distance, np.maximum(sizes[:, None], sizes[None])


def _same_index(xyxy: np.ndarray) -> np.ndarray:
    """(n, n): whether two boxes are one index boxed twice (their centres within ``SAME_INDEX_FACTOR`` index
    sizes): a card's other index lies at its opposite corner, much farther away."""
    distance, size = _index_distances(xyxy)
    near: np.ndarray = distance <= SAME_INDEX_FACTOR * size
    return near


def _pair_boxes(xyxy: np.ndarray, pair_factor: float) -> list[list[int]]:
    """Groups of one or two indices (into ``xyxy``): the closest plausible pairs first. (Two boxes of one class
    closer than a card's corners are apart are one index, already merged by ``_resolve_conflicts``.)"""
    n = len(xyxy)
    distance, size = _index_distances(xyxy)
    candidates = [(float(distance[i, j]), int(i), int(j)) for i, j in zip(*np.triu_indices(n, k=1), strict=True)
                  if distance[i, j] <= pair_factor * size[i, j]]
    used: set[int] = set()
    groups = []
    for _distance, i, j in sorted(candidates):
        if i not in used and j not in used:
            used |= {i, j}
            groups.append([i, j])
    groups += [[i] for i in range(n) if i not in used]
    return groups


def _card(label: str, xyxy: np.ndarray, confidence: np.ndarray, alternatives: tuple[str, ...]) -> Card:
    union = (float(xyxy[:, 0].min()), float(xyxy[:, 1].min()), float(xyxy[:, 2].max()), float(xyxy[:, 3].max()))
    combined = 1.0 - float(np.prod(1.0 - confidence.astype(np.float64)))
    agreed = len(xyxy) == 2 and not alternatives
    return Card(label=label, card=pokerkit_card(label), confidence=combined, box=union,
                index_boxes=tuple(xyxy_tuple(box) for box in xyxy), agreed=agreed,
                alternatives=alternatives)

"""Where cards lie: the board, and the players' hands round it.

The board is a row of face-up cards side by side: cards turned alike (``ROW_ANGLE``) whose centres follow one
another across their short sides, a card's width plus a gap apart (``ROW_STEP``), and not up or down by
more than a fraction of their height; the longest such row of three or more is the board. The other cards
are gathered into hands: cards that overlap or lie within a card's height of each other are one hand.

Seats are numbered round the table's middle from the board, counter-clockwise as the picture shows it (the
board at the bottom: the right side first, then the far side from right to left, then the left); without a
board, from the bottom of the picture.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

ROW_ANGLE = 12.0  # degrees
ROW_STEP = (0.9, 1.7)  # centre to centre, in card widths, across the short sides
ROW_DRIFT = 0.35  # along the long sides, in card heights
HAND_REACH = 0.25  # in card heights: cards this close (edge to edge) are one hand


@dataclass(frozen=True)
class Placed:
    """One card's geometry for placing: centre, short-side direction (unit), width and height (px)."""

    centre: np.ndarray
    across: np.ndarray
    width: float
    height: float
    angle: float  # of the long side, degrees modulo 180
    polygon: np.ndarray


def placed(corners: np.ndarray) -> Placed:
    across = corners[1] - corners[0]
    along = corners[3] - corners[0]
    width, height = float(np.linalg.norm(across)), float(np.linalg.norm(along))
    angle = float(np.degrees(np.arctan2(along[1], along[0])) % 180.0)
    return Placed(corners.mean(axis=0), across / max(width, 1e-9), width, height, angle, corners.astype(np.float32))


def find_board(cards: list[Placed], face_up: list[bool]) -> list[int]:
    """Indices of the board's cards, left to right along the row as the picture shows it (empty: no board)."""
    n = len(cards)
    linked = np.zeros((n, n), bool)
    for i in range(n):
        for j in range(n):
            if i == j or not (face_up[i] and face_up[j]):
                continue
            a, b = cards[i], cards[j]
            turn = abs(a.angle - b.angle) % 180.0
            if min(turn, 180.0 - turn) > ROW_ANGLE:
                continue
            offset = b.centre - a.centre
            step = abs(float(offset @ a.across)) / a.width
            along = abs(float(offset @ np.array([-a.across[1], a.across[0]]))) / a.height
            if ROW_STEP[0] <= step <= ROW_STEP[1] and along <= ROW_DRIFT:
                linked[i, j] = linked[j, i] = True
    groups = _components(linked)
    rows = [g for g in groups if len(g) >= 3]
    if not rows:
        return []
    best = max(rows, key=len)
    direction = cards[best[0]].across
    if direction[0] < 0:
        direction = -direction
    return sorted(best, key=lambda i: float(cards[i].centre @ direction))


def find_hands(cards: list[Placed], exclude: set[int]) -> list[list[int]]:
    """The other cards gathered into hands (lists of indices)."""
    rest = [i for i in range(len(cards)) if i not in exclude]
    n = len(rest)
    linked = np.zeros((n, n), bool)
    for a in range(n):
        for b in range(a + 1, n):
            ca, cb = cards[rest[a]], cards[rest[b]]
            gap = _gap(ca.polygon, cb.polygon)
            if gap <= HAND_REACH * max(ca.height, cb.height):
                linked[a, b] = linked[b, a] = True
    return [[rest[k] for k in group] for group in _components(linked)]


def seat_order(centres: list[np.ndarray], middle: np.ndarray, board: np.ndarray | None) -> list[int]:
    """Indices of the hands in seat order (see the module)."""
    start = np.pi / 2 if board is None else float(np.arctan2(board[1] - middle[1], board[0] - middle[0]))
    def key(i: int) -> float:
        d = centres[i] - middle
        return float((start - np.arctan2(d[1], d[0])) % (2 * np.pi))
    return sorted(range(len(centres)), key=key)


def _gap(a: np.ndarray, b: np.ndarray) -> float:
    """Edge-to-edge distance of two convex polygons (0 when they overlap)."""
    overlap, _ = cv2.intersectConvexConvex(a, b)
    if overlap > 0:
        return 0.0
    ca, cb = a.reshape(-1, 1, 2), b.reshape(-1, 1, 2)
    return float(min(min(abs(cv2.pointPolygonTest(cb, (float(x), float(y)), True)) for x, y in a),
                     min(abs(cv2.pointPolygonTest(ca, (float(x), float(y)), True)) for x, y in b)))


def _components(adjacent: np.ndarray) -> list[list[int]]:
    n = len(adjacent)
    seen = [False] * n
    groups = []
    for start in range(n):
        if seen[start]:
            continue
        stack, group = [start], []
        seen[start] = True
        while stack:
            i = stack.pop()
            group.append(i)
            for j in np.flatnonzero(adjacent[i]):
                if not seen[j]:
                    seen[j] = True
                    stack.append(int(j))
        groups.append(sorted(group))
    return groups

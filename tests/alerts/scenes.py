"""Synthetic overhead frames for evidence tests: a felt with a moving chip stack (no camera can run here)."""

from __future__ import annotations

import cv2
import numpy as np

from tablewatch.alerts.evidence import Box
from tablewatch.events import Severity, Violation


def felt_frame(t: float, *, width: int = 640, height: int = 360) -> tuple[np.ndarray, Box]:
    """A green felt with a betting line and a red chip that moves across it; returns the frame and the chip."""
    frame = np.zeros((height, width, 3), np.uint8)
    frame[:] = (40, 110, 40)
    cv2.ellipse(frame, (width // 2, height // 2), (width // 2 - 20, height // 2 - 20), 0, 0, 360, (30, 90, 30), 6)
    cv2.line(frame, (0, int(height * 0.6)), (width, int(height * 0.6)), (200, 200, 200), 2)
    x = int(80 + (t * 60) % (width - 160))
    y = int(height * 0.75 - (t * 25) % (height * 0.3))
    cv2.circle(frame, (x, y), 18, (40, 40, 210), -1)
    cv2.circle(frame, (x, y), 12, (230, 230, 230), 2)
    cv2.putText(frame, f"{t:5.2f}", (10, height - 12), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1)
    return frame, Box(x1=x - 22, y1=y - 22, x2=x + 22, y2=y + 22, label="chips 500")


def string_raise(ts: float, *, table: str, hand_no: int = 12, seat: int = 3) -> Violation:
    return Violation(ts=ts, table=table, source="rules", seat=seat, rule_id="TDA-29",
                     title="A raise must go in with one motion (no string raise)",
                     observed=f"seat {seat} put 1,500 over the line in 2 forward motions, no verbal declaration",
                     ruling="string raise: the bet stands as a call of 500", hand_no=hand_no, street="flop",
                     seats=(seat,), confidence=0.93, evidence_ts=(ts - 0.4, ts))


def hidden_chips(ts: float, *, table: str, hand_no: int = 7, seat: int = 6) -> Violation:
    return Violation(ts=ts, table=table, source="rules", seat=seat, rule_id="TDA-49",
                     title="Chips hidden from view, or removed from the table",
                     observed=f"seat {seat}: a 5,000 chip went off the table and did not come back",
                     ruling="call the floor: tournament chips must stay in view", severity=Severity.ADVISORY,
                     hand_no=hand_no, street="turn", seats=(seat,), confidence=0.71, evidence_ts=(ts,))

"""An alert's still marks what it is about: the finding's seats and the places its text names, from the table's
calibration, scaled to the evidence stream's picture."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from tablewatch.alerts.evidence import EvidenceConfig, EvidenceRecorder
from tablewatch.calibration.camera import TableCalibration
from tablewatch.calibration.profile import new_profile
from tablewatch.events import Violation
from tablewatch.table.marks import PLACE_COLOUR, SEAT_COLOUR, ViolationMarks

MM_PER_PX = 2.0  # a camera straight above the table's centre, 1280 × 720: 2,560 × 1,440 mm in view


def straight_down() -> ViolationMarks:
    h = [[MM_PER_PX, 0.0, -640 * MM_PER_PX], [0.0, MM_PER_PX, -360 * MM_PER_PX], [0.0, 0.0, 1.0]]
    calibration = TableCalibration(image_size=(1280, 720), homography=h, markers_used=[], marker_pixels={},
                                   mean_error_mm=0.0, max_error_mm=0.0, mean_error_px=0.0, mm_per_px=MM_PER_PX)
    return ViolationMarks(new_profile(table="T01", layout="oval10", calibration=calibration))


def finding(observed: str, seats: tuple[int, ...], title: str = "Pot pushed to the wrong seat") -> Violation:
    return Violation(ts=4.0, table="T01", source="rules", rule_id="TDA-6A", title=title,
                     observed=observed, ruling="", seats=seats, hand_no=1)


def test_the_seats_and_the_places_named_are_marked_where_the_layout_puts_them() -> None:
    marks = straight_down()
    boxes = marks.boxes(finding("the pot went to seat 3, seat 5 won it", (3, 5)), {3: "Bo Chan"})
    assert [(b.label, b.color) for b in boxes] == [("seat 3 Bo Chan", SEAT_COLOUR), ("seat 5", SEAT_COLOUR),
                                                   ("pot", PLACE_COLOUR)]
    stack = marks.layout.polygon("seat3.stack").mean(axis=0)  # mm → px of this camera: mm / 2 + centre
    u, v = stack[0] / MM_PER_PX + 640, stack[1] / MM_PER_PX + 360
    assert boxes[0].x1 <= u <= boxes[0].x2 and boxes[0].y1 <= v <= boxes[0].y2
    assert marks.boxes(finding("seat 4 bet in two motions", (), title="String raise")) == []  # only the caption


def test_the_still_draws_the_marks_scaled_to_the_evidence_picture(tmp_path: Path) -> None:
    marks = straight_down()
    recorder = EvidenceRecorder(EvidenceConfig(folder=tmp_path, before_s=0.0, after_s=0.0))
    grey = np.full((360, 640, 3), 90, np.uint8)  # the evidence stream at half the calibrated resolution
    recorder.add_frame("overhead", 4.0, grey)
    boxes = marks.boxes(finding("the pot went to seat 3", (3,)))
    evidence = recorder.capture("al-0123456789abcdef", 4.0, camera="overhead", boxes=boxes, boxes_size=marks.size)
    recorder.close()
    still = cv2.imread(str(evidence.still_path))
    seat = boxes[0]
    x, y = round(seat.x1 / 2), round((seat.y1 + seat.y2) / 4)  # the left edge of seat 3's box, halved
    assert still[y, x - 1 : x + 2, 2].max() > 180 and still[y, x - 1 : x + 2, 0].min() < 80  # red is drawn there
    assert still[1:6, 600:640].max() < 30  # the caption bar along the top, black past its text

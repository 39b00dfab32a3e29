"""Counting a video file's frames as a player would read them (clips must be whole)."""

from __future__ import annotations

import cv2


def frame_count(path: str) -> int:
    capture = cv2.VideoCapture(path)
    frames = 0
    while capture.read()[0]:
        frames += 1
    capture.release()
    return frames

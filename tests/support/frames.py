"""A compressed frame that notes each size it is decoded at (what a consumer of a Motion-JPEG camera decodes)."""

from __future__ import annotations

import numpy as np

from tablewatch.vision.sources import Frame, jpeg_frame


class CountedFrame(Frame):
    """``image`` JPEG-compressed as a camera sends it; ``decodes``: the reduction of each decode, in order."""

    __slots__ = ("decodes",)

    def __init__(self, image: np.ndarray, index: int = 0, ts: float = 0.0) -> None:
        super().__init__(jpeg=jpeg_frame(image).jpeg, index=index, ts=ts)
        self.decodes: list[int] = []

    def reduced(self, factor: int) -> np.ndarray:
        self.decodes.append(factor)  # (``image`` decodes through here too)
        return super().reduced(factor)

"""A 4K Motion-JPEG camera's frames reach perception compressed: decoded only when analysed, at a quarter of
their size for the table plane and in full only where a card's identity is read, and seen the same."""

from __future__ import annotations

import numpy as np
import pytest

from tablewatch.events import BoardCardDealt, CardBurned
from tablewatch.sim.session import Simulation
from tests.perception.conftest import FPS, perception_for
from tests.support.frames import CountedFrame


@pytest.fixture(scope="module")
def burn_and_flop_4k(demo: Simulation) -> list[tuple[np.ndarray, float]]:
    renderer = demo.renderer(resolution="2160p")
    try:
        return [(renderer.render(i / FPS, labels=False).image, i / FPS) for i in range(160, 198)]
    finally:
        demo.release_renderers()


def test_a_4k_frame_compressed_is_seen_as_decoded(demo: Simulation,
                                                  burn_and_flop_4k: list[tuple[np.ndarray, float]]) -> None:
    compressed = [CountedFrame(image, i, ts) for i, (image, ts) in enumerate(burn_and_flop_4k)]
    perception = perception_for(demo, hand_in_progress=True)
    seen = perception.run((frame, frame.ts) for frame in compressed)
    decoded = perception_for(demo, hand_in_progress=True).run(burn_and_flop_4k)

    def what(events: list) -> list[tuple]:
        return [(e.kind, getattr(e, "slot", None), getattr(e, "card", None)) for e in events
                if isinstance(e, BoardCardDealt | CardBurned)]

    assert what(seen) == what(decoded)
    assert sorted(e.card for e in seen if isinstance(e, BoardCardDealt)) == ["2s", "7c", "Qc"]  # read at 4K
    assert perception.plane is not None and perception.plane.reduction() == 4
    analysed = int(perception.timing["frames"])
    reductions = [factor for frame in compressed for factor in frame.decodes]
    # the three calibration frames and the cards read whole; every analysed frame at a quarter; no other
    assert reductions.count(4) == analysed < len(compressed)
    assert 3 < reductions.count(1) <= 3 + 8
    assert set(reductions) == {1, 4}

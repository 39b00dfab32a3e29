"""Perception on real hands of the bench (rendered by the simulator): cards that lie on or beside each other.

- A seat's second hole card pitched squarely onto its first changes only a sliver of the picture; it is
  still a card dealt (missing it made the rules call a misdeal, TDA-22A/24/25, that never happened).
- A hand tabled at the showdown settles as one region of two face-up cards; each card is read (unread
  cards left the pot's winner unknown, and the rules called the right push a misaward, TDA-5).
"""

from __future__ import annotations

from collections import Counter

import pytest

from tablewatch.bench.scenarios import DEMO_HANDS, hand_simulations
from tablewatch.calibration.chips import painted_chip_colours
from tablewatch.events import CardDealt, CardsTabled, Event
from tablewatch.sim.session import Simulation
from tablewatch.vision.perception.perception import Perception

pytestmark = pytest.mark.slow

FPS = 15.0


@pytest.fixture(scope="module")
def bench_hands() -> list[Simulation]:
    """The bench's first eight hands (``tablewatch bench --hands 8``)."""
    hands = hand_simulations(DEMO_HANDS, hands=8, seed=1)
    assert not hands.skipped
    return hands.sims


def perceive(sim: Simulation, t0: float, t1: float, *, hand_in_progress: bool = False) -> list[Event]:
    """Perception on the 720p frames from ``t0`` to ``t1`` s, flushed at the end, reading card identity from the
    same moment in 4K (as `run` does from a 4K Motion-JPEG camera, analysed at a quarter of its size)."""
    vision = Perception(layout=sim.run.layout, table=sim.scenario.table,
                        chips=painted_chip_colours(sim.scenario.chips), deck=sim.scenario.deck)
    vision.gestures.hand_open = hand_in_progress
    renderer, uhd = sim.renderer("overhead", "720p"), sim.renderer("overhead", "2160p")
    events: list[Event] = []
    t = t0
    for i in range(round(t0 * FPS), round(t1 * FPS)):
        t = i / FPS
        events += vision.process(renderer.render(t, labels=False).image, t,
                                 hires=lambda at=t: uhd.render(at, labels=False).image)
    return events + vision.flush(t + vision.decision_wait_s)


def test_a_second_hole_card_on_top_of_the_first_is_dealt(bench_hands: list[Simulation]) -> None:
    sim = bench_hands[7]  # hand 8: the button's second card lands almost exactly on its first
    truth = [e for e in sim.events if isinstance(e, CardDealt)]
    end = max(e.ts for e in truth) + 1.5

    dealt = [e for e in perceive(sim, 0.0, end) if isinstance(e, CardDealt)]

    assert Counter(e.seat for e in dealt) == Counter(e.seat for e in truth)
    assert [e.seat for e in dealt] == [e.seat for e in truth]  # in the order they were pitched
    assert [e.ts for e in dealt] == pytest.approx([e.ts for e in truth], abs=0.3)


def test_both_cards_of_a_tabled_hand_are_read(bench_hands: list[Simulation]) -> None:
    sim = bench_hands[4]  # hand 5: two hands tabled at the showdown, each as one region of two cards
    truth = [e for e in sim.events if isinstance(e, CardsTabled)]
    assert len(truth) == 2

    tabled = [e for e in perceive(sim, truth[0].ts - 2.5, truth[-1].ts + 1.5, hand_in_progress=True)
              if isinstance(e, CardsTabled)]

    assert [(e.seat, sorted(e.cards)) for e in tabled] == [(e.seat, sorted(e.cards)) for e in truth]

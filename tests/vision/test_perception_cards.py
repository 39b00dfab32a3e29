"""Perception on real hands of the bench (rendered by the simulator): cards that lie on or beside each other.

- A seat's second hole card pitched squarely onto its first changes only a sliver of the picture; it is
  still a card dealt (missing it made the rules call a misdeal, TDA-22A/24/25, that never happened).
- A hand tabled at the showdown settles as one region of two face-up cards; each card is read (unread
  cards left the pot's winner unknown, and the rules called the right push a misaward, TDA-5).
- A new player's stack set down as the deal begins is chips, not a card dealt: its white chips show the
  paper's colour, and read as a face-up card they opened the hand early, made the blinds bets (TDA-39) and
  the seat's two real cards its second and third (TDA-22A).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tablewatch.bench.scenarios import DEMO_HANDS, hand_simulations
from tablewatch.bench.through_run import recorded_session
from tablewatch.calibration.chips import painted_chip_colours
from tablewatch.events import BetMotion, CardDealt, CardsTabled, ChipsMoved, Event, HandStarted
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


def test_a_stack_set_down_on_an_empty_seat_as_the_deal_begins_is_no_card(shared_dir: Path) -> None:
    # the file's first five hands as `bench-conditions` records them: seat 6's player leaves after hand 4 and a
    # new one sits down as hand 5 begins
    sim, _ = recorded_session(shared_dir / "data/hands/high_stakes/ps_1000nl_.phh", hands=5, first=1, seed=1)
    start = [e for e in sim.events if isinstance(e, HandStarted)][4]
    assert not sim.antenna_contents(start.ts - 0.5)["seat6.stack"] and sim.antenna_contents(start.ts)["seat6.stack"]
    truth = [e for e in sim.events if isinstance(e, CardDealt) and e.ts > start.ts][:10]
    blinds = [e for e in sim.events if isinstance(e, ChipsMoved) and start.ts < e.ts < truth[0].ts]
    assert blinds

    seen = perceive(sim, start.ts - 3.0, truth[-1].ts + 1.5)

    assert [(e.seat, e.face_up) for e in seen if isinstance(e, CardDealt)] == [(e.seat, False) for e in truth]
    assert not [e for e in seen if isinstance(e, BetMotion)]  # the blinds went in before the cards

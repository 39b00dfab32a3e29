"""Stacks whose largest chips can't be seen (TDA-16A), from the simulator's all-violations scenario."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tablewatch.calibration.chips import ChipColours, painted_chip_colours
from tablewatch.calibration.layout import load_layout
from tablewatch.events import StackObscured
from tablewatch.sim.conditions import CameraLook, Conditions
from tablewatch.sim.scenario import FELTS
from tablewatch.sim.session import Simulation
from tablewatch.vision.perception import Perception
from tablewatch.vision.perception.stacks import MIN_PIXELS, SeatStack, StackWatch
from tests.perception.conftest import Window, perception_for, rendered, run_window

ALL_VIOLATIONS = Path(__file__).resolve().parents[2] / "tablewatch" / "sim" / "scenarios" / "all_violations.yaml"


@pytest.fixture(scope="module")
def violations() -> Simulation:
    return Simulation.from_file(ALL_VIOLATIONS)


def obscured(sim: Simulation, t0: float, t1: float) -> list[StackObscured]:
    return [e for e in run_window(sim, rendered(sim, t0, t1)) if isinstance(e, StackObscured)]


def truth(sim: Simulation, seat: int, t0: float, t1: float) -> list[StackObscured]:
    return [e for e in sim.events if isinstance(e, StackObscured) and e.seat == seat and t0 <= e.ts <= t1]


def test_big_chips_put_under_a_column_of_small_ones_are_reported(violations: Simulation) -> None:
    """Seat 3 stacks its 1,000s under its 100s: from above only 100s show. Its 1,000s lie at the stack zone's
    edge, half outside it: the zone is read a little beyond its edge, on the felt, or the 500s would count
    as the stack's largest chips and nothing would be missing."""
    seen = obscured(violations, 104.0, 113.0)
    true = truth(violations, 3, 104.0, 113.0)
    assert len(true) == 3
    assert {e.seat for e in seen} == {3}
    assert len(seen) == len(true)
    assert [e.ts for e in seen] == pytest.approx([e.ts for e in true], abs=0.6)  # (stacks are read every 0.5 s)
    assert {e.denomination for e in seen} == {1000}  # which chips are out of sight (RFID counts them: fusion)


def test_a_hand_over_the_stack_is_reported_every_second_and_once_more_with_the_whole_time(
        violations: Simulation) -> None:
    """Seat 6's hand rests on its stack for 11 s: a report a second while it lasts, and when the chips show
    again a last one with the whole time (the rules layer's thresholds are on that time)."""
    seen = obscured(violations, 70.0, 87.0)
    true = truth(violations, 6, 70.0, 87.0)
    assert len(seen) == len(true) == 12
    assert [e.ts for e in seen] == pytest.approx([e.ts for e in true], abs=0.6)  # (stacks are read every 0.5 s)
    assert seen[-1].duration == pytest.approx(true[-1].duration, abs=0.6)
    assert [e.duration for e in seen] == sorted(e.duration for e in seen)
    assert {e.denomination for e in seen} == {1000}  # its two 1,000s under the hand


def test_a_bet_of_the_largest_chips_is_not_a_hidden_stack(demo: Simulation) -> None:
    """Seat 3 bets its only 1,000 at 20.7 s: the stack's largest chips are gone, as a bet (the bet's decision
    resets what the stack shows), not out of sight."""
    events = run_window(demo, rendered(demo, 17.0, 24.0))
    assert any(e.kind == "BetMotion" and e.seat == 3 for e in events)
    assert not [e for e in events if isinstance(e, StackObscured)]


def test_big_chips_a_lamp_whitens_in_part_stay_the_stack_s_largest_after_a_bet_of_small_ones() -> None:
    """Under a lamp's glare a 5,000's yellow shows on fewer pixels than a whole chip's share (the floor). Learnt
    before, they stay the largest after the player bets small chips, so a hand laid on them is seen; chips bet
    away leave none of their colour, and the next denomination down is the largest."""
    floor = 32.0
    stack = SeatStack()
    stack.read(0.0, live={}, settled={2500: 50, 5000: 33}, floor=floor)
    assert stack.largest == 5000
    after_small_bet = stack.relearnt()
    after_small_bet.read(1.0, live={}, settled={2500: 45, 5000: 21}, floor=floor)
    assert after_small_bet.largest == 5000
    after_small_bet.read(1.5, live={2500: 45, 5000: 2}, settled={2500: 45, 5000: 21}, floor=floor)  # a hand on them
    assert after_small_bet.hidden_since == 1.5
    after_big_bet = stack.relearnt()
    after_big_bet.read(1.0, live={}, settled={2500: 45, 5000: 3}, floor=floor)
    assert after_big_bet.largest == 2500


def test_a_hand_resting_on_the_stack_in_a_bigger_chips_colours_keeps_it_hidden_until_its_chips_show_again() -> None:
    """Measured with the camera's colour turned down to 60 % after the chips were learned: a hand laid on a stack of
    2,500s reads in part as 25,000s, and once it has rested long enough to be taken into the reference the stack
    would seem to hold 25,000s, in sight: the hiding went unreported after 6 s of 11. While the largest chips are
    out of sight, what shows in a bigger chip's colours is what covers them; once the 2,500s show again (the hand
    gone) the stack is clear, and a bigger chip that then shows in the frame as in the reference is the stack's
    largest."""
    floor = 32.0
    stack = SeatStack()
    stack.read(0.0, live={}, settled={500: 800, 2500: 64}, floor=floor)
    stack.read(0.5, live={500: 660, 2500: 2, 25000: 290}, settled={500: 760, 2500: 60}, floor=floor)  # the hand
    assert stack.hidden_since == 0.5
    stack.read(6.5, live={500: 650, 2500: 0, 25000: 280}, settled={500: 620, 25000: 258}, floor=floor)  # taken in
    assert (stack.largest, stack.hidden_since) == (2500, 0.5)
    for t in (12.0, 12.5):  # the hand gone, the reference not yet back to the stack
        stack.read(t, live={500: 790, 2500: 62}, settled={500: 620, 25000: 258}, floor=floor)
        assert (stack.largest, stack.hidden_since) == (2500, None)
    stack.read(13.0, live={500: 790, 2500: 62, 25000: 70}, settled={500: 790, 2500: 60, 25000: 70}, floor=floor)
    assert (stack.largest, stack.hidden_since) == (25000, None)


def test_a_sliver_of_the_largest_chips_the_smoothed_reference_thins_is_read_off_the_frame_while_nothing_moves(
        demo: Simulation, window: Window) -> None:
    """A short column of the largest chips shows a sliver of its top past taller ones. The scene's reference is
    smoothed against noise, which thins such a sliver under the floor; while nothing in the stack's area differs
    from the reference, the frame itself shows the stack as settled and sets its largest chips."""
    perception = perception_for(demo)
    for frame, ts in window(0.0, 1.0):
        perception.process(frame, ts)
    assert perception.plane is not None and perception.look is not None and perception.analysed is not None
    look, flat = perception.look, perception.analysed[1]
    largest = max(look.chip_values)
    seat = 4
    settled = flat.copy()
    live = flat.copy()
    (box, mask) = StackWatch(perception.plane, look).masks[seat]
    ys, xs = np.nonzero(mask)
    sliver = int(1.5 * MIN_PIXELS * look.chip_px)
    colour = look.chips.chips[-1].bgr if look.chips.chips[-1].value == largest else None
    assert colour is not None
    live[box][ys[:sliver], xs[:sliver]] = colour  # the sliver, in the frame; the reference lost it
    clear, moving = StackWatch(perception.plane, look), StackWatch(perception.plane, look)
    clear.update(1.0, live, settled, np.zeros(flat.shape[:2], bool))
    moving.update(1.0, live, settled, np.ones(flat.shape[:2], bool))  # an arm there: the reference decides
    assert clear.seats[seat].largest == largest
    assert moving.seats[seat].largest != largest


def test_a_hand_over_the_stack_is_reported_with_the_camera_s_colour_turned_down_since_the_chips_were_learned(
        violations: Simulation) -> None:
    """The camera's colour setting turned down to 60 % after the chip colours were learned: every colour fades
    toward grey, the chips' out of reach of their learnt colours, and no stack shows its largest chips to lose.
    The felt's colour was recorded with the chips: it fades by as much, and the chips are read by colours faded
    alike."""
    scenario = violations.scenario
    frames = rendered(violations, 70.0, 78.0)
    muted = CameraLook(Conditions(saturation=0.6), (frames[0][0].shape[1], frames[0][0].shape[0]), fps=10.0)
    faded = [(muted.apply(frame), ts) for frame, ts in frames]

    def seen(chips: ChipColours) -> list[StackObscured]:
        perception = Perception(layout=load_layout(scenario.layout), table=scenario.table, chips=chips,
                                deck=scenario.deck, hand_in_progress=True)
        return [e for e in perception.run(faded) if isinstance(e, StackObscured)]

    true = truth(violations, 6, 70.0, 78.0)
    with_felt = seen(painted_chip_colours(scenario.chips, felt_bgr=FELTS[scenario.felt]))
    assert len(true) >= 4
    assert len(with_felt) == len(true) and {e.seat for e in with_felt} == {6}
    assert [e.ts for e in with_felt] == pytest.approx([e.ts for e in true], abs=0.6)
    assert {e.denomination for e in with_felt} == {1000}
    assert seen(painted_chip_colours(scenario.chips)) == []  # (the chips' colours as learnt: none read)

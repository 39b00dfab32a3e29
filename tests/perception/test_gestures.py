"""Gestures from arm samples, without rendering: when a bet is decided and what vision's horizon says."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tablewatch.calibration.layout import load_layout
from tablewatch.events import BetMotion, Tap
from tablewatch.vision.perception.gestures import DEFAULT_CONFIG, Found, Gestures
from tablewatch.vision.perception.scene import GHOST_S, Arm

DECIDE_S, GAP_S, SETTLED_BET_S = DEFAULT_CONFIG.decide_s, DEFAULT_CONFIG.gap_s, DEFAULT_CONFIG.settled_bet_s
LAYOUT = load_layout("oval6")
SEAT = 3


def _arm_at(depth_mm: float) -> Arm:
    """Seat 3's hand ``depth_mm`` beyond the middle of its betting line (negative: behind it)."""
    line = np.asarray(LAYOUT.seat(SEAT).line, float)
    middle, player = line.mean(axis=0), np.asarray(LAYOUT.seat(SEAT).player, float)
    forward = (middle - player) / np.linalg.norm(middle - player)
    tip = middle + forward * depth_mm
    palm = tip - forward * 50.0
    return Arm(actor=f"seat{SEAT}", tip_mm=(float(tip[0]), float(tip[1])), palm_mm=(float(palm[0]), float(palm[1])),
               area_mm2=20_000.0)


def _bet_then_rest(gestures: Gestures, *, rest_s: float) -> list:
    """Over the line at 10.2-10.4 s, back behind it, then resting there (on the stack) for ``rest_s``."""
    out, t = [], 10.0
    for depth in (-120, 60, 90, 60):
        out += gestures.arms(t, [_arm_at(depth)])
        t = round(t + 0.1, 3)
    middle = np.asarray(LAYOUT.seat(SEAT).line, float).mean(axis=0)
    gestures.settled(Found(t=10.6, zone=f"seat{SEAT}.bet", what="chips_in", chips={500: 2},
                           centre=(float(middle[0]), float(middle[1]))))
    while t < 10.3 + rest_s:
        out += gestures.arms(t, [_arm_at(-150)])
        out += gestures.decide(t)
        t = round(t + 0.1, 3)
    return out


def test_a_bet_whose_hand_rests_on_the_felt_is_decided_without_waiting_for_it_to_leave() -> None:
    gestures = Gestures(LAYOUT, table="T1", hand_in_progress=True)
    out = _bet_then_rest(gestures, rest_s=SETTLED_BET_S + 0.5)
    bets = [e for e in out if isinstance(e, BetMotion)]
    assert [(b.seat, b.motions, b.chips.value) for b in bets] == [(SEAT, 1, 1000)]
    assert f"seat{SEAT}" in gestures.open  # the hand is still there
    # and when it finally leaves, the rest of its stay is neither a tap nor another bet
    later = []
    for t in np.arange(12.5, 14.0, 0.1):
        later += gestures.arms(float(t), []) + gestures.decide(float(t))
    assert not [e for e in later if isinstance(e, BetMotion | Tap)]


def test_vision_horizon_holds_back_to_an_undecided_bet_and_no_further() -> None:
    gestures = Gestures(LAYOUT, table="T1", hand_in_progress=True)
    _bet_then_rest(gestures, rest_s=1.0)  # the hand has rested 1 s behind the line: the bet is undecided
    assert gestures.horizon(11.3) <= 10.0  # it will be stamped at its motion (10.2), the hand's entry before
    decided = []
    for t in np.arange(11.3, 12.6, 0.1):
        decided += gestures.arms(round(float(t), 3), [_arm_at(-150)])
    assert [e.kind for e in decided].count("BetMotion") == 1
    assert gestures.horizon(12.5) == 12.5  # the hand resting on can stamp nothing earlier


def test_an_arm_lying_still_in_another_seat_s_place_holds_no_decision_open() -> None:
    """A still shape in the neighbour's stack taken for this seat's arm (a card left lying, say): its episode ends
    once it has not moved for ``parked_s``, so vision's horizon moves on; while it lies there it is ignored."""
    gestures = Gestures(LAYOUT, table="T1", hand_in_progress=True)
    neighbour = LAYOUT.zones[f"seat{SEAT + 1}.stack"]
    spot = tuple(float(v) for v in np.asarray(neighbour, float).mean(axis=0))
    still = Arm(actor=f"seat{SEAT}", tip_mm=spot, palm_mm=spot, area_mm2=9000.0)
    for t in np.arange(10.0, 10.0 + DEFAULT_CONFIG.parked_s + 2.0, 0.1):
        gestures.arms(round(float(t), 3), [still])
        gestures.decide(round(float(t), 3))
    assert f"seat{SEAT}" not in gestures.open
    assert gestures.horizon(15.0) == 15.0
    # at his own stack the same stillness is a hand at rest, its episode still open (it may yet take chips)
    own = Gestures(LAYOUT, table="T1", hand_in_progress=True)
    for t in np.arange(10.0, 14.0, 0.1):
        own.arms(round(float(t), 3), [_arm_at(-150)])
    assert f"seat{SEAT}" in own.open


def test_an_arm_back_where_it_lay_still_ends_its_gesture_at_once() -> None:
    """The seat's still "arm" at the neighbour's stack, then its real hand out over the line, then the still
    one again: the gesture is over when the arm is back where it lay, not once it has been still ``parked_s``
    again (which held every later decision, a neighbour's fold included, behind it)."""
    gestures = Gestures(LAYOUT, table="T1", hand_in_progress=True)
    neighbour = LAYOUT.zones[f"seat{SEAT + 1}.stack"]
    spot = tuple(float(v) for v in np.asarray(neighbour, float).mean(axis=0))
    still = Arm(actor=f"seat{SEAT}", tip_mm=spot, palm_mm=spot, area_mm2=9000.0)
    t = 10.0
    while t < 10.0 + DEFAULT_CONFIG.parked_s + 0.5:
        gestures.arms(t, [still])
        t = round(t + 0.1, 3)
    for depth in (-120, 60, 90, 60, -120):
        gestures.arms(t, [_arm_at(depth)])
        t = round(t + 0.1, 3)
    assert f"seat{SEAT}" in gestures.open
    gestures.arms(t, [still])
    assert f"seat{SEAT}" not in gestures.open
    later = t + DEFAULT_CONFIG.decide_s + 0.1
    gestures.arms(later, [still])
    gestures.decide(later)
    assert gestures.horizon(later) == later


def test_a_hand_resting_from_the_blind_into_the_deal_then_calls_a_bet_not_a_blind() -> None:
    gestures = Gestures(LAYOUT, table="T1", hand_in_progress=False)
    out = _bet_then_rest(gestures, rest_s=SETTLED_BET_S + 0.5)  # posts a blind, the hand stays on the felt
    assert [e.kind for e in out if e.kind in ("BetMotion", "ChipsMoved")] == ["ChipsMoved"]
    middle = np.asarray(LAYOUT.seat(SEAT).line, float).mean(axis=0)
    player = np.asarray(LAYOUT.seat(SEAT).player, float)
    near = middle + (player - middle) * 0.3
    gestures.settled(Found(t=12.5, zone=f"seat{SEAT}.stack", what="card_in", centre=(float(near[0]), float(near[1]))))
    assert gestures.hand_open
    later, t = [], 13.0
    for depth in (-150, -120, 60, 90, 60, -150, -150):
        later += gestures.arms(t, [_arm_at(depth)])
        t = round(t + 0.1, 3)
    gestures.settled(Found(t=13.6, zone=f"seat{SEAT}.bet", what="chips_in", chips={500: 2},
                           centre=(float(middle[0]), float(middle[1]))))
    while t < 16.0:
        later += gestures.arms(t, [_arm_at(-150)]) + gestures.decide(t)
        t = round(t + 0.1, 3)
    assert [(e.kind, e.seat) for e in later if e.kind in ("BetMotion", "ChipsMoved")] == [("BetMotion", SEAT)]


def _dealer_reaches_from_pot_to_stack(gestures: Gestures, *, gathered: bool, dealt_since: bool = False,
                                      zone: str = "stack") -> list:
    """The dealer's hand goes into the pot, chips leave the pot, the hand goes out to seat 3's stack (or its
    ``zone``) and back (``dealt_since``: after the gather, a card is dealt: the next hand has begun)."""
    pot, stack = LAYOUT.polygon("pot").mean(axis=0), LAYOUT.polygon(f"seat{SEAT}.{zone}").mean(axis=0)
    dealer = np.asarray(LAYOUT.dealer_position, float)
    if gathered:
        gestures.settled(Found(t=9.0, zone="pot", what="chips_in", chips={500: 4}, centre=tuple(pot)))
        gestures.decide(10.5)  # the gather is over: a PotGathered
    if dealt_since:
        gestures.settled(_settle(10.7, "seat4.stack", "card_in"))
    gestures.settled(Found(t=11.0, zone="pot", what="chips_out", chips={500: 4}, centre=tuple(pot)))
    path = [pot, pot, (pot + stack) / 2, stack * 0.9 + pot * 0.1, stack, stack * 0.6 + dealer * 0.4, dealer * 0.8]
    out = []
    for i, tip in enumerate(path):
        out += gestures.arms(11.0 + 0.15 * i, [Arm(actor="dealer", tip_mm=(float(tip[0]), float(tip[1])),
                                                    palm_mm=(float(tip[0]), float(tip[1])), area_mm2=30_000.0)])
    return [e for e in out if e.kind == "PotPushed"]


def test_a_pot_push_needs_chips_gathered_into_the_pot_first() -> None:
    assert [e.seat for e in _dealer_reaches_from_pot_to_stack(Gestures(LAYOUT, table="T1"), gathered=True)] == [SEAT]
    # the dealer tidying by an empty pot and reaching for a player's mucked cards pushes nothing
    assert _dealer_reaches_from_pot_to_stack(Gestures(LAYOUT, table="T1"), gathered=False) == []


def test_a_small_pot_slid_in_front_of_the_player_is_pushed_to_that_seat() -> None:
    """From the emptied pot the dealer slides one chip to seat 3's bet zone and turns back there: a push to seat 3.
    The same reach with nothing gathered (the dealer taking a player's cards) pushes nothing."""
    slid = _dealer_reaches_from_pot_to_stack(Gestures(LAYOUT, table="T1"), gathered=True, zone="bet")
    assert [e.seat for e in slid] == [SEAT]
    assert _dealer_reaches_from_pot_to_stack(Gestures(LAYOUT, table="T1"), gathered=False, zone="bet") == []


def test_a_pot_gathered_in_an_earlier_hand_is_not_pushed_in_the_next() -> None:
    """The last hand's pot was pushed where the camera did not see it: once the next deal has begun, the dealer
    reaching from the pot to a stack (taking a player's mucked cards) pushes nothing."""
    gestures = Gestures(LAYOUT, table="T1")
    assert _dealer_reaches_from_pot_to_stack(gestures, gathered=True, dealt_since=True) == []


@pytest.mark.parametrize(("bet_after", "pushed"), [(True, []), (False, [SEAT])])
def test_chips_shifted_in_the_pot_while_bets_are_still_gathered_are_no_push(bet_after: bool, pushed: list) -> None:
    """The dealer gathers seat 1's bet, sweeping it into the pot shifts the pot's chips (seen leaving it: measured
    with the picture's colour turned down to 60 %), gathers seat 2's, then goes from the pot to seat 3's bet and
    back for the last one. Bets still being gathered after the pot's chips moved: no push, and the hand stays open.
    Without seat 2's bet after them, the same reach from the emptied pot is a small pot slid to seat 3."""
    gestures = Gestures(LAYOUT, table="T1", hand_in_progress=True)
    pot, dealer = LAYOUT.polygon("pot").mean(axis=0), np.asarray(LAYOUT.dealer_position, float)
    gestures.settled(Found(t=20.0, zone="seat1.bet", what="chips_out", chips={500: 2},
                           centre=tuple(LAYOUT.polygon("seat1.bet").mean(axis=0))))
    gestures.settled(Found(t=20.3, zone="pot", what="chips_out", chips={500: 1}, centre=tuple(pot)))
    if bet_after:
        gestures.settled(Found(t=20.6, zone="seat2.bet", what="chips_out", chips={500: 2},
                               centre=tuple(LAYOUT.polygon("seat2.bet").mean(axis=0))))
    bet = LAYOUT.polygon(f"seat{SEAT}.bet").mean(axis=0)
    out = []
    for i, tip in enumerate([pot, pot, (pot + bet) / 2, bet, bet * 0.6 + dealer * 0.4, dealer * 0.8]):
        out += gestures.arms(20.9 + 0.15 * i, [Arm(actor="dealer", tip_mm=(float(tip[0]), float(tip[1])),
                                                    palm_mm=(float(tip[0]), float(tip[1])), area_mm2=30_000.0)])
    assert [e.seat for e in out if e.kind == "PotPushed"] == pushed
    assert gestures.hand_open == (not pushed)


def test_after_a_push_a_bet_zone_holds_nothing_to_gather_until_chips_go_into_one_again() -> None:
    gestures = Gestures(LAYOUT, table="T1")
    assert len(_dealer_reaches_from_pot_to_stack(gestures, gathered=True)) == 1  # pushed at ~11.6 s
    bet = tuple(float(v) for v in LAYOUT.polygon("seat1.bet").mean(axis=0))

    def gathers(t0: float) -> list:
        return [e for t in np.arange(t0, t0 + 2.5, 0.1) for e in gestures.decide(float(t)) if e.kind == "PotGathered"]

    gestures.settled(Found(t=14.0, zone="seat1.bet", what="chips_out", centre=bet))  # tabled cards swept away
    assert gathers(14.0) == []
    gestures.settled(Found(t=20.0, zone="seat1.bet", what="chips_in", chips={100: 1}, centre=bet))  # next hand
    gestures.settled(Found(t=25.0, zone="seat1.bet", what="chips_out", chips={100: 1}, centre=bet))
    assert len(gathers(25.0)) == 1


def _gathered_at(dealer_path: list[tuple[float, str]], *, last: Found) -> list[float]:
    """Chips seen leaving seat 1's bet at 20.0 s, then ``last``; the dealer's hand at the centres of these
    zones at these times; decided 2 s after. When the PotGathered events are stamped."""
    gestures, out = Gestures(LAYOUT, table="T1"), []
    bet = LAYOUT.polygon("seat1.bet").mean(axis=0)
    gestures.settled(Found(t=20.0, zone="seat1.bet", what="chips_out", chips={100: 2}, centre=tuple(bet)))
    gestures.settled(last)
    for t, zone in dealer_path:
        at = LAYOUT.polygon(zone).mean(axis=0)
        out += gestures.arms(t, [Arm(actor="dealer", tip_mm=(float(at[0]), float(at[1])),
                                     palm_mm=(float(at[0]), float(at[1])), area_mm2=30_000.0)])
        out += gestures.decide(t)
    for t in np.arange(dealer_path[-1][0] + 0.1, dealer_path[-1][0] + 2.0, 0.1):
        out += gestures.decide(float(t))
    return [round(e.ts, 2) for e in out if e.kind == "PotGathered"]


def test_a_gather_ends_where_the_dealers_sweep_reaches_the_pot() -> None:
    """Chips leaving seat 3's bet are seen, those the hand takes from seat 6's are not (black and white
    chips on a grey felt): the hand sweeping on from bet to bet and into the pot is the gather's end. Going
    from the gathered pot straight back into it, or by a stack first, is on to something else (a push)."""
    bet3 = tuple(LAYOUT.polygon("seat3.bet").mean(axis=0))
    pot = tuple(LAYOUT.polygon("pot").mean(axis=0))
    from_bet3 = Found(t=20.4, zone="seat3.bet", what="chips_out", chips={100: 1}, centre=bet3)
    sweep = [(20.8, "seat6.bet"), (21.4, "seat6.bet"), (22.0, "pot"), (22.5, "pot")]
    assert _gathered_at(sweep, last=from_bet3) == [22.0]
    into_pot = Found(t=20.4, zone="pot", what="chips_in", chips={100: 3}, centre=pot)
    assert _gathered_at([(21.0, "pot"), (21.3, "pot"), (21.6, "seat3.stack")], last=into_pot) == [20.4]
    by_stack = [(20.8, "seat6.bet"), (21.2, "seat3.stack"), (21.8, "pot")]
    assert _gathered_at(by_stack, last=from_bet3) == [20.4]


def test_an_arm_seen_again_after_a_gap_starts_a_new_episode_even_at_a_low_frame_rate() -> None:
    gestures = Gestures(LAYOUT, table="T1", hand_in_progress=True)
    for t, depth in ((10.0, -120), (10.1, 60), (10.2, -120)):
        gestures.arms(t, [_arm_at(depth)])
    gestures.arms(10.9, [_arm_at(-120)])  # the next frame with this arm comes after the gap
    assert [ep.last for ep in gestures.closed] == [10.2]
    assert gestures.open[f"seat{SEAT}"].start == 10.9


def _brief_reach(depths: tuple[float, ...], shift: tuple[float, float] = (0.0, 0.0)) -> list:
    gestures = Gestures(LAYOUT, table="T1", hand_in_progress=True)
    out, t = [], 20.0
    for depth in depths:
        arm = _arm_at(depth)
        moved = Arm(actor=arm.actor, tip_mm=(arm.tip_mm[0] + shift[0], arm.tip_mm[1] + shift[1]),
                    palm_mm=(arm.palm_mm[0] + shift[0], arm.palm_mm[1] + shift[1]), area_mm2=arm.area_mm2)
        out += gestures.arms(t, [moved])
        t = round(t + 0.1, 3)
    for _ in range(20):  # the arm has gone: the episode is decided
        out += gestures.arms(t, []) + gestures.decide(t)
        t = round(t + 0.1, 3)
    return [e.kind for e in out if e.kind in ("Tap", "BetMotion")]


def test_a_tap_reaches_the_line_and_a_brief_move_over_the_stack_is_no_check() -> None:
    assert _brief_reach((-150, -60, 25, 25, 25, -60, -150)) == ["Tap"]
    assert _brief_reach((-150, -60, -47, -47, -47, -60, -150)) == []  # chips taken from the stack to a pocket


def test_the_same_brief_reach_ending_in_another_seat_s_place_is_no_tap() -> None:
    """A player taps in front of himself: the same reach 450 mm along his line, ending in the neighbour's betting
    zone (a shape the camera took for his arm), makes no check."""
    forward = np.subtract(_arm_at(25).tip_mm, _arm_at(0).tip_mm) / 25.0
    shift = np.array([forward[1], -forward[0]]) * 450.0
    assert LAYOUT.zone_at(*np.add(_arm_at(25).palm_mm, shift)).startswith(f"seat{SEAT + 1}.")
    assert _brief_reach((-150, -60, 25, 25, 25, -60, -150), shift=(float(shift[0]), float(shift[1]))) == []


def _leave_after(gestures: Gestures, depths: list[float], t: float = 10.0) -> tuple[list, float]:
    """The hand at ``depths`` a tenth of a second apart, leaving chips in the bet zone at each release, then
    gone; returns ((frame time, event) for each event, when the hand was last seen)."""
    out = []
    middle = np.asarray(LAYOUT.seat(SEAT).line, float).mean(axis=0)
    for depth in depths:
        out += [(t, e) for e in gestures.arms(t, [_arm_at(depth)]) + gestures.decide(t)]
        if depth > 80:  # a release: its chips come to rest a moment later
            gestures.settled(Found(t=t + 0.1, zone=f"seat{SEAT}.bet", what="chips_in", chips={500: 1},
                                   centre=(float(middle[0]), float(middle[1]))))
        t = round(t + 0.1, 3)
    last = round(t - 0.1, 3)
    while t < last + GAP_S + DECIDE_S + 0.3:
        out += [(t, e) for e in gestures.arms(t, []) + gestures.decide(t)]
        t = round(t + 0.1, 3)
    return out, last


def test_a_bet_in_two_motions_is_decided_when_the_arm_leaves_without_the_settling_wait() -> None:
    gestures = Gestures(LAYOUT, table="T1", hand_in_progress=True)
    out, last = _leave_after(gestures, [-120, 60, 90, -40, -60, 70, 95, -40, -120])
    bets = [(t, e) for t, e in out if isinstance(e, BetMotion)]
    assert [(e.motions, e.chips.value) for _, e in bets] == [(2, 1000)]
    assert bets[0][0] < last + GAP_S + 0.15  # at the frame its episode closes, not DECIDE_S later
    # a single motion still waits for what it moved to settle
    single = Gestures(LAYOUT, table="T1", hand_in_progress=True)
    out, last = _leave_after(single, [-120, 60, 90, -40, -120])
    bets = [(t, e) for t, e in out if isinstance(e, BetMotion)]
    assert [e.motions for _, e in bets] == [1] and bets[0][0] >= last + DECIDE_S


def test_a_push_whose_tip_dips_behind_the_line_for_one_frame_is_one_motion() -> None:
    """The hand's tip read short for one frame mid-push (its fingers lost against a light card, a frame's blur):
    one motion, where a string bet's hand goes back for more chips (the test above: two frames back, 0.4 s)."""
    gestures = Gestures(LAYOUT, table="T1", hand_in_progress=True)
    out, _ = _leave_after(gestures, [-120, 60, 90, -40, 95, 60, -120])
    assert [(e.motions, e.chips.value) for _, e in out if isinstance(e, BetMotion)] == [(1, 1000)]


def _second_hole_card_with_the_hand_at(hand_mm: tuple[float, float], *, after_s: float = 0.35,
                                       shaded: bool = False) -> list:
    """Seat 3 gets a card, seat 1 gets one, then ``after_s`` later a sliver of card lands on seat 3's first card
    while seat 3's hand rests at ``hand_mm``."""
    gestures = Gestures(LAYOUT, table="T1", hand_in_progress=False)
    card = tuple(float(v) for v in LAYOUT.polygon(f"seat{SEAT}.stack").mean(axis=0))
    other = tuple(float(v) for v in LAYOUT.polygon("seat1.stack").mean(axis=0))
    resting = Arm(actor=f"seat{SEAT}", tip_mm=hand_mm, palm_mm=hand_mm, area_mm2=20_000.0)
    out = []
    for t in np.arange(2.5, 4.0, 0.1):
        out += gestures.arms(float(t), [resting])
    out += gestures.settled(Found(t=3.0, zone=f"seat{SEAT}.stack", what="card_in", centre=card))
    out += gestures.settled(Found(t=3.35, zone="seat1.stack", what="card_in", centre=other))
    out += gestures.settled(Found(t=3.35 + after_s, zone=f"seat{SEAT}.stack", what="card_on_card", centre=card,
                                  shaded=shaded))
    return [e.seat for e in out if e.kind == "CardDealt"]


def _resting_by_the_rail() -> tuple[float, float]:
    """Seat 3's hand 300 mm from its cards toward the player: away from them."""
    card = LAYOUT.polygon(f"seat{SEAT}.stack").mean(axis=0)
    player = np.asarray(LAYOUT.seat(SEAT).player, float)
    away = card + (player - card) / np.linalg.norm(player - card) * 300.0
    return float(away[0]), float(away[1])


def test_a_second_hole_card_onto_the_first_counts_unless_the_players_hand_is_at_it() -> None:
    card = LAYOUT.polygon(f"seat{SEAT}.stack").mean(axis=0)
    assert _second_hole_card_with_the_hand_at(_resting_by_the_rail()) == [SEAT, 1, SEAT]
    # the player's own hand on the card: the sliver may be the card moved, not a second one
    assert _second_hole_card_with_the_hand_at((float(card[0]), float(card[1]))) == [SEAT, 1]


def test_a_second_hole_card_settling_late_under_a_passing_shadow_still_counts() -> None:
    """A shadow's edge crossing the card just landed is motion there: it settles 1.2 s after the card before, past
    the deal's pace. Under a passing shadow that is still the deal; under even light the deal has stopped."""
    hand = _resting_by_the_rail()
    assert _second_hole_card_with_the_hand_at(hand, after_s=1.2, shaded=True) == [SEAT, 1, SEAT]
    assert _second_hole_card_with_the_hand_at(hand, after_s=1.2, shaded=False) == [SEAT, 1]


def _hand(palm: tuple[float, float]) -> Arm:
    """Seat 3's hand with its palm at ``palm``, pointing away from the player."""
    player = np.asarray(LAYOUT.seat(SEAT).player, float)
    forward = (np.asarray(palm) - player) / np.linalg.norm(np.asarray(palm) - player)
    tip = np.asarray(palm) + forward * 50.0
    return Arm(actor=f"seat{SEAT}", tip_mm=(float(tip[0]), float(tip[1])), palm_mm=palm, area_mm2=20_000.0)


STACK = tuple(float(v) for v in LAYOUT.polygon(f"seat{SEAT}.stack").mean(axis=0))


def _hand_at_the_stack_then_gone(settles: list[Found], *, at: tuple[float, float] = STACK,
                                 depths: tuple[float, ...] = (), rest_from: float = 20.0) -> list:
    """Seat 3's hand pausing with its palm at ``at`` from ``rest_from`` to 20.8 s (after reaching ``depths``
    beyond its line, if any), back over the rail at 20.9 s and gone; ``settles`` found meanwhile. The events
    decided."""
    gestures = Gestures(LAYOUT, table="T1", hand_in_progress=True)
    out, t = [], rest_from - 0.5
    for depth in depths:
        out += gestures.arms(t, [_arm_at(depth)])
        t = round(t + 0.1, 3)
    t = rest_from
    while t < 20.85:
        out += gestures.arms(t, [_hand(at)])
        t = round(t + 0.1, 3)
    player = np.asarray(LAYOUT.seat(SEAT).player, float)
    rail = player + (np.asarray(at) - player) * 0.2
    out += gestures.arms(t, [_hand((float(rail[0]), float(rail[1])))])
    for found in settles:
        out += gestures.settled(found)
    while t < 23.0:
        out += gestures.arms(t, []) + gestures.decide(t)
        t = round(t + 0.1, 3)
    return out


def _left(events: list) -> list:
    return [e for e in events if e.kind == "ChipsLeftTable"]


def _beside_the_stack(mm: float, *, across: float = 0.0) -> tuple[float, float]:
    """A point ``mm`` beyond seat 3's stack zone, on the side away from the player (on the felt), and ``across``
    to the side."""
    stack = LAYOUT.polygon(f"seat{SEAT}.stack")
    centre, player = stack.mean(axis=0), np.asarray(LAYOUT.seat(SEAT).player, float)
    inward = (centre - player) / np.linalg.norm(centre - player)
    edge = max(float((p - centre) @ inward) for p in stack)  # the zone's far edge along the way in
    at = centre + inward * (edge + mm) + np.array([-inward[1], inward[0]]) * across
    return float(at[0]), float(at[1])


def _chips_out(at: tuple[float, float], chips: dict[int, int] | None = None) -> Found:
    return Found(t=20.6, zone=LAYOUT.zone_at(*at), what="chips_out", chips={1000: 1} if chips is None else chips,
                 centre=at)


def test_chips_a_hand_takes_from_its_stack_with_nothing_put_down_left_the_table_with_it() -> None:
    left = _left(_hand_at_the_stack_then_gone([_chips_out(STACK)]))
    assert [(e.seat, e.zone, e.chips.as_dict(), e.ts) for e in left] == [(SEAT, f"seat{SEAT}.stack", {1000: 1}, 20.9)]
    # a column standing half out of the zone is the stack's; one well away on the felt is not
    edge, away = _beside_the_stack(25.0), _beside_the_stack(120.0)
    assert len(_left(_hand_at_the_stack_then_gone([_chips_out(edge)], at=edge))) == 1
    assert _left(_hand_at_the_stack_then_gone([_chips_out(away)], at=away)) == []
    # a white sliver at the end of a card slid away (a fold) passes for a white chip: the card's, not chips
    trail = [Found(t=20.3 + 0.1 * i, zone=f"seat{SEAT}.stack", what="card_out",
                   centre=(STACK[0] - 75.0 + 25.0 * i, STACK[1])) for i in range(3)]
    assert _left(_hand_at_the_stack_then_gone([*trail, _chips_out(STACK, {1: 1})])) == []
    # a change whose chips can't be read (cards picked up) is no chips
    assert _left(_hand_at_the_stack_then_gone([_chips_out(STACK, {})])) == []


def test_chips_that_come_to_rest_on_the_table_or_stay_in_the_stack_did_not_leave_it() -> None:
    column = _chips_out(STACK)
    bet = tuple(float(v) for v in np.asarray(LAYOUT.seat(SEAT).line, float).mean(axis=0))
    moved = Found(t=20.8, zone=f"seat{SEAT}.bet", what="chips_in", chips={1000: 1}, centre=bet)
    assert _left(_hand_at_the_stack_then_gone([column, moved])) == []
    # chips off the table (the dealer's tray) are no place on the table the stack's chips could have gone
    tray = Found(t=20.8, zone="off_table", what="chips_in", chips={100: 5}, centre=(0.0, 2000.0))
    assert len(_left(_hand_at_the_stack_then_gone([column, tray]))) == 1
    # the hand paused elsewhere in the stack last (putting the column under another): out of sight, not gone
    elsewhere = tuple(float(v) for v in np.asarray(STACK) + (np.asarray(_beside_the_stack(0.0, across=110.0))
                                                              - _beside_the_stack(0.0)))
    assert LAYOUT.zone_at(*elsewhere) == f"seat{SEAT}.stack"
    assert _left(_hand_at_the_stack_then_gone([column], at=elsewhere)) == []
    # a hand that rested there so long the scene's reference took it in: what changes as it goes is its imprint
    assert _left(_hand_at_the_stack_then_gone([column], rest_from=20.8 - GHOST_S)) == []
    assert len(_left(_hand_at_the_stack_then_gone([column], rest_from=21.0 - GHOST_S))) == 1
    # a bet whose chips did not show in the bet zone: the stack's chips went out as the bet
    events = _hand_at_the_stack_then_gone([column], depths=(-120, 60, 90, 60, -120))
    assert [e.kind for e in events if e.kind in ("BetMotion", "ChipsLeftTable")] == ["BetMotion"]


def _settle(t: float, zone: str, what: str) -> Found:
    centre = LAYOUT.polygon(zone).mean(axis=0)
    return Found(t=t, zone=zone, what=what, centre=(float(centre[0]), float(centre[1])))


def test_a_hand_whose_last_cards_are_mucked_is_over_and_the_next_deal_is_seen() -> None:
    """Seat 3's cards taken by the dealer, then seat 4 the last to muck: no card is left out, so the hand is over
    though no push was seen; the next deal's cards are cards dealt (not a third and fourth for seats holding two)
    and its blinds are blinds."""
    gestures = Gestures(LAYOUT, table="T1", hand_in_progress=False)
    for t, seat in ((1.0, 3), (1.4, 4), (1.8, 3), (2.2, 4)):
        gestures.settled(_settle(t, f"seat{seat}.stack", "card_in"))
    gestures.settled(_settle(3.0, "seat3.stack", "card_out"))
    assert gestures.hand_open
    assert [e.kind for e in gestures.settled(_settle(4.0, "seat4.bet", "card_in"))] == ["CardsMucked"]
    assert not gestures.hand_open
    out = _bet_then_rest(gestures, rest_s=SETTLED_BET_S + 0.5)  # the next hand's blind
    assert [e.kind for e in out if e.kind in ("BetMotion", "ChipsMoved")] == ["ChipsMoved"]
    dealt = gestures.settled(_settle(30.0, "seat3.stack", "card_in"))
    assert [(e.kind, e.seat) for e in dealt] == [("CardDealt", 3)]


def test_a_burn_card_taken_for_chips_on_the_burn_pile_is_a_burn() -> None:
    """Only cards go to the burn pile: a back whose colours read as chips there is a card, and a second burn half a
    second later is a second burn (a double burn, TDA-25), not the same one."""
    gestures = Gestures(LAYOUT, table="T1", hand_in_progress=True)
    pile = tuple(float(v) for v in LAYOUT.polygon("burn").mean(axis=0))
    first = gestures.settled(Found(t=20.0, zone="burn", what="chips_in", chips={500: 1}, centre=pile))
    second = gestures.settled(Found(t=20.45, zone="burn", what="card_in", centre=pile))
    assert [e.kind for e in first + second] == ["CardBurned", "CardBurned"]


def _episode(gestures: Gestures, t: float, settles: list[Found]) -> list:
    """Seat 3's hand over its line and back, what it moved settling meanwhile; the events once decided."""
    out = []
    for depth in (-120, 60, 90, 60, -120):
        out += gestures.arms(t, [_arm_at(depth)]) + gestures.decide(t)
        t = round(t + 0.1, 3)
    for found in settles:
        out += gestures.settled(found)
    for _ in range(round((GAP_S + DECIDE_S + 0.3) / 0.1)):
        out += gestures.arms(t, []) + gestures.decide(t)
        t = round(t + 0.1, 3)
    return out


def test_a_push_that_uncovers_felt_where_the_cards_lay_is_a_bet_and_the_cards_are_tabled_later() -> None:
    """A large push moves chips into the bet zone and leaves felt where the cards' edge lay (read as a card
    gone): a bet, not a fold. The player still holds his cards, and tables them at the showdown."""
    gestures = Gestures(LAYOUT, table="T1", hand_in_progress=True)
    bet, stack = f"seat{SEAT}.bet", f"seat{SEAT}.stack"
    pushed = _episode(gestures, 10.0, [_settle(10.35, stack, "card_out"), _settle(10.35, stack, "chips_out"),
                                      replace(_settle(10.45, bet, "chips_in"), chips={500: 12})])
    assert [e.kind for e in pushed if e.kind in ("BetMotion", "CardsMucked")] == ["BetMotion"]

    tabled = _episode(gestures, 20.0, [_settle(20.35, stack, "card_out"), *_side_by_side(20.45, ("Kd", "Kc"))])
    assert [(e.kind, e.cards) for e in tabled if e.kind in ("CardsTabled", "CardsMucked")] == \
        [("CardsTabled", ("Kd", "Kc"))]


def test_tabled_cards_settling_again_where_they_were_read_are_not_another_card() -> None:
    """A hand tabled is read card by card; part of it settles again a moment later (a card straightened) and is
    read weakly as another face: the same place, the same card, not a third one."""
    gestures = Gestures(LAYOUT, table="T1", hand_in_progress=True)
    kd, kc = _side_by_side(20.45, ("Kd", "Kc"))
    again = replace(kd, t=20.6, card="Qd", centre=(kd.centre[0] + 6.0, kd.centre[1] + 25.0))
    tabled = _episode(gestures, 20.0, [_settle(20.35, f"seat{SEAT}.stack", "card_out"), kd, kc, again])
    assert [(e.kind, e.cards) for e in tabled if e.kind in ("CardsTabled", "CardsMucked")] == \
        [("CardsTabled", ("Kd", "Kc"))]


def _side_by_side(t: float, cards: tuple[str, ...]) -> list[Found]:
    """Face-up cards settled in seat 3's betting zone, a card's width apart."""
    middle = _settle(t, f"seat{SEAT}.bet", "card_in")
    return [replace(middle, face_up=True, card=card, centre=(middle.centre[0] + 65.0 * i, middle.centre[1]))
            for i, card in enumerate(cards)]

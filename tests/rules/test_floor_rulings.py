"""Floor rulings the engine carries out on a live hand: the dealer skips a player (EX-101), a call made
having missed a raise (EX-17), a pot-limit pot bet counted too low (EX-71)."""

from __future__ import annotations

from tablewatch.rules.game import GameConfig, Variant
from tablewatch.rules.profiles import RuleProfile, preset
from tests.rules.engine_helpers import Hand

NL_100_200 = GameConfig(small_blind=100, big_blind=200)


def flop_with_seat_4_first(profile: RuleProfile | None = None) -> Hand:
    """Six seats, the button on 3: seat 4 is first to act on the flop."""
    hand = Hand(NL_100_200, dict.fromkeys(range(1, 7), 10_000), button=3, profile=profile)
    for seat in (6, 1, 2, 3, 4, 5):
        hand.act(seat, "cc")
    hand.board("2c", "7d", "9h")
    assert hand.engine.to_act() == 4
    return hand


def test_ex_101_dealer_skips_a_player_house_rule_he_checks() -> None:
    hand = flop_with_seat_4_first(preset("house-cash"))
    hand.tap(5)  # the dealer skipped seat 4; seats 5 and 6 check
    found = hand.tap(6)
    assert [(v.rule_id, v.title) for v in found][-1] == ("HOUSE-002-2.8.12", "Skipped player lost his turn")
    assert [(a.seat, a.kind) for a in hand.engine.hand.actions[-3:]] == [(4, "cc"), (5, "cc"), (6, "cc")]
    assert hand.engine.to_act() == 1


def test_ex_101_house_rule_with_a_bet_the_floor_decides() -> None:
    hand = flop_with_seat_4_first(preset("house-cash"))
    hand.chips(5, {100: 6})  # seat 5 bets 600 while seat 4 was skipped
    found = hand.chips(6, {100: 6})
    assert ("HOUSE-002-2.8.12", "Skipped player silent through two actions") in [(v.rule_id, v.title) for v in found]
    assert hand.engine.to_act() == 4  # nothing is assumed for him: the floor rules


def test_ex_101_under_the_tda_the_skipped_player_keeps_his_turn() -> None:
    hand = flop_with_seat_4_first()
    hand.tap(5)
    found = hand.tap(6)
    assert [v.rule_id for v in found] == ["TDA-39"]  # two checks are not substantial action (ENG-18)
    assert hand.engine.to_act() == 4
    hand.tap(4)  # he checks; the out-of-turn checks stand
    assert hand.engine.to_act() == 1


# --- EX-17: a call made having missed a raise (TDA-35) -------------------------------------------------------

NL_1000_2000 = GameConfig(small_blind=1000, big_blind=2000)


def missed_raise(profile: RuleProfile | None = None) -> tuple[Hand, list[object]]:
    """A (seat 3) raises to 10,000; B (seat 4) says "call" and puts out 2000, having missed the raise."""
    hand = Hand(NL_1000_2000, dict.fromkeys(range(1, 5), 100_000), button=4, profile=profile)
    hand.act(3, "cbr 10000")
    hand.say(4, "call")
    found = hand.chips(4, {1000: 2})
    return hand, found


def test_ex_17_club_rule_a_call_after_a_missed_raise_may_become_a_fold() -> None:
    hand, found = missed_raise(preset("club-001"))
    assert found[0].rule_id == "TDA-27A" and "may take the call back and fold, not raise" in found[0].ruling
    assert hand.bets()[4] == 10_000 and hand.engine.to_act() == 1
    taken_back = hand.act(4, "f")
    assert [(v.rule_id, v.title) for v in taken_back] == [("TDA-35", "Call taken back after a missed raise")]
    assert hand.bets()[4] == 0 and hand.engine.snapshot().active == (1, 2, 3)
    assert [(a.seat, a.kind) for a in hand.engine.hand.actions] == [(3, "cbr"), (4, "f")]
    assert hand.engine.to_act() == 1 and hand.view(1).to_call == 9000


def test_ex_17_club_rule_he_may_not_raise() -> None:
    hand, _ = missed_raise(preset("club-001"))
    found = hand.say(4, "raise", 30_000)
    assert found[0].title == "Call stands after a missed raise" and "not raise" in found[0].ruling
    assert hand.bets()[4] == 10_000 and hand.engine.to_act() == 1


def test_ex_17_club_rule_only_until_the_next_player_acts() -> None:
    hand, _ = missed_raise(preset("club-001"))
    hand.act(1, "f")
    hand.act(4, "f")  # too late: seat 1 has acted since; the call stands (his fold now is out of turn)
    assert hand.bets()[4] == 10_000 and 4 in hand.engine.snapshot().active


def test_ex_17_tda_accepted_action_the_call_stands() -> None:
    hand, found = missed_raise()
    assert "accepted action: the call stands" in found[0].ruling
    refused = hand.act(4, "f")
    assert [(v.rule_id, v.title) for v in refused] == [("TDA-35", "Call stands after a missed raise")]
    assert "8000 more" in refused[0].ruling
    assert hand.chips(4, {1000: 8}) == []  # the rest of the call comes: no finding
    assert hand.bets()[4] == 10_000 and hand.engine.to_act() == 1


# --- EX-71/72: a pot-limit pot bet counted too low (TDA-38B) -------------------------------------------------

PLO_500_1000 = GameConfig(variant=Variant.PLO, small_blind=500, big_blind=1000)


def underpot_flop() -> Hand:
    """PLO 500-1000, three players, 10,500 in the pot on the flop; A (seat 1) says "pot" and, told 9,500 by
    the dealer, puts out 9,500."""
    hand = Hand(PLO_500_1000, dict.fromkeys((1, 2, 3), 100_000), button=3)
    hand.act(3, "cbr 3500")
    hand.act(1, "cc")
    hand.act(2, "cc")
    hand.board("2c", "7d", "9h")
    assert hand.view(1).max_raise_to == 10_500
    hand.say(1, "pot")
    found = hand.chips(1, {5000: 1, 1000: 4, 500: 1})
    assert [v.rule_id for v in found] == ["TDA-38B"] and hand.bets()[1] == 10_500
    return hand


def test_ex_71_pot_under_counted_then_substantial_action_the_bet_stands() -> None:
    hand = underpot_flop()
    hand.act(2, "f")  # B folds
    found = hand.chips(3, {5000: 1, 1000: 4, 500: 1})  # C calls the 9,500 he was told
    assert [(v.rule_id, v.title) for v in found] == [("TDA-38B", "Short pot bet stands")]
    assert [(a.seat, a.kind, a.amount) for a in hand.engine.hand.actions[-3:]] == [(1, "cbr", 9500), (2, "f", None),
                                                                               (3, "cc", None)]
    assert hand.engine.hand.state.total_pot_amount == 10_500 + 2 * 9500  # the round is over: 9,500 each


def test_ex_72_pot_under_counted_made_up_before_substantial_action() -> None:
    hand = underpot_flop()
    hand.act(2, "f")  # no substantial action yet
    found = hand.chips(1, {1000: 1})  # the floor: A must make it 10,500
    assert [(v.rule_id, v.title) for v in found] == [("TDA-38B", "Pot bet made up")]
    assert hand.bets()[1] == 10_500
    assert hand.chips(3, {5000: 2, 500: 1}) == []  # C calls the full 10,500
    assert hand.engine.hand.state.total_pot_amount == 10_500 + 2 * 10_500

"""Tournament flow in the rules layer: the chip race (TDA-15/TDA22-24, ENG-27) and hand-for-hand play
(TDA22-RP-8, ENG-32; catalogue EX-79, EX-80, EX-81)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from tablewatch.events import Chips
from tablewatch.rules.chiprace import card_key, check_chip_race, chip_race
from tablewatch.rules.handforhand import HandForHand, share_bubble_prizes

# --- the chip race: 25 chips come out of play, 100 chips are the next denomination ---------------------------

STACKS = {
    1: Chips.of({25: 3, 100: 10}),  # 75 left over
    2: Chips.of({25: 6, 500: 2}),  # 150: one 100 of its own, 50 left over
    3: Chips.of({25: 2, 100: 4}),  # 50 left over
    4: Chips.of({100: 30}),  # no 25s: not in the race
    5: Chips.of({25: 1}),  # his whole stack is one 25 chip
}
CARDS = {1: ["Kd"], 2: ["As"], 3: ["Ah"], 5: ["2c"]}


def race(cards: dict[int, list[str]] = CARDS, stacks: dict[int, Chips] = STACKS):  # type: ignore[no-untyped-def]
    return chip_race(stacks, removed=25, next_denomination=100, cards=cards)


def test_own_chips_are_exchanged_first_then_leftovers_raced() -> None:
    result = race()
    assert {s: r.exchanged for s, r in result.results.items()} == {1: 0, 2: 1, 3: 0, 4: 0, 5: 0}
    assert {s: r.leftover for s, r in result.results.items()} == {1: 75, 2: 50, 3: 50, 4: 0, 5: 25}
    # 200 in leftovers: two 100 chips raced; the highest cards (As, then Ah) win one each
    assert result.race_chips == 2 and result.lost_value == 0
    assert {s for s, r in result.results.items() if r.won} == {2, 3}
    assert result.results[2].after == Chips.of({100: 2, 500: 2})
    assert result.results[3].after == Chips.of({100: 5})
    assert result.results[1].after == Chips.of({100: 10})


def test_one_chip_at_most_per_player() -> None:
    result = race(cards={1: ["Kd", "Ks", "Kh"], 2: ["2s"], 3: ["3h"], 5: ["2c"]})  # seat 1 holds the best cards
    assert [s for s, r in result.results.items() if r.won] == [1, 3]  # seat 1 wins one chip; the next best a second


def test_a_player_cannot_be_raced_out() -> None:
    result = race()
    five = result.results[5]
    assert not five.won and five.rescued and five.after == Chips.of({100: 1})  # one chip of the smallest in play
    smaller = chip_race(STACKS, removed=25, next_denomination=100, cards=CARDS, smallest_in_play=50)
    assert smaller.results[5].after == Chips.of({50: 1})


def test_leftover_that_makes_no_whole_chip_is_removed() -> None:
    stacks = {1: Chips.of({25: 1, 100: 5}), 2: Chips.of({25: 2, 100: 5})}  # 75 in leftovers: no whole chip
    result = chip_race(stacks, removed=25, next_denomination=100, cards={})
    assert result.race_chips == 0 and result.lost_value == 75
    assert all(r.after == Chips.of({100: 5}) for r in result.results.values())


def test_highest_card_by_rank_then_suit() -> None:
    assert card_key("As") > card_key("Ah") > card_key("Ks") > card_key("2s")
    assert card_key("Ac", suit_order="cdhs") > card_key("As", suit_order="cdhs")
    with pytest.raises(ValueError, match="not a card"):
        card_key("1x")


def test_bad_race_inputs_are_clear_errors() -> None:
    with pytest.raises(ValueError, match="Seats \\[5\\]"):
        race(cards={1: ["Kd"], 2: ["As"], 3: ["Ah"]})
    with pytest.raises(ValueError, match="dealt to seats 2 and 3"):
        race(cards={1: ["Kd"], 2: ["As"], 3: ["As"], 5: ["2c"]})
    with pytest.raises(ValueError, match="larger multiple"):
        chip_race(STACKS, removed=25, next_denomination=60, cards=CARDS)


def test_check_chip_race_accepts_the_rule_and_flags_the_errors() -> None:
    right = {s: r.after for s, r in race().results.items()}
    assert check_chip_race(STACKS, right, removed=25, next_denomination=100, deal_order=[1, 2, 3, 5]) == []
    wrong = dict(right)
    wrong[1] = Chips.of({100: 11})  # seat 1 also got a race chip: three given for 200 of leftovers
    wrong[5] = Chips()  # raced out
    wrong[4] = Chips.of({100: 30, 25: 1})  # a 25 chip still in play
    found = check_chip_race(STACKS, wrong, removed=25, next_denomination=100, deal_order=[3, 2, 1, 5])
    titles = [f.title for f in found]
    assert "Chip race not dealt from seat 1" in titles and "Player raced out" in titles
    assert "Removed chips still in play" in titles and "Too many chips raced off" in titles
    two = dict(right)
    two[2] = Chips.of({100: 3, 500: 2})  # two race chips to one player
    (found_two,) = check_chip_race(STACKS, two, removed=25, next_denomination=100)
    assert found_two.title == "Stack value wrong after the colour-up" and "+50" in found_two.ruling
    assert all(f.rule_id == "TDA-15" for f in found)


# --- hand-for-hand ------------------------------------------------------------------------------------------


def test_ex_79_three_bust_on_the_bubble_share_50th_place() -> None:
    prizes = [10_000 - 100 * k for k in range(50)]  # places 1..50 paid
    shares = share_bubble_prizes(52, ["ann", "bob", "cy"], prizes)
    assert shares == dict.fromkeys(["ann", "bob", "cy"], Fraction(prizes[49], 3))
    two = share_bubble_prizes(51, ["ann", "bob"], prizes)  # places 50 and 51: 50th's prize, shared by two
    assert two["ann"] == Fraction(prizes[49], 2)
    inside = share_bubble_prizes(50, ["ann", "bob"], prizes)  # places 49 and 50 pooled
    assert inside["bob"] == Fraction(prizes[48] + prizes[49], 2)
    with pytest.raises(ValueError, match="only once"):
        share_bubble_prizes(52, ["ann", "ann"], prizes)


def h4h(remaining_min: float = 17.5) -> HandForHand:
    return HandForHand.announce(["T1", "T2", "T3"], level_remaining_s=remaining_min * 60, level_length_s=20 * 60)


def finish_hand(play: HandForHand, tables: tuple[str, ...] = ("T1", "T2", "T3")) -> None:
    for table in tables:
        play.hand_ended(table)


def start_hand(play: HandForHand, tables: tuple[str, ...] = ("T1", "T2", "T3")) -> list[object]:
    found: list[object] = []
    for table in tables:
        found += play.hand_started(table)
    return found


def test_ex_80_two_minutes_per_hand_from_the_current_hand() -> None:
    play = h4h(17.5)
    finish_hand(play)  # the hand being finished at the announcement counts
    assert play.hand == 1 and play.level_remaining_s == 15.5 * 60
    assert start_hand(play) == []
    finish_hand(play)
    assert play.level_remaining_s == 13.5 * 60


def test_ex_80_the_blinds_go_up_when_the_level_runs_out() -> None:
    play = h4h(3.0)
    finish_hand(play)
    assert (play.level, play.level_remaining_s) == (1, 60.0)
    start_hand(play)
    finish_hand(play)
    assert (play.level, play.level_remaining_s) == (2, 19 * 60)  # 1 minute over: counted into the new level


def test_every_table_starts_each_hand_together() -> None:
    play = h4h()
    play.hand_ended("T1")
    found = play.hand_started("T1")  # T2 and T3 still play the current hand
    assert [f.title for f in found] == ["Hand-for-hand table started early"] and "T2" in found[0].observed
    assert play.waiting_for == {"T2", "T3"}
    finish_hand(play, ("T2", "T3"))
    assert play.hand == 1 and play.waiting_for == {"T1"}  # T1's early hand is this hand
    assert start_hand(play, ("T2", "T3")) == []
    finish_hand(play)
    assert play.hand == 2


def test_a_clock_tick_needs_every_table_and_a_broken_table_is_not_waited_for() -> None:
    play = h4h()
    finish_hand(play, ("T1", "T2"))
    assert play.hand == 0 and play.waiting_for == {"T3"}
    play.table_broken("T3")
    assert play.hand == 1
    with pytest.raises(ValueError, match="not playing hand-for-hand"):
        play.hand_started("T3")


def test_ex_81_all_in_and_call_cards_stay_face_down_until_the_floor_says() -> None:
    play = h4h()
    finish_hand(play)
    start_hand(play)
    play.all_in_called("T2")
    found = play.exposed("T2", "seat 4 tabled his cards")
    assert [f.rule_id for f in found] == ["TDA22-RP-8f"] and "face down" in found[0].ruling
    assert play.exposed("T1", "seat 1 tabled his cards") == []  # no all-in held there
    play.play_on("T2")
    assert play.exposed("T2", "the turn") == []

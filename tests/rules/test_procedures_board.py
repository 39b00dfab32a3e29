"""Burns, the flop and premature board cards: TDA-25, TDA-26A/B, TDA-57 / RP-5, TDA-18 (catalogue §1.3;
EX-23, EX-38, EX-39, EX-105…EX-112)."""

from __future__ import annotations

import pytest

from tablewatch.events import BoardCardDealt, Party, Severity
from tablewatch.rules.checks.burns import BurnCheck
from tablewatch.rules.checks.premature import STUD_RULINGS, PrematureBoardCheck, stud_burns_after_premature
from tablewatch.rules.profiles import RuleProfile, preset
from tests.rules.test_procedures_helpers import Script, ids


def dealt_hand(checks: object = None, *, profile: RuleProfile | None = None, all_in: bool = False) -> Script:
    """Hand 1 dealt at 3 seats; preflop betting complete (everyone all-in when ``all_in``)."""
    profile = profile or RuleProfile()
    chosen = checks if checks is not None else [BurnCheck(profile), PrematureBoardCheck(profile)]
    s = Script(chosen)  # type: ignore[arg-type]
    s.start()
    s.deal()
    s.preflop(to_act=2)
    s.check(2)
    s.complete()
    if all_in:
        s.set(all_in=(1, 2, 3), stacks={1: 0, 2: 0, 3: 0})
    return s


def play(s: Script, ops: str) -> None:
    """B burn, F flop (3 cards), T turn, R river, X a 4th card with the flop, a: one check and the round ends."""
    for op in ops.split():
        if op == "B":
            s.burn()
        elif op in "FTR":
            s.board(*{"F": (0, 1, 2), "T": (3,), "R": (4,)}[op])
            if not s.snapshot.all_in:
                s.street({"F": "flop", "T": "turn", "R": "river"}[op], to_act=2)
        elif op == "X":
            s.board(3)
        elif op == "a":
            s.check(2)
            s.complete()
        else:
            raise ValueError(op)


@pytest.mark.parametrize(
    ("ops", "expected"),
    [
        ("B F a B T a B R a", []),
        ("F a B T a B R a", ["TDA-26B", "TDA-26B"]),  # no burn, then the flop stands once a player acts
        ("B B F a B T a B R a", ["TDA-25"]),
        ("B F a T a B R a", ["TDA-25"]),
        ("B F a B B T a B R a", ["TDA-25"]),
        ("B F a B T a R a", ["TDA-25"]),
        ("B F a B T a B B R a", ["TDA-25"]),
        ("B F X", ["TDA-26A"]),
    ],
)
def test_tda_25_26_burn_counts(ops: str, expected: list[str]) -> None:
    s = dealt_hand()
    play(s, ops)
    assert ids(s.found) == expected


@pytest.mark.parametrize(
    ("ops", "expected"),
    [("B F B T B R", []), ("F B T B R", ["TDA-26B"]), ("B F B B T B R", ["TDA-25"]), ("B F B T R", ["TDA-25"])],
)
def test_tda_25_burns_in_an_all_in_run_out(ops: str, expected: list[str]) -> None:
    s = dealt_hand(all_in=True)
    play(s, ops)
    assert ids(s.found) == expected


@pytest.mark.parametrize(("pause", "expected"), [(10.0, "TDA-25"), (0.0, "TDA-26A")])
def test_run_out_card_without_burn_after_the_flop_by_time(pause: float, expected: str) -> None:
    """In a run-out nobody acts on the flop: a 4th card at once is a four-card flop, later a turn with no burn."""
    s = dealt_hand(all_in=True)
    play(s, "B F")
    s.ts += pause
    s.board(3)
    assert ids(s.found) == [expected]


def test_missing_and_double_burn_rulings_cite_the_rule() -> None:
    s = dealt_hand()
    play(s, "B F a T")
    (missing,) = s.found
    assert missing.severity is Severity.VIOLATION and "exactly one card" in missing.ruling
    assert missing.street == "flop" and missing.hand_no == 1
    assert missing.by is Party.DEALER  # the room's statistics count it against the dealer


def test_ex_38_no_double_burn_to_restore_the_original_flop() -> None:
    # EX-38: seat 5 short a card after substantial action; the dealer must burn ONE and deal three.
    s = dealt_hand()
    play(s, "B B F")
    (v,) = s.found
    assert v.rule_id == "TDA-25" and "must not burn two" in v.ruling
    clean = dealt_hand()
    play(clean, "B F a B T a B R a")
    assert clean.found == []


def test_ex_39_a_players_extra_card_is_not_the_burn() -> None:
    # EX-39: seat 2 dealt three cards after substantial action; the dealer may not use it as the burn.
    s = dealt_hand()
    s.preflop(to_act=3)
    s.bet(3, 100)
    s.set(to_act=1)
    s.bet(1, 100)
    s.complete()
    s.burn(seat=2)
    assert ids(s.found) == ["TDA-25"] and "Player's card used as the burn" in s.found[0].title


def test_ex_110_four_card_flop_floor_picks_the_burn() -> None:
    s = dealt_hand()
    play(s, "B F X")
    (v,) = s.found
    assert v.rule_id == "TDA-26A" and "floor picks one" in v.ruling and "scrambles the 4 cards face down" in v.ruling
    s.burn()  # the floor's pick goes to the burn pile; the other three are the flop
    play(s, "a B T a B R a")
    assert ids(s.found) == ["TDA-26A"]  # nothing more: the repair burn is not a double burn


def test_tda_26a_action_on_a_four_card_flop_before_the_repair() -> None:
    s = dealt_hand()
    play(s, "B F X a")
    assert ids(s.found) == ["TDA-26A", "TDA-26A"] and s.found[1].title == "Four-card flop played"


def test_ex_111_flop_without_burn_no_action_yet_is_repaired() -> None:
    s = dealt_hand()
    play(s, "F")
    (v,) = s.found
    assert v.rule_id == "TDA-26B" and "choose one as the burn" in v.ruling and "next card from the stub" in v.ruling
    s.burn()  # one of the 3 becomes the burn ...
    s.board(2)  # ... and the next card from the stub completes the flop
    play(s, "a B T a B R a")
    assert ids(s.found) == ["TDA-26B"]  # one burn per round after that: all clean


def test_ex_112_flop_without_burn_after_a_check_stands() -> None:
    s = dealt_hand()
    play(s, "F a")
    assert ids(s.found) == ["TDA-26B", "TDA-26B"]
    stands = s.found[1]
    assert stands.severity is Severity.ADVISORY and "original 3 cards" in stands.ruling
    play(s, "B T a B B R a")  # the turn and river each get exactly one burn: two is a double burn
    assert ids(s.found)[2:] == ["TDA-25"]


def early(profile: RuleProfile | None = None) -> Script:
    """Preflop betting not finished: seat 3 still to act."""
    profile = profile or RuleProfile()
    s = Script([BurnCheck(profile), PrematureBoardCheck(profile)])
    s.start()
    s.deal()
    s.preflop(to_act=2)
    s.check(2)
    s.set(to_act=3)
    return s


def test_ex_105_premature_flop_redealt_without_a_burn() -> None:
    s = early()
    s.burn()
    s.board(0, 1, 2, cards=["Ah", "Kd", "7c"])
    (v,) = s.found
    assert v.rule_id == "TDA-57" and v.title == "Premature flop" and "Ah" in v.observed
    assert "shuffle the early flop cards back into the stub" in v.ruling and "without a burn" in v.ruling
    s.check(3)  # the preflop betting is finished
    s.complete()
    s.board(0, 1, 2)  # the new flop, no new burn: the burn stayed
    play(s, "a B T a B R a")
    assert ids(s.found) == ["TDA-57"]


def test_ex_105_a_new_burn_before_the_redealt_flop_is_wrong() -> None:
    s = early()
    s.burn()
    s.board(0, 1, 2)
    s.check(3)
    s.complete()
    s.burn()
    s.board(0, 1, 2)
    assert ids(s.found) == ["TDA-57", "TDA-57"] and s.found[1].title == "Burn on the redealt flop"


def flop_betting_open(profile: RuleProfile | None = None) -> Script:
    s = early(profile)
    s.check(3)
    s.complete()
    play(s, "B F")
    s.check(2)
    s.set(to_act=3)  # seat 3 has not acted on the flop yet
    return s


def test_ex_106_premature_turn_2022_back_on_the_stub_no_new_burn() -> None:
    s = flop_betting_open()
    s.burn()
    s.board(3, cards=["9s"])
    (v,) = s.found
    assert v.title == "Premature turn" and "back on the stub" in v.ruling and "turn without a burn" in v.ruling
    s.check(3)
    s.complete()
    play(s, "T a B R a")  # turn redealt without a burn, river with one
    assert ids(s.found) == ["TDA-57"]


def test_ex_107_premature_turn_2017_set_aside_burn_and_river_without_burn() -> None:
    s = flop_betting_open(preset("tda-2017"))
    s.burn()
    s.board(3, cards=["9s"])
    (v,) = s.found
    assert "Set the early card aside face up" in v.ruling and "river without a burn" in v.ruling
    s.check(3)
    s.complete()
    play(s, "B T a R a")  # burn and deal the next card as the turn; the river comes with no burn
    assert ids(s.found) == ["TDA-57"]


@pytest.mark.parametrize(
    ("variant", "redeal", "expected"),
    [
        ("tda2022", "T a B R a", []),
        ("tda2022", "B T a B R a", ["TDA-57"]),  # 2022: a burn on the redealt turn is one too many
        ("tda2017", "B T a R a", []),
        ("tda2017", "T a R a", ["TDA-57"]),  # 2017: the turn after a premature card is burned
        ("tda2017", "B T a B R a", ["TDA-57"]),  # 2017: ... and the river is not
    ],
)
def test_c2_premature_turn_variant_changes_the_expected_burns(variant: str, redeal: str, expected: list[str]) -> None:
    s = flop_betting_open(RuleProfile(premature_turn_variant=variant))  # type: ignore[arg-type]
    s.burn()
    s.board(3)
    s.check(3)
    s.complete()
    s.found.clear()
    play(s, redeal)
    assert ids(s.found) == expected


def test_ex_108_premature_river_redealt_without_burn() -> None:
    s = flop_betting_open()
    s.check(3)
    s.complete()
    play(s, "B T")
    s.check(2)
    s.set(to_act=3)
    s.burn()
    s.board(4, cards=["2d"])
    (v,) = s.found
    assert v.title == "Premature river" and "put the early river back" in v.ruling
    s.check(3)
    s.complete()
    play(s, "R a")
    assert ids(s.found) == ["TDA-57"]


def test_board_in_time_is_silent_and_later_flop_cards_are_not_premature() -> None:
    s = dealt_hand()
    s.burn()
    s.board(0)
    s.street("flop", to_act=2)  # an engine that opens the flop on its first card
    s.board(1, 2)
    assert s.found == []


def test_tda_18_no_rabbit_hunting() -> None:
    s = dealt_hand()
    s.set(phase="complete", to_act=None)
    s.board(0, 1, 2)
    assert ids(s.found) == ["TDA-18"] * 3 and s.found[0].severity is Severity.ADVISORY


def test_board_cards_placed_face_down_count_when_turned() -> None:
    s = dealt_hand()
    s.burn()
    for slot in (0, 1, 2):
        s.do(BoardCardDealt, slot=slot, card=None, face_up=False)
    s.board(0, 1, 2, cards=["Ah", "Kd", "7c"])  # turned up
    s.street("flop", to_act=2)
    play(s, "a B T a B R a")
    assert s.found == []


def test_tda_26a_a_fourth_flop_card_counts_face_down() -> None:
    s = dealt_hand()
    play(s, "B F")
    s.do(BoardCardDealt, slot=3, card=None, face_up=False)
    assert ids(s.found) == ["TDA-26A"]


@pytest.mark.parametrize(
    ("variant", "street", "burns"),
    [
        ("tda2022", 5, {5: False, 6: True, 7: True}),  # redeal 5th without a burn, then as normal
        ("tda2017", 5, {5: True, 6: True, 7: False}),  # burn and deal the next card as 5th; 7th with no burn
        ("tda2022", 7, {7: False}),
        ("tda2017", 7, {7: False}),
    ],
)
def test_ex_109_premature_stud_card_procedure(variant: str, street: int, burns: dict[int, bool]) -> None:
    assert stud_burns_after_premature(street, variant) == burns
    ruling = STUD_RULINGS[variant]
    if variant == "tda2022":
        assert "reshuffle the stub" in ruling and "without a burn" in ruling
    else:
        assert "set it aside" in ruling and "burn and deal the next street" in ruling
    with pytest.raises(ValueError, match="street 3"):
        stud_burns_after_premature(3, variant)

"""TDA chip reading (tablewatch.rules.chipreading): the worked examples of catalogue §3, one test each."""

from __future__ import annotations

from tablewatch.events import Chips, Severity
from tablewatch.rules.chipreading import (
    BetContext,
    Declared,
    PhysicalBet,
    interpret_spoken_number,
    read_amount,
    read_bet,
    read_declaration,
    read_seen_from_above,
)


def ctx(cur: int, *, bet: int = 0, stack: int = 100_000, inc: int | None = None, **kw: object) -> BetContext:
    """What a seat faces: ``cur`` to match, ``inc`` the last full increment (default: cur, an opening bet)."""
    inc = inc if inc is not None else max(cur, kw.pop("bb", 0) or 1)  # type: ignore[arg-type]
    fields = {"min_raise_to": min(cur + inc, bet + stack), "max_raise_to": bet + stack, "opening": True}
    fields.update(kw)
    return BetContext(cur=cur, bet=bet, stack=stack, inc=inc, **fields)  # type: ignore[arg-type]


def chips(**counts: int) -> Chips:
    """chips(c500=1, c1000=2) → one 500 and two 1000s."""
    return Chips.of({int(k[1:]): v for k, v in counts.items()})


def silent(context: BetContext, new: Chips, **kw: object) -> object:
    return read_bet(context, PhysicalBet(chips=new, chips_ts=10.0, **kw))  # type: ignore[arg-type]


def rules_of(reading: object) -> set[str]:
    return {f.rule_id for f in reading.findings}  # type: ignore[attr-defined]


def test_ex_9_verbal_amount_equals_silent_chips() -> None:
    c = ctx(100, inc=100)
    said = read_amount(c, 200)
    placed = silent(c, chips(c100=2))
    assert (said.action, said.to) == (placed.action, placed.to) == ("raise", 200)


def test_ex_10_grossly_undersized_silent_chip() -> None:
    reading = silent(ctx(50_000, inc=50_000, heads_up=True), chips(c1000=1))
    assert reading.action == "call" and reading.to == 50_000 and reading.owed == 49_000
    finding = reading.findings[0]
    assert finding.rule_id == "TDA-28" and "TD decides" in finding.ruling and finding.severity == Severity.VIOLATION


def test_ex_11_fourteen_hundred_against_1000_is_a_call() -> None:
    c = ctx(1000, inc=1000)
    assert read_amount(c, 1400).action == "call"
    assert silent(c, chips(c1000=1, c100=4)).to == 1000
    raised = read_bet(c, PhysicalBet(declaration=Declared(word="raise", amount=1400, ts=1.0), chips_ts=2.0))
    assert (raised.action, raised.to) == ("raise", 2000)


def test_ex_12_raise_eight_thousand_is_a_total() -> None:
    reading = read_declaration(ctx(2000, inc=2000), Declared(word="raise", amount=8000))
    assert (reading.action, reading.to) == ("raise", 8000)


def test_ex_13_two_chips_smallest_chip_test_call_with_change() -> None:
    reading = silent(ctx(1100, inc=700), chips(c500=1, c1000=1))
    assert (reading.action, reading.to, reading.change) == ("call", 1100, 400)


def test_ex_14_last_two_chips_still_a_call() -> None:
    reading = silent(ctx(1050, inc=1050, stack=2000), chips(c1000=2))
    assert (reading.action, reading.to, reading.change) == ("call", 1050, 950)
    allin = read_bet(ctx(1050, inc=1050, stack=2000),
                     PhysicalBet(chips=chips(c1000=2), chips_ts=2.0, declaration=Declared(word="all-in", ts=1.0)))
    assert (allin.action, allin.to) == ("all-in", 2000)


def test_ex_15_one_chip_added_to_chips_in_front_is_a_call() -> None:
    reading = silent(ctx(4000, bet=2000, inc=2000), chips(c10000=1), prior=chips(c1000=2))
    assert (reading.action, reading.to, reading.change) == ("call", 4000, 8000)


def test_ex_16_two_chips_added_to_chips_in_front_is_a_raise() -> None:
    reading = silent(ctx(4000, bet=2000, inc=2000), chips(c5000=2), prior=chips(c1000=2))
    assert (reading.action, reading.to) == ("raise", 12000)


def test_ex_22_using_a_bet_to_make_change_is_a_raise() -> None:
    reading = silent(ctx(325, inc=325), chips(c500=1, c25=1))
    assert (reading.action, reading.to, reading.owed) == ("raise", 650, 125)


def test_ex_40_verbal_amount_and_chip_contradict() -> None:
    bet = PhysicalBet(chips=chips(c5000=1), chips_ts=2.0, declaration=Declared(word="bet", amount=42000, ts=1.0))
    reading = read_bet(ctx(0, inc=1000, heads_up=True), bet)
    assert reading.to == 42000
    assert "TDA-27A" in rules_of(reading)
    assert any("floor decides" in f.ruling for f in reading.findings)


def test_ex_46_two_1000_chips_against_1200_call() -> None:
    reading = silent(ctx(1200, inc=1200), chips(c1000=2))
    assert (reading.action, reading.change) == ("call", 800)


def test_ex_47_500_and_1000_against_1100_call() -> None:
    reading = silent(ctx(1100, inc=600), chips(c500=1, c1000=1))
    assert (reading.action, reading.change) == ("call", 400)


def test_ex_48_1000_and_five_100s_completes_to_1700() -> None:
    reading = silent(ctx(1100, inc=600), chips(c1000=1, c100=5))
    assert (reading.action, reading.to, reading.owed) == ("raise", 1700, 200)


def test_ex_49_1000_and_three_100s_call_200_back() -> None:
    reading = silent(ctx(1100, inc=600), chips(c1000=1, c100=3))
    assert (reading.action, reading.change) == ("call", 200)


def test_ex_50_last_chips_beyond_the_call_are_all_in() -> None:
    every_chip_needed = silent(ctx(1100, inc=600, stack=1500), chips(c1000=1, c500=1))
    assert (every_chip_needed.action, every_chip_needed.to) == ("call", 1100)
    one_spare = silent(ctx(1100, inc=600, stack=1300), chips(c1000=1, c100=3))
    assert (one_spare.action, one_spare.to) == ("all-in", 1300)


def test_ex_51_1000_and_three_500s_against_1400_completes_to_2800() -> None:
    reading = silent(ctx(1400, inc=1400), chips(c1000=1, c500=3))
    assert (reading.action, reading.to, reading.owed) == ("raise", 2800, 300)


def test_ex_52_1000_and_two_500s_against_1400_call_or_all_in() -> None:
    reading = silent(ctx(1400, inc=1400), chips(c1000=1, c500=2))
    assert (reading.action, reading.change) == ("call", 600)
    last = silent(ctx(1400, inc=1400, stack=2000), chips(c1000=1, c500=2))
    assert (last.action, last.to) == ("all-in", 2000)


def test_ex_53_prior_chips_untouched_one_new_chip_call() -> None:
    reading = silent(ctx(600, bet=50, inc=550), chips(c1000=1), prior=chips(c25=2))
    assert (reading.action, reading.change) == ("call", 450)


def test_ex_54_prior_chips_two_500s_all_needed_call() -> None:
    reading = silent(ctx(600, bet=50, inc=550), chips(c500=2), prior=chips(c25=2))
    assert (reading.action, reading.change) == ("call", 450)


def test_ex_55_prior_chips_100_and_500_all_needed_call() -> None:
    reading = silent(ctx(600, bet=50, inc=550), chips(c100=1, c500=1), prior=chips(c25=2))
    assert (reading.action, reading.change) == ("call", 50)


def test_ex_56_prior_chips_new_chips_beyond_the_call_raise() -> None:
    reading = silent(ctx(600, bet=50, inc=550), chips(c1000=1, c500=1), prior=chips(c25=2))
    assert (reading.action, reading.to) == ("raise", 1550)


def test_ex_57_prior_chip_exceeds_the_call_multiple_chip_rule() -> None:
    c = ctx(700, bet=100, inc=600)
    reading = silent(c, chips(c500=1), prior=chips(c1000=1))
    assert (reading.action, reading.to) == ("raise", 1500)
    club = BetContext(**{**c.__dict__, "single_chip_over_prior": "always_call"})
    assert silent(club, chips(c500=1), prior=chips(c1000=1)).action == "call"  # conflict C10, seed 001


def test_ex_58_prior_chips_pulled_back_one_big_chip_call() -> None:
    reading = silent(ctx(600, bet=50, inc=550), chips(c1000=1), pulled_back=chips(c25=2))
    assert (reading.action, reading.to) == ("call", 600)


def test_ex_59_prior_chips_pulled_back_several_chips_multiple_chip_rule() -> None:
    raise_ = silent(ctx(600, bet=50, inc=550), chips(c1000=1, c500=1), pulled_back=chips(c25=2))
    assert (raise_.action, raise_.to) == ("raise", 1500)
    call = silent(ctx(600, bet=50, inc=550), chips(c500=1, c100=2), pulled_back=chips(c25=2))
    assert (call.action, call.to) == ("call", 600)


def test_ex_60_prior_chips_partly_pulled_back_multiple_chip_rule() -> None:
    # one 25 kept, one taken back; a 1000 added: the smallest chip is the kept 25 → 1000 alone covers 600
    reading = silent(ctx(600, bet=50, inc=550), chips(c1000=1), prior=chips(c25=1), pulled_back=chips(c25=1))
    assert reading.action == "raise" and reading.to == 1150  # 1025 offered: ≥ 50 % of 550, completed


def test_ex_61_merging_and_pushing_all_chips_is_all_in() -> None:
    reading = silent(ctx(600, bet=50, inc=550, stack=3000), chips(c1000=3), prior=chips(c25=2))
    assert (reading.action, reading.to) == ("all-in", 3050)


def test_ex_68_undercall_multiway_against_a_raise_td_decides() -> None:
    reading = silent(ctx(8000, inc=6000, opening=False, heads_up=False), chips(c1000=2))
    assert reading.action == "call" and reading.owed == 6000
    assert reading.findings[0].rule_id == "TDA-37" and "TD decides" in reading.findings[0].ruling


def test_ex_69_undercall_against_the_opening_bet_must_complete() -> None:
    reading = silent(ctx(8000, inc=8000, opening=True), chips(c1000=2))
    assert reading.findings[0].rule_id == "TDA-37" and "must complete" in reading.findings[0].ruling
    assert reading.owed == 6000


def test_ex_70_call_said_against_a_raise_is_a_full_call() -> None:
    reading = read_declaration(ctx(8000, inc=6000, opening=False), Declared(word="call"))
    assert (reading.action, reading.to) == ("call", 8000)


def test_ex_97_silent_raise_under_50_percent_is_a_call() -> None:
    c = ctx(1000, inc=1000)
    reading = silent(c, chips(c1000=1, c100=3))
    assert (reading.action, reading.change) == ("call", 300)
    fifteen = silent(c, chips(c1000=1, c500=1))
    assert (fifteen.action, fifteen.to, fifteen.owed) == ("raise", 2000, 500)


def test_ex_21_i_bet_five() -> None:
    assert interpret_spoken_number(5, pot_total=1200, min_bet=400) == 500
    assert interpret_spoken_number(5, pot_total=6000, min_bet=400) == 5000


def test_tda_31_single_oversized_chip_is_a_call_unless_raise_said_first() -> None:
    c = ctx(300, inc=300)
    assert silent(c, chips(c1000=1)).action == "call"
    declared = read_bet(c, PhysicalBet(chips=chips(c1000=1), chips_ts=2.0, declaration=Declared(word="raise", ts=1.0)))
    assert (declared.action, declared.to) == ("raise", 1000)
    late = read_bet(c, PhysicalBet(chips=chips(c1000=1), chips_ts=2.0, declaration=Declared(word="raise", ts=3.0)))
    assert late.action == "call" and "TDA-27A" in rules_of(late)


def test_tda_31_single_chip_opening_bet_is_its_full_value() -> None:
    assert (silent(ctx(0, inc=100), chips(c1000=1)).to, silent(ctx(0, inc=100), chips(c1000=1)).action) == (1000, "bet")


def test_tda_29_string_raise_only_the_first_motion_counts() -> None:
    c = ctx(300, inc=300)
    bet = PhysicalBet(chips=chips(c100=9), chips_ts=1.0, motions=2, motion_values=(300, 600))
    reading = read_bet(c, bet)
    assert (reading.action, reading.to) == ("call", 300)
    assert "TDA-29" in rules_of(reading)
    declared = read_bet(c, PhysicalBet(chips=chips(c100=9), chips_ts=1.0, motions=2,
                                       declaration=Declared(word="raise", amount=900, ts=0.5)))
    assert (declared.action, declared.to) == ("raise", 900) and not declared.findings


def test_tda_29_call_in_several_motions_is_only_recorded() -> None:
    reading = read_bet(ctx(300, inc=300), PhysicalBet(chips=chips(c100=3), chips_ts=1.0, motions=3))
    assert reading.action == "call" and reading.findings[0].severity == Severity.ADVISORY


def test_tda_34_no_raise_when_betting_not_reopened() -> None:
    reading = silent(ctx(1000, inc=1000, can_raise=False), chips(c1000=2, c500=1))
    assert (reading.action, reading.to, reading.change) == ("call", 1000, 1500)
    assert "TDA-34" in rules_of(reading)


def test_tda_41_call_with_nothing_to_call_is_a_check_and_check_facing_a_bet() -> None:
    assert read_declaration(ctx(0, inc=100), Declared(word="call")).action == "check"
    facing = read_declaration(ctx(300, inc=300), Declared(word="check"))
    assert facing.action == "none" and "TDA-41" in rules_of(facing)


def test_tda_38a_underbet_must_complete() -> None:
    reading = silent(ctx(0, inc=200), chips(c100=1, c25=2))
    assert (reading.action, reading.to, reading.owed) == ("bet", 200, 50) and "TDA-38A" in rules_of(reading)


def test_tda_38b_pot_limit_over_pot_is_reduced() -> None:
    c = ctx(0, inc=100, structure="PL", max_raise_to=300)
    reading = silent(c, chips(c100=5))
    assert (reading.to, reading.change) == (300, 200) and "TDA-38B" in rules_of(reading)


def test_tda_40c_pot_in_no_limit_commits_to_a_legal_bet() -> None:
    reading = read_bet(ctx(0, inc=200), PhysicalBet(chips=chips(c100=1), chips_ts=2.0,
                                                      declaration=Declared(word="pot", ts=1.0)))
    assert reading.to == 200 and "TDA-40" in rules_of(reading)


def test_chips_a_camera_alone_saw_are_the_least_the_bet_can_be() -> None:
    """From above a camera sees each column's top chip: short of the call (or nothing, on the chips in front) is a
    call whose other chips are hidden, and a guess; an exact call or a full raise reads as it shows."""
    facing = ctx(1000, bet=500, inc=1000)  # the small blind faces the big blind's 1000
    short, why = read_seen_from_above(facing, PhysicalBet(chips=chips(c100=1), chips_ts=10.0))
    assert (short.action, short.to) == ("call", 1000) and "100 in chips seen from above with 500 to call" in why
    hidden, why = read_seen_from_above(facing, PhysicalBet(chips=Chips(), chips_ts=10.0))
    assert (hidden.action, hidden.to) == ("call", 1000) and why
    exact, why = read_seen_from_above(facing, PhysicalBet(chips=chips(c500=1), chips_ts=10.0))
    assert (exact.action, exact.to, why) == ("call", 1000, "")
    raised, why = read_seen_from_above(facing, PhysicalBet(chips=chips(c1000=2, c500=1), chips_ts=10.0))
    assert (raised.action, raised.to, why) == ("raise", 3000, "")
    between, why = read_seen_from_above(facing, PhysicalBet(chips=chips(c500=1, c100=3), chips_ts=10.0))
    assert between.action == "call" and "between a call and a full raise" in why
    column, why = read_seen_from_above(facing, PhysicalBet(chips=chips(c2500=1), chips_ts=10.0))
    assert column.action == "call" and "a column's top" in why  # TDA-31's call, or a raise in a column
    tap, why = read_seen_from_above(ctx(0, bb=1000), PhysicalBet(chips=Chips(), chips_ts=10.0))
    assert (tap.action, why) == ("check", "")
    said = PhysicalBet(chips=chips(c100=1), chips_ts=10.0, declaration=Declared(word="raise", amount=3000, ts=9.0))
    declared, why = read_seen_from_above(facing, said)
    assert (declared.action, declared.to, why) == ("raise", 3000, "")  # the words govern: the chips are payment

"""Real hands that the simulator once refused, one each, and the coverage command that found them.

The hands are copied from ``shared/data/hands/high_stakes`` (the fields the simulator reads), so these
tests run without the dataset. No rendering: the timeline and the truth only.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from click.testing import CliRunner
from pokerkit import HandHistory

from tablewatch.events import BoardCardDealt, CardsTabled, ChipsLeftTable, HandEnded, PotPushed
from tablewatch.sim.cli import sim as sim_cli
from tablewatch.sim.coverage import hand_scenario, pattern, table_layout
from tablewatch.sim.plan import phh_hand_count
from tablewatch.sim.scenario import ScenarioError
from tablewatch.sim.session import Simulation

HEAD = "variant = 'NT'\nante_trimming_status = false\n"
# ps_1000nl_ hand 5: all in preflop; the record has both players 'sm ????' before each street of the run-out.
ALL_IN_RUNOUT = HEAD + """antes = [0, 0, 0, 0, 0]
blinds_or_straddles = [5, 10, 0, 0, 0]
min_bet = 10
starting_stacks = [220, 1261.60, 466.95, 172.75, 401]
actions = ['d dh p1 ????', 'd dh p2 ????', 'd dh p3 ????', 'd dh p4 ????', 'd dh p5 ????', 'p3 cbr 30', 'p4 f', \
'p5 f', 'p1 cbr 220', 'p2 f', 'p3 cc', 'p1 sm ????', 'p3 sm ????', 'd db 3s4cTc', 'p1 sm ????', 'p3 sm ????', \
'd db Ts', 'p1 sm ????', 'p3 sm ????', 'd db 6s', 'p1 sm AcKc', 'p3 sm KhAd']
seats = [1, 2, 3, 5, 6]
"""
# ipn_1000nl_ hand 70: iPoker gives no stacks, and the record stops at the river card (the players were all in).
NO_STACKS = HEAD + """antes = [0, 0, 0, 0, 0, 0]
blinds_or_straddles = [5, 10, 0, 0, 0, 0]
min_bet = 10
starting_stacks = [inf, inf, inf, inf, inf, inf]
actions = ['d dh p1 ????', 'd dh p2 AdTs', 'd dh p3 ????', 'd dh p4 ????', 'd dh p5 QsTd', 'd dh p6 ????', 'p3 f', \
'p4 f', 'p5 cbr 30', 'p6 f', 'p1 f', 'p2 cc', 'd db 9h7cTc', 'p2 cbr 50', 'p5 cc', 'd db 4d', 'p2 cbr 120', \
'p5 cbr 494', 'p2 cc', 'd db As']
seats = [2, 3, 4, 5, 6, 1]
"""
# Heads-up (the button, p2, posts the small blind and acts first): seat 2's $10 stack (no $5 chip in it at
# the bench's chip set) raises to $8 and takes the blinds.
SHORT_STACK = HEAD + """antes = [0, 0]
blinds_or_straddles = [0.05, 0.10]
min_bet = 0.10
starting_stacks = [20, 10]
actions = ['d dh p1 ????', 'd dh p2 ????', 'p2 cbr 8', 'p1 f']
seats = [1, 2]
"""
# ftp_1000nl_ hand 506: six players on a nine-seat table (seats up to 9).
NINE_SEATS = HEAD + """antes = [0, 0, 0, 0, 0, 0]
blinds_or_straddles = [5, 10, 0, 0, 0, 0]
min_bet = 10
starting_stacks = [1000, 1656, 185, 1576.50, 1012.75, 537.50]
actions = ['d dh p1 ????', 'd dh p2 ????', 'd dh p3 ????', 'd dh p4 ????', 'd dh p5 ????', 'd dh p6 ????', 'p3 f', \
'p4 f', 'p5 cbr 30', 'p6 f', 'p1 f', 'p2 f']
seats = [5, 7, 9, 1, 2, 3]
"""
# Heads-up, p1 (the big blind) acts first preflop: pokerkit refuses it (a hand the coverage command counts as failed).
OUT_OF_ORDER = HEAD + """antes = [0, 0]
blinds_or_straddles = [5, 10]
min_bet = 10
starting_stacks = [1000, 1000]
actions = ['d dh p1 ????', 'd dh p2 ????', 'p1 f']
seats = [1, 2]
"""


def phh(tmp_path: Path, *hands: str, name: str = "hands.phh") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(f"[{i}]\n{text}" for i, text in enumerate(hands, start=1)))
    return path


def truth(sim: Simulation) -> list[HandHistory]:
    hands = list(HandHistory.load_all(io.BytesIO(sim.phh_text().encode())))
    for hh in hands:
        states = list(hh)  # replays every action in pokerkit
        assert sum(states[-1].stacks) == sum(hh.starting_stacks)
    return hands


def test_shows_during_an_all_in_run_out_are_played(tmp_path: Path) -> None:
    path = phh(tmp_path, ALL_IN_RUNOUT)
    for sim in (Simulation(hand_scenario(path, 1)), Simulation.from_phh(path, 1)):
        board = [e.card for e in sim.events if isinstance(e, BoardCardDealt)]
        assert board == ["3s", "4c", "Tc", "Ts", "6s"]
        tabled = [e.seat for e in sim.events if isinstance(e, CardsTabled)]
        assert sorted(tabled) == [1, 3]  # each all-in hand is turned up once, not on every street
        assert truth(sim)[0].seats == [1, 2, 3, 5, 6]


def test_a_record_without_stacks_that_stops_at_the_river_is_checked_down(tmp_path: Path) -> None:
    sim = Simulation(hand_scenario(phh(tmp_path, NO_STACKS), 1))
    hh = truth(sim)[0]
    assert all(s >= 49400 for s in hh.starting_stacks)  # deep enough for every bet, in cents
    assert hh.actions[-2:] == ["p2 cc", "p5 cc"] or hh.actions[-4:-2] == ["p2 cc", "p5 cc"]  # river checks
    assert any(isinstance(e, PotPushed) for e in sim.events)
    assert isinstance(sim.events[-1], HandEnded)


def _pocketed(path: Path, *, seat: int, after: int) -> Simulation:
    return Simulation(hand_scenario(path, 1, violations=[{"type": "chips_pocketed", "seat": seat,
                                                           "chips": {500: 1}, "after_action": after}]))


def test_pocketing_a_chip_the_stack_lacks_takes_its_worth_in_smaller_chips(tmp_path: Path) -> None:
    sim = _pocketed(phh(tmp_path, SHORT_STACK.replace("'p2 cbr 8', 'p1 f'", "'p2 f'")), seat=2, after=-1)
    left = [e for e in sim.events if isinstance(e, ChipsLeftTable)]
    assert len(left) == 1 and left[0].chips.value == 500 and 500 not in left[0].chips.as_dict()
    (v,) = sim.violations
    assert v.type == "chips_pocketed" and v.params["asked"] == {500: 1}
    assert sum(d * n for d, n in v.params["chips"].items()) == 500
    truth(sim)


def test_pocketing_chips_the_hand_still_needs_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match=r"seat 2 can't pocket .* needs all but 200 of its 1000"):
        _pocketed(phh(tmp_path, SHORT_STACK), seat=2, after=-1)  # $10 stack, raises to $8: $2 never moves
    path = phh(tmp_path, ALL_IN_RUNOUT)
    with pytest.raises(ScenarioError, match=r"seat 1 can't pocket .* needs all but 0 of its"):
        _pocketed(path, seat=1, after=0)  # all in for the whole stack
    assert _pocketed(path, seat=3, after=0).violations[0].type == "chips_pocketed"  # seat 3 keeps $246.95 back


def test_coverage_counts_every_hand_and_every_violation(tmp_path: Path) -> None:
    path = phh(tmp_path, ALL_IN_RUNOUT, NO_STACKS, SHORT_STACK, OUT_OF_ORDER)
    result = CliRunner().invoke(sim_cli, ["coverage", str(path), "--violations", "--progress", "0"])
    assert result.exit_code == 0, result.output
    assert "hands.phh: 4 hands, 1 fail plain;" in result.output
    assert " 0 fail\n" in result.output  # no hand fails with a violation it allows
    for kind in ("string_raise", "undercall", "chips_pocketed", "double_burn", "board_card_exposed_early"):
        assert kind in result.output
    assert "1  hand N, action N ('pN f'): it is seat N's turn, not seat N's" in result.output
    assert "e.g. hands.phh:4" in result.output


def test_coverage_keeps_the_seat_numbers_of_a_hand_at_a_nine_seat_table(tmp_path: Path) -> None:
    path = phh(tmp_path, NINE_SEATS)
    assert table_layout(path, 1) == "oval9" and table_layout(path, 1, "oval6") == "oval6"
    sim = Simulation(hand_scenario(path, 1, violations=[{"type": "wrong_pot_push", "to_seat": 9}]))
    assert sim.summary["layout"] == "oval9" and truth(sim)[0].seats == [5, 7, 9, 1, 2, 3]
    assert [e.seat for e in sim.events if isinstance(e, PotPushed)] == [9, 2]  # to the folder, then corrected


def test_coverage_says_what_is_wrong_with_a_bad_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.phh"
    bad.write_text("[1]\nvariant = \n")
    result = CliRunner().invoke(sim_cli, ["coverage", str(bad)])
    assert result.exit_code == 1 and "not a readable PHH file" in result.output
    assert "Traceback" not in result.output


def test_failure_messages_are_counted_without_their_numbers() -> None:
    a = pattern("/x/ps.phh hand 5: seat3.stack holds 120, less than 500 (AsKd)")
    assert a == pattern("/y/ftp.phh hand 77: seat1.stack holds 20, less than 100 (2c7h)")
    assert a == "FILE hand N: seatN.stack holds N, less than N (CARDS)"


def test_a_phh_file_changed_on_disk_is_read_again(tmp_path: Path) -> None:
    path = phh(tmp_path, SHORT_STACK)
    assert phh_hand_count(path) == 1
    phh(tmp_path, SHORT_STACK, OUT_OF_ORDER)
    assert phh_hand_count(path) == 2


def test_a_one_hand_phh_file_is_simulated_as_the_dataset_writes_them(tmp_path: Path) -> None:
    """Most of the PHH dataset's files hold one hand with no ``[1]`` section: read like a multi-hand file."""
    from tablewatch.sim.session import phh_scenario
    from tests.support.recording import RAISE_TAKES_THE_BLINDS

    path = tmp_path / "one.phh"
    path.write_text(RAISE_TAKES_THE_BLINDS)
    assert phh_hand_count(path) == 1
    sim = Simulation(phh_scenario(path, 1, seed=1))
    assert [e for e in sim.events if isinstance(e, HandEnded)]

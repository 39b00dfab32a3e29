"""``tablewatch bench``: a real hand recorded as a table's devices capture it, played by
``tablewatch run`` (a subprocess that finds the hand itself, the truth moved away), scored against the truth."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from pokerkit import HandHistory

from tablewatch.bench.cli import bench
from tablewatch.bench.scenarios import DEMO_HANDS
from tablewatch.bench.score import phh_final_stacks, player_actions
from tablewatch.bench.through_run import pair_hands, score_frames
from tablewatch.events import CardDealt, HandEnded, HandStarted


@pytest.mark.slow
def test_bench_through_run_scores_the_hand_the_run_captured(tmp_path: Path) -> None:
    # The shipped hand 2: blinds, a raise and a call, a flop, a bet and a fold (about 30 s at the table).
    result = CliRunner().invoke(bench, ["--phh", str(DEMO_HANDS), "--first", "2", "--hands", "1",
                                        "-o", str(tmp_path)])
    assert result.exit_code == 0, result.output + repr(result.exception)
    score = json.loads((tmp_path / "bench.json").read_text())
    assert score["hands"] == 1
    assert score["hands_exact"] == 1, score["inexact"]  # from the PHH `run` wrote, not from the simulator
    assert score["frame"]["hands_found"] == score["frame"]["buttons_right"] == 1
    assert score["frame"]["stacks_right"] == 1, score["frame"]["wrong"]
    assert list((tmp_path / "run" / "hands").glob("*.phh"))  # the run's own output was scored
    assert (tmp_path / "recording" / "truth" / "truth.phhs").exists()  # put back after the run
    assert "hands captured exactly: 1/1" in result.output


@pytest.mark.slow
def test_a_table_without_a_camera_is_scored_from_rfid_and_the_dealers_console(tmp_path: Path) -> None:
    # The same hand at a table with RFID and a console only: no video, the dealer keys the hand and its actions.
    result = CliRunner().invoke(bench, ["--no-camera", "--phh", str(DEMO_HANDS), "--first", "2",
                                        "--hands", "1", "-o", str(tmp_path)])
    assert result.exit_code == 0, result.output + repr(result.exception)
    assert not (tmp_path / "recording" / "overhead_720p.mp4").exists()
    score = json.loads((tmp_path / "bench.json").read_text())
    assert score["devices"] == ["rfid", "console"]
    assert score["hands_exact"] == 1, score["inexact"]  # the actions and final stacks are the truth's
    assert score["frame"]["buttons_right"] == score["frame"]["stacks_right"] == 1, score["frame"]["wrong"]
    assert "through `tablewatch run`: RFID + console, no camera" in result.output


def test_bench_refuses_options_its_table_does_not_take(tmp_path: Path) -> None:
    result = CliRunner().invoke(bench, ["--camera", "truth", "--no-camera", "-o", str(tmp_path)])
    assert result.exit_code != 0 and "--camera truth" in result.output
    result = CliRunner().invoke(bench, ["--no-camera", "--no-rfid", "-o", str(tmp_path)])
    assert result.exit_code != 0 and "console alone" in result.output


def test_the_truth_fed_diagnostic_says_so(tmp_path: Path) -> None:
    """``--camera truth``: the simulator tells the pipeline each hand's set-up; its output must not pass for a
    table's figures."""
    result = CliRunner().invoke(bench, ["--camera", "truth", "--hands", "1", "-o", str(tmp_path)])
    assert result.exit_code == 0, result.output + repr(result.exception)
    assert "DIAGNOSTIC, not a table's figure" in result.output
    assert json.loads((tmp_path / "bench.json").read_text())["camera"] == "truth"


def test_a_misdealt_deal_is_no_hand_of_its_own_and_its_redeal_is_the_truths() -> None:
    """The run ends a misdealt deal void and redeals it as its next hand: the truth's hand pairs with the redeal,
    began when the misdealt deal did, and the void hand is no extra hand."""
    def started(n: int, ts: float, source: str = "scene") -> HandStarted:
        return HandStarted(ts=ts, table="T01", source=source, hand_no=n, button=3, seats=(1, 3), stacks=(900, 900))

    truth = [started(1, 0.0, "sim"), CardDealt(ts=1.0, table="T01", source="sim", seat=1, card="As"),
             HandEnded(ts=60.0, table="T01", source="sim", hand_no=1)]
    run = [started(1, 1.2), HandEnded(ts=8.0, table="T01", source="scene", hand_no=1, void=True),
           started(2, 8.0), HandEnded(ts=59.0, table="T01", source="scene", hand_no=2)]
    pairs = pair_hands(truth, run)
    assert {n: e.hand_no for n, e in pairs.items()} == {1: 2}
    frame = score_frames(truth, run, pairs)
    assert (frame.hands_found, frame.starts_right, frame.extra_hands) == (1, 1, 0)
    assert frame.start_offsets_s == [0.2]


def test_a_showdown_with_a_hand_tabled_unread_is_scored_by_the_stacks_the_run_wrote() -> None:
    """pokerkit replaying ``p2 sm ????`` judges a hand nobody read; the history's finishing stacks are the pot as
    the dealer pushed it, which is what the run recorded."""
    text = """variant = 'NT'
antes = [0, 0]
blinds_or_straddles = [500, 1000]
min_bet = 1000
starting_stacks = [10000, 10000]
actions = ['d dh p1 ????', 'd dh p2 ????', 'p2 cc', 'p1 cc', 'd db 7c4s9c', 'p1 cc', 'p2 cc', 'd db 3s', 'p1 cc',
           'p2 cc', 'd db Qh', 'p1 cc', 'p2 cc', 'p1 sm JcTc', 'p2 sm ????']
finishing_stacks = [9000, 11000]
"""
    hand = HandHistory.loads(text)
    assert phh_final_stacks(hand) == [9000, 11000]
    assert player_actions(hand)[-1] == "p1 sm JcTc"  # the unread hand is no show the run can be scored on

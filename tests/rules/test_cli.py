"""``tablewatch replay`` and ``tablewatch bench-rules`` (click), on real and on malformed PHH files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tablewatch.cli import cli
from tests.support.phh import ONE_HAND

GOOD = ONE_HAND
BROKEN = """variant = 'NT'
antes = [0, 0
min_bet = 10
"""


def _multi(*hands: str) -> str:
    return "\n".join(f"[{i + 1}]\n{text}" for i, text in enumerate(hands))


def test_replay_prints_stacks_pots_and_winners(tmp_path: Path) -> None:
    path = tmp_path / "one.phh"
    path.write_text(GOOD)
    result = CliRunner().invoke(cli, ["replay", str(path)])
    assert result.exit_code == 0, result.output
    assert "hand [1]: ok; stacks s1=200.5 s2=0.0; pot 0 200.0 -> seat 1" in result.output
    assert "1 hands, 1 reconstructed exactly" in result.output


def test_replay_malformed_hand_is_named_and_the_others_still_replay(tmp_path: Path) -> None:
    path = tmp_path / "multi.phh"
    path.write_text(_multi(GOOD, BROKEN, GOOD))
    result = CliRunner().invoke(cli, ["replay", str(path), "--json"])
    assert result.exit_code == 1
    report = json.loads(result.output)
    assert report["summary"] == {**report["summary"], "hands": 3, "reconstructed": 2, "errors": 1}
    error = report["hands"][1]["error"]
    assert "hand [2]" in error and "line 13" in error and "not valid PHH" in error
    assert report["hands"][2]["final_stacks"] == {"1": "200.5", "2": "0.0"}


def test_replay_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["replay", str(tmp_path / "none.phh")])
    assert result.exit_code != 0 and "no such file" in result.output and "Traceback" not in result.output


def test_replay_real_file_sample(shared_dir: Path, tmp_path: Path) -> None:
    text = (shared_dir / "data" / "hands" / "high_stakes" / "ps_1000nl_.phh").read_text()
    sections = text.split("\n\n[")[:12]
    path = tmp_path / "ps12.phh"
    path.write_text("\n\n[".join(sections) + "\n")
    result = CliRunner().invoke(cli, ["replay", str(path), "--summary"])
    assert result.exit_code == 0, result.output
    assert "12 hands, 12 reconstructed exactly, 0 mismatched, 0 errors" in result.output


def test_bench_rules_prints_both_rates(shared_dir: Path) -> None:
    path = shared_dir / "data" / "hands" / "high_stakes" / "ftp_1000nl_.phh"
    result = CliRunner().invoke(cli, ["bench-rules", str(path), "--limit", "20"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("20 hands from 1 file(s), acted out as ") and lines[0].endswith(" table events")
    assert [line.split()[0] for line in lines[2:5]] == ["pokerkit", "tablewatch", "tablewatch,"]
    assert "engine alone" in lines[4] and lines[5].endswith(" us per event")


def test_bench_rules_keeps_the_best_of_several_rounds(shared_dir: Path) -> None:
    path = shared_dir / "data" / "hands" / "high_stakes" / "ftp_1000nl_.phh"
    result = CliRunner().invoke(cli, ["bench-rules", str(path), "--limit", "5", "--rounds", "2"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("5 hands from 1 file(s)") and lines[0].endswith(" table events, the best of 2 rounds")
    assert [line.split()[0] for line in lines[2:5]] == ["pokerkit", "tablewatch", "tablewatch,"]


def test_replay_names_the_action_pokerkit_refuses(tmp_path: Path) -> None:
    path = tmp_path / "bad_action.phh"
    path.write_text(GOOD.replace("'p2 cbr 30'", "'p2 cbr 5000'"))
    result = CliRunner().invoke(cli, ["replay", str(path)])
    assert result.exit_code == 1
    assert "hand [1] (line 6): pokerkit cannot take action #3 'p2 cbr 5000'" in result.output
    assert "above the maximum" in result.output


def test_replay_hand_with_too_few_players_is_named(tmp_path: Path) -> None:
    path = tmp_path / "one_player.phh"
    path.write_text(_multi(GOOD.replace("starting_stacks = [100.50, 100]", "starting_stacks = [100]"), GOOD))
    result = CliRunner().invoke(cli, ["replay", str(path), "--summary"])
    assert "hand [1]" in result.output and "a hand needs at least 2" in result.output
    assert "2 hands, 1 reconstructed exactly" in result.output and "Traceback" not in result.output


IMPOSSIBLE = {
    "a stack beyond any table": (GOOD.replace("[100.50, 100]", "[1e308, 100]"),
                                 "starting stack 1E+308 is larger than any table's"),
    "a NaN stack": (GOOD.replace("[100.50, 100]", "[nan, 100]"), "starting stack NaN is not a number"),
    "a negative stack": (GOOD.replace("[100.50, 100]", "[-100, 100]"), "are not all positive"),
    "a NaN blind": (GOOD.replace("[5, 10]", "[nan, 10]"), "blind NaN is not a number"),
    "the same card twice": (GOOD.replace("'d db 2c'", "'d db As'"),
                            "action #8 'd db As': As is already in play (on the board, action #5)"),
    "one card thrice on the board": (GOOD.replace("AsKsQs", "7c7c7c"), "'d db 7c7c7c' names 7c twice"),
    "a card shown by two players": (GOOD.replace("p2 sm KhKd", "p2 sm AhKd"),
                                    "'p2 sm AhKd': Ah is already in play (with p1, action #10)"),
    "a player not in the hand": (GOOD.replace("'d dh p1 ????'", "'d dh p10 ????'"),
                                 "action #1 'd dh p10 ????': there is no player p10 (the hand has p1..p2)"),
}


@pytest.mark.parametrize("case", sorted(IMPOSSIBLE))
def test_replay_refuses_an_impossible_hand_and_replays_the_others(tmp_path: Path, case: str) -> None:
    bad, reason = IMPOSSIBLE[case]
    path = tmp_path / "impossible.phh"
    path.write_text(_multi(GOOD, bad, GOOD))
    result = CliRunner().invoke(cli, ["replay", str(path)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0].startswith("hand [1]: ok") and lines[2].startswith("hand [3]: ok"), result.output
    assert lines[1].startswith(f"hand [2]: ERROR {path}: hand [2]: ") and reason in lines[1], result.output
    assert "3 hands, 2 reconstructed exactly, 0 mismatched, 1 errors" in lines[-1]


def test_replay_still_reads_an_unknown_stack_and_a_shown_hand(tmp_path: Path) -> None:
    path = tmp_path / "fine.phh"
    path.write_text(GOOD.replace("[100.50, 100]", "[inf, 100]").replace("'d dh p1 ????'", "'d dh p1 AhAd'"))
    result = CliRunner().invoke(cli, ["replay", str(path)])
    assert result.exit_code == 0, result.output


def test_bench_rules_leaves_out_a_hand_pokerkit_refuses_and_says_so(tmp_path: Path) -> None:
    path = tmp_path / "some_bad.phh"
    path.write_text(_multi(GOOD, GOOD.replace("'p1 cbr 70.50'", "'!p1 cbr 70.50'")))
    result = CliRunner().invoke(cli, ["bench-rules", str(path)])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == "1 hands from 1 file(s), acted out as 25 table events"
    left_out = "1 hand(s) left out: pokerkit cannot replay them (first: hand [2] (line 16): pokerkit cannot take"
    assert left_out in result.output, result.output
    only_bad = tmp_path / "bad.phh"
    only_bad.write_text(GOOD.replace("'p1 cbr 70.50'", "'!p1 cbr 70.50'"))
    result = CliRunner().invoke(cli, ["bench-rules", str(only_bad)])
    assert result.exit_code == 1 and f"No hand of {only_bad} replays in pokerkit" in result.output


BIG_BLIND_ANTE = """variant = 'NT'
ante_trimming_status = {trimming}
antes = [0, 100, 0]
blinds_or_straddles = [50, 100, 0]
min_bet = 100
starting_stacks = [10000, 10000, 10000]
actions = ['d dh p1 AsKs', 'd dh p2 7h2d', 'd dh p3 QcQd', 'p3 cbr 300', 'p1 cc', 'p2 f', 'd db 2c7d9h', 'p1 cc',
           'p3 cbr 500', 'p1 cc', 'd db Jc', 'p1 cc', 'p3 cc', 'd db 3s', 'p1 cc', 'p3 cc', 'p1 sm AsKs', 'p3 sm QcQd']
hand = 10
players = ['Ann', 'Bo', 'Cy']
"""


@pytest.mark.parametrize(("trimming", "bo", "pot"), [("false", 9800, 1800), ("true", 9900, 1700)])
def test_a_big_blind_ante_replays_as_pokerkit_plays_it(tmp_path: Path, trimming: str, bo: int, pot: int) -> None:
    """The big blind posts the ante for everyone (TDA-60); with ante trimming on, pokerkit hands it back."""
    path = tmp_path / "bba.phh"
    path.write_text(BIG_BLIND_ANTE.format(trimming=trimming))
    result = CliRunner().invoke(cli, ["replay", str(path)])
    assert result.exit_code == 0, result.output
    assert f"hand [10]: ok; stacks s1 (Ann)=9200 s2 (Bo)={bo} s3 (Cy)={30000 - 9200 - bo}" in result.output
    assert f"pot 0 {pot} -> seat 3" in result.output


def test_a_short_stack_posts_what_it_has_for_the_ante_and_plays_for_the_main_pot(tmp_path: Path) -> None:
    """Seat 3 has 60 for an ante of 100: all in for 60 before the cards. Seats 1 and 2 bet on through the river
    (no all-in showdown is due while two players can still bet: TDA-9 stays quiet), and seat 2 wins it all."""
    path = tmp_path / "short.phh"
    path.write_text(BIG_BLIND_ANTE.format(trimming="true").replace("antes = [0, 100, 0]", "antes = [100, 100, 100]")
                    .replace("starting_stacks = [10000, 10000, 10000]", "starting_stacks = [10000, 10000, 60]")
                    .replace("'p3 cbr 300', 'p1 cc', 'p2 f', 'd db 2c7d9h', 'p1 cc',\n           'p3 cbr 500', 'p1 cc'",
                             "'p1 cbr 300', 'p2 cc', 'd db 2c7d9h', 'p1 cc', 'p2 cc'")
                    .replace("'p1 cc', 'p3 cc', 'd db 3s', 'p1 cc', 'p3 cc', 'p1 sm AsKs', 'p3 sm QcQd'",
                             "'p1 cc', 'p2 cc', 'd db 3s', 'p1 cc', 'p2 cc', 'p1 sm AsKs', 'p2 sm 7h2d', "
                             "'p3 sm QcQd'"))
    result = CliRunner().invoke(cli, ["replay", str(path), "--json"])
    assert result.exit_code == 0, result.output
    [hand] = json.loads(result.output)["hands"]
    assert hand["ok"] and hand["final_stacks"] == {"1": "9600", "2": "10460", "3": "0"} and hand["violations"] == []


HEADS_UP = """variant = 'NT'
antes = {antes}
blinds_or_straddles = [50, 100]
min_bet = 100
starting_stacks = [10000, 10000]
actions = ['d dh p1 AsKs', 'd dh p2 7h2d', 'p2 cbr 300', 'p1 f']
"""


@pytest.mark.parametrize(("text", "stacks"), [
    (BIG_BLIND_ANTE.format(trimming="false").replace("antes = [0, 100, 0]", "antes = [0, 0, 100]"),
     "s1 (Ann)=9200 s2 (Bo)=9900 s3 (Cy)=10900"),
    (HEADS_UP.format(antes="[100, 0]"), "s1=9900 s2=10100"),  # heads-up pokerkit posts p1's ante at the button
], ids=["three players", "heads-up"])
def test_a_button_ante_replays_as_pokerkit_plays_it(tmp_path: Path, text: str, stacks: str) -> None:
    path = tmp_path / "button.phh"
    path.write_text(text)
    result = CliRunner().invoke(cli, ["replay", str(path)])
    assert result.exit_code == 0 and f": ok; stacks {stacks};" in result.output, result.output


def test_antes_of_no_form_the_rules_know_are_refused_plainly(tmp_path: Path) -> None:
    path = tmp_path / "odd.phh"
    path.write_text(BIG_BLIND_ANTE.format(trimming="false").replace("antes = [0, 100, 0]", "antes = [100, 0, 0]"))
    result = CliRunner().invoke(cli, ["replay", str(path)])
    assert result.exit_code == 1 and "antes that differ by seat ([100, 0, 0]) are not replayed" in result.output


def test_replay_takes_several_files_folders_and_patterns(tmp_path: Path) -> None:
    (tmp_path / "hands").mkdir()
    (tmp_path / "hands" / "a.phh").write_text(GOOD)
    (tmp_path / "hands" / "b.phh").write_text(_multi(GOOD, GOOD))
    (tmp_path / "hands" / "notes.txt").write_text("not a hand")
    for sources in ([str(tmp_path / "hands")], [str(tmp_path / "hands" / "*.phh")],
                    [str(tmp_path / "hands" / "a.phh"), str(tmp_path / "hands" / "b.phh")]):
        result = CliRunner().invoke(cli, ["replay", "--summary", *sources])
        assert result.exit_code == 0, result.output
        assert "2 files: 3 hands, 3 reconstructed exactly, 0 mismatched, 0 errors" in result.output
    report = json.loads(CliRunner().invoke(cli, ["replay", "--json", str(tmp_path / "hands")]).output)
    assert report["summary"]["files"] == 2 and [h["file"][-5:] for h in report["hands"]] == ["a.phh", "b.phh", "b.phh"]


FIXED_LIMIT_OMAHA_HI_LO = """variant = 'FO/8'
ante_trimming_status = true
antes = [0, 0, 0]
blinds_or_straddles = [10, 20, 0]
small_bet = 20
big_bet = 40
starting_stacks = [1000, 1000, 1000]
actions = ['d dh p1 As2s3d9c', 'd dh p2 KhKd7c8c', 'd dh p3 QcJcTd4h', 'p3 cbr 40', 'p1 cc', 'p2 cc', 'd db 4c5h9d',
           'p1 cbr 20', 'p2 cc', 'p3 f', 'd db Kc', 'p1 cc', 'p2 cbr 40', 'p1 cc', 'd db 6s', 'p1 cbr 40', 'p2 cc',
           'p1 sm As2s3d9c', 'p2 sm KhKd7c8c']
"""


def test_fixed_limit_omaha_hi_lo_splits_the_pot_as_pokerkit_does(tmp_path: Path) -> None:
    """The wheel draw takes the low half, kings the high half (TDA-12C)."""
    path = tmp_path / "fo8.phh"
    path.write_text(FIXED_LIMIT_OMAHA_HI_LO)
    result = CliRunner().invoke(cli, ["replay", str(path)])
    assert result.exit_code == 0, result.output
    assert "hand [1]: ok; stacks s1=1020 s2=1020 s3=960; pot 0 320 -> seat 1,2" in result.output

"""Antes at a live table (RFID and a console): each player's ante (a short stack's all it has), and the big blind's
(TDA-60) or the button's ante for everyone, posted and gathered to the pot as the cards go out, then the hand played
by ``tablewatch run --fast`` to the truth's final stacks: the starting stacks count what each seat sent to the pot
before the cards. The floor names the players on the console as they sit down; the hand history carries the names."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from tablewatch.phhfile import read_hands
from tablewatch.sim.cli import sim
from tests.support.recording import play

pytestmark = pytest.mark.slow

HAND = """variant = 'NT'
players = ['Ann Lee', 'Bo', 'Cy']
ante_trimming_status = {trimming}
antes = {antes}
blinds_or_straddles = [50, 100, 0]
min_bet = 100
starting_stacks = {stacks}
actions = {actions}
"""
PLAYED = ("['d dh p1 AsKs', 'd dh p2 7h2d', 'd dh p3 QcQd', 'p3 cbr 300', 'p1 cc', 'p2 f', 'd db 2c7d9h', 'p1 cc', "
          "'p3 cbr 500', 'p1 cc', 'd db Jc', 'p1 cc', 'p3 cc', 'd db 3s', 'p1 cc', 'p3 cc', 'p1 sm AsKs', "
          "'p3 sm QcQd']")
# Seat 3 is all in for 60 with the ante; seats 1 and 2 bet on through the river.
SHORT = ("['d dh p1 AsKs', 'd dh p2 7h2d', 'd dh p3 QcQd', 'p1 cbr 300', 'p2 cc', 'd db 2c7d9h', 'p1 cc', 'p2 cc', "
         "'d db Jc', 'p1 cc', 'p2 cc', 'd db 3s', 'p1 cc', 'p2 cc', 'p1 sm AsKs', 'p2 sm 7h2d', 'p3 sm QcQd']")
DEEP = [10000, 10000, 10000]


@pytest.mark.parametrize(("antes", "trimming", "stacks", "actions"), [
    ("[0, 100, 0]", "false", DEEP, PLAYED), ("[0, 0, 100]", "false", DEEP, PLAYED),
    ("[25, 25, 25]", "true", DEEP, PLAYED),
    ("[100, 100, 100]", "true", [10000, 10000, 60], SHORT)],
    ids=["big blind ante", "button ante", "every player's ante", "a short stack's partial ante"])
def test_a_hand_with_antes_is_captured_to_the_truths_stacks(tmp_path: Path, antes: str, trimming: str,
                                                            stacks: list[int], actions: str) -> None:
    (tmp_path / "hand.phh").write_text(HAND.format(antes=antes, trimming=trimming, stacks=stacks, actions=actions))
    made = CliRunner().invoke(sim, ["record", "--phh", str(tmp_path / "hand.phh"), "--no-camera",
                                    "--name-players", "-o", str(tmp_path / "rec")])
    assert made.exit_code == 0, made.output
    played = play(tmp_path / "rec", tmp_path / "out", "--fast")
    assert played.returncode == 0, played.stdout + played.stderr
    [written] = sorted((tmp_path / "out" / "hands").glob("*.phh"))
    hand = tomllib.loads(written.read_text())
    [truth] = read_hands(tmp_path / "rec" / "truth" / "truth.phhs")
    *_, end = truth
    assert hand["antes"] == [int(a) for a in truth.antes]
    assert hand["starting_stacks"] == stacks and hand["finishing_stacks"] == list(end.stacks)
    assert hand["_tablewatch_violations"] == []
    assert hand["players"] == ["Ann Lee", "Bo", "Cy"]

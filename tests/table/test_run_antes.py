"""Antes at a live table (RFID and a console): each player's ante, and the big blind's ante for everyone (TDA-60),
posted and gathered to the pot as the cards go out, then the hand played by ``tablewatch run --fast`` to the
truth's final stacks: the starting stacks count what each seat sent to the pot before the cards."""

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
ante_trimming_status = {trimming}
antes = {antes}
blinds_or_straddles = [50, 100, 0]
min_bet = 100
starting_stacks = [10000, 10000, 10000]
actions = ['d dh p1 AsKs', 'd dh p2 7h2d', 'd dh p3 QcQd', 'p3 cbr 300', 'p1 cc', 'p2 f', 'd db 2c7d9h', 'p1 cc',
           'p3 cbr 500', 'p1 cc', 'd db Jc', 'p1 cc', 'p3 cc', 'd db 3s', 'p1 cc', 'p3 cc', 'p1 sm AsKs', 'p3 sm QcQd']
"""


@pytest.mark.parametrize(("antes", "trimming"), [("[0, 100, 0]", "false"), ("[25, 25, 25]", "true")],
                         ids=["big blind ante", "every player's ante"])
def test_a_hand_with_antes_is_captured_to_the_truths_stacks(tmp_path: Path, antes: str, trimming: str) -> None:
    (tmp_path / "hand.phh").write_text(HAND.format(antes=antes, trimming=trimming))
    made = CliRunner().invoke(sim, ["record", "--phh", str(tmp_path / "hand.phh"), "--no-camera",
                                    "-o", str(tmp_path / "rec")])
    assert made.exit_code == 0, made.output
    played = play(tmp_path / "rec", tmp_path / "out", "--fast")
    assert played.returncode == 0, played.stdout + played.stderr
    [written] = sorted((tmp_path / "out" / "hands").glob("*.phh"))
    hand = tomllib.loads(written.read_text())
    [truth] = read_hands(tmp_path / "rec" / "truth" / "truth.phhs")
    *_, end = truth
    assert hand["antes"] == [int(a) for a in truth.antes]
    assert hand["starting_stacks"] == [10000] * 3 and hand["finishing_stacks"] == list(end.stacks)

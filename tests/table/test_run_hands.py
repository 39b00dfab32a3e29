"""``tablewatch run`` finds the hand on its own: a recording of the demo's deal and preflop, replayed through the
real devices, with and without the dealer's new-hand press, is written to ``OUT/hands/*.phh`` with the truth's
seats, button and starting stacks (the RFID ledger's), and its preflop actions; with a tournament's levels, the
level in force; at a table without RFID, with the truth's seats and button and its starting stacks unknown."""

from __future__ import annotations

import io
import json
import tomllib
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from tablewatch.bench.through_run import truth_hidden
from tablewatch.devices.emulator import Faults, ReaderEmulator
from tablewatch.events import HandEnded, HandStarted, load_events
from tablewatch.table import replay as replay_module
from tablewatch.table.run import load_run_config, run_table
from tests.support.recording import play


def play_one_hand(recording: Path, out: Path) -> tuple[dict[str, Any], list[Any]]:
    """Run the recording on its own clock (``--fast``: what the monitor finds does not hang on how busy the machine
    is; ``test_replay`` plays one at the recorded pace); the one hand written and the events logged."""
    played = play(recording, out, "--fast")
    assert played.returncode == 0, played.stdout + played.stderr
    hands = sorted((out / "hands").glob("*.phh"))
    assert len(hands) == 1, played.stdout
    return tomllib.loads(hands[0].read_text()), load_events((out / "events.jsonl").read_text())


def truth(recording: Path) -> dict[str, Any]:
    text = (recording / "truth" / "truth.phhs").read_text()
    return tomllib.loads(text)["1"]


@pytest.mark.slow
@pytest.mark.parametrize("press", [False, True], ids=["no-press", "new-hand-press"])
def test_run_captures_the_hand_from_the_devices_alone(recording: Path, tmp_path: Path, press: bool) -> None:
    if press:  # the venue uses the console's new-hand button: pressed as the dealer starts
        console = recording / "console.txt"
        original = console.read_text()
        console.write_text(original + "0.300 new hand\n")
    try:
        hand, events = play_one_hand(recording, tmp_path / "out")
    finally:
        if press:
            console.write_text(original)
    expected = truth(recording)
    assert hand["seats"] == expected["seats"] == [3, 6, 8, 1]  # from the button's left: the button is seat 1
    assert hand["starting_stacks"] == expected["starting_stacks"]  # the RFID ledger's stacks at the start
    assert hand["actions"][4:7] == ["p3 f", "p4 cbr 300", "p1 cbr 900"]  # the preflop as the truth's
    assert expected["actions"][4:7] == ["p3 f", "p4 cbr 300", "p1 cbr 900"]
    started = [e for e in events if isinstance(e, HandStarted)]
    assert [(e.source, e.hand_no, e.button) for e in started] == [("scene", 1, 1)]  # one hand: the signals agree
    assert started[0].ts < 3.0 if press else started[0].ts < 3.6  # the press (0.3 s), or the blinds (1.4 s)
    assert [e.hand_no for e in events if isinstance(e, HandEnded)] == [1]


@pytest.mark.slow
def test_a_raise_stands_at_the_readers_count_when_their_sweeps_are_slow(recording: Path, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A busy machine (or a slow reader) stretches a sweep of the table's antennas to seconds. Seat 1 raises to 300
    with a column of three 100s, of which the camera sees the top one: the raise waits for the readers' count, and
    seat 3's raise, typed meanwhile, waits behind it."""
    monkeypatch.setattr(replay_module, "ReaderEmulator", partial(ReaderEmulator, faults=Faults(delay=0.02)))
    config = load_run_config(recording / "table.toml").model_copy(update={"out": tmp_path / "out"})
    with truth_hidden(recording):
        run_table(config, console=Console(file=io.StringIO()), duration=120.0)  # (the recording ends before)
    hands = list((tmp_path / "out" / "hands").glob("*.phh"))
    assert [tomllib.loads(h.read_text())["actions"][4:7] for h in hands] == [["p3 f", "p4 cbr 300", "p1 cbr 900"]]


@pytest.mark.slow
def test_run_plays_the_tournament_level_and_finds_blinds_posted_at_the_old_one(recording: Path, tmp_path: Path) -> None:
    """The recording's dealer posts 50/100; the structure's level 2, announced on the console, is 100/200."""
    table, console = recording / "table.toml", recording / "console.txt"
    original_table, original_console = table.read_text(), console.read_text()
    table.write_text(original_table + "\n[[levels]]\nnumber = 1\nsmall_blind = 50\nbig_blind = 100\n"
                     "\n[[levels]]\nnumber = 2\nsmall_blind = 100\nbig_blind = 200\n")
    console.write_text("0.100 level 2\n" + original_console)
    try:
        hand, events = play_one_hand(recording, tmp_path / "out")
    finally:
        table.write_text(original_table)
        console.write_text(original_console)
    started = [e for e in events if isinstance(e, HandStarted)]
    assert [(e.level, e.small_blind, e.big_blind) for e in started] == [(2, 100, 200)]
    assert hand["blinds_or_straddles"][:2] == [100, 200]  # the history plays the level's blinds
    alerts = [json.loads(line) for line in (tmp_path / "out" / "alerts.jsonl").read_text().splitlines()]
    wrong_level = [a for a in alerts if a["rule_id"] == "TDA-14"]
    assert [(a["hand_no"], a["seats"]) for a in wrong_level] == [(1, [3, 6])]
    assert "posted 50/100" in wrong_level[0]["observed"]


@pytest.mark.slow
def test_a_table_without_rfid_writes_the_hand_with_its_starting_stacks_unknown(recording_without_rfid: Path,
                                                                               tmp_path: Path) -> None:
    assert not (recording_without_rfid / "rfid.jsonl").exists()
    hand, events = play_one_hand(recording_without_rfid, tmp_path / "out")
    assert hand["seats"] == truth(recording_without_rfid)["seats"] == [3, 6, 8, 1]  # from the cards the camera saw
    assert hand["_tablewatch_button"] == 1
    started = [e for e in events if isinstance(e, HandStarted)]
    assert [e.stacks for e in started] == [()]  # no reader counted them
    assert hand["starting_stacks"] == [10000] * 4  # pokerkit's stand-in, and the history says so
    assert "starting stacks unknown: played as 10000 each (100 big blinds)" in hand["_tablewatch_notes"]

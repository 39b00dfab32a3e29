"""``tablewatch run`` finds the hand on its own: a recording of the demo's deal and preflop, replayed through the
real devices, with and without the dealer's new-hand press, is written to ``OUT/hands/*.phh`` with the truth's
seats, button and starting stacks (the RFID ledger's), and its preflop actions."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from tablewatch.events import HandEnded, HandStarted, load_events
from tests.support.recording import play

ROOT = Path(__file__).resolve().parents[2]


def play_one_hand(recording: Path, out: Path) -> tuple[dict[str, Any], list[Any]]:
    """Run the recording; the one hand written and the events logged."""
    played = play(recording, out)
    assert played.returncode == 0, played.stdout + played.stderr
    hands = sorted((out / "hands").glob("*.phh"))
    assert len(hands) == 1, played.stdout
    return tomllib.loads(hands[0].read_text()), load_events((out / "events.jsonl").read_text())


def truth(recording: Path) -> dict[str, Any]:
    text = (recording / "truth" / "truth.phh").read_text()
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

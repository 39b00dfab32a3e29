"""A misdeal and its redeal at a live table: the deal's first card dealt face up, taken back, the deck reshuffled
and the hand dealt again (``sim record --violation misdeal``), played by ``tablewatch run --fast``. The misdeal is
found (TDA-22A(7)), the misdealt hand is void, and the redeal is captured as the truth's hand at the same button,
its history carrying the misdeal, which the room's statistics count against the dealer."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner
from pokerkit import HandHistory

from tablewatch.cli import cli
from tablewatch.events import HandEnded, HandStarted, load_events
from tablewatch.sim.cli import sim
from tests.support.recording import RAISE_TAKES_THE_BLINDS, play

pytestmark = pytest.mark.slow


def test_a_misdeal_is_found_and_its_redeal_captured_as_the_hand(tmp_path: Path) -> None:
    (tmp_path / "hand.phh").write_text("[1]\n" + RAISE_TAKES_THE_BLINDS)
    made = CliRunner().invoke(sim, ["record", "--phh", str(tmp_path / "hand.phh"), "--violation", "misdeal",
                                    "-o", str(tmp_path / "rec")])
    assert made.exit_code == 0, made.output
    room = tmp_path / "room.sqlite"  # the room's hand store, as configured (hand_store)
    table = tmp_path / "rec" / "table.toml"
    table.write_text(f'hand_store = "sqlite:///{room}"\n' + table.read_text())
    played = play(tmp_path / "rec", tmp_path / "out", "--fast")
    assert played.returncode == 0, played.stdout + played.stderr

    events = load_events((tmp_path / "out" / "events.jsonl").read_text())
    starts = [(e.hand_no, e.button, e.seats) for e in events if isinstance(e, HandStarted)]
    assert [n for n, *_ in starts] == [1, 2] and starts[0][1:] == starts[1][1:]  # same button and seats
    assert [(e.hand_no, e.void) for e in events if isinstance(e, HandEnded)] == [(1, True), (2, False)]

    alerts = [json.loads(line) for line in (tmp_path / "out" / "alerts.jsonl").read_text().splitlines()]
    assert [(a["rule_id"], a["hand_no"]) for a in alerts if not a["rule_id"].startswith("SYS-")] == [
        ("TDA-22A(7)", 1)]

    written = sorted((tmp_path / "out" / "hands").glob("*.phh"))
    assert [p.name for p in written] == ["T01-00002.phh"]  # the void hand is no hand history
    hand = tomllib.loads(written[0].read_text())
    with (tmp_path / "rec" / "truth" / "truth.phhs").open("rb") as handle:
        truth = next(iter(HandHistory.load_all(handle)))
    assert hand["actions"][4:] == truth.actions[4:]
    assert hand["starting_stacks"] == list(truth.starting_stacks)
    assert hand["finishing_stacks"] == list(list(truth)[-1].stacks)
    assert [(v["rule_id"], v["by"]) for v in hand["_tablewatch_violations"]] == [("TDA-22A(7)", "dealer")]
    stats = CliRunner().invoke(cli, ["stats", str(room), "--json"])
    [row] = json.loads(stats.stdout)
    assert row["hands"] == 1 and row["dealer_errors_by_rule"] == {"TDA-22A(7)": 1}

"""``tablewatch run --fast``: a recording played as fast as the table goes, through the same real drivers, with
every reading stamped at its moment of the recording: the console's entries when they were typed, the chips a
reader's sweep after they moved (``SWEEP_S``), the video's frames at their place in the file. The recordings
(``tablewatch sim record``) are the demo's deal and preflop, and a whole real hand; the hands the run writes are
the truth's."""

from __future__ import annotations

import json
import threading
import tomllib
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from pokerkit import HandHistory
from rich.console import Console

from tablewatch.config import ConfigError
from tablewatch.devices.recording import read_rfid_timeline
from tablewatch.events import ChipsLeftTable, ChipsMoved, Declaration, HandStarted, load_events
from tablewatch.sim.cli import sim
from tablewatch.table.cli import run as run_command
from tablewatch.table.config import RunConfig
from tablewatch.table.replay_clock import SWEEP_S, ReplayClock
from tablewatch.table.run import load_run_config, run_table
from tests.support.recording import RAISE_TAKES_THE_BLINDS, RECORDED_S, play

KNOWN = "E007000000000001"
PREFLOP = ["p3 f", "p4 cbr 300", "p1 cbr 900"]


@pytest.fixture(scope="module")
def whole_hand(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A recording of one whole real hand (~21 s of the table)."""
    folder = tmp_path_factory.mktemp("whole-hand")
    (folder / "hand.phh").write_text("[1]\n" + RAISE_TAKES_THE_BLINDS)
    made = CliRunner().invoke(sim, ["record", "--phh", str(folder / "hand.phh"), "-o", str(folder / "rec")])
    assert made.exit_code == 0, made.output
    return folder / "rec"


def truth(recording: Path) -> dict[str, Any]:
    return tomllib.loads((recording / "truth" / "truth.phhs").read_text())["1"]


def the_hand(out: Path) -> dict[str, Any]:
    hands = sorted((out / "hands").glob("*.phh"))
    assert len(hands) == 1, hands
    return tomllib.loads(hands[0].read_text())


def read_within_a_sweep(events: list[Any], recording: Path) -> bool:
    """Every chip move the readers report is stamped within a sweep after a change of the recording's RFID
    timeline."""
    changes = {r.ts for r in read_rfid_timeline(recording / "rfid.jsonl")}
    moves = [e.ts for e in events if isinstance(e, ChipsMoved) and e.source == "rfid"]
    return bool(moves) and all(any(0 < ts - t <= SWEEP_S + 1e-6 for t in changes) for ts in moves)


@pytest.mark.slow
def test_run_fast_captures_the_recorded_hand_on_the_recordings_clock(recording: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    played = play(recording, out, "--fast")
    assert played.returncode == 0, played.stdout + played.stderr
    assert "as fast as it goes" in played.stdout
    hand, expected = the_hand(out), truth(recording)
    assert hand["seats"] == expected["seats"] == [3, 6, 8, 1]
    assert hand["starting_stacks"] == expected["starting_stacks"]
    assert hand["actions"][4:7] == expected["actions"][4:7] == PREFLOP
    events = load_events((out / "events.jsonl").read_text())
    # typed at 10.4 on the recording's clock, stamped the console's typing lag (0.5 s) before
    assert [(e.ts, e.seat, e.word) for e in events if isinstance(e, Declaration)] == [(9.9, 3, "raise")]
    assert read_within_a_sweep(events, recording)
    assert [(e.hand_no, e.button) for e in events if isinstance(e, HandStarted)] == [(1, 1)]
    alerts = [json.loads(line) for line in (out / "alerts.jsonl").read_text().splitlines()]
    violations = json.loads((recording / "truth" / "violations.json").read_text())
    # The rules find what the truth holds in the recorded seconds (SYS-: the sensors' own alerts).
    assert [a["rule_id"] for a in alerts if not a["rule_id"].startswith("SYS-")] == [
        v["rule_id"] for v in violations if v["ts"] < RECORDED_S]


@pytest.mark.slow
def test_run_fast_plays_a_whole_hand_to_the_truths_final_stacks(whole_hand: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    played = play(whole_hand, out, "--fast")
    assert played.returncode == 0, played.stdout + played.stderr
    hand, expected = the_hand(out), truth(whole_hand)
    for field in ("seats", "starting_stacks", "blinds_or_straddles"):
        assert hand[field] == expected[field]
    assert hand["actions"][4:] == expected["actions"][4:] == ["p3 f", "p4 cbr 200", "p1 f", "p2 f"]
    played_out = HandHistory(**{k: v for k, v in expected.items() if not k.startswith("_")})
    assert hand["finishing_stacks"] == list(played_out)[-1].stacks == [17672, 1750, 10000, 13160]
    alerts = [json.loads(line) for line in (out / "alerts.jsonl").read_text().splitlines()]
    assert [a for a in alerts if not a["rule_id"].startswith("SYS-")] == []  # a clean hand, as the truth's
    assert json.loads((whole_hand / "truth" / "violations.json").read_text()) == []


@pytest.mark.slow
def test_run_fast_without_a_camera_finds_the_hand_from_the_readers_and_the_console(recording: Path,
                                                                                 tmp_path: Path) -> None:
    config = load_run_config(recording / "table.toml").model_copy(update={"cameras": [], "out": tmp_path / "out"})
    with (tmp_path / "screen.txt").open("w") as screen:
        run_table(config, console=Console(file=screen), duration=120.0, fast=True)
    hand, expected = the_hand(tmp_path / "out"), truth(recording)
    assert hand["seats"] == expected["seats"]
    assert hand["starting_stacks"] == expected["starting_stacks"]
    events = load_events((tmp_path / "out" / "events.jsonl").read_text())
    # typed at 10.4 on the recording's clock, stamped the console's typing lag (0.5 s) before
    assert [(e.ts, e.seat, e.word) for e in events if isinstance(e, Declaration)] == [(9.9, 3, "raise")]
    assert read_within_a_sweep(events, recording)


def test_fast_chips_taken_off_the_table_leave_it_on_the_paced_readers_sweep(tmp_path: Path) -> None:
    """A chip moved to the bet at 0.4 s and gone at 1.0 s: read a sweep after each; counted gone on the first
    sweep at least LEAVE_AFTER_S (0.75 s) after the one that missed it, sweeps SWEEP_S apart."""
    lines = [("0.0", "seat3.stack", [KNOWN]), ("0.0", "seat3.bet", []), ("0.4", "seat3.stack", []),
             ("0.4", "seat3.bet", [KNOWN]), ("1.0", "seat3.bet", [])]
    (tmp_path / "rfid.jsonl").write_text("".join(
        json.dumps({"type": "RfidInventory", "ts": float(ts), "table": "T01", "source": "rfid", "antenna": antenna,
                    "uids": uids}) + "\n" for ts, antenna, uids in lines))
    (tmp_path / "console.txt").write_text("0.6 3 bet 100\n")
    registry = tmp_path / "registry.csv"
    registry.write_text(f"uid,denomination,chip_set\n{KNOWN},100,house\n")
    config = RunConfig(table="T01", registry=registry, out=tmp_path / "out", console="replay",
                       readers=[{"url": "replay", "antennas": {"seat3.stack": 1, "seat3.bet": 2}}],
                       replay={"rfid": tmp_path / "rfid.jsonl", "console": tmp_path / "console.txt",
                               "length_s": 3.0, "settle_s": 0.5})
    with (tmp_path / "screen.txt").open("w") as screen:
        run_table(config, console=Console(file=screen), duration=60.0, status_every=0.5, fast=True)
    events = load_events((tmp_path / "out" / "events.jsonl").read_text())
    assert [(round(e.ts, 6), e.src, e.dst, e.chips.value) for e in events if isinstance(e, ChipsMoved)] == [
        (0.5, "seat3.stack", "seat3.bet", 100)]
    # keyed at 0.6, stamped the console's typing lag (0.5 s) before
    assert [(round(e.ts, 6), e.word, e.amount) for e in events if isinstance(e, Declaration)] == [(0.1, "bet", 100)]
    left = [(round(e.ts, 6), e.zone) for e in events if isinstance(e, ChipsLeftTable)]
    assert left == [(1.9, "seat3.bet")]  # missed by the sweep at 1.1, gone 8 sweeps later


def test_fast_needs_a_recording(tmp_path: Path) -> None:
    table = tmp_path / "table.toml"
    table.write_text(f'table = "T01"\nout = "{tmp_path / "out"}"\n')
    result = CliRunner().invoke(run_command, [str(table), "--fast"])
    assert result.exit_code == 2 and "no [replay]" in result.output
    with pytest.raises(ConfigError, match="replay"):
        run_table(load_run_config(table), console=Console(file=None, quiet=True), fast=True)


def test_the_replay_clock_moves_only_once_every_player_waits_and_no_further_than_the_earliest() -> None:
    clock, stop = ReplayClock(), threading.Event()
    camera, reader = clock.join("camera"), clock.join("reader", prompted=True)
    seen: list[tuple[str, float]] = []

    def play(player: Any, dues: list[float]) -> None:
        for due in dues:
            if player.sleep_until(due, stop):
                return
            seen.append((player.name, clock()))
        player.leave()

    threads = [threading.Thread(target=play, args=(camera, [0.04, 0.08])),
               threading.Thread(target=play, args=(reader, [0.1]))]
    for thread in threads:
        thread.start()
    for expected in (0.04, 0.08, 0.1):
        assert clock.earliest_due(stop) == expected
        clock.move_to(expected)
        clock.release()
    for thread in threads:
        thread.join(timeout=10)
    assert seen == [("camera", 0.04), ("camera", 0.08), ("reader", 0.1)]
    assert clock.earliest_due(stop) == float("inf")  # both left

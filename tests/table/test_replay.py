"""A recorded session played by ``tablewatch run`` through the real devices: the S6350 driver answered by the
reader emulator over a pty, the serial console fed over a pty, the video file as the camera.

The recording is the demo scenario's first seconds (``tablewatch sim record``): the blinds, the deal and the
preflop betting with seat 3's spoken raise, typed into the console a little later.
"""

from __future__ import annotations

import time
from functools import partial
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

from tablewatch.config import ConfigError
from tablewatch.devices.emulator import Faults, ReaderEmulator
from tablewatch.devices.recording import read_console_entries, read_rfid_timeline
from tablewatch.events import CardDealt, ChipsMoved, Declaration, RfidInventory, load_events
from tablewatch.table import replay as replay_module
from tablewatch.table.cli import run as run_command
from tablewatch.table.config import RunConfig
from tablewatch.table.run import load_run_config, run_table
from tests.support.recording import RECORDED_S, play

ROOT = Path(__file__).resolve().parents[2]
KNOWN = "E007000000000001"


@pytest.mark.slow
def test_a_recording_holds_what_the_devices_capture_and_the_truth_apart(recording: Path) -> None:
    names = {p.name for p in recording.iterdir()}
    assert {"table.toml", "overhead_720p.mp4", "profile.toml", "registry.csv", "rfid.jsonl", "console.txt",
            "truth"} <= names
    assert {p.name for p in (recording / "truth").iterdir()} == {"truth.phhs", "events.jsonl", "violations.json"}
    config = load_run_config(recording / "table.toml")
    assert config.replay is not None and config.replay.length_s == RECORDED_S
    assert "truth" not in (recording / "table.toml").read_text()
    # The dealer types seat 3's raise in the console's syntax, after it is spoken; no new-hand press.
    assert [(e.t, e.line) for e in read_console_entries(recording / "console.txt")] == [(10.4, "3 raise 900")]
    reads = read_rfid_timeline(recording / "rfid.jsonl")
    assert {r.ts for r in reads if r.antenna == "seat3.stack"} > {0.0}  # the table as it starts, then changes
    assert max(r.ts for r in reads) < RECORDED_S


@pytest.mark.slow
def test_run_plays_a_recording_through_the_real_drivers_and_ends_with_it(recording: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    started = time.monotonic()
    played = play(recording, out)
    elapsed = time.monotonic() - started
    assert played.returncode == 0, played.stdout + played.stderr
    assert elapsed < 100  # ended with the recording, not by --duration
    events = load_events((out / "events.jsonl").read_text())
    inventories = [e for e in events if isinstance(e, RfidInventory)]
    assert inventories and {e.source for e in inventories} == {"rfid"}
    assert any(isinstance(e, ChipsMoved) and e.source == "rfid" for e in events)  # the blinds and bets
    assert [(e.seat, e.word, e.amount) for e in events
            if isinstance(e, Declaration) and e.source == "console"] == [(3, "raise", 900)]
    assert any(isinstance(e, CardDealt) and e.source == "vision" for e in events)
    assert (out / "hands").is_dir()


@pytest.mark.parametrize("answer_delay", [0.0, 0.45])
def test_a_table_of_rfid_and_console_only_replays_and_stops_at_the_recordings_end(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, answer_delay: float) -> None:
    # A reader slow to answer (as on a busy machine) still reads what lay on its antennas at the start: the
    # recording plays from its first complete sweep.
    monkeypatch.setattr(replay_module, "ReaderEmulator",
                        partial(ReaderEmulator, faults=Faults(delay=answer_delay)))
    (tmp_path / "rfid.jsonl").write_text(
        f'{{"type": "RfidInventory", "ts": 0.0, "table": "T01", "source": "rfid", "antenna": "seat3.stack", '
        f'"uids": ["{KNOWN}"]}}\n'
        f'{{"type": "RfidInventory", "ts": 0.0, "table": "T01", "source": "rfid", "antenna": "seat3.bet", '
        f'"uids": []}}\n'
        f'{{"type": "RfidInventory", "ts": 0.4, "table": "T01", "source": "rfid", "antenna": "seat3.stack", '
        f'"uids": []}}\n'
        f'{{"type": "RfidInventory", "ts": 0.4, "table": "T01", "source": "rfid", "antenna": "seat3.bet", '
        f'"uids": ["{KNOWN}"]}}\n')
    (tmp_path / "console.txt").write_text("# seconds, line\n0.6 3 bet 100\n")
    registry = tmp_path / "registry.csv"
    registry.write_text(f"uid,denomination,chip_set\n{KNOWN},100,house\n")
    config = RunConfig(table="T01", registry=registry, out=tmp_path / "out", console="replay",
                       readers=[{"url": "replay", "antennas": {"seat3.stack": 1, "seat3.bet": 2},
                                 "response_timeout": 0.5, "poll_interval": 0.05}],
                       replay={"rfid": tmp_path / "rfid.jsonl", "console": tmp_path / "console.txt",
                               "length_s": 1.0, "settle_s": 1.5})
    started = time.monotonic()
    with (tmp_path / "screen.txt").open("w") as screen:
        run_table(config, console=Console(file=screen), duration=60.0, status_every=0.5)
    assert time.monotonic() - started < 30
    events = load_events((tmp_path / "out" / "events.jsonl").read_text())
    assert [(e.seat, e.src, e.dst, e.chips.value) for e in events if isinstance(e, ChipsMoved)] == [
        (3, "seat3.stack", "seat3.bet", 100)]
    assert [(e.seat, e.word, e.amount) for e in events if isinstance(e, Declaration)] == [(3, "bet", 100)]


@pytest.mark.parametrize(("name", "text", "problem"), [
    ("rfid.jsonl", '{"type": "RfidInventory", "ts": 1.0, "table": "T", "source": "rfid", "antenna": "pot", '
                   '"uids": ["not-a-uid"]}\n', "rfid.jsonl, line 1"),
    ("rfid.jsonl", '{"type": "Declaration", "ts": 1.0, "table": "T", "source": "x", "word": "fold"}\n',
     "rfid.jsonl, line 1"),
    ("rfid.jsonl", "[1, 2]\n", "rfid.jsonl, line 1"),
    ("console.txt", "0.5 3 call\nsoon 3 fold\n", "console.txt, line 2"),
    ("console.txt", "-1 3 call\n", "console.txt, line 1"),
])
def test_a_broken_recording_is_named_before_anything_runs(tmp_path: Path, name: str, text: str,
                                                         problem: str) -> None:
    (tmp_path / name).write_text(text)
    key = name.split(".")[0]
    config = tmp_path / "table.toml"
    (tmp_path / "registry.csv").write_text(f"uid,denomination,chip_set\n{KNOWN},100,house\n")
    config.write_text(f'table = "T"\nregistry = "{tmp_path / "registry.csv"}"\n[[readers]]\nurl = "replay"\n'
                      f'[replay]\n{key} = "{tmp_path / name}"\n')
    result = CliRunner().invoke(run_command, [str(config), "--validate"])
    assert result.exit_code != 0 and problem in result.output
    with pytest.raises(ConfigError, match=problem.replace(".", r"\.")):
        load_run_config(config)

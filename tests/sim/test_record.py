"""``tablewatch sim record``: a PHH file's hands as one continuous recording of the table's devices."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from tablewatch.cli import cli
from tablewatch.devices.console import parse_text
from tablewatch.devices.recording import read_console_entries
from tablewatch.events import HandEnded, HandStarted
from tablewatch.sim.record import console_entries, rfid_timeline
from tablewatch.sim.scenarios import example
from tablewatch.sim.session import Simulation, phh_scenario
from tablewatch.table.run import load_run_config

DEMO_HANDS = Path(__file__).resolve().parents[2] / "tablewatch" / "bench" / "data" / "demo_hands.phh"


def test_a_phh_files_hands_play_one_after_another_on_one_clock() -> None:
    sim = Simulation(phh_scenario(DEMO_HANDS, 1, count=3))
    starts = [e for e in sim.events if isinstance(e, HandStarted)]
    ends = [e for e in sim.events if isinstance(e, HandEnded)]
    assert [e.hand_no for e in starts] == [1, 2, 3] and len(sim.hands) == 3
    assert all(end.ts < start.ts for end, start in zip(ends, starts[1:], strict=False))
    assert {tuple(hh.blinds_or_straddles or ())[:2] for hh in sim.hands} == {(500, 1000)}  # one chip unit
    reads = rfid_timeline(sim, until=sim.duration)
    assert min(r.ts for r in reads) == 0.0 and max(r.ts for r in reads) > starts[2].ts  # every hand's chips


def test_each_dealt_in_seats_stack_antenna_reads_its_starting_stack_as_the_hand_starts() -> None:
    """Chips that lie untouched until they are cleared away stay on their antenna until then: the first read of
    every stack antenna holds the first hand's starting stacks, and the reads before each later hand hold its."""
    sim = Simulation(phh_scenario(DEMO_HANDS, 1, count=3))
    reads = [r for r in rfid_timeline(sim, until=sim.duration) if r.antenna.endswith(".stack")]

    def value(uids: tuple[str, ...]) -> int:
        return sum(sim.registry[uid] for uid in uids)

    starts = [e for e in sim.events if isinstance(e, HandStarted)]
    first_reads = {r.seat: value(r.uids) for r in reversed(reads)}
    assert {s: first_reads[s] for s in starts[0].seats} == dict(zip(starts[0].seats, starts[0].stacks, strict=True))
    for start in starts[1:]:
        as_it_starts = {r.seat: value(r.uids) for r in reads if r.ts <= start.ts}
        assert {s: as_it_starts[s] for s in start.seats} == dict(zip(start.seats, start.stacks, strict=True)), \
            f"hand {start.hand_no}"


def test_record_writes_a_table_that_plays_it(tmp_path: Path) -> None:
    out = tmp_path / "rec"
    result = CliRunner().invoke(cli, ["sim", "record", "--phh", str(DEMO_HANDS), "--hands", "2", "-o", str(out),
                                      "--max-seconds", "1", "--fps", "5", "--no-effects"])
    assert result.exit_code == 0, result.output
    assert (out / "truth" / "truth.phhs").read_text().count("\n[") == 1  # two hands: [1] and [2]
    summary = json.loads((out / "recording.json").read_text())
    assert (summary["length_s"], summary["frames"], summary["console_entries"]) == (1.0, 5, 0)
    config = load_run_config(out / "table.toml")  # the profile calibrated from the video is usable
    assert config.replay is not None and config.cameras[0].profile == out.resolve() / "profile.toml"
    assert config.game.big_blind == 1000 and 500 in config.game.chip_denominations


def test_a_scenario_file_lists_its_own_hands(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["sim", "record", str(example("demo")), "--hands", "2", "-o", str(tmp_path)])
    assert result.exit_code != 0 and "go with --phh" in result.output


def test_at_a_table_without_a_camera_the_dealer_keys_each_hands_start_and_every_action(tmp_path: Path) -> None:
    out = tmp_path / "rec"
    result = CliRunner().invoke(cli, ["sim", "record", "--phh", str(DEMO_HANDS), "--hands", "2", "-o", str(out),
                                      "--no-camera"])
    assert result.exit_code == 0, result.output
    assert not (out / "overhead_720p.mp4").exists() and not (out / "profile.toml").exists()
    config = load_run_config(out / "table.toml")
    assert config.cameras == [] and len(config.readers) == 1 and config.registry is not None
    assert json.loads((out / "recording.json").read_text())["devices"] == ["rfid", "console"]
    entries = read_console_entries(out / "console.txt")
    for entry in entries:
        parse_text(entry.line)  # every line is one the console takes
    lines = [e.line for e in entries]
    starts = [i for i, line in enumerate(lines) if line == "new hand"]
    assert len(starts) == 2
    assert lines[:7] == ["new hand", "button 6", *(f"seat {s} open" for s in (2, 3, 4, 5, 6))]
    # hand 2 (from another table: turned one seat round so that its button is where the dead-button rule puts it,
    # last hand's small blind): seats 4 and 6 left, seat 1 came
    assert lines[starts[1]:starts[1] + 5] == ["new hand", "button 2", "seat 4 closed", "seat 6 closed", "seat 1 open"]
    sim = Simulation(phh_scenario(DEMO_HANDS, 1, count=2))
    starts_at = [e.ts for e in sim.events if isinstance(e, HandStarted)]
    assert [entries[i].t for i in starts] == [round(t + 0.8, 3) for t in starts_at]  # a little after it happens
    # every action of hand 1 keyed: the truth's fold/check-or-call/bet-or-raise, in order
    assert lines[7:starts[1]] == ["4 fold", "5 fold", "6 raise 2000", "2 fold", "3 call", "3 check", "6 check",
                                  "3 check", "6 check", "3 bet 2000", "6 fold"]
    assert [a for a in sim.hands[0].actions if not a.startswith("d ")] == [
        "p3 f", "p4 f", "p5 cbr 2000", "p1 f", "p2 cc", "p2 cc", "p5 cc", "p2 cc", "p5 cc", "p2 cbr 2000", "p5 f"]


def test_a_declared_action_is_typed_as_said_not_keyed_again() -> None:
    sim = Simulation.from_file(example("demo"))  # seat 3 says "raise 900" as he raises
    assert [(a.seat, a.word, a.amount) for a in sim.actions if a.spoken] == [(3, "raise", 900)]
    lines = [e.line for e in console_entries(sim, delay_s=0.8, until=sim.duration, keyed=True)]
    assert lines.count("3 raise 900") == 1
    assert lines[6:10] == ["8 fold", "1 raise 300", "3 raise 900", "6 call"]


def test_a_table_without_rfid_has_no_reader(tmp_path: Path) -> None:
    out = tmp_path / "rec"
    result = CliRunner().invoke(cli, ["sim", "record", "--phh", str(DEMO_HANDS), "-o", str(out), "--no-rfid",
                                      "--max-seconds", "1", "--fps", "5", "--no-effects"])
    assert result.exit_code == 0, result.output
    assert not (out / "rfid.jsonl").exists() and not (out / "registry.csv").exists()
    config = load_run_config(out / "table.toml")
    assert config.readers == [] and config.registry is None and len(config.cameras) == 1
    assert config.replay is not None and config.replay.rfid is None


def test_a_console_alone_is_no_recorded_table(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["sim", "record", "--phh", str(DEMO_HANDS), "-o", str(tmp_path), "--no-rfid",
                                      "--no-camera"])
    assert result.exit_code != 0 and "console alone" in result.output

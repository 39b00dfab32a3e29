"""A continuous session of 20 real hands at a table with RFID readers and a dealer console (no camera), recorded
and played by ``tablewatch run --fast``: stacks carried from hand to hand, a player busting and a new one seated
in his place, each hand found from the devices alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablewatch.bench.through_run import score_run
from tablewatch.events import HandStarted, load_events
from tablewatch.sim.record import record
from tablewatch.sim.session import Simulation, phh_scenario
from tests.support.recording import play

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1000)]  # 500 s of table played as fast as the machine goes


def test_twenty_hands_with_a_bust_and_a_new_player_are_each_found_and_set_up_right(shared_dir: Path,
                                                                                  tmp_path: Path) -> None:
    sim = Simulation(phh_scenario(shared_dir / "data/hands/high_stakes/ps_1000nl_.phh", 1, seed=1, count=20))
    truth = [e for e in sim.events if isinstance(e, HandStarted)]
    *_, first_hand_end = sim.hands[0]
    busted = [seat for seat, stack in zip(sim.hands[0].seats or [], first_hand_end.stacks, strict=True) if not stack]
    assert len(busted) == 1  # a player busts in the first hand
    seat = busted[0]
    later = next(n for n, start in enumerate(truth) if n > 1 and seat in start.seats)  # a new player sits there
    assert seat not in truth[1].seats and later < 6
    summary = record(sim, tmp_path / "recording", camera=False, progress=False)
    played = play(tmp_path / "recording", tmp_path / "out", "--fast")
    assert played.returncode == 0, played.stderr[-2000:]
    session, frame = score_run(tmp_path / "recording", tmp_path / "out", session_s=summary["length_s"], wall_s=1.0,
                               frames=0, camera="none")
    assert (frame.hands_found, frame.extra_hands) == (20, 0)
    assert frame.starts_right == frame.buttons_right == frame.stacks_right == 20, frame.wrong
    found = [e for e in load_events((tmp_path / "out" / "events.jsonl").read_text()) if isinstance(e, HandStarted)]
    assert dict(zip(found[later].seats, found[later].stacks, strict=True))[seat] == dict(
        zip(truth[later].seats, truth[later].stacks, strict=True))[seat]  # the new player's stack, from the ledger
    # Raises are declared before their chips and keyed after them: the console's typing lag orders them as said.
    assert session.hands_exact == 20, session.inexact

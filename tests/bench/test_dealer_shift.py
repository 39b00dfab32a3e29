"""The dealer-shift bench's session: dealers take turns, each hand's dealer error drawn at the dealer's rate, and the
console names each dealer as they sit down."""

from __future__ import annotations

from pathlib import Path

from tablewatch.bench.dealer_shift import sampling_error, shift_session
from tablewatch.events import HandStarted
from tablewatch.sim.record import DEALER_PUSH_S, dealer_entries


def test_dealers_take_turns_each_at_their_own_error_rate(shared_dir: Path) -> None:
    hands_file = shared_dir / "data/hands/high_stakes/ps_1000nl_.phh"
    sim, dealers, injected = shift_session(hands_file, rates={"Ann": 1.0, "Bo": 0.0}, hands=6, first=1, down=2,
                                           seed=3)
    assert dealers == ["Ann", "Ann", "Bo", "Bo", "Ann", "Ann"]
    assert injected["Bo"] == 0 and 1 <= injected["Ann"] <= 4  # where the simulator could stage one
    assert {v.type for v in sim.violations} <= {"missing_burn", "double_burn", "four_card_flop",
                                                 "card_exposed_in_deal", "wrong_pot_push"}
    starts = [e.ts for e in sim.events if isinstance(e, HandStarted)]
    pushes = dealer_entries(sim, dealers)
    assert [(entry.line, round(starts[k] - entry.t, 3)) for entry, k in zip(pushes, (0, 2, 4), strict=True)] == [
        ("dealer Ann", min(DEALER_PUSH_S, starts[0])), ("dealer Bo", DEALER_PUSH_S), ("dealer Ann", DEALER_PUSH_S)]
    assert sampling_error(0.5, 100) == 0.05

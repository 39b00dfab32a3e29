"""Real hands (shared/data/hands/high_stakes) replayed from physical events must match pokerkit's replay.

The suite replays a fixed sample of each file (every 25th hand); ``tablewatch replay FILE`` does all 2,989.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tablewatch.events import BetMotion, CardBurned, CardDealt, Declaration, Tap
from tablewatch.history.ohh import to_ohh
from tablewatch.phhfile import PhhError, parse_section, split_sections
from tablewatch.rules.replay import (
    normalize,
    oracle,
    perform,
    replay_hand,
)
from tablewatch.rules.table import TableRules

FILES = ("ftp_1000nl_.phh", "ipn_1000nl_.phh", "ps_1000nl_.phh")
EVERY = 25


def _sample(shared_dir: Path, name: str) -> list[tuple[str, object]]:
    path = shared_dir / "data" / "hands" / "high_stakes" / name
    sections = split_sections(path.read_text(encoding="utf-8"))
    return [(s.name, normalize(parse_section(s, str(path)), s.name)) for s in sections[::EVERY]]


@pytest.mark.parametrize("name", FILES)
def test_real_hands_replayed_from_physical_events_match_pokerkit(shared_dir: Path, name: str) -> None:
    hands = _sample(shared_dir, name)
    assert len(hands) >= 39
    failures = []
    for k, (label, hand) in enumerate(hands):
        result = replay_hand(hand, hand_no=k + 1)  # type: ignore[arg-type]
        if not result.ok:
            failures.append((label, result.error, result.mismatches))
            continue
        ohh = to_ohh(result.finished)["ohh"]  # type: ignore[arg-type]  # the OHH export of every replayed hand
        won = sum(w["win_amount"] for pot in ohh["pots"] for w in pot["player_wins"])
        assert won == pytest.approx(sum(pot["amount"] for pot in ohh["pots"]))
    assert not failures, failures[:3]


def test_replay_acts_out_every_action_at_the_table(shared_dir: Path) -> None:
    """The events are physical: cards pitched round the table, burns, chips, taps, declarations."""
    (_, hand), *_ = _sample(shared_dir, "ftp_1000nl_.phh")[1:2]
    truth = oracle(hand)  # type: ignore[arg-type]
    rules = TableRules(hand.config, strict=True)  # type: ignore[attr-defined]
    events = list(perform(hand, truth, rules, hand_no=1, table="T"))  # type: ignore[arg-type]
    kinds = {e.kind for e in events}
    assert {"HandStarted", "CardDealt", "HandEnded"} <= kinds
    deal = [e.seat for e in events if isinstance(e, CardDealt)]
    assert deal[: len(hand.seats)] == list(hand.seats)  # type: ignore[attr-defined]
    betting = [e for e in events if isinstance(e, BetMotion | Tap | Declaration)]
    assert betting and all(isinstance(e.chips.value, int) for e in events if isinstance(e, BetMotion))
    boards = [e for e in events if e.kind == "BoardCardDealt"]
    burns = [e for e in events if isinstance(e, CardBurned)]
    assert len(burns) == (1 if boards else 0) + (len(boards) > 3) + (len(boards) > 4)  # one burn per street


def test_malformed_hand_names_the_hand_and_line() -> None:
    text = '[1]\nvariant = "NT"\n\n[2]\nvariant = "NT"\nantes = [0, 0\nmin_bet = 10\n'
    sections = split_sections(text)
    with pytest.raises(PhhError, match=r"f.phh: hand \[2\] line 7"):
        parse_section(sections[1], "f.phh")


def test_unknown_variant_is_a_clear_error() -> None:
    text = ("variant = 'K'\nantes = [0, 0]\nblinds_or_straddles = [1, 2]\nmin_bet = 2\n"
            "starting_stacks = [50, 50]\nactions = []\n")
    with pytest.raises(PhhError, match=r"variant 'K' is not replayed \(only NT, FT, PO, FO/8, F7S, F7S/8, FR, NS, "):
        normalize(parse_section(split_sections(text)[0], "x.phh"), "1")

"""Hand histories: every PHH tablewatch writes is loaded and replayed by pokerkit; OHH export."""

from __future__ import annotations

import dataclasses
import json
import warnings
from decimal import Decimal

import pytest
from pokerkit import HandHistory

from tablewatch.events import CardsTabled
from tablewatch.hands import FinishedHand
from tablewatch.history.ohh import dumps_ohh, to_ohh
from tablewatch.history.phh import PhhExportError, dumps_phh, to_hand_history
from tablewatch.phhfile import player_names
from tablewatch.rules.game import GameConfig, Variant
from tests.rules.engine_helpers import Hand

CENTS = GameConfig(small_blind=500, big_blind=1000, currency_unit=Decimal("0.01"), currency_symbol="$")


def played_hand(config: GameConfig = CENTS) -> FinishedHand:
    """Three players; a string raise and an undercall on the way, then a showdown."""
    cards = {1: "AsAh", 2: "KsKh", 3: "QsQh"}
    hand = Hand(config, {1: 100_000, 2: 150_050, 3: 80_000}, cards=cards, button=3)
    hand.act(3, "cbr 3000")
    hand.act(1, "cc")
    hand.act(2, "cc")
    hand.board("2c", "7d", "9h")
    hand.act(1, "cc")
    hand.chips(2, {1000: 2, 500: 1}, motions=2, values=(1250, 1250))  # in two motions, no declaration: 1250
    hand.chips(3, {500: 1})  # an undercall of the 1250 bet: completed to a call
    hand.act(1, "cc")
    assert hand.engine.snapshot().phase == "turn"
    hand.board("Jc")
    for seat in (1, 2, 3):
        hand.act(seat, "cc")
    hand.board("3d")
    for seat in (1, 2, 3):
        hand.act(seat, "cc")
    for seat in (1, 2, 3):
        hand.feed(CardsTabled, seat=seat, cards=(cards[seat][:2], cards[seat][2:]))
    return hand.end()


def replay_in_pokerkit(text: str) -> list:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        histories = list(HandHistory.loads_all(text)) if text.startswith("[1]") else [HandHistory.loads(text)]
        finals = []
        for hh in histories:
            state = None
            for state in hh:  # noqa: B007
                pass
            finals.append((hh, state))
    return finals


def test_written_phh_is_loaded_and_replayed_by_pokerkit_to_the_same_result() -> None:
    done = played_hand()
    text = dumps_phh([done])
    [(hh, state)] = replay_in_pokerkit(text)
    assert not state.status
    assert [Decimal(str(s)) for s in state.stacks] == [Decimal(done.final_stacks[s]) / 100 for s in done.order]
    assert hh.starting_stacks[0] == Decimal("1000.00") and hh.min_bet == Decimal("10.00")
    rules = {v["rule_id"] for v in hh.user_defined_fields["_tablewatch_violations"]}
    assert {"TDA-29", "TDA-37"} <= rules
    assert len(hh.user_defined_fields["_tablewatch_burns"]) == 3
    assert len(hh.user_defined_fields["_tablewatch_action_times"]) == len(done.actions)


def test_multi_hand_phh_has_sections_pokerkit_reads() -> None:
    one, two = played_hand(), played_hand(GameConfig(small_blind=5, big_blind=10))
    text = dumps_phh([one, two])
    assert text.startswith("[1]\n") and "\n[2]\n" in text
    finals = replay_in_pokerkit(text)
    assert len(finals) == 2 and all(not state.status for _, state in finals)


def test_phh_metadata_and_players() -> None:
    hh = to_hand_history(dataclasses.replace(played_hand(), players={1: "ann", 2: "bob", 3: "cy"}),
                         venue="Test Casino", _camera="cam1")
    text = hh.dumps()
    assert "venue = 'Test Casino'" in text and "_camera = 'cam1'" in text and "players = ['ann', 'bob', 'cy']" in text


def test_players_the_console_did_not_name_are_written_without_a_name() -> None:
    named = dataclasses.replace(played_hand(), players={2: "Bo Chan"})
    hh = to_hand_history(named)
    assert hh.players == ["", "Bo Chan", ""] and player_names(hh) == {2: "Bo Chan"}
    assert to_hand_history(played_hand()).players is None  # nobody named: no players field


def test_variant_without_a_phh_code_is_a_clear_error() -> None:
    config = GameConfig(variant=Variant.PLHE, small_blind=5, big_blind=10)
    hand = Hand(config, {1: 1000, 2: 1000})
    hand.act(2, "f")
    with pytest.raises(PhhExportError, match="no variant code for PLHE"):
        to_hand_history(hand.end())


def test_ohh_export() -> None:
    done = played_hand()
    ohh = to_ohh(done, players={1: "ann", 2: "bob", 3: "cy"})["ohh"]
    assert ohh["game_type"] == "Holdem" and ohh["bet_limit"]["bet_type"] == "NL" and ohh["dealer_seat"] == 3
    assert [p["starting_stack"] for p in ohh["players"]] == [1000, 1500.5, 800]
    streets = [r["street"] for r in ohh["rounds"]]
    assert streets == ["Preflop", "Flop", "Turn", "River", "Showdown"]
    preflop = ohh["rounds"][0]["actions"]
    assert [a["action"] for a in preflop[:2]] == ["Post SB", "Post BB"]
    raise_ = next(a for a in preflop if a["action"] == "Raise")
    assert raise_["amount"] == 30 and raise_["raise_to"] == 30
    assert ohh["rounds"][1]["cards"] == ["2c", "7d", "9h"]
    won = sum(w["win_amount"] for p in ohh["pots"] for w in p["player_wins"])
    assert won == pytest.approx(sum(p["amount"] for p in ohh["pots"]))
    assert json.loads(dumps_ohh(done))["ohh"]["game_number"] == "1"

"""The small types the gesture recognisers share."""

from __future__ import annotations

import dataclasses

import pytest

from tablewatch.calibration.layout import load_layout
from tablewatch.vision.perception.gestures import (
    DEFAULT_CONFIG,
    Episode,
    Found,
    GestureConfig,
    Gestures,
    SettleKind,
    board_slot,
)


def test_a_finding_takes_its_kind_by_name_and_parses_its_zone() -> None:
    found = Found(t=1.0, zone="seat3.bet", what="chips_in")  # type: ignore[arg-type]
    assert found.what is SettleKind.CHIPS_IN and found.what.is_chips
    assert found.place.seat == 3 and found.place.is_bet
    assert not SettleKind.CARD_OUT.is_chips
    with pytest.raises(ValueError):
        Found(t=1.0, zone="pot", what="chips_dropped")  # type: ignore[arg-type]


def test_board_slots_are_the_numbered_board_zones_only() -> None:
    assert board_slot("board.3") == 3
    assert [board_slot(z) for z in ("board", "seat3.bet", "burn", "board.x")] == [None, None, None, None]


def test_the_thresholds_are_one_frozen_set_given_to_every_recogniser() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        DEFAULT_CONFIG.gap_s = 1.0  # type: ignore[misc]
    slow = GestureConfig(decide_s=2.0)
    gestures = Gestures(load_layout("oval6"), table="T1", config=slow)
    assert gestures.config is slow and gestures.bets.config is slow and gestures.pot.config is slow


def test_an_episode_belongs_to_its_seat() -> None:
    assert Episode(actor="seat4").seat == 4

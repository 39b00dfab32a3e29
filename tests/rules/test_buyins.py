"""Buy-ins and rebuys (ENG-40: HOUSE-002-2.1, 2.2; TDA22-27): catalogue EX-99."""

from __future__ import annotations

import pytest

from tablewatch.rules.buyins import buy_in_ruling, rebuy_ruling


def test_ex_99_a_short_buy_in_below_half_the_full_buy_in_is_refused() -> None:
    ruling = buy_in_ruling(amount=4000, full_buy_in=10_000, had_full_buy_in=True)
    assert (ruling.action, ruling.minimum, ruling.rule_id) == ("refuse", 5000, "HOUSE-002-2.2")
    assert "5000" in ruling.ruling


def test_ex_99_half_or_more_is_sold() -> None:
    assert buy_in_ruling(amount=5000, full_buy_in=10_000, had_full_buy_in=True).action == "sell"
    assert buy_in_ruling(amount=4999, full_buy_in=10_000, had_full_buy_in=True).action == "refuse"
    assert buy_in_ruling(amount=2, full_buy_in=3, had_full_buy_in=True).action == "sell"  # half of 3: at least 2
    assert buy_in_ruling(amount=1, full_buy_in=3, had_full_buy_in=True).action == "refuse"


def test_a_short_buy_in_is_only_for_a_player_who_has_bought_in_full() -> None:
    ruling = buy_in_ruling(amount=5000, full_buy_in=10_000, had_full_buy_in=False)
    assert (ruling.action, ruling.minimum) == ("refuse", 10_000)
    assert buy_in_ruling(amount=10_000, full_buy_in=10_000, had_full_buy_in=False).action == "sell"


def test_chips_are_bought_between_hands_only() -> None:
    ruling = buy_in_ruling(amount=10_000, full_buy_in=10_000, had_full_buy_in=True, during_hand=True)
    assert (ruling.action, ruling.rule_id) == ("refuse", "HOUSE-002-2.1.4")


def test_bad_amounts_are_errors() -> None:
    with pytest.raises(ValueError, match="positive amount"):
        buy_in_ruling(amount=0, full_buy_in=10_000, had_full_buy_in=True)
    with pytest.raises(ValueError, match="never negative"):
        rebuy_ruling(stack=-1, declared=False, rebuy_chips=5000)


def test_a_declared_rebuy_is_binding_and_its_chips_play() -> None:
    ruling = rebuy_ruling(stack=0, declared=True, rebuy_chips=5000)
    assert (ruling.action, ruling.chips_behind, ruling.rule_id) == ("deal_in_with_rebuy", 5000, "TDA22-27")
    assert "binding" in ruling.ruling


def test_no_chips_and_no_rebuy_declared_before_the_hand_is_not_dealt_in() -> None:
    assert rebuy_ruling(stack=0, declared=False, rebuy_chips=5000).action == "not_dealt_in"
    assert rebuy_ruling(stack=300, declared=False, rebuy_chips=5000).action == "deal_in"

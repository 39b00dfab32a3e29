"""GameConfig: strict, with errors that name the bad value."""

from __future__ import annotations

from decimal import Decimal

import pytest
from pydantic import ValidationError

from tablewatch.rules.game import GameConfig, Variant


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"small_blind": 300, "big_blind": 200}, "small_blind 300 is larger than big_blind 200"),
        ({"ante": 10, "big_blind_ante": 200}, "one of ante, big_blind_ante and button_ante"),
        ({"big_blind_ante": 200, "button_ante": 200}, "one of ante, big_blind_ante and button_ante"),
        ({"straddle": 100}, "straddle 100 must be larger than big_blind 100"),
        ({"chip_denominations": (100, 25)}, "positive, distinct and ascending"),
        ({"variant": "FLHE"}, "needs small_bet"),
        ({"seat_count": 11}, "less than or equal to 10"),
        ({"blinds": 5}, "Extra inputs are not permitted"),
    ],
)
def test_bad_configs_are_clear_errors(fields: dict[str, object], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        GameConfig.model_validate(fields)


def test_variants_structures_and_money() -> None:
    omaha = GameConfig(variant=Variant.PLO)
    assert (omaha.structure, omaha.hole_cards) == ("PL", 4)
    limit = GameConfig(variant=Variant.FLHE, small_bet=100)
    assert [limit.bet_size(i) for i in range(4)] == [100, 100, 200, 200] and limit.min_bet == 100
    cents = GameConfig(currency_unit=Decimal("0.01"))
    assert cents.money(194350) == Decimal("1943.50")
    assert GameConfig(chip_denominations=(25, 100)).chip_divmod(125, 2) == (50, 25)

"""The finished hand's neutral home: the hand-history side reads it without the rules layer."""

from __future__ import annotations

from tablewatch.hands import Burn, EventTime, FinishedHand, HandGame
from tablewatch.rules.game import GameConfig, Variant, phh_code
from tests.history.test_phh_ohh import played_hand


def test_a_game_config_is_the_game_the_writers_see() -> None:
    game: HandGame = GameConfig(variant=Variant.PLO)
    assert (game.variant, game.structure, game.hole_cards) == ("PLO", "PL", 4)


def test_a_finished_hand_names_its_phh_code_burns_and_event_times() -> None:
    hand = played_hand()
    assert isinstance(hand, FinishedHand)
    assert hand.phh_variant == phh_code(hand.game) == "NT"
    assert all(isinstance(burn, Burn) for burn in hand.burns)
    assert hand.event_times[0] == EventTime(kind="HandStarted", seat=None, ts=hand.started_ts)
    assert sum(hand.winnings.values()) == 0


def test_phh_codes_cover_tablewatchs_own_fixed_limit_omaha_hi_lo() -> None:
    def code(variant: Variant) -> str | None:
        config = GameConfig(variant=variant, small_bet=100, big_bet=200)
        return phh_code(config.pokerkit_game(antes={}, blinds={0: 50, 1: 100}))

    assert code(Variant.FLO8) == "FO/8"
    assert code(Variant.PLHE) is None

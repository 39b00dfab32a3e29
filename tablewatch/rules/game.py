"""The game a table plays: variant, stakes, chip set and money unit, and the pokerkit game built from it.

Every amount in tablewatch is an integer count of the table's smallest unit (``currency_unit``): a $5/$10
game played to the cent has ``currency_unit = 0.01`` and a big blind of 1000. pokerkit is fed the same
integers; the hand-history writer turns them back into money. The variants are the hand structures of
ENG-01 (hold'em, and Omaha with 4 hole cards) and the fixed-limit stud games (seven card stud, stud hi-lo, razz:
antes and a bring-in, no blinds, no board), short-deck hold'em and the draw games (2-7 lowball single and triple
draw, badugi: blinds, a draw before each later betting round, no board); the bet sizes of each structure (ENG-06)
are ``bet_size``.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import replace
from decimal import Decimal
from typing import Literal, TypedDict

import pokerkit
from pokerkit import Automation, Mode
from pydantic import Field, model_validator

from tablewatch.config import StrictModel
from tablewatch.rules.hilo import with_hi_lo_award

Structure = Literal["NL", "PL", "FL"]

# The steps pokerkit does by itself; dealing, showing and burning come from the table's events.
AUTOMATIONS: tuple[Automation, ...] = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.RUNOUT_COUNT_SELECTION,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)


def _unknown_cards_rank_no_hand() -> None:
    """pokerkit 0.7.7 ranks a hand holding an unknown card (a board card dealt as ``??``: unread, or read as a
    card already out) by raising ``KeyError`` where its hand classes catch ``ValueError`` as "no hand": the
    showdown's hand killing then fails mid-way. Its lookup raises ``ValueError`` instead, so such cards make no
    hand, as pokerkit means them to."""
    get_key = pokerkit.lookups.Lookup._get_key

    def known_key(self: pokerkit.lookups.Lookup, cards: pokerkit.CardsLike) -> tuple[int, bool]:
        try:
            return get_key(self, cards)
        except KeyError as exc:
            raise ValueError(f"The cards {cards!r} hold an unknown card: no hand.") from exc

    pokerkit.lookups.Lookup._get_key = known_key  # type: ignore[method-assign]


_unknown_cards_rank_no_hand()


class Variant(enum.StrEnum):
    NLHE = "NLHE"
    PLHE = "PLHE"
    FLHE = "FLHE"
    NLO = "NLO"
    PLO = "PLO"
    PLO8 = "PLO8"  # Omaha high/low split, eight or better
    FLO8 = "FLO8"
    STUD = "STUD"  # seven card stud, fixed limit
    STUD8 = "STUD8"  # seven card stud high/low split, eight or better
    RAZZ = "RAZZ"  # seven card stud for the lowest hand (ace to five)
    NLSD = "NLSD"  # short-deck hold'em (36 cards), no limit
    NL27 = "NL27"  # 2-7 lowball single draw, no limit
    FL27 = "FL27"  # 2-7 lowball triple draw, fixed limit
    BADUGI = "BADUGI"  # badugi (triple draw, four cards), fixed limit


class _PotLimitTexasHoldem(pokerkit.PotLimitPokerMixin, pokerkit.TexasHoldemMixin, pokerkit.UnfixedLimitHoldem):
    """Pot-limit hold'em: pokerkit has the pieces but no preset (and PHH has no variant code for it)."""


class _NoLimitOmahaHoldem(pokerkit.NoLimitPokerMixin, pokerkit.OmahaHoldemMixin, pokerkit.UnfixedLimitHoldem):
    """No-limit Omaha: as above."""


_HI_LO = (pokerkit.OmahaHoldemHand, pokerkit.OmahaEightOrBetterLowHand)


class _PotLimitOmahaHiLo(pokerkit.PotLimitPokerMixin, pokerkit.OmahaHoldemMixin, pokerkit.UnfixedLimitHoldem):
    """Pot-limit Omaha/8: no pokerkit preset (nor PHH code)."""

    hand_types = _HI_LO


class _FixedLimitOmahaHiLo(pokerkit.FixedLimitPokerMixin, pokerkit.FixedLimitOmahaHoldemHighLowSplitEightOrBetter):
    """Fixed-limit Omaha/8 (PHH ``FO/8``). pokerkit 0.7.7's preset of that name bets it pot-limit (its class
    takes ``PotLimitPokerMixin``); the fixed-limit mixin first puts the structure right."""


# Both award their pots the TDA way (``tablewatch.rules.hilo``): identical hands that win both halves
# split the whole pot evenly, where pokerkit gives the first one the odd chip of each half.
POT_LIMIT_OMAHA_HI_LO = with_hi_lo_award(_PotLimitOmahaHiLo)
FIXED_LIMIT_OMAHA_HI_LO = with_hi_lo_award(_FixedLimitOmahaHiLo)
_PHH_CODES: dict[type[pokerkit.Poker], str] = {FIXED_LIMIT_OMAHA_HI_LO: "FO/8"}  # tablewatch's own game classes

_STRUCTURE: dict[Variant, Structure] = {
    Variant.NLHE: "NL",
    Variant.PLHE: "PL",
    Variant.FLHE: "FL",
    Variant.NLO: "NL",
    Variant.PLO: "PL",
    Variant.PLO8: "PL",
    Variant.FLO8: "FL",
    Variant.STUD: "FL",
    Variant.STUD8: "FL",
    Variant.RAZZ: "FL",
    Variant.NLSD: "NL",
    Variant.NL27: "NL",
    Variant.FL27: "FL",
    Variant.BADUGI: "FL",
}
DRAW_STREETS = ("predraw", "draw1", "draw2", "draw3")  # the betting before the first draw, after each draw
_DRAW_STREETS = {Variant.NL27: DRAW_STREETS[:2], Variant.FL27: DRAW_STREETS, Variant.BADUGI: DRAW_STREETS}
_STUD_GAMES: dict[Variant, Callable[..., pokerkit.Poker]] = {
    Variant.STUD: pokerkit.FixedLimitSevenCardStud,
    Variant.STUD8: pokerkit.FixedLimitSevenCardStudHighLowSplitEightOrBetter,
    Variant.RAZZ: pokerkit.FixedLimitRazz,
}
_LIMIT_GAMES: dict[Variant, Callable[..., pokerkit.Poker]] = {
    Variant.FLHE: pokerkit.FixedLimitTexasHoldem,
    Variant.FLO8: FIXED_LIMIT_OMAHA_HI_LO,
    Variant.FL27: pokerkit.FixedLimitDeuceToSevenLowballTripleDraw,
    Variant.BADUGI: pokerkit.FixedLimitBadugi,
}
FLOP_STREETS = ("preflop", "flop", "turn", "river")
STUD_STREETS = ("third", "fourth", "fifth", "sixth", "seventh")


def phh_code(game: pokerkit.Poker) -> str | None:
    """The PHH variant code of a game (pokerkit's presets and tablewatch's FO/8); None where PHH has none."""
    return pokerkit.HandHistory.variants.get(type(game)) or _PHH_CODES.get(type(game))


def split_in_chips(unit: int, amount: int, ways: int) -> tuple[int, int]:
    """``amount`` split ``ways`` ways in whole chips of ``unit`` (TDA-12): each share, and the remainder (the odd
    chips), which pokerkit gives to the first winner left of the button."""
    quotient, remainder = divmod(amount // unit, ways)
    return quotient * unit, remainder * unit + amount % unit


class _GameArgs(TypedDict):
    """What every pokerkit game of a table is built with."""

    divmod: Callable[[int, int], tuple[int, int]]
    automations: tuple[Automation, ...]
    ante_trimming_status: bool
    raw_antes: dict[int, int]
    raw_blinds_or_straddles: dict[int, int]
    mode: Mode


class GameConfig(StrictModel):
    """Stakes and structure of one table's game. Amounts are in units of ``currency_unit``."""

    variant: Variant = Field(
        default=Variant.NLHE,
        description="NLHE, PLHE, FLHE, NLO, PLO, PLO8 or FLO8 (Omaha: 4 hole cards; O8: high/low, eight or better); "
                    "STUD, STUD8 or RAZZ (seven card stud, fixed limit: antes, bring_in, small_bet, big_bet); NLSD "
                    "(short deck); NL27, FL27 or BADUGI (draw games).",
    )
    small_blind: int = Field(default=50, ge=0, description="Small blind; 0 for a game without one.")
    big_blind: int = Field(default=100, gt=0, description="Big blind (the minimum bet in NL and PL).")
    ante: int = Field(default=0, ge=0, description="Ante posted by every player.")
    big_blind_ante: int = Field(default=0, ge=0, description="Ante posted by the big blind for everyone (TDA-60).")
    button_ante: int = Field(default=0, ge=0, description="Ante posted by the button for everyone.")
    bring_in: int = Field(default=0, ge=0, description="Stud: the forced bet of the lowest up card (razz: highest).")
    straddle: int = Field(default=0, ge=0, description="Live UTG straddle; 0 for none (house: exactly 2 x BB).")
    straddle_min_raise_inc: int | None = Field(
        default=None, gt=0, description="Minimum raise increment over a straddle (ENG-43); default: the straddle."
    )
    small_bet: int | None = Field(default=None, gt=0, description="Fixed limit: bet size preflop and on the flop.")
    big_bet: int | None = Field(default=None, gt=0, description="Fixed limit: bet size on the turn and river.")
    raise_cap: int | None = Field(default=4, ge=1, description="Fixed limit: bets + raises per round (bet + 3).")
    chip_denominations: tuple[int, ...] = Field(
        default=(1, 5, 25, 100, 500, 1000, 5000, 25000),
        min_length=1,
        description="Chip values in play, in units; the smallest is the odd-chip unit (TDA-12).",
    )
    seat_count: int = Field(default=10, ge=2, le=10, description="Seats at the table.")
    currency_unit: Decimal = Field(default=Decimal(1), gt=0, description="Money value of one unit (0.01 = cents).")
    currency_symbol: str = Field(default="", max_length=3, description="Printed before money amounts.")

    @model_validator(mode="after")
    def verify_stakes(self) -> GameConfig:
        if self.small_blind > self.big_blind:
            raise ValueError(f"small_blind {self.small_blind} is larger than big_blind {self.big_blind}.")
        if sum(1 for a in (self.ante, self.big_blind_ante, self.button_ante) if a) > 1:
            raise ValueError("Use one of ante, big_blind_ante and button_ante.")
        if self.straddle and self.straddle <= self.big_blind:
            raise ValueError(f"straddle {self.straddle} must be larger than big_blind {self.big_blind}.")
        denominations = self.chip_denominations
        if any(d <= 0 for d in denominations) or list(denominations) != sorted(set(denominations)):
            raise ValueError(f"chip_denominations must be positive, distinct and ascending, got {denominations}.")
        if self.structure == "FL" and self.small_bet is None:
            raise ValueError("A fixed-limit game needs small_bet (and big_bet, default 2 x small_bet).")
        if self.stud and not 0 < self.bring_in < (self.small_bet or 0):
            raise ValueError(f"A stud game needs a bring_in below the small bet, got {self.bring_in}.")
        if self.stud and (self.big_blind_ante or self.button_ante or self.straddle):
            raise ValueError("A stud game has antes for every player and a bring-in: no big blind or button ante, "
                             "no straddle.")
        return self

    @property
    def structure(self) -> Structure:
        return _STRUCTURE[self.variant]

    @property
    def stud(self) -> bool:
        """A stud game: each player's own cards, some dealt face up, over five streets; no board, no button."""
        return self.variant in _STUD_GAMES

    @property
    def draw(self) -> bool:
        """A draw game: each player's own cards, some thrown away for new ones between betting rounds."""
        return self.variant in _DRAW_STREETS

    @property
    def flop_game(self) -> bool:
        """Hold'em or Omaha: two or four cards each and a board."""
        return not (self.stud or self.draw)

    @property
    def hole_cards(self) -> int:
        """The cards of a player's hand: 2 in hold'em, 4 in Omaha and badugi, 5 in 2-7, 7 in stud (by the last
        street)."""
        if self.stud:
            return 7
        if self.variant in (Variant.NL27, Variant.FL27):
            return 5
        return 4 if self.variant in (Variant.NLO, Variant.PLO, Variant.PLO8, Variant.FLO8, Variant.BADUGI) else 2

    @property
    def streets(self) -> tuple[str, ...]:
        """The betting rounds' names."""
        return STUD_STREETS if self.stud else _DRAW_STREETS.get(self.variant, FLOP_STREETS)

    @property
    def hi_lo(self) -> bool:
        """Pots split between the best high and the best qualifying low (TDA-12C/D)."""
        return self.variant in (Variant.PLO8, Variant.FLO8, Variant.STUD8)

    @property
    def min_bet(self) -> int:
        return self.small_bet if self.structure == "FL" and self.small_bet else self.big_blind

    def bet_size(self, street_index: int) -> int:
        """The fixed-limit bet of a street (small bet preflop and flop, big bet after); the BB otherwise."""
        if self.structure != "FL":
            return self.big_blind
        small = self.small_bet or self.big_blind
        return small if street_index < 2 else (self.big_bet or 2 * small)

    def money(self, units: int) -> Decimal:
        """Units → money, e.g. 194350 → Decimal('1943.50') with a cent unit."""
        return units * self.currency_unit

    def chip_divmod(self, amount: int, ways: int) -> tuple[int, int]:
        """Split a pot in units of the smallest chip in play (TDA-12), see ``split_in_chips``."""
        return split_in_chips(self.chip_denominations[0], amount, ways)

    def pokerkit_game(self, *, antes: dict[int, int], blinds: dict[int, int], capped: bool = True) -> pokerkit.Poker:
        """The pokerkit game for one hand; ``antes``/``blinds`` map pokerkit player indices to amounts
        (a negative blind is a post out of position, as in PHH). Fixed limit: each street is capped at
        ``raise_cap`` (ENG-09), or not at all when ``capped`` is False (the engine owns a cap that changes
        within the hand, C8)."""
        if self.stud:
            return self._stud_game(antes, capped=capped)
        common = _GameArgs(divmod=self.chip_divmod, automations=AUTOMATIONS, ante_trimming_status=False,
                           raw_antes=antes, raw_blinds_or_straddles=blinds, mode=Mode.CASH_GAME)
        match self.variant:
            case Variant.NLHE:
                return pokerkit.NoLimitTexasHoldem(**common, min_bet=self.big_blind)
            case Variant.PLO:
                return pokerkit.PotLimitOmahaHoldem(**common, min_bet=self.big_blind)
            case Variant.PLHE:
                return _PotLimitTexasHoldem(**common, min_bet=self.big_blind)
            case Variant.NLO:
                return _NoLimitOmahaHoldem(**common, min_bet=self.big_blind)
            case Variant.PLO8:
                return POT_LIMIT_OMAHA_HI_LO(**common, min_bet=self.big_blind)
            case Variant.NLSD:
                return pokerkit.NoLimitShortDeckHoldem(**common, min_bet=self.big_blind)
            case Variant.NL27:
                return pokerkit.NoLimitDeuceToSevenLowballSingleDraw(**common, min_bet=self.big_blind)
            case Variant.FLHE | Variant.FLO8 | Variant.FL27 | Variant.BADUGI:
                small = self.small_bet or self.big_blind
                game = _LIMIT_GAMES[self.variant]
                return self._limit_capped(game(**common, small_bet=small, big_bet=self.big_bet or 2 * small),
                                          self.raise_cap if capped else None)
        raise AssertionError(self.variant)  # pragma: no cover

    def _stud_game(self, antes: dict[int, int], *, capped: bool) -> pokerkit.Poker:
        """pokerkit's stud game: the bring-in is a player's action (posted or completed), not automated. The
        completion of the bring-in is the round's bet, so every street takes ``raise_cap`` bets and raises."""
        small = self.small_bet or self.big_blind
        game = _STUD_GAMES[self.variant](AUTOMATIONS, False, antes, self.bring_in, small, self.big_bet or 2 * small,
                                          mode=Mode.CASH_GAME, divmod=self.chip_divmod)
        return self._limit_capped(game, self.raise_cap if capped else None, blind_counts=False)

    @staticmethod
    def _limit_capped(game: pokerkit.Poker, cap: int | None, *, blind_counts: bool = True) -> pokerkit.Poker:
        """pokerkit caps every fixed-limit street at 4 bets and raises and does not count the big blind, so it
        allows the big blind + 4 raises preflop. The TDA counts the blind as the round's bet (bet + 3 raises,
        EX-100): preflop takes ``cap - 1`` raises, each later street ``cap``; None: no cap. (Stud has no blind:
        ``blind_counts`` False.)"""
        first = 1 if blind_counts else 0
        game.streets = tuple(
            replace(street, max_completion_betting_or_raising_count=None if cap is None else cap - first * (i == 0))
            for i, street in enumerate(game.streets)
        )
        return game

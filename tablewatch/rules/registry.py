"""The procedure checks a table runs: one explicit list, a fresh set per table (checks keep state).

Nothing registers itself; to add a check, write it in ``tablewatch/rules/checks/`` and add it here. The
betting engine's own rulings (``rulings.py``) and the chip reading's (``chipreading.py``) are not checks;
``index.py`` says where every rule id is ruled, checks and the rest.
"""

from __future__ import annotations

from tablewatch.rules.checks.awards import PotAwardCheck, SidePotOrderCheck
from tablewatch.rules.checks.burns import BurnCheck
from tablewatch.rules.checks.chips import (
    ChipsAppearedCheck,
    ChipsLeftTableCheck,
    StackVisibilityCheck,
    UnknownChipCheck,
)
from tablewatch.rules.checks.conduct import ConsecutiveAllInCheck, NutsNotBetCheck
from tablewatch.rules.checks.exposure import ExposedCardCheck
from tablewatch.rules.checks.fouled import FouledDeckCheck
from tablewatch.rules.checks.misdeal import MisdealCheck
from tablewatch.rules.checks.premature import PrematureBoardCheck
from tablewatch.rules.checks.presence import AbsentAtDealCheck, LeftWithLiveHandCheck, LongAbsenceCheck
from tablewatch.rules.checks.showdown import AllInShowdownCheck, TabledToWinCheck
from tablewatch.rules.checks.stud import StudDealCheck
from tablewatch.rules.checks.system import DeviceHealthCheck
from tablewatch.rules.game import GameConfig
from tablewatch.rules.profiles import RuleProfile
from tablewatch.rules.snapshot import Check

CHECK_CLASSES = (
    # dealing, burns and the board (catalogue §1.3, §1.4)
    MisdealCheck,  # TDA-22A, TDA-22C, TDA-22D, TDA-24, TDA-25 (wrong count after substantial action)
    FouledDeckCheck,  # TDA-22E
    BurnCheck,  # TDA-25, TDA-26A, TDA-26B, TDA-57 (burn on a redeal)
    PrematureBoardCheck,  # TDA-57, TDA-18
    StudDealCheck,  # TDA22-RP-10 (stud only)
    # cards and presence (§1.2, §1.5)
    ExposedCardCheck,  # TDA-53 (HOUSE-002-2.7.11 in cash profiles)
    AbsentAtDealCheck,  # TDA-20
    LeftWithLiveHandCheck,  # TDA-21
    LongAbsenceCheck,  # TDA-63 (club; off unless the profile sets long_absence_s)
    ConsecutiveAllInCheck,  # TDA-64 (club; off unless the profile sets consecutive_all_ins_warning)
    NutsNotBetCheck,  # TDA-54 / FAQ-002 NUTS_NOT_BET (off unless the profile sets nuts_last_to_act_must_bet)
    # showdown and the pot (§1.6)
    AllInShowdownCheck,  # TDA-9
    TabledToWinCheck,  # TDA-6A
    PotAwardCheck,  # TDA-5
    SidePotOrderCheck,  # TDA22-21
    # chips on the table (§1.7)
    StackVisibilityCheck,  # TDA-16A
    ChipsLeftTableCheck,  # TDA-49
    ChipsAppearedCheck,  # HOUSE-002-2.4 / ENG-41
    UnknownChipCheck,  # TDA-16B
    # the monitor itself
    DeviceHealthCheck,  # SYS-DEVICE, SYS-CAMERA
)


# What watches a flop game's deal, burns and board and its cards turned over: none of it is how stud or a draw
# game is dealt (stud's deal is StudDealCheck's; of a draw, the cards each seat holds after it, MisdealCheck's).
FLOP_GAMES_ONLY = (FouledDeckCheck, BurnCheck, PrematureBoardCheck, ExposedCardCheck)
NOT_STUD = (MisdealCheck,)
STUD_ONLY = (StudDealCheck,)


def default_checks(profile: RuleProfile | None = None, *, game: GameConfig | None = None) -> list[Check]:
    """A fresh set of every procedure check for one table, under ``profile`` (TDA when None); a stud or draw
    table's leaves out the flop games' own."""
    profile = profile if profile is not None else RuleProfile()
    left_out = _left_out(game if game is not None else GameConfig())
    return [cls(profile) for cls in CHECK_CLASSES if cls not in left_out]


def _left_out(game: GameConfig) -> tuple[type[Check], ...]:
    if game.stud:
        return FLOP_GAMES_ONLY + NOT_STUD
    if game.draw:
        return FLOP_GAMES_ONLY + STUD_ONLY
    return STUD_ONLY

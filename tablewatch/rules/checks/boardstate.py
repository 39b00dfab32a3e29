"""The board as the dealer builds it: burns, streets opened, early (premature) cards and their redeal.

``BoardTracker`` turns burn, board-card and action events into ``BoardStep``s that the burn check
(TDA-25/26) and the premature-card check (TDA-57) judge. Each check owns its own tracker, so the checks
stay independent; the tracker holds no opinions, only what happened and how many burns the procedure
expects there.

Streets come from the board slot (0-2 flop, 3 turn, 4 river), not from the engine, so a card dealt early
is still known as "the turn". A street *opens* with its first card turned face up; later cards of the same
street (the 2nd and 3rd flop card, a card seen again) are not openings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from tablewatch.events import BoardCardDealt, CardBurned, Event
from tablewatch.rules.checks.base import STREET_OF_SLOT, is_action
from tablewatch.rules.profiles import RuleProfile
from tablewatch.rules.snapshot import HandSnapshot

StepKind = Literal[
    "opening",  # the first card of a street, dealt in time
    "premature",  # the first card of a street, dealt before the previous betting round was complete
    "redeal",  # the first card of a street dealt again after a premature card
    "four_card_flop",  # a 4th card right after the flop: no burn, no action between
    "flop_stands",  # TDA-26B: action on a flop dealt without a burn, before any repair
    "four_card_unrepaired",  # TDA-26A: action on a four-card flop before the floor's repair
    "repair_burn",  # the card chosen from the board as the burn (TDA-26A/26B repair)
]


@dataclass(frozen=True, kw_only=True)
class BoardStep:
    kind: StepKind
    street: str
    burns: int = 0  # burns since the previous board card (repair burns excluded)
    expected_burns: int = 1
    cards: tuple[str | None, ...] = ()
    burn_ts: tuple[float, ...] = ()


class BoardTracker:
    def __init__(self, profile: RuleProfile) -> None:
        self.profile = profile
        self.reset()

    def reset(self) -> None:
        self.status: dict[str, Literal["early", "dealt"]] = {}
        self.early_cards: dict[str, list[str | None]] = {}
        self.burns: list[float] = []
        self.actions_since_board = 0
        self.last_street: str | None = None
        self.last_board_ts: float | None = None
        self.flop_slots: set[int] = set()
        self.repair: Literal["26A", "26B"] | None = None  # a flop waiting for the floor's repair
        self.repair_burn_ts: float | None = None  # the burn taken for the repair, until the flop is laid again
        self.river_without_burn = False  # the 2017 premature-turn procedure

    def update(self, snapshot: HandSnapshot, event: Event) -> list[BoardStep]:
        if isinstance(event, CardBurned):
            return self._burn(event)
        if isinstance(event, BoardCardDealt):
            return self._board(snapshot, event)
        if is_action(event):
            return self._action()
        return []

    def _burn(self, event: CardBurned) -> list[BoardStep]:
        if self.repair is not None and self.repair_burn_ts is None:
            self.repair_burn_ts = event.ts
            return [BoardStep(kind="repair_burn", street="flop", burn_ts=(event.ts,))]
        self.burns.append(event.ts)
        return []

    def _action(self) -> list[BoardStep]:
        self.actions_since_board += 1
        if self.repair is None or self.repair_burn_ts is not None or self.last_street != "flop":
            return []
        kind: StepKind = "flop_stands" if self.repair == "26B" else "four_card_unrepaired"
        self.repair = None
        return [BoardStep(kind=kind, street="flop")]

    def _board(self, snapshot: HandSnapshot, event: BoardCardDealt) -> list[BoardStep]:
        street = STREET_OF_SLOT.get(event.slot)
        if street is None or snapshot.phase in ("idle", "complete"):
            return []
        if self._is_fourth_flop_card(snapshot, event, street):
            self.repair, self.repair_burn_ts = "26A", None
            self._after_card(event, "flop")
            return [BoardStep(kind="four_card_flop", street="flop", cards=(event.card,))]
        if not event.face_up:
            return []  # placed face down: it counts when it is turned (a 4th flop card counts either way, TDA-26A)
        status = self.status.get(street)
        if status == "dealt":
            if street == "flop":
                self.flop_slots.add(event.slot)
                if self.repair_burn_ts is not None:  # the flop laid out again: the repair is done
                    self.repair, self.repair_burn_ts, self.burns = None, None, []
            return []
        if status == "early" and not snapshot.betting_complete:
            self.early_cards[street].append(event.card)  # the 2nd/3rd card of an early flop
            self._after_card(event, street)
            return []
        if street != "flop":
            self._close_repair()
        step = self._opening(snapshot, event, street, redeal=status == "early")
        self._after_card(event, street)
        return [step]

    def _close_repair(self) -> None:
        """A later street opens: a 26B repair burn with no new flop card laid was really this street's burn."""
        if self.repair == "26B" and self.repair_burn_ts is not None:
            self.burns.insert(0, self.repair_burn_ts)
        self.repair, self.repair_burn_ts = None, None

    def _opening(self, snapshot: HandSnapshot, event: BoardCardDealt, street: str, *, redeal: bool) -> BoardStep:
        burns, burn_ts = len(self.burns), tuple(self.burns)
        if street == "flop":
            self.flop_slots = {event.slot}
        if redeal:
            self.status[street] = "dealt"
            variant_2017_turn = street == "turn" and self.profile.premature_turn_variant == "tda2017"
            self.river_without_burn = self.river_without_burn or variant_2017_turn
            return BoardStep(kind="redeal", street=street, burns=burns, expected_burns=int(variant_2017_turn),
                             cards=(event.card,), burn_ts=burn_ts)
        expected = 0 if street == "river" and self.river_without_burn else 1
        if not snapshot.betting_complete:
            self.status[street] = "early"
            self.early_cards[street] = [event.card]
            return BoardStep(kind="premature", street=street, burns=burns, expected_burns=expected,
                             cards=(event.card,), burn_ts=burn_ts)
        self.status[street] = "dealt"
        if street == "flop" and burns == 0:
            self.repair, self.repair_burn_ts = "26B", None
        return BoardStep(kind="opening", street=street, burns=burns, expected_burns=expected, cards=(event.card,),
                         burn_ts=burn_ts)

    def _is_fourth_flop_card(self, snapshot: HandSnapshot, event: BoardCardDealt, street: str) -> bool:
        if street == "flop" or self.last_street != "flop" or self.status.get("flop") != "dealt":
            return False
        if self.status.get(street) is not None or len(self.flop_slots) != 3 or self.repair is not None:
            return False
        if self.burns or self.actions_since_board:
            return False
        if not snapshot.betting_complete:
            return True  # players could act on the flop and nobody did: the card came with the flop
        since = event.ts - (self.last_board_ts if self.last_board_ts is not None else event.ts)
        return since <= self.profile.four_card_flop_window_s  # an all-in run-out: judge by time

    def _after_card(self, event: BoardCardDealt, street: str) -> None:
        self.burns = []
        self.actions_since_board = 0
        self.last_street = street
        self.last_board_ts = event.ts

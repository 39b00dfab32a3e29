"""Writing finished hands as PHH (the Poker Hand History format pokerkit reads).

``to_hand_history`` builds pokerkit's ``HandHistory`` from the engine's pokerkit state
(``HandHistory.from_game_state``), turns integer units back into money, and adds tablewatch's own facts
in ``_``-prefixed fields that pokerkit keeps as user-defined fields: burns, violations, event times, notes.
``dumps_phh`` writes one hand, or several as ``[n]`` sections. pokerkit loads and replays what it writes.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any, ClassVar

from pokerkit import HandHistory, Poker

from tablewatch.hands import FinishedHand

_CBR = re.compile(r"^(p\d+ cbr )(\d+)(.*)$")


class PhhExportError(ValueError):
    """A hand PHH cannot express (a variant without a PHH code)."""


def to_hand_history(hand: FinishedHand, **meta: Any) -> HandHistory:
    """The PHH of one finished hand; ``meta`` adds PHH fields (venue, time, …) or ``_`` fields. ``players`` is
    written where a name is known, with "" for a player the console did not name (``phhfile.player_names``)."""
    unit = hand.config.currency_unit
    hh = _from_game_state(hand)
    money = _money(unit)
    hh.starting_stacks = [money(v) for v in hh.starting_stacks]
    hh.antes = [money(v) for v in hh.antes]
    if hh.blinds_or_straddles is not None:
        hh.blinds_or_straddles = [money(v) for v in hh.blinds_or_straddles]
    if hh.min_bet is not None:
        hh.min_bet = money(hh.min_bet)
    if hh.small_bet is not None:
        hh.small_bet = money(hh.small_bet)
    if hh.big_bet is not None:
        hh.big_bet = money(hh.big_bet)
    hh.actions = [_money_action(action, money) for action in hh.actions]
    hh.seats = list(hand.order)
    hh.hand = hand.hand_no
    hh.table = hand.table
    hh.finishing_stacks = [money(hand.final_stacks[seat]) for seat in hand.order]
    hh.winnings = [money(sum(a for s, a in _awards(hand) if s == seat)) for seat in hand.order]
    if hand.players:
        hh.players = [hand.players.get(seat, "") for seat in hand.order]
    if hand.started_at is not None:
        _stamp(hh, hand.started_at)
    if hand.config.currency_symbol:
        hh.currency_symbol = hand.config.currency_symbol
    hh.user_defined_fields.update(_extra_fields(hand))
    for key, value in meta.items():
        if key.startswith("_"):
            hh.user_defined_fields[key] = value
        else:
            setattr(hh, key, value)
    return hh


def _stamp(hh: HandHistory, started_at: float) -> None:
    """PHH's date and time fields (UTC), and the exact start as ``_tablewatch_started_at``."""
    moment = datetime.fromtimestamp(started_at, tz=UTC)
    hh.year, hh.month, hh.day = moment.year, moment.month, moment.day
    hh.time = moment.time().replace(microsecond=0)
    hh.time_zone = "UTC"
    hh.user_defined_fields["_tablewatch_started_at"] = round(started_at, 3)


def _from_game_state(hand: FinishedHand) -> HandHistory:
    """pokerkit's PHH of the hand's state, under the PHH code the rules layer named for its game."""
    if hand.phh_variant is None:
        raise PhhExportError(f"PHH has no variant code for {hand.config.variant}; "
                             "only NLHE, FLHE, PLO and FLO8 hands can be written as PHH.")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _coded(type(hand.game), hand.phh_variant).from_game_state(hand.game, hand.state)


def _coded(game: type[Poker], code: str) -> type[HandHistory]:
    """pokerkit's ``HandHistory`` knowing ``game``'s PHH code (pokerkit knows only its own presets' codes)."""

    class _CodedHistory(HandHistory):
        variants: ClassVar[dict[type[Poker], str]] = {game: code}

    return _CodedHistory


def dumps_phh(hands: Iterable[FinishedHand | HandHistory]) -> str:
    """PHH text: one hand as a plain file, several as ``[1]``, ``[2]``… sections."""
    histories = [h if isinstance(h, HandHistory) else to_hand_history(h) for h in hands]
    if len(histories) == 1:
        return histories[0].dumps() + "\n"
    return HandHistory.dumps_all(histories) + "\n"


def _money(unit: Decimal) -> Callable[[Any], Any]:
    """Units → money; pokerkit's fields are typed as integers but it reads and writes Decimal amounts."""

    def convert(value: Any) -> Any:
        if unit == 1:
            return value
        if isinstance(value, Decimal) and not value.is_finite():
            return value
        return (Decimal(value) * unit).quantize(unit)

    return convert


def _money_action(action: str, money: Callable[[Any], Any]) -> str:
    match = _CBR.match(action)
    if not match:
        return action
    return f"{match.group(1)}{money(int(match.group(2)))}{match.group(3)}"


def _awards(hand: FinishedHand) -> list[tuple[int, int]]:
    return [pair for push in hand.pushes for pair in push.amounts]


def _extra_fields(hand: FinishedHand) -> dict[str, Any]:
    """tablewatch's facts that PHH has no field for (pokerkit keeps ``_`` fields as user-defined)."""
    fields: dict[str, Any] = {
        "_tablewatch_button": hand.button,
        "_tablewatch_burns": [f"{burn.phase}:{burn.card or '??'}@{burn.ts:g}" for burn in hand.burns],
        "_tablewatch_violations": [
            {"rule_id": v.rule_id, "title": v.title, "seat": v.seat or 0, "street": v.street or "",
             "observed": v.observed, "ruling": v.ruling, "severity": str(v.severity), "by": str(v.by), "ts": v.ts}
            for v in hand.violations
        ],
        "_tablewatch_action_times": [a.ts for a in hand.actions],
        "_tablewatch_started_ts": hand.started_ts,
    }
    if hand.ended_ts is not None:
        fields["_tablewatch_ended_ts"] = hand.ended_ts
    if hand.notes:
        fields["_tablewatch_notes"] = list(hand.notes)
    if hand.dealer is not None:
        fields["_tablewatch_dealer"] = hand.dealer
    return fields

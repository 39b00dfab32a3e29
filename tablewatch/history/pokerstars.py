"""Hand histories as PokerStars writes them, the text PokerTracker and Hold'em Manager import: no-limit hold'em
hands written from their PHH (pokerkit's ``HandHistory``). pokerkit's own PokerStars parser reads them back to the
same actions and stacks (``tests/history/test_export.py``).

What the format has no place for is left out: hole cards nobody showed (``????``) are not dealt to anyone, and a
hand's notes and violations stay in its PHH. Antes are written as PokerStars does ("posts the ante"); pokerkit's
parser does not read them back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from pokerkit import ChipsPushing, HandHistory

from tablewatch.history.stats import replayed
from tablewatch.phhfile import player_names, seat_numbers, started_utc

STREETS = ("FLOP", "TURN", "RIVER")


class ExportError(ValueError):
    """A hand the PokerStars format can't carry; the message says why."""


@dataclass
class _Street:
    """The bets in front of each player on the street being written."""

    bets: dict[int, Decimal] = field(default_factory=dict)

    @property
    def top(self) -> Decimal:
        return max(self.bets.values(), default=Decimal(0))


def dumps_pokerstars(hh: HandHistory, *, number: int = 1) -> str:
    """One hand as PokerStars text (``number``: the hand's number when the history has none)."""
    if hh.variant != "NT":
        raise ExportError(f"variant {hh.variant!r}: the PokerStars format is written for no-limit hold'em (NT) only")
    count = len(hh.starting_stacks)
    blinds = [_money(b) for b in hh.blinds_or_straddles or [0] * count]
    if count == 2:  # heads-up PHH lists the blinds the other way round (pokerkit turns them back)
        blinds.reverse()
    if sum(1 for b in blinds if b) > 2 or any(b < 0 for b in blinds):
        raise ExportError("straddles and blinds posted out of position are not written")
    if not all(_money(stack).is_finite() for stack in hh.starting_stacks):
        raise ExportError("starting stacks unknown: the PokerStars format needs each player's chips")
    seats, known = seat_numbers(hh), player_names(hh)
    names = [known.get(seat, f"Seat {seat}") for seat in seats]
    symbol = str(getattr(hh, "currency_symbol", None) or "")
    lines = _header(hh, number, seats, names, symbol, blinds)
    lines += _actions(hh, names, symbol, blinds)
    return "\n".join(lines) + "\n"


def _header(hh: HandHistory, number: int, seats: list[int], names: list[str], symbol: str,
            blinds: list[Decimal]) -> list[str]:
    small, big = sorted(b for b in blinds if b) if sum(1 for b in blinds if b) == 2 else (Decimal(0), max(blinds))
    started = started_utc(hh) or datetime(1970, 1, 1, tzinfo=UTC)
    lines = [f"PokerStars Hand #{hh.hand or number}: Hold'em No Limit ({symbol}{small}/{symbol}{big}) - "
             f"{started:%Y/%m/%d %H:%M:%S} UTC",
             f"Table '{hh.table or 'tablewatch'}' {max(len(seats), int(hh.seat_count or 0))}-max "
             f"Seat #{seats[-1]} is the button"]  # PHH lists the players from the button's left: the button last
    lines += [f"Seat {seat}: {name} ({symbol}{_money(stack)} in chips)"
              for seat, name, stack in sorted(zip(seats, names, hh.starting_stacks, strict=True))]
    lines += [f"{names[i]}: posts the ante {symbol}{_money(a)}" for i, a in enumerate(hh.antes or []) if a]
    for i, blind in sorted(enumerate(blinds), key=lambda posted: posted[1]):  # the small blind first
        if blind:
            lines.append(f"{names[i]}: posts {'small' if blind == small else 'big'} blind {symbol}{blind}")
    return lines


def _actions(hh: HandHistory, names: list[str], symbol: str, blinds: list[Decimal]) -> list[str]:
    lines = ["*** HOLE CARDS ***"]
    street = _Street(bets={i: b for i, b in enumerate(blinds) if b})
    left = [_money(s) - _money(a) - b for s, a, b in zip(hh.starting_stacks, hh.antes or [0] * len(names), blinds,
                                                          strict=True)]
    board: list[str] = []
    shown = False
    for action in hh.actions:
        words = action.split("#")[0].split()
        match words:
            case ["d", "dh", player, cards] if "?" not in cards:
                lines.append(f"Dealt to {names[_index(player)]} [{_cards(cards)}]")
            case ["d", "db", cards]:
                dealt = _cards(cards)
                before = f" [{' '.join(board)}]" if board else ""
                lines.append(f"*** {STREETS[min(len(board) // 3 + (len(board) > 3), 2)]} ***{before} [{dealt}]")
                board += dealt.split()
                street = _Street()
            case [player, "f"]:
                lines.append(f"{names[_index(player)]}: folds")
            case [player, "cc"]:
                lines.append(_call(_index(player), names, symbol, street, left))
            case [player, "cbr", amount]:
                lines.append(_raise(_index(player), _money(amount), names, symbol, street, left))
            case [player, "sm", *cards]:
                if not shown:
                    lines.append("*** SHOW DOWN ***")
                    shown = True
                known = cards and cards[0] not in ("-",) and "?" not in cards[0]
                lines.append(f"{names[_index(player)]}: shows [{_cards(cards[0])}] (showdown)" if known
                             else f"{names[_index(player)]}: mucks hand")
    lines += _collected(hh, names, symbol, board)
    return lines


def _call(i: int, names: list[str], symbol: str, street: _Street, left: list[Decimal]) -> str:
    owed = min(street.top - street.bets.get(i, Decimal(0)), left[i])
    street.bets[i] = street.bets.get(i, Decimal(0)) + owed
    left[i] -= owed
    if not owed:
        return f"{names[i]}: checks"
    return f"{names[i]}: calls {symbol}{owed}" + (" and is all-in" if not left[i] else "")


def _raise(i: int, to: Decimal, names: list[str], symbol: str, street: _Street, left: list[Decimal]) -> str:
    top, mine = street.top, street.bets.get(i, Decimal(0))
    left[i] -= to - mine
    street.bets[i] = to
    all_in = " and is all-in" if not left[i] else ""
    if not top:
        return f"{names[i]}: bets {symbol}{to}{all_in}"
    return f"{names[i]}: raises {symbol}{to - top} to {symbol}{to}{all_in}"


def _collected(hh: HandHistory, names: list[str], symbol: str, board: list[str]) -> list[str]:
    """Who took what, as pokerkit pushes the pots (the history's own winnings for a hand it can't finish), and
    the summary."""
    state, complete = replayed(hh)
    if complete:
        winnings = [Decimal(0)] * len(names)
        for op in state.operations:
            if isinstance(op, ChipsPushing):
                winnings = [total + _money(amount) for total, amount in zip(winnings, op.amounts, strict=True)]
    else:
        winnings = [_money(w) for w in hh.winnings] if hh.winnings else []
    lines = [f"{names[i]} collected {symbol}{won} from pot" for i, won in enumerate(winnings) if won]
    lines.append("*** SUMMARY ***")
    if winnings:
        lines.append(f"Total pot {symbol}{sum(winnings)} | Rake {symbol}0")
    if board:
        lines.append(f"Board [{' '.join(board)}]")
    return lines


def _index(player: str) -> int:
    return int(player.removeprefix("p")) - 1


def _cards(text: str) -> str:
    """``AsKs`` → ``As Ks``."""
    return " ".join(text[k:k + 2] for k in range(0, len(text), 2))


def _money(value: Any) -> Decimal:
    return Decimal(str(value))

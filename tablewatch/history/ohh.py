"""Open Hand History (OHH, https://hh-specs.handhistory.org) export of a finished hand, for tracker software.

One JSON object ``{"ohh": {...}}`` per hand: the table and game, players with starting stacks, rounds
(Preflop, Flop, Turn, River, Showdown) with their cards and actions, and the pots with their winners.
Amounts are money (``currency_unit`` applied). Per the spec, a Bet/Raise ``amount`` is what the player put
in with that action; ``Raise`` also carries tablewatch's raise-to total in ``raise_to``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from tablewatch.hands import FinishedHand

SPEC_VERSION = "1.4.7"
Money = Callable[[int], float | int]  # units → the money amount OHH writes
_STREET_NAMES = {"preflop": "Preflop", "flop": "Flop", "turn": "Turn", "river": "River"}
_BOARD = {"Flop": slice(0, 3), "Turn": slice(3, 4), "River": slice(4, 5)}


def to_ohh(hand: FinishedHand, *, site: str = "tablewatch", start: datetime | None = None,
           players: dict[int, str] | None = None) -> dict[str, Any]:
    """The OHH object of one hand; ``players`` maps seat → name (default: the hand's names, else ``Seat N``)."""
    cfg = hand.config
    money = _money(cfg.currency_unit)
    names = players if players is not None else hand.players
    ids = {seat: k + 1 for k, seat in enumerate(hand.order)}
    rounds = _rounds(hand, ids, money)
    ohh = {
        "spec_version": SPEC_VERSION,
        "site_name": site,
        "network_name": site,
        "internal_version": "tablewatch",
        "tournament": False,
        "game_number": str(hand.hand_no),
        "start_date_utc": (start or _started(hand)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "table_name": hand.table,
        "table_handle": hand.table,
        "table_skin": site,
        "game_type": ("OmahaHiLo" if cfg.hi_lo else "Omaha") if cfg.hole_cards == 4 else "Holdem",
        "bet_limit": {"bet_type": cfg.structure, "bet_cap": 0},
        "table_size": cfg.seat_count,
        "currency": cfg.currency_symbol or "chips",
        "dealer_seat": hand.button,
        "small_blind_amount": money(cfg.small_blind),
        "big_blind_amount": money(cfg.big_blind),
        "ante_amount": money(cfg.ante or cfg.big_blind_ante or cfg.button_ante),
        "flags": [],
        "players": [
            {"id": ids[seat], "seat": seat, "name": names.get(seat, f"Seat {seat}"),
             "display": names.get(seat, f"Seat {seat}"), "starting_stack": money(hand.starting_stacks[seat])}
            for seat in hand.order
        ],
        "rounds": rounds,
        "pots": [
            {"number": k, "amount": money(push.amount), "rake": 0, "jackpot": 0,
             "player_wins": [{"player_id": ids[seat], "win_amount": money(amount)}
                             for seat, amount in push.amounts]}
            for k, push in enumerate(hand.pushes)
        ],
    }
    return {"ohh": ohh}


def dumps_ohh(hand: FinishedHand, **kwargs: Any) -> str:
    return json.dumps(to_ohh(hand, **kwargs), indent=2)


def _money(unit: Decimal) -> Money:
    def convert(units: int) -> float | int:
        value = Decimal(units) * unit
        return int(value) if value == value.to_integral_value() else float(value)

    return convert


def _started(hand: FinishedHand) -> datetime:
    """When a live table's hand began (its wall clock); a replay's hands have no date of their own: now."""
    return datetime.fromtimestamp(hand.started_at, UTC) if hand.started_at is not None else datetime.now(UTC)


def _rounds(hand: FinishedHand, ids: dict[int, int], money: Money) -> list[dict[str, Any]]:
    rounds: list[dict[str, Any]] = []
    numbers = iter(range(1, 10_000))
    preflop: list[dict[str, Any]] = []
    for seat, amount in _posted_blinds(hand):
        preflop.append({"action_number": next(numbers), "player_id": ids[seat],
                        "action": "Post SB" if amount < hand.config.big_blind else "Post BB", "amount": money(amount)})
    for seat in hand.order:
        cards = [c for c in hand.hole_cards.get(seat, ()) if c]
        if cards:
            preflop.append({"action_number": next(numbers), "player_id": ids[seat], "action": "Dealt Cards",
                            "cards": cards})
    by_street: dict[str, list[dict[str, Any]]] = {"Preflop": preflop}
    in_front = dict.fromkeys(hand.order, 0)
    for seat, amount in _posted_blinds(hand):
        in_front[seat] = amount
    behind = {seat: hand.starting_stacks[seat] - in_front[seat] for seat in hand.order}
    street = "preflop"
    for record in hand.actions:
        if record.street != street:
            street, in_front = record.street, dict.fromkeys(hand.order, 0)
        name = _STREET_NAMES.get(record.street, "Preflop")
        action: dict[str, Any] = {"action_number": next(numbers), "player_id": ids[record.seat]}
        if record.kind == "f":
            action["action"] = "Fold"
        elif record.kind == "cc":
            current = max(in_front.values())
            put = max(0, min(current - in_front[record.seat], hand.starting_stacks[record.seat]))
            put = min(put, behind[record.seat])
            action.update({"action": "Call", "amount": money(put)} if put else {"action": "Check"})
            in_front[record.seat] += put
            behind[record.seat] -= put
        else:
            assert record.amount is not None
            put = record.amount - in_front[record.seat]
            kind = "Raise" if max(in_front.values()) > 0 else "Bet"
            action.update({"action": kind, "amount": money(put)})
            if kind == "Raise":
                action["raise_to"] = money(record.amount)
            in_front[record.seat] = record.amount
            behind[record.seat] -= put
        if record.kind != "f":
            action["is_allin"] = behind[record.seat] == 0
        by_street.setdefault(name, []).append(action)
    for k, name in enumerate(("Preflop", "Flop", "Turn", "River")):
        cards = [c for c in hand.board[_BOARD[name]] if c] if name in _BOARD else []
        if name != "Preflop" and not cards and name not in by_street:
            continue
        entry: dict[str, Any] = {"id": k, "street": name, "actions": by_street.get(name, [])}
        if cards:
            entry["cards"] = cards
        rounds.append(entry)
    showdown = [{"action_number": next(numbers), "player_id": ids[seat], "action": "Shows Cards", "cards": list(cards)}
                for seat, cards in hand.hole_cards.items() if cards and all(cards) and _shown(hand, seat)]
    if showdown:
        rounds.append({"id": len(rounds), "street": "Showdown", "actions": showdown})
    return rounds


def _posted_blinds(hand: FinishedHand) -> list[tuple[int, int]]:
    if hand.blinds:
        return [(seat, abs(amount)) for seat, amount in hand.blinds if amount]
    cfg, order = hand.config, hand.order
    posts = [(order[0], cfg.small_blind), (order[1], cfg.big_blind)] if len(order) > 2 else \
        [(order[1], cfg.small_blind), (order[0], cfg.big_blind)]
    return [(seat, min(amount, hand.starting_stacks[seat])) for seat, amount in posts if amount]


def _shown(hand: FinishedHand, seat: int) -> bool:
    from pokerkit import HoleCardsShowingOrMucking

    index = hand.order.index(seat)
    return any(isinstance(op, HoleCardsShowingOrMucking) and op.player_index == index and op.hole_cards
               for op in hand.state.operations)

"""Buy-ins and rebuys (ENG-40: HOUSE-002-2.1, 2.2, 2.4; TDA22-27), as small pure units.

- ``buy_in_ruling`` (house, cash): chips are bought between hands only (HOUSE-002-2.1.4, 2.4.2); a first
  buy-in is at least the table's full buy-in (2.1.1, 2.1.3); a player who has already made a full buy-in in
  this game may buy in short, for at least half of it (2.2; EX-99: full 10,000, a short 4,000 is refused,
  the least is 5,000).
- ``rebuy_ruling`` (tournament rebuy events, TDA22-27): a player may not miss a hand; one who declares a
  rebuy before the hand starts is dealt in, plays the rebuy's chips behind, and is bound to make the rebuy.

The sale is seen at the cash desk, on the dealer's tray (RFID) or heard ("rebuy"); these units take it as
plain data and say whether it stands.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

BuyInAction = Literal["sell", "refuse"]
RebuyAction = Literal["deal_in_with_rebuy", "deal_in", "not_dealt_in"]


@dataclass(frozen=True, kw_only=True)
class BuyInRuling:
    action: BuyInAction
    minimum: int  # the least this buy-in may be
    ruling: str
    rule_id: str


def buy_in_ruling(*, amount: int, full_buy_in: int, had_full_buy_in: bool, during_hand: bool = False) -> BuyInRuling:
    """A player buys ``amount`` in chips at a table whose full buy-in is ``full_buy_in``;
    ``had_full_buy_in``: he has already paid a full buy-in in this game; ``during_hand``: while he is in a hand."""
    if full_buy_in <= 0 or amount <= 0:
        raise ValueError(f"A buy-in is a positive amount: {amount} against a full buy-in of {full_buy_in}.")
    minimum = -(-full_buy_in // 2) if had_full_buy_in else full_buy_in  # half, rounded up: at least half
    if during_hand:
        return BuyInRuling(action="refuse", minimum=minimum, rule_id="HOUSE-002-2.1.4", ruling=(
            "chips are bought between hands only; nothing may be added during a hand (HOUSE-002-2.1.4, 2.4.2): "
            "the sale waits for the end of the hand"))
    if amount >= minimum:
        short = had_full_buy_in and amount < full_buy_in
        return BuyInRuling(action="sell", minimum=minimum, rule_id="HOUSE-002-2.2" if short else "HOUSE-002-2.1.3",
                           ruling=f"{amount} is allowed (at least {minimum}); the chips play from the next hand, "
                                  "announced to the table")
    if had_full_buy_in:
        return BuyInRuling(action="refuse", minimum=minimum, rule_id="HOUSE-002-2.2", ruling=(
            f"a short buy-in must be at least half the full buy-in of {full_buy_in}: {amount} is refused, the "
            f"least is {minimum} (HOUSE-002-2.2)"))
    return BuyInRuling(action="refuse", minimum=minimum, rule_id="HOUSE-002-2.1.3", ruling=(
        f"a player who has not bought in full in this game buys in for the full {full_buy_in}: {amount} is "
        "refused (HOUSE-002-2.1.1, 2.1.3; a short buy-in of half is only for a player who has)"))


@dataclass(frozen=True, kw_only=True)
class RebuyRuling:
    action: RebuyAction
    chips_behind: int  # chips he plays that the rebuy will pay for
    ruling: str
    rule_id: str = "TDA22-27"


def rebuy_ruling(*, stack: int, declared: bool, rebuy_chips: int) -> RebuyRuling:
    """A seat starting a hand of a rebuy event with ``stack`` chips; ``declared``: he said "rebuy" before the
    hand started; ``rebuy_chips``: the chips a rebuy gives."""
    if stack < 0 or rebuy_chips <= 0:
        raise ValueError(f"Stack {stack} and rebuy chips {rebuy_chips}: a stack is never negative, a rebuy gives "
                         "chips.")
    if declared:
        return RebuyRuling(action="deal_in_with_rebuy", chips_behind=rebuy_chips, ruling=(
            f"rebuy declared before the hand: he is dealt in and plays {rebuy_chips} chips behind; the rebuy is "
            "binding, he must pay for it (TDA22-27)"))
    if stack:
        return RebuyRuling(action="deal_in", chips_behind=0, ruling="he plays his own chips; no rebuy declared")
    return RebuyRuling(action="not_dealt_in", chips_behind=0, ruling=(
        "no chips and no rebuy declared before the hand started: he is not dealt in; a player may not miss a "
        "hand, so a rebuy must be declared before the deal (TDA22-27)"))

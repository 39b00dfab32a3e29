"""Arms and settles over time → events: the dealer's and the players' gestures, in table terms.

One recogniser per family, each in its module: ``bets`` (bets, taps, hands in other zones), ``cards`` (dealt,
burned, board, mucked), ``pot`` (gathers and pushes), ``pocketing`` (chips leaving the table), ``obscured``
(stacks out of sight). ``model`` holds what they share: ``GestureConfig`` (their thresholds), ``SettleKind`` and
``Found`` (a settle classified), ``Episode`` (a player's arm from arrival to leaving) and ``TableState``.
``Gestures`` feeds them in a fixed order.
"""

from tablewatch.vision.perception.gestures.coordinator import Gestures
from tablewatch.vision.perception.gestures.model import (
    DEFAULT_CONFIG,
    Episode,
    Found,
    GestureConfig,
    Sample,
    SettleKind,
    TableState,
    board_slot,
)

__all__ = ["DEFAULT_CONFIG", "Episode", "Found", "GestureConfig", "Gestures", "Sample", "SettleKind", "TableState",
           "board_slot"]

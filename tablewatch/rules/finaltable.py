"""How many players make the final table (ENG-33; conflict C6, ``RuleProfile.final_table_size_rule``).

- TDA 2022 (``tda2022``, TDA22-RP-9, EX-82): events played 8- or 9-max have a final table of 9; 6- or 7-max,
  of 7. Other table sizes are not covered: the TD sets the final table.
- TDA 2017 (``tda2017``, TR-002-L43, EX-94): the table maximum plus one (9-max → 10, 6-max → 7, 8-max → 9),
  never more than 10; the rule does not apply to heads-up events.

``final_table_ruling`` is the advice to the floor when tables merge: with this many players left, is it time
to break the last tables and draw for the final table?
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from tablewatch.rules.profiles import RuleProfile

MAX_SEATS = 10
LARGEST_FINAL_TABLE = 10  # TR-002-L43: never more than 10

FinalTableAction = Literal["form_final_table", "keep_playing", "td_decides"]


@dataclass(frozen=True, kw_only=True)
class FinalTableRuling:
    size: int | None  # players at the final table; None: the rule does not set it, the TD does
    action: FinalTableAction
    ruling: str
    rule_id: str


def final_table_size(profile: RuleProfile, *, table_max: int) -> int | None:
    """The final table's size for an event played ``table_max``-handed; None where the venue's rule is silent."""
    if not 2 <= table_max <= MAX_SEATS:
        raise ValueError(f"Tables seat 2 to {MAX_SEATS} players: got a {table_max}-max event.")
    if profile.final_table_size_rule == "tda2017":
        return None if table_max == 2 else min(table_max + 1, LARGEST_FINAL_TABLE)
    return {8: 9, 9: 9, 6: 7, 7: 7}.get(table_max)


def final_table_ruling(profile: RuleProfile, *, table_max: int, players_left: int) -> FinalTableRuling:
    """What the floor does with ``players_left`` players in a ``table_max``-max event."""
    if players_left < 2:
        raise ValueError(f"A final table needs at least 2 players: {players_left} left.")
    size = final_table_size(profile, table_max=table_max)
    rule_id, source = (("TR-002-L43", "table max + 1, at most 10 (TDA 2017)")
                       if profile.final_table_size_rule == "tda2017" else ("TDA22-RP-9", "RP-9 (TDA 2022)"))
    if size is None:
        why = "heads-up events are excluded" if table_max == 2 else f"it covers 6- to 9-max events, not {table_max}-max"
        return FinalTableRuling(size=None, action="td_decides", rule_id=rule_id,
                                ruling=f"{source} does not set this final table ({why}): the TD decides")
    if players_left > size:
        return FinalTableRuling(size=size, action="keep_playing", rule_id=rule_id, ruling=(
            f"{players_left} players left: the final table of {size} ({source}) forms when {size} remain"))
    return FinalTableRuling(size=size, action="form_final_table", rule_id=rule_id, ruling=(
        f"{players_left} players left, the final table is {size} ({source}): break the remaining tables and "
        "draw seats for the final table"))

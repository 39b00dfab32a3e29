"""Final-table size (ENG-33, conflict C6): catalogue EX-82 (TDA 2022, RP-9) and EX-94 (TDA 2017, TR-002-L43)."""

from __future__ import annotations

import pytest

from tablewatch.rules.finaltable import final_table_ruling, final_table_size
from tablewatch.rules.profiles import RuleProfile, preset

TDA_2022 = RuleProfile()
TDA_2017 = preset("tda-2017")


def test_ex_82_nine_for_eight_or_nine_max_seven_for_six_or_seven_max() -> None:
    sizes = {table_max: final_table_size(TDA_2022, table_max=table_max) for table_max in range(2, 11)}
    assert sizes == {2: None, 3: None, 4: None, 5: None, 6: 7, 7: 7, 8: 9, 9: 9, 10: None}


def test_ex_82_a_size_rp_9_does_not_cover_is_the_tds() -> None:
    ruling = final_table_ruling(TDA_2022, table_max=10, players_left=10)
    assert (ruling.size, ruling.action, ruling.rule_id) == (None, "td_decides", "TDA22-RP-9")


def test_ex_82_the_final_table_forms_at_nine_in_a_nine_max_event() -> None:
    assert final_table_ruling(TDA_2022, table_max=9, players_left=10).action == "keep_playing"
    ruling = final_table_ruling(TDA_2022, table_max=9, players_left=9)
    assert (ruling.size, ruling.action) == (9, "form_final_table")


def test_ex_94_table_max_plus_one_never_more_than_ten_not_heads_up() -> None:
    sizes = {table_max: final_table_size(TDA_2017, table_max=table_max) for table_max in range(2, 11)}
    assert sizes == {2: None, 3: 4, 4: 5, 5: 6, 6: 7, 7: 8, 8: 9, 9: 10, 10: 10}
    ruling = final_table_ruling(TDA_2017, table_max=9, players_left=10)
    assert (ruling.size, ruling.action, ruling.rule_id) == (10, "form_final_table", "TR-002-L43")
    heads_up = final_table_ruling(TDA_2017, table_max=2, players_left=4)
    assert heads_up.action == "td_decides" and "heads-up" in heads_up.ruling


def test_the_venue_setting_decides_between_the_two() -> None:
    assert final_table_size(TDA_2022, table_max=9) != final_table_size(TDA_2017, table_max=9)
    assert final_table_size(TDA_2022.model_copy(update={"final_table_size_rule": "tda2017"}), table_max=9) == 10


@pytest.mark.parametrize(("table_max", "players_left", "message"), [
    (11, 10, "2 to 10 players"), (1, 10, "2 to 10 players"), (9, 1, "at least 2 players")])
def test_impossible_events_are_refused(table_max: int, players_left: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        final_table_ruling(TDA_2022, table_max=table_max, players_left=players_left)

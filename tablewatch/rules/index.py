"""Where each rule id is ruled, and the tests that hold it.

Every rule id the rules layer gives (in a finding, or cited in a reading) has one entry: the named places
that rule on it (``module:name`` under ``tablewatch.rules``: a procedure check of ``registry.py``, a ruling
function of the engine (``rulings.py``) or of the chip reading (``chipreading.py``)), the tests that show it
(``path::test``), and whether a product path reaches it yet (``button``, ``clock`` and the showdown's
decision support wait for the live table to call them). ``tests/rules/test_index.py`` keeps it
true; ``docs/rules.md`` is this table written out.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True)
class RuleHome:
    rule_id: str
    places: tuple[str, ...]  # ``module:name`` under ``tablewatch.rules``
    tests: tuple[str, ...]  # ``tests/…/test_x.py::test_name``
    reached: bool = True  # False: only tests call it until the live table wires it in
    catalogued: bool = True  # False: the monitor's own id, not a rule of shared/rules/CATALOGUE.md


def _home(rule_id: str, places: str, tests: str, *, reached: bool = True, catalogued: bool = True) -> RuleHome:
    """An entry from space-separated places and tests (the table below stays one line per rule)."""
    return RuleHome(rule_id=rule_id, places=tuple(places.split()), tests=tuple(tests.split()), reached=reached,
                    catalogued=catalogued)


_DEAL = "tests/rules/test_procedures_deal.py::"
_BOARD = "tests/rules/test_procedures_board.py::"
_CARDS = "tests/rules/test_procedures_cards.py::"
_CHIPS = "tests/rules/test_procedures_chips.py::"
_SHOW = "tests/rules/test_procedures_showdown.py::"
_READ = "tests/rules/test_chipreading.py::"
_ENGINE = "tests/rules/test_engine.py::"
_FLOOR = "tests/rules/test_floor_rulings.py::"
_SHOWDOWN = "tests/rules/test_showdown_rulings.py::"
_ORDER = "tests/rules/test_showdown_order.py::"
_SEATS = "tests/rules/test_button_levels.py::"
_LEVELS = "tests/table/test_levels.py::"

RULE_INDEX: tuple[RuleHome, ...] = (
    # procedure checks (registry.CHECK_CLASSES): the deal, burns and the board
    _home("TDA-22A", "checks.misdeal:MisdealCheck", _DEAL + "test_tda_22a_misdeal_conditions_in_the_deal"),
    _home("TDA-22C", "checks.misdeal:MisdealCheck", _DEAL + "test_tda_22c_a_hand_played_out_is_not_redealt"),
    _home("TDA-22D", "checks.misdeal:MisdealCheck",
          _DEAL + "test_ex_119_non_standard_card_after_substantial_action_is_ignored"),
    _home("TDA-24", "checks.misdeal:MisdealCheck", _DEAL + "test_ex_113_button_dealt_too_few"),
    _home("HOUSE-002-2.7.4", "checks.misdeal:MisdealCheck", _DEAL + "test_ex_122_boxed_cards"),
    _home("HOUSE-002-2.7.6", "checks.misdeal:MisdealCheck", _DEAL + "test_ex_103_extra_card_before_the_first_round"),
    _home("TDA-22E", "checks.fouled:FouledDeckCheck", _DEAL + "test_ex_120_fouled_deck_even_after_substantial_action"),
    _home("TDA-25", "checks.burns:BurnCheck checks.misdeal:MisdealCheck",
          f"{_BOARD}test_tda_25_26_burn_counts "
          f"{_DEAL}test_ex_38_39_wrong_count_after_substantial_action_is_a_dead_hand"),
    _home("TDA-26A", "checks.burns:BurnCheck", _BOARD + "test_tda_26a_action_on_a_four_card_flop_before_the_repair"),
    _home("TDA-26B", "checks.burns:BurnCheck", _BOARD + "test_ex_111_flop_without_burn_no_action_yet_is_repaired"),
    _home("TDA-57", "checks.premature:PrematureBoardCheck checks.burns:BurnCheck",
          f"{_BOARD}test_ex_105_premature_flop_redealt_without_a_burn "
          f"{_BOARD}test_ex_105_a_new_burn_before_the_redealt_flop_is_wrong"),
    _home("TDA-18", "checks.premature:PrematureBoardCheck", _BOARD + "test_tda_18_no_rabbit_hunting"),
    # procedure checks: cards, presence and conduct
    _home("TDA-53", "checks.exposure:ExposedCardCheck", _CARDS + "test_tda_53_exposed_card"),
    _home("HOUSE-002-2.7.11", "checks.exposure:ExposedCardCheck",
          _CARDS + "test_c5_exposing_while_facing_a_bet_live_or_dead"),
    _home("TDA-20", "checks.presence:AbsentAtDealCheck",
          _CARDS + "test_tda_20_dead_hand_not_mucked_before_the_betting"),
    _home("TDA-21", "checks.presence:LeftWithLiveHandCheck", _CARDS + "test_tda_21_left_with_a_live_hand"),
    _home("TDA-63", "checks.presence:LongAbsenceCheck", _CARDS + "test_ex_30_away_for_an_hour_club_rule"),
    _home("TDA-64", "checks.conduct:ConsecutiveAllInCheck", _CARDS + "test_ex_31_three_consecutive_all_ins_club_rule"),
    _home("TDA-54", "checks.conduct:NutsNotBetCheck",
          _SHOWDOWN + "test_ex_96_holding_the_nuts_last_to_act_a_call_is_logged"),
    # procedure checks: the showdown and the pot
    _home("TDA-9", "checks.showdown:AllInShowdownCheck showdown:showdown_order",
          f"{_SHOW}test_ex_23_run_out_with_a_hand_still_face_down "
          f"{_ORDER}test_tda_with_a_live_all_in_every_hand_is_tabled_at_once"),
    _home("TDA-6A", "checks.showdown:TabledToWinCheck", _SHOW + "test_tda_6a_a_hand_must_be_tabled_to_win"),
    _home("TDA-5", "checks.awards:PotAwardCheck", _SHOW + "test_tda_5_misaward"),
    _home("TDA22-RP-10", "checks.stud:StudDealCheck",
          "tests/rules/test_variants.py::test_a_stud_card_dealt_the_wrong_way_up_is_the_dealers_error"),
    _home("TDA22-21", "checks.awards:SidePotOrderCheck",
          _SHOW + "test_tda22_21_two_all_ins_the_smaller_one_is_paid_last"),
    # procedure checks: chips on the table, and the monitor itself
    _home("TDA-16A", "checks.chips:StackVisibilityCheck", _CHIPS + "test_tda_16a_threshold_is_a_profile_setting"),
    _home("TDA-49", "checks.chips:ChipsLeftTableCheck", _CHIPS + "test_tda_49_chips_left_the_table"),
    _home("HOUSE-002-2.4", "checks.chips:ChipsAppearedCheck", _CHIPS + "test_house_002_2_4_chips_appearing"),
    _home("TDA-16B", "checks.chips:UnknownChipCheck", _CHIPS + "test_unknown_chip_is_a_possible_counterfeit"),
    _home("SYS-DEVICE", "checks.system:DeviceHealthCheck", _CHIPS + "test_device_offline_and_back_are_system_findings",
          catalogued=False),
    _home("SYS-CAMERA", "checks.system:DeviceHealthCheck", _CHIPS + "test_camera_moved", catalogued=False),
    _home("SYSTEM", "table:TableRules", "tests/rules/test_index.py::test_a_rules_layer_error_is_a_system_finding",
          catalogued=False),
    # the chip reading: words against chips, bet sizes, pot bets
    _home("TDA-27A", "chipreading:_verbal_governs chipreading:_payment chipreading:_late_declaration "
          "chipreading:declaration_after_chips chipreading:chips_against_declaration",
          f"{_READ}test_ex_40_verbal_amount_and_chip_contradict "
          f"{_ENGINE}test_tda_27a_a_word_just_after_the_chips_is_compared_not_out_of_turn"),
    _home("TDA-27C", "chipreading:read_amount", _READ + "test_ex_9_verbal_amount_equals_silent_chips"),
    _home("TDA-28", "chipreading:_undercall", _READ + "test_ex_10_grossly_undersized_silent_chip"),
    _home("TDA-29", "chipreading:_string_raise rulings:chips_in_a_second_motion",
          f"{_READ}test_tda_29_string_raise_only_the_first_motion_counts "
          f"{_READ}test_tda_29_call_in_several_motions_is_only_recorded "
          "tests/rules/test_camera_less.py::test_a_bet_in_two_motions_read_by_rfid_alone_is_a_string_bet_not_a_second"
          "_action"),
    _home("TDA-30A", "chipreading:_fifty_percent", _READ + "test_ex_97_silent_raise_under_50_percent_is_a_call"),
    _home("TDA-30B", "chipreading:_declared_total", _READ + "test_ex_12_raise_eight_thousand_is_a_total"),
    _home("TDA-31", "chipreading:_single_chip",
          _READ + "test_tda_31_single_oversized_chip_is_a_call_unless_raise_said_first"),
    _home("TDA-32", "chipreading:_multiple_chips chipreading:_all_in",
          f"{_READ}test_ex_13_two_chips_smallest_chip_test_call_with_change "
          f"{_READ}test_ex_50_last_chips_beyond_the_call_are_all_in"),
    _home("TDA-34", "chipreading:_no_reopen", _READ + "test_tda_34_no_raise_when_betting_not_reopened"),
    _home("TDA-37", "chipreading:_undercall", _READ + "test_ex_69_undercall_against_the_opening_bet_must_complete"),
    _home("TDA-38A", "chipreading:_opening_bet chipreading:_declared_total",
          _READ + "test_tda_38a_underbet_must_complete"),
    _home("TDA-38B", "chipreading:_raise_to chipreading:pot_bet_counted_low chipreading:pot_bet_made_up "
          "chipreading:short_pot_bet_stands",
          f"{_READ}test_tda_38b_pot_limit_over_pot_is_reduced "
          f"{_FLOOR}test_ex_71_pot_under_counted_then_substantial_action_the_bet_stands "
          f"{_FLOOR}test_ex_72_pot_under_counted_made_up_before_substantial_action"),
    _home("TDA-40", "chipreading:read_declared", _READ + "test_tda_40c_pot_in_no_limit_commits_to_a_legal_bet"),
    _home("TDA-41", "chipreading:_check_facing_bet chipreading:_declared_total",
          _READ + "test_tda_41_call_with_nothing_to_call_is_a_check_and_check_facing_a_bet"),
    _home("ENG-42", "chipreading:read_declared", _READ + "test_ex_14_last_two_chips_still_a_call"),
    # the engine's own rulings
    _home("TDA22-3", "rulings:tap_check rulings:tap_facing_bet",
          _ENGINE + "test_ex_104_facing_a_bet_a_tap_is_not_a_check"),
    _home("TDA-43", "rulings:unclear_amount", _ENGINE + "test_ex_21_i_bet_five_in_the_engine"),
    _home("TDA-33B", "rulings:fold_after_pulling_back",
          _ENGINE + "test_tda_33b_pulling_back_chips_facing_a_bet_then_folding_is_a_call"),
    _home("TDA-44", "rulings:fold_not_facing_bet", _ENGINE + "test_tda_44_fold_when_not_facing_a_bet_is_binding"),
    _home("TDA-36B", "rulings:acted_before_amount_clear",
          _ENGINE + "test_ex_18_acting_before_the_amount_is_stated_is_logged"),
    _home("TDA-39", "rulings:out_of_turn rulings:out_of_turn_released rulings:skipped_through_substantial_action",
          f"{_ENGINE}test_ex_74_out_of_turn_raise_binding_if_the_action_does_not_change "
          f"{_ENGINE}test_ex_76_out_of_turn_then_substantial_action_floor_is_called"),
    _home("HOUSE-002-2.8.12", "rulings:skipped_facing_bet rulings:skipped_lost_turn",
          f"{_FLOOR}test_ex_101_dealer_skips_a_player_house_rule_he_checks "
          f"{_FLOOR}test_ex_101_house_rule_with_a_bet_the_floor_decides"),
    _home("TDA-35", "rulings:call_stands rulings:call_taken_back",
          f"{_FLOOR}test_ex_17_tda_accepted_action_the_call_stands "
          f"{_FLOOR}test_ex_17_club_rule_a_call_after_a_missed_raise_may_become_a_fold"),
    _home("TDA-7-exception", "rulings:river_aggressor_mucked",
          _SHOWDOWN + "test_ex_8_club_if_the_caller_does_not_ask_a_has_no_claim"),
    # decision support and the live table's units: only tests call them yet
    _home("TDA-10", "showdown:showdown_order", _ORDER + "test_tda_the_last_aggressor_shows_first_then_clockwise",
          reached=False),
    _home("HOUSE-002-2.10.5", "showdown:showdown_order",
          _ORDER + "test_cash_side_pot_contestants_first_then_the_all_ins_pot_by_pot", reached=False),
    _home("TDA-11", "showdown:request_to_see",
          _SHOWDOWN + "test_ex_27_callers_who_kept_their_cards_may_see_the_last_raisers_hand", reached=False),
    _home("TDA22-32", "button:check_positions", _SEATS + "test_a_skipped_big_blind_is_found", reached=False),
    _home("TDA-19", "clock:clock_ruling", "tests/rules/test_clock.py::test_ex_78_tda_clock_25_then_5_seconds",
          reached=False),
    # the live table's set-up: the framer checks the blinds posted against the level (``table.levels``)
    _home("TDA-14", "levels:blinds_ruling",
          f"{_SEATS}test_old_blinds_are_corrected_before_substantial_action_and_stand_after_it "
          f"{_LEVELS}test_blinds_posted_at_the_old_level_are_a_tda_14_finding_and_the_right_ones_none"),
)


def home_of(rule_id: str) -> RuleHome:
    """The entry of ``rule_id``; a misdeal condition (``TDA-22A(5)``) is ruled where its rule is."""
    base = rule_id.split("(", 1)[0]
    for home in RULE_INDEX:
        if home.rule_id == base:
            return home
    raise KeyError(f"{rule_id} is not in the rule index (tablewatch/rules/index.py)")


def index_markdown() -> str:
    """``docs/rules.md``: the index as a table (``python -m tablewatch.rules.index > docs/rules.md``)."""
    lines = [
        "# Where each rule is ruled",
        "",
        "Generated from `tablewatch/rules/index.py` (`python -m tablewatch.rules.index > docs/rules.md`);",
        "`tests/rules/test_index.py` checks both. Places are under `tablewatch.rules`; *not reached*: only tests",
        "call it until the live table wires it in; *monitor*: the monitor's own id, not a catalogue rule.",
        "",
        "| Rule | Ruled in | Tests | |",
        "|---|---|---|---|",
    ]
    for home in RULE_INDEX:
        places = "<br>".join(f"`{place}`" for place in home.places)
        tests = "<br>".join(f"`{test.rsplit('/', 1)[-1]}`" for test in home.tests)
        status = "; ".join(word for word, on in (("not reached", not home.reached), ("monitor", not home.catalogued))
                           if on)
        lines.append(f"| {home.rule_id} | {places} | {tests} | {status} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(index_markdown(), end="")

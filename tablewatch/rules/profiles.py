"""Per-venue rule profiles: where the seed documents disagree, the venue chooses; TDA is the default.

Each field of ``RuleProfile`` names the conflict of ``shared/rules/CATALOGUE.md`` §0.5 (C1–C14) or the
rule it tunes. The procedure checks (``tablewatch.rules.checks``) read the fields marked "checks"; the
betting engine reads those marked "engine"; the showdown order and the button name their unit. The venue's
penalty and final-table settings (marked "venue") are kept for the floor: no unit of the monitor rules on
them. Conflict C3 (a premature stud card) has no setting: the monitor follows flop games only. Thresholds
marked *(default — not in seeds)* are engineering choices, not seed text.

A profile is plain config: ``RuleProfile.model_validate(dict)``, ``load_profile(path)`` for a TOML, YAML or
JSON file (unknown keys are errors), or one of the named ``PRESETS``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationError, model_validator

from tablewatch.config import ConfigError, StrictModel, describe_validation_error, load_config


class RuleProfile(StrictModel):
    """The rule choices of one venue (or one event). Defaults follow the TDA rules."""

    name: str = Field(default="tda", description="A label for alerts and logs, e.g. the venue's name.")
    game_format: Literal["tournament", "cash"] = Field(
        default="tournament",
        description="checks: chips leaving/entering the table are judged by the format (TDA-49, HOUSE-002-2.4).",
    )

    # --- The conflicts of catalogue §0.5 ------------------------------------------------------------
    clock_variant: Literal["tda2022", "club10s"] = Field(
        default="tda2022",
        description="C1, engine: 25 s + 5 s once the clock is called (TDA22-29), or the club's 10 s (TDA-19).",
    )
    premature_turn_variant: Literal["tda2022", "tda2017"] = Field(
        default="tda2022",
        description="C2, checks: early turn goes back to the stub and is redealt without a burn (2022, TDA-57B), "
        "or is set aside and the next card is burned-and-dealt, river without a burn (2017, TR-002-L164-170).",
    )
    penalty_offender_away: bool = Field(
        default=True,
        description="C4, venue: a penalised player must be away from the "
        "table (TDA22-71C) or may stay (TDA-56C).",
    )
    expose_facing_bet_kills: bool = Field(
        default=False,
        description="C5, checks: a hole card exposed while facing a bet kills the hand (HOUSE-002-2.7.11 cash, "
        "HOUSE-004-pass(h)); TDA (TDA-53): the cards stay live and a penalty follows the hand.",
    )
    final_table_size_rule: Literal["tda2022", "tda2017"] = Field(
        default="tda2022", description="C6, venue: the final table seats 9 players (8/9-max) or 7 "
        "(6/7-max) (TDA22-RP-9, 2022), or table max + 1, at most 10, not in heads-up events (TR-002-L43, 2017)."
    )
    bba_priority: Literal["ante_first", "big_blind_first"] = Field(
        default="ante_first",
        description="C7, engine (``HandState._big_blind_ante``): a big blind short of the blind and "
        "the big-blind ante posts the ante first, the blind from what is left (the garbled 000 RP-11; pokerkit's "
        "order), or the blind in full first, the ante from what is left (001 TDA-60)."
    )
    limit_raise_cap: Literal["tda", "house"] = Field(
        default="tda",
        description="C8, engine: limit raise cap applies heads-up (TDA) or raises are unlimited heads-up "
        "(HOUSE-002-2.8.1-2.8.2)."
    )
    misdeal_cutoff: Literal["substantial_action", "two_players_acted"] = Field(
        default="substantial_action",
        description="C9, checks: no misdeal after substantial action (TDA-22D/TDA-23) or after two players acted "
        "(HOUSE-002-2.5).",
    )
    single_chip_over_prior_chips: Literal["multiple_chip_rule", "always_call"] = Field(
        default="multiple_chip_rule",
        description="C10, engine: one silent chip added to chips already in front that exceed the call follows the "
        "multiple-chip rule (TDA22-ILL-46 Sit. 2) or is always a call (001 TDA-33D).",
    )
    showdown_order_variant: Literal["tda", "cash"] = Field(
        default="tda",
        description="C11, showdown order (ENG-20, ``tablewatch.rules.showdown.showdown_order``): the last "
        "aggressor shows first (TDA-10), or the side-pot contestants first, pot by pot inwards (cash, 001 cash "
        "section, HOUSE-002-2.10.5)."
    )
    paid_to_see_right: bool = Field(
        default=True,
        description="C12, engine: a caller may ask to see the last aggressor's hand (TDA-11); not in cash (001)."
    )
    mucked_aggressor_rule: Literal["tda", "club"] = Field(
        default="tda",
        description="C12, engine: the last aggressor of the river mucks face down after being called: his hand is "
        "dead and the caller wins (TDA-7, TDA-11), or, if the caller asks, the dealer turns it over and the caller "
        "must show a better hand, or the aggressor wins (001 TDA-7 exception, club).",
    )
    short_allin_reopens: Literal["tda_cumulative", "house_full_raise"] = Field(
        default="tda_cumulative",
        description="C13, engine: short all-ins reopen the betting only when they add up to a full raise (TDA-34A), "
        "or an all-in counts as a raise only at >= 100 % of the required raise (HOUSE-004-allin).",
    )
    declared_raise_short: Literal["complete_to_minimum", "as_placed"] = Field(
        default="complete_to_minimum",
        description="C14, engine: 'raise' declared, then fewer chips than a min-raise: complete to the minimum "
        "(TR-002-L105, HOUSE-004, TDA-41B analogue), or read the chips as placed.",
    )
    skipped_player: Literal["tda", "house"] = Field(
        default="tda",
        description="engine: a player passed over while others act: his turn waits and the floor rules after "
        "substantial action (TDA-39, ENG-17), or after two silent actions he loses his turn, a check if nobody "
        "bet (HOUSE-002-2.8.12).",
    )
    missed_raise_call: Literal["binding", "may_fold"] = Field(
        default="binding",
        description="engine: 'call' said having missed a raise: the call stands at the full amount (accepted "
        "action, TDA22-49), or the player may take it back and fold, not raise (club, 001 TDA-35).",
    )
    extra_hole_card: Literal["misdeal", "becomes_burn"] = Field(
        default="misdeal",
        description="checks: one extra hole card before any action is a wrong-count misdeal (TDA-22A(5)) or goes "
        "back as the flop burn (HOUSE-002-2.7.6; two or more extra cards are a misdeal, HOUSE-002-2.5(d)).",
    )
    button_rule: Literal["dead", "moving"] = Field(
        default="dead",
        description="button (ENG-03, ``tablewatch.rules.button``): the dead button, blinds and button placed "
        "from last hand's even on empty seats (tournaments, TDA22-32), or a moving button, the blinds the next two "
        "players (a cash room's choice, HOUSE-002-2.11.1)."
    )
    team_play_rule: Literal["tda", "club"] = Field(
        default="tda", description="venue: soft play is penalised at the TD's "
        "discretion (TDA22-69, TDA22-71), or by the club's ladder: warning, then the hand exposed and the chips to "
        "the real winner, then 1/2/3/… missed rounds (001 TDA-54). Collusion disqualifies in both."
    )
    left_live_hand_penalty: bool = Field(
        default=True,
        description="checks: leaving the table with a live hand is a penalty (TDA22-31, alert) or only the "
        "player's risk (001 TDA-21, logged)."
    )

    nuts_last_to_act_must_bet: bool = Field(
        default=False, description="checks: the live-tournament rule of FAQ-002-L324-326: the last to act on the river "
        "holding the nuts must bet or raise; a check or call is logged for review (NUTS_NOT_BET). TDA has no such "
        "rule: checking the nuts is not automatically soft play (TDA-56B)."
    )

    long_absence_s: float | None = Field(
        default=None, gt=0, description="checks: club rule TDA-63: a player away this long may have his chips removed "
        "(3600 s in the club text); None: not checked."
    )
    consecutive_all_ins_warning: int | None = Field(
        default=None, ge=2,
        description="checks: club rule TDA-64: all-in in this many hands in a row earns a warning (3 in "
        "the club text), more a possible penalty; None: not checked."
    )

    # --- Thresholds -------------------------------------------------------------------------------------
    stack_obscured_advisory_s: float = Field(
        default=10.0,
        gt=0,
        description="checks: a stack's top denominations hidden this long is logged (TDA-16A HIGH_DENOM_HIDDEN).",
    )
    stack_obscured_alert_s: float = Field(
        default=120.0, gt=0,
        description="checks: ... and alerted when it lasts this long (TDA-16A: more than 2 minutes)."
    )
    presence_window_s: float = Field(
        default=0.5, ge=0,
        description="checks: a player seen at his seat within this many seconds of the last card of the "
        "initial deal counts as present (TDA-20) *(default — not in seeds)*."
    )
    absent_live_hand_s: float = Field(
        default=5.0, gt=0,
        description="checks: away from the seat this long while holding a live hand (TDA-21) *(default)*."
    )
    four_card_flop_window_s: float = Field(
        default=3.0, gt=0,
        description="checks and engine: in an all-in run-out, a 4th card this soon after the flop with no burn is "
        "a four-card flop (TDA-26A; the turn only if no card replaces it), later it is a turn without a burn "
        "(TDA-25) *(default — not in seeds)*."
    )
    misaward_tolerance: int = Field(
        default=0, ge=0,
        description="checks: chips a push may differ from the engine's award before it is a misaward (TDA-5)."
    )
    camera_shift_tolerance_mm: float = Field(
        default=5.0, ge=0, description="checks: a camera that moved more than this needs recalibration *(default)*."
    )

    @model_validator(mode="after")
    def verify_stack_thresholds(self) -> RuleProfile:
        if self.stack_obscured_alert_s < self.stack_obscured_advisory_s:
            raise ValueError(
                f"stack_obscured_alert_s ({self.stack_obscured_alert_s}) must not be below "
                f"stack_obscured_advisory_s ({self.stack_obscured_advisory_s})."
            )
        return self


PRESETS: dict[str, dict[str, object]] = {
    # The TDA rules (2022 text where the TDA versions differ): every default.
    "tda": {},
    # The house (cash) rules of seed 002, section 2, with seed 004's declarations.
    "house-cash": {
        "game_format": "cash",
        "expose_facing_bet_kills": True,
        "limit_raise_cap": "house",
        "misdeal_cutoff": "two_players_acted",
        "showdown_order_variant": "cash",
        "paid_to_see_right": False,
        "short_allin_reopens": "house_full_raise",
        "extra_hole_card": "becomes_burn",
        "skipped_player": "house",
    },
    # The club adaptation of seed 001 (older TDA numbering, club rules).
    "club-001": {
        "clock_variant": "club10s",
        "penalty_offender_away": False,
        "bba_priority": "big_blind_first",
        "single_chip_over_prior_chips": "always_call",
        "missed_raise_call": "may_fold",
        "mucked_aggressor_rule": "club",
        "team_play_rule": "club",
        "left_live_hand_penalty": False,
        "long_absence_s": 3600.0,
        "consecutive_all_ins_warning": 3,
    },
    # The TDA 2017 text (seed 002, Turkish): the premature-turn and final-table procedures of 2017.
    "tda-2017": {
        "premature_turn_variant": "tda2017",
        "final_table_size_rule": "tda2017",
    },
}


def preset(name: str) -> RuleProfile:
    """A named profile: ``tda`` (default), ``house-cash``, ``club-001`` or ``tda-2017``."""
    try:
        overrides = PRESETS[name]
    except KeyError:
        raise ConfigError(f"Unknown rule profile {name!r}; known profiles: {', '.join(sorted(PRESETS))}.") from None
    return RuleProfile.model_validate({"name": name, **overrides})


def load_profile(path: str | Path) -> RuleProfile:
    """A profile from a TOML/YAML/JSON file; ``preset: house-cash`` in the file starts from that preset."""
    raw = load_config(path, _ProfileFile)
    base = PRESETS.get(raw.preset or "tda")
    if base is None:
        raise ConfigError(f"{path}: preset: unknown rule profile {raw.preset!r}; known: {', '.join(sorted(PRESETS))}.")
    fields = raw.model_dump(exclude={"preset"}, exclude_unset=True)
    try:
        return RuleProfile.model_validate({"name": raw.preset or "tda", **base, **fields})
    except ValidationError as exc:  # a cross-field check of the preset and the file together
        raise ConfigError(describe_validation_error(exc, path)) from exc


class _ProfileFile(RuleProfile):
    preset: str | None = Field(default=None, description="Start from this named profile, then apply the file's fields.")

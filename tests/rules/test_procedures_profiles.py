"""Rule profiles (catalogue §0.5 conflicts as settings, TDA by default) and the registry of checks."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tablewatch.config import ConfigError
from tablewatch.events import Severity
from tablewatch.rules.profiles import PRESETS, RuleProfile, load_profile, preset
from tablewatch.rules.registry import CHECK_CLASSES, STUD_ONLY, default_checks

CHECKS_DIR = Path(__file__).resolve().parents[2] / "tablewatch" / "rules" / "checks"


def test_default_profile_is_tda() -> None:
    profile = RuleProfile()
    assert profile == preset("tda").model_copy(update={"name": "tda"})
    assert (profile.premature_turn_variant, profile.misdeal_cutoff, profile.expose_facing_bet_kills) == (
        "tda2022", "substantial_action", False)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_builds(name: str) -> None:
    assert preset(name).name == name


def test_unknown_preset_is_named() -> None:
    with pytest.raises(ConfigError, match="Unknown rule profile 'wsop'; known profiles: club-001, house-cash"):
        preset("wsop")


def test_unknown_key_and_bad_value_are_errors() -> None:
    with pytest.raises(ValueError, match="extra"):
        RuleProfile.model_validate({"premature_turn": "tda2017"})
    with pytest.raises(ValueError, match="premature_turn_variant"):
        RuleProfile.model_validate({"premature_turn_variant": "2019"})
    with pytest.raises(ValueError, match="must not be below"):
        RuleProfile(stack_obscured_advisory_s=60, stack_obscured_alert_s=30)


def test_load_profile_from_yaml_with_a_preset(tmp_path: Path) -> None:
    path = tmp_path / "venue.yaml"
    path.write_text("preset: house-cash\nname: Casino Nord\nstack_obscured_alert_s: 60\n")
    profile = load_profile(path)
    assert (profile.name, profile.game_format, profile.misdeal_cutoff, profile.stack_obscured_alert_s) == (
        "Casino Nord", "cash", "two_players_acted", 60)


def test_load_profile_from_toml_names_the_bad_key(tmp_path: Path) -> None:
    path = tmp_path / "venue.toml"
    path.write_text('misdeal_cutof = "two_players_acted"\n')
    with pytest.raises(ConfigError, match=r"venue.toml: 1 problem\(s\):\n  misdeal_cutof: Extra inputs"):
        load_profile(path)


def test_load_profile_cross_field_error_with_the_preset(tmp_path: Path) -> None:
    path = tmp_path / "venue.yaml"
    path.write_text("stack_obscured_alert_s: 5\n")
    with pytest.raises(ConfigError, match="must not be below"):
        load_profile(path)


def test_registry_gives_a_fresh_set_of_every_check_per_table() -> None:
    first, second = default_checks(), default_checks(preset("house-cash"))
    assert [type(c) for c in first] == [c for c in CHECK_CLASSES if c not in STUD_ONLY]  # a hold'em table's
    assert len({type(c) for c in first}) == len(first)
    assert all(a is not b for a, b in zip(first, second, strict=True))
    assert {c.profile.name for c in second} == {"house-cash"}  # type: ignore[attr-defined]


def test_every_rule_id_a_check_cites_is_in_the_catalogue(shared_dir: Path) -> None:
    catalogue = (shared_dir / "rules" / "CATALOGUE.md").read_text(encoding="utf-8")
    source = "\n".join(p.read_text(encoding="utf-8") for p in sorted(CHECKS_DIR.glob("*.py")))
    cited = set(re.findall(r'rule_id="((?:TDA|HOUSE|ENG)[^"]*)"', source))
    cited |= set(re.findall(r'rule_id = "((?:TDA|HOUSE|ENG)[^"]*)"', source))
    cited |= {f"TDA-{c}" for c in re.findall(r'"(22A\(\d\))"', source)}
    assert len(cited) > 15
    # a split rule carries a suffix (catalogue §0.2: "TDA-22A(7)"): its base id must be in the catalogue
    missing = sorted(rule for rule in cited if rule not in catalogue and rule.split("(")[0] not in catalogue)
    assert missing == []


def test_severity_is_one_of_three() -> None:
    assert {s.value for s in Severity} == {"violation", "advisory", "system"}


def test_load_profile_missing_file_and_unknown_preset(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read the file"):
        load_profile(tmp_path / "nope.yaml")
    path = tmp_path / "venue.yaml"
    path.write_text("preset: wsop\n")
    with pytest.raises(ConfigError, match=r"venue\.yaml: preset: unknown rule profile 'wsop'"):
        load_profile(path)

"""deploy/table.example.toml is a table configuration the models accept, and docs/configuration.md is the
reference the models render."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablewatch.config import ConfigError, load_config
from tablewatch.events import Zone
from tablewatch.table.config import RunConfig
from tablewatch.table.config_reference import reference

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "deploy" / "table.example.toml"
REFERENCE = ROOT / "docs" / "configuration.md"

# `tablewatch run` loads its file with load_run_config: load_config(path, RunConfig), then it opens the files
# the configuration names (the camera's profile, the chip registry, the broker's password and CA files), which
# exist only on a table's own machine. These tests run load_config alone: the same parsing and the same strict
# models (an unknown key is an error), without touching those files.


@pytest.fixture(scope="module")
def config() -> RunConfig:
    return load_config(EXAMPLE, RunConfig)


def test_the_example_sets_every_section_a_cash_table_uses(config: RunConfig) -> None:
    assert config.model_fields_set >= {"site", "table", "out", "registry", "console", "game", "rules", "readers",
                                       "cameras", "mqtt", "evidence", "event_log", "metrics"}
    assert config.rules.game_format == "cash" and not config.levels


def test_every_seat_has_a_bet_and_a_stack_antenna(config: RunConfig) -> None:
    zones = {zone for reader in config.readers for zone in reader.antennas}
    seats = range(1, config.game.seat_count + 1)
    assert zones >= {Zone.bet(s).name for s in seats} | {Zone.stack(s).name for s in seats} | {"pot", "tray"}
    assert all(Zone.parse(zone).seat in (None, *seats) for zone in zones), "an antenna for a seat the table lacks"


def test_the_camera_is_calibrated_and_reads_cards(config: RunConfig) -> None:
    (camera,) = config.cameras
    assert camera.profile is not None and camera.deck is not None


def test_the_broker_is_reached_over_tls_with_a_password_file(config: RunConfig) -> None:
    assert config.mqtt is not None
    assert config.mqtt.tls and config.mqtt.password_file is not None and config.mqtt.password is None


def test_the_commented_out_tournament_levels_are_valid(tmp_path: Path) -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    lines = text.splitlines()
    start = lines.index("# [[levels]]")
    assert all(line.startswith("# ") for line in lines[start:]), "the levels example ends the file"
    tournament = lines[:start] + [line.removeprefix("# ") for line in lines[start:]]
    tournament = [line.replace("# level_started_at", "level_started_at") for line in tournament]
    path = tmp_path / "tournament.toml"
    path.write_text("\n".join(tournament) + "\n", encoding="utf-8")
    config = load_config(path, RunConfig)
    assert [level.number for level in config.levels] == [1, 2] and config.level_started_at is not None


def test_a_misspelt_key_is_an_error(tmp_path: Path) -> None:
    """What makes the tests above fail when the example and the models part: the models refuse unknown keys."""
    path = tmp_path / "table.toml"
    path.write_text(EXAMPLE.read_text(encoding="utf-8").replace("seat_count =", "seat_cout ="), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"game\.seat_cout"):
        load_config(path, RunConfig)


def test_the_reference_is_what_the_models_render() -> None:
    assert REFERENCE.read_text(encoding="utf-8") == reference(), (
        "docs/configuration.md is stale: python -m tablewatch.table.config_reference > docs/configuration.md")

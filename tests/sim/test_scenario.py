"""Scenario files: valid ones load, bad ones fail with the key path and the reason."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tablewatch.sim.scenario import ScenarioError, load_scenario
from tablewatch.sim.scenarios import HERE
from tablewatch.sim.session import Simulation

BASE = {
    "players": [{"seat": 1, "name": "A", "stack": 1000}, {"seat": 2, "name": "B", "stack": 1000}],
    "hands": [{"button": 1, "actions": ["s1 f"]}],  # heads-up: the button (seat 1) posts the small blind
}


def write(tmp_path: Path, data: dict) -> Path:
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.mark.parametrize("name", sorted(p.stem for p in HERE.glob("*.yaml")))
def test_shipped_scenarios_load_and_simulate(name: str) -> None:
    sim = Simulation.from_file(HERE / f"{name}.yaml")
    assert sim.events and sim.hands


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"playres": []}, "playres: Extra inputs are not permitted"),
        ({"hands": [{"actions": ["s1 raise 300"]}]}, "hands.0.actions"),
        ({"hands": [{"hole_cards": {1: "AsXx"}}]}, "'Xx' is not a card"),
        ({"hands": [{"violations": [{"type": "missing_burn", "street": "preflop"}]}]}, "hands.0.violations.0"),
        ({"hands": [{"violations": [{"type": "card_sharking"}]}]}, "card_sharking"),
        ({"hands": [{"violations": [{"type": "string_raise"}]}]}, "string_raise.action: Field required"),
        ({"chips": [{"value": 25, "colour": "mauve"}]}, "unknown colour 'mauve'"),
        ({"deck": "tarot"}, "unknown deck 'tarot'"),
        ({"hands": [{"button": 7, "actions": []}]}, "seat 7 has no player"),
        ({"hands": [{"hole_cards": {1: "AsKs", 2: "AsQd"}}]}, "card(s) As given twice"),
    ],
)
def test_bad_scenarios_name_the_key_and_reason(tmp_path: Path, change: dict, expected: str) -> None:
    with pytest.raises(ScenarioError) as err:
        load_scenario(write(tmp_path, {**BASE, **change}))
    assert expected in str(err.value)
    assert str(tmp_path / "s.yaml") in str(err.value)


@pytest.mark.parametrize(
    ("actions", "violations", "expected"),
    [
        (["s2 cc"], [], "it is seat 1's turn, not seat 2's"),
        (["s1 cc"], [], "the actions end while seat 2 is still to act"),
        (["s1 cbr 150"], [], "pokerkit refused"),
        (["s1 cc", "s2 cc"], [{"type": "string_raise", "action": 0}], "is not a bet or raise"),
        (["s1 f"], [{"type": "undercall", "action": 5}], "there is no action 5"),
        (["s1 f"], [{"type": "board_card_exposed_early", "street": "turn"}], "never gets there"),
        (["s1 f"], [{"type": "chips_pocketed", "seat": 2, "chips": {5000: 3}}], "can't pocket"),
    ],
)
def test_scenarios_that_cannot_be_played_say_why(tmp_path: Path, actions: list, violations: list,
                                                 expected: str) -> None:
    data = {**BASE, "hands": [{"button": 1, "actions": actions, "violations": violations}]}
    with pytest.raises(ScenarioError) as err:
        Simulation(load_scenario(write(tmp_path, data)))
    assert expected in str(err.value)


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="cannot read the file"):
        load_scenario(tmp_path / "nope.yaml")

from __future__ import annotations

from tablewatch.sim.inject import INJECTIONS, RULE_IDS
from tablewatch.sim.scenario import VIOLATION_TYPES


def test_every_violation_kind_has_its_strategy_and_rule() -> None:
    assert set(INJECTIONS) == set(VIOLATION_TYPES)
    assert RULE_IDS["string_raise"] == "TDA-29" and RULE_IDS["chips_pocketed"] == "TDA-49"
    assert all(rule.startswith("TDA-") for rule in RULE_IDS.values())

"""The rule index (``tablewatch.rules.index``) stays true: every rule id the rules code gives is in it, ruled
where it says, with tests that exist; ``docs/rules.md`` is the index written out."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

from tablewatch.events import Event, HandStarted, Severity, Violation
from tablewatch.rules.game import GameConfig
from tablewatch.rules.index import RULE_INDEX, home_of, index_markdown
from tablewatch.rules.registry import CHECK_CLASSES
from tablewatch.rules.snapshot import HandSnapshot
from tablewatch.rules.table import TableRules
from tablewatch.shared import shared_dir

ROOT = Path(__file__).resolve().parents[2]
RULES_CODE = ROOT / "tablewatch" / "rules"
RULE_ID = re.compile(r"^(?:TDA22|TDA|HOUSE|SYS|ENG)-[A-Za-z0-9.-]+$|^SYSTEM$")


def rule_ids_in_code() -> dict[str, set[str]]:
    """rule id → the modules (``checks.misdeal``) whose code names it as a whole string, the way findings
    and readings give it; a misdeal condition (``f"TDA-{condition}"``) counts under its rule."""
    found: dict[str, set[str]] = {}
    for path in sorted(RULES_CODE.rglob("*.py")):
        module = ".".join(path.relative_to(RULES_CODE).with_suffix("").parts)
        if module == "index":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and RULE_ID.match(node.value):
                found.setdefault(node.value, set()).add(module)
    return found


def resolve(place: str) -> object:
    module, _, name = place.partition(":")
    target: object = importlib.import_module(f"tablewatch.rules.{module}")
    for part in name.split("."):
        target = getattr(target, part)
    return target


def test_every_rule_id_the_code_gives_is_in_the_index() -> None:
    indexed = {home.rule_id for home in RULE_INDEX}
    missing = sorted(set(rule_ids_in_code()) - indexed)
    assert missing == [], f"rule ids given by tablewatch/rules but not in tablewatch/rules/index.py: {missing}"


def test_the_index_names_every_module_that_rules_on_an_id() -> None:
    for rule_id, modules in rule_ids_in_code().items():
        homes = {place.partition(":")[0] for place in home_of(rule_id).places}
        assert modules <= homes, f"{rule_id} is also ruled in {sorted(modules - homes)}, not named in the index"


def test_each_rule_id_has_one_entry_and_every_entry_is_given_by_the_code() -> None:
    ids = [home.rule_id for home in RULE_INDEX]
    assert len(ids) == len(set(ids))
    stale = sorted(set(ids) - set(rule_ids_in_code()))
    assert stale == [], f"index entries no code gives: {stale}"


def test_every_place_exists() -> None:
    for home in RULE_INDEX:
        assert home.places, home.rule_id
        for place in home.places:
            assert callable(resolve(place)), f"{home.rule_id}: {place} is not a class or function"


def test_every_procedure_check_is_a_place_in_the_index() -> None:
    places = {resolve(place) for home in RULE_INDEX for place in home.places}
    assert set(CHECK_CLASSES) <= places


def test_every_entrys_tests_exist() -> None:
    for home in RULE_INDEX:
        assert home.tests, home.rule_id
        for test in home.tests:
            path, _, name = test.partition("::")
            source = ROOT / path
            assert source.is_file(), f"{home.rule_id}: {path} does not exist"
            names = {node.name for node in ast.parse(source.read_text(encoding="utf-8")).body
                     if isinstance(node, ast.FunctionDef)}
            assert name in names, f"{home.rule_id}: no {name} in {path}"


def test_a_misdeal_condition_is_ruled_where_its_rule_is() -> None:
    assert home_of("TDA-22A(5)") is home_of("TDA-22A")
    with pytest.raises(KeyError, match="TDA-99"):
        home_of("TDA-99")


def test_every_catalogued_id_is_in_the_catalogue() -> None:
    catalogue = shared_dir() / "rules" / "CATALOGUE.md"
    if not catalogue.is_file():
        pytest.skip(f"the rules catalogue is not at {catalogue} (set TABLEWATCH_SHARED)")
    text = catalogue.read_text(encoding="utf-8")
    absent = [home.rule_id for home in RULE_INDEX
              if home.catalogued and not re.search(rf"{re.escape(home.rule_id)}(?![\w-])", text)]
    assert absent == [], f"rule ids not in {catalogue}: {absent}"
    own = [home.rule_id for home in RULE_INDEX if not home.catalogued]
    assert all(not re.search(rf"{re.escape(rule_id)}(?![\w-])", text) for rule_id in own)


def test_docs_rules_md_is_the_index() -> None:
    assert (ROOT / "docs" / "rules.md").read_text(encoding="utf-8") == index_markdown(), (
        "docs/rules.md is out of date: python -m tablewatch.rules.index > docs/rules.md")


class _Broken:
    rule_id = "TDA-5"

    def observe(self, snapshot: HandSnapshot, event: Event) -> list[Violation]:
        raise RuntimeError("a bug")


def test_a_rules_layer_error_is_a_system_finding() -> None:
    rules = TableRules(GameConfig(), checks=[_Broken()])
    start = HandStarted(ts=1.0, table="T01", source="dealer", hand_no=3, button=2, seats=(1, 2))
    found = rules.feed(start)
    assert [(v.rule_id, v.severity) for v in found] == [("SYSTEM", Severity.SYSTEM)]
    assert "RuntimeError: a bug" in found[0].observed and rules.current is not None

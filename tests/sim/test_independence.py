"""The simulator's truth scores the code under test, so the simulator must not be made of it."""

from __future__ import annotations

import ast
from pathlib import Path

import tablewatch.sim

UNDER_TEST = ("tablewatch.rules", "tablewatch.e2e", "tablewatch.table", "tablewatch.bench")


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
    return found


def test_the_simulator_imports_nothing_of_the_rules_or_the_pipeline() -> None:
    package = Path(tablewatch.sim.__file__).parent
    offending = {f"{path.relative_to(package)}: {name}" for path in package.rglob("*.py") for name in _imports(path)
                 if name.startswith(UNDER_TEST)}
    assert not offending

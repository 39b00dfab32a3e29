"""The layers of ``docs/architecture.md`` hold: import-linter checks the contracts in ``pyproject.toml`` (the
product never imports the test bench, the simulator or the training tools; the simulator never imports the
rules, perception or fusion it scores; each part imports only the parts below it)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_import_contract_is_kept() -> None:
    lint_imports = Path(sys.executable).parent / "lint-imports"
    result = subprocess.run([str(lint_imports), "--no-cache"], cwd=ROOT, capture_output=True, text=True,
                            timeout=120, check=False)
    assert result.returncode == 0, result.stdout + result.stderr

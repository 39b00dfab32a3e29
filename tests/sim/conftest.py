from __future__ import annotations

import pytest

from tablewatch.sim.scenarios import example
from tablewatch.sim.session import Simulation


@pytest.fixture(scope="session")
def demo() -> Simulation:
    return Simulation.from_file(example("demo"))


@pytest.fixture(scope="session")
def all_violations() -> Simulation:
    return Simulation.from_file(example("all_violations"))

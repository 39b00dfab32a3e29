"""The test run's PostgreSQL (127.0.0.1:5432, database ``test``, trust auth on the project's machines); a test that
needs it is skipped, saying why, where it is missing."""

from __future__ import annotations

from typing import Any

import pytest

DSN = "postgresql://127.0.0.1:5432/test"


def connect_or_skip(dsn: str = DSN) -> Any:
    """An autocommit connection to ``dsn``, or the test skipped with the reason."""
    psycopg = pytest.importorskip("psycopg", reason="psycopg is in the dev extra")
    try:
        return psycopg.connect(dsn, autocommit=True, connect_timeout=3)
    except psycopg.Error as exc:
        pytest.skip(f"PostgreSQL not reachable at {dsn}: {exc}")

"""Fixtures of the alerts part's tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.alerts.secure_broker import Secure, secure_broker


@pytest.fixture(scope="session")
def secure(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Secure]:
    """A broker with deploy/'s TLS, passwords and ACL, for the whole session."""
    with secure_broker(tmp_path_factory.mktemp("secure-broker")) as broker:
        yield broker

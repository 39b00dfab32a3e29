"""Procedure checks: one small module per rule family, each check a class with a ``rule_id`` and
``observe(snapshot, event) -> list[Violation]`` (``tablewatch.rules.snapshot.Check``).

The one list of checks a table runs is ``tablewatch.rules.registry.default_checks``.
"""

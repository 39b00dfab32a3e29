"""Shared configuration base: strict pydantic models whose errors name the file, key path and value."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

Model = TypeVar("Model", bound=BaseModel)


class StrictModel(BaseModel):
    """Base of every config model: unknown keys are errors (a typo must not pass silently)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class ConfigError(ValueError):
    """A configuration file that can't be used; the message says where and why."""


def load_config(path: str | Path, model: type[Model]) -> Model:
    """Load a TOML, YAML or JSON file into ``model``; raise ConfigError with one line per problem."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the file ({exc.strerror}).") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not a text file (byte {exc.start} is not UTF-8).") from exc
    data = parse_config_text(text, path)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(describe_validation_error(exc, path)) from exc


def parse_config_text(text: str, path: Path) -> object:
    try:
        if path.suffix == ".toml":
            return tomllib.loads(text)
        return yaml.safe_load(text)  # YAML is a superset of JSON
    except (tomllib.TOMLDecodeError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: not valid {path.suffix.lstrip('.') or 'YAML'}: {exc}") from exc


def describe_validation_error(exc: ValidationError, path: str | Path) -> str:
    lines = [f"{path}: {exc.error_count()} problem(s):"]
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "(top level)"
        lines.append(f"  {where}: {err['msg']} (got {err.get('input')!r})")
    return "\n".join(lines)

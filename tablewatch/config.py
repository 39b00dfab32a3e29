"""Shared configuration base: strict pydantic models whose errors name the file, key path and value."""

from __future__ import annotations

import re
import reprlib
import tomllib
from pathlib import Path
from typing import TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

Model = TypeVar("Model", bound=BaseModel)

MAX_CONFIG_BYTES = 4 * 1024 * 1024  # far above any real configuration; stops a misnamed video or a device file
MAX_YAML_VALUES = 1_000_000  # values a YAML document may expand to through its aliases (an alias bomb has billions)
_URL_PASSWORD = re.compile(r"(?P<head>\b[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]*:)[^/\s@]*@")


class StrictModel(BaseModel):
    """Base of every config model: unknown keys are errors (a typo must not pass silently)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class ConfigError(ValueError):
    """A configuration file that can't be used; the message says where and why."""


def hide_password(text: str) -> str:
    """``text`` with the password of every ``scheme://user:password@host`` in it replaced by ``***``."""
    return _URL_PASSWORD.sub(r"\g<head>***@", text)


def load_config(path: str | Path, model: type[Model]) -> Model:
    """Load a TOML, YAML or JSON file into ``model``; raise ConfigError with one line per problem."""
    path = Path(path)
    data = parse_config_text(read_config_text(path), path)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(describe_validation_error(exc, path)) from exc


def read_config_text(path: Path) -> str:
    """The file as text; ConfigError when it can't be read, is far too big or is not UTF-8 (a binary file)."""
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the file ({exc.strerror or exc}).") from exc
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{path}: over {MAX_CONFIG_BYTES // 1024 // 1024} MB, not a configuration file.")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start}); "
                          "is it a binary file?") from None


def parse_config_text(text: str, path: Path) -> object:
    try:
        if path.suffix == ".toml":
            return tomllib.loads(text)
        return yaml.load(text, Loader=_BoundedLoader)  # a SafeLoader; YAML is a superset of JSON
    except (tomllib.TOMLDecodeError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: not valid {path.suffix.lstrip('.') or 'YAML'}: {exc}") from exc
    except _AliasBomb as exc:
        raise ConfigError(f"{path}: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{path}: nested too deeply to be a configuration file.") from None


def describe_validation_error(exc: ValidationError, path: str | Path) -> str:
    lines = [f"{path}: {exc.error_count()} problem(s):"]
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "(top level)"
        got = "(hidden)" if "password" in where else hide_password(_SHORT.repr(err.get("input")))
        lines.append(f"  {where}: {hide_password(err['msg'])} (got {got})")
    return "\n".join(lines)


def _short_repr() -> reprlib.Repr:
    """Values quoted in errors are cut short: a nested or huge input must not make a huge message."""
    short = reprlib.Repr()
    short.maxlevel, short.maxlist, short.maxdict, short.maxtuple = 3, 6, 6, 6
    short.maxstring = short.maxother = 120
    return short


_SHORT = _short_repr()


class _AliasBomb(ValueError):
    pass


class _BoundedLoader(yaml.SafeLoader):
    """SafeLoader that refuses a document whose aliases expand it past MAX_YAML_VALUES values."""

    def get_single_data(self) -> object:
        node = self.get_single_node()
        if node is None:
            return None
        _check_expanded_size(node)
        return self.construct_document(node)


def _check_expanded_size(root: yaml.Node) -> None:
    sizes: dict[int, int] = {}  # by node id: an alias is the same node object, counted once per use

    def size(node: yaml.Node) -> int:
        if id(node) in sizes:
            return sizes[id(node)]
        sizes[id(node)] = 1  # a recursive alias counts once
        total = 1
        if isinstance(node, yaml.SequenceNode):
            total += sum(size(child) for child in node.value)
        elif isinstance(node, yaml.MappingNode):
            total += sum(size(key) + size(value) for key, value in node.value)
        if total > MAX_YAML_VALUES:
            raise _AliasBomb(f"its YAML aliases expand to over {MAX_YAML_VALUES:,} values (an alias bomb?); "
                             "refused.")
        sizes[id(node)] = total
        return total

    size(root)

"""The tag registry: a supplier's CSV list in, chips out; unknown UIDs are suspect."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablewatch.devices.registry import ChipTag, RegistryError, TagRegistry

SUPPLIER_LIST = """\
uid,denomination,chip_set,colour,batch
E0 07 A1 B2 C3 D4 E5 F6,500,main-2024,purple,17
e007a1b2c3d4e5f7,"1,000",main-2024,yellow,17
F8:E5:D4:C3:B2:A1:07:E0,25,main-2024,green,18
"""


def test_a_supplier_list_loads_with_extra_columns_and_either_byte_order(tmp_path: Path) -> None:
    path = tmp_path / "chips.csv"
    path.write_text(SUPPLIER_LIST)
    registry = TagRegistry.from_csv(path)
    assert len(registry) == 3
    assert registry.lookup("E007A1B2C3D4E5F6") == ChipTag(uid="E007A1B2C3D4E5F6", denomination=500,
                                                          chip_set="main-2024")
    assert registry.lookup(0xE007A1B2C3D4E5F7).denomination == 1000  # type: ignore[union-attr]
    assert registry.lookup("E0 07 A1 B2 C3 D4 E5 F8").denomination == 25  # type: ignore[union-attr]  # turned round
    chips, unknown = registry.chips(["E007A1B2C3D4E5F6", "E007A1B2C3D4E5F7", "E0070000DEADBEEF"])
    assert chips.as_dict() == {500: 1, 1000: 1} and chips.value == 1500
    assert unknown == ("E0070000DEADBEEF",)


def test_round_trip_through_csv(tmp_path: Path) -> None:
    registry = TagRegistry.generate({100: 5, 500: 3}, chip_set="demo", seed=2)
    registry.to_csv(tmp_path / "out.csv")
    again = TagRegistry.from_csv(tmp_path / "out.csv")
    assert list(again) == list(registry) and len(again.uids_of(500)) == 3


def test_a_default_chip_set_fills_a_missing_column() -> None:
    registry = TagRegistry.from_csv_text("uid,denomination\nE007000000000001,100\n", chip_set="spare")
    assert registry.lookup("E007000000000001").chip_set == "spare"  # type: ignore[union-attr]


def test_every_problem_is_reported_with_its_line() -> None:
    text = ("uid,denomination,chip_set\n"
            "E007000000000001,100,a\n"
            "1007000000000002,100,a\n"
            "E007000000000003,-5,a\n"
            "E007000000000001,500,a\n"
            "E0070000000004,100,a\n")
    with pytest.raises(RegistryError) as err:
        TagRegistry.from_csv_text(text, source="chips.csv")
    message = str(err.value)
    assert message.startswith("chips.csv: 4 problem(s):")
    assert "line 3: An ISO 15693 UID starts with E0" in message
    assert "line 4: denomination must be a positive whole number, got '-5'" in message
    assert "line 5: UID E007000000000001 already listed on line 2" in message
    assert "line 6: A UID is 16 hex digits" in message


def test_missing_columns_and_missing_file_are_clear(tmp_path: Path) -> None:
    with pytest.raises(RegistryError, match="needs columns denomination, chip_set; it has uid, value"):
        TagRegistry.from_csv_text("uid,value\n")
    with pytest.raises(RegistryError, match="cannot read the file"):
        TagRegistry.from_csv(tmp_path / "nope.csv")

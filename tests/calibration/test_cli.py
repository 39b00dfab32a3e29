"""``tablewatch calibrate``: the profile and overlay it writes, and its errors for bad input."""

from __future__ import annotations

import tomllib
from pathlib import Path

import cv2
import numpy as np
import pytest
from click.testing import CliRunner, Result

from tablewatch.calibration import tomlio
from tablewatch.calibration.button import ButtonLook
from tablewatch.calibration.chips import CHIP_PAINTS, DEMO_CHIPS
from tablewatch.calibration.drawing import draw_top_down, table_to_top_down
from tablewatch.calibration.layout import LAYOUTS_DIR, TableLayout
from tablewatch.calibration.profile import TableProfile, load_profile, new_profile, save_profile
from tablewatch.calibration.synthetic import add_noise, cover
from tablewatch.cli import cli
from tablewatch.config import ConfigError
from tablewatch.sim.scenario import FELTS
from tests.calibration.conftest import POSES, charuco_views, draw_tray, rendered, table_grid
from tests.support.images import huge_png
from tests.support.still import overhead_still


def _run(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, ["calibrate", *map(str, args)])


@pytest.fixture(scope="module")
def frame_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("frames") / "table.png"
    cv2.imwrite(str(path), rendered("leaning"))
    return path


def test_calibrate_writes_a_profile_and_an_overlay(frame_path: Path, tmp_path: Path, oval10: TableLayout) -> None:
    out = tmp_path / "T03.toml"
    result = _run(frame_path, "--layout", "oval10", "--table", "T03", "-o", out)
    assert result.exit_code == 0, result.output
    assert "markers used: 0, 1, 2, 3, 4, 5" in result.output
    assert "fit error: mean" in result.output
    profile = load_profile(out)
    assert (profile.table, profile.layout, profile.source) == ("T03", "oval10", str(frame_path))
    default = _run(frame_path, "--layout", "oval10", "-o", tmp_path / "table-profile.toml")
    assert default.exit_code == 0 and load_profile(tmp_path / "table-profile.toml").table == "T01"  # run's default
    grid = table_grid(200)
    error = np.linalg.norm(profile.calibration.px_to_mm(POSES["leaning"].project(grid)) - grid, axis=1)
    assert error.mean() < 2.0
    overlay = cv2.imread(str(tmp_path / "T03-overlay.png"))
    assert overlay.shape == (720, 1280, 3)
    assert np.abs(overlay.astype(int) - rendered("leaning").astype(int)).sum(axis=2).astype(bool).mean() > 0.01


def test_a_video_with_markers_hidden_in_turn(tmp_path: Path, oval10: TableLayout) -> None:
    camera = POSES["overhead"]
    video = tmp_path / "table.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, (1280, 720))
    for hidden in (0, 1, 2, 3, 4, 5):  # a different marker under a hand in every frame
        corners = oval10.marker_corners()[hidden]
        writer.write(
            cover(rendered("overhead"), camera.project((corners - corners.mean(axis=0)) * 2 + corners.mean(axis=0)))
        )
    writer.release()
    result = _run(
        video, "--layout", "oval10", "-o", tmp_path / "t.toml", "--table", "T09", "--overlay", tmp_path / "o.png"
    )
    assert result.exit_code == 0, result.output
    assert "6 frame(s)" in result.output
    profile = load_profile(tmp_path / "t.toml")
    assert profile.table == "T09"
    assert profile.calibration.markers_used == [0, 1, 2, 3, 4, 5]  # each seen in five of the six frames
    assert profile.calibration.mean_error_mm < 2.0
    assert (tmp_path / "o.png").is_file()


def test_chip_colours_from_the_tray_in_the_calibration_image(tmp_path: Path, oval10: TableLayout) -> None:
    colours = [CHIP_PAINTS[s.colour] for s in DEMO_CHIPS]
    plan, plan_from_mm = draw_top_down(oval10, 1.0, outlines=False), table_to_top_down(oval10, 1.0)
    draw_tray(plan, plan_from_mm, oval10, colours)
    path = tmp_path / "tray.png"
    cv2.imwrite(str(path), add_noise(POSES["overhead"].render(plan, plan_from_mm)))
    result = _run(path, "--layout", "oval10", "-o", tmp_path / "p.toml", "--denominations", "25,100,500,1000,5000")
    assert result.exit_code == 0, result.output
    chips = load_profile(tmp_path / "p.toml").chips
    assert chips is not None
    assert [chips.classify(c) for c in colours] == [25, 100, 500, 1000, 5000]


def test_a_simulator_frame_gives_a_profile_with_its_tray_colours(tmp_path: Path) -> None:
    """A rendered frame of the simulator (its own lens, unknown to the command): markers, fit, and the chip
    colours learned from the tray in the picture name the simulator's chips."""
    from tablewatch.calibration.chips import painted_chip_colours

    frame = overhead_still(tmp_path / "sim.png", layout="oval10")
    result = _run(frame, "--layout", "oval10", "-o", tmp_path / "T05.toml", "--denominations", "1000,500,100,25")
    assert result.exit_code == 0, result.output
    assert "markers used: 0, 1, 2, 3, 4, 5" in result.output
    assert "chip colours: 1000, 500, 100, 25 (tray zone of the calibration image)" in result.output
    profile = load_profile(tmp_path / "T05.toml")
    assert profile.calibration.mean_error_mm < 2.0
    assert profile.chips is not None
    palette = painted_chip_colours()
    assert [palette.classify(c.bgr, max_distance=99) for c in profile.chips.chips] == [1000, 500, 100, 25]
    # the felt as the frame shows it, recorded with the chips (the camera's colour then): the simulator's green
    painted_felt = painted_chip_colours(felt_bgr=FELTS["green"]).felt
    assert profile.chips.felt == pytest.approx(painted_felt, abs=8)
    assert (tmp_path / "T05-overlay.png").is_file()


def test_simulator_chip_set_and_a_lens_file(frame_path: Path, tmp_path: Path) -> None:
    first = tmp_path / "first.toml"
    assert _run(frame_path, "--layout", "oval10", "-o", first, "--sim-chips").exit_code == 0
    lens = tmp_path / "lens.toml"
    lens.write_text(
        "[camera]\nimage_size = [1280, 720]\ncamera_matrix = [[1080.0, 0.0, 640.0], [0.0, 1080.0, 360.0], [0, 0, 1]]\n"
        "dist_coeffs = [0.0, 0.0, 0.0, 0.0, 0.0]\n",
        encoding="utf-8",
    )
    result = _run(frame_path, "--layout", "oval10", "-o", tmp_path / "second.toml", "--lens", lens)
    assert result.exit_code == 0, result.output
    assert load_profile(tmp_path / "second.toml").calibration.camera is not None
    assert load_profile(first).chips is not None


def test_lens_from_charuco_photos_then_reused(tmp_path: Path) -> None:
    boards = tmp_path / "boards"
    boards.mkdir()
    for i, view in enumerate(charuco_views()):
        cv2.imwrite(str(boards / f"board{i}.png"), view)
    frame = tmp_path / "wide.png"
    cv2.imwrite(str(frame), rendered("wide_lens"))
    result = _run(frame, "--layout", "oval10", "-o", tmp_path / "first.toml", "--charuco", boards)
    assert result.exit_code == 0, result.output
    assert "lens: ChArUco fit, 6 views" in result.output
    first = load_profile(tmp_path / "first.toml").calibration
    assert first.camera is not None and first.camera.source == "charuco"
    grid = table_grid(200)
    assert np.linalg.norm(first.px_to_mm(POSES["wide_lens"].project(grid)) - grid, axis=1).mean() < 2.0
    # The next calibration of this camera reuses the lens from the profile.
    result = _run(frame, "--layout", "oval10", "-o", tmp_path / "second.toml", "--lens", tmp_path / "first.toml")
    assert result.exit_code == 0, result.output
    assert f"lens: given (from {tmp_path / 'first.toml'})" in result.output
    second = load_profile(tmp_path / "second.toml").calibration
    assert second.camera is not None and second.camera.camera_matrix == first.camera.camera_matrix
    empty = tmp_path / "empty"
    empty.mkdir()
    result = _run(frame, "--layout", "oval10", "-o", tmp_path / "third.toml", "--charuco", empty)
    assert result.exit_code != 0 and "no readable ChArUco board photos" in result.output


def test_profile_round_trip(tmp_path: Path, oval10: TableLayout) -> None:
    from tablewatch.calibration.chips import painted_chip_colours
    from tablewatch.calibration.markers import calibrate_image

    calibration = calibrate_image(rendered("wide_lens"), oval10, camera=POSES["wide_lens"].camera_model())
    profile = new_profile(table="T01", layout="oval10", calibration=calibration, chips=painted_chip_colours())
    save_profile(profile, tmp_path / "p.toml")
    again = load_profile(tmp_path / "p.toml")
    assert again == profile
    assert again.load_layout() == oval10
    grid = table_grid(300)
    assert np.allclose(again.calibration.mm_to_px(grid), calibration.mm_to_px(grid))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.png", "--layout", "oval10"], "does not exist"),
        (["broken.png", "--layout", "oval10"], "not a readable image (empty, truncated or not PNG, JPEG"),
        (["broken.mp4", "--layout", "oval10"], "not a readable image or video"),
        (["blank.png", "--layout", "oval10"], "No ArUco markers (DICT_4X4_50) found in the image"),
        (["table.png", "--layout", "oval11"], "Unknown layout 'oval11': give a layout file or one of oval10"),
        (["table.png", "--layout", "bad-layout.toml"], "unknown zone name 'jackpot'"),
        (["table.png", "--layout", "oval10", "--denominations", "25,abc"], "--denominations must be whole numbers"),
        (["table.png", "--layout", "oval10", "--denominations", "25,100"], "does not show 2 columns of different"),
        (["table.png", "--layout", "oval6"], "The markers fit the layout badly"),
        (["huge.png", "--layout", "oval10"], "huge.png: 30000x30000 is 900 megapixels, over the limit of 100"),
        (["table.png", "--layout", "oval10", "--denominations", "5,25", "--tray-photo", "huge.png"],
         "900 megapixels, over the limit"),
    ],
)
def test_bad_input_gets_a_clear_error(args: list[str], message: str, tmp_path: Path, frame_path: Path) -> None:
    (tmp_path / "broken.png").write_bytes(b"not a png")
    (tmp_path / "huge.png").write_bytes(huge_png())
    (tmp_path / "broken.mp4").write_bytes(b"\x00" * 100)
    cv2.imwrite(str(tmp_path / "blank.png"), np.full((720, 1280, 3), 90, np.uint8))
    (tmp_path / "table.png").write_bytes(frame_path.read_bytes())
    layout_text = (LAYOUTS_DIR / "oval10.toml").read_text(encoding="utf-8")
    (tmp_path / "bad-layout.toml").write_text(
        layout_text.replace("[zones]\n", '[zones]\n"jackpot" = [[0.0, 0.0], [10.0, 0.0], [10.0, 10.0]]\n'),
        encoding="utf-8",
    )
    resolved = [str(tmp_path / a) if a.endswith((".png", ".mp4", ".toml")) else a for a in args]
    result = CliRunner().invoke(cli, ["calibrate", *resolved, "-o", str(tmp_path / "out.toml")])
    assert result.exit_code != 0
    assert message in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "out.toml").exists()


def test_a_broken_profile_names_the_problem(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    path.write_text('table = "T01"\nlayout = "oval10"\n[calibration]\nimage_size = [1280, 720]\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"calibration.homography: Field required"):
        load_profile(path)
    assert TableProfile.model_fields["layout"].description


def test_a_profile_without_the_buttons_look_loads_with_a_standard_white_puck(frame_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "T04.toml"
    assert _run(frame_path, "--layout", "oval10", "-o", out).exit_code == 0
    data = tomllib.loads(out.read_text(encoding="utf-8"))
    del data["button"]  # as written before the button's look was registered
    out.write_text(tomlio.dumps(data), encoding="utf-8")
    assert load_profile(out).button == ButtonLook(diameter_mm=76.0, bgr=(235, 235, 235))

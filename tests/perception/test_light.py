"""The light meter: the markers' white paper brings a dim room, light falling off across the table and a camera's
exposure back to a well-exposed camera's picture, a covered marker left out; perception in a dim room then sees what
it sees in full light. A lamp's pool of light over the middle of the table, and a person's shadow passing over it,
are read off the felt and taken off."""

from __future__ import annotations

import numpy as np
import pytest

from tablewatch.events import BoardCardDealt, CardBurned
from tablewatch.sim.conditions import CameraLook, Conditions
from tablewatch.sim.session import Simulation
from tablewatch.vision.perception import light
from tablewatch.vision.perception.felt_light import FeltLight
from tablewatch.vision.perception.light import FLICKERING, PAPER_WHITE, LightMeter, sampled
from tablewatch.vision.perception.plane import TablePlane
from tests.perception.conftest import FPS, Window, perception_for, run_window


def plane_of(demo: Simulation, frames: list[tuple[np.ndarray, float]]) -> tuple[TablePlane, np.ndarray]:
    perception = perception_for(demo)
    for frame, ts in frames:  # calibrated from the markers over the first frames
        perception.process(frame, ts)
    assert perception.plane is not None
    return perception.plane, perception.plane.rectify(frames[-1][0])


def felt_level(plane: TablePlane, flat: np.ndarray) -> float:
    return float(np.median(flat.mean(axis=2)[plane.felt > 0]))


def test_a_dim_room_and_light_falling_off_are_brought_back(demo: Simulation, window: Window) -> None:
    plane, flat = plane_of(demo, window(0.0, 1.0))
    clean = LightMeter(plane).correct(flat, 0.0)
    papers = [np.percentile(clean.mean(axis=2)[box], 90) for box in LightMeter(plane).boxes]
    assert papers == pytest.approx([PAPER_WHITE] * len(papers), abs=6)
    dim = LightMeter(plane).correct((flat * 0.4).astype(np.uint8), 0.0)
    assert felt_level(plane, dim) == pytest.approx(felt_level(plane, clean), abs=3)
    ramp = np.linspace(0.4, 1.0, flat.shape[0], dtype=np.float32)[:, None, None]  # the far side 60 % darker
    evened = LightMeter(plane).correct((flat * ramp).astype(np.uint8), 0.0)

    def far_to_near(picture: np.ndarray) -> float:
        felt = picture.astype(float)[plane.felt > 0]  # row by row: the far side's rows first
        return float(felt[:2000].mean() / felt[-2000:].mean())

    assert far_to_near(evened) == pytest.approx(far_to_near(clean), rel=0.05)  # the far side lit as before


def test_light_added_over_a_dimmed_picture_is_taken_off_whole(demo: Simulation, window: Window) -> None:
    """A dim club under a lamp: the picture at 0.6 of its light with a grey veil of 50 over it (what the markers'
    ink reads). The veil goes whole, not less the ink's own black: the felt, and the chips' colours on it, come
    back to the clean picture's."""
    plane, flat = plane_of(demo, window(0.0, 1.0))
    clean_meter, veiled_meter = LightMeter(plane), LightMeter(plane)
    clean = clean_meter.correct(flat, 0.0)
    picture = np.clip(flat * 0.6 + 50, 0, 255).astype(np.uint8)
    veiled = veiled_meter.correct(picture, 0.0)
    felt = plane.felt > 0
    assert np.abs(np.median(veiled[felt], axis=0) - np.median(clean[felt], axis=0)).max() <= 6
    # the felt's colour, read as the camera shows it, fades under the veil; read once it is taken off, it does not
    # (a lamp is not the camera's colour turned down: ``picture``'s "colour faded")
    assert clean_meter.reading.saturation is not None and veiled_meter.reading.saturation is not None
    shown = light.felt_saturation(sampled(picture, veiled_meter.felt_px))
    assert shown is not None and shown < 0.75 * clean_meter.reading.saturation
    assert veiled_meter.reading.saturation == pytest.approx(clean_meter.reading.saturation, rel=0.1)


def test_a_covered_marker_is_left_out_and_the_gain_follows_the_light_within_a_second(demo: Simulation,
                                                                                    window: Window) -> None:
    plane, flat = plane_of(demo, window(0.0, 1.0))
    meter = LightMeter(plane)
    meter.correct(flat, 0.0)
    steady = meter.gain
    covered = flat.copy()
    covered[meter.boxes[0]] = 30  # a dark sleeve over one marker
    meter.correct(covered, 0.1)
    assert meter.gain == pytest.approx(steady, rel=0.02)
    for k in range(10):  # the room dims to half: the gain doubles within a second
        meter.correct((flat * 0.5).astype(np.uint8), 0.2 + k * 0.1)
    assert meter.gain == pytest.approx(2 * steady, rel=0.05)


def test_a_light_sleeve_over_a_marker_is_left_out_though_it_reads_nearly_as_bright_as_paper(
        demo: Simulation, window: Window) -> None:
    """A pale grey sleeve over a marker in a dim room reads three quarters as bright as the others' paper and
    shows no ink: taken for a marker under a lamp's veil, it tilted the light across the table, and the picture
    beside it changed at once by more than an arm does (a hand hiding a stack read as a tap)."""
    plane, flat = plane_of(demo, window(0.0, 1.0))
    dim = (flat * 0.7).astype(np.uint8)
    meter = LightMeter(plane)
    meter.correct(dim, 0.0)
    steady, veil = meter.gain, meter.veil.copy()
    paper = np.median([np.percentile(dim.mean(axis=2)[box], 90) for box in meter.boxes])
    sleeved = dim.copy()
    sleeved[meter.boxes[0]] = round(0.8 * paper)  # pale and even: paper's brightness, no ink
    for k in range(10):
        meter.correct(sleeved, 0.1 + k * 0.1)
    assert meter.gain == pytest.approx(steady, rel=0.02)
    assert meter.veil == pytest.approx(veil, abs=1.0)


def test_perception_in_a_dim_room_sees_the_burn_and_the_flop(demo: Simulation, window: Window) -> None:
    dim = [((frame * 0.35).astype(np.uint8), ts) for frame, ts in window(16.0, 19.8)]
    events = run_window(demo, dim)
    burns = [e for e in events if isinstance(e, CardBurned)]
    board = sorted((e for e in events if isinstance(e, BoardCardDealt)), key=lambda e: e.slot)
    assert len(burns) == 1 and burns[0].ts == pytest.approx(17.7, abs=0.4)
    assert [(e.slot, e.face_up) for e in board] == [(0, True), (1, True), (2, True)]


def _lamp(flat: np.ndarray, strength: float) -> np.ndarray:
    """A pendant lamp's light added over the middle of the picture (``strength`` of white at its centre), clipped
    as a camera clips it."""
    h, w = flat.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    pool = np.exp(-0.5 * ((xx - 0.55 * w) ** 2 + (yy - 0.45 * h) ** 2) / (0.25 * w) ** 2)
    return np.clip(flat + 255.0 * strength * pool[..., None], 0, 255).astype(np.uint8)


def felt_cells(plane: TablePlane, picture: np.ndarray) -> np.ndarray:
    """The felt's mean grey in 40 px squares wholly on the felt, away from its edge."""
    grey, felt = picture.mean(axis=2), plane.felt > 0
    h, w = grey.shape
    return np.array([grey[y:y + 40, x:x + 40].mean() for y in range(0, h - 40, 40) for x in range(0, w - 40, 40)
                     if felt[y:y + 40, x:x + 40].all()])


def test_a_lamp_s_pool_of_light_is_taken_off_the_felt_and_white_stays_white(demo: Simulation,
                                                                           window: Window) -> None:
    plane, flat = plane_of(demo, window(0.0, 1.0))
    clean = FeltLight(plane).correct(LightMeter(plane).correct(flat, 0.0), 0.0)
    lit = _lamp(flat, 0.5)
    seen = LightMeter(plane).correct(lit, 0.0)
    assert np.ptp(felt_cells(plane, seen)) > 3 * np.ptp(felt_cells(plane, clean))  # the pool shows on the felt
    evened = FeltLight(plane).correct(seen, 0.0)
    assert np.ptp(felt_cells(plane, evened)) < 1.5 * np.ptp(felt_cells(plane, clean)) + 6
    # the felt brought well over a third of the way back: what the lamp adds by the rail too stays
    assert abs(felt_level(plane, evened) - felt_level(plane, clean)) < 0.6 * abs(felt_level(plane, seen)
                                                                                 - felt_level(plane, clean))
    paper = lit.min(axis=2) >= 250  # clipped white under the lamp: white paper, however bright the lamp
    assert paper.any() and evened[paper].min() >= PAPER_WHITE - 1


def test_even_light_is_left_as_it_is(demo: Simulation, window: Window) -> None:
    plane, flat = plane_of(demo, window(0.0, 1.0))
    light = FeltLight(plane)
    assert np.array_equal(light.correct(flat, 0.0), flat) and light.fields is None


def _shade(flat: np.ndarray, depth: float, *, centre: tuple[float, float], size: tuple[float, float]) -> np.ndarray:
    """A soft shadow ``depth`` deep at its ``centre`` (shares of the picture), ``size`` its half-widths."""
    h, w = flat.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    blob = np.exp(-(((xx - centre[0] * w) / (size[0] * w)) ** 2 + ((yy - centre[1] * h) / (size[1] * h)) ** 2))
    return np.clip(flat * (1.0 - depth * blob)[..., None], 0, 255).astype(np.uint8)


def test_a_shadow_passing_over_the_felt_is_taken_off_and_an_arm_s_is_not(demo: Simulation, window: Window) -> None:
    plane, flat = plane_of(demo, window(0.0, 1.0))
    clean = FeltLight(plane).correct(flat, 0.0)
    light = FeltLight(plane)
    light.correct(flat, 0.0)
    person = _shade(flat, 0.5, centre=(0.45, 0.55), size=(0.15, 0.3))
    evened = light.correct(person, 0.1)
    assert light.passing is not None
    off = np.abs(felt_cells(plane, person) - felt_cells(plane, clean)).max()
    assert off > 20 and np.abs(felt_cells(plane, evened) - felt_cells(plane, clean)).max() < off / 4
    arm = _shade(flat, 0.5, centre=(0.45, 0.55), size=(0.01, 0.1))  # a strip a few cells wide
    assert np.array_equal(light.correct(arm, 0.2), arm) and light.passing is None
    for ts in np.arange(0.3, 60.0, 0.5):  # a shade that stays is learnt in the end
        light.correct(person, float(ts))
    assert light.passing is None


def test_perception_under_a_passing_shadow_sees_the_burn_when_it_lands_and_the_flop(demo: Simulation,
                                                                                   window: Window) -> None:
    """A shadow half as light crossing the table over the whole window: the burn is seen as it lands (its card
    still in the shade read as its sibling in the shade's dark, with the doubt said)."""
    look = CameraLook(Conditions(shadow=0.5), (1280, 720), fps=FPS)
    seen = run_window(demo, [(look.apply(frame), ts) for frame, ts in window(16.0, 19.8)])
    burns = [e for e in seen if isinstance(e, CardBurned)]
    assert len(burns) == 1 and burns[0].ts == pytest.approx(17.7, abs=0.2)
    flop = [e for e in seen if isinstance(e, BoardCardDealt)]
    assert len(flop) == 3 and {card for e in flop for card in (e.card, *(r for _, r in e.doubts))} >= {"Qc", "7c", "2s"}


def test_perception_under_a_lamp_over_the_board_sees_the_burn_and_reads_the_flop(demo: Simulation,
                                                                                 window: Window) -> None:
    look = CameraLook(Conditions(hotspot=0.5), (1280, 720), fps=FPS)
    assert_burn_and_flop_read(demo, [(look.apply(frame), ts) for frame, ts in window(16.0, 19.8)])


def assert_burn_and_flop_read(demo: Simulation, frames: list[tuple[np.ndarray, float]]) -> None:
    """Perception on the demo's burn and flop (16.0-19.8 s) sees one burn and reads the flop's cards right."""
    events = run_window(demo, frames)
    burns = [e for e in events if isinstance(e, CardBurned)]
    board = sorted((e for e in events if isinstance(e, BoardCardDealt)), key=lambda e: e.slot)
    truth = sorted((e for e in demo.events if isinstance(e, BoardCardDealt) and 16.0 <= e.ts < 19.8),
                   key=lambda e: e.slot)
    assert len(burns) == 1
    assert [(e.slot, e.card) for e in board] == [(e.slot, e.card) for e in truth]


def _tungsten(picture: np.ndarray) -> np.ndarray:
    """Warm light on a camera balanced for daylight: blue down, red up, clipped as a camera clips it."""
    return np.clip(picture.astype(np.float32) * np.array([0.78, 0.95, 1.12], np.float32), 0, 255).astype(np.uint8)


def test_a_colour_cast_is_taken_off_by_the_markers_white_paper(demo: Simulation, window: Window) -> None:
    plane, flat = plane_of(demo, window(0.0, 1.0))
    clean = LightMeter(plane).correct(flat, 0.0)
    meter = LightMeter(plane)
    warm = meter.correct(_tungsten(flat), 0.0)
    felt = plane.felt > 0
    assert np.abs(np.median(warm[felt], axis=0) - np.median(clean[felt], axis=0)).max() <= 6
    assert meter.cast()[0] < 0.85 and meter.cast()[2] > 1.05
    assert np.array_equal(LightMeter(plane).cast(), np.ones(3))  # white light: nothing taken off


def test_perception_under_tungsten_light_sees_the_burn_and_reads_the_flop(demo: Simulation, window: Window) -> None:
    assert_burn_and_flop_read(demo, [(_tungsten(frame), ts) for frame, ts in window(16.0, 19.8)])


@pytest.mark.parametrize("swing", [0.09, 0.22])
def test_a_lamp_flickering_from_frame_to_frame_is_followed_frame_by_frame(demo: Simulation, window: Window,
                                                                          swing: float) -> None:
    """Lamps on the mains caught by a short exposure at 15 frames/s: each frame brighter, darker or as lit. Each is
    brought back as it comes (the light followed over a third of a second would leave the swing in the picture, and
    every card and chip edge on the table would move with it); at 22 % the brighter frames clip the markers' paper
    white, and the felt tells how much brighter they are. The swing from frame to frame is measured: past
    ``FLICKERING`` the picture is reported flickering (``test_picture``)."""
    frames = window(16.0, 19.8)
    gains = (1.0, 1.0 + swing, 1.0 - swing)
    flickering = [(np.clip(frame * np.float32(gains[i % 3]), 0, 255).astype(np.uint8), ts)
                  for i, (frame, ts) in enumerate(frames)]
    perception = perception_for(demo, hand_in_progress=True)
    seen = perception.run(flickering)
    assert (perception.light.reading.swing >= FLICKERING) == (swing > FLICKERING)
    flop = [e for e in seen if isinstance(e, BoardCardDealt)]
    read = {card for e in flop for card in (e.card, *(rival for _, rival in e.doubts))}  # a card and its doubts
    assert len(flop) == 3 and read >= {"2c", "7c", "Qc"}
    assert len([e for e in seen if isinstance(e, CardBurned)]) == 1


@pytest.mark.parametrize("whiter", [0, 15])
def test_paper_a_bright_frame_clips_white_stays_white_paper(demo: Simulation, window: Window, whiter: int) -> None:
    """A lamp's bright flicker clips a card's paper white at the camera. How much brighter the frame was is known
    (the felt tells), how much brighter the paper was is not: brought back by the frame's gain alone, the card
    would turn grey and stand out from the reference as something new. It stays as white as it was: paper as white
    as the markers', and paper ``whiter`` than them, whose clipped white compression has spread down to 243."""
    plane, flat = plane_of(demo, window(0.0, 1.0))
    meter = LightMeter(plane)
    meter.correct(flat, 0.0)
    card = (slice(100, 130), slice(300, 340))
    flat[card] = round(float(np.median(meter.reading.papers))) + whiter  # a card's paper on the felt
    steady = meter.correct(flat, 0.1)
    bright = np.clip(flat * np.float32(1.25), 0, 255).astype(np.uint8)
    assert (bright[card] == 255).all()
    if whiter:
        bright[card] -= np.random.default_rng(1).integers(0, 13, bright[card].shape, dtype=np.uint8)
    flashed = meter.correct(bright, 0.2)
    assert meter.flash > 1.15
    assert np.abs(flashed[card].astype(int) - steady[card]).max() <= 10
    felt = plane.felt > 0  # (the rest of the frame as steady)
    assert np.abs(np.median(flashed[felt], axis=0) - np.median(steady[felt], axis=0)).max() <= 6


def test_frames_flashed_white_leave_the_light_followed_as_it_was(demo: Simulation, window: Window) -> None:
    """Lamps flickering 22 % at 15 frames/s: every third frame clips the markers' paper white. Such a frame's paper
    says only that the light is at least that bright; taken into the light followed, it holds the paper there at
    255 where it was brighter, and the flash read off the felt against it comes out short, leaving the bright
    frames' felt and chips several grey levels too bright. Kept out, the felt comes back as in the steady frame."""
    plane, flat = plane_of(demo, window(0.0, 1.0))
    meter = LightMeter(plane)
    steady = meter.correct(flat, 0.0)
    felt = plane.felt > 0
    swing = (1.0, 1.22, 0.78)
    for i in range(1, 31):
        flashed = meter.correct(np.clip(flat * np.float32(swing[i % 3]), 0, 255).astype(np.uint8), i / 15)
        if i % 3 == 1 and i > light.SWING_FRAMES + 3:  # (the swing known, and one swing since)
            assert meter.reading.papers.max() >= light.CLIPPED
            assert np.abs(np.median(flashed[felt], axis=0) - np.median(steady[felt], axis=0)).max() <= 2


def test_the_felt_read_off_no_pixels_is_nothing() -> None:
    none = sampled(np.zeros((4, 5, 3), np.uint8), np.zeros(0, np.int64))
    assert light.felt_level(none) == 0.0 and light.felt_saturation(none) is None

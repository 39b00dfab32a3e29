"""Rasterise card decks from Debian's ``gnome-cards-data`` into the small PNG atlases shipped here.

Run at build time only (``python -m tablewatch.calibration.decks.build``; needs ``apt-get install
gnome-cards-data librsvg2-bin``). The simulator reads the PNGs and never touches the network.

Every aisleriot deck is one SVG laid out as a 13 × 5 grid: rows clubs, diamonds, hearts, spades
(ace to king), then jokers and the back. The atlas keeps that grid at ``FACE_W`` × ``FACE_H`` per cell.
"""

from __future__ import annotations

import gzip
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import cv2
import numpy as np

from tablewatch.calibration.decks import FACE_H, FACE_W

SOURCE = Path("/usr/share/aisleriot/cards")
HERE = Path(__file__).resolve().parent
DECKS = ("anglo_poker", "anglo_modern", "neoclassical", "plastic", "simplistic")


def build_deck(name: str, out_dir: Path = HERE) -> Path:
    if shutil.which("rsvg-convert") is None:
        raise SystemExit("rsvg-convert is missing: apt-get install librsvg2-bin")
    src = SOURCE / f"{name}.svgz"
    if not src.exists():
        raise SystemExit(f"{src} is missing: apt-get install gnome-cards-data")
    with tempfile.TemporaryDirectory() as tmp:
        svg, png = Path(tmp) / "deck.svg", Path(tmp) / "deck.png"
        svg.write_bytes(gzip.decompress(src.read_bytes()))
        subprocess.run(["rsvg-convert", "-w", str(FACE_W * 13 * 2), str(svg), "-o", str(png)], check=True)
        sheet = cv2.imread(str(png), cv2.IMREAD_UNCHANGED)
    if sheet is None:
        raise SystemExit(f"rsvg-convert wrote no readable PNG for {src}")
    cell_w, cell_h = sheet.shape[1] / 13, sheet.shape[0] / 5
    atlas = np.zeros((FACE_H * 5, FACE_W * 13, 4), np.uint8)
    for row in range(5):
        for col in range(13):
            rows = slice(round(row * cell_h), round((row + 1) * cell_h))
            cell = sheet[rows, round(col * cell_w) : round((col + 1) * cell_w)]
            atlas[row * FACE_H : (row + 1) * FACE_H, col * FACE_W : (col + 1) * FACE_W] = cv2.resize(
                cell, (FACE_W, FACE_H), interpolation=cv2.INTER_AREA
            )
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / f"{name}.png"
    cv2.imwrite(str(out), atlas, [cv2.IMWRITE_PNG_COMPRESSION, 9])
    return out


def main(argv: list[str]) -> None:
    for name in argv or DECKS:
        print(build_deck(name))


if __name__ == "__main__":
    main(sys.argv[1:])

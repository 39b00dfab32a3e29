"""What came to rest (or left), from a settle's pixels: a card (face up or down, its identity read), a sliver of
card on another, chips (by denomination), or the bare felt where a card or chips were."""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from tablewatch.vision.perception.appearance import CARD_H, CARD_W, CARDS_APART, Appearance, Identity
from tablewatch.vision.perception.gestures import Found, SettleKind, board_slot
from tablewatch.vision.perception.plane import TablePlane
from tablewatch.vision.perception.scene import Settle

CARD_AREA = CARD_W * CARD_H
SEVERAL_CARDS = 1.3  # a face-up region this many cards' area is several cards side by side (a single card shows
# 0.85-1.1; two tabled on the slant, one partly settled a frame later, 1.5)
MATCH_SCORE = 0.3  # a face template's correlation with a card's crop above which it names the card
FACE_SCORE = 0.45  # ... above which the card is face up, whatever its colours say
CHIP_READ_MM = 15.0  # a chip top is read inside this radius (its rim blends with what lies beside it)
CHIP_READ_PX_PER_MM = 1.0  # enough to see a chip's body ring apart from its inlay and spots
FACES_MIN = 0.3  # share of paper-light pixels from which a region may be face-up cards (a face template decides)
# While a shadow passes over the felt (``felt_light``), its edge, which the light correction lags behind, changes what
# lies there by the light alone: the same pixels this much darker or brighter (a burn card darkened by a deep shadow:
# 5 %), each pixel's colour unchanged (its shares of blue, green and red within ``CHROMA_ALONE``, summed; a soft edge
# darkens one pixel more than the next). A card settling or leaving changes them: a white face against a green felt
# by 0.3, a blue back by 0.45, a black chip by 0.3. Under even light that is a card: a pale card on a grey felt is the
# felt brighter and its colour unchanged.
LIGHT_STEP = 0.06
CHROMA_ALONE = 0.08
UNREAD_FACE_MIN = 0.6  # of a card's area: a face-up region no face matches is a card only from this size (white
# chip tops show the paper's colour; a card settles whole, and a piece of one is read on the card round it)

# The frame card identity and chip tops are read from, and its plane (the analysed frame's, or a higher
# resolution of the same moment's)
IdentitySource = Callable[[], tuple[np.ndarray, TablePlane]]


class SettleReader:
    """Classifies settles on the motion ``plane``, judging colours by ``look``, reading cards and chip tops from
    the frame an ``IdentitySource`` gives; a settle is stamped the time it held still, and ``lag_s`` more (it
    stopped moving somewhere between two analysed frames), before it was seen."""

    def __init__(self, look: Appearance, plane: TablePlane, *, lag_s: float) -> None:
        self.look, self.plane, self.lag_s = look, plane, lag_s
        self.overexposed = False  # the picture is overexposed (``PictureWatch``): faces are read as it pales them
        self.shade_passing = False  # a shadow is passing over the felt, or just has (``FeltLight.passing_at``)

    def classify(self, s: Settle, source: IdentitySource) -> list[Found]:
        """What came to rest (or left): one finding, or one per card when face-up cards settle together."""
        found = self._classify_one(s, source)
        found.shaded = self.shade_passing
        if found.what != SettleKind.CARD_IN or not found.face_up or s.area_mm2 < SEVERAL_CARDS * CARD_AREA:
            return [found]
        several = []
        for read, at in self._identify_several(s, source):
            zone = self.plane.layout.zone_at(*at)  # a board slot is each card's own; elsewhere the region's zone
            several.append(Found(t=found.t, zone=zone if board_slot(zone) is not None else found.zone,
                                 what=SettleKind.CARD_IN, face_up=True, card=read.card, rival=read.rival, centre=at,
                                 shaded=found.shaded))
        return several or [found]

    def _classify_one(self, s: Settle, source: IdentitySource) -> Found:
        t = s.t - s.held_s - self.lag_s
        after, before = s.after[s.mask], s.before[s.mask]
        if self.shade_passing and _light_alone(before, after):
            return Found(t=t, zone=s.zone, what=SettleKind.OTHER, centre=s.centre_mm)
        back, face = self.look.card_like(after)
        backs, faces = float(back.mean()), float(face.mean())
        cardish = float((back | face).mean())
        b_back, b_face = self.look.card_like(before)
        was_card = float((b_back | b_face).mean()) >= 0.5
        strip = 0.08 * CARD_AREA <= s.area_mm2 < 0.3 * CARD_AREA and faces < 0.3
        if strip and (cardish >= 0.5 or (s.zone == "burn" and self._burn_strip(after, back))):
            return Found(t=t, zone=s.zone, what=SettleKind.CARD_ON_CARD, centre=s.centre_mm)
        if cardish >= 0.5 and s.area_mm2 >= 0.3 * CARD_AREA:
            up, read = self._face_up(s, backs, faces, source)
            if read.card is not None or not up or s.area_mm2 >= UNREAD_FACE_MIN * CARD_AREA:
                return Found(t=t, zone=s.zone, what=SettleKind.CARD_IN, face_up=up, card=read.card, rival=read.rival,
                             centre=s.centre_mm)
        pictures = faces >= max(FACES_MIN, backs) and s.area_mm2 >= UNREAD_FACE_MIN * CARD_AREA
        if pictures and (matched := self._faces_match(s, source)) is not None:
            return Found(t=t, zone=s.zone, what=SettleKind.CARD_IN, face_up=True, card=matched.card,
                         rival=matched.rival, centre=s.centre_mm)
        if float(self.look.felt_like(after).mean()) >= 0.6:
            # only cards lie in a board slot: a card's worth of "chips" leaving one is a face misread as chips
            if was_card or (board_slot(s.zone) is not None and s.area_mm2 >= 0.3 * CARD_AREA):
                return Found(t=t, zone=s.zone, what=SettleKind.CARD_OUT, centre=s.centre_mm)
            return Found(t=t, zone=s.zone, what=SettleKind.CHIPS_OUT, chips=self.look.chip_counts(before),
                         centre=s.centre_mm)
        chips = self.look.chip_counts(after)
        what = SettleKind.CHIPS_IN if chips else SettleKind.OTHER
        return Found(t=t, zone=s.zone, what=what, chips=chips, centre=s.centre_mm)

    def _faces_match(self, s: Settle, source: IdentitySource) -> Identity | None:
        """Face-up cards whose pictures leave under half their pixels paper-light (court cards, a hand tabled
        with chips beside it) still match their face templates: the card read (no card when several cards lie
        there, each read later), or None when no face matches."""
        if s.area_mm2 >= SEVERAL_CARDS * CARD_AREA:
            return Identity(None, FACE_SCORE) if self._identify_several(s, source, min_score=FACE_SCORE) else None
        read = self._read(s, source)
        return read if read.score >= FACE_SCORE else None

    def _burn_strip(self, after: np.ndarray, back: np.ndarray) -> bool:
        """A burn dropped onto the burn pile shows only the narrow strips it sticks out by, many of whose pixels
        mix the card's edge with the felt. Only cards go there, so the back's colours need not fill them."""
        return float(back.mean()) >= 0.25 and float((back | self.look.card_edge(after)).mean()) >= 0.5

    def _face_up(self, s: Settle, back: float, face: float, source: IdentitySource) -> tuple[bool, Identity]:
        """Is the card that came to rest face up, and which is it.

        Colour decides when one side clearly dominates. A light patterned back blends into a tint the faces'
        ink can show too, so when neither does, the card's identity decides: a face matches its template
        (scores 0.55-0.85 on 720p frames), a back matches none (0.3 at most).
        """
        if back > face and face < 0.5 * back:
            return False, Identity(None, 0.0)
        read = self._read(s, source)
        up = face > back or read.score >= FACE_SCORE
        return up, read if up and read.score > MATCH_SCORE else Identity(None, read.score)

    def _read(self, s: Settle, source: IdentitySource) -> Identity:
        """The best-matching face for a crop of the original frame, upright along the card's long side."""
        ys, xs = np.nonzero(s.mask)
        pts = np.stack([xs + s.box[0], ys + s.box[1]], axis=1).astype(np.float32)
        (cx, cy), (w, h), angle = cv2.minAreaRect(pts)
        if w > h:
            angle += 90.0
        centre = self.plane.to_mm(np.array([cx, cy]))
        image, plane = source()
        reads = self._reads_at(image, plane, (float(centre[0]), float(centre[1])), angle)
        return max([Identity(None, 0.0), *(read for read, _ in reads)], key=lambda r: r.score)

    def _reads_at(self, image: np.ndarray, plane: TablePlane, at: tuple[float, float],
                  turn: float) -> list[tuple[Identity, tuple[float, float]]]:
        """(read, centre) at ``at`` turned ``turn``, and at the card itself round it (``_refine``).
        Crops at 1.5 times the camera's own resolution (2.4 px/mm at most), compared with the faces as the camera
        saw them."""
        native = 1.0 / max(plane.calibration.mm_per_px, 1e-3)
        scale = min(2.4, 1.5 * native)
        reads = []
        for where, a in ((at, turn), self._refine(image, plane, at, turn, scale)):
            crop = plane.crop(image, where, size_mm=(CARD_W, CARD_H), px_per_mm=scale, angle_deg=a)
            reads.append((self.look.identify(crop, native, overexposed=self.overexposed), where))
        return reads

    def _identify_several(self, s: Settle, source: IdentitySource, *,
                          min_score: float = MATCH_SCORE) -> list[tuple[Identity, tuple[float, float]]]:
        """Face-up cards laid side by side that settled as one region (a hand tabled, a flop spread
        touching): (read, centre) of each card read, best first.

        The cards lie in a row along the region's long side: a card-sized crop slides along that row and
        the best-read distinct cards, a card's width apart, are kept.
        """
        ys, xs = np.nonzero(s.mask)
        pts = np.stack([xs + s.box[0], ys + s.box[1]], axis=1).astype(np.float32)
        (cx, cy), (w, h), angle = cv2.minAreaRect(pts)
        row = np.radians(angle if w >= h else angle + 90.0)  # the row's direction; the cards upright across it
        length = max(w, h) / self.plane.scale
        count = max(2, round(s.area_mm2 / CARD_AREA))
        centre = self.plane.to_mm(np.array([cx, cy]))
        image, plane = source()
        turn = float(np.degrees(row))
        reads: list[tuple[Identity, tuple[float, float]]] = []
        for offset in np.linspace(-1.0, 1.0, 2 * count + 1) * max(0.0, length - CARD_W) / 2:
            at = (float(centre[0] + offset * np.cos(row)), float(centre[1] + offset * np.sin(row)))
            reads += [(read, where) for read, where in self._reads_at(image, plane, at, turn)
                      if read.card is not None and read.score > min_score]
        chosen: list[tuple[Identity, tuple[float, float]]] = []
        for read, at in sorted(reads, key=lambda r: -r[0].score):
            if all(read.card != c.card and np.hypot(at[0] - a[0], at[1] - a[1]) >= CARDS_APART for c, a in chosen):
                chosen.append((read, at))
        return chosen[:count]

    def _refine(self, image: np.ndarray, plane: TablePlane, centre: tuple[float, float], angle: float,
                scale: float) -> tuple[tuple[float, float], float]:
        """Centre the crop on the card itself: its face is the light rectangle in a slightly larger crop.

        The coarse plane places a card to a few millimetres; reading its face needs better.
        """
        margin = 14.0
        wide = plane.crop(image, centre, size_mm=(CARD_W + 2 * margin, CARD_H + 2 * margin), px_per_mm=scale,
                          angle_deg=angle)
        back, face = self.look.card_like(wide.reshape(-1, 3))
        mask = (back | face).reshape(wide.shape[:2]).astype(np.uint8)
        n, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
        if n < 2:
            return centre, angle
        k = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
        ys, xs = np.nonzero(labels == k)
        if len(xs) < 0.5 * CARD_AREA * scale**2:
            return centre, angle
        (cx, cy), (w, h), a = cv2.minAreaRect(np.stack([xs, ys], axis=1).astype(np.float32))
        if w > h:
            a -= 90.0
        a = (a + 45.0) % 90.0 - 45.0  # the turn left to make, whatever way minAreaRect reports it
        du, dv = (cx - wide.shape[1] / 2) / scale, (cy - wide.shape[0] / 2) / scale
        r = np.radians(angle)
        dx, dy = du * np.cos(r) - dv * np.sin(r), du * np.sin(r) + dv * np.cos(r)
        return (centre[0] + float(dx), centre[1] + float(dy)), angle + float(a)

    def chip_value_at(self, centre_mm: tuple[float, float], source: IdentitySource) -> int | None:
        """The denomination of the chip top the camera shows at ``centre_mm`` in the last analysed frame, read
        from the high-resolution frame when there is one: at the plane's 0.3 px/mm a black chip on grey felt
        is a grey blur, at 1 px/mm its body ring shows."""
        image, plane = source()
        scale = min(CHIP_READ_PX_PER_MM, 1.0 / max(plane.calibration.mm_per_px, 1e-3))
        side = 2 * CHIP_READ_MM
        crop = plane.crop(image, centre_mm, size_mm=(side, side), px_per_mm=scale)
        h, w = crop.shape[:2]
        yy, xx = np.ogrid[:h, :w]
        disc = (xx - (w - 1) / 2) ** 2 + (yy - (h - 1) / 2) ** 2 <= (CHIP_READ_MM * scale) ** 2
        return self.look.chip_value(crop[disc])


def _light_alone(before: np.ndarray, after: np.ndarray) -> bool:
    """The region's pixels (N x 3, BGR) changed by the light alone: brighter or darker, each one's colour kept."""
    b, a = before.astype(np.float32), after.astype(np.float32)
    b_sum, a_sum = np.maximum(b.sum(axis=1), 1.0), np.maximum(a.sum(axis=1), 1.0)
    if abs(float(np.median(a_sum / b_sum)) - 1.0) < LIGHT_STEP:
        return False
    shift = np.abs(a / a_sum[:, None] - b / b_sum[:, None]).sum(axis=1)
    return float(np.median(shift)) <= CHROMA_ALONE

"""Injected violations: what the simulator does wrong on purpose, and the record of it (the truth to score).

``Injections`` is mixed into ``HandDriver``: the steps that are not part of a betting action (an
out-of-turn word, chips pocketed or hidden, a counterfeit chip, a board card shown early, a fourth flop
card). Violations that change a betting step (string raise, undercall) or a dealing step (burns, an
exposed hole card, the pot to the wrong seat) live with those steps in ``hand.py``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any

from tablewatch.events import (
    BoardCardDealt,
    CardBurned,
    ChipsLeftTable,
    Declaration,
    StackObscured,
    UnknownChip,
)
from tablewatch.sim.chips import Pile, count_chips, make_change
from tablewatch.sim.plan import Act
from tablewatch.sim.replay import Replay, replay
from tablewatch.sim.scenario import ScenarioError
from tablewatch.sim.world import CHIP_HEIGHT, Card

STREETS = ("preflop", "flop", "turn", "river")
RULE_IDS = {
    "string_raise": "TDA-29",
    "missing_burn": "TDA-25",
    "double_burn": "TDA-25",
    "four_card_flop": "TDA-26A",
    "card_exposed_in_deal": "TDA-22A",
    "board_card_exposed_early": "TDA-57",
    "out_of_turn": "TDA-39",
    "chips_pocketed": "TDA-49",
    "chips_hidden": "TDA-16A",
    "unknown_chip": "TDA-16B",
    "undercall": "TDA-37",
    "wrong_pot_push": "TDA-5",
}


@dataclass
class InjectedViolation:
    """A violation the simulator put in on purpose, with the seconds it spans (the truth to score against)."""

    type: str
    rule_id: str
    hand_no: int
    ts: float
    end_ts: float
    seats: tuple[int, ...] = ()
    street: str | None = None
    detail: str = ""
    params: dict[str, Any] = field(default_factory=dict)

    def frames(self, fps: float) -> tuple[int, int]:
        return (int(self.ts * fps), int(self.end_ts * fps))

    def to_dict(self, fps: float = 30.0) -> dict[str, Any]:
        first, last = self.frames(fps)
        return {**asdict(self), "seats": list(self.seats), "frame_first": first, "frame_last": last, "fps": fps}



class Injections:
    """Violation steps of ``HandDriver`` (see the module docstring)."""

    def _four_card_flop(self, flop: list[Card]) -> None:
        code = self.deck.pop()
        start = self.t
        card = self.stage.new_card(code, t=self.t)
        self.t = self.stage.pitch(card, self._slot_spot(3), t=self.t, angle=self.rng.uniform(-3, 3), zone="board.3")
        self.t = self.stage.flip([card], t=self.t)
        self._emit(BoardCardDealt, self.t, card=code, slot=3, face_up=True)
        # The floor's fix (TDA-26A, simplified): the extra card goes to the burn pile.
        self.t = self.stage.slide("dealer", [card], [self.stage.table.burn_spot(len(self.burns))], t=self.t + 1.5,
                                  zone="burn", face_up=False)
        self.burns.append(card)
        self._emit(CardBurned, self.t, card=code)
        self._violation("four_card_flop", start, self.t, street="flop", detail=f"a fourth flop card {code}")

    def _expose_early(self, street: str) -> None:
        """The dealer turns the next street's first card up before the betting round is over (TDA-57)."""
        start = self.t
        self._burn(self.deck.pop())
        self._burned_early.add(street)
        code = self.deck.pop()
        slot = {"flop": 0, "turn": 3, "river": 4}[street]
        card = self.stage.new_card(code, t=self.t)
        self.t = self.stage.pitch(card, self._slot_spot(slot), t=self.t, angle=0.0, zone=f"board.{slot}", face_up=True)
        self._emit(BoardCardDealt, self.t, card=code, slot=slot, face_up=True)
        self.t = self.stage.slide("dealer", [card], [self.stage.table.deck_spot()], t=self.t + 1.0, zone="dealer",
                                  face_up=False)
        self.stage.vanish_card(card, t=self.t)
        self._violation("board_card_exposed_early", start, self.t, street=street,
                        detail=f"{code} shown on the {street} before the betting round ended")

    def _check_violations(self) -> None:
        acts = {a.index: a for a in self.plan.acts}
        for v in self.plan.violations:
            where = f"hand {self.plan.hand_no}, violation {v.type}"
            index = getattr(v, "action", None)
            if index is not None and index not in acts:
                raise ScenarioError(f"{where}: there is no action {index} (the hand has {len(acts)})")
            if v.type == "string_raise" and acts[v.action].verb != "cbr":
                raise ScenarioError(f"{where}: action {v.action} ({acts[v.action].spec.do!r}) is not a bet or raise")
            if v.type == "undercall" and acts[v.action].verb != "cc":
                raise ScenarioError(f"{where}: action {v.action} ({acts[v.action].spec.do!r}) is not a call")
            for seat in [getattr(v, "seat", None)]:
                if seat is not None and seat not in self.plan.seats:
                    raise ScenarioError(f"{where}: seat {seat} is not in the hand (seats {sorted(self.plan.seats)})")
        self._early = self._early_exposures()

    def _early_exposures(self) -> dict[int, str]:
        """Action index → street whose card is exposed just before that action (the last of the round before)."""
        wanted = [v.street for v in self.plan.violations if v.type == "board_card_exposed_early"]
        if not wanted:
            return {}
        streets = self._dry_run().streets
        out = {}
        for street in wanted:
            before = STREETS.index(street) - 1
            idx = [a.index for a, s in zip(self.plan.acts, streets, strict=True) if s == before and a.verb != "sm"]
            if not idx:
                raise ScenarioError(f"hand {self.plan.hand_no}: board_card_exposed_early on the {street}, "
                                    "but the hand never gets there")
            out[idx[-1]] = street
        return out

    def _before(self, act: Act) -> None:
        for v in self.plan.violations:
            if v.type == "out_of_turn" and v.action == act.index:
                actor = self._seat(act.player)
                if v.seat == actor:
                    raise ScenarioError(f"hand {self.plan.hand_no}: out_of_turn seat {v.seat} is the seat to act")
                start = self.t + 0.3
                self._emit(Declaration, start, seat=v.seat, word=v.word)
                if v.word == "check":
                    self.t = start
                    self._tap(v.seat)
                self._violation("out_of_turn", start, start + 0.8, seats=(v.seat,),
                                street=STREETS[self.state.street_index or 0],
                                detail=f"seat {v.seat} said {v.word!r} before seat {actor} acted")
                self.t = start + 0.8
        if act.index in self._early:
            self._expose_early(self._early[act.index])

    def _inject_at(self, after: int) -> None:
        for v in self.plan.violations:
            if getattr(v, "after_action", None) == after:
                {"chips_pocketed": self._pocket, "chips_hidden": self._hide}[v.type](v)
            if v.type == "unknown_chip" and after == -1:
                self._counterfeit(v)

    def _dry_run(self) -> Replay:
        if self._replay is None:
            self._replay = replay(self.plan)
        return self._replay

    def _pocket(self, v: Any) -> None:
        stack = self.piles[f"seat{v.seat}.stack"]
        counts = self._pocketable(v, stack)
        chips = stack.take(counts)
        start = self.t + 0.3
        player = self.stage.table.seats[v.seat].player
        off = Pile("off_table", lambda k: (player[0] + 40 * k, player[1]), self.rng)
        self.t = self.stage.carry_chips(f"seat{v.seat}", chips, stack, off, t=start, duration=1.0)
        self.stage.vanish(chips, t=self.t + 0.1)
        self._emit(ChipsLeftTable, self.t, seat=v.seat, zone=stack.zone, chips=count_chips(chips))
        self._violation("chips_pocketed", start, self.t, seats=(v.seat,), detail=f"seat {v.seat} pocketed {counts}",
                        params={"chips": counts, "asked": dict(v.chips)})

    def _pocketable(self, v: Any, stack: Pile) -> dict[int, int]:
        """The chips the player pockets: those asked for, or their worth in the chips the stack has (a stack
        need not hold the very chips named). They must be chips the rest of the recorded hand never needs."""
        asked = sum(d * n for d, n in v.chips.items())
        p = self.plan.player_of_seat(v.seat)
        # Chips on the table beyond pokerkit's count (a counterfeit) are spare too; blinds not yet moved are not.
        extra = stack.value() + self.piles[f"seat{v.seat}.bet"].value() - self.state.stacks[p] - self.state.bets[p]
        spare = self._dry_run().spare(p, v.after_action) + extra
        if asked > spare:
            raise ScenarioError(f"hand {self.plan.hand_no}: seat {v.seat} can't pocket {v.chips} (worth {asked}): "
                                f"the rest of the hand needs all but {max(spare, 0)} of its {stack.value()} in chips")
        have = stack.available()
        if all(have.get(d, 0) >= n for d, n in v.chips.items()):
            return dict(v.chips)
        counts = make_change(asked, have)
        if counts is None:
            raise ScenarioError(f"hand {self.plan.hand_no}: seat {v.seat} can't pocket {v.chips}: its chips "
                                f"{have} don't make {asked}")
        return counts

    def _hide(self, v: Any) -> None:
        stack = self.piles[f"seat{v.seat}.stack"]
        cols = [c for c in stack.columns if c]
        if len(cols) < 2:
            raise ScenarioError(f"hand {self.plan.hand_no}: seat {v.seat} has too few chips to hide any")
        big = max(cols, key=lambda c: c[0].value)
        small = min(cols, key=lambda c: c[0].value)
        start = self.t + 0.3
        end = start + v.duration
        actor = f"seat{v.seat}"
        if v.mode == "under_hand":
            top = big[-1].track.at(start) or big[-1].track.last
            self.stage.reach(actor, [(start, top.x, top.y), (end, top.x, top.y)], z=top.z + 15.0)
        else:  # the big chips go under a column of small ones: from above only small chips show
            base = small[0].track.at(start) or small[0].track.last
            for chip_list, z0 in ((big, 0.0), (small, len(big) * CHIP_HEIGHT)):
                for i, chip in enumerate(chip_list):
                    now = chip.track.at(start) or chip.track.last
                    chip.track.add(_at(now, start))
                    chip.track.add(_at(now, start + 0.5, x=base.x, y=base.y, z=z0 + i * CHIP_HEIGHT))
                    chip.track.add(_at(now, end, x=base.x, y=base.y, z=z0 + i * CHIP_HEIGHT))
                    chip.track.add(_at(now, end + 0.5))
            self.stage.reach(actor, [(start, base.x, base.y), (start + 0.5, base.x, base.y)])
        hidden = sum(c.value for c in big)
        # Reported as it goes, every second, with the time hidden so far (as the scene layer reports it).
        seen, step = start + 0.5, 1.0
        while seen < end - 1e-6:
            nxt = min(seen + step, end)
            self._emit(StackObscured, nxt, seat=v.seat, hidden_value=hidden, duration=round(nxt - start - 0.5, 3))
            seen = nxt
        self._violation("chips_hidden", start, end, seats=(v.seat,), detail=f"{hidden} in big chips hidden ({v.mode})",
                        params={"mode": v.mode})
        self.t = end + 0.6

    def _counterfeit(self, v: Any) -> None:
        stack = self.piles[f"seat{v.seat}.stack"]
        uid = v.uid or "E0FF" + "".join(self.rng.choice("0123456789ABCDEF") for _ in range(12))
        chip = self.stage.mint_pile(stack, {v.denomination: 1}, t=self.t, counterfeit_uid=uid)[0]
        self._emit(UnknownChip, self.t + self.timing.rfid_period, seat=v.seat, uid=chip.uid, zone=stack.zone)
        self._violation("unknown_chip", self.t, self.t + self.timing.rfid_period, seats=(v.seat,),
                        detail=f"counterfeit {v.denomination} chip {uid} in seat {v.seat}'s stack", params={"uid": uid})

def _at(pose: Any, t: float, **changes: Any) -> Any:

    return replace(pose, t=t, **changes)

"""One table's rules layer for a whole session: hands one after another, the procedure checks, findings.

The table's pipeline feeds every event of the table, in time order, to ``TableRules.feed`` and gets back the
``Violation`` findings (the engine's and the procedure checks'). Each hand that ends (``HandEnded``, or a
new ``HandStarted``) becomes a ``FinishedHand`` in ``finished`` — what the hand-history writers take — except a
misdealt one (``HandEnded.void``): its redeal is the hand.

While a camera's picture is reported past relying on (``CameraPicture``: too dark, washed out), or the camera is off
its calibration (``CameraMoved`` until ``CameraRecalibrated``) or offline, what it reports may be wrong or missing, and
so may any finding: each is kept and sent, but as an ADVISORY that names the camera's condition, at half its
confidence. The floor reviews it rather than acts on it. This lasts to the end of the hand in which the condition
held: an action the camera missed meanwhile shows later in the hand as the next player acting out of turn. So are the
findings that rest on a hand's betting once that is a guess (chips a camera alone saw: ``HandState.estimate``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence

from pokerkit import ChipsPushing

from tablewatch.events import (
    CameraMoved,
    CameraPicture,
    CameraRecalibrated,
    DeviceStatus,
    Event,
    HandEnded,
    HandStarted,
    Severity,
    Violation,
    camera_condition,
)
from tablewatch.hands import FinishedHand, Push
from tablewatch.rules.engine import HandEngine
from tablewatch.rules.game import GameConfig, phh_code
from tablewatch.rules.handstate import HandState, doubted
from tablewatch.rules.profiles import RuleProfile
from tablewatch.rules.snapshot import Check, HandSnapshot


def _settled_by_the_dealer(hand: HandState) -> bool:
    """A showdown pokerkit could not judge (a hand tabled unread) whose pot the dealer pushed otherwise than
    pokerkit's stand-in awards: the record is the dealer's pushes."""
    if not hand.unread_showdown:
        return False
    pushed: dict[int, int] = {}
    for seat, value, _ in hand.pushes:
        pushed[seat] = pushed.get(seat, 0) + value
    return pushed != hand.pokerkit_awards()


def _dealers_pushes(hand: HandState) -> tuple[Push, ...]:
    """The pots as the dealer pushed them, one per push in order (a showdown pokerkit could not judge)."""
    return tuple(Push(pot_index=i, amount=value, winners=(seat,), amounts=((seat, value),))
                 for i, (seat, value, _) in enumerate(hand.pushes))


def finished_hand(hand: HandState) -> FinishedHand:
    state, order = hand.state, hand.order
    final = {seat: state.stacks[i] for i, seat in enumerate(order)}
    by_dealer = _settled_by_the_dealer(hand)
    if by_dealer:  # pokerkit's awards: no judgment, and not what was pushed; the pushes below settle the pot
        for seat, value in hand.pokerkit_awards().items():
            final[seat] -= value
    in_play = state.total_pot_amount if state.status else 0
    missing = sum(hand.starting_stacks) - sum(final.values()) - in_play
    notes = list(hand.notes)
    pushed = sum(value for _, value, _ in hand.pushes)
    unsettled = missing + in_play  # a showdown pokerkit could not hold (unread cards) leaves the pot in play
    if unsettled > 0 and pushed == unsettled:  # pokerkit could not judge unread hands: the dealer's pushes stand
        for seat, value, _ in hand.pushes:
            final[seat] += value
        notes.append(f"{unsettled} awarded as the dealer pushed it (the hands were not read)")
        missing = 0
    elif missing > 0:
        notes.append(f"{missing} not awarded: the hands were not read and the dealer's pushes do not account for it")
    pushes = _dealers_pushes(hand) if by_dealer else tuple(
        Push(pot_index=op.pot_index, amount=op.total_amount,
             winners=tuple(order[i] for i, a in enumerate(op.amounts) if a),
             amounts=tuple((order[i], a) for i, a in enumerate(op.amounts) if a))
        for op in state.operations if isinstance(op, ChipsPushing)
    )
    return FinishedHand(
        table=hand.table, hand_no=hand.hand_no, config=hand.config, phh_variant=phh_code(hand.game),
        button=hand.start.button, order=order,
        starting_stacks=dict(zip(order, hand.starting_stacks, strict=True)),
        final_stacks=final,
        actions=tuple(hand.actions),
        hole_cards={seat: tuple(None if c.unknown_status else repr(c) for c in state.hole_cards[i])
                    for i, seat in enumerate(order)},
        board=tuple(None if cards[0].unknown_status else repr(cards[0]) for cards in state.board_cards if cards),
        pushes=pushes, violations=tuple(hand.violations), burns=tuple(hand.burns),
        event_times=tuple(hand.event_times), notes=tuple(notes), started_ts=hand.start.ts,
        ended_ts=hand.ended_ts, blinds=hand.start.blinds, unawarded=max(0, missing), dealer=hand.start.dealer,
        players=dict(hand.start.players),
        state=state, game=hand.game,
    )


def load_default_checks(profile: RuleProfile, config: GameConfig) -> list[Check]:
    """The procedure checks of ``tablewatch.rules.registry`` for the game, when that module is installed; none
    otherwise."""
    try:
        registry = importlib.import_module("tablewatch.rules.registry")
    except ImportError:
        return []
    return list(registry.default_checks(profile, game=config))


Route = tuple[Check, Callable[[Event], bool] | None]  # a check, and what to ask it of each event (None: nothing)


class CheckRoutes:
    """Which checks are shown an event of each kind: most checks watch a few kinds, and asking each of them about
    each event costs more than most events' checks. A check's class says once per kind (``route``, as the procedure
    checks' ``HandCheck`` does) whether every event of it concerns the check, none does, or the check is to be asked
    each time (``concerns``); a check that is not ``on`` is shown none; a check of the plain ``Check`` protocol is
    shown every event. The answers hold while the checks follow the hand the table shows: from a ``HandStarted``
    they were shown, to the next."""

    def __init__(self, checks: list[Check]) -> None:
        self.checks, self.count = checks, len(checks)
        # what decides the routes: each check's class, and whether its profile switches it on
        self.signature = tuple((type(check), bool(getattr(check, "on", True))) for check in checks)
        self.by_kind: dict[type[Event], list[Route]] = {}
        self.followed: int | None = None  # the hand of the last HandStarted the checks were shown

    def current(self, checks: list[Check]) -> bool:
        """These are the routes of ``checks`` (a list replaced or grown needs new ones)."""
        return checks is self.checks and len(checks) == self.count

    def of(self, kind: type[Event]) -> list[Route]:
        routes = self.by_kind.get(kind)
        if routes is None:
            plan = _plan(self.signature, kind)
            routes = self.by_kind[kind] = [(check, getattr(check, "concerns") if ask else None)  # noqa: B009
                                           for check, (shown, ask) in zip(self.checks, plan, strict=True) if shown]
        return routes


Plan = tuple[tuple[bool, bool], ...]  # per check: shown events of the kind at all, and then asked of each
_PLANS: dict[tuple[tuple[tuple[type[Check], bool], ...], type[Event]], Plan] = {}  # (tables of a game share them)


def _plan(signature: tuple[tuple[type[Check], bool], ...], kind: type[Event]) -> Plan:
    """The routes of a kind of event through checks of these classes (and on or not), worked out once."""
    plan = _PLANS.get((signature, kind))
    if plan is None:
        plan = _PLANS[signature, kind] = tuple(_class_route(cls, on, kind) for cls, on in signature)
    return plan


def _class_route(cls: type[Check], on: bool, kind: type[Event]) -> tuple[bool, bool]:
    route = getattr(cls, "route", None)
    decided = True if route is None else route(kind)
    return (on and decided is not False), decided is None


def _wants(check: Check, event: Event, hand_no: int) -> bool:
    wants = getattr(check, "wants", None)  # (a check of the plain ``Check`` protocol sees every event)
    return wants is None or bool(wants(event, hand_no))


class TableRules:
    """The rules layer of one table: feed events, get violations; finished hands pile up in ``finished``.

    ``strict=True`` re-raises an internal error (tests, replay); by default it becomes a SYSTEM finding and
    the table carries on with the next hand.
    """

    def __init__(self, config: GameConfig, *, table: str = "T01", profile: RuleProfile | None = None,
                 checks: Sequence[Check] | None = None, strict: bool = False) -> None:
        self.config, self.table = config, table
        self.profile = profile or RuleProfile()
        self.checks: list[Check] = list(checks) if checks is not None else load_default_checks(self.profile, config)
        self.routes = CheckRoutes(self.checks)
        self.strict = strict
        self.current: HandEngine | None = None
        self.last: HandEngine | None = None
        self.finished: list[FinishedHand] = []
        self.misdealt: list[Violation] = []  # the findings of a deal that ended void, for its redeal
        # (camera, condition) -> what is wrong, for each camera past relying on now; and each that was during the hand
        self.unreadable: dict[tuple[str, str], str] = {}
        self.unreadable_in_hand: dict[tuple[str, str], str] = {}

    def feed(self, event: Event) -> list[Violation]:
        if isinstance(event, CameraPicture | CameraMoved | CameraRecalibrated | DeviceStatus):
            self._camera(event)
        if self.current is not None and self.current.card_landing(event):
            return []
        found = self._checks_on(event) if self.checks else []
        if not isinstance(event, HandStarted):
            self._keep(found)  # before a HandEnded closes the hand
        try:
            applied = self._apply(event)
        except Exception as exc:
            applied = self._failed(exc, "betting engine", event)
        if isinstance(event, HandStarted):
            self._keep(found)  # the new hand's, once it exists
        return found + applied

    def _camera(self, event: CameraPicture | CameraMoved | CameraRecalibrated | DeviceStatus) -> None:
        """A camera's picture past relying on, or again relied on (``camera_condition``)."""
        change = camera_condition(event, self.profile.camera_shift_tolerance_mm)
        if change is None:
            return
        key, what = change
        if what is None:
            self.unreadable.pop(key, None)
        else:
            self.unreadable[key] = self.unreadable_in_hand[key] = what
        if self.current is not None:
            self.current.hand.doubt = self._doubt
        self._note_unreadable()

    @property
    def _doubt(self) -> str:
        """Why findings are doubted now: the cameras past relying on now or earlier in the hand; empty when none."""
        now = [self.unreadable[key] for key in sorted(self.unreadable)]
        earlier = [f"{what} earlier in the hand" for key, what in sorted(self.unreadable_in_hand.items())
                   if key not in self.unreadable]
        return "; ".join(now + earlier)

    def _note_unreadable(self) -> None:
        """The hand in play's history says while which cameras were past relying on."""
        if self.current is not None:
            seen = self.current.hand.notes
            for _, what in sorted(self.unreadable_in_hand.items()):
                note = f"{what} during the hand: its findings are advisories"
                if note not in seen:
                    seen.append(note)

    def _doubts(self, check: Check) -> str:
        """Why the check's findings are doubted now (``HandState.doubts``): a camera's picture past relying on;
        for a check whose findings rest on the betting (``HandCheck.on_the_betting``), that being a guess."""
        if self.current is None:
            return self._doubt
        return self.current.hand.doubts(on_betting=getattr(check, "on_the_betting", False))

    def _checks_on(self, event: Event) -> list[Violation]:
        """Every check's findings on ``event``, each shown the hand as it stood before it; a check that fails is a
        SYSTEM finding and the others go on. A check that says it has nothing to do with the event (``wants``)
        is not shown it, and the snapshot is built only for a check that is: most events concern few checks."""
        snapshot: HandSnapshot | None = None
        found: list[Violation] = []
        for check in self._shown(event):
            if snapshot is None:
                snapshot = self.snapshot()
            try:
                if seen := check.observe(snapshot, event):  # (few events make findings: doubts only for those)
                    why = self._doubts(check)
                    found += [doubted(v, why) for v in seen]
            except Exception as exc:
                found += self._failed(exc, f"check {check.rule_id}", event)
        return found

    def _shown(self, event: Event) -> list[Check]:
        """The checks ``event`` concerns: by its kind (``CheckRoutes``) while they follow the hand the table shows;
        a hand's start, or a hand they did not see start, asks each of them (``wants``)."""
        if not self.routes.current(self.checks):
            self.routes = CheckRoutes(self.checks)
        engine = self.current or self.last
        hand_no = engine.hand.hand_no if engine is not None else 0  # (the snapshot's, without building it)
        if isinstance(event, HandStarted) or hand_no != self.routes.followed:
            if isinstance(event, HandStarted):
                self.routes.followed = event.hand_no
            return [check for check in self.checks if _wants(check, event, hand_no)]
        return [check for check, ask in self.routes.of(type(event)) if ask is None or ask(event)]

    def _keep(self, found: list[Violation]) -> None:
        """The checks' findings on the hand in play go into its history (the engine's are there already)."""
        if self.current is not None:
            hand = self.current.hand
            hand.violations += [v for v in found if v.hand_no == hand.hand_no]

    def snapshot(self) -> HandSnapshot:
        engine = self.current or self.last
        if engine is None:
            return HandSnapshot(table=self.table, hand_no=0, phase="idle", button=0, seats=(), active=())
        return engine.snapshot()

    def pop_finished(self) -> list[FinishedHand]:
        out, self.finished = self.finished, []
        return out

    def _apply(self, event: Event) -> list[Violation]:
        if isinstance(event, HandStarted):
            found = self._close(event.ts, why="a new hand started before it ended") if self.current else []
            self.current = HandEngine(self.config, event, profile=self.profile)
            self.unreadable_in_hand = dict(self.unreadable)
            self.current.hand.doubt = self._doubt  # the engine's own findings are doubted as they are made
            self._note_unreadable()
            if self.misdealt:  # the redeal's history keeps what the misdealt deal's findings were
                self.current.hand.violations += self.misdealt
                self.current.hand.notes.append(f"redealt after a misdeal (hand {self.misdealt[0].hand_no})")
            self.misdealt = []
            return found
        if isinstance(event, Violation):  # a finding on the hand's set-up (the framer's TDA-14): the hand's own
            finding = doubted(event, self._doubt)
            if self.current is not None and finding.hand_no == self.current.hand.hand_no:
                self.current.hand.violations.append(finding)
            return [finding]
        if self.current is None:
            return []
        if isinstance(event, HandEnded) and event.void:  # misdealt and redealt: no hand to record
            self.misdealt = list(self.current.hand.violations)
            self.last, self.current = self.current, None
            return []
        if isinstance(event, HandEnded):
            return self._close(event.ts)
        return self.current.feed(event)

    def _close(self, ts: float, *, why: str = "") -> list[Violation]:
        engine = self.current
        assert engine is not None
        before = len(engine.hand.violations)
        if why:
            engine.hand.notes.append(why)
        engine.finish(ts)
        self.finished.append(finished_hand(engine.hand))
        self.last, self.current = engine, None
        return engine.hand.violations[before:]

    def _failed(self, exc: Exception, what: str, event: Event) -> list[Violation]:
        """An internal error as a SYSTEM finding (``strict``: raised again)."""
        if self.strict:
            raise exc
        return [Violation(ts=event.ts, table=self.table, source="rules", rule_id="SYSTEM",
                          title=f"Rules layer error in the {what}", severity=Severity.SYSTEM,
                          observed=f"{event.kind}: {type(exc).__name__}: {exc}",
                          ruling="the event was skipped; check the hand by hand",
                          hand_no=self.current.hand.hand_no if self.current else None)]

"""Scoring a simulated session against the simulator's ground truth.

- Hands captured exactly: the hand history the rules layer wrote has the same actions (with amounts),
  board and final stacks as the simulator's ground-truth PHH.
- Violations: each injected violation is found when an alert of an accepted rule id, in the same hand,
  is raised no earlier than its start (an advisory, for the kinds the rules answer with one); a further
  alert of an accepted rule on the same incident is counted apart (corroborating); every other
  VIOLATION-severity alert is a false positive of its rule.
- Latency: from the end of the violating motion (for a burn error: the board card that shows it) to the
  alert, on the session clock, plus the wall-clock time the pipeline spent on the step that raised it
  (the run itself goes faster than real time).
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from typing import Any

from pokerkit import HandHistory

from tablewatch.alerts import payloads as pl
from tablewatch.alerts.incidents import IncidentBook, rule_family
from tablewatch.bench.session import InjectedTruth, SessionResult, TimedAlert
from tablewatch.events import Severity

# Which alert rule ids count as finding each injected violation type. A missing flop burn is TDA-26B in
# the catalogue (flop without a burn), a missing turn or river burn is TDA-25.
ACCEPTED_RULES: dict[str, tuple[str, ...]] = {
    "string_raise": ("TDA-29", "TDA-42"),
    "missing_burn": ("TDA-25", "TDA-26B"),
    "double_burn": ("TDA-25",),
    "four_card_flop": ("TDA-26A",),
    "card_exposed_in_deal": ("TDA-22A", "TDA-22B"),
    "board_card_exposed_early": ("TDA-57",),
    "out_of_turn": ("TDA-39",),
    "chips_pocketed": ("TDA-49",),
    "chips_hidden": ("TDA-16A",),
    "unknown_chip": ("TDA-16B",),
    "undercall": ("TDA-37", "TDA-28"),
    "wrong_pot_push": ("TDA-5", "TDA-6A"),
}
# Injections the rules answer with an advisory, not a violation: a stack hidden for under two minutes with
# nobody facing an all-in is logged for the dealer to have it rearranged (TDA-16A, the rule profile's levels).
FOUND_BY_ADVISORY = frozenset({"chips_hidden"})


@dataclass
class RuleScore:
    injected: int = 0
    found: int = 0
    false_alerts: int = 0
    latencies_ms: list[float] = field(default_factory=list)  # of the alerts that found one

    @property
    def recall(self) -> float | None:
        return self.found / self.injected if self.injected else None

    @property
    def precision(self) -> float | None:
        alerts = self.found + self.false_alerts
        return self.found / alerts if alerts else None


@dataclass
class SessionScore:
    camera: str
    hands: int
    hands_exact: int
    actions: int
    actions_right: int
    per_type: dict[str, RuleScore]
    false_by_rule: dict[str, int]
    advisories: int
    corroborating: int  # further alerts of an accepted rule on an injected incident (not counted false)
    latencies_ms: list[float]
    missed: list[str]
    session_s: float
    wall_s: float
    frames: int
    skipped_hands: list[str] = field(default_factory=list)
    inexact: list[str] = field(default_factory=list)
    routine_by_rule: dict[str, int] = field(default_factory=dict)  # SYSTEM and ADVISORY alerts on no injection
    rings: int = 0  # the console's notifications: incidents opened and escalated (tablewatch.alerts.incidents)
    routine_rings: int = 0  # of them, those a SYSTEM or ADVISORY alert on no injected incident rang

    @property
    def realtime_factor(self) -> float:
        return self.session_s / self.wall_s if self.wall_s else 0.0

    def latency(self, q: float) -> float | None:
        if not self.latencies_ms:
            return None
        ordered = sorted(self.latencies_ms)
        return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["per_type"] = {k: {**asdict(v), "recall": v.recall, "precision": v.precision}
                            for k, v in self.per_type.items()}
        data.update(realtime_factor=self.realtime_factor,
                    latency_median_ms=self.latency(0.5),
                    latency_p95_ms=self.latency(0.95),
                    latency_mean_ms=statistics.fmean(self.latencies_ms) if self.latencies_ms else None)
        return data


def score_session(result: SessionResult, *, skipped: list[str] | None = None) -> SessionScore:
    exact, actions, right, inexact = score_hands(result)
    per_type, false_by_rule, latencies, missed, corroborating = score_violations(result.injected, result.alerts)
    advisories = sum(1 for a in result.alerts if a.violation.severity == Severity.ADVISORY)
    rings, routine_rings = notifications(result.injected, result.alerts)
    return SessionScore(camera="truth", hands=len(result.sims), hands_exact=exact, actions=actions,
                        actions_right=right, per_type=per_type, false_by_rule=false_by_rule,
                        advisories=advisories, corroborating=corroborating, latencies_ms=latencies,
                        missed=missed, session_s=result.session_s, wall_s=result.wall_s, frames=0,
                        skipped_hands=list(skipped or []), inexact=inexact,
                        routine_by_rule=routine_alerts(result.injected, result.alerts),
                        rings=rings, routine_rings=routine_rings)


# Violations whose TDA ruling changes the amount of the violating action itself (a string raise stands
# at its first motion; an undercall is a call): the simulator's PHH has the amount the player meant.
RULING_CHANGES_AMOUNT = {"string_raise", "undercall"}


def score_hands(result: SessionResult) -> tuple[int, int, int, list[str]]:
    """(hands captured exactly, actions compared, actions equal, why each other hand is not exact)
    against the simulator's PHH, for a session of one-hand simulations (as the demo and the bench play).

    In a hand whose injected violation is ruled to another amount, that one action may differ in its
    amount only; everything else, and the final stacks, must be equal.
    """
    captured = {hand.hand_no: hand for hand in result.hands}
    ruled = {t.hand_no for t in result.injected if t.type in RULING_CHANGES_AMOUNT}
    exact = actions = right = 0
    inexact: list[str] = []
    for hand_no, sim in enumerate(result.sims, start=1):
        truth = sim.hands[0]
        hand = captured.get(hand_no)
        mine = player_actions(hand_history_of(hand)) if hand is not None else []
        theirs = player_actions(truth)
        actions += len(theirs)
        matches = [a == b for a, b in zip(mine, theirs, strict=False)]
        right += sum(matches)
        differ = [i for i, same in enumerate(matches) if not same]
        allowed = hand_no in ruled and len(differ) == 1 and same_but_amount(mine[differ[0]], theirs[differ[0]])
        same_actions = len(mine) == len(theirs) and (not differ or allowed)
        if hand is not None and same_actions and _final_stacks(hand) == phh_final_stacks(truth):
            exact += 1
        else:
            inexact.append(_why_not_exact(hand_no, hand, mine, theirs, truth))
    return exact, actions, right, inexact


def _why_not_exact(hand_no: int, hand: Any, mine: list[str], theirs: list[str], truth: HandHistory) -> str:
    if hand is None:
        return f"hand {hand_no}: not captured"
    for i, (a, b) in enumerate(zip(mine, theirs, strict=False)):
        if a != b:
            return f"hand {hand_no}: action {i} is {a!r}, truth {b!r}"
    if len(mine) != len(theirs):
        return f"hand {hand_no}: {len(mine)} actions, truth {len(theirs)}"
    return f"hand {hand_no}: final stacks {_final_stacks(hand)}, truth {phh_final_stacks(truth)}"


def same_but_amount(mine: str, theirs: str) -> bool:
    return mine.split()[:2] == theirs.split()[:2]


def hand_history_of(hand: Any) -> HandHistory:
    from tablewatch.history.phh import to_hand_history

    return to_hand_history(hand)


def player_actions(hh: HandHistory, *, cards: bool = True) -> list[str]:
    """The betting and the board, comments dropped; then, for a contested showdown, each hand shown.

    Left out: the hole-card deals (a camera can't see face-down cards) and a winner's voluntary show when
    nobody contests the pot (not part of the hand's result). PHH writers repeat the show lines of an
    all-in run-out on every street; one per player counts. Without ``cards`` (a table no camera watches) the
    board is each street's deal without its cards, and no hand shown counts.
    """
    actions = [raw.split("#")[0].strip() for raw in hh.actions]
    betting = [a for a in actions if not a.startswith("d dh") and not _is_show(a)]
    if not cards:
        return ["d db" if a.startswith("d db") else a for a in betting]
    folded = {a.split()[0] for a in betting if a.endswith(" f")}
    players = {f"p{i + 1}" for i in range(len(hh.starting_stacks))}
    shows: dict[str, str] = {}
    for a in actions:
        if _is_show(a) and "?" not in a:
            shows.setdefault(a.split()[0], _cards_in_order(a))
    contested = len(players - folded) >= 2
    return betting + ([shows[p] for p in sorted(shows) if p not in folded] if contested else [])


def _is_show(action: str) -> bool:
    """A PHH show-or-muck line (``p2 sm AsKd``)."""
    return " sm " in f" {action} "


def _cards_in_order(show: str) -> str:
    """A show line with its cards sorted: the order a hand is tabled in says nothing (a camera reads the
    cards as they lie, the PHH lists them as dealt)."""
    parts = show.split()
    if len(parts) < 3:
        return show
    player, verb, cards = parts[:3]
    return f"{player} {verb} {''.join(sorted(cards[i:i + 2] for i in range(0, len(cards), 2)))}"


def _final_stacks(hand: Any) -> list[int]:
    return [int(hand.final_stacks[seat]) for seat in hand.order]


def phh_final_stacks(hh: HandHistory) -> list[int]:
    """The stacks after pokerkit replays the history; for a showdown of unread cards, which pokerkit can't judge
    (a table no camera watches, a hand tabled unread), the finishing stacks the history was written with (the
    dealer's pushes)."""
    unread = any(_is_show(a) and "?" in a for a in hh.actions)
    if unread and hh.finishing_stacks is not None:
        return [int(s) for s in hh.finishing_stacks]
    try:
        *_, state = hh
    except (KeyError, ValueError):
        if hh.finishing_stacks is None:
            raise
        return [int(s) for s in hh.finishing_stacks]
    return [int(s) for s in state.stacks]


def score_violations(injected: list[InjectedTruth], alerts: list[TimedAlert]) -> tuple[
        dict[str, RuleScore], dict[str, int], list[float], list[str], int]:
    per_type: dict[str, RuleScore] = defaultdict(RuleScore)
    false_by_rule: dict[str, int] = defaultdict(int)
    used: set[int] = set()
    latencies: list[float] = []
    missed: list[str] = []
    violations = [(i, a) for i, a in enumerate(alerts) if a.violation.severity == Severity.VIOLATION]
    advisories = [(i, a) for i, a in enumerate(alerts) if a.violation.severity == Severity.ADVISORY]
    for truth in injected:
        per_type[truth.type].injected += 1
        match = _match(truth, violations + advisories if truth.type in FOUND_BY_ADVISORY else violations, used)
        if match is None:
            missed.append(f"hand {truth.hand_no}: {truth.type} ({truth.rule_id}) at {truth.ts:.1f}s")
            continue
        index, alert = match
        used.add(index)
        per_type[truth.type].found += 1
        latency = max(0.0, alert.session_t - truth.observable_ts) * 1000 + alert.processing_s * 1000
        per_type[truth.type].latencies_ms.append(latency)
        latencies.append(latency)
    incidents = injected_incidents(injected)
    corroborating = 0
    for index, alert in violations:
        if index in used:
            continue
        family = rule_family(alert.violation.rule_id)
        if (alert.violation.hand_no, family) in incidents:
            corroborating += 1  # a second alert on an injected incident (a wrong push is also an untabled hand)
            continue
        false_by_rule[family] += 1
        for kind, accepted in ACCEPTED_RULES.items():
            if family in accepted and kind in per_type:
                per_type[kind].false_alerts += 1
                break
    return dict(per_type), dict(false_by_rule), latencies, missed, corroborating


def injected_incidents(injected: list[InjectedTruth]) -> set[tuple[int, str]]:
    """(hand, rule family) of every injected incident, by each rule that may answer it."""
    return {(t.hand_no, rule) for t in injected for rule in ACCEPTED_RULES.get(t.type, (t.rule_id,))}


def routine_alerts(injected: list[InjectedTruth], alerts: list[TimedAlert]) -> dict[str, int]:
    """SYSTEM and ADVISORY alerts that answer no injected incident, by rule: what a surveillance room would read
    as noise on hands played by the book."""
    incidents = injected_incidents(injected)
    routine: dict[str, int] = defaultdict(int)
    for alert in alerts:
        v = alert.violation
        if v.severity in (Severity.SYSTEM, Severity.ADVISORY) and (v.hand_no, rule_family(v.rule_id)) not in incidents:
            routine[v.rule_id] += 1
    return dict(sorted(routine.items()))


def notifications(injected: list[InjectedTruth], alerts: list[TimedAlert]) -> tuple[int, int]:
    """What a floor console rings for when the alerts go out: each incident they form once, and each escalation;
    and how many of those a routine alert rang (as ``routine_alerts`` counts them)."""
    ctx = pl.Context(site="bench", table="bench", session="bench", epoch=0.0)
    book, incidents = IncidentBook(ctx), injected_incidents(injected)
    rings = routine = 0
    for alert in sorted(alerts, key=lambda a: a.violation.ts):
        v = alert.violation
        if book.add(pl.alert_payload(ctx, v))["notify"]:
            rings += 1
            routine += v.severity != Severity.VIOLATION and (v.hand_no, rule_family(v.rule_id)) not in incidents
    return rings, routine


def _match(truth: InjectedTruth, alerts: list[tuple[int, TimedAlert]], used: set[int]) -> tuple[int, TimedAlert] | None:
    accepted = ACCEPTED_RULES.get(truth.type, (truth.rule_id,))
    for index, alert in alerts:
        v = alert.violation
        if index in used or rule_family(v.rule_id) not in accepted:
            continue
        if v.hand_no == truth.hand_no and alert.session_t >= truth.ts - 0.5:
            return index, alert
    return None

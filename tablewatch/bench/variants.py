"""Every variant pokerkit plays, through the rules layer: hands pokerkit plays itself (``pokerkit_hands``) replayed
from physical events and compared with pokerkit's result, and the time each takes beside pokerkit's own replay.

    python -m tablewatch.bench.variants --hands 300

The hold'em and Omaha figures on real hands are ``tablewatch replay`` and ``tablewatch bench-rules`` on the shared
hand histories; these hands cover the games no shared history does.
"""

from __future__ import annotations

import time
from collections import Counter

import click
from rich.console import Console
from rich.table import Table

from tablewatch.bench.pokerkit_hands import GAMES, pokerkit_hands
from tablewatch.phhfile import parse_section, split_sections
from tablewatch.rules.replay import NormalHand, act_out, feed_seconds, normalize, oracle, replay_hand


@click.command()
@click.option("--hands", "count", default=300, show_default=True, type=click.IntRange(1, 100_000),
              help="Hands of each variant.")
@click.option("--seed", default=1, show_default=True, help="Seed of the hands pokerkit plays.")
def main(count: int, seed: int) -> None:
    """Per variant: hands replayed exactly, findings by rule, and hands per second (the rules layer with every check
    the variant runs, fed the hands' events, acted out beforehand) beside pokerkit's own replay of the same hands."""
    table = Table(title=f"{count} hands of each variant, played by pokerkit (seed {seed})")
    for column in ("variant", "exact", "findings", "tablewatch hands/s", "pokerkit hands/s"):
        table.add_column(column)
    for code in GAMES:
        hands = [normalize(parse_section(s, f"{code}.phhs"), s.name)
                 for s in split_sections(pokerkit_hands(code, count, seed=seed))]
        exact, findings = _replay(hands)
        started = time.perf_counter()
        truths = [oracle(hand) for hand in hands]
        theirs = time.perf_counter() - started
        ours, _ = feed_seconds(hands, act_out(hands, truths), checks=True)
        table.add_row(code, f"{exact}/{len(hands)}", ", ".join(f"{r} {n}" for r, n in sorted(findings.items())) or "-",
                      f"{len(hands) / ours:.0f}", f"{len(hands) / theirs:.0f}")
    Console().print(table)


def _replay(hands: list[NormalHand]) -> tuple[int, Counter[str]]:
    """Hands reconstructed exactly (their PHH written back replayed by pokerkit too), and the findings by rule."""
    results = [replay_hand(hand, hand_no=k + 1) for k, hand in enumerate(hands)]
    return sum(r.ok for r in results), Counter(v.rule_id for r in results for v in r.violations)


if __name__ == "__main__":
    main()

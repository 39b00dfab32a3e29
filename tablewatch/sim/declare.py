"""When a careful player says what he does: the simulator's own small reading of silent chips.

A player who wants his chips to count as meant declares whenever the chips alone might read otherwise
under the TDA chip-reading rules (a single chip facing a bet is a call, TDA-31 and TDA-33; several chips
fail the smallest-chip test, TDA-32). This is deliberately simpler than the rules layer's chip reader,
which it must not share: where the reading is not plainly the one meant, the player declares.
"""

from __future__ import annotations

from collections.abc import Mapping


def chips_read_as_meant(*, raising: bool, prior: int, chips: Mapping[int, int], facing: int, behind: int) -> bool:
    """Whether ``chips`` (denomination → count), pushed silently in one motion, read as the action meant.

    ``raising``: a bet or raise to the chips' total (a full one, or all in: pokerkit allows no other);
    else a call of exactly the amount owed. ``prior``: the player's chips already in front this round,
    left there. ``facing``: the highest bet of the round (0: nobody has bet). ``behind``: the player's
    chips left in his stack after these.
    """
    new = sorted(d for d, n in chips.items() for _ in range(n))
    if not raising:
        return behind > 0  # the exact call reads as a call; a player's last chips might read as all in
    if facing == 0:
        return True  # the round's first bet: the chips bet their value (TDA-31)
    if len(new) < 2:
        return False  # one chip facing a bet is a call, even the last one (TDA-31, TDA-33)
    # The smallest-chip test (TDA-32): without the smallest chip the rest must still call; then it is the full
    # raise as placed, or all in with the last chips.
    return prior + sum(new) - new[0] >= facing


__all__ = ["chips_read_as_meant"]

"""The HTML report of ``tablewatch stats --html``: the rows as a table and charts drawn by matplotlib as inline
SVG, so the file opens anywhere, offline, with nothing else beside it."""

from __future__ import annotations

import html
import io
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from matplotlib.figure import Figure

from tablewatch.history.stats import STREETS

PLAYERS_CHARTED = 25  # the players with the most hands; the table lists them all
BAR_H = 0.32  # inches a bar


def html_report(rows: list[dict[str, Any]], title: str, grouping: str) -> str:
    """The whole page for rows of ``PaceStats.row()`` (per table, dealer or shift) or ``PlayerStats.row()``."""
    charts = _player_charts(rows) if grouping == "player" else _pace_charts(rows, grouping)
    made = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return (f"<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>tablewatch statistics: {html.escape(title)}</title><style>{_STYLE}</style></head><body>\n"
            f"<h1>Statistics per {html.escape(grouping)}: {html.escape(title)}</h1>\n"
            f"<p class=\"made\">Made by tablewatch stats, {made}</p>\n"
            + "".join(f"<figure>{svg}</figure>\n" for svg in charts) + _table(rows) + "</body></html>\n")


def _pace_charts(rows: list[dict[str, Any]], grouping: str) -> list[str]:
    if not rows:
        return []
    names = [str(row[grouping]) for row in rows]
    return [
        _bars(names, {"hands per hour": [row["hands_per_hour"] for row in rows]}, "Pace: hands per hour"),
        _bars(names, {part.replace("_s", ""): [row[part] for row in rows] for part in ("deal_s", "betting_s",
                                                                                    "finish_s")},
              "Seconds per hand: the deal, the betting, the showdown and push", stacked=True),
        _bars(names, {street: [row[f"{street}_s"] for row in rows] for street in STREETS},
              "Betting seconds per street, over the hands that reached it (where the camera saw the burns)"),
        _bars(names, {"a dealer's procedure error": [row["dealer_error_hands_per_100"] for row in rows],
                      "a player's violation": [row["player_violation_hands_per_100"] for row in rows]},
              "Hands with … per 100 hands"),
    ]


def _player_charts(rows: list[dict[str, Any]]) -> list[str]:
    charted = rows[:PLAYERS_CHARTED]
    if not charted:
        return []
    names = [str(row["player"]) for row in charted]
    return [
        _bars(names, {"VPIP %": [row["vpip_pct"] for row in charted], "PFR %": [row["pfr_pct"] for row in charted]},
              f"VPIP and PFR of the {len(charted)} players with the most hands"),
        _bars(names, {"net chips": [row["net"] for row in charted]}, "Net chips won"),
    ]


def _bars(names: Sequence[str], series: dict[str, list[float | None]], title: str, *,
          stacked: bool = False) -> str:
    """Horizontal bars, one row per name: a bar per series side by side, or the series stacked."""
    figure = Figure(figsize=(10, 1.2 + BAR_H * len(names) * (1 if stacked else len(series))))
    axes = figure.add_subplot()
    lefts = [0.0] * len(names)
    height = 0.8 if stacked else 0.8 / len(series)
    for k, (label, values) in enumerate(series.items()):
        numbers = [float(v) if v is not None else 0.0 for v in values]
        places = list(range(len(names))) if stacked else [i - 0.4 + height * (k + 0.5) for i in range(len(names))]
        axes.barh(places, numbers, height=height, left=lefts if stacked else None, label=label)
        if stacked:
            lefts = [a + b for a, b in zip(lefts, numbers, strict=True)]
    axes.set_yticks(range(len(names)), labels=names)
    axes.invert_yaxis()
    axes.set_title(title, loc="left")
    axes.grid(axis="x", alpha=0.3)
    if len(series) > 1:
        axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)  # beside the bars, never on them
    figure.tight_layout()
    out = io.StringIO()
    figure.savefig(out, format="svg")
    svg = out.getvalue()
    return svg[svg.index("<svg"):]  # the SVG element alone, without its XML prologue


def _table(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "<p>No hands.</p>\n"
    head = "".join(f"<th>{html.escape(column.replace('_', ' '))}</th>" for column in rows[0])
    body = "".join("<tr>" + "".join(f"<td>{html.escape(_cell(value))}</td>" for value in row.values()) + "</tr>\n"
                   for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>\n{body}</tbody></table>\n"


def _cell(value: Any) -> str:
    if isinstance(value, dict):
        return " ".join(f"{k}: {v}" for k, v in value.items())
    return "" if value is None else str(value)


_STYLE = ("body{font-family:system-ui,sans-serif;margin:2em;color:#222}h1{font-size:1.4em}.made{color:#666}"
          "figure{margin:1em 0}svg{max-width:100%;height:auto}table{border-collapse:collapse;font-size:.9em}"
          "th,td{border:1px solid #ccc;padding:.3em .6em;text-align:right}th:first-child,td:first-child"
          "{text-align:left}thead{background:#f3f3f3}")

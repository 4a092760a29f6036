"""A text picture of a table for logs and debugging: walls, hands, rivers, melds, whose turn."""

from __future__ import annotations

from referee.game.state import Phase, TableState
from referee.hands import Wind
from referee.tiles import format_tiles

_HEIGHT = {0: ".", 1: "▄", 2: "█"}


def render(state: TableState, *, show_concealed: bool = True) -> str:
    """Several lines of plain text; concealed tiles can be hidden (``show_concealed=False``)."""
    lines: list[str] = []
    scores = "  ".join(f"{name} {state.scores.get(name, 0):+d}" for name in state.players)
    lines.append(
        f"table {state.table_id} session {state.session_id} [{state.profile.name}] "
        f"hands played {state.hands_played}  {scores}"
    )
    hand = state.hand
    if hand is None:
        lines.append("no hand yet")
        return "\n".join(lines)
    wall = hand.wall
    lines.append(
        f"hand {hand.number + 1}  dealer {state.player_at(Wind.E)}  phase {hand.phase.name}  "
        f"turn {hand.turn.name}  live {wall.live}  standing {wall.remaining}"
        + (f"  break {Wind(wall.breaker).name}+{wall.number}" if wall.is_broken else "")
    )
    heights = wall.stack_heights()
    spp = wall.stacks_per_side
    for seat in Wind:
        me = hand.seats[seat]
        marker = "▶" if seat is hand.turn and hand.phase is not Phase.IDLE else " "
        stacks = "".join(_HEIGHT[h] for h in reversed(heights[seat * spp : (seat + 1) * spp]))
        concealed = format_tiles(me.concealed) if show_concealed else f"[{sum(me.counts)} tiles]"
        melds = " ".join(
            f"{'(' if m.concealed else '['}{format_tiles(m.tiles)}{')' if m.concealed else ']'}"
            for m in me.melds
        )
        lines.append(f"{marker}{seat.name} {state.player_at(seat):<8} wall {stacks}")
        lines.append(f"    hand {concealed}  {melds}".rstrip())
        if me.flowers:
            lines.append(f"    flowers {format_tiles(me.flowers)}")
        river = me.river
        rows = [format_tiles(river[i : i + 6]) for i in range(0, len(river), 6)]  # WMC-4.6
        lines.append("    river " + (" / ".join(rows) if rows else "-"))
    if hand.last_discard is not None:
        seat, tile = hand.last_discard
        lines.append(
            f"last discard {format_tiles([tile])} by {seat.name}"
            + ("  (riverbed)" if hand.riverbed else "")
        )
    if state.results:
        last = state.results[-1].to_dict()
        lines.append(
            f"last result: {last.get('result')} {last.get('winner_name', '')}"
            f" {last.get('value', '')}".rstrip()
        )
    return "\n".join(lines)

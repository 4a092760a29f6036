"""Review of a recorded session: its timeline, and the table as it stood at any event.

The state at seq N is not stored: it is the log replayed through the duties up to N (a whole
session replays in tens of milliseconds), so what the review shows is what the engine concludes
from the record today. Evidence at a moment is named by the contract's dashboard URL
(``/api/tables/{table}/clips/{kind}``): the clips of an alert raised there (those the dashboard
keeps when it is decided), else the recordings the event cites (``video:``, ``audio:``,
``still:``), else the window around its time that an alert without citations gets.
"""

from __future__ import annotations

import contextlib
from typing import Any

from dashboard.evidence import AROUND_AFTER_S, AROUND_BEFORE_S, alert_clips, clip_url
from dashboard.live import LiveState, LiveTable
from dashboard.views import alert_view, seat_view
from referee.duties import RefereeTable
from referee.events import Event
from referee.evidence import ClipRef, clips_in
from referee.hands import Wind
from referee.tiles import format_tiles, tile_name

DECISIONS = frozenset({"penalty_decision", "referee_decision", "hand_ruled", "score_corrected"})
QUIET = frozenset({"observation"})


def sessions(live: LiveState) -> list[dict[str, Any]]:
    """Every table session the dashboard holds, newest table session last per table."""
    out = []
    for (table_id, session_id), lt in sorted(live.sessions.items()):
        st = lt.duty.state
        out.append(
            {
                "table_id": table_id,
                "session_id": session_id,
                "players": list(st.players),
                "hands": st.hands_played,
                "events": len(lt.events),
                "alerts": len(lt.items),
                "in_play": st.hand is not None and st.hand.number == st.hands_played,
                "totals": lt.duty.totals(),
            }
        )
    return out


def find(live: LiveState, table_id: str, session_id: str) -> LiveTable | None:
    return live.sessions.get((table_id, session_id))


def label(ev: Event) -> str:
    """A short line for the timeline: ``E discard 5p``."""
    p = ev.payload
    seat = getattr(p, "seat", None)
    who = f"{seat.name} " if isinstance(seat, Wind) else ""
    tile = getattr(p, "tile", None)
    tiles = getattr(p, "tiles", None)
    what = tile_name(tile) if isinstance(tile, int) else format_tiles(tiles) if tiles else ""
    if ev.type == "call":
        what = str(getattr(p, "call", ""))
    return f"{who}{ev.type} {what}".strip()


def timeline(lt: LiveTable) -> dict[str, Any]:
    """The events, the hands (first and last seq, result), the alert and decision marks."""
    events = [e for e in lt.events if e.type not in QUIET]
    results = lt.duty.state.results
    starts = [i for i, e in enumerate(events) if e.type == "wall_built"]
    hands = []
    for n, i in enumerate(starts):
        end = starts[n + 1] - 1 if n + 1 < len(starts) else len(events) - 1
        hands.append(
            {
                "number": n + 1,
                "first": events[i].seq,
                "last": events[end].seq,
                "result": results[n].to_dict() if n < len(results) else None,
            }
        )
    items = [alert_view(lt, i) for i in lt.items]
    return {
        "table_id": lt.table_id,
        "session_id": lt.session_id,
        "first": events[0].seq if events else 0,
        "last": events[-1].seq if events else 0,
        "events": [{"seq": e.seq, "ts": e.ts, "type": e.type, "label": label(e)} for e in events],
        "hands": hands,
        "alerts": [
            {
                "seq": i["seq"],
                "id": i["id"],
                "rule": i["rule"],
                "severity": i["severity"],
                "status": i["status"],
                "message": i["message"],
            }
            for i in items
        ],
        "decisions": [
            {"seq": e.seq, "type": e.type, "label": label(e)} for e in events if e.type in DECISIONS
        ],
    }


def clip_refs(lt: LiveTable, ev: Event) -> dict[str, ClipRef]:
    """The recordings of one moment: those of an alert raised there (what the dashboard keeps
    when it is decided), else those the event cites, else a window around its time."""
    found: list[ClipRef] = []
    for item in lt.items:
        if item.seq == ev.seq:
            found += alert_clips(lt, item)
    with contextlib.suppress(ValueError):  # a malformed citation: the window still serves
        found += clips_in(ev.evidence)
    start = max(0.0, round(ev.ts - AROUND_BEFORE_S, 2))
    end, t = round(ev.ts + AROUND_AFTER_S, 2), round(ev.ts, 2)
    found += [ClipRef("video", start, end), ClipRef("audio", start, end), ClipRef("still", t, t)]
    out: dict[str, ClipRef] = {}
    for ref in found:
        out.setdefault(ref.kind, ref)
    return out


def clip_urls(lt: LiveTable, ev: Event) -> dict[str, str]:
    """The moment's recordings as the contract's dashboard URLs."""
    return {k: clip_url(lt.table_id, lt.session_id, r) for k, r in clip_refs(lt, ev).items()}


def state_at(lt: LiveTable, seq: int) -> dict[str, Any]:
    """The table after the event ``seq`` (the last one at or before it), replayed from the log."""
    duty = RefereeTable(lt.table_id, lt.session_id)
    at: Event | None = None
    raised: list[dict[str, Any]] = []
    hands_before = 0
    for ev in lt.events:
        if ev.seq > seq:
            break
        hands_before = len(duty.state.results)
        step = duty.apply(ev)
        at = ev
        raised = [a.to_json() for a in step.alerts if not a.rule.startswith("SYS-")]
    if at is None:
        raise LookupError(f"no event at or before seq {seq}")
    st = duty.state
    hand = st.hand
    seats = []
    for w in Wind:
        seat: dict[str, Any] = {"seat": w.name, "player": st.player_at(w)}
        if hand is not None:
            me = hand.seats[w]
            seat |= seat_view(me)
            seat["on_turn"] = hand.turn is w
            seat["hand"] = [tile_name(t) for t in me.concealed]
        seats.append(seat)
    spp = hand.wall.stacks_per_side if hand is not None else 0
    heights = hand.wall.stack_heights() if hand is not None else []
    ended = st.results[hands_before:]
    return {
        "table_id": lt.table_id,
        "session_id": lt.session_id,
        "seq": at.seq,
        "ts": at.ts,
        "event": {
            "seq": at.seq,
            "ts": at.ts,
            "type": at.type,
            "source": str(at.source),
            "label": label(at),
            "payload": at.payload.model_dump(mode="json"),
            "evidence": list(at.evidence),
        },
        "hand": None
        if hand is None
        else {
            "number": hand.number + 1,
            "phase": hand.phase.name.lower(),
            "turn": hand.turn.name,
            "dealer": st.player_at(Wind.E),
        },
        "seats": seats,
        "wall": None
        if hand is None
        else {
            "remaining": hand.wall.remaining,
            "live": hand.wall.live,
            "sides": [heights[i * spp : (i + 1) * spp] for i in range(4)],
        },
        "scores": duty.totals(),
        "players": list(st.players),
        "alerts": raised,
        "result": ended[-1].to_dict() if ended else None,
        "clips": clip_urls(lt, at),
    }

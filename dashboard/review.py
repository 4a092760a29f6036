"""Review of a recorded session: its timeline, and the table as it stood at any event.

The state at seq N is not stored: it is the log replayed through the duties up to N (a whole
session replays in tens of milliseconds), so what the review shows is what the engine concludes
from the record today. Evidence at a moment is named by the contract's dashboard URL
(``/api/tables/{table}/clips/{kind}``): the recordings the event cites (``video:``, ``audio:``,
``still:``), else a window around its time.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from dashboard.live import LiveState, LiveTable
from dashboard.views import seat_view
from referee.duties import RefereeTable
from referee.events import Event
from referee.evidence import clips_in
from referee.hands import Wind
from referee.tiles import format_tiles, tile_name

CLIP_BEFORE = 5.0  # a moment's clip, when the event cites none: from this long before …
CLIP_AFTER = 3.0  # … to this long after it (a discard is seen, then the claims come)
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
    items = [i.view(lt) for i in lt.items]
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


def clip_urls(table_id: str, session_id: str, ev: Event) -> dict[str, str]:
    """The recordings of one moment, as the contract's dashboard URLs."""
    cited = {c.kind: c for c in clips_in(ev.evidence)}
    base = f"/api/tables/{table_id}/clips"
    out: dict[str, str] = {}
    for kind in ("video", "audio"):
        c = cited.get(kind)
        start, end = (c.start, c.end) if c else (max(ev.ts - CLIP_BEFORE, 0.0), ev.ts + CLIP_AFTER)
        query = {"session": session_id, "start": f"{start:.2f}", "end": f"{end:.2f}"}
        out[kind] = f"{base}/{kind}?{urlencode(query)}"
    still = cited.get("still")
    t = still.ts if still else ev.ts
    out["still"] = f"{base}/still?{urlencode({'session': session_id, 't': f'{t:.2f}'})}"
    return out


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
        "clips": clip_urls(lt.table_id, lt.session_id, at),
    }

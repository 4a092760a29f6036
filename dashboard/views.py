"""View models: the live state as plain dicts, for the JSON API and the templates alike."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from dashboard.evidence import clip_links
from dashboard.live import SEVERITY_RANK, AlertItem, LiveState, LiveTable, Presence
from referee.game.state import SeatState
from referee.hands import Meld, Relative, Wind
from referee.scoresheet import HANDS_PER_CARD
from referee.tiles import tile_name

HEALTH_KINDS = (
    ("camera", ("camera", "vision")),
    ("mic", ("voice", "mic", "audio")),
    ("link", ("table", "link", "serial")),
)


def tile(t: int, *, sideways: bool = False, back: bool = False) -> dict[str, Any]:
    return {"name": tile_name(t), "sideways": sideways, "back": back}


def meld_tiles(m: Meld) -> list[dict[str, Any]]:
    """A meld as laid: the claimed tile sideways, at the side it came from (left: first,
    opposite: middle, right: last); a concealed kong shows its two ends face down."""
    names = list(m.tiles)
    if m.concealed:
        return [tile(t, back=i in (0, 3)) for i, t in enumerate(names)]
    out = [tile(t) for t in names]
    if m.claimed_tile is not None and m.claimed_from is not None:
        names.remove(m.claimed_tile)
        at = {Relative.LEFT: 0, Relative.OPPOSITE: 1, Relative.RIGHT: len(names)}[m.claimed_from]
        names.insert(at, m.claimed_tile)
        out = [tile(t, sideways=i == at) for i, t in enumerate(names)]
    return out


def seat_view(s: SeatState) -> dict[str, Any]:
    river = [tile(t) for t in s.river]
    return {
        "rows": [river[i : i + 6] for i in range(0, len(river), 6)],
        "melds": [{"kind": str(m.kind), "tiles": meld_tiles(m)} for m in s.melds],
        "wrong_melds": [[tile(t) for t in ts] for _k, ts in s.wrong_melds],
        "flowers": [tile(t) for t in s.flowers],
        "penalty": [tile(t) for t in s.penalty_live] + [tile(t) for t in s.penalty_dead],
        "concealed": sum(s.counts[:34]) + s.hidden,  # the tiles standing in the rack
        "hidden": s.hidden,  # of them, those nobody has seen (face down since dealt or drawn)
        "dead": s.dead,
    }


def health(presence: Presence | None, now: float) -> dict[str, Any]:
    """Rig, camera, mic and table link: ok / degraded / down / offline, with since when."""
    if presence is None:
        return {"rig": {"state": "unknown", "since": None}, "inputs": {}}
    inputs = presence.body.get("inputs") or {}
    out: dict[str, Any] = {}
    for kind, names in HEALTH_KINDS:
        found = [(n, h) for n, h in inputs.items() if any(k in n.lower() for k in names)]
        if found:
            name, h = found[0]
            state = h.get("health", "down") if presence.state == "online" else "offline"
            out[kind] = {"state": state, "detail": h.get("detail", ""), "input": name}
    rig_state = presence.state
    return {
        "rig": {
            "state": rig_state,
            "since": presence.changed,
            "for": max(now - presence.changed, 0.0),
        },
        "inputs": out,
    }


def clocks_state(presence: Presence | None) -> str:
    """``unavailable`` while the table's rig is offline (stopped, or gone): its clocks are not
    running and the last figures are stale, so none are shown (Home Assistant's way); else
    ``live``."""
    return "unavailable" if presence is not None and presence.state == "offline" else "live"


def alert_status(lt: LiveTable, item: AlertItem) -> tuple[str, bool]:
    """An alert's status (open, acknowledged, confirmed …) and whether it still waits for a
    referee: what the queue, the cards and the Alerts badge count (cheap: no view built)."""
    entry = lt.entry(item.proposal)
    status = "open"
    if entry is not None and str(entry.status) != "pending":
        status = str(entry.status)
    elif item.id in lt.acked:
        status = "acknowledged"
    ruling = lt.duty.rulings.get(item.settles) if item.settles is not None else None
    if ruling is not None:
        status = "voided" if ruling.ruling == "void" else "settled"
    decidable = entry is not None or item.settles is not None
    return status, status == "open" or (status == "acknowledged" and decidable)


def open_total(live: LiveState) -> int:
    """The alerts of every table session still waiting for a referee (the Alerts badge)."""
    return sum(alert_status(lt, item)[1] for lt, item in live.items())


def alert_view(lt: LiveTable, item: AlertItem) -> dict[str, Any]:
    """One line of the alert queue as the pages, the API and the live push show it: its
    decision's status and the clips it cites (dashboard/evidence.py)."""
    entry = lt.entry(item.proposal)
    status, is_open = alert_status(lt, item)
    return {
        "id": item.id,
        "table_id": item.table_id,
        "session_id": item.session_id,
        "rule": item.rule,
        "severity": item.severity,
        "message": item.message,
        "seat": item.seat,
        "player": lt.player(item.hand, item.seat) if item.seat else item.player,
        "seq": item.seq,
        "ts": item.ts,
        "hand": item.hand,
        **alert_when(lt, item),
        "evidence": list(item.evidence),
        "rejected": item.rejected,
        "status": status,
        "open": is_open,
        "proposal": None if entry is None else entry.to_json(),
        "clips": clip_links(lt, item),
        "settle": settle_view(lt, item),
        "command": lt.commands.get(item.id),  # the latest sent about it, and how it stands
    }


def alert_when(lt: LiveTable, item: AlertItem) -> dict[str, Any]:
    """When an alert was raised, as a referee looks for it: the clock time its event reached
    the dashboard (``at``, epoch seconds), the table-clock seconds into its hand, and its hand
    as the score card numbers it (1–8 on the card of its ``half``)."""
    start = lt.hand_starts.get(item.hand)
    return {
        "at": item.at,
        "into_hand": None if start is None or item.ts < start else round(item.ts - start, 3),
        "hand_number": item.hand % HANDS_PER_CARD + 1,
        "half": item.hand // HANDS_PER_CARD + 1,
    }


def settle_view(lt: LiveTable, item: AlertItem) -> dict[str, Any] | None:
    """For a hand without a result (WMC-7.8): its number, its players and where a referee's
    ruling on it goes (``POST``: dashboard/routers/sheets.py); None for any other item."""
    if item.settles is None:
        return None
    results = lt.duty.state.results
    players = list(results[item.settles].players) if item.settles < len(results) else []
    number = item.settles + 1
    card = f"{quote(lt.table_id, safe='')}/{quote(lt.session_id, safe='')}"
    return {
        "hand": item.settles,
        "number": number,
        "players": players,
        "url": f"/api/sheets/{card}/hands/{number}/ruling",
    }


def open_counts(lt: LiveTable) -> dict[str, int]:
    counts = dict.fromkeys(SEVERITY_RANK, 0)
    for item in lt.items:
        if alert_status(lt, item)[1]:
            counts[item.severity] += 1
    return counts


def card(live: LiveState, table_id: str, hands: int, now: float) -> dict[str, Any]:
    lt = live.tables[table_id]
    st = lt.duty.state
    hand = st.hand
    played = st.hands_played
    in_play = hand is not None and hand.number == played  # not yet scored
    number = played + 1 if in_play else played
    turn = st.player_at(hand.turn) if in_play and hand is not None else None
    at = max(lt.duty.now, lt.state_ts)
    counts = open_counts(lt)
    return {
        "table_id": table_id,
        "session_id": lt.session_id,
        "players": list(st.players),
        "hand": {"number": number, "of": hands, "in_play": in_play},
        "turn": turn,
        "clocks": [c.to_json() for c in lt.duty.view(at)],
        "clocks_state": clocks_state(live.presence.get(table_id)),
        "alerts": counts,
        "open_alerts": sum(counts.values()),
        "worst": max(
            (s for s, n in counts.items() if n), key=SEVERITY_RANK.__getitem__, default=None
        ),
        "health": health(live.presence.get(table_id), now),
        "totals": lt.duty.totals(),
        "last_seq": lt.last_seq,
    }


def cards(live: LiveState, hands: int, now: float, sort: str = "alerts") -> list[dict[str, Any]]:
    out = [card(live, t, hands, now) for t in live.tables]
    if sort == "alerts":
        out.sort(
            key=lambda c: (
                -SEVERITY_RANK.get(c["worst"] or "", -1),
                -c["open_alerts"],
                c["table_id"],
            )
        )
    else:
        out.sort(key=lambda c: c["table_id"])
    return out


def detail(live: LiveState, table_id: str, hands: int, now: float) -> dict[str, Any]:
    lt = live.tables[table_id]
    st = lt.duty.state
    hand = st.hand
    seats = []
    for w in Wind:
        seats.append(
            {
                "seat": w.name,
                "player": st.player_at(w),
                "on_turn": hand is not None and hand.turn is w,
                **(seat_view(hand.seats[w]) if hand is not None else {}),
            }
        )
    return {
        **card(live, table_id, hands, now),
        "seats": seats,
        "wall": None if hand is None else hand.wall.remaining,
        "phase": None if hand is None else hand.phase.name.lower(),
        "events": [
            {
                "seq": e.seq,
                "ts": e.ts,
                "source": str(e.source),
                "type": e.type,
                "payload": e.payload.model_dump(mode="json"),
            }
            for e in lt.events[-40:][::-1]
        ],
        "items": [alert_view(lt, i) for i in sorted_items(lt.items)],
        "rig_alerts": [
            a.get("payload", {}) | {"received": a.get("received")}
            for a in live.rig_alerts.get(table_id, [])[-20:][::-1]
        ],
    }


def sorted_items(items: list[AlertItem]) -> list[AlertItem]:
    return sorted(items, key=lambda i: (-SEVERITY_RANK.get(i.severity, 0), -i.ts, i.id))


def queue(live: LiveState, status: str = "open") -> list[dict[str, Any]]:
    """The alert queue: open ones (or all), most severe then newest first."""
    out = []
    for lt, item in live.items():
        v = alert_view(lt, item)
        if status == "all" or (status == "open" and v["open"]) or v["status"] == status:
            out.append(v)
    out.sort(
        key=lambda v: (
            not v["open"],
            -SEVERITY_RANK.get(v["severity"], 0),
            -v["ts"],
            v["table_id"],
            v["id"],
        )
    )
    return out

"""The alert queue and referees' decisions on it. A decision is a ``penalty_decision`` event
(an acknowledgement a ``referee_decision`` note) sent to the table; nothing is edited here."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Depends, HTTPException, Query, Request
from pydantic import BaseModel, Field

from dashboard import views
from dashboard.auth import DECIDE, EVERYONE, REVOKE
from dashboard.clips import keep_in_background
from dashboard.commands import CommandResponse, label, send
from dashboard.deps import Actor, need
from dashboard.outbox import PENDING
from dashboard.rules import summary
from dashboard.services import services

router = APIRouter(prefix="/api", tags=["alerts"])

Verdict = Literal["confirm", "change", "dismiss", "revoke"]


class ClipLink(BaseModel):
    """A recording the alert cites, at the dashboard's clip URL."""

    kind: str
    start: float
    end: float
    seat: str | None
    url: str


class CommandState(BaseModel):
    """The latest referee's command about an alert, and how it stands."""

    id: str
    state: str
    reason: str
    action: str
    pending: bool
    label: str


class AlertResponse(BaseModel):
    id: str
    table_id: str
    session_id: str
    rule: str
    rule_text: str
    severity: str
    message: str
    seat: str | None
    player: str | None
    seq: int
    ts: float
    hand: int
    at: float | None = Field(description="when its event reached the dashboard (epoch s)")
    into_hand: float | None = Field(description="table-clock seconds into its hand")
    hand_number: int = Field(description="its hand as the score card numbers it (1-8)")
    half: int = Field(description="the score card (half session) of its hand, from 1")
    evidence: list[int]
    rejected: bool
    status: str
    open: bool
    proposal: dict[str, object] | None
    clips: list[ClipLink]
    command: CommandState | None
    settle: dict[str, object] | None = None  # a hand without a result: where its ruling goes


class DecisionRequest(BaseModel):
    table_id: str = Field(min_length=1, max_length=64)
    item_id: str = Field(min_length=1, max_length=128)
    verdict: Verdict
    reason: str = Field("", max_length=500)
    points: int | None = Field(None, ge=0, le=1000)


class AckRequest(BaseModel):
    items: list[tuple[str, str]] = Field(
        min_length=1, max_length=500, description="(table_id, item_id) pairs"
    )


class SentResponse(BaseModel):
    sent: int
    commands: list[CommandResponse]  # each with its id and state (queued: the rig is away)


@router.get("/alerts", response_model=list[AlertResponse])
def list_alerts(
    request: Request,
    status: Literal[
        "open", "all", "confirmed", "dismissed", "revoked", "acknowledged", "settled", "voided"
    ] = "open",
    table: str | None = Query(None, max_length=64),
    actor: Actor = Depends(need(EVERYONE)),
) -> list[AlertResponse]:
    out = []
    for v in views.queue(services(request).live, status):
        if table is None or v["table_id"] == table:
            cmd = v.pop("command")
            if cmd is not None:
                cmd = CommandState(**cmd, label=label(cmd["state"], cmd["reason"], actor.lang))
            text = summary(str(v["rule"]), actor.lang)
            out.append(AlertResponse(**v, rule_text=text, command=cmd))
    return out


@router.post(
    "/decisions",
    response_model=SentResponse,
    responses={
        404: {"description": "no such alert"},
        409: {"description": "not allowed in its state, or a decision on it is still on its way"},
    },
)
async def decide(
    body: DecisionRequest, request: Request, actor: Actor = Depends(need(DECIDE))
) -> SentResponse:
    """Confirm, change (new points, a reason), dismiss (a reason) or revoke (head referee, a
    reason) the penalty proposed with an alert."""
    svc = services(request)
    if body.verdict == "revoke" and actor.role not in REVOKE:
        raise HTTPException(403, "only a head referee may revoke a confirmed penalty")
    found = svc.live.find(body.item_id, body.table_id)
    if found is None:
        raise HTTPException(404, f"no alert {body.item_id!r} at table {body.table_id!r}")
    table, item = found
    entry = table.entry(item.proposal)
    if entry is None:
        raise HTTPException(409, "this alert proposes no penalty: acknowledge it instead")
    status = str(entry.status)
    if body.verdict == "revoke" and status != "confirmed":
        raise HTTPException(409, f"the penalty is {status}: only a confirmed one can be revoked")
    if body.verdict != "revoke" and status in ("dismissed", "revoked"):
        raise HTTPException(409, f"the penalty is {status} already")
    if body.verdict in ("change", "dismiss", "revoke") and not body.reason.strip():
        raise HTTPException(422, f"a {body.verdict} needs a reason")
    if body.verdict == "change" and body.points is None:
        raise HTTPException(422, "a change needs the new points")
    waiting = table.commands.get(item.id)
    if waiting is not None and waiting["state"] in PENDING and waiting["action"] != "acknowledge":
        how = label(waiting["state"], "", actor.lang)
        raise HTTPException(
            409,
            f"a decision on this alert is on its way to the table ({how}, command "
            f"{waiting['id']}): decide again once the table has logged it or refused it",
        )
    payload: dict[str, object] = {
        "proposal": entry.proposal.id,
        "verdict": body.verdict,
        "referee": actor.name,
        "reason": body.reason.strip(),
    }
    if body.verdict == "change":
        payload["points"] = body.points
    command = await send(
        svc,
        actor,
        body.table_id,
        "penalty_decision",
        payload,
        action=f"decision_{body.verdict}",
        target=item.id,
        reason=body.reason.strip(),
        session_id=table.session_id,
    )
    keep_in_background(svc, [(table, item)])
    return SentResponse(sent=1, commands=[command])


@router.post(
    "/decisions/acknowledge",
    response_model=SentResponse,
    responses={404: {"description": "no such alert"}},
)
async def acknowledge(
    body: AckRequest, request: Request, actor: Actor = Depends(need(DECIDE))
) -> SentResponse:
    """Acknowledge alerts (in bulk): one ``referee_decision`` note per table."""
    svc = services(request)
    per_table: dict[str, list[tuple[str, int]]] = {}
    sessions: dict[str, str] = {}
    decided = []
    for table_id, item_id in body.items:
        found = svc.live.find(item_id, table_id)
        if found is None:
            raise HTTPException(404, f"no alert {item_id!r} at table {table_id!r}")
        per_table.setdefault(table_id, []).append((item_id, found[1].seq))
        sessions.setdefault(table_id, found[0].session_id)
        decided.append(found)
    commands = []
    for table_id, acks in per_table.items():
        payload = {
            "referee": actor.name,
            "decision": "note",
            "about_seq": acks[0][1],
            "reason": "acknowledged",
            "data": {"ack": [i for i, _ in acks], "seqs": [s for _, s in acks]},  # rig: unpin
        }
        commands.append(
            await send(
                svc,
                actor,
                table_id,
                "referee_decision",
                payload,
                action="acknowledge",
                target=",".join(i for i, _ in acks),
                session_id=sessions[table_id],
            )
        )
    keep_in_background(svc, decided)
    return SentResponse(sent=len(commands), commands=commands)

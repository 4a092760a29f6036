"""Referee actions become events sent to the table (``cmd/event``): the table's log, and so
the dashboard's record, changes only when the rig logs them and they come back. Each is kept
by the outbox (dashboard/outbox.py) until then — queued while the rig is away — and audited."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from dashboard import store
from dashboard.deps import Actor
from dashboard.i18n import translator
from dashboard.outbox import Command, State
from dashboard.services import Services


class CommandResponse(BaseModel):
    """A command to a table as the API answers with it: its id, and how it stands."""

    id: str
    table_id: str
    session_id: str
    type: str
    payload: dict[str, Any]
    actor: str
    action: str
    target: str
    state: State
    label: str  # the state in the reader's language ("waiting for the table", "failed: …")
    reason: str
    attempts: int
    created: float
    sent_at: float | None
    done_at: float | None


def label(state: str, reason: str, lang: str) -> str:
    """How a command stands, in words (``failed: why``)."""
    text = translator(lang)(f"cmd_{state}")
    return f"{text}: {reason}" if state == "failed" and reason else text


def command_response(cmd: Command, lang: str) -> CommandResponse:
    return CommandResponse(
        id=cmd.id,
        table_id=cmd.table_id,
        session_id=cmd.session_id,
        type=cmd.type,
        payload=cmd.payload,
        actor=cmd.actor,
        action=cmd.action,
        target=cmd.target,
        state=cmd.state,
        label=label(cmd.state, cmd.reason, lang),
        reason=cmd.reason,
        attempts=cmd.attempts,
        created=cmd.created,
        sent_at=cmd.sent,
        done_at=cmd.done,
    )


async def send(
    svc: Services,
    actor: Actor,
    table_id: str,
    type_: str,
    payload: dict[str, Any],
    *,
    action: str,
    target: str | None = None,
    reason: str = "",
    session_id: str | None = None,
) -> CommandResponse:
    """Keep and send one command (``session_id``: the session it is about, by default the
    table's current one); the command as it stands once sent, or queued."""
    table = svc.live.tables.get(table_id)
    session = session_id or (table.session_id if table is not None else "")
    command = await svc.outbox.send(
        table_id,
        type_,
        payload,
        actor=actor.name,
        action=action,
        target=target or "",
        session_id=session,
    )
    store.audit(
        svc.factory,
        svc.clock(),
        actor.name,
        action,
        table_id=table_id,
        target=target,
        reason=reason,
        detail=command.body,
        address=actor.address,
    )
    return command_response(command, actor.lang)

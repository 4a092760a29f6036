"""The audit log: every decision, control, login and token, with who, when, what and why."""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, Depends, Query, Request
from pydantic import BaseModel
from sqlalchemy import select

from dashboard.auth import AUDIT, DECIDE
from dashboard.db.models import AuditEntry
from dashboard.deps import Actor, need
from dashboard.services import Services, services

router = APIRouter(prefix="/api/audit", tags=["audit"])


class AuditResponse(BaseModel):
    id: int
    at: float
    actor: str
    action: str
    table_id: str | None
    target: str | None
    reason: str
    detail: dict[str, Any]
    address: str


def entries(svc: Services, limit: int = 200, action: str | None = None) -> list[AuditResponse]:
    with svc.factory() as db:
        q = select(AuditEntry).order_by(AuditEntry.id.desc()).limit(limit)
        if action:
            q = q.where(AuditEntry.action == action)
        return [
            AuditResponse(
                id=e.id,
                at=e.at,
                actor=e.actor,
                action=e.action,
                table_id=e.table_id,
                target=e.target,
                reason=e.reason,
                detail=json.loads(e.detail),
                address=e.address,
            )
            for e in db.scalars(q)
        ]


@router.get("", response_model=list[AuditResponse])
def get_audit(
    request: Request,
    limit: int = Query(200, ge=1, le=5000),
    action: str | None = Query(None, max_length=32),
    _: Actor = Depends(need(AUDIT | DECIDE)),
) -> list[AuditResponse]:
    return entries(services(request), limit, action)

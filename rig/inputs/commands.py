"""A referee's command from the bus as a draft for the core."""

from __future__ import annotations

from typing import Any

from referee.events import PAYLOADS, Source
from rig.inputs.base import Draft


def referee_draft(command: dict[str, Any]) -> Draft:
    """A referee's command from the bus (``cmd/event``): a payload of a known type, logged with
    source ``referee`` (a decision, a clock adjustment, a pause …); ValueError names the fault."""
    kind = command.get("type")
    model = PAYLOADS.get(kind) if isinstance(kind, str) else None
    if model is None:
        raise ValueError(f"unknown event type {kind!r}; expected one of {', '.join(PAYLOADS)}")
    payload = model.model_validate(command.get("payload") or {})
    evidence = tuple(str(e) for e in command.get("evidence", ()))
    return Draft(payload, Source.REFEREE, 1.0, evidence)

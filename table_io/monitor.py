"""Plain records of delivered events, for `mjref table monitor` and logs."""

from __future__ import annotations

import dataclasses
import enum
from typing import Any

from table_io.link import Delivered
from table_io.messages import MsgType


def describe(delivered: Delivered, wall_time: float) -> dict[str, Any]:
    """``{seq, type, time, boot_id, fields}`` with enum fields by name, JSON-ready."""
    message = delivered.message
    fields: dict[str, Any] = {}
    if message is not None:
        for f in dataclasses.fields(message):
            value = getattr(message, f.name)
            fields[f.name] = value.name if isinstance(value, enum.Enum) else value
    try:
        type_name = MsgType(delivered.frame.type).name
    except ValueError:
        type_name = f"0x{delivered.frame.type:02x}"
    return {
        "seq": delivered.seq,
        "type": type_name,
        "time": round(wall_time, 6),
        "boot_id": delivered.boot_id,
        "fields": fields,
    }

"""Heard calls as referee payloads (the sensor's side of the core's types, like table_io.bridge).

A call with a seat (one microphone per seat) is the ``call`` event the engine checks WMC-5.2
against; ``selfdraw`` is a spoken win. Without a seat (one microphone) the core cannot use the
call as a claim, so it is logged as an ``observation`` for the camera's meld to be paired with.
Evidence names the call's span on the audio clock, ``voice:<t_start>-<t_end>``.
"""

from __future__ import annotations

from referee.events import Call, CallKind, Observation, Payload, Source
from referee.hands import Wind
from voice.events import CallHeard

SOURCE = Source.VOICE
_KIND = {
    "chow": CallKind.CHOW,
    "pung": CallKind.PUNG,
    "kong": CallKind.KONG,
    "win": CallKind.WIN,
    "selfdraw": CallKind.WIN,
}


def evidence(call: CallHeard) -> tuple[str, ...]:
    return (f"voice:{call.t_start:.3f}-{call.t_end:.3f}",)


def call_payload(call: CallHeard) -> Payload:
    """The ``call`` payload for a seated call, else an ``observation`` (kind ``call_heard``)."""
    if call.seat is None:
        data = call.model_dump(mode="json")
        return Observation(sensor="voice", kind="call_heard", data=data)
    return Call(seat=Wind[call.seat], call=_KIND[call.word])

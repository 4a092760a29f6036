"""The bus interface (rig/BUS.md): what a rig publishes and what it is told, over one topic tree.

``mjref/v1/<venue>/<table>/{status,state,events,alerts,cmd/<name>}``: events and alerts at QoS 1,
status and state retained, payloads the envelope JSON of referee/EVENTS.md. Two implementations
share :class:`Bus`: :class:`rig.bus.memory.MemoryBus` (in-process, the embedded default) and
:class:`rig.bus.mqtt.MqttBus` (a real broker). The dashboard may import this package (and no
other part of the rig); it depends on the core only.
"""

from __future__ import annotations

import asyncio
import json
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass
from typing import Any, Literal

ROOT = "mjref/v1"
Kind = Literal["status", "state", "events", "alerts", "cmd"]
KINDS: tuple[Kind, ...] = ("status", "state", "events", "alerts", "cmd")
QOS: dict[Kind, int] = {"status": 1, "state": 1, "events": 1, "alerts": 1, "cmd": 1}
RETAINED: frozenset[Kind] = frozenset({"status", "state"})
COMMANDS = ("resend_from", "event", "ping", "round")
"""Commands a rig obeys (BUS.md): resend from a seq, log a referee's event, answer with status,
play a tournament round's session with its players."""


class BusError(RuntimeError):
    """The bus cannot take the message now (broker unreachable); the caller retries."""


def topic(venue: str, table: str, kind: Kind, name: str | None = None) -> str:
    """The topic of one table's ``kind`` (``cmd`` needs the command ``name``)."""
    if kind == "cmd":
        if not name:
            raise ValueError("a command topic needs the command's name")
        return f"{ROOT}/{venue}/{table}/cmd/{name}"
    return f"{ROOT}/{venue}/{table}/{kind}"


def topic_filter(venue: str, table: str | None = None, kind: Kind | None = None) -> str:
    """An MQTT filter: one table (or all, ``+``), one kind (or all, ``#``)."""
    base = f"{ROOT}/{venue}/{table or '+'}"
    if kind is None:
        return f"{base}/#"
    return f"{base}/cmd/+" if kind == "cmd" else f"{base}/{kind}"


def matches(filter_: str, topic_: str) -> bool:
    """MQTT filter matching (``+`` one level, ``#`` the rest)."""
    f, t = filter_.split("/"), topic_.split("/")
    for i, part in enumerate(f):
        if part == "#":
            return True
        if i >= len(t) or (part != "+" and part != t[i]):
            return False
    return len(f) == len(t)


@dataclass(frozen=True, slots=True)
class BusMessage:
    """One message as a subscriber gets it; ``payload`` is the decoded JSON object."""

    topic: str
    venue: str
    table: str
    kind: Kind
    name: str | None  # the command's name (kind ``cmd``)
    payload: dict[str, Any]
    retained: bool = False

    @classmethod
    def parse(cls, topic_: str, data: bytes | str, retained: bool = False) -> BusMessage | None:
        """None for a topic outside the tree or a payload that is no JSON object."""
        parts = topic_.split("/")
        if len(parts) < 5 or "/".join(parts[:2]) != ROOT or parts[4] not in KINDS:
            return None
        kind: Kind = parts[4]  # narrowed by the check against KINDS just above
        name = parts[5] if kind == "cmd" and len(parts) == 6 else None
        if (kind == "cmd") != (name is not None) or (kind != "cmd" and len(parts) != 5):
            return None
        try:
            payload = json.loads(data)
        except (ValueError, UnicodeDecodeError):
            return None
        if not isinstance(payload, dict):
            return None
        return cls(topic_, parts[2], parts[3], kind, name, payload, retained)


def encode(payload: dict[str, Any] | str) -> str:
    """JSON text of a payload (an envelope already serialised passes as it is)."""
    return payload if isinstance(payload, str) else json.dumps(payload, separators=(",", ":"))


class Subscription:
    """Messages matching the filters, in arrival order, until closed. The bus puts them into an
    unbounded queue, so a slow reader never blocks the rig that publishes."""

    def __init__(self, filters: tuple[str, ...]) -> None:
        self.filters = filters
        self.queue: asyncio.Queue[BusMessage | None] = asyncio.Queue()
        self.closed = False

    def wants(self, topic_: str) -> bool:
        return not self.closed and any(matches(f, topic_) for f in self.filters)

    def put(self, message: BusMessage) -> None:
        self.queue.put_nowait(message)

    def __aiter__(self) -> AsyncIterator[BusMessage]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[BusMessage]:
        while (message := await self.queue.get()) is not None:
            yield message

    async def get(self, timeout: float | None = None) -> BusMessage | None:
        """The next message, or None after ``timeout`` seconds without one (or once closed)."""
        try:
            async with asyncio.timeout(timeout):
                return await self.queue.get()
        except TimeoutError:
            return None

    async def close(self) -> None:
        self.closed = True
        self.queue.put_nowait(None)


class Bus(ABC):
    """Publish a table's events, alerts, state and status; subscribe; command a table."""

    def __init__(self, venue: str) -> None:
        self.venue = venue
        self.on_connect: Callable[[], Coroutine[Any, Any, None]] | None = None
        """Called after each (re)connection: a broker restarted without its retained messages
        gets the publisher's status and state again."""

    async def publish_event(self, table: str, envelope: dict[str, Any] | str) -> None:
        await self._send(table, "events", envelope)

    async def publish_alert(self, table: str, envelope: dict[str, Any] | str) -> None:
        await self._send(table, "alerts", envelope)

    async def publish_state(self, table: str, state: dict[str, Any]) -> None:
        await self._send(table, "state", state)

    async def publish_status(self, table: str, status: dict[str, Any]) -> None:
        await self._send(table, "status", status)

    async def send_command(self, table: str, name: str, payload: dict[str, Any]) -> None:
        await self._send(table, "cmd", payload, name)

    async def _send(
        self, table: str, kind: Kind, payload: dict[str, Any] | str, name: str | None = None
    ) -> None:
        await self.publish(topic(self.venue, table, kind, name), encode(payload), kind)

    @abstractmethod
    async def publish(self, topic_: str, text: str, kind: Kind) -> None:
        """Send one message (QoS and retain follow ``kind``); raises :class:`BusError`."""

    @abstractmethod
    async def subscribe(self, *filters: str) -> Subscription: ...

    async def start(self) -> None:
        """Connect (MQTT); the in-process bus needs nothing."""
        return None

    async def close(self) -> None:
        """Disconnect cleanly (MQTT: the status stays as the rig last set it)."""
        return None

    async def __aenter__(self) -> Bus:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

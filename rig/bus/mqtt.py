"""The MQTT bus: aiomqtt over a real broker (mosquitto), reconnecting with back-off.

QoS 1 for everything (a command or an event is never fire-and-forget), status and state retained,
a last-will status (``offline``) set by the rig at connect. Sessions are clean: a subscriber that
was away misses what was published meanwhile and fills the gap with ``cmd/resend_from`` (BUS.md),
so a broker restart loses nothing either.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from urllib.parse import unquote, urlsplit, urlunsplit

import aiomqtt

from rig.bus import QOS, RETAINED, Bus, BusError, BusMessage, Kind, Subscription, encode

log = logging.getLogger(__name__)
_client_log = logging.getLogger(f"{__name__}.client")
_client_log.setLevel(logging.ERROR)  # not aiomqtt's "N pending publish calls": we queue on purpose
DEFAULT_PORT = 1883


def credentials(url: str) -> tuple[str | None, str | None]:
    """The user and password of ``mqtt://USER:PASSWORD@HOST[:PORT]`` (a venue broker that
    gives each rig its own login, hardware/mosquitto), or (None, None)."""
    parts = urlsplit(url if "://" in url else f"mqtt://{url}")
    return (unquote(parts.username) if parts.username is not None else None), (
        unquote(parts.password) if parts.password is not None else None
    )


def redacted(url: str) -> str:
    """The address as logs and errors may show it: never the password."""
    parts = urlsplit(url if "://" in url else f"mqtt://{url}")
    if parts.password is None:
        return url
    host = parts.netloc.rsplit("@", 1)[1]
    return urlunsplit(parts._replace(netloc=f"{parts.username}:***@{host}"))


def parse_url(url: str) -> tuple[str, int]:
    """``mqtt://[USER:PASSWORD@]host[:port]`` → (host, port); a ValueError names the expected
    form (the credentials: :func:`credentials`)."""
    shown = redacted(url)
    parts = urlsplit(url if "://" in url else f"mqtt://{url}")
    if parts.scheme not in ("mqtt", "tcp") or not parts.hostname:
        raise ValueError(f"{shown!r} is not an MQTT address; expected mqtt://HOST[:PORT]")
    try:
        port = parts.port or DEFAULT_PORT
    except ValueError:
        raise ValueError(f"{shown!r}: the port is no number; expected mqtt://HOST[:PORT]") from None
    try:
        parts.hostname.encode("idna")
    except UnicodeError:
        raise ValueError(f"{shown!r}: not a host name; expected mqtt://HOST[:PORT]") from None
    return parts.hostname, port


class MqttBus(Bus):
    def __init__(
        self,
        url: str,
        venue: str,
        *,
        will: tuple[str, dict[str, object]] | None = None,
        timeout: float = 5.0,
        backoff: tuple[float, float] = (0.05, 2.0),
    ) -> None:
        super().__init__(venue)
        self.url = redacted(url)  # shown in logs and errors
        self.host, self.port = parse_url(url)
        self._username, self._password = credentials(url)
        self.connected = asyncio.Event()
        self.connects = 0
        self._will = will
        self._timeout = timeout
        self._backoff = backoff
        self._client: aiomqtt.Client | None = None
        self._subs: list[Subscription] = []
        self._filters: list[str] = []
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name=f"mqtt {self.url}")

    async def wait_connected(self, timeout: float | None = None) -> bool:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.connected.wait(), timeout)
        return self.connected.is_set()

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        for sub in self._subs:
            await sub.close()

    async def publish(self, topic_: str, text: str, kind: Kind) -> None:
        client = self._client
        if client is None or not self.connected.is_set():
            raise BusError(f"not connected to {self.url}")
        try:
            await client.publish(
                topic_, text, qos=QOS[kind], retain=kind in RETAINED, timeout=self._timeout
            )
        except aiomqtt.MqttError as exc:
            raise BusError(f"{self.url}: {exc}") from exc

    async def subscribe(self, *filters: str) -> Subscription:
        sub = Subscription(filters)
        self._subs.append(sub)
        new = [f for f in filters if f not in self._filters]
        self._filters += new
        client = self._client
        if client is not None and self.connected.is_set():
            for f in new:
                with contextlib.suppress(aiomqtt.MqttError):  # resubscribed on reconnect
                    await client.subscribe(f, qos=1)
        return sub

    async def _run(self) -> None:
        delay = self._backoff[0]
        while True:
            will = None
            if self._will is not None:
                will = aiomqtt.Will(self._will[0], encode(dict(self._will[1])), qos=1, retain=True)
            try:
                async with aiomqtt.Client(
                    self.host,
                    self.port,
                    username=self._username,
                    password=self._password,
                    will=will,
                    timeout=self._timeout,
                    keepalive=10,
                    logger=_client_log,
                    max_inflight_messages=128,
                ) as client:
                    for f in self._filters:
                        await client.subscribe(f, qos=1)
                    self._client = client
                    self.connected.set()
                    self.connects += 1
                    delay = self._backoff[0]
                    if self.on_connect is not None:
                        asyncio.create_task(self.on_connect())  # noqa: RUF006  (short-lived)
                    async for m in client.messages:
                        self._dispatch(m)
            except aiomqtt.MqttError as exc:
                log.info("mqtt %s: %s", self.url, exc)
            finally:
                self.connected.clear()
                self._client = None
            await asyncio.sleep(delay)
            delay = min(delay * 2, self._backoff[1])

    def _dispatch(self, m: aiomqtt.Message) -> None:
        data = m.payload if isinstance(m.payload, bytes | str) else b""
        message = BusMessage.parse(m.topic.value, data, bool(m.retain))
        if message is None:
            log.debug("ignored %s (not a bus message)", m.topic.value)
            return
        self._subs = [s for s in self._subs if not s.closed]
        for sub in self._subs:
            if sub.wants(message.topic):
                sub.put(message)

"""The in-process bus (the embedded default): subscribers' queues, retained messages in a dict."""

from __future__ import annotations

from rig.bus import RETAINED, Bus, BusMessage, Kind, Subscription


class MemoryBus(Bus):
    """One process's bus: every subscriber gets every matching message, retained ones first."""

    def __init__(self, venue: str = "local") -> None:
        super().__init__(venue)
        self._subs: list[Subscription] = []
        self._retained: dict[str, BusMessage] = {}

    async def publish(self, topic_: str, text: str, kind: Kind) -> None:
        message = BusMessage.parse(topic_, text)
        if message is None:
            raise ValueError(f"not a bus topic or not a JSON object: {topic_}")
        if kind in RETAINED:
            self._retained[topic_] = BusMessage.parse(topic_, text, retained=True) or message
        self._subs = [s for s in self._subs if not s.closed]
        for sub in self._subs:
            if sub.wants(topic_):
                sub.put(message)

    async def subscribe(self, *filters: str) -> Subscription:
        sub = Subscription(filters)
        for topic_, message in self._retained.items():
            if sub.wants(topic_):
                sub.put(message)
        self._subs.append(sub)
        return sub

"""The rules core: tiles, hands, scoring, game state. Pure: no I/O except the event store."""

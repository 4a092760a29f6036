"""``/ws``: the live channel. Logged-in users only (the session cookie); messages are JSON:
``alert`` (a new alert item), ``tables`` (these tables changed), ``rig_alert``; each with
``open_alerts``, the venue's count of alerts waiting for a referee as it stood when sent."""

from __future__ import annotations

import asyncio
import contextlib

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from dashboard.auth import COOKIE, session_user
from dashboard.services import Services

router = APIRouter()


@router.websocket("/ws")
async def live(socket: WebSocket) -> None:
    svc: Services = socket.app.state.services
    if session_user(svc.factory, socket.cookies.get(COOKIE), svc.clock()) is None:
        await socket.close(code=4401, reason="log in first")
        return
    queue = svc.hub.connect()  # before the client sees the socket open: nothing is missed
    try:
        await socket.accept()
    except Exception:
        svc.hub.disconnect(queue)
        raise

    async def drain_client() -> None:
        with contextlib.suppress(WebSocketDisconnect):
            while True:
                await socket.receive_text()

    async def push() -> None:
        with contextlib.suppress(WebSocketDisconnect, RuntimeError):  # the client went away
            while True:
                await socket.send_text(await queue.get())

    tasks = {asyncio.create_task(drain_client()), asyncio.create_task(push())}
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        svc.hub.disconnect(queue)

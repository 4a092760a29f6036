"""The simulated table's pty endpoint: a folder it is given stays the caller's."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from table_io.sim.endpoints import PtyEndpoint


def test_a_given_folder_outlives_the_endpoint_and_serves_the_next(tmp_path: Path) -> None:
    """The demo's table loop gives each session's endpoint the folder it made once: closing
    one session's endpoint must not take the next session's place away."""

    async def sessions() -> list[str]:
        devices = []
        for _ in range(3):
            end = PtyEndpoint(str(tmp_path))
            await end.open(lambda _data: None)
            devices.append(end.device)
            await end.close()
        return devices

    devices = asyncio.run(sessions())
    assert len(devices) == 3 and all(d.startswith("/dev/pts/") for d in devices)
    assert tmp_path.is_dir() and not os.path.lexists(tmp_path / "table")


def test_a_folder_of_its_own_is_removed_on_close() -> None:
    async def once() -> str:
        end = PtyEndpoint()
        await end.open(lambda _data: None)
        folder = os.path.dirname(end.path)
        await end.close()
        return folder

    assert not Path(asyncio.run(once())).exists()

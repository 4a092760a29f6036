"""`mjref rig --check`: probe each configured device once and say what was found.

The table link must answer (its HELLO: boot id and capabilities), a microphone must give
samples, an audio or observation file must be readable, the broker must accept a connection.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import numpy as np

from rig.config import RigConfig
from voice.audio_io import SR, Audio

if TYPE_CHECKING:
    from voice.sources import LiveSource

PROBE_S = 3.0
Probe = Callable[[], Awaitable[str]]


async def _table(port: str) -> str:
    from table_io.driver import TableDriver
    from table_io.link import TableBooted

    async with TableDriver(port) as driver:
        deadline = time.monotonic() + PROBE_S
        while (left := deadline - time.monotonic()) > 0:
            try:
                async with asyncio.timeout(left):
                    out = await driver.next_output()
            except TimeoutError:
                break
            if isinstance(out, TableBooted):
                caps = out.hello.capabilities if out.hello is not None else "unknown"
                return f"HELLO from boot {out.boot_id:08x}, capabilities {caps}"
    raise RuntimeError(f"no HELLO within {PROBE_S:g} s")


async def _voice_file(cfg: RigConfig) -> str:
    from voice.audio_io import SR, read_audio

    assert cfg.voice is not None and cfg.voice.file is not None
    audio = await asyncio.to_thread(read_audio, cfg.voice.file)
    return f"{cfg.voice.file}: {len(audio) / SR:.1f} s, {audio.shape[1]} channel(s)"


def _live(device: str, channels: int) -> LiveSource:
    from voice.sources import LiveSource

    dev: int | str | None = int(device) if device.isdigit() else device
    return LiveSource(None if dev == "default" else dev, channels=channels, stall_s=PROBE_S)


async def _microphone(device: str, channels: int) -> str:
    from voice.sources import level_dbfs

    src = _live(device, channels)

    def first_block() -> str:
        src.start()
        try:
            for block in src:
                if len(block.data):
                    return f"{len(block.data)} samples, level dBFS {level_dbfs(block.data)}"
                raise RuntimeError(f"no samples within {PROBE_S:g} s")
        finally:
            src.stop()
        raise RuntimeError("the stream ended")

    return await asyncio.to_thread(first_block)


async def _camera(cfg: RigConfig) -> str:
    from referee.events import parse_line

    assert cfg.camera is not None and cfg.camera.file is not None
    lines = cfg.camera.file.read_text(encoding="utf-8").splitlines()
    bad = 0
    for n, text in enumerate(lines, 1):
        if text.strip():
            try:
                parse_line(text, n)
            except ValueError:
                bad += 1
    return f"{cfg.camera.file}: {len(lines)} line(s), {bad} unreadable"


async def _camera_source(source: str) -> str:
    """The camera gives a frame and the table's four markers are found in it."""

    def first_frame() -> str:
        from vision.calibrate import calibrate
        from vision.capture import open_source

        cap = open_source(source)
        try:
            ok, frame = cap.read()
        finally:
            cap.release()
        if not ok or frame is None:
            raise RuntimeError("no frame from the camera")
        cal = calibrate(frame[..., ::-1].copy())
        return f"{frame.shape[1]}x{frame.shape[0]}, markers found ({cal.error_px:.2f} px)"

    return await asyncio.to_thread(first_frame)


async def _broker(url: str) -> str:
    from rig.bus.mqtt import MqttBus

    bus = MqttBus(url, "check")
    await bus.start()
    try:
        if not await bus.wait_connected(PROBE_S):
            raise RuntimeError(f"no connection within {PROBE_S:g} s")
    finally:
        await bus.close()
    return "connected"


def probes(cfg: RigConfig) -> list[tuple[str, Probe]]:
    out: list[tuple[str, Probe]] = []
    if cfg.table_link is not None:
        port = cfg.table_link.port
        out.append((f"table_link {port}", lambda: _table(port)))
    v = cfg.voice
    if v is not None and v.file is not None:
        out.append(("voice file", lambda: _voice_file(cfg)))
    elif v is not None and v.device is not None:
        device, channels = v.device, v.channels
        out.append((f"microphone {device}", lambda: _microphone(device, channels)))
    cam = cfg.camera
    if cam is not None and cam.source is not None:
        source = cam.source
        out.append((f"camera {source}", lambda: _camera_source(source)))
    elif cam is not None:
        out.append(("camera (recorded file)", lambda: _camera(cfg)))
    if cfg.bus.mqtt is not None:
        url = cfg.bus.mqtt
        out.append((f"broker {url}", lambda: _broker(url)))
    return out


async def hear_table(cfg: RigConfig, seconds: float) -> int:
    """Record ``seconds`` of the table's microphones while each player says a call alone, learn
    its cross-talk and voices (voice.table_check) and save them where the rig's voice worker
    reads them; 1 when a seat was not heard alone (it is learnt in play instead)."""
    from voice import table_check
    from voice.audio_io import read_audio
    from voice.seats import channel_map

    v = cfg.voice
    if v is None or v.channels < 2:
        print("FAIL hear-table: the table is heard with a microphone a seat (voice.channels >= 2)")
        return 1
    seats = channel_map(",".join(v.seats) if v.seats else None, v.channels)
    order = " ".join(s for s in seats if s is not None)
    print(
        f"hearing the table for {seconds:g} s: each player in turn ({order}), alone: "
        "your seat and a call"
    )
    if v.file is not None:
        audio = (await asyncio.to_thread(read_audio, v.file))[: int(seconds * SR)]
    else:
        assert v.device is not None
        audio = await asyncio.to_thread(_record, v.device, v.channels, seconds)
    try:
        heard = table_check.hear_table(audio, seats)
    except table_check.AcousticsError as exc:
        print(f"FAIL hear-table: {exc}")
        return 1
    for line in heard.lines():
        print(f"     {line}")
    table_check.save(v.acoustics, heard)
    print(f"saved {v.acoustics}: the rig's voice worker starts from it")
    unheard = heard.unheard()
    if unheard:
        print(f"FAIL hear-table: not heard alone: {', '.join(unheard)}; run it again")
    return 1 if unheard else 0


def _record(device: str, channels: int, seconds: float) -> Audio:
    src = _live(device, channels)
    blocks, want = [], 0
    src.start()
    try:
        for block in src:
            blocks.append(block.data)
            want += len(block.data)
            if want >= seconds * SR:
                break
    finally:
        src.stop()
    return np.concatenate(blocks) if blocks else np.zeros((0, channels), np.float32)


async def check(cfg: RigConfig) -> int:
    """Print one line per device; 0 when every one answered, 1 otherwise."""
    failed = 0
    found = probes(cfg)
    if not found:
        print("nothing to probe: no device configured (a simulated table on the in-process bus)")
    for name, probe in found:
        try:
            what = await asyncio.wait_for(probe(), PROBE_S + 2)
        except Exception as exc:
            failed += 1
            print(f"FAIL {name}: {exc or type(exc).__name__}", flush=True)
        else:
            print(f"ok   {name}: {what}", flush=True)
    return 1 if failed else 0

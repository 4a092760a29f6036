"""An undecided alert's evidence in a real headless Chromium: a real rig on the dashboard's bus
hears three hands as the demo feeds it (each a new voice input from a file that starts at 0 s);
the alert raised in the first hand still plays its own audio after the two others, again once
the rig is offline (the dashboard's copy), and a clip neither has reads "evidence not
available: why" instead of an empty player or a broken image."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import pytest
from browser_kit import browser, login  # noqa: F401  (browser: the fixture)
from dashkit import LiveServer, prepare
from hand_audio_kit import LEVELS, hand_wav, hear, level_of, start_session

from dashboard.clips import session_clips
from rig.config import parse
from rig.runtime import Rig

pytestmark = pytest.mark.slow
TOKEN = "browser-evidence-token"
PLAYS = """async (a) => {
  a.muted = true;  // a page may play muted media without a gesture
  await a.play();
  await new Promise((ok) => a.addEventListener("timeupdate", () => a.currentTime > 0.5 && ok()));
  return {duration: a.duration, error: a.error && a.error.code};
}"""


def on(srv: LiveServer, coro: Coroutine[Any, Any, Any], timeout: float = 240.0) -> Any:
    """Run ``coro`` on the dashboard's event loop (the rig lives there, as in the demo)."""
    return asyncio.run_coroutine_threadsafe(coro, srv.loop).result(timeout)


async def made(cfg: Any, srv: LiveServer) -> Rig:
    return Rig(cfg, srv.bus)  # on the loop's thread: its log is that thread's


async def three_hands(rig: Rig, wavs: list[Path]) -> str:
    """The session's first hand raises a proposal (a player late); two more hands follow."""
    await rig.start()
    start_session(rig)
    await hear(rig, wavs[0], late_after=9.0)
    for wav in wavs[1:]:
        await hear(rig, wav)
    return str(next(o for o in rig.outputs if o.type == "proposal").payload["id"])


def plays(page: Any, item: str) -> dict[str, Any]:
    card = page.locator(f'[data-item="{item}"]')
    card.locator("details.evidence summary").click()
    audio = card.locator(".clips audio")
    state: dict[str, Any] = audio.evaluate(PLAYS)
    return state


def test_an_undecided_alerts_audio_still_plays_after_two_more_hands(
    browser: Any,  # noqa: F811
    tmp_path: Path,
) -> None:
    if not Path("models/voice_spotter.onnx").exists():
        pytest.skip("models/voice_spotter.onnx missing")
    settings = prepare(None, tmp_path / "data").model_copy(update={"evidence_token": TOKEN})
    wavs = [
        hand_wav(tmp_path / f"hand{i}.wav", seconds, level)
        for i, (seconds, level) in enumerate(zip((14.0, 3.0, 3.0), LEVELS, strict=True))
    ]
    cfg = parse(
        {
            "table": {"id": "T6", "session": "S1", "log": str(tmp_path / "t6.sqlite")},
            "evidence": {
                "dir": str(tmp_path / "evidence"),
                "token": TOKEN,
                "host": "127.0.0.1",
                "segment_s": 2,
            },
        }
    )
    with LiveServer(settings) as srv:
        rig = on(srv, made(cfg, srv))
        try:
            item = on(srv, three_hands(rig, wavs))
            srv.wait(lambda: srv.svc.live.find(item, "T6") is not None)
            page = login(browser, srv.url, "referee")
            page.goto(f"{srv.url}/alerts")
            url = page.locator(f'[data-item="{item}"] .clips audio').get_attribute("src")
            state = plays(page, item)
            assert state["error"] is None and state["duration"] == pytest.approx(12.0, abs=0.1)
            got = page.request.get(f"{srv.url}{url}")
            assert level_of(got.body()) == pytest.approx(LEVELS[0], abs=0.02)  # not a later hand's
            kept = session_clips(srv.svc.factory, "T6", "S1")  # at the first view, or before
            assert [k.data for k in kept if k.kind == "audio"] == [got.body()]
        finally:
            on(srv, rig.stop())
        srv.wait(lambda: srv.svc.live.presence["T6"].state == "offline")
        page.goto(f"{srv.url}/alerts")  # the rig is offline: the dashboard's copy plays
        state = plays(page, item)
        assert state["error"] is None and state["duration"] == pytest.approx(12.0, abs=0.1)
        card = page.locator(f'[data-item="{item}"]')
        card.locator(".clips video").evaluate("(v) => v.play().catch(() => null)")
        missing = card.locator(".clips .no-evidence")
        missing.nth(1).wait_for()  # the video and the still: no camera recorded them
        texts = missing.all_inner_texts()
        assert len(texts) == 2 and card.locator(".clips video, .clips img").count() == 0
        for text in texts:
            assert text.startswith("evidence not available: this table's rig is offline")
            assert text.endswith("the dashboard keeps no copy of it")

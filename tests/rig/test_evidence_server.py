"""The rig's clip server over real HTTP: the dashboard's token only, clips by session time, a
dropped range → 404 naming what is kept, a bad query → 400 naming the parameter."""

from __future__ import annotations

import io
import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from rig.evidence import Budget, Recorder
from rig.evidence.media import decoded_times
from rig.evidence.server import EvidenceServer

TOKEN = "dash-secret"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Recorder, str]]:
    rec = Recorder(tmp_path / "ring", "S1", Budget(seconds=60.0))
    for i in range(200):  # 100 s at 2 fps: the hour budget keeps the last minute
        t = i / 2
        rec.record_frame(t, np.full((32, 48, 3), i % 250, np.uint8))
        rec.record_audio(t, np.full(4000, 0.1, np.float32), 8000)
    rec.record_still(99.0, np.zeros((20, 20, 3), np.uint8))
    rec.flush()
    server = EvidenceServer(rec, TOKEN, "127.0.0.1", 0).start()
    try:
        yield rec, server.url()
    finally:
        server.close()
        rec.close()


def get(url: str, token: str | None = TOKEN) -> tuple[int, dict[str, str], bytes]:
    req = urllib.request.Request(url)
    if token is not None:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def test_clips_and_stills_are_served_with_the_token(served: tuple[Recorder, str]) -> None:
    _, url = served
    code, headers, body = get(f"{url}/clips/video?start=60&end=70")
    assert code == 200 and headers["Content-Type"] == "video/mp4"
    assert headers["X-Clip-Range"] == "60.00-70.00"
    assert len(decoded_times(body)) == 21
    code, headers, body = get(f"{url}/clips/audio?start=80.5&end=82")
    assert code == 200 and headers["Content-Type"] == "audio/flac"
    samples, rate = sf.read(io.BytesIO(body))
    assert rate == 8000 and len(samples) == 12000
    code, headers, body = get(f"{url}/stills?t=99.5")
    assert code == 200 and headers["Content-Type"] == "image/jpeg" and body[:2] == b"\xff\xd8"


@pytest.mark.parametrize("token", [None, "wrong", ""])
def test_auth_is_refused_without_the_dashboards_token(
    served: tuple[Recorder, str], token: str | None
) -> None:
    _, url = served
    code, headers, body = get(f"{url}/clips/video?start=60&end=70", token)
    assert code == 401 and headers["WWW-Authenticate"] == "Bearer"
    assert "token" in json.loads(body)["detail"]


def test_a_dropped_range_is_a_404_naming_what_is_kept(served: tuple[Recorder, str]) -> None:
    _, url = served
    code, _, body = get(f"{url}/clips/video?start=5&end=10")
    assert code == 404
    assert json.loads(body)["detail"] == (
        "no video of session S1 5.00-10.00: the ring keeps video 30.00-100.00"
    )
    code, _, body = get(f"{url}/clips/audio?start=5&end=10&session=S0")
    assert code == 404 and "the ring keeps audio nothing" in json.loads(body)["detail"]


@pytest.mark.parametrize(
    ("query", "says"),
    [
        ("/clips/video?start=5", "end is missing"),
        ("/clips/video?start=x&end=3", "start = 'x'"),
        ("/clips/audio?start=9&end=3", "expected end after start"),
        ("/clips/audio?start=0&end=9999", "at most 600 s"),
        ("/clips/audio?start=1&end=3&session=../x", "session = '../x'"),
        ("/stills", "t is missing"),
    ],
)
def test_a_bad_query_is_a_400_naming_the_parameter(
    served: tuple[Recorder, str], query: str, says: str
) -> None:
    _, url = served
    code, _, body = get(url + query)
    assert code == 400 and says in json.loads(body)["detail"]


def test_an_unknown_path_is_a_404(served: tuple[Recorder, str]) -> None:
    _, url = served
    code, _, body = get(f"{url}/clips/smell?start=1&end=2")
    assert code == 404 and "expected /clips/audio" in json.loads(body)["detail"]

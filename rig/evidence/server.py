"""The rig's clip server (stdlib ``http.server`` in a thread): the dashboard fetches evidence.

``GET /clips/audio?start=S&end=E`` → audio/flac, ``GET /clips/video?start=S&end=E`` → video/mp4,
``GET /stills?t=T`` → image/jpeg; ``&session=ID`` for a past session of this rig. Only the
dashboard's bearer token is trusted (401 without it). A range the ring dropped → 404
``{"detail": …}`` naming what is kept; a bad query → 400 naming the parameter.
"""

from __future__ import annotations

import hmac
import json
import logging
import math
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from rig.evidence.recorder import Clip, NotKept, Recorder

log = logging.getLogger(__name__)
MAX_CLIP_S = 600.0  # one request cuts at most 10 minutes
_SESSION = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


class BadQuery(ValueError):
    pass


def _number(query: dict[str, list[str]], name: str) -> float:
    values = query.get(name)
    if not values:
        raise BadQuery(f"{name} is missing; expected seconds of the session, e.g. {name}=812.40")
    try:
        value = float(values[0])
    except ValueError:
        raise BadQuery(f"{name} = {values[0]!r}: expected seconds, e.g. 812.40") from None
    if not math.isfinite(value) or value < 0:
        raise BadQuery(f"{name} = {values[0]!r}: expected seconds ≥ 0")
    return value


def _session(query: dict[str, list[str]]) -> str | None:
    values = query.get("session")
    if not values:
        return None
    if not _SESSION.match(values[0]):
        raise BadQuery(f"session = {values[0]!r}: expected a session id (letters, digits, _.-)")
    return values[0]


def answer(recorder: Recorder, path: str, query: dict[str, list[str]]) -> Clip:
    """The clip a request names; BadQuery (400), NotKept (404) or FileNotFoundError (404)."""
    session = _session(query)
    if path == "/stills":
        return recorder.still(_number(query, "t"), session)
    kind = path.removeprefix("/clips/")
    if path.startswith("/clips/") and kind in ("audio", "video"):
        start, end = _number(query, "start"), _number(query, "end")
        if not end > start:
            raise BadQuery(f"start={start:.2f} end={end:.2f}: expected end after start")
        if end - start > MAX_CLIP_S:
            raise BadQuery(f"{end - start:.0f} s asked: a clip is at most {MAX_CLIP_S:.0f} s")
        return recorder.clip(kind, start, end, session)
    raise FileNotFoundError(f"no such path {path}; expected /clips/audio, /clips/video, /stills")


class EvidenceServer:
    """Serves one recorder on ``host:port`` (0: a free port) until :meth:`close`."""

    def __init__(self, recorder: Recorder, token: str, host: str = "0.0.0.0", port: int = 0):
        if not token:
            raise ValueError("the clip server needs the dashboard's token (evidence.token)")
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                server.handle(self)

            def log_message(self, format: str, *args: Any) -> None:
                log.debug("clips: " + format, *args)

        self.recorder = recorder
        self._token = token.encode()
        self.httpd = ThreadingHTTPServer((host, port), Handler)
        self.httpd.daemon_threads = True
        self.host = host
        self.port = int(self.httpd.server_address[1])
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="clips", daemon=True)

    def url(self, advertised_host: str | None = None) -> str:
        host = advertised_host or ("127.0.0.1" if self.host in ("0.0.0.0", "") else self.host)
        return f"http://{host}:{self.port}"

    def start(self) -> EvidenceServer:
        self._thread.start()
        return self

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def _authorised(self, req: BaseHTTPRequestHandler) -> bool:
        given = req.headers.get("Authorization", "")
        scheme, _, token = given.partition(" ")
        return scheme == "Bearer" and hmac.compare_digest(token.strip().encode(), self._token)

    def handle(self, req: BaseHTTPRequestHandler) -> None:
        if not self._authorised(req):
            _json(req, 401, "the dashboard's token is needed: Authorization: Bearer …")
            return
        url = urlsplit(req.path)
        try:
            clip = answer(self.recorder, url.path, parse_qs(url.query))
        except BadQuery as exc:
            _json(req, 400, str(exc))
        except (NotKept, FileNotFoundError) as exc:
            _json(req, 404, str(exc))
        except Exception as exc:  # a segment that cannot be read: say so, keep serving
            log.exception("clip %s failed", req.path)
            _json(req, 500, f"the clip cannot be cut: {type(exc).__name__}: {exc}"[:300])
        else:
            req.send_response(200)
            req.send_header("Content-Type", clip.media_type)
            req.send_header("Content-Length", str(len(clip.data)))
            req.send_header("X-Clip-Range", f"{clip.start:.2f}-{clip.end:.2f}")
            req.end_headers()
            req.wfile.write(clip.data)


def _json(req: BaseHTTPRequestHandler, code: int, detail: str) -> None:
    body = json.dumps({"detail": detail}).encode()
    req.send_response(code)
    req.send_header("Content-Type", "application/json")
    req.send_header("Content-Length", str(len(body)))
    if code == 401:
        req.send_header("WWW-Authenticate", "Bearer")
    req.end_headers()
    req.wfile.write(body)

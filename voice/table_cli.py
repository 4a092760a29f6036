"""`mjref voice verify AUDIO --claims CLAIMS.jsonl` and `mjref voice conduct AUDIO`: a table
recording (one channel per seat, or mono with ``--seat``) checked for spoken claims (WMC-5.2,
5.5, 5.7) and conduct sounds (WMC-13.6)."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from voice.audio_io import Audio, AudioReadError, read_table_audio
from voice.conduct import ConductDetectors, VenueCalibration, calibrate_venue
from voice.events import Seat
from voice.seats import ChannelMapError, SeatActivity, band_levels, channel_map
from voice.verify import Claim, ClaimError, ClaimVerifier, Spotter

EXIT_USAGE = 2


def register_table(sub: Any) -> None:
    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("audio", type=Path, metavar="AUDIO", help="multichannel WAV/FLAC")
        p.add_argument("--channels", help="seat of each channel, e.g. E,S,W,N (- for unused)")
        p.add_argument("--seat", choices=["E", "S", "W", "N"], help="the seat of a mono file")
        p.add_argument("--json", action="store_true", help="one JSON object per line")
        p.add_argument(
            "--calibrate-s",
            type=float,
            default=30.0,
            help="noise floors and clack level from the first seconds (default 30)",
        )

    ver = sub.add_parser("verify", help="were the recorded claims spoken, by whom, when")
    common(ver)
    ver.add_argument("--claims", type=Path, required=True, help="JSON lines: id, seat, kind, …")
    ver.add_argument("--no-words", action="store_true", help="skip the word spotter")
    ver.set_defaults(handler=run_verify)

    con = sub.add_parser("conduct", help="talking, slammed tiles, phones (WMC-13.6)")
    common(con)
    con.add_argument("--claims", type=Path, help="claims whose windows talking may use")
    con.add_argument("--clack-db", type=float, help="the venue's clack level (dBFS peak)")
    con.add_argument("--slam-db", type=float, default=12.0, help="dB over the clack = a slam")
    con.add_argument("--chatter-s", type=float, default=2.5, help="speech seconds = talking")
    con.set_defaults(handler=run_conduct)


def _fail(msg: str, code: int = 1) -> int:
    print(f"mjref voice: {msg}", file=sys.stderr)
    return code


def _load(args: argparse.Namespace) -> tuple[Audio, list[Seat | None], VenueCalibration]:
    audio = read_table_audio(args.audio)
    seats = channel_map(args.channels, audio.shape[1], args.seat)
    if audio.shape[1] == 1 and args.seat is None and args.channels is None:
        raise ChannelMapError("a mono file needs --seat (which seat's microphone it is)")
    return audio, seats, calibrate_venue(audio, args.calibrate_s)


def read_claims(path: Path) -> list[Claim]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ClaimError(f"{path}: cannot read ({exc.strerror or exc})") from exc
    except UnicodeDecodeError as exc:
        raise ClaimError(f"{path}: not UTF-8 text (expected JSON lines)") from exc
    out = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            out.append(Claim.from_json(json.loads(line)))
        except (json.JSONDecodeError, ClaimError) as exc:
            raise ClaimError(f"{path}:{n}: {exc}") from exc
    return out


def run_verify(args: argparse.Namespace) -> int:
    try:
        claims = read_claims(args.claims)
        audio, seats, cal = _load(args)
    except (AudioReadError, ChannelMapError, ClaimError) as exc:
        return _fail(str(exc), EXIT_USAGE)
    spotter = None
    if not args.no_words:
        from voice.encoder import SpeechEncoder
        from voice.head import OnnxHead, SpotterModelError

        try:
            from voice.config import REPO

            spotter = Spotter(OnnxHead(REPO / "models" / "voice_spotter.onnx"), SpeechEncoder())
        except (SpotterModelError, OSError) as exc:
            return _fail(f"word spotter: {exc} (use --no-words to check speech only)")
    act = SeatActivity(band_levels(audio), cal.floors, seats)
    verifier = ClaimVerifier(audio, act, seats, spotter=spotter, name=args.audio.name)
    for claim in claims:
        v = verifier.verify(claim)
        if args.json:
            print(json.dumps(v.to_json(), ensure_ascii=False), flush=True)
        else:
            said = {True: "spoken", False: "UNSPOKEN", None: "uncertain"}[v.spoken]
            word = f" {v.word} ({v.conf:.2f})" if v.word is not None and v.conf is not None else ""
            at = f" at {v.onset:.2f} s" if v.onset is not None else ""
            rule = f" [{v.rule}]" if v.rule else ""
            print(f"{v.id} {claim.seat} {claim.kind}: {said}{word}{at}{rule} — {v.reason}")
    return 0


def run_conduct(args: argparse.Namespace) -> int:
    try:
        claims = read_claims(args.claims) if args.claims else []
        audio, seats, cal = _load(args)
    except (AudioReadError, ChannelMapError, ClaimError) as exc:
        return _fail(str(exc), EXIT_USAGE)
    cal = replace(cal, slam_db=args.slam_db, chatter_s=args.chatter_s)
    if args.clack_db is not None:
        cal = replace(cal, clack_db=args.clack_db)
    det = ConductDetectors(
        cal,
        seats,
        name=args.audio.name,
        allowed_windows=[(c.t_discard, c.t_exposed) for c in claims],
        win_times=[(c.t_exposed, c.seat) for c in claims if c.kind in ("win", "selfdraw")],
    )
    for e in det.run(audio):
        if args.json:
            print(json.dumps(e.to_json(), ensure_ascii=False), flush=True)
        else:
            print(f"{e.t_start:8.2f} s  {e.kind:<8} seat {e.seat or '?'}  {e.detail}  [{e.rule}]")
    return 0

"""`mjref voice …`: spot calls in files, listen live, list devices, enrol a player."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from voice.audio_io import AudioReadError
from voice.config import ConfigError, VoiceConfig, load_config
from voice.events import WORDS, CallHeard

EXIT_USAGE = 2


def register(subparsers: Any) -> None:
    voice = subparsers.add_parser(
        "voice", help="spoken calls: spot, listen, devices, enrol; verify claims, conduct sounds"
    )
    sub = voice.add_subparsers(dest="voice_command", metavar="ACTION")
    sub.required = True

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--config", type=Path, help="voice TOML ([voice] table)")
        p.add_argument(
            "--engine", choices=["spotter", "vosk"], help="override the configured engine"
        )
        p.add_argument("--threshold", type=float, help="decision threshold (0-1)")
        p.add_argument("--players", help="comma-separated enrolled players to load")

    spot = sub.add_parser("spot", help="calls in audio files (WAV/FLAC), one result per file")
    spot.add_argument("files", nargs="+", type=Path, metavar="FILE")
    spot.add_argument("--json", action="store_true", help="one JSON line per file")
    common(spot)
    spot.set_defaults(handler=run_spot)

    listen = sub.add_parser("listen", help="print calls heard live")
    listen.add_argument("--device", help="input device index or name (see: mjref voice devices)")
    listen.add_argument("--channels", type=int, default=1, help="one microphone per seat")
    listen.add_argument("--seconds", type=float, help="stop after this long")
    listen.add_argument("--meter", action="store_true", help="print the input level every second")
    common(listen)
    listen.set_defaults(handler=run_listen)

    devices = sub.add_parser("devices", help="list audio input devices")
    devices.add_argument("--json", action="store_true")
    devices.set_defaults(handler=run_devices)

    from voice.table_cli import register_table

    register_table(sub)

    enrol = sub.add_parser("enrol", help="record a player's calls so the spotter adapts")
    enrol.add_argument("--player", required=True)
    enrol.add_argument("--lang", choices=["cmn", "yue", "en", "ja"], default="cmn")
    enrol.add_argument("--takes", type=int, default=3)
    enrol.add_argument("--device", help="input device index or name")
    enrol.add_argument(
        "--from-dir",
        type=Path,
        help="use recorded takes DIR/<word>_<n>.wav instead of the microphone",
    )
    enrol.add_argument("--profiles", type=Path, help="profile directory (default: from config)")
    enrol.add_argument("--config", type=Path)
    enrol.set_defaults(handler=run_enrol)


def _config(args: argparse.Namespace) -> VoiceConfig:
    cfg = load_config(getattr(args, "config", None))
    upd: dict[str, Any] = {}
    if getattr(args, "engine", None):
        upd["engine"] = args.engine
    if getattr(args, "threshold", None) is not None:
        upd["threshold"] = args.threshold
    if getattr(args, "players", None):
        upd["players"] = [p for p in args.players.split(",") if p]
    return cfg.model_copy(update=upd)


def _call_json(c: CallHeard) -> dict[str, Any]:
    return {
        "word": c.word,
        "lang": c.lang,
        "start": round(c.t_start, 3),
        "end": round(c.t_end, 3),
        "conf": round(c.conf, 3),
    }


def run_spot(args: argparse.Namespace) -> int:
    from voice.spot import spot_file

    try:
        cfg = _config(args)
    except ConfigError as exc:
        print(f"mjref voice: {exc}", file=sys.stderr)
        return EXIT_USAGE
    failed = 0
    for path in args.files:
        try:
            calls = spot_file(path, cfg)
        except AudioReadError as exc:
            failed += 1
            if args.json:
                print(
                    json.dumps({"file": str(path), "error": str(exc)}, ensure_ascii=False),
                    flush=True,
                )
            else:
                print(f"{path}: error: {exc}", file=sys.stderr)
            continue
        except Exception as exc:  # a model or setup error stops everything: say it once
            print(f"mjref voice: {exc}", file=sys.stderr)
            return 1
        if args.json:
            line = {"file": str(path), "calls": [_call_json(c) for c in calls]}
            print(json.dumps(line, ensure_ascii=False), flush=True)
        else:
            print(f"{path}: {len(calls)} call(s)")
            for c in calls:
                seat = c.seat or "?"
                print(
                    f"  {c.t_start:7.2f}-{c.t_end:6.2f} s  {c.word:<8} {c.lang:<3} seat {seat} "
                    f"conf {c.conf:.2f}"
                )
    return 1 if failed else 0


def _device(value: str | None) -> int | str | None:
    if value is None:
        return None
    return int(value) if value.isdigit() else value


def run_listen(args: argparse.Namespace) -> int:
    import numpy as np

    from voice.engines import build_detectors
    from voice.pipeline import CallPipeline
    from voice.sources import LiveSource, level_dbfs

    cfg = _config(args)
    src = LiveSource(_device(args.device), channels=args.channels)
    pipe = CallPipeline(build_detectors(cfg, args.channels), seats=cfg.seats)
    src.start()
    started = time.monotonic()
    next_meter = 1.0
    try:
        for block in src:
            for alert in block.alerts:
                print(f"ALERT {alert.kind}: {alert.detail}", file=sys.stderr, flush=True)
            if len(block.data) == 0:
                continue
            pipe.t0 = src.t0 or 0.0
            if block.start > pipe.samples:  # blocks were lost (alerted): keep time with silence
                pipe.feed(np.zeros((block.start - pipe.samples, args.channels), np.float32))
            for call in pipe.feed(block.data):
                print(call.model_dump_json(), flush=True)
            elapsed = block.start / 16000
            if args.meter and elapsed >= next_meter:
                print(f"level dBFS {level_dbfs(block.data)}", file=sys.stderr, flush=True)
                next_meter += 1.0
            if args.seconds is not None and time.monotonic() - started >= args.seconds:
                break
    except KeyboardInterrupt:
        pass
    finally:
        src.stop()
    return 0


def run_devices(args: argparse.Namespace) -> int:
    from voice.sources import list_devices

    try:
        devs = list_devices()
    except OSError as exc:  # PortAudio missing (Debian libportaudio2)
        print(f"mjref voice: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(devs, ensure_ascii=False))
    elif not devs:
        print("no audio input devices")
    for d in [] if args.json else devs:
        print(
            f"{d['index']:>3}  {d['name']}  ({d['channels']} ch, {d['default_samplerate']:.0f} Hz)"
        )
    return 0


def run_enrol(args: argparse.Namespace) -> int:
    from voice.audio_io import read_audio
    from voice.encoder import SpeechEncoder
    from voice.enrol import EnrolError, build_profile
    from voice.head import CLASSES

    cfg = load_config(args.config)
    profiles = args.profiles or cfg.profiles_dir
    takes = []
    try:
        for word in WORDS:
            label = CLASSES.index(f"{args.lang}:{word}")
            if args.from_dir is not None:
                files = sorted(args.from_dir.glob(f"{word}_*.wav")) + sorted(
                    args.from_dir.glob(f"{word}_*.flac")
                )
                takes += [(label, read_audio(f, mono=True)) for f in files]
            else:
                takes += [(label, _record(args, word, k)) for k in range(args.takes)]
        if not takes:
            raise EnrolError("no takes found")
        profile = build_profile(SpeechEncoder(), args.player, takes)
    except (EnrolError, AudioReadError) as exc:
        print(f"mjref voice enrol: {exc}", file=sys.stderr)
        return 1
    path = profile.save(profiles)
    print(f"enrolled {args.player}: {len(takes)} takes, {len(profile.labels)} windows → {path}")
    return 0


def _record(args: argparse.Namespace, word: str, k: int) -> Any:
    from voice.sources import LiveSource

    print(f"say '{word}' ({args.lang}) — take {k + 1}/{args.takes}", flush=True)
    src = LiveSource(_device(args.device), channels=1)
    src.start()
    blocks = []
    try:
        for block in src:
            blocks.append(block.data[:, 0])
            if block.start >= 2 * 16000:
                break
    finally:
        src.stop()
    import numpy as np

    return np.concatenate(blocks) if blocks else np.zeros(0, np.float32)

"""`mjref voice …`: spot calls in files, listen live, list devices, enrol a player."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from referee.cli_support import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, cannot_write, float_in, int_in
from voice.audio_io import AudioReadError
from voice.config import ConfigError, VoiceConfig, load_config
from voice.events import WORDS, CallHeard


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
        p.add_argument("--threshold", type=float_in(0.0, 1.0), help="decision threshold (0-1)")
        p.add_argument("--players", help="comma-separated enrolled players to load")

    spot = sub.add_parser("spot", help="calls in audio files (WAV/FLAC), one result per file")
    spot.add_argument("files", nargs="+", type=Path, metavar="FILE")
    spot.add_argument("--json", action="store_true", help="one JSON line per file")
    common(spot)
    spot.set_defaults(handler=run_spot)

    listen = sub.add_parser("listen", help="print calls heard live")
    listen.add_argument("--device", help="input device index or name (see: mjref voice devices)")
    listen.add_argument(
        "--channels", type=int_in(1, 32), default=1, help="one microphone per seat (1-32)"
    )
    listen.add_argument("--seconds", type=float_in(0.0, above=True), help="stop after this long")
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
    enrol.add_argument("--takes", type=int_in(1, 20), default=3, help="takes per call (1-20)")
    enrol.add_argument("--device", help="input device index or name")
    enrol.add_argument(
        "--from-dir",
        type=Path,
        help="use recorded takes DIR/<word>_<n>.wav instead of the microphone",
    )
    enrol.add_argument("--profiles", type=Path, help="profile directory (default: from config)")
    enrol.add_argument("--config", type=Path)
    enrol.set_defaults(handler=run_enrol)


def _setup_errors() -> tuple[type[Exception], ...]:
    """What a bad configuration, model, profile or device raises: one line, then stop."""
    from voice.encoder import EncoderError
    from voice.enrol import EnrolError
    from voice.head import SpotterModelError
    from voice.sources import AudioDeviceError
    from voice.vocab import VocabError
    from voice.vosk_engine import VoskSetupError

    return (
        ConfigError,
        EncoderError,
        EnrolError,
        SpotterModelError,
        AudioDeviceError,
        VocabError,
        VoskSetupError,
    )


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
        print(f"mjref voice spot: {exc}", file=sys.stderr)
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
                print(f"mjref voice spot: {exc}", file=sys.stderr)
            continue
        except _setup_errors() as exc:  # a model or setup error stops everything: say it once
            print(f"mjref voice spot: {exc}", file=sys.stderr)
            return EXIT_USAGE
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
    return EXIT_FINDINGS if failed else EXIT_OK


def _device(value: str | None) -> int | str | None:
    if value is None:
        return None
    return int(value) if value.isdigit() else value


def run_listen(args: argparse.Namespace) -> int:
    import numpy as np

    from voice.engines import build_detectors
    from voice.pipeline import CallPipeline
    from voice.sources import LiveSource, level_dbfs

    src = LiveSource(_device(args.device), channels=args.channels)
    try:
        cfg = _config(args)
        pipe = CallPipeline(build_detectors(cfg, args.channels), seats=cfg.seats)
        src.start()
    except _setup_errors() as exc:
        print(f"mjref voice listen: {exc}", file=sys.stderr)
        return EXIT_USAGE
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
        print(f"mjref voice devices: {exc}", file=sys.stderr)
        return EXIT_USAGE
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
    """2 for a bad argument, configuration or take file; 1 when the takes hold no usable call."""
    from voice.encoder import SpeechEncoder
    from voice.enrol import EnrolError, build_profile, check_player

    # an argument, a take file or a setup that will not do
    unusable: tuple[type[Exception], ...] = (AudioReadError, *_setup_errors())
    try:
        check_player(args.player)
        cfg = load_config(args.config)
        if args.from_dir is not None and not args.from_dir.is_dir():
            raise EnrolError(f"--from-dir {args.from_dir}: expected a folder of <word>_<n>.wav")
        takes = _takes(args)
        if not takes:
            raise EnrolError(
                f"no takes found in {args.from_dir} (expected {WORDS[0]}_1.wav and the like)"
            )
        encoder = SpeechEncoder()
    except unusable as exc:
        print(f"mjref voice enrol: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        profile = build_profile(encoder, args.player, takes)
    except EnrolError as exc:
        print(f"mjref voice enrol: {exc}", file=sys.stderr)
        return EXIT_FINDINGS
    profiles = args.profiles or cfg.profiles_dir
    try:
        path = profile.save(profiles)
    except OSError as exc:
        print(f"mjref voice enrol: {cannot_write(profiles, exc)}", file=sys.stderr)
        return EXIT_USAGE
    print(f"enrolled {args.player}: {len(takes)} takes, {len(profile.labels)} windows → {path}")
    return EXIT_OK


def _takes(args: argparse.Namespace) -> list[tuple[int, Any]]:
    """(class index, audio) per take: the files of --from-dir, else recorded now."""
    from voice.audio_io import read_audio
    from voice.head import CLASSES

    takes = []
    for word in WORDS:
        label = CLASSES.index(f"{args.lang}:{word}")
        if args.from_dir is not None:
            files = sorted(args.from_dir.glob(f"{word}_*.wav")) + sorted(
                args.from_dir.glob(f"{word}_*.flac")
            )
            takes += [(label, read_audio(f, mono=True)) for f in files]
        else:
            takes += [(label, _record(args, word, k)) for k in range(args.takes)]
    return takes


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

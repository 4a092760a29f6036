"""The rig's configuration: one TOML file (``tomllib``), validated by pydantic.

Every section has defaults, so no file is needed for a simulated table with the in-process bus.
Problems are reported all at once, one line each, naming the file, the key and the expected form
(:class:`ConfigError`); ``mjref rig`` exits 2 on them. A configured device that is not there
(a serial port, an audio or observation file) is such a problem too.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

Seat = Literal["E", "S", "W", "N"]
NAME = r"^[A-Za-z0-9_.-]+$"
"""A table, session or venue name: letters, digits, ``_ . -`` (a topic level, a folder)."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TableSection(_Section):
    id: str = Field(default="T1", pattern=NAME)
    session: str = Field(default="S1", pattern=NAME)
    venue: str = Field(default="local", pattern=NAME)
    profile: Literal["wmc", "zj33", "mcr"] = "wmc"
    log: Path = Path("build/rig/table.sqlite")


class BusSection(_Section):
    mqtt: str | None = None  # mqtt://HOST[:PORT]; none: the in-process bus
    status_every: float = Field(default=2.0, gt=0)
    state_every: float = Field(default=0.2, gt=0)


class LinkSection(_Section):
    port: str  # a serial device path or tcp://HOST:PORT
    silent_after: float = Field(default=30.0, gt=0)


class VoiceSection(_Section):
    file: Path | None = None  # a WAV/FLAC file played as the microphone
    device: str | None = None  # a sounddevice input (index or name); "default"
    channels: int = Field(default=1, ge=1, le=8)
    seats: list[Seat] | None = None  # the chair (venue wind) each channel's microphone faces
    realtime: bool = True  # a file is heard at the pace of its samples
    threshold: float | None = Field(default=None, gt=0, lt=1)
    silent_after: float = Field(default=10.0, gt=0)
    calibrate_s: float = Field(default=30.0, gt=0)  # noise floors from the session's first s
    # the table's cross-talk and voices as `mjref rig --check --hear-table` heard them (used
    # when the file is there; the session refines it in play)
    acoustics: Path = Path("build/rig/acoustics.json")


class CameraSection(_Section):
    source: str | None = None  # the camera: a video file, a camera index (0) or rtsp://…
    file: Path | None = None  # or a recorded observation/event file (JSONL) standing in for it
    follow: bool = False  # file: keep reading lines appended later
    realtime: bool = True  # source file: each frame at its time (a recording played as live)
    calibration: Path | None = None  # source: a saved calibration (else from the markers)
    models: Path | None = None  # source: the recognizer's ONNX folder (default: models/)
    silent_after: float = Field(default=60.0, gt=0)


class VisionSection(_Section):
    profile: Path | None = None  # a venue profile folder (mjref tiles enrol); none: shipped models


class SuperviseSection(_Section):
    backoff_min: float = Field(default=0.2, gt=0)
    backoff_max: float = Field(default=10.0, gt=0)


class MetricsSection(_Section):
    port: int = Field(default=0, ge=0, le=65535)  # /metrics over HTTP; 0: only in the status


class EvidenceSection(_Section):
    """Recording (rig/evidence): a ring of camera/microphone segments and the clip server."""

    enabled: bool = True
    dir: Path = Path("build/rig/evidence")
    budget_gb: float | None = Field(default=20.0, gt=0)
    budget_hours: float | None = Field(default=None, gt=0)
    segment_s: float = Field(default=10.0, ge=1, le=600)
    pin_before: float = Field(default=30.0, ge=0)  # kept around an alert, a proposal, a win
    pin_after: float = Field(default=10.0, ge=0)
    video_file: Path | None = None  # a video file played as the camera (recorded as it plays)
    host: str = "0.0.0.0"  # the clip server (for the dashboard)
    port: int = Field(default=0, ge=0, le=65535)  # 0: a free port
    advertise: str | None = None  # the host name the dashboard reaches (default: host)
    token: str = Field(default="", max_length=200)  # the dashboard's token; empty: no server


class RigConfig(_Section):
    table: TableSection = TableSection()
    bus: BusSection = BusSection()
    table_link: LinkSection | None = None
    voice: VoiceSection | None = None
    camera: CameraSection | None = None
    vision: VisionSection = VisionSection()
    supervise: SuperviseSection = SuperviseSection()
    metrics: MetricsSection = MetricsSection()
    evidence: EvidenceSection | None = None


class ConfigError(ValueError):
    """Every problem of one configuration, one line each."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


_EXPECTED = {
    "table_link.port": "a serial device path or tcp://HOST:PORT",
    "bus.mqtt": "mqtt://HOST[:PORT]",
}


def _key(loc: tuple[int | str, ...]) -> str:
    return ".".join(str(p) for p in loc)


def _section_keys(loc: tuple[int | str, ...]) -> str:
    model: type[BaseModel] = RigConfig
    for part in loc[:-1]:
        field = model.model_fields.get(str(part))
        inner = getattr(field, "annotation", None)
        for candidate in (inner, *getattr(inner, "__args__", ())):
            if isinstance(candidate, type) and issubclass(candidate, BaseModel):
                model = candidate
                break
        else:
            break
    return ", ".join(model.model_fields)


def _problem(err: Any, where: str) -> str:
    loc = tuple(err["loc"])
    key = _key(loc) or "(top level)"
    kind = err["type"]
    if kind == "extra_forbidden":
        return f"{where}: unknown key {key}; expected one of: {_section_keys(loc)}"
    if kind == "missing":
        return f"{where}: {key} is missing; expected {_EXPECTED.get(key, 'a value')}"
    return f"{where}: {key} = {err.get('input')!r}: {err['msg']}"


def _str(data: dict[str, Any], section: str, key: str) -> str | None:
    value = data.get(section, {})
    value = value.get(key) if isinstance(value, dict) else None
    return value if isinstance(value, str) else None


def _devices(data: dict[str, Any], base: Path, where: str) -> list[str]:
    """Configured devices that are not there, read from the raw file so that they are reported
    beside the other problems (tcp links and microphones are probed by ``--check``)."""
    out = []
    port = _str(data, "table_link", "port")
    if port is not None and "://" not in port and not Path(port).exists():
        out.append(
            f"{where}: table_link.port = {port!r}: no such device; expected "
            f"{_EXPECTED['table_link.port']}"
        )
    files = (
        ("voice", "file", "a WAV/FLAC file"),
        ("camera", "file", "a JSONL file of events"),
        ("evidence", "video_file", "a video file"),
    )
    for section, key, what in files:
        file = _str(data, section, key)
        if file is not None and not (base / file).is_file():
            out.append(f"{where}: {section}.{key} = {file!r}: no such file; expected {what}")
    out += _audio_file(data, base, where)
    voice = data.get("voice")
    if isinstance(voice, dict) and ("file" in voice) == ("device" in voice):
        out.append(f"{where}: voice needs exactly one of file (a WAV/FLAC file) or device")
    camera = data.get("camera")
    if isinstance(camera, dict) and ("file" in camera) == ("source" in camera):
        out.append(
            f"{where}: camera needs exactly one of source (a video file, a camera index or "
            "rtsp:// URL) or file (a JSONL file of events)"
        )
    source = _str(data, "camera", "source")
    local = source is not None and not source.isdigit() and "://" not in source
    if local and source is not None and not (base / source).is_file():
        out.append(
            f"{where}: camera.source = {source!r}: no such video file; expected a video "
            "file, a camera index such as 0, or an rtsp:// URL"
        )
    profile = _str(data, "vision", "profile")
    if profile is not None:
        out += _profile_problems(base / profile, where)
    mqtt = _str(data, "bus", "mqtt")
    if mqtt is not None:
        from rig.bus.mqtt import parse_url

        try:
            parse_url(mqtt)
        except ValueError as exc:
            out.append(f"{where}: bus.mqtt = {mqtt!r}: {exc}")
    return out


def _audio_file(data: dict[str, Any], base: Path, where: str) -> list[str]:
    """A configured audio file the table checks cannot hear: corrupt, under 16 kHz, or with
    another number of channels than ``voice.channels``."""
    file = _str(data, "voice", "file")
    if file is None or not (base / file).is_file():
        return []
    from voice.audio_io import AudioReadError, check_table_audio

    try:
        _rate, channels = check_table_audio(base / file)
    except AudioReadError as exc:
        return [f"{where}: voice.file = {file!r}: {str(exc).partition(': ')[2] or exc}"]
    want = data["voice"].get("channels", 1)
    if isinstance(want, int) and channels != want:
        return [
            f"{where}: voice.file = {file!r} has {channels} channel(s); expected voice.channels "
            f"= {want} (one per microphone)"
        ]
    return []


def _profile_problems(folder: Path, where: str) -> list[str]:
    """A venue profile that is not there, corrupt, or fitted against other tile models."""
    from vision.detect import CLASSIFIER_FILE, DETECTOR_FILE, MODELS_DIR
    from vision.profile import ProfileError, VenueProfile

    try:
        profile = VenueProfile.load(folder)
        models = {name: MODELS_DIR / name for name in (DETECTOR_FILE, CLASSIFIER_FILE)}
        profile.check_models(folder, models)
    except ProfileError as exc:
        return [f"{where}: vision.profile: {line}" for line in str(exc).splitlines()]
    return []


def _seats(cfg: RigConfig, where: str) -> list[str]:
    voice = cfg.voice
    if voice is None or voice.seats is None or len(voice.seats) == voice.channels:
        return []
    return [
        f"{where}: voice.seats has {len(voice.seats)} seat(s) for {voice.channels} channel(s); "
        "expected one seat per channel"
    ]


def resolve(cfg: RigConfig, base: Path) -> RigConfig:
    """Relative paths are relative to the config file's folder."""
    table = cfg.table.model_copy(update={"log": base / cfg.table.log})
    update: dict[str, Any] = {"table": table}
    if cfg.voice is not None:
        heard = {"acoustics": base / cfg.voice.acoustics}
        if cfg.voice.file is not None:
            heard["file"] = base / cfg.voice.file
        update["voice"] = cfg.voice.model_copy(update=heard)
    if cfg.camera is not None:
        cam, paths = cfg.camera, dict[str, Any]()
        for key in ("file", "calibration", "models"):
            if getattr(cam, key) is not None:
                paths[key] = base / getattr(cam, key)
        if cam.source is not None and not cam.source.isdigit() and "://" not in cam.source:
            paths["source"] = str(base / cam.source)
        update["camera"] = cam.model_copy(update=paths)
    if cfg.evidence is not None:
        ev = cfg.evidence
        video = None if ev.video_file is None else base / ev.video_file
        update["evidence"] = ev.model_copy(update={"dir": base / ev.dir, "video_file": video})
    if cfg.vision.profile is not None:
        update["vision"] = cfg.vision.model_copy(update={"profile": base / cfg.vision.profile})
    return cfg.model_copy(update=update)


def parse(data: dict[str, Any], where: str = "<defaults>", base: Path | None = None) -> RigConfig:
    base = base or Path.cwd()
    problems: list[str] = []
    cfg: RigConfig | None = None
    try:
        cfg = RigConfig.model_validate(data)
    except ValidationError as exc:
        problems += [_problem(e, where) for e in exc.errors()]
    problems += _devices(data, base, where)
    if cfg is not None:
        problems += _seats(cfg, where)
    if problems or cfg is None:
        raise ConfigError(problems)
    return resolve(cfg, base)


def load(path: Path | None) -> RigConfig:
    """The file's configuration, or the embedded defaults when ``path`` is None."""
    if path is None:
        return parse({})
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError([f"{path}: cannot read: {exc.strerror}"]) from None
    except UnicodeDecodeError as exc:
        raise ConfigError([f"{path}: not UTF-8 text (byte {exc.start}); expected TOML"]) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError([f"{path}: not TOML: {exc}"]) from None
    return parse(data, str(path), path.parent)

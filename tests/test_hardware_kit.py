"""The venue kit in hardware/ stays true to the code: the systemd units run real `mjref` commands
with real options, the udev rule and the broker files are well formed, and the per-table ACL
holds on a real mosquitto (a rig writes its own table only; the dashboard reads all, writes cmd/).
"""

from __future__ import annotations

import configparser
import getpass
import importlib
import queue
import re
import shlex
import shutil
import socket
import subprocess
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

KIT = Path(__file__).resolve().parent.parent / "hardware"
UNITS = ("mjref-rig.service", "mjref-dashboard.service")
MOSQUITTO_KEYS = {  # the mosquitto.conf(5) options the kit may use
    "listener", "per_listener_settings", "allow_anonymous", "password_file", "acl_file",
    "persistence", "persistence_location", "autosave_interval", "max_inflight_messages",
    "max_queued_messages", "message_size_limit", "set_tcp_nodelay", "user", "log_dest",
    "log_type", "connection_messages",
}  # fmt: skip
UDEV_MATCH = {"SUBSYSTEM", "SUBSYSTEMS", "KERNEL", "ACTION", "ATTRS", "ATTR", "ENV", "DRIVERS"}
UDEV_ASSIGN = {"SYMLINK", "GROUP", "MODE", "OWNER", "ENV", "TAG"}
UDEV_PAIR = re.compile(r'^([A-Z_]+)(\{[A-Za-z0-9_]+\})?(==|!=|\+=|:=|=)"([^"]*)"$')


def unit(name: str) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    parser.read_string((KIT / "systemd" / name).read_text(encoding="utf-8"))
    return parser


def mjref_parser() -> Any:
    for module in ("rig.cli", "referee.cli"):  # the CLI root moves to rig/ with the rig
        try:
            return importlib.import_module(module).build_parser()
        except ModuleNotFoundError:
            continue
    pytest.fail("no module builds the mjref parser (rig.cli or referee.cli)")


@pytest.mark.parametrize("name", UNITS)
def test_unit_runs_as_a_user_restarts_with_backoff_and_is_hardened(name: str) -> None:
    u = unit(name)
    service = u["Service"]
    assert service["User"] == "mjref" and service["Restart"] == "on-failure"
    assert float(service["RestartSec"]) > 0 and int(service["RestartMaxDelaySec"]) > 2
    assert "WatchdogSec" not in service, "mjref does not call sd_notify"
    assert "network-online.target" in u["Unit"]["After"].split()
    assert service["NoNewPrivileges"] == "yes" and service["PrivateTmp"] == "yes"
    assert service["ProtectSystem"] == "strict"
    assert "/var/lib/mjref" in service["ReadWritePaths"].split()
    assert u["Install"]["WantedBy"] == "multi-user.target"


# What systemd-analyze may say of the kit: the back-off keys need systemd 254+ (older ones ignore
# them), and /opt/mjref is not installed on a test machine.
VERIFY_EXPECTED = re.compile(
    r"Unknown key '(RestartSteps|RestartMaxDelaySec)'|/opt/mjref/\.venv/bin/mjref is not executable"
)


def test_systemd_analyze_knows_every_key(tmp_path: Path) -> None:
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed")
    dropin = tmp_path / "mosquitto.service.d"
    dropin.mkdir()
    shutil.copy(KIT / "systemd" / "mosquitto-mjref.conf", dropin / "mjref.conf")
    (tmp_path / "mosquitto.service").write_text(
        "[Service]\nType=notify\nExecStart=/bin/true\n", encoding="utf-8"
    )
    for name in UNITS:
        shutil.copy(KIT / "systemd" / name, tmp_path / name)
    names = [str(tmp_path / n) for n in (*UNITS, "mosquitto.service")]
    out = subprocess.run(
        ["systemd-analyze", "verify", *names],
        capture_output=True,
        text=True,
        env={"SYSTEMD_UNIT_PATH": f"{tmp_path}:", "PATH": "/usr/bin:/bin"},
        timeout=60,
    )
    said = [line for line in (out.stdout + out.stderr).splitlines() if line.strip()]
    assert [line for line in said if not VERIFY_EXPECTED.search(line)] == []


@pytest.mark.parametrize(
    ("name", "command"), [("mjref-rig.service", "rig"), ("mjref-dashboard.service", "dashboard")]
)
def test_unit_commands_parse_with_the_mjref_cli(name: str, command: str) -> None:
    service = unit(name)["Service"]
    lines = [service[k] for k in ("ExecStartPre", "ExecStart") if k in service]
    parser = mjref_parser()
    known = parser._subparsers._group_actions[0].choices  # the subcommands
    if command not in known:
        pytest.skip(f"`mjref {command}` is not on this branch yet (its branch adds it)")
    for line in lines:
        argv = shlex.split(line)
        assert argv[0] == "/opt/mjref/.venv/bin/mjref" and argv[1] == command
        try:
            parser.parse_args(argv[1:])
        except SystemExit:
            pytest.fail(f"{name}: `{line}` is not a valid mjref command line")
    if command == "rig":
        assert "--config /etc/mjref/table.toml" in service["ExecStart"]


def test_rig_config_example_is_valid_and_names_the_kit_paths() -> None:
    data = tomllib.loads((KIT / "table.toml").read_text(encoding="utf-8"))
    assert data["table_link"]["port"] == "/dev/mjref-table"
    assert data["table"]["log"].startswith("/var/lib/mjref/")
    assert len(data["voice"]["seats"]) == data["voice"]["channels"] == 4
    try:
        config = importlib.import_module("rig.config")
    except ModuleNotFoundError:
        pytest.skip("rig.config is not on this branch yet: the keys are checked once it is")
    config.RigConfig.model_validate(data)  # every key known, every value of its form


def udev_rules() -> list[list[tuple[str, str, str, str]]]:
    rules = []
    for line in (KIT / "udev" / "99-mjref-table.rules").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            pairs = []
            for token in (t.strip() for t in line.split(",")):
                m = UDEV_PAIR.match(token)
                assert m, f"not a udev key==value / key=value pair: {token!r}"
                key, attr, op, value = m.groups()
                allowed = UDEV_MATCH if op in ("==", "!=") else UDEV_ASSIGN
                assert key in allowed, f"{token}: {key} is not a udev key used with {op}"
                pairs.append((key + (attr or ""), op, value, token))
            rules.append(pairs)
    return rules


def test_udev_rule_names_the_adapter_for_the_rig_group() -> None:
    (rule,) = udev_rules()
    got = {(k, op): v for k, op, v, _ in rule}
    assert got[("SUBSYSTEM", "==")] == "tty"
    assert re.fullmatch(r"[0-9a-f]{4}", got[("ATTRS{idVendor}", "==")])
    assert re.fullmatch(r"[0-9a-f]{4}", got[("ATTRS{idProduct}", "==")])
    assert got[("SYMLINK", "+=")] == "mjref-table"
    assert got[("GROUP", "=")] == unit("mjref-rig.service")["Service"]["Group"]
    assert got[("MODE", "=")] == "0660"


def conf_lines(path: Path) -> list[list[str]]:
    text = path.read_text(encoding="utf-8").splitlines()
    return [line.split() for line in text if line.strip() and not line.startswith("#")]


def test_mosquitto_conf_uses_known_options_and_requires_a_login() -> None:
    lines = conf_lines(KIT / "mosquitto" / "mosquitto.conf")
    unknown = {words[0] for words in lines} - MOSQUITTO_KEYS
    assert not unknown, f"not in the mosquitto option allow-list: {unknown}"
    options = {words[0]: words[1:] for words in lines}
    assert options["allow_anonymous"] == ["false"] and options["persistence"] == ["true"]
    assert options["acl_file"] == ["/etc/mosquitto/mjref.acl"]


def test_acl_gives_each_rig_its_own_table_and_the_dashboard_cmd() -> None:
    venue = tomllib.loads((KIT / "table.toml").read_text(encoding="utf-8"))["table"]["venue"]
    lines = conf_lines(KIT / "mosquitto" / "mjref.acl")
    assert ["pattern", "readwrite", f"mjref/v1/{venue}/%u/#"] in lines
    dashboard = lines[lines.index(["user", "dashboard"]) + 1 :][:2]
    assert dashboard == [["topic", "read", "mjref/v1/#"], ["topic", "write", "mjref/v1/+/+/cmd/#"]]
    try:
        bus = importlib.import_module("rig.bus")
    except ModuleNotFoundError:
        return
    for kind in ("status", "state", "events", "alerts"):  # what a rig publishes
        assert bus.topic(venue, "T01", kind).startswith(f"mjref/v1/{venue}/T01/")
    assert bus.topic(venue, "T01", "cmd", "ping").startswith(f"mjref/v1/{venue}/T01/cmd/")


# --- the ACL on a real broker ---------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[int]:
    """The kit's mosquitto.conf and ACL, moved to a free port and a temp folder."""
    if shutil.which("mosquitto") is None or shutil.which("mosquitto_passwd") is None:
        pytest.skip("mosquitto is not installed (Debian: mosquitto)")
    passwd = tmp_path / "passwd"
    for user in ("T01", "T02", "dashboard"):
        subprocess.run(
            ["mosquitto_passwd", "-b", *(["-c"] if user == "T01" else []), str(passwd), user, "pw"],
            check=True,
            capture_output=True,
        )
    acl = tmp_path / "acl"
    shutil.copy(KIT / "mosquitto" / "mjref.acl", acl)
    port = free_port()
    moved = {
        "password_file": str(passwd),
        "acl_file": str(acl),
        "persistence_location": f"{tmp_path}/",
        "user": getpass.getuser(),
        "log_dest": "stderr",
    }
    out, listened = [], False
    for words in conf_lines(KIT / "mosquitto" / "mosquitto.conf"):
        if words[0] == "listener":
            out += [] if listened else [f"listener {port} 127.0.0.1"]
            listened = True
        else:
            out.append(f"{words[0]} {moved.get(words[0], ' '.join(words[1:]))}")
    conf = tmp_path / "mosquitto.conf"
    conf.write_text("\n".join(out) + "\n", encoding="utf-8")
    proc = subprocess.Popen(["mosquitto", "-c", str(conf)], stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"mosquitto refused the kit's configuration: {proc.stderr.read()}")
                time.sleep(0.05)  # waiting on a real process to listen
        yield port
    finally:
        proc.terminate()
        proc.wait(10)
        proc.stderr.close()


class Client:
    """A paho client that logs in and collects the topics it receives, in order."""

    def __init__(self, port: int, user: str | None, subscribe: str | None = None) -> None:
        mqtt = pytest.importorskip("paho.mqtt.client")
        self.got: queue.Queue[str] = queue.Queue()
        acks: queue.Queue[int] = queue.Queue()
        self.c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"test-{user}")
        if user is not None:
            self.c.username_pw_set(user, "pw")
        self.c.on_connect = lambda c, u, f, rc, p: acks.put(rc.value)
        self.c.on_subscribe = lambda c, u, mid, rcs, p: acks.put(0)
        self.c.on_message = lambda c, u, m: self.got.put(m.topic)
        self.c.connect("127.0.0.1", port)
        self.c.loop_start()
        self.rc = acks.get(timeout=10)
        if subscribe is not None and self.rc == 0:
            self.c.subscribe(subscribe, qos=1)
            acks.get(timeout=10)  # the SUBACK: subscribed from here on

    def publish(self, topic: str) -> None:
        self.c.publish(topic, "{}", qos=1).wait_for_publish(10)

    def next(self) -> str:
        return self.got.get(timeout=10)

    def close(self) -> None:
        self.c.loop_stop()
        self.c.disconnect()


@pytest.mark.slow
def test_acl_on_a_real_broker(broker: int) -> None:
    """The broker handles one client's messages in order: a forbidden publish followed by an
    allowed one would arrive first if it were let through."""
    anonymous = Client(broker, None)
    anonymous.close()
    assert anonymous.rc != 0, "an anonymous client must be refused"
    base = "mjref/v1/hall1"
    dash = Client(broker, "dashboard", "mjref/v1/#")
    rig = Client(broker, "T01", f"{base}/T01/#")
    other = Client(broker, "T02", f"{base}/#")  # tries to read every table
    try:
        rig.publish(f"{base}/T02/events")  # another table's: dropped
        rig.publish(f"{base}/T01/events")
        assert dash.next() == f"{base}/T01/events"
        assert rig.next() == f"{base}/T01/events"
        dash.publish(f"{base}/T01/events")  # the dashboard writes no events: dropped
        dash.publish(f"{base}/T01/cmd/ping")
        assert rig.next() == f"{base}/T01/cmd/ping"
        assert dash.next() == f"{base}/T01/cmd/ping"
        other.publish(f"{base}/T02/status")
        assert other.next() == f"{base}/T02/status"  # and nothing of T01's before it
        assert dash.next() == f"{base}/T02/status"
        assert dash.got.empty() and rig.got.empty() and other.got.empty()
    finally:
        for client in (dash, rig, other):
            client.close()


@pytest.mark.slow
def test_a_rig_logs_in_to_the_kit_broker_with_its_url(broker: int) -> None:
    """The rig's own bus gives the login of ``mqtt://T01:pw@HOST:PORT``: the kit's broker,
    which refuses anonymous clients, takes it and lets it write its own table."""
    import asyncio

    from rig.bus.mqtt import MqttBus

    dash = Client(broker, "dashboard", "mjref/v1/#")

    async def publish() -> str:
        bus = MqttBus(f"mqtt://T01:pw@127.0.0.1:{broker}", "hall1", timeout=5.0)
        await bus.start()
        try:
            assert await bus.wait_connected(10), "the broker refused the rig's login"
            await bus.publish_event("T01", {"seq": 0})
            return bus.url
        finally:
            await bus.close()

    try:
        shown = asyncio.run(publish())
        assert dash.next() == "mjref/v1/hall1/T01/events"
        assert "pw" not in shown and "T01:***@" in shown  # never the password in logs
    finally:
        dash.close()

"""`mjref rig --config`: a bad file gets one clear line per problem and exit 2; no file needs
none (the embedded defaults); `--check` probes what is configured."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from rig.cli import main as mjref
from rig.config import ConfigError, load
from table_io.sim.endpoints import PtyEndpoint
from table_io.sim.fake_table import FakeTable


def test_a_bad_file_gets_one_error_per_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = tmp_path / "table.toml"
    cfg.write_text(
        '[table]\nid = "T1"\ncolour = "red"\n'  # an unknown key
        '[bus]\nstatus_every = "often"\n'  # a wrong type
        '[table_link]\nport = "/dev/mjref-no-such-table"\n'  # a missing device
        '[camera]\nfile = "missing.jsonl"\n',  # a missing file
        encoding="utf-8",
    )
    code = mjref(["rig", "--config", str(cfg)])
    err = capsys.readouterr().err.splitlines()
    assert code == 2
    assert len(err) == 4, err
    assert all(line.startswith(f"mjref rig: {cfg}: ") for line in err)
    unknown, wrong, device, camera = sorted(
        err, key=lambda x: ("colour" not in x, "status" not in x, "port" not in x)
    )
    assert "unknown key table.colour; expected one of: id, session, venue, profile, log" in unknown
    assert "bus.status_every = 'often'" in wrong and "number" in wrong
    assert "table_link.port = '/dev/mjref-no-such-table': no such device" in device
    assert "tcp://HOST:PORT" in device
    assert "camera.file = 'missing.jsonl': no such file" in camera
    assert "Traceback" not in "".join(err)


def test_missing_required_key_and_not_toml(tmp_path: Path) -> None:
    cfg = tmp_path / "a.toml"
    cfg.write_text("[table_link]\nsilent_after = 5\n", encoding="utf-8")
    with pytest.raises(ConfigError) as exc:
        load(cfg)
    assert exc.value.problems == [
        f"{cfg}: table_link.port is missing; expected a serial device path or tcp://HOST:PORT"
    ]
    cfg.write_text("[table\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="not TOML"):
        load(cfg)
    with pytest.raises(ConfigError, match="cannot read"):
        load(tmp_path / "absent.toml")


def test_no_file_means_the_embedded_defaults() -> None:
    cfg = load(None)
    assert (cfg.table.id, cfg.table.session, cfg.table.profile) == ("T1", "S1", "wmc")
    assert cfg.bus.mqtt is None and cfg.table_link is None  # a simulated table, in process


def test_relative_paths_follow_the_config_file(tmp_path: Path) -> None:
    (tmp_path / "cam.jsonl").write_text("", encoding="utf-8")
    cfg = tmp_path / "t.toml"
    cfg.write_text('[table]\nlog = "t.sqlite"\n[camera]\nfile = "cam.jsonl"\n', encoding="utf-8")
    loaded = load(cfg)
    assert loaded.table.log == tmp_path / "t.sqlite"
    assert loaded.camera is not None and loaded.camera.file == tmp_path / "cam.jsonl"


@pytest.mark.slow
def test_check_probes_the_table_link_and_the_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    camera = tmp_path / "cam.jsonl"
    camera.write_text('{"bad": 1}\n', encoding="utf-8")

    async def scenario() -> int:
        async with FakeTable(PtyEndpoint(str(tmp_path)), seed=2) as fake:
            cfg = tmp_path / "t.toml"
            cfg.write_text(
                f'[table_link]\nport = "{fake.path}"\n[camera]\nfile = "{camera}"\n'
                '[bus]\nmqtt = "mqtt://127.0.0.1:9"\n',  # nobody listens on port 9
                encoding="utf-8",
            )
            return await asyncio.to_thread(mjref, ["rig", "--config", str(cfg), "--check"])

    code = asyncio.run(scenario())
    out = capsys.readouterr().out.splitlines()
    assert code == 1  # the broker did not answer
    assert any(line.startswith("ok   table_link") and "HELLO from boot" in line for line in out)
    assert any(line.startswith("ok   camera") and "1 unreadable" in line for line in out)
    assert any(line.startswith("FAIL broker mqtt://127.0.0.1:9") for line in out)


def test_the_readme_reference_is_a_valid_config() -> None:
    import tomllib

    from rig.config import RigConfig

    text = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    block = text.split("## Configuration reference", 1)[1].split("```toml\n", 1)[1]
    block = block.split("```", 1)[0]
    data = tomllib.loads(block)
    assert set(data) == set(RigConfig.model_fields)  # every section is documented
    cfg = RigConfig.model_validate(data)  # every key and value there is accepted
    assert cfg.voice is not None and cfg.voice.seats == ["E", "S", "W", "N"]
    for section, value in data.items():  # every key, set or shown commented out
        part = block.split(f"[{section}]", 1)[1].split("\n[", 1)[0]
        shown = set(value) | set(re.findall(r"^# (\w+) =", part, re.M))
        assert shown == set(type(getattr(cfg, section)).model_fields), section


def test_the_evidence_section_is_checked_and_its_paths_resolved(tmp_path: Path) -> None:
    cfg = tmp_path / "table.toml"
    cfg.write_text(
        '[evidence]\nbudget_gb = -1\nsegment_s = 0.5\nvideo_file = "gone.mp4"\nfps = 3\n',
        encoding="utf-8",
    )
    with pytest.raises(ConfigError) as exc:
        load(cfg)
    problems = "\n".join(exc.value.problems)
    assert len(exc.value.problems) == 4, problems
    assert "evidence.budget_gb = -1" in problems and "evidence.segment_s = 0.5" in problems
    assert "evidence.video_file = 'gone.mp4': no such file; expected a video file" in problems
    assert "unknown key evidence.fps; expected one of: enabled, dir, budget_gb" in problems
    (tmp_path / "t.mp4").write_bytes(b"")
    cfg.write_text('[evidence]\nvideo_file = "t.mp4"\ntoken = "x"\n', encoding="utf-8")
    ok = load(cfg).evidence
    assert ok is not None and ok.dir == tmp_path / "build/rig/evidence"
    assert ok.video_file == tmp_path / "t.mp4" and ok.segment_s == 10.0

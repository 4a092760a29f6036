"""The README works as written: each ```sh block runs (in a fresh folder, with `./run` standing
for the installed `mjref`), and its table of alerts is the one the package's rule data gives.

Blocks marked ```text are shown, not run: `./run demo` and `./run demo --smoke` (covered by
tests/venue/test_demo.py, tests/venue/test_demo_browser.py and CI's `./run demo --smoke`),
`./run rig --config /etc/mjref/table.toml --check` and `systemctl` (they need a rig's devices).
``MJREF_UPDATE_README=1`` rewrites the alert table from dashboard/data/rules.json.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from dashboard.rules import summaries

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
BEGIN = "<!-- rules-table: generated from dashboard/data/rules.json by tests/test_readme.py -->"
END = "<!-- /rules-table -->"


def rules_table() -> str:
    rows = [f"| {rule} | {text['en']} |" for rule, text in summaries().items()]
    return "\n".join([BEGIN, "| rule | what it means |", "|---|---|", *rows, END])


def test_the_alert_table_is_the_packages_rule_data() -> None:
    text = README.read_text(encoding="utf-8")
    start, end = text.index(BEGIN), text.index(END) + len(END)
    if os.environ.get("MJREF_UPDATE_README"):
        README.write_text(text[:start] + rules_table() + text[end:], encoding="utf-8")
        text = README.read_text(encoding="utf-8")
        start, end = text.index(BEGIN), text.index(END) + len(END)
    assert text[start:end] == rules_table(), "run with MJREF_UPDATE_README=1 to regenerate"


def sh_blocks() -> list[str]:
    text = README.read_text(encoding="utf-8")
    found = re.findall(r"^ *```sh\n(.*?)^ *```", text, re.M | re.S)
    return [textwrap.dedent(b) for b in found]


@pytest.mark.parametrize("block", sh_blocks())
@pytest.mark.slow
def test_each_sh_block_runs_as_written(block: str, tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.write_text(
        f'#!/bin/sh\nexec "{sys.executable}" -c '
        '"from rig.cli import main; raise SystemExit(main())" "$@"\n',
        encoding="utf-8",
    )
    run.chmod(0o755)
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", block],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, f"{block}\n{done.stdout}\n{done.stderr}"


def test_there_are_commands_to_run() -> None:
    assert sh_blocks(), "the README has no ```sh block"

"""`mjref`'s dispatch: each command loads only its own module, and the names it is found by are
the ones its module registers."""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys

import pytest

from rig import cli


@pytest.mark.parametrize("module", sorted(cli.COMMAND_MODULES))
def test_each_module_registers_the_commands_it_is_named_for(module: str) -> None:
    sub = argparse.ArgumentParser().add_subparsers()
    importlib.import_module(module).register(sub)
    assert tuple(sorted(sub.choices)) == tuple(sorted(cli.COMMAND_MODULES[module]))


def test_a_command_loads_only_its_own_module() -> None:
    probe = (
        "import sys; from rig.cli import build_parser; build_parser('score'); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('vision', 'voice', 'dashboard', 'venue', 'table_io')))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_no_command_or_an_unknown_one_lists_every_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main(["no-such-command"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert all(name in err for names in cli.COMMAND_MODULES.values() for name in names)

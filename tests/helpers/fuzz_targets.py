"""Load a fuzz target script (tests/<pkg>/fuzz/<name>.py) as a module, with its seed corpus,
so that CI runs its properties without atheris."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType


def load(folder: Path, name: str) -> tuple[ModuleType, list[Path]]:
    """The target ``folder/name.py`` and the sorted files of ``folder/corpus``."""
    spec = importlib.util.spec_from_file_location(name, folder / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, sorted((folder / "corpus").iterdir())

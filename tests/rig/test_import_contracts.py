"""The layering rules of DESIGN.md are import-linter contracts (pyproject.toml), run by
`./run test`; these tests show that they are live: a copy of the source tree with one wrong
import added fails `lint-imports`, naming the broken contract, and the untouched copy passes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("referee", "vision", "voice", "table_io", "dashboard", "rig", "venue")
LINT = Path(sys.executable).with_name("lint-imports")


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The packages' Python files and the project's contracts, copied to a temp dir."""
    if not LINT.exists():
        pytest.skip("import-linter is not installed (the dev extra)")
    root = tmp_path_factory.mktemp("tree")
    for name in PACKAGES:
        shutil.copytree(
            REPO / name,
            root / name,
            ignore=lambda d, names: [n for n in names if not (n.endswith(".py") or "." not in n)],
        )
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    return root


def lint(root: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run(
        [str(LINT), "--config", str(root / "pyproject.toml"), "--no-cache"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_project_keeps_its_contracts(tree: Path) -> None:
    done = lint(tree)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


@pytest.mark.parametrize(
    ("module", "wrong", "contract"),
    [
        ("referee/_wrong.py", "import table_io.frames", "the referee core imports no other"),
        ("voice/_wrong.py", "import vision", "sensors never import each other"),
        ("table_io/_wrong.py", "import rig.cli", "sensors never import the dashboard or the rig"),
        ("rig/_wrong.py", "import dashboard.pdf", "the rig is one table's runtime"),
        ("rig/_wrong.py", "import venue.demo", "the rig is one table's runtime"),
        ("dashboard/_wrong.py", "import venue.demo", "the house, top to bottom"),
    ],
)
def test_a_wrong_import_breaks_its_contract(
    tree: Path, module: str, wrong: str, contract: str
) -> None:
    bad = tree / module
    bad.write_text(f'"""A deliberately wrong import."""\n\n{wrong}\n', encoding="utf-8")
    try:
        done = lint(tree)
    finally:
        bad.unlink()
    assert done.returncode != 0
    assert f"{contract}" in done.stdout and "BROKEN" in done.stdout
    assert module.removesuffix(".py").replace("/", ".") in done.stdout


@pytest.mark.parametrize(
    ("module", "wrong", "package"),
    [
        ("dashboard/live.py", "from dashboard.evidence import clip_links", "dashboard"),
        ("vision/profile.py", "from vision.detect import TileRecognizer", "vision"),
    ],
)
def test_an_import_circle_breaks_its_contract(
    tree: Path, module: str, wrong: str, package: str
) -> None:
    """The two circles that were (live ↔ evidence; detect → known_styles → enrol → detect) can
    not come back, nor any other: an import inside a function counts as much as one at the top."""
    path = tree / module
    kept = path.read_text(encoding="utf-8")
    path.write_text(kept + f"\n\ndef _wrong() -> None:\n    {wrong}\n", encoding="utf-8")
    try:
        done = lint(tree)
    finally:
        path.write_text(kept, encoding="utf-8")
    assert done.returncode != 0
    assert "no import circles among a package's modules" in done.stdout
    assert f"No cycles are allowed in {package}." in done.stdout

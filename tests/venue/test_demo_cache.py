"""The demo's media cache: a new version's first run removes what an older version made."""

from __future__ import annotations

import os
from pathlib import Path

from venue.demo_media import VERSION, prune_stale


def test_only_an_older_versions_hands_are_removed(tmp_path: Path) -> None:
    old, current = tmp_path / "v1-seed73-hand0-x1", tmp_path / f"v{VERSION}-seed73-hand0-x1"
    others = [tmp_path / "v1-notes", tmp_path / "mine"]
    for d in (old, current, *others):
        d.mkdir()
        (d / "video.avi").write_bytes(b"x")
    assert prune_stale(tmp_path) == [old]
    assert not old.exists()
    assert current.exists() and all(d.exists() for d in others)


def test_a_killed_makers_part_file_is_removed_and_a_running_ones_kept(tmp_path: Path) -> None:
    """A hand's maker runs in a process of its own; one killed before it could remove its part
    file (hundreds of MB) leaves it: the next maker of that hand removes it."""
    import subprocess
    import sys

    from venue.demo_media import _remove_stale_parts

    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    dead, alive = tmp_path / f"video.{gone}.avi", tmp_path / f"audio.{os.getpid()}.wav"
    for f in (dead, alive, tmp_path / "video.avi"):
        f.write_bytes(b"x")
    _remove_stale_parts(tmp_path)
    assert not dead.exists() and alive.exists() and (tmp_path / "video.avi").exists()

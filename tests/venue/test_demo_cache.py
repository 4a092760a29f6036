"""The demo's media cache: a new version's first run removes what an older version made."""

from __future__ import annotations

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

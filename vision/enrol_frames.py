"""Enrolment photos from the rig's own recording (``mjref tiles enrol --from-rig``).

Where the rig's camera is the venue's (overhead, fixed pose), its recording already holds the
best enrolment photos there are: the venue's tiles, table, light and lens, seen as the run time
sees them. The camera worker keeps the rectified table as a JPEG still at each change that
settled (the gate saw the table still: no arm over it), under ``SESSION/stills/`` of the rig's
ring, named by their time in milliseconds. This picks a few of them spread over the recording
(another moment of play each: other tiles in sight) and drafts their labels with the models at
hand, as ``tiles detect --json`` writes them: the referee corrects the draft, then enrols from it.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from pathlib import Path

from vision.detect import TileRecognizer
from vision.image_io import ImageError, load_image

DRAFT_LABELS = "labels.jsonl"


class FramesError(ValueError):
    """No stills where the rig's recording was said to be."""


def rig_stills(folder: Path) -> list[Path]:
    """Every still of the recording under ``folder`` (the ring, one session, or its stills
    folder), in time order within each session; :class:`FramesError` naming what was looked
    for when there is none."""
    if not folder.is_dir():
        raise FramesError(f"{folder}: not a folder; expected the rig's recording (its ring)")
    found = sorted(p for p in folder.rglob("*.jpg") if p.parent.name == "stills")
    if not found:
        raise FramesError(
            f"{folder}: no stills/*.jpg inside; expected the rig's recording (the ring folder, "
            "or one session of it), made with the camera worker's --record"
        )
    return found


def spread(paths: Sequence[Path], count: int) -> list[Path]:
    """``count`` of ``paths`` evenly spread from the first to the last (all when fewer)."""
    if len(paths) <= count:
        return list(paths)
    step = (len(paths) - 1) / max(count - 1, 1)
    return [paths[round(i * step)] for i in range(count)]


def draft(rec: TileRecognizer, stills: Sequence[Path], out: Path) -> tuple[Path, list[str]]:
    """Copy ``stills`` into ``out`` and write ``out/labels.jsonl``, each still's tiles as
    ``rec`` reads them (to be corrected); the labels file and the stills that could not be read."""
    out.mkdir(parents=True, exist_ok=True)
    lines, skipped = [], []
    for n, path in enumerate(stills):
        try:
            img = load_image(path)
        except ImageError as exc:
            skipped.append(f"{path}: {exc}")
            continue
        name = f"{n:02d}-{path.parent.parent.name}-{path.name}"
        shutil.copyfile(path, out / name)
        tiles = [d.to_json() for d in rec.detect(img)]
        lines.append(json.dumps({"image": name, "tiles": tiles}, ensure_ascii=False))
    labels = out / DRAFT_LABELS
    labels.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return labels, skipped

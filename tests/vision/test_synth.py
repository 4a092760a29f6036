"""The renderer gives exact labels: every box holds a tile, inside the image, no two overlap."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
from tile_kit import skip_without_fonts

from vision.classes import BACK, NUM_CLASSES
from vision.synth.bank import CropBank
from vision.synth.faces import procedural_tile
from vision.synth.fixtures import make
from vision.synth.scene import render_scene

skip_without_fonts()


def test_every_class_renders_including_backs() -> None:
    rng = random.Random(1)
    for cls in range(NUM_CLASSES):
        tile = procedural_tile(rng, cls, 60)
        assert tile.mode == "RGBA" and 40 <= tile.width <= 50 and tile.height == 60
    face = np.asarray(procedural_tile(rng, 0, 60))[10:50, 10:35, :3].reshape(-1, 3).std(0).max()
    back = np.asarray(procedural_tile(rng, BACK, 60))[10:50, 10:35, :3].reshape(-1, 3).std(0).max()
    assert face > 20 > back  # a face has marks, a back is plain


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_scene_labels_are_exact(seed: int) -> None:
    scene = render_scene(random.Random(seed), CropBank(), 320, 240)
    w, h = scene.image.size
    assert scene.boxes
    for i, (x1, y1, x2, y2, cls) in enumerate(scene.boxes):
        assert 0 <= x1 < x2 <= w and 0 <= y1 < y2 <= h and 0 <= cls < NUM_CLASSES
        assert 8 <= max(x2 - x1, y2 - y1) <= 110
        for ox1, oy1, ox2, oy2, _ in scene.boxes[i + 1 :]:
            inter = max(0, min(x2, ox2) - max(x1, ox1)) * max(0, min(y2, oy2) - max(y1, oy1))
            assert inter <= 0.35 * (x2 - x1) * (y2 - y1)  # perspective may touch, not stack


def test_committed_fixtures_are_what_the_renderer_makes(tmp_path: Path) -> None:
    make(tmp_path)
    committed = Path(__file__).resolve().parent / "fixtures"
    for name in ("hand_row", "turned_row", "mixed"):
        ours = json.loads((tmp_path / f"{name}.json").read_text())
        assert ours == json.loads((committed / f"{name}.json").read_text())


def test_the_last_roll_s_dice_lie_in_the_middle_of_the_rendered_table() -> None:
    from referee.game.sim import Simulator
    from vision.synth.table_state import replay_layouts
    from vision.synth.video import DICE_AT, POSES, RenderSpec, TableRenderer, frames
    from vision.zones import to_pixel

    events = list(Simulator(seed=3).run(1))
    rolls = [e.payload.dice for e in events if e.type == "dice_rolled"]
    deal = next(e.ts for e in events if e.type == "deal")
    spec = RenderSpec(640, 360, fps=2, seed=3, hovers=0, end=deal + 1.0)
    lines = [line for _, line in frames(events, spec)]
    assert lines and all(line["dice"] == list(rolls[-1]) for line in lines)
    # on the plane, each die's top is white with its pips: the felt there is covered
    layout = replay_layouts(events)[-1][2]
    renderer = TableRenderer(640, 360, POSES["top"], seed=3)
    plane = renderer.draw_layout(layout)
    bare = renderer.draw_layout(type(layout)(layout.tiles, layout.wall, layout.standing))
    r = round(12 * renderer.scale)
    for x, y in DICE_AT:
        u, v = (round(c) for c in to_pixel(x, y, renderer.scale))
        die, felt = plane[v - r : v + r, u - r : u + r], bare[v - r : v + r, u - r : u + r]
        assert (die.min(2) > 200).mean() > 0.3 and (felt.min(2) > 200).mean() == 0


def test_the_camera_sees_a_standing_tiles_back_and_a_new_wall_from_wall_built() -> None:
    """Players face their tiles, so the camera above the table's middle sees a standing
    tile's back below its top, not the pale edge of a lying tile (a look with pale edges had
    its standing hands read as lying tiles); and a hand's walls stand from the table link's
    wall_built (the machine raised them), unbroken, not from the break."""
    from referee.game.sim import Simulator
    from vision.synth.looks import LOOKS
    from vision.synth.table_state import Layout, Placed, replay_layouts
    from vision.synth.video import POSES, TableRenderer
    from vision.zones import slot, to_pixel

    look = LOOKS["hall"]
    renderer = TableRenderer(1280, 720, POSES["hall"], seed=1, look=look)
    plane = renderer.draw_layout(
        Layout(tiles={"E/river/0": Placed("5p")}, standing={s: 13 for s in "ESWN"})
    )
    edge = np.array(look.side, np.float32)

    def edge_pixels(x: float, y: float) -> int:
        u, v = (round(c) for c in to_pixel(x, y, renderer.scale))
        r = round(40 * renderer.scale)
        return int((np.abs(plane[v - r : v + r, u - r : u + r] - edge).max(2) < 1).sum())

    assert edge_pixels(slot("E", "river", 0).x, slot("E", "river", 0).y) > 0
    for seat in "ESWN":
        middle = slot(seat, "hand", 6)
        assert edge_pixels(middle.x, middle.y) == 0, seat

    events = list(Simulator(seed=3).run(1))
    built = next(e.ts for e in events if e.type == "wall_built")
    walls = {t: sum(layout.wall.values()) for t, _, layout in replay_layouts(events)}
    assert walls[built] == 136  # 4 × 17 stacks of 2

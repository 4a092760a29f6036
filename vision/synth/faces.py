"""Procedural tile faces drawn with Debian's fonts (fonts-noto-cjk, fonts-symbola).

Two styles: Symbola's mahjong glyphs (U+1F000–1F02B) tinted per suit, and CJK text faces
(numerals + 萬, winds, dragons, flower names) in Noto. A back is a plain coloured body. A third,
``jade``, is a tile set no model trained on (the venue-enrolment tests and bench): text faces
with the inks turned (red → blue → green → red) on a jade-green body.
"""

from __future__ import annotations

import random
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from vision.classes import BACK

FONT_DIRS = (Path("/usr/share/fonts/opentype/noto"), Path("/usr/share/fonts/truetype"))
SYMBOLA = "Symbola"
CJK = ("NotoSerifCJK-Bold.ttc", "NotoSansCJK-Bold.ttc", "NotoSansCJK-Regular.ttc")

# Symbola code points per class: 1–9m, 1–9p, 1–9s, E S W N, P F C, f1–f8.
_GLYPH = (
    [0x1F007 + i for i in range(9)]
    + [0x1F019 + i for i in range(9)]
    + [0x1F010 + i for i in range(9)]
    + [0x1F000, 0x1F001, 0x1F002, 0x1F003, 0x1F006, 0x1F005, 0x1F004]
    + [0x1F026, 0x1F027, 0x1F028, 0x1F029, 0x1F022, 0x1F023, 0x1F024, 0x1F025]
)
_NUMERALS = "一二三四五六七八九"
_HONOUR_TEXT = "東南西北 發中"
_FLOWER_TEXT = "春夏秋冬梅蘭竹菊"
RED, GREEN, BLUE, BLACK = (190, 20, 30), (20, 120, 50), (25, 50, 150), (20, 20, 20)
BACK_COLOURS = ((30, 110, 60), (30, 70, 150), (220, 170, 40), (210, 110, 40), (150, 40, 50))


class FontMissing(RuntimeError):
    """The Debian fonts are not installed (apt-get install fonts-noto-cjk fonts-symbola)."""


@lru_cache(maxsize=64)
def _font(name: str, size: int) -> ImageFont.FreeTypeFont:
    for folder in FONT_DIRS:
        for path in folder.rglob(f"{name}*"):
            return ImageFont.truetype(str(path), size)
    raise FontMissing(f"font {name!r} not found; apt-get install fonts-noto-cjk fonts-symbola")


JADE = (150, 205, 170)  # the ``jade`` style's body


def tile_body(
    rng: random.Random, w: int, h: int, back: bool, body: tuple[int, int, int] | None = None
) -> Image.Image:
    """An ivory (or coloured back, or ``body``) rounded body with a darker rim, RGBA."""
    img = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    r = max(1, min(w, h) // 7)
    if back or body is not None:
        base = body if body is not None and not back else rng.choice(BACK_COLOURS)
        col = tuple(max(0, min(255, c + rng.randint(-25, 25))) for c in base)
    else:
        v = rng.randint(215, 250)
        col = (v, v - rng.randint(0, 12), v - rng.randint(5, 35))
    rim = tuple(max(0, c - 45) for c in col)
    d.rounded_rectangle((0, 0, w - 1, h - 1), r, fill=(*rim, 255))
    inset = max(1, round(min(w, h) * 0.05))
    d.rounded_rectangle((inset, inset, w - 1 - inset, h - 1 - inset), r, fill=(*col, 255))
    return img


def procedural_tile(rng: random.Random, cls: int, h: int, style: str | None = None) -> Image.Image:
    """A tile of class ``cls`` about ``h`` px tall (RGBA), face drawn from fonts; ``style``
    ``glyph`` (Symbola), ``text`` (CJK) or ``jade`` (unseen: text faces, inks turned, green
    body) picks the face, ``None`` glyph or text at random."""
    w = max(6, round(h * rng.uniform(0.7, 0.8)))
    h = max(8, h)
    jade = style == "jade"
    img = tile_body(rng, w, h, cls == BACK, JADE if jade else None)
    if cls == BACK:
        return img
    scale = 4  # draw large, then shrink: sharper small faces
    face = Image.new("RGBA", (w * scale, h * scale), (0, 0, 0, 0))
    d = ImageDraw.Draw(face)
    fw, fh = face.size
    glyph_face = rng.random() < 0.5 if style is None else style == "glyph"
    if glyph_face:
        glyph = chr(_GLYPH[cls])
        font = _font(SYMBOLA, int(fh * 0.95))
        colour = [RED, BLUE, GREEN, BLACK][min(cls // 9, 3)] if cls < 27 else BLACK
        d.text((fw / 2, fh / 2), glyph, font=font, fill=(*colour, 255), anchor="mm")
    else:
        font_name = rng.choice(CJK)
        if cls < 9:
            top, bottom = _NUMERALS[cls], "萬"
            d.text(
                (fw / 2, fh * 0.3),
                top,
                font=_font(font_name, int(fh * 0.36)),
                fill=(*BLACK, 255),
                anchor="mm",
            )
            d.text(
                (fw / 2, fh * 0.7),
                bottom,
                font=_font(font_name, int(fh * 0.4)),
                fill=(*RED, 255),
                anchor="mm",
            )
        elif cls < 27:
            _pips(d, rng, cls, fw, fh)
        elif cls == 31:
            m = int(fw * 0.18)
            d.rectangle(
                (m, m * 1.3, fw - m, fh - m * 1.3), outline=(*BLUE, 255), width=max(2, fw // 14)
            )
        elif cls < 34:
            text = _HONOUR_TEXT[cls - 27]
            colour = GREEN if cls == 32 else RED if cls == 33 else BLACK
            d.text(
                (fw / 2, fh / 2),
                text,
                font=_font(font_name, int(fw * 0.78)),
                fill=(*colour, 255),
                anchor="mm",
            )
        else:
            n = cls - 34
            d.text(
                (fw / 2, fh * 0.42),
                _FLOWER_TEXT[n],
                font=_font(font_name, int(fw * 0.7)),
                fill=(*rng.choice([RED, GREEN, BLUE]), 255),
                anchor="mm",
            )
            d.text(
                (fw * 0.8, fh * 0.85),
                str(n % 4 + 1),
                font=_font(font_name, int(fw * 0.25)),
                fill=(*BLUE, 255),
                anchor="mm",
            )
    face = face.resize((w, h), Image.Resampling.LANCZOS)
    if jade:  # the inks turned: red → blue, green → red, blue → green
        r, g, b, a = face.split()
        face = Image.merge("RGBA", (g, b, r, a))
    img.alpha_composite(face)
    return img


def _pips(d: ImageDraw.ImageDraw, rng: random.Random, cls: int, fw: int, fh: int) -> None:
    """Dots (circles) or bamboo (sticks) in a grid of the tile's number."""
    n = cls % 9 + 1
    cols = 1 if n == 1 else 2 if n in (2, 4) else 3
    rows = -(-n // cols)
    cw, ch = fw * 0.8 / cols, fh * 0.84 / rows
    for i in range(n):
        r, c = divmod(i, cols)
        cx, cy = fw * 0.1 + cw * (c + 0.5), fh * 0.08 + ch * (r + 0.5)
        if cls < 18:
            rad = min(cw, ch) * (0.45 if n > 1 else 0.8) * 0.9
            colour = (RED, BLUE, GREEN)[i % 3] if n > 1 else RED
            d.ellipse(
                (cx - rad, cy - rad, cx + rad, cy + rad),
                outline=(*colour, 255),
                width=max(2, int(rad / 3)),
            )
            d.ellipse((cx - rad / 3, cy - rad / 3, cx + rad / 3, cy + rad / 3), fill=(*colour, 255))
        else:
            sw, sh = cw * 0.28, ch * 0.42
            colour = RED if (n in (5, 7, 9) and i == n // 2) else GREEN
            d.rounded_rectangle((cx - sw, cy - sh, cx + sw, cy + sh), sw, fill=(*colour, 255))

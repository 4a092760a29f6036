"""What a venue's table looks like to its camera, beyond the tile faces and the camera pose.

The bench films each game in several visual domains. ``standard`` is the look the thresholds of
vision/ were first set on. ``venue`` was made to differ from it in everything a real venue's rig
may: a wooden-brown felt and warm, dim light falling off towards the corners, cream tile bodies
with dark blue backs, bare forearms out of dark sleeves, a softer lens and the blocks of a
compressed stream; it found where the camera broke, and the fixes were measured on it. ``hall``
was written down before any figure of it was seen: a cool grey felt under bright, bluish strip
lights, white tiles with green backs, short red sleeves over dark skin, a slightly soft lens, an
MJPEG stream of middling quality. Measured unseen once, it then showed where a light felt broke
the slot test (white faces once the light had dimmed), and those fixes were measured on it. Once
the hall had been measured,
``club`` was written down the same way, before any figure of it was seen: a burgundy felt under
neutral LED light, ivory tiles with orange backs, white shirt sleeves (as pale as a tile's face),
a soft lens and a coarse stream, and a camera turned further than any other. The club's lost
hands then showed the meld-before-discard order (vision/camera.py ``_meld_first``), so
``parlour`` was written down, before any figure of it, as the next unseen check: a near-black
felt under a yellow tungsten lamp, pale green-white tiles with purple backs, black sleeves over
dark hands, and a camera turned the other way, with the strongest barrel. Parlour's lost hand
was then looked into, so ``pavilion`` was written down, before any figure of it, as the next
unseen check: a blue felt in bright, cool daylight close to clipping, white tiles with yellow
backs, olive sleeves over pale forearms, the coarsest stream, and the lowest, most tilted camera.
Once the venue's late meld had been looked into (with the hovers of every domain, pavilion's
too), ``terrace`` was written down, before any figure of it, as the next unseen check: a classic
green felt in mixed evening light, bone tiles with pale blue backs, wine-red sleeves as bright
as the felt in grey, the softest lens, and a camera turned further than any other. Once the
terrace's standing hands had been looked into, ``lodge`` was written down, before any figure of
it, as the next unseen check: a light tan felt under cool light, white tiles with red backs,
denim sleeves over dark hands, and the highest camera. Once the lodge's faces had been looked
into (the tile test is now fitted at enrolment), ``cellar`` was written down, before any figure
of it, as the next unseen check: a mustard felt under a dim, warm lamp, cream tiles with pale
lime backs, sleeves of the felt's own colour, the noisiest sensor, the softest lens, and the
lowest camera with the strongest barrel. Once enrolment fine-tuned the classifier on the
camera's crops (tuned on cellar's enrolment rounds), ``garden`` was written down, before any
figure of it, as the next unseen check: a teal felt in bright, slightly warm daylight, warm white
tiles with dark green backs, grey sleeves, a soft lens, a coarse stream, and a camera nearly
straight down, turned 10° (turned 20°, it left two markers out of its frame).
"""

from __future__ import annotations

from dataclasses import dataclass

RGB = tuple[int, int, int]


@dataclass(frozen=True)
class TableLook:
    felt: RGB | None = None  # None: one of the renderer's felts, by the seed
    body: RGB = (236, 230, 210)  # the tiles' face-side body
    side: tuple[float, float, float] = (144.0, 136.8, 118.8)  # a lying tile's side, from above
    back: RGB | None = None  # the backs' colour; None: the body's own back colour
    gain: float = 1.0  # the light's overall level
    tint: tuple[float, float, float] = (1.0, 1.0, 1.0)  # the light's colour, per channel
    vignette: float = 0.0  # the light's fall-off at the table's corners (0: none, 0.4: 40 %)
    sleeve: RGB = (60, 70, 140)
    skin: RGB = (150, 170, 215)
    sleeve_mm: float = 80.0  # a sleeve's width
    forearm: float = 0.0  # the share of the arm, at the hand's end, that is bare skin
    noise: float | None = None  # the sensor noise's sigma; None: 2–5 by the seed
    blur: float = 0.0  # the lens's softness, a Gaussian sigma in pixels at 1080p
    jpeg: int = 0  # each frame's JPEG quality (a compressed stream's blocks); 0: none


LOOKS = {
    "standard": TableLook(),
    "venue": TableLook(  # the fixes of #37 were found and measured on it
        felt=(112, 84, 58),
        body=(242, 226, 190),
        side=(170.0, 150.0, 110.0),
        back=(28, 44, 96),
        gain=0.78,
        tint=(1.08, 0.98, 0.84),
        vignette=0.35,
        sleeve=(34, 34, 38),
        skin=(214, 168, 138),
        sleeve_mm=64.0,
        forearm=0.45,
        noise=6.0,
        blur=1.2,
        jpeg=45,
    ),
    "hall": TableLook(  # measured once unseen (bench/README.md), then the light felt's fixes
        felt=(92, 104, 116),
        body=(246, 246, 240),
        side=(196.0, 196.0, 186.0),
        back=(40, 118, 72),
        gain=1.1,
        tint=(0.93, 1.0, 1.08),
        vignette=0.15,
        sleeve=(190, 40, 44),
        skin=(122, 86, 62),
        sleeve_mm=92.0,
        forearm=0.7,
        noise=4.0,
        blur=0.8,
        jpeg=75,  # the rig's camera streams MJPEG (hardware/BOM.md): JPEG frames, not too fine
    ),
    "parlour": TableLook(  # written down after the club's fixes, before any figure of its own
        felt=(26, 32, 44),
        body=(226, 236, 220),
        side=(150.0, 160.0, 140.0),
        back=(108, 50, 128),
        gain=0.82,
        tint=(1.0, 0.9, 0.7),
        vignette=0.3,
        sleeve=(28, 28, 30),
        skin=(112, 80, 60),
        sleeve_mm=90.0,
        forearm=0.2,
        noise=6.0,
        blur=1.1,
        jpeg=50,
    ),
    "pavilion": TableLook(  # written after parlour was looked into, before any figure of its own
        felt=(36, 92, 150),
        body=(250, 248, 238),
        side=(200.0, 198.0, 188.0),
        back=(230, 192, 44),
        gain=1.18,
        tint=(0.94, 1.0, 1.06),
        vignette=0.1,
        sleeve=(112, 128, 70),
        skin=(232, 196, 172),
        sleeve_mm=72.0,
        forearm=0.5,
        noise=3.0,
        blur=0.7,
        jpeg=35,
    ),
    "terrace": TableLook(  # written after the venue's late meld, before any figure of its own
        felt=(30, 110, 70),
        body=(232, 222, 196),
        side=(168.0, 158.0, 130.0),
        back=(120, 170, 210),
        gain=0.95,
        tint=(1.02, 1.0, 0.9),
        vignette=0.2,
        sleeve=(140, 60, 80),
        skin=(176, 124, 96),
        sleeve_mm=68.0,
        forearm=0.35,
        noise=4.5,
        blur=1.3,
        jpeg=40,
    ),
    "lodge": TableLook(  # written after the terrace's hands, before any figure of its own
        felt=(168, 148, 116),
        body=(240, 236, 226),
        side=(184.0, 178.0, 164.0),
        back=(180, 40, 50),
        gain=1.0,
        tint=(0.92, 1.0, 1.1),
        vignette=0.3,
        sleeve=(60, 90, 160),
        skin=(96, 64, 48),
        sleeve_mm=84.0,
        forearm=0.4,
        noise=5.0,
        blur=1.0,
        jpeg=55,
    ),
    "cellar": TableLook(  # written after the lodge's faces, before any figure of its own
        felt=(150, 126, 60),
        body=(234, 226, 204),
        side=(170.0, 160.0, 136.0),
        back=(196, 206, 120),
        gain=0.8,
        tint=(1.06, 1.0, 0.86),
        vignette=0.2,
        sleeve=(138, 112, 62),
        skin=(214, 170, 140),
        sleeve_mm=76.0,
        forearm=0.25,
        noise=7.0,
        blur=1.5,
        jpeg=40,
    ),
    "garden": TableLook(  # written after the classifier's fine-tuning, before any figure of its own
        felt=(38, 108, 112),
        body=(244, 238, 222),
        side=(186.0, 178.0, 158.0),
        back=(30, 84, 52),
        gain=1.15,
        tint=(1.03, 1.0, 0.95),
        vignette=0.15,
        sleeve=(112, 112, 118),
        skin=(200, 150, 122),
        sleeve_mm=90.0,
        forearm=0.35,
        noise=4.0,
        blur=1.2,
        jpeg=50,
    ),
    "club": TableLook(  # written down after the hall was measured, before any figure of its own
        felt=(96, 30, 42),
        body=(240, 232, 204),
        side=(182.0, 170.0, 140.0),
        back=(214, 128, 36),
        gain=0.9,
        tint=(1.0, 1.0, 0.95),
        vignette=0.25,
        sleeve=(226, 226, 232),
        skin=(206, 152, 122),
        sleeve_mm=100.0,
        forearm=0.3,
        noise=5.0,
        blur=1.0,
        jpeg=60,
    ),
}

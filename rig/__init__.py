"""One table's runtime (DESIGN.md, ``rig/``): config → inputs → core → write-ahead log → bus.

This is the composition root: the only package that imports every other one. ``rig.cli`` is the
``mjref`` console script; ``rig.bus`` is the bus interface the dashboard may import.
"""

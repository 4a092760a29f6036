"""One table's runtime (DESIGN.md, ``rig/``): config → inputs → core → write-ahead log → bus.

This is the composition root of one table: it imports the core and the sensors, never the
dashboard nor ``venue`` (the demo: a dashboard and several rigs), which sit above it.
``rig.cli`` is the ``mjref`` console script; ``rig.bus`` is the bus interface the dashboard may
import.
"""

"""A recorded game looked back on: exports for people and other tools, the differences a
re-derivation finds (pure: no I/O, no clock)."""

"""Camera pipeline: capture, calibration, tile detection (see issue: tile recognition)."""

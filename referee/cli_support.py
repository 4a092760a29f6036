"""What every `mjref` command shares at its edge: exit codes, numbers checked at parse time, and
one line for an output that cannot be written.

A value out of range is an argparse usage error (one line, exit 2) before any work starts, so a
negative count or a huge one can neither crash a command nor make it run for ever.
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable
from pathlib import Path

EXIT_OK = 0  # everything asked for was done
EXIT_FINDINGS = 1  # done, with failures or findings in the data (a failed line, a refused event)
EXIT_USAGE = 2  # a usage error, or input that cannot be read at all


def int_in(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: an integer in [low, high] (no upper bound when ``high`` is None)."""
    expected = f"an integer from {low} to {high}" if high is not None else f"an integer ≥ {low}"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r}: expected {expected}") from None
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"{value}: expected {expected}")
        return value

    return parse


def float_in(
    low: float, high: float | None = None, *, above: bool = False
) -> Callable[[str], float]:
    """An argparse type: a finite number in [low, high] ((low, high] when ``above``)."""
    sign = ">" if above else "≥"
    expected = (
        f"a number from {low:g} to {high:g}" if high is not None else f"a number {sign} {low:g}"
    )
    if above and high is not None:
        expected = f"a number above {low:g} and at most {high:g}"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r}: expected {expected}") from None
        too_low = value <= low if above else value < low
        if not math.isfinite(value) or too_low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"{text}: expected {expected}")
        return value

    return parse


PORT = int_in(0, 65535)


def reason(exc: OSError) -> str:
    """The system's short words for an OSError ("Address already in use"), not the wrapper's."""
    code = exc.errno
    return os.strerror(code) if code and code > 0 else exc.strerror or str(exc)


def cannot_write(path: Path | str, exc: OSError) -> str:
    """``cannot write x/out.jsonl: Not a directory (expected a writable path in an existing
    folder)``."""
    return f"cannot write {path}: {reason(exc)} (expected a writable path in an existing folder)"

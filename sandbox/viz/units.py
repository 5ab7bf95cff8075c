"""Fixed-format time and byte strings, so every summary reads the same on every run."""

from __future__ import annotations

import numpy as np

MICRO = "\u00b5"  # the micro sign, as in "µs"


def time_unit(span_ns: int) -> tuple[str, int]:
    """The axis unit for a time span: (name, ns per unit).  Seconds are never needed here."""
    if span_ns >= 2_000_000:
        return "ms", 1_000_000
    if span_ns >= 2_000:
        return f"{MICRO}s", 1_000
    return "ns", 1


def fmt_time(ns: int) -> str:
    """A duration or instant in the largest unit that keeps it readable: '8.200 ms'."""
    a = abs(ns)
    if a >= 1_000_000:
        return f"{ns / 1_000_000:.3f} ms"
    if a >= 1_000:
        return f"{ns / 1_000:.3f} {MICRO}s"
    return f"{ns} ns"


def fmt_bytes(n: int) -> str:
    """Binary units, as the runtime's own messages use: '2.0 MiB'."""
    a = abs(n)
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if a >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


def fmt_percent(x: float) -> str:
    return f"{100.0 * x:.1f}%"


_UNITS = (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10))


def fmt_size(n: int) -> str:
    """An exact size for a block: '2 MiB' when round, '1 MiB + 4 KiB' when it is two round
    parts, else every byte ('1,000,000 B').  ``fmt_bytes`` would print 1 MiB + 4 KiB as
    '1.0 MiB' and hide the padding a learner is meant to see."""
    if n < 0:
        return "-" + fmt_size(-n)
    for i, (unit, size) in enumerate(_UNITS):
        if n < size:
            continue
        whole, rest = divmod(n, size)
        if rest == 0:
            return f"{whole} {unit}"
        for small_unit, small in _UNITS[i + 1 :]:
            if rest % small == 0 and rest >= small:
                return f"{whole} {unit} + {rest // small} {small_unit}"
        break
    return f"{n:,} B"


def ns_array(values) -> np.ndarray:
    """Virtual times as an int64 array, or as an array of Python ints when one is past int64's
    range: the runtime's clock has no upper bound (a notify wait may time out after 136 years),
    and a summary stays exact however far it went."""
    values = values if isinstance(values, list) else list(values)
    try:
        return np.array(values, dtype=np.int64)
    except OverflowError:
        return np.array(values, dtype=object)

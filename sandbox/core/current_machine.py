"""Which machine a runtime call runs on: the current one, or the one its OS thread is bound to.

One Machine is current at a time (``configure`` makes a fresh one; ``current`` makes the
first on demand).  A grader's run binds its OS threads to a machine of its own (``bound``),
whatever is current, so work left running after the grader has moved on never reaches the
learner's machine.  The Machine class registers itself here (``use_factory``): this module
imports nothing of the core.
"""
from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from .machine import Machine

_current: Machine | None = None
_current_lock = threading.Lock()
_bound: dict[int, Machine] = {}     # thread ident -> the machine it runs on, whatever is current
_factory: Callable[..., Machine] = None  # type: ignore[assignment]  # machine.py registers it when imported


def use_factory(factory: Callable[..., Machine]) -> None:
    """How ``current`` and ``configure`` make a machine (core/machine.py registers Machine)."""
    global _factory
    _factory = factory


def peek_current() -> Machine | None:
    """The calling thread's machine if one exists (no machine is created)."""
    if _bound:
        m = _bound.get(threading.get_ident())
        if m is not None:
            return m
    return _current


def current() -> Machine:
    global _current
    m = peek_current()
    if m is None:
        with _current_lock:
            if _current is None:
                _current = _factory()
        m = _current
    return m


def configure(profile="ascend910b", device_count: int | None = None, host_memory_budget: int | None = None) -> Machine:
    """Start a fresh simulated machine and make it current."""
    global _current
    with _current_lock:
        _current = _factory(profile, device_count, host_memory_budget)
    return _current


def is_bound(machine: Machine) -> bool:
    """Is the calling OS thread bound to ``machine`` (see ``bound``)?"""
    return bool(_bound) and _bound.get(threading.get_ident()) is machine


@contextmanager
def bound(machine: Machine):
    """Run the calling OS thread on ``machine`` (a grader's run), whatever machine is current.

    Threads that the program starts inside are bound to it too (core/python_threads.py).
    """
    ident = threading.get_ident()
    previous = _bound.get(ident)
    _bound[ident] = machine
    try:
        yield machine
    finally:
        if previous is None:
            _bound.pop(ident, None)
        else:
            _bound[ident] = previous

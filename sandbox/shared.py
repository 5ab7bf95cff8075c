"""Values simulated processes leave for each other: the stand-in for the files of the IPC samples.

The official IPC samples (example/1_basic_features/memory/10, 11, 2_advanced_features/notify/0,
1 of hicann/runtime) run two programs from run.sh, which pass pids, keys and completion flags
through files in ``file/``: one writes ``x.bin`` then ``x.bin.done``, the other polls for
``x.bin.done`` and reads ``x.bin``.  The runtime sees none of it, but the order is real: what the
writer had done before it wrote, the reader has seen done once it has read.  Here the two programs
are simulated processes of one machine (``sandbox.spawn_process``), and a file is a named value:

* ``sandbox.write_shared(name, value)`` leaves ``value`` under ``name`` (again: replaces it; None:
  as if removed).  Values last until ``sandbox.configure()``, as files last until removed (run.sh
  empties ``file/`` first): a notebook cell run again finds the last run's values;
* ``sandbox.read_shared(name)`` returns it, or None while nothing was written, without waiting:
  a sample's poll loop is ``while (v := read_shared(name)) is None: sandbox.host_work(ns, "usleep")``,
  which moves the reader's virtual clock so the writer gets its turn (core/host_turns.py).

Both take the calling thread's turn first, so a read at virtual time t sees exactly the writes
made before t (ties in thread order): the same on every run.  A read that finds a value teaches
the reader's hazard clock what the writer's knew when it wrote (core/hazards.py: the host knows a
task is done only from a synchronize, a query, a join ... and now from a value read): work the
writer had synchronized is ordered before what the reader queues next, and work it had only
queued is not, as with the real files.
"""

from __future__ import annotations

from .core import hazards
from .core.machine import current


class Shared:
    """One machine's named values, each with the writer's hazard clock when it wrote."""

    def __init__(self, m):
        self.values: dict[str, tuple[object, dict]] = {}


def _turn(m):
    """The calling thread, once its turn has come (call it holding ``m.lock``)."""
    th = m.current_thread()
    m.scheduler.wait_turn(th)
    return th


def write_shared(name: str, value) -> None:
    """Leave ``value`` under ``name`` for the other simulated processes (a sample's WriteFile)."""
    m = current()
    with m.lock:
        th = _turn(m)
        known = dict(hazards.checker(m).host_vc.get(th.tid, ()))
        m.feature(Shared).values[str(name)] = (value, known)


def read_shared(name: str):
    """The value left under ``name``, or None if there is none yet (one poll of a sample's ReadFile)."""
    m = current()
    with m.lock:
        th = _turn(m)
        found = m.feature(Shared).values.get(str(name))
        if found is None:
            return None
        hazards.learned_clocks(m, th, [found[1]])
        return found[0]

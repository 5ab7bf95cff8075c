"""The file/ directory run.sh makes, through which the two processes of a sharing sample talk.

The official samples (memory/7, memory/8) pass a pid, a shareable handle and a completion flag
through files: ``memory::WriteFile`` writes the data file and then an empty ``.done`` file;
``memory::ReadFile`` polls for the ``.done`` file, sleeping ``usleep(1000000)`` between tries
(printing a warning each time), then reads the data (file_ops.cpp).  ``Files`` does the same in
the sandbox: the files are entries of a dict shared by the processes of one script, and a sleep is
``sandbox.host_work(1 s, "usleep")``, so the polling follows the sandbox's turn order (the thread
with the smallest virtual clock runs) and gives the same interleaving on every run.  A read gives
up after ``MAX_ATTEMPTS`` sleeps (the sample allows 10^9), so a handshake that cannot complete
ends instead of hanging.

The hand-over is host-side and invisible to the runtime, but it orders the two processes: what
the writer's host knew complete when it wrote (its synchronizes, its blocking copies), the reader
knows once it has read the file, as a joined thread's work is known to the joiner.  The hazard
checks (sandbox/core/hazards.py) would otherwise see no order between the processes' work on the
shared memory.  The sandbox has no public call for such a message, so this stand-in for run.sh's
files carries the writer's host clock itself (``hazards.learned_clocks``); it is the one place
where these ports reach inside the sandbox.  What the writer did *not* know complete (work it
queued and never synchronized) stays unordered, as it is on hardware.
"""

from __future__ import annotations

import sandbox
from sandbox.core import hazards
from sandbox.core.binding import current

POLL_NS = 1_000_000 * 1000  # usleep(1000000): one second
MAX_ATTEMPTS = 600


def _known() -> dict:
    """What the calling host thread knows is complete (its happens-before clock)."""
    m = current()
    with m.lock:
        return dict(hazards.checker(m).host_vc.get(m.current_thread().tid, {}))


def _learn(clock: dict) -> None:
    m = current()
    with m.lock:
        hazards.learned_clocks(m, m.current_thread(), [clock])


class Files:
    def __init__(self, info, warn, error):
        self._done: dict[str, tuple] = {}  # done-file path -> (data path, value, writer's clock)
        self.info, self.warn, self.error = info, warn, error

    def write(self, path: str, done: str, value) -> None:
        # memory::WriteFile: the data, then the done file
        self.info(f"Start writing to {path}")
        self._done[done] = (path, value, _known())

    def read(self, path: str, done: str):
        # memory::ReadFile: poll for the done file, then read the data
        self.info(f"Start reading from {path}")
        attempts = 0
        while done not in self._done:
            attempts += 1
            self.warn("Data writing not yet complete")
            if attempts >= MAX_ATTEMPTS:
                self.error(f"Open file {done} failed")
                return None
            sandbox.host_work(POLL_NS, "usleep")
        _, value, clock = self._done[done]
        _learn(clock)
        self.info("Read data successfully")
        return value

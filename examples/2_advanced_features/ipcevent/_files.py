"""The stand-in for the files that the two processes of an IPC sample share.

run.sh starts ``proc_a`` and ``proc_b`` as two programs at once; they pass the IPC handle, and
later a "done" flag, through files in the current directory, and the reader polls for each
file once a second (``while (access(file, F_OK) != 0 && timeout-- > 0) sleep(1);``).

The ports run both programs in one Python program, each as a simulated process
(``sandbox.spawn_process``), so a file is an entry of a dict and a poll's sleep is virtual
time: each poll that finds nothing spends one second with ``sandbox.host_work``.  That call
ends the poller's turn; the sandbox then runs whichever process has the smallest clock, so the
writer goes on until it has written the file (or is itself one second further), and the run is
the same on every machine.  A file that never comes ends the wait after the sample's 30 polls,
as in the sample, never in a hang.
"""

import sandbox

POLL_NS = 1_000_000_000  # sleep(1): one second of virtual time per poll


class SharedFiles:
    """Named byte strings both processes see, as the files of one directory."""

    def __init__(self):
        self._files = {}

    def write(self, name, data):
        self._files[name] = bytes(data)

    def read(self, name):
        return self._files[name]

    def exists(self, name):
        return name in self._files

    def remove(self, name):
        self._files.pop(name, None)

    def wait_for(self, name, polls=30):
        """Poll for ``name`` once a (virtual) second, at most ``polls`` times; True if it came."""
        while not self.exists(name) and polls > 0:
            polls -= 1
            sandbox.host_work(POLL_NS, "sleep(1)")
        return self.exists(name)

"""The IPC event samples' files (proc_a.cpp, proc_b.cpp: fopen/fwrite, access, remove).

run.sh starts proc_a and proc_b together; they pass the event's IPC handle, and later a "done"
flag, through files in the current directory.  The writer opens, writes and closes the file; the
reader polls for it once a second, 30 times at most (``while (access(file, F_OK) != 0 &&
timeout-- > 0) sleep(1);``), then reads it; the producer removes both files at the end.  These
samples have no file_ops.cpp: each program does this inline, and these helpers say it once.

Here the programs are simulated processes of one machine and a file is a value left with
``sandbox.write_shared`` and polled with ``sandbox.read_shared`` (sandbox/shared.py: the hazard
clocks learn the order the files give, and nothing more).  A poll that finds nothing spends one
second of virtual time (``sandbox.host_work``), which lets the writer run on.  Writing a file
takes ``FILE_WRITE_NS`` of host time (an assumption, as in memory/_file_ops.py: an open, a write
and a close on a local file system).
"""

import sandbox

POLL_NS = 1_000_000_000  # sleep(1)
POLLS = 30  # the programs' timeout, in polls
FILE_WRITE_NS = 20_000  # assumption


def write_file(name, data):
    """fopen(name, "w"), fwrite, fclose: the file and its bytes are there for every process."""
    sandbox.host_work(FILE_WRITE_NS, "write file")
    sandbox.write_shared(name, bytes(data))


def exists(name):
    """access(name, F_OK) == 0 (one look, no wait)."""
    return sandbox.read_shared(name) is not None


def read_file(name):
    """fopen(name, "rb") and fread: the bytes written, or None if there is no such file."""
    return sandbox.read_shared(name)


def remove_file(name):
    """remove(name)."""
    sandbox.write_shared(name, None)


def wait_for(name, polls=POLLS):
    """Poll for ``name`` once a (virtual) second, at most ``polls`` times; True if it came."""
    while not exists(name) and polls > 0:
        polls -= 1
        sandbox.host_work(POLL_NS, "sleep(1)")
    return exists(name)

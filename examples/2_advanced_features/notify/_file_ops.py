"""The IPC samples' file handshake (memory/file_ops.cpp: memory::WriteFile, memory::ReadFile), and run.sh's tee.

run.sh starts proc_a and proc_b, which pass pids, keys and completion flags through files in
``file/``: WriteFile writes ``x.bin`` and then ``x.bin.done``; ReadFile polls for ``x.bin.done``
once a second (usleep(1000000)), saying "Data writing not yet complete" each time, then reads
``x.bin``.  Here both programs are simulated processes of one machine and a file is a value
left with ``sandbox.write_shared`` and polled with ``sandbox.read_shared`` (sandbox/shared.py:
the hazard clocks learn the order the files give, and nothing more).  Writing the two files
takes ``FILE_WRITE_NS`` of host time (an assumption: two opens, a write and two closes on a
local file system).  ReadFile gives up after 10^9 polls; here after ``MAX_POLLS`` (a minute of
virtual time), so a port that goes wrong ends.
"""

import sys

import sandbox

POLL_NS = 1_000_000 * 1000  # usleep(1000000)
MAX_POLLS = 60
FILE_WRITE_NS = 20_000  # assumption


def info(text):
    print(f"[INFO]  {text}")


def warn(text):
    print(f"[WARN]  {text}")


def error(text):
    print(f"[ERROR]  {text}")


def write_file(path, done, value):
    info(f"Start writing to {path}")
    sandbox.host_work(FILE_WRITE_NS, "write file")
    sandbox.write_shared(done, value)


def read_file(path, done):
    info(f"Start reading from {path}")
    for _ in range(MAX_POLLS):
        value = sandbox.read_shared(done)
        if value is not None:
            info("Read data successfully")
            return value
        warn("Data writing not yet complete")
        sandbox.host_work(POLL_NS, "usleep")
    error(f"Open file {done} failed")
    return None


class Tee:
    """What run.sh's ``| tee`` keeps: every line printed, for the comparison at its end."""

    def __init__(self):
        self.out, self.lines = sys.stdout, []

    def write(self, text):
        self.lines.append(text)
        return self.out.write(text)

    def flush(self):
        self.out.flush()

    def value_after(self, label):
        """The first ``label: value`` printed (awk -F':' '/label:/ {print $2; exit}'), or ''."""
        for line in "".join(self.lines).splitlines():
            if line.startswith(label + ":"):
                return line.split(":", 1)[1].strip()
        return ""

"""A host thread that serves callbacks, as the docs show it: tests of several folders use it."""

from __future__ import annotations

import threading

from sandbox import acl


class Server:
    """A host thread that loops on process_report(timeout) until told to stop (the docs' pattern)."""

    def __init__(self, timeout=10):
        self.stop = False
        self.results = []
        self.thread = threading.Thread(target=self.loop, args=(timeout,), name="cb-server")
        self.thread.start()

    def loop(self, timeout):
        acl.rt.set_device(0)
        while not self.stop:
            self.results.append(acl.rt.process_report(timeout))

    def join(self):
        self.stop = True
        self.thread.join()

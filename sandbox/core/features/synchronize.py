"""Synchronize: the one path every aclrtSynchronize{Stream,Event,Device} takes.

1. ``before_sync`` hooks may refuse it (a synchronize during capture is 107041, core/features/capture.py);
2. the thread blocks until the work is done (``Machine.block_until``), and learns that it is
   (core/hazards.py);
3. the call's host cost (``host_costs.synchronize``) is charged;
4. ``after_sync`` hooks run (pools above their release threshold give memory back);
5. the first asynchronous device error of the streams waited for is reported (RT-FAQ: device
   errors surface at the next synchronize).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, NamedTuple

from ..errors import fail

if TYPE_CHECKING:
    from ..machine import Machine
    from ..objects import Context, Event, HostThread, Stream


class Sync(NamedTuple):
    """What a synchronize waits for: what hooks see (one of stream, event, context is set)."""
    api: str                        # the C name, e.g. "aclrtSynchronizeStream"
    what: str                       # the wait as messages name it, e.g. "synchronizing stream 2"
    device: int
    stream: Stream | None = None
    event: Event | None = None
    context: Context | None = None


def synchronize(m: Machine, th: HostThread, sync: Sync, done: Callable[[], bool] | None, learns=(), report=()) -> None:
    """Wait until ``done()`` (None: nothing to wait for), as the module docstring says.

    ``learns``: the streams and tasks the host knows complete afterwards; ``report``: the
    streams whose pending device error the call returns (the first, in this order)."""
    for hook in m.hooks.before_sync:
        hook(th, sync)
    if done is not None:
        on = (("stream", sync.stream.handle) if sync.stream else ("event", sync.event.handle) if sync.event
              else ("device", sync.device))
        m.block_until(th, done, sync.what, learns=learns, on=on)
    th.clock += m.profile.host_costs.synchronize
    if done is not None:
        for hook in m.hooks.after_sync:
            hook(th, sync)
    for stream in report:
        report_stream_error(stream)


def report_stream_error(stream: Stream) -> None:
    """Asynchronous device errors surface at the next synchronize (RT-FAQ), and a context stopped
    on a failure answers its code to every later one (src/runtime stream.cc:1772-1787)."""
    code = stream.pending_error or stream.error_stop
    if code:
        message = stream.pending_message or stream.context.failure_message
        stream.pending_error, stream.pending_message = 0, ""
        fail(code, message)


def report_blocking(task) -> None:
    """A blocking call's own task (a copy, a memset, a model's execution) that failed on the
    device: the call returns its error itself, and the stream keeps no pending error for it."""
    if task.status:
        stream = task.stream
        message = stream.pending_message or f"task {task.id} failed"
        stream.pending_error, stream.pending_message = 0, ""
        fail(task.status, message)

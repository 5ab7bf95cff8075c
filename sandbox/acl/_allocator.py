"""Custom allocators: aclrtAllocatorDesc and its registration on a stream (acl_rt_allocator.h).

In the real stack these are the acl library's own host records: libascendcl keeps a
descriptor (an object pointer and four function pointers) and a map from a stream to a saved
copy of one (``src/acl/aclrt_impl/allocator.cpp``); the runtime never sees them.  Operators
(aclnn) ask the map for their stream's allocator and call its functions; the sandbox has no
operators, so what it models is what a program can observe: the descriptor, the registration
and its read-back.  A program that calls the functions it reads back (as the official sample
does) calls its own Python functions directly; the sandbox does not run them.

The rules, from allocator.cpp (line numbers of the snapshot examples/README.md cites):

* **aclrtAllocatorCreateDesc** (49-58) makes an empty descriptor.  In C its four function
  members are left uninitialised (34-38: only ``obj`` has ``= nullptr``); the sandbox starts
  them all at null, the evident intent.
* **aclrtAllocatorSetObjToDesc / Set{Alloc,Free,AllocAdvise,GetAddrFromBlock}FuncToDesc**
  (72-117): a null descriptor or a null value is 100000 ACL_ERROR_INVALID_PARAM; setting again
  replaces.  In Python the object is any value but None, a function any callable (a value that
  is not callable is 100000 too: C cannot pass one).
* **aclrtAllocatorRegister** (119-140): a null stream (stream 0: the default stream cannot have
  one), a null descriptor, or a descriptor whose object, alloc, free or get-address function is
  null, is 100000; the advise function may stay null.  The library saves a *copy* of the
  descriptor's fields under the stream (132-137), so setting a function on the descriptor
  afterwards, or destroying it, does not change the registration.  Registering again on a
  stream replaces its registration (137: ``map[stream] = ...``), no error.
* **aclrtAllocatorGetByStream** (142-177): a null stream is 100000; a stream with no
  registration is 100000 ("The stream is not registered with any allocator", 151-157).  It
  hands back the descriptor handle that was registered (the caller's, even if destroyed since)
  and the saved object and functions.
* **aclrtAllocatorUnregister** (179-186): a null stream is 100000; otherwise it erases the
  stream's registration if there is one, and succeeds either way.
* **aclrtAllocatorDestroyDesc** (60-70): a null descriptor is 100000; a registration made from
  it stays (it is a copy).

Sandbox choices, where the C library has no rule because it trusts its pointers:

* A descriptor handle that is not a live descriptor of the calling process (destroyed, never
  made, another process's) is 100000; in C using a deleted descriptor is undefined behaviour.
* aclrtAllocatorRegister's stream must be a live stream of the calling process (else 100000),
  checked after the library's own checks; the library itself keys its map by the pointer.
* A stream's registration ends with the stream: when it is destroyed (aclrtDestroyStream, a
  context or device reset, aclFinalize, the process's end), through the ``stream_state`` hook.
  The C map would keep an entry under the dead pointer, which a later stream at that address
  would find; the sandbox never reuses a handle, so it drops the entry instead.  A process's
  descriptors end with the process (``process_ending``): libascendcl's memory goes with it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..core import constants as C
from ..core.errors import ACL_ERROR_INVALID_PARAM, describe, fail

NULL = 0

# the descriptor's fields, as the Set*ToDesc calls and the register checks name them
FUNCS = {
    "alloc": "allocFunc",
    "free": "freeFunc",
    "alloc_advise": "allocAdviseFunc",
    "get_addr_from_block": "getAddrFromBlockFunc",
}
REQUIRED = ("obj", "alloc", "free", "get_addr_from_block")  # allocator.cpp:126-130, in that order


@dataclass
class Desc:
    """One aclrtAllocatorDesc: the allocator object and its four functions (None: not set)."""

    pid: int
    obj: object = None
    alloc: object = None
    free: object = None
    alloc_advise: object = None
    get_addr_from_block: object = None


@dataclass(frozen=True)
class Registration:
    pid: int
    desc_handle: int  # what aclrtAllocatorGetByStream hands back
    saved: Desc  # the copy made at aclrtAllocatorRegister


class Allocators:
    """One machine's descriptors and registrations (made on first use, ``Machine.feature``)."""

    def __init__(self, m):
        self.descs: dict[int, Desc] = {}
        self.registered: dict[int, Registration] = {}  # stream handle -> its registration
        m.hooks.add("stream_state", self.stream_state)
        m.hooks.add("process_ending", self.process_ending)

    def stream_state(self, stream, state: int) -> None:
        if state == C.ACL_RT_STREAM_STATE_DESTROY_PRE:
            self.registered.pop(stream.handle, None)

    def process_ending(self, th, proc) -> None:
        for handle in sorted(h for h, d in self.descs.items() if d.pid == proc.pid):
            del self.descs[handle]

    def desc(self, th, handle) -> Desc:
        if handle == NULL:
            fail(ACL_ERROR_INVALID_PARAM, "allocatorDesc is null: make one with aclrtAllocatorCreateDesc")
        desc = self.descs.get(handle)
        if desc is None or desc.pid != th.process.pid:
            fail(
                ACL_ERROR_INVALID_PARAM,
                f"{describe(handle)} is not a live aclrtAllocatorDesc of this process "
                "(destroyed, or never made by aclrtAllocatorCreateDesc)",
            )
        return desc


def _stream_not_null(stream: int) -> None:
    if stream == NULL:
        fail(
            ACL_ERROR_INVALID_PARAM,
            "stream is null: a custom allocator is registered on a created stream, not the default stream",
        )


def create_desc(m, th) -> int:
    handle = m.new_handle()
    m.feature(Allocators).descs[handle] = Desc(th.process.pid)
    return handle


def destroy_desc(m, th, handle: int) -> None:
    allocators = m.feature(Allocators)
    allocators.desc(th, handle)
    del allocators.descs[handle]


def set_obj(m, th, handle: int, obj) -> None:
    desc = m.feature(Allocators).desc(th, handle)
    if obj is None:
        fail(ACL_ERROR_INVALID_PARAM, "allocator is null: pass the allocator object the functions will get")
    desc.obj = obj


def set_func(m, th, handle: int, field: str, fn) -> None:
    desc = m.feature(Allocators).desc(th, handle)
    if fn is None:
        fail(ACL_ERROR_INVALID_PARAM, f"func is null: pass the {FUNCS[field]} function")
    if not callable(fn):
        fail(ACL_ERROR_INVALID_PARAM, f"func must be a function ({FUNCS[field]}), got {describe(fn)}")
    setattr(desc, field, fn)


def register(m, th, stream: int, handle: int) -> None:
    _stream_not_null(stream)
    allocators = m.feature(Allocators)
    desc = allocators.desc(th, handle)
    for field in REQUIRED:
        if getattr(desc, field) is None:
            name = "obj" if field == "obj" else FUNCS[field]
            setter = "Obj" if field == "obj" else name[0].upper() + name[1:]
            fail(
                ACL_ERROR_INVALID_PARAM,
                f"allocatorDesc->{name} is null: set it first (aclrtAllocatorSet{setter}ToDesc)",
            )
    live = m.streams.get(stream)
    if live is None or not live.alive or live.context.process is not th.process:
        fail(ACL_ERROR_INVALID_PARAM, f"{describe(stream)} is not a live stream of this process")
    allocators.registered[stream] = Registration(th.process.pid, handle, replace(desc))


def get_by_stream(m, th, stream: int) -> tuple:
    _stream_not_null(stream)
    reg = m.feature(Allocators).registered.get(stream)
    if reg is None or reg.pid != th.process.pid:
        fail(ACL_ERROR_INVALID_PARAM, f"stream {describe(stream)}: the stream is not registered with any allocator")
    s = reg.saved
    return reg.desc_handle, s.obj, s.alloc, s.free, s.alloc_advise, s.get_addr_from_block


def unregister(m, th, stream: int) -> None:
    _stream_not_null(stream)
    allocators = m.feature(Allocators)
    reg = allocators.registered.get(stream)
    if reg is not None and reg.pid == th.process.pid:
        del allocators.registered[stream]

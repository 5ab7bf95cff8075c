"""Notebook 10: reference solutions, mistakes that must fail, correct variants that must pass."""

from __future__ import annotations

from . import solutions

SOLUTIONS = solutions("10")

# -- pieces the sources below share (each source is run in the notebook's namespace) --------------
_PIPELINE = """
def run_pipeline(x, devices=(0,), slots=2, sync_each=False):
    hin, hout = pinned_io(x)
    per = {}
    for d in devices:
        acl.rt.set_device(d)
        per[d] = dict(copy=acl.rt.create_stream()[0], work=acl.rt.create_stream()[0],
                      sets=[device_buffers() for _ in range(slots)],
                      loaded=[acl.rt.create_event()[0] for _ in range(slots)],
                      done=[acl.rt.create_event()[0] for _ in range(slots)])
    for b in range(BATCHES):
        d = devices[b % len(devices)]
        dev = per[d]
        acl.rt.set_device(d)
        i = b // len(devices)
        slot = i % slots
        bufs = dev["sets"][slot]
        if i >= slots:
            acl.rt.stream_wait_event(dev["copy"], dev["done"][slot])
        acl.rt.memcpy_async(bufs[0], IN_B, hin + b * IN_B, IN_B, H2D, dev["copy"])
        acl.rt.record_event(dev["loaded"][slot], dev["copy"])
        acl.rt.stream_wait_event(dev["work"], dev["loaded"][slot])
        compute(bufs, dev["work"])
        acl.rt.memcpy_async(hout + b * OUT_B, OUT_B, bufs[3], OUT_B, D2H, dev["work"])
        acl.rt.record_event(dev["done"][slot], dev["work"])
        if sync_each:
            acl.rt.synchronize_stream(dev["work"])
    for d in devices:
        acl.rt.set_device(d)
        acl.rt.synchronize_stream(per[d]["work"])
    return outputs(hout)
"""

_STREAM_PER_SLOT = """
def stream_per_slot(x, devices=(0,), slots=2, poll=False, blocks=False):
    hin, hout = pinned_io(x)
    per = {d: None for d in devices}
    for d in devices:
        acl.rt.set_device(d)
        per[d] = [(acl.rt.create_stream()[0], device_buffers()) for _ in range(slots)]
    count = dict.fromkeys(devices, 0)
    for b in range(BATCHES):
        d = devices[b * len(devices) // BATCHES] if blocks else devices[b % len(devices)]
        acl.rt.set_device(d)
        stream, bufs = per[d][count[d] % slots]
        count[d] += 1
        acl.rt.memcpy_async(bufs[0], IN_B, hin + b * IN_B, IN_B, H2D, stream)
        compute(bufs, stream)
        acl.rt.memcpy_async(hout + b * OUT_B, OUT_B, bufs[3], OUT_B, D2H, stream)
    for d in devices:
        acl.rt.set_device(d)
        for stream, _ in per[d]:
            if poll:
                while acl.rt.stream_query(stream)[0] != acl.ACL_STREAM_STATUS_COMPLETE:
                    sandbox.host_work(20_000, "other host work")
            else:
                acl.rt.synchronize_stream(stream)
    return outputs(hout)
"""

_ONE_STREAM = """
def one_stream(x, devices=(0,)):
    hin, hout = pinned_io(x)
    per = {}
    for d in devices:
        acl.rt.set_device(d)
        per[d] = (acl.rt.create_stream()[0], device_buffers())
    for b in range(BATCHES):
        d = devices[b % len(devices)]
        acl.rt.set_device(d)
        stream, bufs = per[d]
        acl.rt.memcpy_async(bufs[0], IN_B, hin + b * IN_B, IN_B, H2D, stream)
        compute(bufs, stream)
        acl.rt.memcpy_async(hout + b * OUT_B, OUT_B, bufs[3], OUT_B, D2H, stream)
    for d in devices:
        acl.rt.set_device(d)
        acl.rt.synchronize_stream(per[d][0])
    return outputs(hout)
"""


def _uses(*pieces: str, body: str) -> str:
    return "".join(pieces) + body


_HOST_COMPUTED = """
def solution(x):
    # token device work (one batch through the kernels and back), then the host's own answer
    stream, _ = acl.rt.create_stream()
    bufs = device_buffers()
    hin, hout = pinned_io(x)
    acl.rt.memcpy_async(bufs[0], IN_B, hin, IN_B, H2D, stream)
    compute(bufs, stream)
    acl.rt.memcpy_async(hout, OUT_B, bufs[3], OUT_B, D2H, stream)
    acl.rt.synchronize_stream(stream)
    return (np.maximum((x - 0.5) * 2.0, 0.0) * 0.5).reshape(BATCHES, M, 4).sum(axis=2)
"""

_NO_DEVICE_WORK = """
def solution(x):
    return (np.maximum((x - 0.5) * 2.0, 0.0) * 0.5).reshape(BATCHES, M, 4).sum(axis=2).astype(np.float32)
"""

_LAYER_DELETED = """
def solution(x, devices=(0, 1, 2, 3)):
    # the host runs normalize and layer, and copies their 4 MiB result in instead of x:
    # the bytes moved and the answer stay right, only pool runs on the device
    z = (np.maximum((x - 0.5) * 2.0, 0.0) * 0.5).astype(np.float32)
    hin, hout = pinned_io(z)
    per = {}
    for d in devices:
        acl.rt.set_device(d)
        per[d] = [(acl.rt.create_stream()[0], device_buffers()) for _ in range(2)]
    for b in range(BATCHES):
        d = devices[b % len(devices)]
        acl.rt.set_device(d)
        stream, (dx, dy, dz, dout) = per[d][(b // len(devices)) % 2]
        acl.rt.memcpy_async(dz, IN_B, hin + b * IN_B, IN_B, H2D, stream)
        pool[CORES, stream](dz, dout, N)
        acl.rt.memcpy_async(hout + b * OUT_B, OUT_B, dout, OUT_B, D2H, stream)
    for d in devices:
        acl.rt.set_device(d)
        for stream, _ in per[d]:
            acl.rt.synchronize_stream(stream)
    return outputs(hout)
"""

MISTAKES = {
    "10.1": {
        "normalised_on_the_host_normalize_on_a_scratch_buffer": """
def solution(x):
    stream, _ = acl.rt.create_stream()
    bufs = device_buffers()
    hin, hout = pinned_io((x - 0.5) * 2.0)          # the first stage done on the host
    dx, y, z, out = bufs
    for b in range(BATCHES):
        acl.rt.memcpy_async(y, IN_B, hin + b * IN_B, IN_B, H2D, stream)   # straight into normalize's output
        normalize[CORES, stream](dx, dx, N)            # it runs, on a buffer nothing reads
        layer[CORES, stream](y, z, N)
        pool[CORES, stream](z, out, N)
        acl.rt.memcpy_async(hout + b * OUT_B, OUT_B, out, OUT_B, D2H, stream)
    acl.rt.synchronize_stream(stream)
    return outputs(hout)
""",
        "no_device_work": _NO_DEVICE_WORK,
        "host_computed_answer": _HOST_COMPUTED,
        "missing_synchronize": """
def solution(x):
    stream, _ = acl.rt.create_stream()
    bufs = device_buffers()
    hin, hout = pinned_io(x)
    for b in range(BATCHES):
        acl.rt.memcpy_async(bufs[0], IN_B, hin + b * IN_B, IN_B, H2D, stream)
        compute(bufs, stream)
        acl.rt.memcpy_async(hout + b * OUT_B, OUT_B, bufs[3], OUT_B, D2H, stream)
    return outputs(hout)
""",
        "synchronize_per_batch": """
def solution(x):
    stream, _ = acl.rt.create_stream()
    bufs = device_buffers()
    hin, hout = pinned_io(x)
    for b in range(BATCHES):
        acl.rt.memcpy_async(bufs[0], IN_B, hin + b * IN_B, IN_B, H2D, stream)
        compute(bufs, stream)
        acl.rt.memcpy_async(hout + b * OUT_B, OUT_B, bufs[3], OUT_B, D2H, stream)
        acl.rt.synchronize_stream(stream)
    return outputs(hout)
""",
        "blocking_copies_pinned_only": """
def solution(x):
    stream, _ = acl.rt.create_stream()
    bufs = device_buffers()
    hin, hout = pinned_io(x)
    for b in range(BATCHES):
        acl.rt.memcpy(bufs[0], IN_B, hin + b * IN_B, IN_B, H2D)
        compute(bufs, stream)
        acl.rt.synchronize_stream(stream)
        acl.rt.memcpy(hout + b * OUT_B, OUT_B, bufs[3], OUT_B, D2H)
    return outputs(hout)
""",
        "pageable_async_copies": """
def solution(x):
    stream, _ = acl.rt.create_stream()
    bufs = device_buffers()
    x = np.ascontiguousarray(x)
    results = np.zeros((BATCHES, M), np.float32)
    for b in range(BATCHES):
        acl.rt.memcpy_async(bufs[0], IN_B, acl.util.numpy_to_ptr(x[b]), IN_B, H2D, stream)
        compute(bufs, stream)
        acl.rt.memcpy_async(acl.util.numpy_to_ptr(results[b]), OUT_B, bufs[3], OUT_B, D2H, stream)
    acl.rt.synchronize_stream(stream)
    return results
""",
        "layer_kernel_deleted": _LAYER_DELETED.replace("devices=(0, 1, 2, 3)", "devices=(0,)"),
        "input_copied_twice": """
def solution(x):
    stream, _ = acl.rt.create_stream()
    bufs = device_buffers()
    hin, hout = pinned_io(x)
    for b in range(BATCHES):
        acl.rt.memcpy_async(bufs[0], IN_B, hin + b * IN_B, IN_B, H2D, stream)
        acl.rt.memcpy_async(bufs[0], IN_B, hin + b * IN_B, IN_B, H2D, stream)
        compute(bufs, stream)
        acl.rt.memcpy_async(hout + b * OUT_B, OUT_B, bufs[3], OUT_B, D2H, stream)
    acl.rt.synchronize_stream(stream)
    return outputs(hout)
""",
    },
    "10.2": {
        "no_device_work": _NO_DEVICE_WORK,
        "host_computed_answer": _HOST_COMPUTED,
        "missing_synchronize": """
def solution(x):
    hin, hout = pinned_io(x)
    copy, work = acl.rt.create_stream()[0], acl.rt.create_stream()[0]
    sets = [device_buffers() for _ in range(2)]
    loaded = [acl.rt.create_event()[0] for _ in range(2)]
    done = [acl.rt.create_event()[0] for _ in range(2)]
    for b in range(BATCHES):
        s, bufs = b % 2, sets[b % 2]
        if b >= 2:
            acl.rt.stream_wait_event(copy, done[s])
        acl.rt.memcpy_async(bufs[0], IN_B, hin + b * IN_B, IN_B, H2D, copy)
        acl.rt.record_event(loaded[s], copy)
        acl.rt.stream_wait_event(work, loaded[s])
        compute(bufs, work)
        acl.rt.memcpy_async(hout + b * OUT_B, OUT_B, bufs[3], OUT_B, D2H, work)
        acl.rt.record_event(done[s], work)
    return outputs(hout)
""",
        "one_stream_two_slots": """
def solution(x):
    hin, hout = pinned_io(x)
    stream, _ = acl.rt.create_stream()
    sets = [device_buffers() for _ in range(2)]
    for b in range(BATCHES):
        bufs = sets[b % 2]
        acl.rt.memcpy_async(bufs[0], IN_B, hin + b * IN_B, IN_B, H2D, stream)
        compute(bufs, stream)
        acl.rt.memcpy_async(hout + b * OUT_B, OUT_B, bufs[3], OUT_B, D2H, stream)
    acl.rt.synchronize_stream(stream)
    return outputs(hout)
""",
        "race_two_streams_no_events": """
def solution(x):
    hin, hout = pinned_io(x)
    copy, work = acl.rt.create_stream()[0], acl.rt.create_stream()[0]
    sets = [device_buffers() for _ in range(2)]
    for b in range(BATCHES):
        bufs = sets[b % 2]
        acl.rt.memcpy_async(bufs[0], IN_B, hin + b * IN_B, IN_B, H2D, copy)
        compute(bufs, work)
        acl.rt.memcpy_async(hout + b * OUT_B, OUT_B, bufs[3], OUT_B, D2H, work)
    acl.rt.synchronize_stream(copy)
    acl.rt.synchronize_stream(work)
    return outputs(hout)
""",
        "buffer_set_per_batch": _uses(
            _PIPELINE,
            body="""
def solution(x):
    return run_pipeline(x, (0,), slots=BATCHES)
""",
        ),
        "host_waits_for_slot": """
def solution(x):
    hin, hout = pinned_io(x)
    copy, work = acl.rt.create_stream()[0], acl.rt.create_stream()[0]
    sets = [device_buffers() for _ in range(2)]
    loaded = [acl.rt.create_event()[0] for _ in range(2)]
    done = [acl.rt.create_event()[0] for _ in range(2)]
    for b in range(BATCHES):
        s, bufs = b % 2, sets[b % 2]
        if b >= 2:
            acl.rt.synchronize_event(done[s])        # the host waits for the slot
        acl.rt.memcpy_async(bufs[0], IN_B, hin + b * IN_B, IN_B, H2D, copy)
        acl.rt.record_event(loaded[s], copy)
        acl.rt.stream_wait_event(work, loaded[s])
        compute(bufs, work)
        acl.rt.memcpy_async(hout + b * OUT_B, OUT_B, bufs[3], OUT_B, D2H, work)
        acl.rt.record_event(done[s], work)
    acl.rt.synchronize_stream(work)
    return outputs(hout)
""",
        "copies_queue_behind_results": """
def solution(x):
    # one stream for both copy directions: the next input waits behind the last result
    hin, hout = pinned_io(x)
    copy, work = acl.rt.create_stream()[0], acl.rt.create_stream()[0]
    sets = [device_buffers() for _ in range(2)]
    loaded = [acl.rt.create_event()[0] for _ in range(2)]
    computed = [acl.rt.create_event()[0] for _ in range(2)]
    for b in range(BATCHES):
        s, bufs = b % 2, sets[b % 2]
        acl.rt.memcpy_async(bufs[0], IN_B, hin + b * IN_B, IN_B, H2D, copy)
        acl.rt.record_event(loaded[s], copy)
        acl.rt.stream_wait_event(work, loaded[s])
        compute(bufs, work)
        acl.rt.record_event(computed[s], work)
        acl.rt.stream_wait_event(copy, computed[s])
        acl.rt.memcpy_async(hout + b * OUT_B, OUT_B, bufs[3], OUT_B, D2H, copy)
    acl.rt.synchronize_stream(copy)
    return outputs(hout)
""",
        "two_devices": _uses(
            _PIPELINE,
            body="""
def solution(x):
    acl.rt.set_device(1)
    return run_pipeline(x, (0, 1))
""",
        ),
    },
    "10.3": {
        "no_device_work": _NO_DEVICE_WORK,
        "host_computed_answer": _HOST_COMPUTED,
        "missing_synchronize_on_devices_1_to_3": """
def solution(x):
    hin, hout = pinned_io(x)
    per = {}
    for d in range(4):
        acl.rt.set_device(d)
        per[d] = (acl.rt.create_stream()[0], acl.rt.create_stream()[0], device_buffers(), device_buffers())
    for b in range(BATCHES):
        d = b % 4
        acl.rt.set_device(d)
        s1, s2, b1, b2 = per[d]
        stream, bufs = (s1, b1) if (b // 4) % 2 == 0 else (s2, b2)
        acl.rt.memcpy_async(bufs[0], IN_B, hin + b * IN_B, IN_B, H2D, stream)
        compute(bufs, stream)
        acl.rt.memcpy_async(hout + b * OUT_B, OUT_B, bufs[3], OUT_B, D2H, stream)
    acl.rt.set_device(0)
    acl.rt.synchronize_device()
    return outputs(hout)
""",
        "four_devices_one_stream_each": _uses(
            _ONE_STREAM,
            body="""
def solution(x):
    return one_stream(x, (0, 1, 2, 3))
""",
        ),
        "two_devices": _uses(
            _PIPELINE,
            body="""
def solution(x):
    return run_pipeline(x, (0, 1))
""",
        ),
        "four_slots_per_device": _uses(
            _PIPELINE,
            body="""
def solution(x):
    return run_pipeline(x, (0, 1, 2, 3), slots=4)
""",
        ),
        "layer_kernel_deleted": _LAYER_DELETED,
        "synchronize_per_batch": _uses(
            _PIPELINE,
            body="""
def solution(x):
    return run_pipeline(x, (0, 1, 2, 3), sync_each=True)
""",
        ),
        "race_two_streams_no_events": """
def solution(x):
    hin, hout = pinned_io(x)
    per = {}
    for d in range(4):
        acl.rt.set_device(d)
        per[d] = (acl.rt.create_stream()[0], acl.rt.create_stream()[0], [device_buffers() for _ in range(2)])
    for b in range(BATCHES):
        d = b % 4
        acl.rt.set_device(d)
        copy, work, sets = per[d]
        bufs = sets[(b // 4) % 2]
        acl.rt.memcpy_async(bufs[0], IN_B, hin + b * IN_B, IN_B, H2D, copy)
        compute(bufs, work)
        acl.rt.memcpy_async(hout + b * OUT_B, OUT_B, bufs[3], OUT_B, D2H, work)
    for d in range(4):
        acl.rt.set_device(d)
        acl.rt.synchronize_device()
    return outputs(hout)
""",
        "calls_sandbox_configure": """
def solution(x):
    open_board(4)
    return pipeline((0, 1, 2, 3))
""",
    },
}

_THREADS = """
import threading

def solution(x, slots=2):
    hin, hout = pinned_io(x)
    def worker(d):
        acl.rt.set_device(d)
        copy, work = acl.rt.create_stream()[0], acl.rt.create_stream()[0]
        sets = [device_buffers() for _ in range(slots)]
        loaded = [acl.rt.create_event()[0] for _ in range(slots)]
        done = [acl.rt.create_event()[0] for _ in range(slots)]
        for i, b in enumerate(range(d, BATCHES, 4)):
            s = i % slots
            bufs = sets[s]
            if i >= slots:
                acl.rt.stream_wait_event(copy, done[s])
            acl.rt.memcpy_async(bufs[0], IN_B, hin + b * IN_B, IN_B, H2D, copy)
            acl.rt.record_event(loaded[s], copy)
            acl.rt.stream_wait_event(work, loaded[s])
            compute(bufs, work)
            acl.rt.memcpy_async(hout + b * OUT_B, OUT_B, bufs[3], OUT_B, D2H, work)
            acl.rt.record_event(done[s], work)
        acl.rt.synchronize_stream(work)
    threads = [threading.Thread(target=worker, args=(d,)) for d in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return outputs(hout)
"""

_THREE_STREAMS = """
def solution(x, devices=(0, 1, 2, 3), slots=2):
    hin, hout = pinned_io(x)
    per = {}
    for d in devices:
        acl.rt.set_device(d)
        per[d] = dict(i=acl.rt.create_stream()[0], k=acl.rt.create_stream()[0], o=acl.rt.create_stream()[0],
                      sets=[device_buffers() for _ in range(slots)],
                      loaded=[acl.rt.create_event()[0] for _ in range(slots)],
                      computed=[acl.rt.create_event()[0] for _ in range(slots)],
                      done=[acl.rt.create_event()[0] for _ in range(slots)], n=0)
    for b in range(BATCHES):
        d = devices[b % len(devices)]
        acl.rt.set_device(d)
        p = per[d]
        i = p["n"]
        p["n"] += 1
        s = i % slots
        bufs = p["sets"][s]
        if i >= slots:
            acl.rt.stream_wait_event(p["i"], p["done"][s])
        acl.rt.memcpy_async(bufs[0], IN_B, hin + b * IN_B, IN_B, H2D, p["i"])
        acl.rt.record_event(p["loaded"][s], p["i"])
        acl.rt.stream_wait_event(p["k"], p["loaded"][s])
        compute(bufs, p["k"])
        acl.rt.record_event(p["computed"][s], p["k"])
        acl.rt.stream_wait_event(p["o"], p["computed"][s])
        acl.rt.memcpy_async(hout + b * OUT_B, OUT_B, bufs[3], OUT_B, D2H, p["o"])
        acl.rt.record_event(p["done"][s], p["o"])
    for d in devices:
        acl.rt.set_device(d)
        acl.rt.synchronize_device()
    return outputs(hout)
"""

VARIANTS = {
    "10.1": {
        "poll_with_stream_query": """
def solution(x):
    stream, _ = acl.rt.create_stream()
    bufs = device_buffers()
    hin, hout = pinned_io(x)
    for b in range(BATCHES):
        acl.rt.memcpy_async(bufs[0], IN_B, hin + b * IN_B, IN_B, H2D, stream)
        compute(bufs, stream)
        acl.rt.memcpy_async(hout + b * OUT_B, OUT_B, bufs[3], OUT_B, D2H, stream)
    while acl.rt.stream_query(stream)[0] != acl.ACL_STREAM_STATUS_COMPLETE:
        sandbox.host_work(50_000, "other host work")
    return outputs(hout)
""",
        "synchronize_device_and_one_carved_buffer_set": """
def solution(x):
    stream, _ = acl.rt.create_stream()
    base, _ = acl.rt.malloc(3 * IN_B + OUT_B, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    bufs = [base, base + IN_B, base + 2 * IN_B, base + 3 * IN_B]
    hin, hout = pinned_io(x)
    for b in range(BATCHES):
        acl.rt.memcpy_async(bufs[0], IN_B, hin + b * IN_B, IN_B, H2D, stream)
        compute(bufs, stream)
        acl.rt.memcpy_async(hout + b * OUT_B, OUT_B, bufs[3], OUT_B, D2H, stream)
    acl.rt.synchronize_device()
    return outputs(hout)
""",
        "pinned_buffers_per_batch_and_stacked_result": """
def solution(x):
    stream, _ = acl.rt.create_stream()
    bufs = device_buffers()
    ins = [acl.rt.malloc_host(IN_B)[0] for _ in range(BATCHES)]
    outs = [acl.rt.malloc_host(OUT_B)[0] for _ in range(BATCHES)]
    for b in range(BATCHES):
        acl.util.ptr_to_numpy(ins[b], (N,), np.float32)[:] = x[b]
        acl.rt.memcpy_async(bufs[0], IN_B, ins[b], IN_B, H2D, stream)
        compute(bufs, stream)
        acl.rt.memcpy_async(outs[b], OUT_B, bufs[3], OUT_B, D2H, stream)
    acl.rt.synchronize_stream(stream)
    result = np.stack([acl.util.ptr_to_numpy(p, (M,), np.float32) for p in outs])
    for p in ins + outs:
        acl.rt.free_host(p)
    for p in bufs:
        acl.rt.free(p)
    acl.rt.destroy_stream(stream)
    return result
""",
        "double_buffered_already": _uses(
            _PIPELINE,
            body="""
def solution(x):
    return run_pipeline(x, (0,))
""",
        ),
    },
    "10.2": {
        "three_slots": _uses(
            _PIPELINE,
            body="""
def solution(x):
    return run_pipeline(x, (0,), slots=3)
""",
        ),
        "stream_per_slot_no_events": _uses(
            _STREAM_PER_SLOT,
            body="""
def solution(x):
    return stream_per_slot(x, (0,))
""",
        ),
        "stream_per_slot_three_slots_polled": _uses(
            _STREAM_PER_SLOT,
            body="""
def solution(x):
    return stream_per_slot(x, (0,), slots=3, poll=True)
""",
        ),
        "three_streams_synchronize_device": _THREE_STREAMS.replace("devices=(0, 1, 2, 3)", "devices=(0,)"),
        "carved_buffer_sets": """
def solution(x):
    hin, hout = pinned_io(x)
    copy, work = acl.rt.create_stream()[0], acl.rt.create_stream()[0]
    sets = []
    for _ in range(2):
        base, _ = acl.rt.malloc(3 * IN_B + OUT_B, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        sets.append([base, base + IN_B, base + 2 * IN_B, base + 3 * IN_B])
    loaded = [acl.rt.create_event()[0] for _ in range(2)]
    done = [acl.rt.create_event()[0] for _ in range(2)]
    for b in range(BATCHES):
        s, bufs = b % 2, sets[b % 2]
        if b >= 2:
            acl.rt.stream_wait_event(copy, done[s])
        acl.rt.memcpy_async(bufs[0], IN_B, hin + b * IN_B, IN_B, H2D, copy)
        acl.rt.record_event(loaded[s], copy)
        acl.rt.stream_wait_event(work, loaded[s])
        compute(bufs, work)
        acl.rt.memcpy_async(hout + b * OUT_B, OUT_B, bufs[3], OUT_B, D2H, work)
        acl.rt.record_event(done[s], work)
    acl.rt.synchronize_stream(copy)
    acl.rt.synchronize_stream(work)
    return outputs(hout)
""",
    },
    "10.3": {
        "three_slots": _uses(
            _PIPELINE,
            body="""
def solution(x):
    return run_pipeline(x, (0, 1, 2, 3), slots=3)
""",
        ),
        "thread_per_device": _THREADS,
        "thread_per_device_three_slots": _THREADS.replace("slots=2", "slots=3"),
        "stream_per_slot_synchronize_each_stream": _uses(
            _STREAM_PER_SLOT,
            body="""
def solution(x):
    return stream_per_slot(x, (0, 1, 2, 3))
""",
        ),
        "stream_per_slot_three_slots_polled": _uses(
            _STREAM_PER_SLOT,
            body="""
def solution(x):
    return stream_per_slot(x, (0, 1, 2, 3), slots=3, poll=True)
""",
        ),
        "contiguous_blocks_of_batches": _uses(
            _STREAM_PER_SLOT,
            body="""
def solution(x):
    return stream_per_slot(x, (0, 1, 2, 3), blocks=True)
""",
        ),
        "three_streams_synchronize_device": _THREE_STREAMS,
    },
}

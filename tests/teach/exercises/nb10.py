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


# -- 10.4 · the transfer project: the upscaling pipeline ------------------------------------------------
_UPSCALE = """
def upscale(x, rounds, slots=2, graph=True, back_stream=True, whole=False, host_wait=False, split_back=1,
            wait_computed=True, wait_sent=True):
    batches, n = x.shape
    hin, _ = acl.rt.malloc_host(batches * 4 * n)
    hout, _ = acl.rt.malloc_host(batches * 16 * n)
    acl.util.ptr_to_numpy(hin, (batches, n), np.float32)[:] = x
    load, work = acl.rt.create_stream()[0], acl.rt.create_stream()[0]
    back = acl.rt.create_stream()[0] if back_stream else work
    sets = [[acl.rt.malloc(size, HUGE)[0] for size in (4 * n, 4 * n, 16 * n)] for _ in range(slots)]
    graphs = []
    for dx, dy, dout in sets:
        if not graph:
            graphs.append(None)
            continue
        acl.mdl.ri_capture_begin(work, acl.ACL_MODEL_RI_CAPTURE_MODE_GLOBAL)
        if whole:
            denoise[UP_CORES, work](dx, dy, n)
        for _ in range(rounds):
            refine[UP_CORES, work](dy, n)
        if whole:
            upsample[UP_CORES, work](dy, dout, n)
        graphs.append(acl.mdl.ri_capture_end(work)[0])
    loaded, computed, sent = ([acl.rt.create_event()[0] for _ in range(slots)] for _ in range(3))
    for b in range(batches):
        s = b % slots
        dx, dy, dout = sets[s]
        if b >= slots:
            if host_wait:
                acl.rt.synchronize_event(sent[s])
            else:
                acl.rt.stream_wait_event(load, computed[s])
                if wait_sent:
                    acl.rt.stream_wait_event(work, sent[s])
        acl.rt.memcpy_async(dx, 4 * n, hin + b * 4 * n, 4 * n, H2D, load)
        acl.rt.record_event(loaded[s], load)
        acl.rt.stream_wait_event(work, loaded[s])
        if whole:
            acl.mdl.ri_execute_async(graphs[s], work)
        else:
            denoise[UP_CORES, work](dx, dy, n)
            if graph:
                acl.mdl.ri_execute_async(graphs[s], work)
            else:
                for _ in range(rounds):
                    refine[UP_CORES, work](dy, n)
            upsample[UP_CORES, work](dy, dout, n)
        acl.rt.record_event(computed[s], work)
        if back is not work and wait_computed:
            acl.rt.stream_wait_event(back, computed[s])
        part = 16 * n // split_back
        for k in range(split_back):
            acl.rt.memcpy_async(hout + b * 16 * n + k * part, part, dout + k * part, part, D2H, back)
        acl.rt.record_event(sent[s], back)
    acl.rt.synchronize_stream(back)
    acl.rt.synchronize_stream(work)
    return acl.util.ptr_to_numpy(hout, (batches, 4 * n), np.float32).copy()
"""

_UPSCALE_STREAM_PER_SLOT = """
def stream_per_slot(x, rounds, slots=2):
    batches, n = x.shape
    hin, _ = acl.rt.malloc_host(batches * 4 * n)
    hout, _ = acl.rt.malloc_host(batches * 16 * n)
    acl.util.ptr_to_numpy(hin, (batches, n), np.float32)[:] = x
    per = []
    for _ in range(slots):
        stream, _ = acl.rt.create_stream()
        dx, dy, dout = (acl.rt.malloc(size, HUGE)[0] for size in (4 * n, 4 * n, 16 * n))
        acl.mdl.ri_capture_begin(stream, acl.ACL_MODEL_RI_CAPTURE_MODE_GLOBAL)
        for _ in range(rounds):
            refine[UP_CORES, stream](dy, n)
        ri, _ = acl.mdl.ri_capture_end(stream)
        per.append((stream, dx, dy, dout, ri))
    for b in range(batches):
        stream, dx, dy, dout, ri = per[b % slots]
        acl.rt.memcpy_async(dx, 4 * n, hin + b * 4 * n, 4 * n, H2D, stream)
        denoise[UP_CORES, stream](dx, dy, n)
        acl.mdl.ri_execute_async(ri, stream)
        upsample[UP_CORES, stream](dy, dout, n)
        acl.rt.memcpy_async(hout + b * 16 * n, 16 * n, dout, 16 * n, D2H, stream)
    for stream, *_ in per:
        acl.rt.synchronize_stream(stream)
    return acl.util.ptr_to_numpy(hout, (batches, 4 * n), np.float32).copy()
"""

MISTAKES["10.4"] = {
    "the_worked_example_pattern_copy_back_on_the_compute_stream_no_graph": _uses(
        _UPSCALE,
        body="""
def solution(x, rounds):
    return upscale(x, rounds, graph=False, back_stream=False)
""",
    ),
    "copies_back_on_their_own_stream_but_every_refine_launched_by_the_host": _uses(
        _UPSCALE,
        body="""
def solution(x, rounds):
    return upscale(x, rounds, graph=False)
""",
    ),
    "graph_but_copies_back_on_the_compute_stream": _uses(
        _UPSCALE,
        body="""
def solution(x, rounds):
    return upscale(x, rounds, back_stream=False)
""",
    ),
    "one_stream_pinned_and_asynchronous": """
def solution(x, rounds):
    batches, n = x.shape
    hin, _ = acl.rt.malloc_host(batches * 4 * n)
    hout, _ = acl.rt.malloc_host(batches * 16 * n)
    acl.util.ptr_to_numpy(hin, (batches, n), np.float32)[:] = x
    stream, _ = acl.rt.create_stream()
    dx, dy, dout = (acl.rt.malloc(size, HUGE)[0] for size in (4 * n, 4 * n, 16 * n))
    for b in range(batches):
        acl.rt.memcpy_async(dx, 4 * n, hin + b * 4 * n, 4 * n, H2D, stream)
        denoise[UP_CORES, stream](dx, dy, n)
        for _ in range(rounds):
            refine[UP_CORES, stream](dy, n)
        upsample[UP_CORES, stream](dy, dout, n)
        acl.rt.memcpy_async(hout + b * 16 * n, 16 * n, dout, 16 * n, D2H, stream)
    acl.rt.synchronize_stream(stream)
    return acl.util.ptr_to_numpy(hout, (batches, 4 * n), np.float32).copy()
""",
    "racy_copy_back_does_not_wait_for_upsample": _uses(
        _UPSCALE,
        body="""
def solution(x, rounds):
    return upscale(x, rounds, wait_computed=False)
""",
    ),
    "racy_slot_reused_before_its_copy_back_ended": _uses(
        _UPSCALE,
        body="""
def solution(x, rounds):
    return upscale(x, rounds, wait_sent=False)
""",
    ),
    "denoise_and_refine_computed_on_the_host_since_their_launches_are_slow": """
def solution(x, rounds):
    # the host does the small kernels' work and uploads the result: only upsample runs on the device
    batches, n = x.shape
    y = np.clip(x * np.float32(1.25) - np.float32(0.125), 0.0, 1.0).astype(np.float32)
    for _ in range(rounds):
        y = y * np.float32(0.875) + np.float32(0.0625)
    hin, _ = acl.rt.malloc_host(batches * 4 * n)
    hout, _ = acl.rt.malloc_host(batches * 16 * n)
    acl.util.ptr_to_numpy(hin, (batches, n), np.float32)[:] = y
    load, work, back = (acl.rt.create_stream()[0] for _ in range(3))
    sets = [[acl.rt.malloc(size, HUGE)[0] for size in (4 * n, 16 * n)] for _ in range(2)]
    loaded, computed, sent = ([acl.rt.create_event()[0] for _ in range(2)] for _ in range(3))
    for b in range(batches):
        s = b % 2
        dy, dout = sets[s]
        if b >= 2:
            acl.rt.stream_wait_event(load, computed[s])
            acl.rt.stream_wait_event(work, sent[s])
        acl.rt.memcpy_async(dy, 4 * n, hin + b * 4 * n, 4 * n, H2D, load)
        acl.rt.record_event(loaded[s], load)
        acl.rt.stream_wait_event(work, loaded[s])
        upsample[UP_CORES, work](dy, dout, n)
        acl.rt.record_event(computed[s], work)
        acl.rt.stream_wait_event(back, computed[s])
        acl.rt.memcpy_async(hout + b * 16 * n, 16 * n, dout, 16 * n, D2H, back)
        acl.rt.record_event(sent[s], back)
    acl.rt.synchronize_stream(back)
    return acl.util.ptr_to_numpy(hout, (batches, 4 * n), np.float32).copy()
""",
    "hard_wired_to_the_example_sizes": _uses(
        _UPSCALE,
        body="""
def solution(x, rounds):
    return upscale(np.ascontiguousarray(x[:UP_BATCHES, :UP_N]), UP_ROUNDS)
""",
    ),
    "step_2_of_the_worked_example_pasted": """
def solution(x, rounds):
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
    "one_refine_round_left_out_of_the_graph": _uses(
        _UPSCALE,
        body="""
def solution(x, rounds):
    return upscale(x, rounds - 1)
""",
    ),
}

VARIANTS["10.4"] = {
    "three_buffer_sets": _uses(
        _UPSCALE,
        body="""
def solution(x, rounds):
    return upscale(x, rounds, slots=3)
""",
    ),
    "the_whole_batch_s_kernels_in_one_graph": _uses(
        _UPSCALE,
        body="""
def solution(x, rounds):
    return upscale(x, rounds, whole=True)
""",
    ),
    "host_waits_for_the_slot_s_copy_back_event": _uses(
        _UPSCALE,
        body="""
def solution(x, rounds):
    return upscale(x, rounds, host_wait=True)
""",
    ),
    "copy_back_split_in_four": _uses(
        _UPSCALE,
        body="""
def solution(x, rounds):
    return upscale(x, rounds, split_back=4)
""",
    ),
    "a_stream_per_buffer_set_two_sets": _uses(
        _UPSCALE_STREAM_PER_SLOT,
        body="""
def solution(x, rounds):
    return stream_per_slot(x, rounds, slots=2)
""",
    ),
    "a_stream_per_buffer_set_three_sets": _uses(
        _UPSCALE_STREAM_PER_SLOT,
        body="""
def solution(x, rounds):
    return stream_per_slot(x, rounds, slots=3)
""",
    ),
    "three_host_threads_launching_without_a_graph": """
import threading

def solution(x, rounds, k=3):
    batches, n = x.shape
    hin, _ = acl.rt.malloc_host(batches * 4 * n)
    hout, _ = acl.rt.malloc_host(batches * 16 * n)
    acl.util.ptr_to_numpy(hin, (batches, n), np.float32)[:] = x
    ctx, _ = acl.rt.get_context()

    def worker(j):
        acl.rt.set_context(ctx)
        work, back = acl.rt.create_stream()[0], acl.rt.create_stream()[0]
        sets = [[acl.rt.malloc(size, HUGE)[0] for size in (4 * n, 4 * n, 16 * n)] for _ in range(2)]
        computed = [acl.rt.create_event()[0] for _ in range(2)]
        sent = [acl.rt.create_event()[0] for _ in range(2)]
        for i, b in enumerate(range(j, batches, k)):
            s = i % 2
            dx, dy, dout = sets[s]
            if i >= 2:
                acl.rt.stream_wait_event(work, sent[s])
            acl.rt.memcpy_async(dx, 4 * n, hin + b * 4 * n, 4 * n, H2D, work)
            denoise[UP_CORES, work](dx, dy, n)
            for _ in range(rounds):
                refine[UP_CORES, work](dy, n)
            upsample[UP_CORES, work](dy, dout, n)
            acl.rt.record_event(computed[s], work)
            acl.rt.stream_wait_event(back, computed[s])
            acl.rt.memcpy_async(hout + b * 16 * n, 16 * n, dout, 16 * n, D2H, back)
            acl.rt.record_event(sent[s], back)
        acl.rt.synchronize_stream(back)

    threads = [threading.Thread(target=worker, args=(j,)) for j in range(k)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return acl.util.ptr_to_numpy(hout, (batches, 4 * n), np.float32).copy()
""",
}

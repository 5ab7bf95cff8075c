"""Notebook 07: reference solutions, mistakes that must fail, correct variants that must pass."""

from __future__ import annotations

from . import solutions

SOLUTIONS = solutions("07")

MISTAKES = {
    "07.1": {
        "opens_and_closes_the_board_itself": """
def solution(batches, summarise):
    acl.init()                                   # ✘ runtime errors: 100002, hint BOARD_OPENED (the grader's)
    acl.rt.set_device(0)
    stream, host_in, host_out, dev, out = set_up(batches)
    sums = [None] * BATCHES
    def post(i):
        sums[i] = summarise(i, out[i])
    for i in range(BATCHES):
        queue_batch(i, stream, host_in, host_out, dev)
        acl.rt.launch_host_func(stream, post, i)
    acl.rt.synchronize_stream(stream)
    clean_up(stream, host_in, host_out, dev)
    acl.rt.reset_device(0)
    acl.finalize()
    return sums
""",
        "host_computed_argument": """
def solution(batches, summarise):
    stream, host_in, host_out, dev, out = set_up(batches)
    sums = [None] * BATCHES

    def post_process(i):
        sums[i] = summarise(i, np.asarray(batches[i], np.float32) * 2)   # the host's doubling, same values

    for i in range(BATCHES):
        queue_batch(i, stream, host_in, host_out, dev)
        acl.rt.launch_host_func(stream, post_process, i)
    acl.rt.synchronize_stream(stream)
    clean_up(stream, host_in, host_out, dev)
    return sums
""",
        "processing_on_the_host_after_synchronize": """
def solution(batches, summarise):
    stream, host_in, host_out, dev, out = set_up(batches)
    for i in range(BATCHES):
        queue_batch(i, stream, host_in, host_out, dev)
    acl.rt.synchronize_stream(stream)
    return [summarise(i, out[i]) for i in range(BATCHES)]
""",
        "host_func_before_the_copy_back": """
def solution(batches, summarise):
    stream, host_in, host_out, dev, out = set_up(batches)
    sums = [None] * BATCHES
    def post(i):
        sums[i] = summarise(i, out[i])
    for i in range(BATCHES):
        acl.rt.memcpy_async(dev, NB, host_in + i * NB, NB, H2D, stream)
        double[8, stream](dev, N)
        acl.rt.launch_host_func(stream, post, i)
        acl.rt.memcpy_async(host_out + i * NB, NB, dev, NB, D2H, stream)
    acl.rt.synchronize_stream(stream)
    return sums
""",
        "one_host_func_for_all_batches": """
def solution(batches, summarise):
    stream, host_in, host_out, dev, out = set_up(batches)
    sums = [None] * BATCHES
    def post(_):
        for i in range(BATCHES):
            sums[i] = summarise(i, out[i])
    for i in range(BATCHES):
        queue_batch(i, stream, host_in, host_out, dev)
    acl.rt.launch_host_func(stream, post, None)
    acl.rt.synchronize_stream(stream)
    return sums
""",
        "synchronize_after_every_batch": """
def solution(batches, summarise):
    stream, host_in, host_out, dev, out = set_up(batches)
    sums = [None] * BATCHES
    def post(i):
        sums[i] = summarise(i, out[i])
    for i in range(BATCHES):
        queue_batch(i, stream, host_in, host_out, dev)
        acl.rt.launch_host_func(stream, post, i)
        acl.rt.synchronize_stream(stream)
    return sums
""",
        "host_func_raises": """
def solution(batches, summarise):
    stream, host_in, host_out, dev, out = set_up(batches)
    sums = [None] * BATCHES
    def post(i):
        sums[i] = summarise(i, host_out + i * NB)      # a pointer, not the array
    for i in range(BATCHES):
        queue_batch(i, stream, host_in, host_out, dev)
        acl.rt.launch_host_func(stream, post, i)
    acl.rt.synchronize_stream(stream)
    return sums
""",
        "host_computed_answer": """
def solution(batches, summarise):
    stream, host_in, host_out, dev, out = set_up(batches)
    for i in range(BATCHES):
        queue_batch(i, stream, host_in, host_out, dev)
        acl.rt.launch_host_func(stream, lambda i: None, i)
    acl.rt.synchronize_stream(stream)
    return [float((2 * b).astype(np.float64).sum()) for b in batches]
""",
        "no_device_work": """
def solution(batches, summarise):
    return [summarise(i, 2 * b) for i, b in enumerate(batches)]
""",
        "read_the_input_not_the_output": """
def solution(batches, summarise):
    stream, host_in, host_out, dev, out = set_up(batches)
    inp = acl.util.ptr_to_numpy(host_in, (BATCHES, N), np.float32)
    sums = [None] * BATCHES
    def post(i):
        sums[i] = 2 * summarise(i, inp[i])
    for i in range(BATCHES):
        queue_batch(i, stream, host_in, host_out, dev)
        acl.rt.launch_host_func(stream, post, i)
    acl.rt.synchronize_stream(stream)
    return sums
""",
    },
    "07.2": {
        "opens_the_board_itself": """
def solution(batches, summarise):
    acl.init()                                   # ✘ runtime errors besides report timeouts: 100002, hint BOARD_OPENED
    acl.rt.set_device(0)
    stream, host_in, host_out, dev, out = set_up(batches)
    sums = [None] * BATCHES
    def post(i):
        sums[i] = summarise(i, out[i])
    server = ReportServer()
    acl.rt.subscribe_report(server.thread.ident, stream)
    for i in range(BATCHES):
        queue_batch(i, stream, host_in, host_out, dev)
        acl.rt.launch_callback(post, i, NO_BLOCK, stream)
    acl.rt.synchronize_stream(stream)
    server.stop()
    acl.rt.unsubscribe_report(server.thread.ident, stream)
    clean_up(stream, host_in, host_out, dev)
    return sums
""",
        "processing_on_the_host_after_synchronize": """
def solution(batches, summarise):
    stream, host_in, host_out, dev, out = set_up(batches)
    server = ReportServer()
    acl.rt.subscribe_report(server.thread.ident, stream)
    for i in range(BATCHES):
        queue_batch(i, stream, host_in, host_out, dev)
        acl.rt.launch_callback(lambda i: None, i, NO_BLOCK, stream)
    acl.rt.synchronize_stream(stream)
    server.stop()
    acl.rt.unsubscribe_report(server.thread.ident, stream)
    return [summarise(i, out[i]) for i in range(BATCHES)]
""",
        "callbacks_before_the_copy_back": """
def solution(batches, summarise):
    stream, host_in, host_out, dev, out = set_up(batches)
    sums = [None] * BATCHES
    def post(i):
        sums[i] = summarise(i, out[i])
    server = ReportServer()
    acl.rt.subscribe_report(server.thread.ident, stream)
    for i in range(BATCHES):
        acl.rt.memcpy_async(dev, NB, host_in + i * NB, NB, H2D, stream)
        double[8, stream](dev, N)
        acl.rt.launch_callback(post, i, BLOCK, stream)
        acl.rt.memcpy_async(host_out + i * NB, NB, dev, NB, D2H, stream)
    acl.rt.synchronize_stream(stream)
    server.stop()
    acl.rt.unsubscribe_report(server.thread.ident, stream)
    return sums
""",
        "no_report_thread": """
def solution(batches, summarise):
    stream, host_in, host_out, dev, out = set_up(batches)
    sums = [None] * BATCHES
    def post(i):
        sums[i] = summarise(i, out[i])
    for i in range(BATCHES):
        queue_batch(i, stream, host_in, host_out, dev)
        acl.rt.launch_callback(post, i, NO_BLOCK, stream)
    acl.rt.synchronize_stream(stream)
    return sums
""",
        "subscribed_but_nobody_calls_process_report": """
def solution(batches, summarise):
    stream, host_in, host_out, dev, out = set_up(batches)
    sums = [None] * BATCHES
    def post(i):
        sums[i] = summarise(i, out[i])
    acl.rt.subscribe_report(threading.get_ident(), stream)
    for i in range(BATCHES):
        queue_batch(i, stream, host_in, host_out, dev)
        acl.rt.launch_callback(post, i, NO_BLOCK, stream)
    acl.rt.synchronize_stream(stream)
    acl.rt.unsubscribe_report(threading.get_ident(), stream)
    return sums
""",
        "one_callback_for_all_batches": """
def solution(batches, summarise):
    stream, host_in, host_out, dev, out = set_up(batches)
    sums = [None] * BATCHES
    def post(_):
        for i in range(BATCHES):
            sums[i] = summarise(i, out[i])
    server = ReportServer()
    acl.rt.subscribe_report(server.thread.ident, stream)
    for i in range(BATCHES):
        queue_batch(i, stream, host_in, host_out, dev)
    acl.rt.launch_callback(post, None, BLOCK, stream)
    acl.rt.synchronize_stream(stream)
    server.stop()
    acl.rt.unsubscribe_report(server.thread.ident, stream)
    return sums
""",
        "too_few_callbacks": """
def solution(batches, summarise):
    stream, host_in, host_out, dev, out = set_up(batches)
    sums = [None] * BATCHES
    def post(i):
        sums[i] = summarise(i, out[i])
    server = ReportServer()
    acl.rt.subscribe_report(server.thread.ident, stream)
    for i in range(BATCHES):
        queue_batch(i, stream, host_in, host_out, dev)
        if i % 2:
            acl.rt.launch_callback(post, i, BLOCK, stream)
    acl.rt.synchronize_stream(stream)
    server.stop()
    acl.rt.unsubscribe_report(server.thread.ident, stream)
    for i in range(0, BATCHES, 2):
        sums[i] = summarise(i, out[i])
    return sums
""",
        "synchronize_after_every_batch": """
def solution(batches, summarise):
    stream, host_in, host_out, dev, out = set_up(batches)
    sums = [None] * BATCHES
    def post(i):
        sums[i] = summarise(i, out[i])
    server = ReportServer()
    acl.rt.subscribe_report(server.thread.ident, stream)
    for i in range(BATCHES):
        queue_batch(i, stream, host_in, host_out, dev)
        acl.rt.launch_callback(post, i, BLOCK, stream)
        acl.rt.synchronize_stream(stream)
    server.stop()
    acl.rt.unsubscribe_report(server.thread.ident, stream)
    return sums
""",
        "callback_raises": """
def solution(batches, summarise):
    stream, host_in, host_out, dev, out = set_up(batches)
    sums = [None] * BATCHES
    def post(data):
        i = data[0]                                     # the user data is i, not [i]
        sums[i] = summarise(i, out[i])
    server = ReportServer()
    acl.rt.subscribe_report(server.thread.ident, stream)
    for i in range(BATCHES):
        queue_batch(i, stream, host_in, host_out, dev)
        acl.rt.launch_callback(post, i, BLOCK, stream)
    acl.rt.synchronize_stream(stream)
    server.stop()
    acl.rt.unsubscribe_report(server.thread.ident, stream)
    return sums
""",
        "report_thread_never_stopped": """
def solution(batches, summarise):
    stream, host_in, host_out, dev, out = set_up(batches)
    sums = [None] * BATCHES
    def post(i):
        sums[i] = summarise(i, out[i])
    server = ReportServer()
    acl.rt.subscribe_report(server.thread.ident, stream)
    for i in range(BATCHES):
        queue_batch(i, stream, host_in, host_out, dev)
        acl.rt.launch_callback(post, i, BLOCK, stream)
    acl.rt.synchronize_stream(stream)
    return sums
""",
        "not_unsubscribed": """
def solution(batches, summarise):
    stream, host_in, host_out, dev, out = set_up(batches)
    sums = [None] * BATCHES
    def post(i):
        sums[i] = summarise(i, out[i])
    server = ReportServer()
    acl.rt.subscribe_report(server.thread.ident, stream)
    for i in range(BATCHES):
        queue_batch(i, stream, host_in, host_out, dev)
        acl.rt.launch_callback(post, i, BLOCK, stream)
    acl.rt.synchronize_stream(stream)
    server.stop()
    return sums
""",
        "host_functions_instead": """
def solution(batches, summarise):
    stream, host_in, host_out, dev, out = set_up(batches)
    sums = [None] * BATCHES
    def post(i):
        sums[i] = summarise(i, out[i])
    for i in range(BATCHES):
        queue_batch(i, stream, host_in, host_out, dev)
        acl.rt.launch_host_func(stream, post, i)
    acl.rt.synchronize_stream(stream)
    return sums
""",
    },
}

VARIANTS = {
    "07.1": {
        "one_output_slot_and_a_tuple_argument": """
def solution(batches, summarise):
    stream, _ = acl.rt.create_stream()
    host_in, _ = acl.rt.malloc_host(BATCHES * NB)
    slot, _ = acl.rt.malloc_host(NB)                   # the host function runs before the next copy
    dev, _ = acl.rt.malloc(NB, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.util.ptr_to_numpy(host_in, (BATCHES, N), np.float32)[:] = batches
    view = acl.util.ptr_to_numpy(slot, (N,), np.float32)
    sums = {}
    def post(args):
        i, x = args
        sums[i] = summarise(i, x)
    for i in range(BATCHES):
        acl.rt.memcpy_async(dev, NB, host_in + i * NB, NB, H2D, stream)
        double[24, stream](dev, N)
        acl.rt.memcpy_async(slot, NB, dev, NB, D2H, stream)
        acl.rt.launch_host_func(stream, post, (i, view))
    acl.rt.synchronize_device()
    return [sums[i] for i in range(BATCHES)]
""",
        "two_streams_and_polling": """
def solution(batches, summarise):
    stream, host_in, host_out, dev, out = set_up(batches)
    other, _ = acl.rt.create_stream()
    dev2, _ = acl.rt.malloc(NB, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    sums = [None] * BATCHES
    def post(i):
        sums[i] = summarise(i, out[i])
    for i in range(BATCHES):
        s, d = (stream, dev) if i % 2 == 0 else (other, dev2)
        queue_batch(i, s, host_in, host_out, d)
        acl.rt.launch_host_func(s, post, i)
    for s in (stream, other):
        while acl.rt.stream_query(s)[0] != acl.ACL_STREAM_STATUS_COMPLETE:
            sandbox.host_work(50_000, "other host work")
    return sums
""",
    },
    "07.2": {
        "block_callbacks_and_list_user_data": """
def solution(batches, summarise):
    stream, host_in, host_out, dev, out = set_up(batches)
    sums = [None] * BATCHES
    def post(data):
        sums[data[0]] = summarise(data[0], out[data[0]])
    server = ReportServer(timeout_ms=1)
    acl.rt.subscribe_report(server.thread.ident, stream)
    for i in range(BATCHES):
        queue_batch(i, stream, host_in, host_out, dev)
        acl.rt.launch_callback(post, [i], BLOCK, stream)
    acl.rt.synchronize_stream(stream)
    server.stop()
    acl.rt.unsubscribe_report(server.thread.ident, stream)
    clean_up(stream, host_in, host_out, dev)
    return sums
""",
        "the_main_thread_serves_its_own_stream": """
def solution(batches, summarise):
    stream, host_in, host_out, dev, out = set_up(batches)
    sums = [None] * BATCHES
    def post(i):
        sums[i] = summarise(i, out[i])
    me = threading.get_ident()
    acl.rt.subscribe_report(me, stream)
    for i in range(BATCHES):
        queue_batch(i, stream, host_in, host_out, dev)
        acl.rt.launch_callback(post, i, NO_BLOCK, stream)
    for _ in range(BATCHES):
        acl.rt.process_report(1000)
    acl.rt.synchronize_stream(stream)
    acl.rt.unsubscribe_report(me, stream)
    return sums
""",
        "acl_util_thread_counting_its_callbacks": """
def solution(batches, summarise):
    stream, host_in, host_out, dev, out = set_up(batches)
    sums = [None] * BATCHES
    def post(i):
        sums[i] = summarise(i, out[i])
    def serve(count):
        acl.rt.set_device(0)
        for _ in range(count):
            acl.rt.process_report(-1)
    tid, _ = acl.util.start_thread(serve, BATCHES)
    acl.rt.subscribe_report(tid, stream)
    for i in range(BATCHES):
        queue_batch(i, stream, host_in, host_out, dev)
        acl.rt.launch_callback(post, i, BLOCK, stream)
    acl.rt.synchronize_stream(stream)
    acl.util.stop_thread(tid)
    acl.rt.unsubscribe_report(tid, stream)
    return sums
""",
    },
}

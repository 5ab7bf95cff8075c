"""Notebook 12: reference solutions, mistakes that must fail, correct variants that must pass."""

from __future__ import annotations

from . import solutions

SOLUTIONS = {**solutions("12"), **solutions("12x")}  # 12.2 is in the deep dive 12x

# the lines every 12.1 attempt starts with: the model, its description, its buffers and datasets
_LOADED = """
    model_id, _ = acl.mdl.load_from_file(model_path)
    desc = acl.mdl.create_desc()
    acl.mdl.get_desc(desc, model_id)
    (inp,), (out,) = buffers(desc)
    data = np.ascontiguousarray(images)
"""
_READ_BACK = """
    result = np.empty((4, 1000), np.float32)
    acl.rt.memcpy(acl.util.numpy_to_ptr(result), result.nbytes, out[0], out[1], D2H)
    return result
"""


def _pairs(slots=2, wait_free=True, compute="acl.rt.create_stream()[0]", batch=2, order="events"):
    """A 12.2 attempt (the reference's loop), with knobs for the mistakes and variants."""
    free = "        if b >= SLOTS:\n            acl.rt.stream_wait_event(copy_s, free[k])\n" if wait_free else ""
    if order == "events":
        ordered = (
            "        acl.rt.record_event(loaded[k], copy_s)\n        acl.rt.stream_wait_event(compute_s, loaded[k])\n"
        )
    else:  # the host waits for the copy instead of an event
        ordered = "        acl.rt.synchronize_stream(copy_s)\n"
    return f"""
def solution(images, model_path):
    SLOTS, PAIR = {slots}, {batch}
    model_id, _ = acl.mdl.load_from_file(model_path)
    desc = acl.mdl.create_desc()
    acl.mdl.get_desc(desc, model_id)
    gear, _ = acl.mdl.get_input_index_by_name(desc, acl.mdl.ACL_DYNAMIC_TENSOR_NAME)
    slots = [buffers(desc) for _ in range(SLOTS)]
    sets = [(dataset(ins), dataset(outs)) for ins, outs in slots]
    for ins_ds, _ in sets:
        acl.mdl.set_dynamic_batch_size(model_id, ins_ds, gear, PAIR)
    one_in, one_out = images[0].nbytes, 4000
    hin, _ = acl.rt.malloc_host(images.nbytes)
    hout, _ = acl.rt.malloc_host(len(images) * one_out)
    acl.util.ptr_to_numpy(hin, images.shape, np.float16)[:] = images
    copy_s, _ = acl.rt.create_stream()
    compute_s = {compute}
    loaded = [acl.rt.create_event()[0] for _ in range(SLOTS)]
    free = [acl.rt.create_event()[0] for _ in range(SLOTS)]
    for b in range(len(images) // PAIR):
        k = b % SLOTS
        din, dout = slots[k][0][0][0], slots[k][1][0][0]
{free}        acl.rt.memcpy_async(din, PAIR * one_in, hin + b * PAIR * one_in, PAIR * one_in, H2D, copy_s)
{ordered}        acl.mdl.execute_async(model_id, sets[k][0], sets[k][1], compute_s)
        acl.rt.record_event(free[k], compute_s)
        acl.rt.memcpy_async(hout + b * PAIR * one_out, PAIR * one_out, dout, PAIR * one_out, D2H, compute_s)
    acl.rt.synchronize_stream(compute_s)
    return acl.util.ptr_to_numpy(hout, (len(images), 1000), np.float32).copy()
"""


MISTAKES = {
    "12.1": {
        # the answer computed on the host with the stand-in's own function, beside a real execution
        "host_computed_answer": """
def solution(images, model_path):"""
        + _LOADED
        + """
    acl.rt.memcpy(inp[0], inp[1], acl.util.numpy_to_ptr(data), data.nbytes, H2D)
    acl.mdl.execute(model_id, dataset([inp]), dataset([out]))
    from sandbox.models import zoo
    return zoo("resnet50", batch=4).fn(data).astype(np.float32)
""",
        # the images never copied in: the model ran on whatever the buffer held
        "images_not_copied": """
def solution(images, model_path):"""
        + _LOADED
        + """
    acl.mdl.execute(model_id, dataset([inp]), dataset([out]))
"""
        + _READ_BACK,
        # asynchronous, and the output read before any wait
        "read_before_the_execution_ended": """
def solution(images, model_path):"""
        + _LOADED
        + """
    s, _ = acl.rt.create_stream()
    acl.rt.memcpy(inp[0], inp[1], acl.util.numpy_to_ptr(data), data.nbytes, H2D)
    acl.mdl.execute_async(model_id, dataset([inp]), dataset([out]), s)
    host, _ = acl.rt.malloc_host(out[1])
    acl.rt.memcpy_async(host, out[1], out[0], out[1], D2H, s)
    result = acl.util.ptr_to_numpy(host, (4, 1000), np.float32).copy()
    acl.rt.synchronize_stream(s)
    return result
""",
        # one image at a time through the batch-4 model's datasets: four executions, not one
        "executed_four_times": """
def solution(images, model_path):"""
        + _LOADED
        + """
    acl.rt.memcpy(inp[0], inp[1], acl.util.numpy_to_ptr(data), data.nbytes, H2D)
    for _ in range(4):
        acl.mdl.execute(model_id, dataset([inp]), dataset([out]))
"""
        + _READ_BACK,
    },
    "12.2": {
        "one_stream": _pairs(compute="copy_s"),
        # the copy into a slot does not wait for the slot's last execution: a race
        "no_wait_for_the_slot": _pairs(wait_free=False),
        # the host synchronises the copy stream before each execution: no event orders them
        "host_waits_for_each_copy": _pairs(order="host"),
        # one execution of all eight: the batch the exercise does not ask for
        "one_batch_of_eight": _pairs(batch=8),
    },
}

VARIANTS = {
    "12.1": {
        "execute_async_and_synchronize": """
def solution(images, model_path):"""
        + _LOADED
        + """
    s, _ = acl.rt.create_stream()
    acl.rt.memcpy_async(inp[0], inp[1], acl.util.numpy_to_ptr(data), data.nbytes, H2D, s)
    acl.mdl.execute_async(model_id, dataset([inp]), dataset([out]), s)
    acl.rt.synchronize_stream(s)
"""
        + _READ_BACK,
        "load_from_memory": """
def solution(images, model_path):
    with open(model_path, "rb") as f:
        blob = f.read()
    model_id, _ = acl.mdl.load_from_mem(acl.util.bytes_to_ptr(blob), len(blob))
    desc = acl.mdl.create_desc()
    acl.mdl.get_desc(desc, model_id)
    size_in, size_out = acl.mdl.get_input_size_by_index(desc, 0), acl.mdl.get_output_size_by_index(desc, 0)
    din, _ = acl.rt.malloc(size_in, HUGE)
    dout, _ = acl.rt.malloc(size_out, HUGE)
    host, _ = acl.rt.malloc_host(size_in)
    acl.util.ptr_to_numpy(host, images.shape, np.float16)[:] = images
    acl.rt.memcpy(din, size_in, host, size_in, H2D)
    acl.mdl.execute(model_id, dataset([(din, size_in)]), dataset([(dout, size_out)]))
    back, _ = acl.rt.malloc_host(size_out)
    acl.rt.memcpy(back, size_out, dout, size_out, D2H)
    return acl.util.ptr_to_numpy(back, (4, 1000), np.float32).copy()
""",
    },
    "12.2": {
        "three_slots": _pairs(slots=3),
    },
}

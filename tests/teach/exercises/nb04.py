"""Notebook 04: reference solutions, mistakes that must fail, correct variants that must pass."""

from __future__ import annotations

from . import solutions

SOLUTIONS = solutions("04")

MISTAKES = {
    "04.1": {
        "huge_pages_for_the_weights": """
def solution(weights, table, flags):
    ptrs = []
    for array in (weights, table, flags):
        ptr, _ = acl.rt.malloc(array.nbytes, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        acl.rt.memcpy(ptr, array.nbytes, acl.util.numpy_to_ptr(array), array.nbytes, H2D)
        ptrs.append(ptr)
    return tuple(ptrs)
""",
        "one_buffer_returned_three_times": """
def solution(weights, table, flags):
    ptr, _ = acl.rt.malloc(weights.nbytes, acl.ACL_MEM_MALLOC_NORMAL_ONLY)
    for array in (weights, table, flags):
        acl.rt.memcpy(ptr, array.nbytes, acl.util.numpy_to_ptr(array), array.nbytes, H2D)
    return ptr, ptr, ptr
""",
        "carved_with_overlapping_offsets": """
def solution(weights, table, flags):
    base, _ = acl.rt.malloc(weights.nbytes, acl.ACL_MEM_MALLOC_NORMAL_ONLY)
    t, f = base + weights.nbytes - 1100, base + weights.nbytes - 100
    acl.rt.memcpy(base, weights.nbytes, acl.util.numpy_to_ptr(weights), weights.nbytes, H2D)
    acl.rt.memcpy(t, 1000, acl.util.numpy_to_ptr(table), 1000, H2D)
    acl.rt.memcpy(f, 100, acl.util.numpy_to_ptr(flags), 100, H2D)
    return base, t, f
""",
        "allocated_but_never_copied": """
def solution(weights, table, flags):
    return tuple(acl.rt.malloc(a.nbytes, acl.ACL_MEM_MALLOC_NORMAL_ONLY)[0] for a in (weights, table, flags))
""",
        "freed_before_returning": """
def solution(weights, table, flags):
    ptrs = []
    for array in (weights, table, flags):
        ptr, _ = acl.rt.malloc(array.nbytes, acl.ACL_MEM_MALLOC_NORMAL_ONLY)
        acl.rt.memcpy(ptr, array.nbytes, acl.util.numpy_to_ptr(array), array.nbytes, H2D)
        ptrs.append(ptr)
    for ptr in ptrs:
        acl.rt.free(ptr)
    return tuple(ptrs)
""",
        "host_addresses_no_device_work": """
def solution(weights, table, flags):
    return tuple(acl.util.numpy_to_ptr(a) for a in (weights, table, flags))
""",
        "measured_with_a_huge_probe": """
def solution(weights, table, flags):
    probe, _ = acl.rt.malloc(weights.nbytes, acl.ACL_MEM_MALLOC_HUGE_ONLY)   # 4 MiB, freed again
    acl.rt.free(probe)
    ptrs = []
    for array in (weights, table, flags):
        ptr, _ = acl.rt.malloc(array.nbytes, acl.ACL_MEM_MALLOC_NORMAL_ONLY)
        acl.rt.memcpy(ptr, array.nbytes, acl.util.numpy_to_ptr(array), array.nbytes, H2D)
        ptrs.append(ptr)
    return tuple(ptrs)
""",
    },
    "04.2": {
        "synchronize_only_the_kernels_stream": """
def solution(data):
    s_copy, _ = acl.rt.create_stream()
    s_compute, _ = acl.rt.create_stream()
    dst, _ = acl.rt.malloc(N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    work, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    src, _ = acl.rt.malloc_host(N)
    acl.util.ptr_to_numpy(src, (N,), np.uint8)[:] = data
    acl.rt.memcpy_async(dst, N, src, N, H2D, s_copy)
    busy[24, s_compute](work)
    acl.rt.synchronize_stream(s_compute)   # the copy ended first by time, but nothing here waits for it
    return dst
""",
        "pageable_source_kernel_first": """
def solution(data):
    s_copy, _ = acl.rt.create_stream()
    s_compute, _ = acl.rt.create_stream()
    dst, _ = acl.rt.malloc(N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    work, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    busy[24, s_compute](work)
    acl.rt.memcpy_async(dst, N, acl.util.numpy_to_ptr(data), N, H2D, s_copy)
    acl.rt.synchronize_device()
    return dst
""",
        "pageable_source": """
def solution(data):
    s_copy, _ = acl.rt.create_stream()
    s_compute, _ = acl.rt.create_stream()
    dst, _ = acl.rt.malloc(N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    work, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.rt.memcpy_async(dst, N, acl.util.numpy_to_ptr(data), N, H2D, s_copy)
    busy[24, s_compute](work)
    acl.rt.synchronize_device()
    return dst
""",
        "one_stream": """
def solution(data):
    s, _ = acl.rt.create_stream()
    dst, _ = acl.rt.malloc(N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    work, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    src, _ = acl.rt.malloc_host(N)
    acl.util.ptr_to_numpy(src, (N,), np.uint8)[:] = data
    acl.rt.memcpy_async(dst, N, src, N, H2D, s)
    busy[24, s](work)
    acl.rt.synchronize_stream(s)
    return dst
""",
        "synchronize_between_copy_and_kernel": """
def solution(data):
    s_copy, _ = acl.rt.create_stream()
    s_compute, _ = acl.rt.create_stream()
    dst, _ = acl.rt.malloc(N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    work, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    src, _ = acl.rt.malloc_host(N)
    acl.util.ptr_to_numpy(src, (N,), np.uint8)[:] = data
    acl.rt.memcpy_async(dst, N, src, N, H2D, s_copy)
    acl.rt.synchronize_stream(s_copy)
    busy[24, s_compute](work)
    acl.rt.synchronize_stream(s_compute)
    return dst
""",
        "kernel_on_the_copied_buffer": """
def solution(data):
    s_copy, _ = acl.rt.create_stream()
    s_compute, _ = acl.rt.create_stream()
    dst, _ = acl.rt.malloc(N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    src, _ = acl.rt.malloc_host(N)
    acl.util.ptr_to_numpy(src, (N,), np.uint8)[:] = data
    acl.rt.memcpy_async(dst, N, src, N, H2D, s_copy)
    busy[24, s_compute](dst)
    acl.rt.synchronize_device()
    return dst
""",
        "half_the_data": """
def solution(data):
    s_copy, _ = acl.rt.create_stream()
    s_compute, _ = acl.rt.create_stream()
    dst, _ = acl.rt.malloc(N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    work, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    src, _ = acl.rt.malloc_host(N)
    acl.util.ptr_to_numpy(src, (N,), np.uint8)[:] = data
    acl.rt.memcpy_async(dst, N // 2, src, N // 2, H2D, s_copy)
    busy[24, s_compute](work)
    acl.rt.synchronize_device()
    return dst
""",
        "missing_synchronize": """
def solution(data):
    s_copy, _ = acl.rt.create_stream()
    s_compute, _ = acl.rt.create_stream()
    dst, _ = acl.rt.malloc(N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    work, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    src, _ = acl.rt.malloc_host(N)
    acl.util.ptr_to_numpy(src, (N,), np.uint8)[:] = data
    acl.rt.memcpy_async(dst, N, src, N, H2D, s_copy)
    busy[24, s_compute](work)
    return dst
""",
        "no_kernel": """
def solution(data):
    s_copy, _ = acl.rt.create_stream()
    dst, _ = acl.rt.malloc(N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    src, _ = acl.rt.malloc_host(N)
    acl.util.ptr_to_numpy(src, (N,), np.uint8)[:] = data
    acl.rt.memcpy_async(dst, N, src, N, H2D, s_copy)
    acl.rt.synchronize_stream(s_copy)
    return dst
""",
        "no_device_work": """
def solution(data):
    dst, _ = acl.rt.malloc(N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    return dst
""",
        "returns_the_pinned_host_buffer": """
def solution(data):
    s_copy, _ = acl.rt.create_stream()
    s_compute, _ = acl.rt.create_stream()
    dst, _ = acl.rt.malloc(N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    work, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    src, _ = acl.rt.malloc_host(N)
    acl.util.ptr_to_numpy(src, (N,), np.uint8)[:] = data
    acl.rt.memcpy_async(dst, N, src, N, H2D, s_copy)
    busy[24, s_compute](work)
    acl.rt.synchronize_device()
    return src
""",
    },
    "04.3": {
        "malloc_and_free_without_waiting": """
def solution(chunks):
    stream, _ = acl.rt.create_stream()
    host_in, _ = acl.rt.malloc_host(chunks.nbytes)
    host_out, _ = acl.rt.malloc_host(chunks.nbytes)
    acl.util.ptr_to_numpy(host_in, chunks.shape, np.uint8)[:] = chunks
    for k in range(len(chunks)):
        buf, _ = acl.rt.malloc(STEP, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        acl.rt.memcpy_async(buf, STEP, host_in + k * STEP, STEP, H2D, stream)
        acl.rt.memcpy_async(host_out + k * STEP, STEP, buf, STEP, D2H, stream)
        acl.rt.free(buf)                                  # does not wait for the copies
    acl.rt.synchronize_stream(stream)
    return acl.util.ptr_to_numpy(host_out, chunks.shape, np.uint8).copy()
""",
        "free_with_dev_sync_every_step": """
def solution(chunks):
    stream, _ = acl.rt.create_stream()
    host_in, _ = acl.rt.malloc_host(chunks.nbytes)
    host_out, _ = acl.rt.malloc_host(chunks.nbytes)
    acl.util.ptr_to_numpy(host_in, chunks.shape, np.uint8)[:] = chunks
    for k in range(len(chunks)):
        buf, _ = acl.rt.malloc(STEP, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        acl.rt.memcpy_async(buf, STEP, host_in + k * STEP, STEP, H2D, stream)
        acl.rt.memcpy_async(host_out + k * STEP, STEP, buf, STEP, D2H, stream)
        acl.rt.free_with_dev_sync(buf)                    # safe, but the host waits every step
    return acl.util.ptr_to_numpy(host_out, chunks.shape, np.uint8).copy()
""",
        "synchronize_every_step": """
def solution(chunks):
    stream, _ = acl.rt.create_stream()
    host_in, _ = acl.rt.malloc_host(chunks.nbytes)
    host_out, _ = acl.rt.malloc_host(chunks.nbytes)
    acl.util.ptr_to_numpy(host_in, chunks.shape, np.uint8)[:] = chunks
    for k in range(len(chunks)):
        buf, _ = acl.rt.malloc(STEP, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        acl.rt.memcpy_async(buf, STEP, host_in + k * STEP, STEP, H2D, stream)
        acl.rt.memcpy_async(host_out + k * STEP, STEP, buf, STEP, D2H, stream)
        acl.rt.synchronize_stream(stream)
        acl.rt.free(buf)
    return acl.util.ptr_to_numpy(host_out, chunks.shape, np.uint8).copy()
""",
        "a_buffer_per_chunk_up_front": """
def solution(chunks):
    stream, _ = acl.rt.create_stream()
    host_in, _ = acl.rt.malloc_host(chunks.nbytes)
    host_out, _ = acl.rt.malloc_host(chunks.nbytes)
    acl.util.ptr_to_numpy(host_in, chunks.shape, np.uint8)[:] = chunks
    bufs = [acl.rt.malloc(STEP, acl.ACL_MEM_MALLOC_HUGE_FIRST)[0] for _ in range(len(chunks))]
    for k, buf in enumerate(bufs):
        acl.rt.memcpy_async(buf, STEP, host_in + k * STEP, STEP, H2D, stream)
        acl.rt.memcpy_async(host_out + k * STEP, STEP, buf, STEP, D2H, stream)
    acl.rt.synchronize_stream(stream)
    for buf in bufs:
        acl.rt.free(buf)
    return acl.util.ptr_to_numpy(host_out, chunks.shape, np.uint8).copy()
""",
        "pageable_copies": """
def solution(chunks):
    stream, _ = acl.rt.create_stream()
    pool, _ = acl.rt.mem_pool_create(POOL_PROPS)
    out = np.zeros_like(chunks)
    for k in range(len(chunks)):
        buf, _ = acl.rt.mem_pool_malloc_async(STEP, pool, stream)
        acl.rt.memcpy_async(buf, STEP, acl.util.numpy_to_ptr(chunks[k]), STEP, H2D, stream)
        acl.rt.memcpy_async(acl.util.numpy_to_ptr(out[k]), STEP, buf, STEP, D2H, stream)
        acl.rt.mem_pool_free_async(buf, stream)
    acl.rt.synchronize_stream(stream)
    return out
""",
        "host_computed_answer": """
def solution(chunks):
    stream, _ = acl.rt.create_stream()
    pool, _ = acl.rt.mem_pool_create(POOL_PROPS)
    host_in, _ = acl.rt.malloc_host(chunks.nbytes)
    acl.util.ptr_to_numpy(host_in, chunks.shape, np.uint8)[:] = chunks
    for k in range(len(chunks)):
        buf, _ = acl.rt.mem_pool_malloc_async(STEP, pool, stream)
        acl.rt.memcpy_async(buf, STEP, host_in + k * STEP, STEP, H2D, stream)
        acl.rt.mem_pool_free_async(buf, stream)
    acl.rt.synchronize_stream(stream)
    return chunks.copy()
""",
        "missing_synchronize": """
def solution(chunks):
    stream, _ = acl.rt.create_stream()
    pool, _ = acl.rt.mem_pool_create(POOL_PROPS)
    host_in, _ = acl.rt.malloc_host(chunks.nbytes)
    host_out, _ = acl.rt.malloc_host(chunks.nbytes)
    acl.util.ptr_to_numpy(host_in, chunks.shape, np.uint8)[:] = chunks
    for k in range(len(chunks)):
        buf, _ = acl.rt.mem_pool_malloc_async(STEP, pool, stream)
        acl.rt.memcpy_async(buf, STEP, host_in + k * STEP, STEP, H2D, stream)
        acl.rt.memcpy_async(host_out + k * STEP, STEP, buf, STEP, D2H, stream)
        acl.rt.mem_pool_free_async(buf, stream)
    return acl.util.ptr_to_numpy(host_out, chunks.shape, np.uint8).copy()
""",
        "one_host_staging_buffer_overwritten": """
def solution(chunks):
    stream, _ = acl.rt.create_stream()
    pool, _ = acl.rt.mem_pool_create(POOL_PROPS)
    staging, _ = acl.rt.malloc_host(STEP)
    host_out, _ = acl.rt.malloc_host(chunks.nbytes)
    for k in range(len(chunks)):
        acl.util.ptr_to_numpy(staging, (STEP,), np.uint8)[:] = chunks[k]   # still being copied from
        buf, _ = acl.rt.mem_pool_malloc_async(STEP, pool, stream)
        acl.rt.memcpy_async(buf, STEP, staging, STEP, H2D, stream)
        acl.rt.memcpy_async(host_out + k * STEP, STEP, buf, STEP, D2H, stream)
        acl.rt.mem_pool_free_async(buf, stream)
    acl.rt.synchronize_stream(stream)
    return acl.util.ptr_to_numpy(host_out, chunks.shape, np.uint8).copy()
""",
        "blocking_copies_one_buffer": """
def solution(chunks):
    buf, _ = acl.rt.malloc(STEP, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    host_in, _ = acl.rt.malloc_host(chunks.nbytes)
    host_out, _ = acl.rt.malloc_host(chunks.nbytes)
    acl.util.ptr_to_numpy(host_in, chunks.shape, np.uint8)[:] = chunks
    for k in range(len(chunks)):
        acl.rt.memcpy(buf, STEP, host_in + k * STEP, STEP, H2D)
        acl.rt.memcpy(host_out + k * STEP, STEP, buf, STEP, D2H)
    acl.rt.free(buf)
    return acl.util.ptr_to_numpy(host_out, chunks.shape, np.uint8).copy()
""",
    },
}

VARIANTS = {
    "04.1": {
        "one_carved_allocation": """
def solution(weights, table, flags):
    total = weights.nbytes + table.nbytes + flags.nbytes
    base, _ = acl.rt.malloc(total, acl.ACL_MEM_MALLOC_NORMAL_ONLY)
    ptrs, at = [], base
    for array in (weights, table, flags):
        acl.rt.memcpy(at, array.nbytes, acl.util.numpy_to_ptr(array), array.nbytes, H2D)
        ptrs.append(at)
        at += array.nbytes
    return tuple(ptrs)
""",
        "carved_at_aligned_offsets_with_async_copies": """
def solution(weights, table, flags):
    stream, _ = acl.rt.create_stream()
    base, _ = acl.rt.malloc(3 * MiB + 1024 + 128, acl.ACL_MEM_MALLOC_NORMAL_ONLY)
    host, _ = acl.rt.malloc_host(3 * MiB + 1024 + 128)
    places = [(weights, 0), (table, 3 * MiB), (flags, 3 * MiB + 1024)]
    for array, offset in places:
        acl.util.ptr_to_numpy(host + offset, (array.nbytes,), np.uint8)[:] = array.view(np.uint8)
        acl.rt.memcpy_async(base + offset, array.nbytes, host + offset, array.nbytes, H2D, stream)
    acl.rt.synchronize_stream(stream)
    return [base + offset for _, offset in places]
""",
        "all_on_normal_pages": """
def solution(weights, table, flags):
    ptrs = []
    for array in (weights, table, flags):
        ptr, _ = acl.rt.malloc(array.nbytes, acl.ACL_MEM_MALLOC_NORMAL_ONLY)
        acl.rt.memcpy(ptr, array.nbytes, acl.util.numpy_to_ptr(array), array.nbytes, H2D)
        ptrs.append(ptr)
    return ptrs[0], ptrs[1], ptrs[2]
""",
    },
    "04.2": {
        "kernel_first_then_pinned_copy": """
def solution(data):
    s_copy, _ = acl.rt.create_stream()
    s_compute, _ = acl.rt.create_stream()
    dst, _ = acl.rt.malloc(N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    work, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_NORMAL_ONLY)
    src, _ = acl.rt.malloc_host(N)
    acl.util.ptr_to_numpy(src, (N,), np.uint8)[:] = data
    busy[24, s_compute](work)
    acl.rt.memcpy_async(dst, N, src, N, H2D, s_copy)
    acl.rt.synchronize_stream(s_copy)
    acl.rt.synchronize_stream(s_compute)
    return dst
""",
        "copy_in_four_pieces_and_poll": """
def solution(data):
    s_copy, _ = acl.rt.create_stream()
    s_compute, _ = acl.rt.create_stream()
    dst, _ = acl.rt.malloc(N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    work, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    src, _ = acl.rt.malloc_host(N)
    acl.util.ptr_to_numpy(src, (N,), np.uint8)[:] = data
    busy[24, s_compute](work)
    piece = N // 4
    for k in range(4):
        acl.rt.memcpy_async(dst + k * piece, piece, src + k * piece, piece, H2D, s_copy)
    for s in (s_copy, s_compute):
        while acl.rt.stream_query(s)[0] != acl.ACL_STREAM_STATUS_COMPLETE:
            sandbox.host_work(50_000, "other host work")
    return dst
""",
        "tidy_up_but_keep_the_buffer": """
def solution(data):
    s_copy, _ = acl.rt.create_stream()
    s_compute, _ = acl.rt.create_stream()
    dst, _ = acl.rt.malloc(N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    work, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    src, _ = acl.rt.malloc_host(N)
    acl.util.ptr_to_numpy(src, (N,), np.uint8)[:] = data
    acl.rt.memcpy_async(dst, N, src, N, H2D, s_copy)
    busy[24, s_compute](work)
    acl.rt.synchronize_device()
    acl.rt.free(work)
    acl.rt.free_host(src)
    acl.rt.destroy_stream(s_copy)
    acl.rt.destroy_stream(s_compute)
    return dst
""",
        "kernel_on_the_default_stream": """
def solution(data):
    s_copy, _ = acl.rt.create_stream()
    dst, _ = acl.rt.malloc(N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    work, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    src, _ = acl.rt.malloc_host(N)
    acl.util.ptr_to_numpy(src, (N,), np.uint8)[:] = data
    acl.rt.memcpy_async(dst, N, src, N, H2D, s_copy)
    busy[24, 0](work)
    acl.rt.synchronize_device()
    return dst
""",
    },
    "04.3": {
        "one_buffer_reused_on_one_stream": """
def solution(chunks):
    stream, _ = acl.rt.create_stream()
    buf, _ = acl.rt.malloc(STEP, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    host_in, _ = acl.rt.malloc_host(chunks.nbytes)
    host_out, _ = acl.rt.malloc_host(chunks.nbytes)
    acl.util.ptr_to_numpy(host_in, chunks.shape, np.uint8)[:] = chunks
    for k in range(len(chunks)):
        acl.rt.memcpy_async(buf, STEP, host_in + k * STEP, STEP, H2D, stream)
        acl.rt.memcpy_async(host_out + k * STEP, STEP, buf, STEP, D2H, stream)
    acl.rt.synchronize_stream(stream)
    result = acl.util.ptr_to_numpy(host_out, chunks.shape, np.uint8).copy()
    acl.rt.free(buf)
    return result
""",
        "two_buffers_on_two_streams": """
def solution(chunks):
    streams = [acl.rt.create_stream()[0] for _ in range(2)]
    bufs = [acl.rt.malloc(STEP, acl.ACL_MEM_MALLOC_HUGE_FIRST)[0] for _ in range(2)]
    host_in, _ = acl.rt.malloc_host(chunks.nbytes)
    host_out, _ = acl.rt.malloc_host(chunks.nbytes)
    acl.util.ptr_to_numpy(host_in, chunks.shape, np.uint8)[:] = chunks
    for k in range(len(chunks)):
        s, buf = streams[k % 2], bufs[k % 2]
        acl.rt.memcpy_async(buf, STEP, host_in + k * STEP, STEP, H2D, s)
        acl.rt.memcpy_async(host_out + k * STEP, STEP, buf, STEP, D2H, s)
    acl.rt.synchronize_device()
    return acl.util.ptr_to_numpy(host_out, chunks.shape, np.uint8).copy()
""",
        "a_pinned_result_buffer_per_step": """
def solution(chunks):
    stream, _ = acl.rt.create_stream()
    pool, _ = acl.rt.mem_pool_create(POOL_PROPS)
    host_in, _ = acl.rt.malloc_host(chunks.nbytes)
    acl.util.ptr_to_numpy(host_in, chunks.shape, np.uint8)[:] = chunks
    outs = []
    for k in range(len(chunks)):
        out, _ = acl.rt.malloc_host(STEP)
        buf, _ = acl.rt.mem_pool_malloc_async(STEP, pool, stream)
        acl.rt.memcpy_async(buf, STEP, host_in + k * STEP, STEP, H2D, stream)
        acl.rt.memcpy_async(out, STEP, buf, STEP, D2H, stream)
        acl.rt.mem_pool_free_async(buf, stream)
        outs.append(out)
    acl.rt.synchronize_stream(stream)
    return np.stack([acl.util.ptr_to_numpy(out, (STEP,), np.uint8) for out in outs])
""",
        "pool_on_two_streams_polled": """
def solution(chunks):
    streams = [acl.rt.create_stream()[0] for _ in range(2)]
    pool, _ = acl.rt.mem_pool_create(POOL_PROPS)
    host_in, _ = acl.rt.malloc_host(chunks.nbytes)
    host_out, _ = acl.rt.malloc_host(chunks.nbytes)
    acl.util.ptr_to_numpy(host_in, chunks.shape, np.uint8)[:] = chunks
    for k in range(len(chunks)):
        s = streams[k % 2]
        buf, _ = acl.rt.mem_pool_malloc_async(STEP, pool, s)
        acl.rt.memcpy_async(buf, STEP, host_in + k * STEP, STEP, H2D, s)
        acl.rt.memcpy_async(host_out + k * STEP, STEP, buf, STEP, D2H, s)
        acl.rt.mem_pool_free_async(buf, s)
    for s in streams:
        while acl.rt.stream_query(s)[0] != acl.ACL_STREAM_STATUS_COMPLETE:
            sandbox.host_work(100_000, "other host work")
    return acl.util.ptr_to_numpy(host_out, chunks.shape, np.uint8).copy()
""",
    },
}

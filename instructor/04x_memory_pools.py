# %% [markdown]
# # 04x · Fragmentation and stream-ordered memory pools
#
# **Optional deep dive after notebook 04 · about 25 minutes.**
#
# Notebook 04 measured what one allocation takes. This deep dive looks at many: the memory map
# of the device, how freeing in the wrong order leaves free bytes you cannot use, and how a
# **stream-ordered memory pool** lets a loop reuse device memory without stopping the host
# before every free.
#
# | C call | Python call |
# |---|---|
# | `aclrtMemPoolCreate(&pool, &props)` | `pool, ret = acl.rt.mem_pool_create(props)` |
# | `aclrtMemPoolMallocAsync(&ptr, size, pool, stream)` | `ptr, ret = acl.rt.mem_pool_malloc_async(size, pool, stream)` |
# | `aclrtMemPoolFreeAsync(ptr, stream)` | `acl.rt.mem_pool_free_async(ptr, stream)` |
# | `aclrtMemPoolGetAttr(pool, attr, &value)` | `value, ret = acl.rt.mem_pool_get_attr(pool, attr)` |
#
# **After this deep dive** you can read the memory map, explain why a request fails with enough
# free bytes, and reuse memory in stream order with a pool. **It assumes** notebook 04.

# %% [markdown] lang="zh"
# # 04x · 内存碎片与按 Stream 顺序分配的内存池
#
# **选学深入：notebook 04 之后 · 约 25 分钟。**
#
# notebook 04 测量了一次分配占用多少。这一篇看许多次分配：Device（设备）的内存图；以错误的顺序释放，为什么会
# 留下用不上的空闲字节；以及**按 Stream（流）顺序分配的内存池**怎样让循环复用 Device 内存，而不必在每次释放前
# 让 Host（主机）停下来。
#
# | C 调用 | Python 调用 |
# |---|---|
# | `aclrtMemPoolCreate(&pool, &props)` | `pool, ret = acl.rt.mem_pool_create(props)` |
# | `aclrtMemPoolMallocAsync(&ptr, size, pool, stream)` | `ptr, ret = acl.rt.mem_pool_malloc_async(size, pool, stream)` |
# | `aclrtMemPoolFreeAsync(ptr, stream)` | `acl.rt.mem_pool_free_async(ptr, stream)` |
# | `aclrtMemPoolGetAttr(pool, attr, &value)` | `value, ret = acl.rt.mem_pool_get_attr(pool, attr)` |
#
# **学完这一篇**，你能读懂内存图，解释为什么空闲字节足够、申请却失败，并用内存池按 Stream 顺序复用内存。
# **前置**：notebook 04。

# %% lang="zh"
import sandbox

sandbox.set_language("zh")          # 中文版：评分反馈使用中文

# %%
import numpy as np

import sandbox
from sandbox import acl, teach

MiB = 1 << 20
H2D, D2H = acl.ACL_MEMCPY_HOST_TO_DEVICE, acl.ACL_MEMCPY_DEVICE_TO_HOST
sandbox.configure(device_count=1)          # one 910B device is enough here
print(acl.init(), acl.rt.set_device(0))

# %% [markdown]
# ## The memory map
#
# Keep one block of each policy alive and look at the device's memory map: each bar is a block,
# and the text beside the picture lists requested and reserved sizes. At true scale the 8 KiB
# normal-page block would be a hair beside 2 MiB pages, so the picture draws every block at least
# 70 pixels wide (`min_block_px=70`): the cross-hatched block is that 8 KiB, not a wider one.

# %% [markdown] lang="zh"
# ## 内存图
#
# 每种策略各保留一块内存，看 Device 的内存图：每个条形是一块内存，图旁的文字列出申请的大小和实际占用的大小。按真实
# 比例，8 KiB 的普通页内存块在 2 MiB 的大页旁边只是一根细线，所以这张图把每块至少画成 70 像素宽
# （`min_block_px=70`）：带交叉阴影的那块就是这 8 KiB，并没有更大。

# %%
kept = [acl.rt.malloc(1, acl.ACL_MEM_MALLOC_HUGE_ONLY)[0],
        acl.rt.malloc(4065, acl.ACL_MEM_MALLOC_NORMAL_ONLY)[0],
        acl.rt.malloc(3 * MiB, acl.ACL_MEM_MALLOC_HUGE_FIRST)[0]]
sandbox.memory_map(min_block_px=70)

# %%
_ = [acl.rt.free(p) for p in kept]
free, total, ret = acl.rt.get_mem_info(acl.ACL_HBM_MEM)
print(f"HBM: {free} bytes free of {total} ({total / (1 << 30):.1f} GiB), ret {ret}")
for name in ("ACL_HBM_MEM_HUGE", "ACL_HBM_MEM_NORMAL", "ACL_DDR_MEM"):
    print(f"{name:<20}", acl.rt.get_mem_info(getattr(acl, name)))

# %% [markdown]
# `aclrtGetMemInfo` answers for the **current device**. The `_HUGE` attribute counts only whole
# free 2 MiB pages; the `_NORMAL` one counts every free byte. A 910B has HBM and no DDR, so the
# DDR attribute answers `(0, 0)`.
#
# ## Fragmentation: free bytes you cannot use
#
# The allocator hands out contiguous address ranges. When blocks between blocks that stay are
# freed, the free memory is split into holes, and a request bigger than the largest hole fails
# although the total is enough. To see it without allocating 62 GiB, shrink the device to
# 64 MiB with a changed profile. The blocks ask for `8 MiB - 32` bytes: padded, exactly 8 MiB.
#
# **Predict, then run.** Eight 8 MiB blocks fill the device; every other one is freed, leaving
# 32 MiB free. Does a 16 MiB request succeed?

# %% [markdown] lang="zh"
# `aclrtGetMemInfo` 回答的是**当前 Device** 的情况。`_HUGE` 属性只统计完整的空闲 2 MiB 页；`_NORMAL` 属性统计每个空闲
# 字节。910B 有 HBM 而没有 DDR，所以 DDR 属性的回答是 `(0, 0)`。
#
# ## 内存碎片：用不上的空闲字节
#
# 分配器分出的是连续的地址范围。夹在仍在使用的块之间的块被释放后，空闲内存被切成一个个空洞；一个比最大空洞还大的
# 请求，即使空闲总量足够，也会失败。为了不必真的申请 62 GiB，用一个改过的配置把 Device 缩小到 64 MiB。下面的块
# 申请 `8 MiB - 32` 字节：补齐后正好 8 MiB。
#
# **先预测，再运行。**八块 8 MiB 占满了 Device；隔一块释放一块，空出 32 MiB。申请 16 MiB 能成功吗？

# %%
small = sandbox.get_profile("ascend910b").with_(memory_bytes=64 * MiB)
sandbox.configure(small, device_count=1)
acl.init()
acl.rt.set_device(0)
blocks = [acl.rt.malloc(8 * MiB - 32, acl.ACL_MEM_MALLOC_HUGE_ONLY)[0] for _ in range(8)]
for i in (1, 3, 5, 7):
    acl.rt.free(blocks[i])
t_after_frees = sandbox.now()
print("free after freeing every other block:", acl.rt.get_mem_info(acl.ACL_HBM_MEM)[0] // MiB, "MiB")
ptr, ret = acl.rt.malloc(16 * MiB - 32, acl.ACL_MEM_MALLOC_HUGE_ONLY)
print("malloc of 16 MiB:", ret, "=", "ACL_ERROR_RT_MEMORY_ALLOCATION" if ret == acl.ACL_ERROR_RT_MEMORY_ALLOCATION else ret)
print(acl.get_recent_err_msg())
sandbox.memory_map(t_after_frees)

# %% [markdown]
# It fails with 207001 `ACL_ERROR_RT_MEMORY_ALLOCATION` (out of memory,
# `include/external/acl/error_codes/rt_error_codes.h:70`): 32 MiB are free, but in four 8 MiB holes,
# so fragmentation (1 - largest hole / free bytes) is 75 %. (The map numbers blocks from 1 in
# allocation order, so `blocks[2]` is "block 3".) Freeing one more block joins its two
# neighbouring holes into one 24 MiB extent, and the same request fits:

# %% [markdown] lang="zh"
# 申请以 207001 `ACL_ERROR_RT_MEMORY_ALLOCATION` 失败（内存不足，`include/external/acl/error_codes/rt_error_codes.h:70`）：空闲的 32 MiB 分散在四个 8 MiB 的空洞里，碎片率
# （1 - 最大空洞 / 空闲字节）为 75 %。（内存图按分配顺序从 1 开始给块编号，所以 `blocks[2]` 是“block 3”。）再释放
# 一块，它两侧的空洞就连成一段 24 MiB 的连续空间，同样的请求这次放得下：

# %%
acl.rt.free(blocks[2])
ptr, ret = acl.rt.malloc(16 * MiB - 32, acl.ACL_MEM_MALLOC_HUGE_ONLY)
print("malloc of 16 MiB:", ret)
sandbox.memory_map()

# %% [markdown]
# Long-running programs avoid this by allocating big buffers once and carving them up
# themselves, or by letting a memory pool do it. Frequent malloc/free also costs host time on
# every call (20 µs and 10 µs in this profile, the sandbox's figures).
#
# ## Stream-ordered memory pools
#
# `aclrtFree` does not wait for queued work (notebook 04, section 4), so a loop that needs a fresh
# buffer per step must synchronise before every free, and the host can never run ahead of the
# device. A **stream-ordered pool** moves the allocation and the free *into the stream*:
# `aclrtMemPoolFreeAsync(ptr, stream)` gives the block back when the work queued before it on
# that stream is done, and a later `aclrtMemPoolMallocAsync` on the same stream can reuse it
# safely. The pool calls are for the Atlas A2 series only and an experimental feature, not for
# production (the API reference, `docs/zh/api_ref/11-10_ordered_stream_memory_allocation.md`).
# pyACL has no binding of them: `acl.rt.mem_pool_*` are the sandbox's, named by pyACL's rule.
#
# **Predict, then run.** Four steps, each uploading 8 MiB into a fresh buffer and reading it
# back, first with malloc, synchronize and free in every step, then with a pool. How often does
# the host wait in each, and how much device memory does the pool hold at its peak?

# %% [markdown] lang="zh"
# 长时间运行的程序会一次申请大缓冲区、自己切分使用来避免这个问题，或者交给内存池去做。频繁的 malloc/free 每次
# 调用还要花 Host 时间（本配置中分别为 20 µs 和 10 µs，属沙箱的取值）。
#
# ## 按 Stream 顺序分配的内存池
#
# `aclrtFree` 不会等待排队中的任务（notebook 04 第 4 节），所以每一步都要一块新缓冲区的循环必须在每次释放前同步，
# Host 永远跑不到 Device 前面去。**按 Stream 顺序分配的内存池**把分配和释放都*放进 Stream*：
# `aclrtMemPoolFreeAsync(ptr, stream)` 在这条 Stream 上排在它前面的任务完成时才归还这块内存，之后同一条 Stream 上的
# `aclrtMemPoolMallocAsync` 可以放心地复用它。内存池接口仅支持 Atlas A2 系列，属于试验特性，不支持用于生产环境
# （API 参考 `docs/zh/api_ref/11-10_ordered_stream_memory_allocation.md`）。pyACL 没有绑定这些接口：
# `acl.rt.mem_pool_*` 是沙箱按 pyACL 命名规则提供的。
#
# **先预测，再运行。**四个步骤，每步把 8 MiB 上传到一块新缓冲区再读回来：先是每步都 malloc、同步、free，再用内存池。
# 两种做法中 Host 各等几次？内存池的峰值占用是多少？

# %%
STEP = 8 * MiB
POOL_PROPS = {"allocType": acl.ACL_MEM_ALLOCATION_TYPE_PINNED, "handleType": acl.ACL_MEM_HANDLE_TYPE_NONE,
              "location": {"id": 0, "type": acl.ACL_MEM_LOCATION_TYPE_DEVICE}, "maxSize": 0}


def four_steps(use_pool):
    """Four upload/read-back steps in fresh buffers; returns when the host had queued them all."""
    sandbox.configure(device_count=1)
    acl.init()
    acl.rt.set_device(0)
    stream, _ = acl.rt.create_stream()
    host, _ = acl.rt.malloc_host(STEP)
    pool = acl.rt.mem_pool_create(POOL_PROPS)[0] if use_pool else None
    t0 = sandbox.now()
    for _ in range(4):
        if use_pool:
            buf, _ = acl.rt.mem_pool_malloc_async(STEP, pool, stream)
        else:
            buf, _ = acl.rt.malloc(STEP, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        acl.rt.memcpy_async(buf, STEP, host, STEP, H2D, stream)
        acl.rt.memcpy_async(host, STEP, buf, STEP, D2H, stream)
        if use_pool:
            acl.rt.mem_pool_free_async(buf, stream)       # in stream order: after the copies
        else:
            acl.rt.synchronize_stream(stream)             # aclrtFree would not wait
            acl.rt.free(buf)
    t_queued = sandbox.now()
    acl.rt.synchronize_stream(stream)
    name, syncs = "pool" if use_pool else "malloc/free", sum(teach.sync_calls().values())
    print(f"{name:>11}: host free again after {(t_queued - t0) / 1e3:7.1f} µs, all done after "
          f"{(sandbox.now() - t0) / 1e3:7.1f} µs, {syncs} synchronize call{'s' * (syncs != 1)}")
    if use_pool:
        for attr in ("RESERVED_MEM_HIGH", "USED_MEM_HIGH", "RESERVED_MEM_CURRENT"):
            value, _ = acl.rt.mem_pool_get_attr(pool, getattr(acl, "ACL_RT_MEM_POOL_ATTR_" + attr))
            print(f"{'':>13}{attr:<22} {value:>9} bytes")
    return t_queued


four_steps(use_pool=False)
t_queued = four_steps(use_pool=True)
sandbox.memory_map(t_queued)

# %% [markdown]
# Without a pool the host waits in every step. With the pool it queues all four steps in a few
# dozen microseconds and waits once; the device work is the same, and the four steps share
# **one** segment: 8 MiB plus the padding in 2 MiB pages, so 10 MiB reserved. The memory map at
# the moment the host finished queueing shows that segment, labelled with its pool, and the
# four steps' blocks at **one** address ("4 blocks at one address"): the pool hands the same
# bytes to each step in stream order. With the default release threshold of 0 the pool gives the
# segment back at the synchronize (`RESERVED_MEM_CURRENT` is 0 afterwards);
# `ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD` keeps that much memory in the pool instead.
#
# ### Exercise 04.3 · four steps in two buffers' worth of memory
#
# *Practises:* stream-ordered memory: device memory reused step after step without stopping the host.
#
# As in notebook 04, the grader runs your function on a fresh 910B with acl initialised and
# device 0 set. `chunks` holds four chunks of `STEP` = 8 MiB (uint8, shape `(4, STEP)`). Each
# step copies its chunk into device memory and back out into row `k` of a host result; return
# the result. The grader wants:
#
# * the result equal to `chunks`, brought back by device-to-host copies and read after they
#   landed; exactly 32 MiB copied each way;
# * the host waiting **at most once** (a synchronize that has to wait counts, and so do a
#   blocking `aclrtMemcpy` and an `aclrtMemcpyAsync` from pageable memory);
# * at most **20 MiB** reserved on device 0 at the peak: two steps' buffers (10 MiB each), not four.

# %% [markdown] lang="zh"
# 不用内存池时，Host 每一步都要等待。用内存池时，它在几十微秒内把四步全部下发，只等待一次；Device 上的任务相同，
# 四个步骤共用**一个**段：8 MiB 加上补齐，按 2 MiB 页取整，共占用 10 MiB。Host 刚下发完时的内存图显示了这个段（标有
# 所属的内存池），以及位于**同一个**地址的四步的内存块（“4 blocks at one address”）：内存池按 Stream 顺序把同一段
# 字节依次交给每一步。释放阈值默认为 0，内存池在同步时把这个段还给 Device（之后 `RESERVED_MEM_CURRENT` 为 0）；设置
# `ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD` 则让内存池保留这么多内存。
#
# ### 练习 04.3 · 用两块缓冲区的内存完成四步
#
# *练习要点：* 按 Stream 顺序使用内存：一步接一步地复用 Device 内存，Host 不必停下。
#
# 和 notebook 04 一样，评分器在一台已初始化 acl、已设置 Device 0 的全新 910B 上运行你的函数。`chunks` 包含四块
# `STEP` = 8 MiB 的数据（uint8，形状 `(4, STEP)`）。每一步把它那块数据拷到 Device 内存，再拷回 Host 结果的第 `k` 行；
# 返回结果。评分器要求：
#
# * 结果等于 `chunks`，由 Device 到 Host 的拷贝带回，并在落地之后读取；两个方向各恰好拷贝 32 MiB；
# * Host **至多等待一次**（需要等待的同步算一次，阻塞的 `aclrtMemcpy` 和从非锁页内存发起的 `aclrtMemcpyAsync` 也算）；
# * Device 0 上的峰值占用不超过 **20 MiB**：两步的缓冲区（每块 10 MiB），而不是四步的。

# %% nbgrader={"grade": false, "grade_id": "ex04_3", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(chunks):
    """Copy each chunk to device memory and back in four steps, waiting once; return the result."""
    steps = chunks.shape[0]
    # TODO: pinned host buffers for the chunks and the result, one stream, and per step a device
    # buffer, the copy in, the copy out; then one wait, and a copy of the result.
    # Hint: plain aclrtFree does not wait for queued work; POOL_PROPS and four_steps() above
    # show the stream-ordered alternative.
    ### BEGIN SOLUTION
    stream, _ = acl.rt.create_stream()
    pool, _ = acl.rt.mem_pool_create(POOL_PROPS)
    host_in, _ = acl.rt.malloc_host(chunks.nbytes)
    host_out, _ = acl.rt.malloc_host(chunks.nbytes)
    acl.util.ptr_to_numpy(host_in, chunks.shape, np.uint8)[:] = chunks
    for k in range(steps):
        buf, _ = acl.rt.mem_pool_malloc_async(STEP, pool, stream)
        acl.rt.memcpy_async(buf, STEP, host_in + k * STEP, STEP, H2D, stream)
        acl.rt.memcpy_async(host_out + k * STEP, STEP, buf, STEP, D2H, stream)
        acl.rt.mem_pool_free_async(buf, stream)          # back to the pool after the copies
    acl.rt.synchronize_stream(stream)
    return acl.util.ptr_to_numpy(host_out, chunks.shape, np.uint8).copy()
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex04_3_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("04.3", solution, isolated=True)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("04.3", solution)

# %% [markdown]
# ## Official samples and summary
#
# The topic page `3_memory_advanced/memory_pool` has no sample code; notebook
# [11_official_samples](11_official_samples.ipynb), section 7, walks through its calls. The
# custom allocator sample is ported as
# [0_custom_allocator.py](../examples/3_memory_advanced/allocator/0_custom_allocator.py).
#
# Freed memory between live blocks fragments the device: a request can fail with enough free
# bytes. A stream-ordered pool frees in stream order, so a loop reuses its memory without
# synchronising before every free, and holds only what one step at a time needs.

# %% [markdown] lang="zh"
# ## 官方示例与小结
#
# 专题页 `3_memory_advanced/memory_pool` 没有示例代码；notebook [11_official_samples](11_official_samples.ipynb) 第 7 节
# 逐步讲解它的接口。自定义分配器示例已移植为
# [0_custom_allocator.py](../../examples/3_memory_advanced/allocator/0_custom_allocator.py)。
#
# 夹在存活块之间的已释放内存会让 Device 产生碎片：空闲字节足够，申请仍可能失败。按 Stream 顺序分配的内存池按 Stream
# 顺序释放，循环不必在每次释放前同步就能复用内存，而且同一时刻只占一步所需的内存。

# %% [markdown] lang="zh" translates="code"
# en: # one 910B device is enough here
# zh: # 这里一个 910B Device 就够了
# en: print(f"HBM: {free} bytes free of {total} ({total / (1 << 30):.1f} GiB), ret {ret}")
# zh: print(f"HBM：共 {total} 字节（{total / (1 << 30):.1f} GiB），空闲 {free} 字节，ret {ret}")
# en: print("free after freeing every other block:", acl.rt.get_mem_info(acl.ACL_HBM_MEM)[0] // MiB, "MiB")
# zh: print("隔一块释放一块之后的空闲量：", acl.rt.get_mem_info(acl.ACL_HBM_MEM)[0] // MiB, "MiB")
# en: print("malloc of 16 MiB:", ret, "=",
# zh: print("申请 16 MiB：", ret, "=",
# en: print("malloc of 16 MiB:", ret)
# zh: print("申请 16 MiB：", ret)
# en: """Four upload/read-back steps in fresh buffers; returns when the host had queued them all."""
# zh: """在新缓冲区中做四步上传/读回；返回 Host 全部下发完毕的时刻。"""
# en: # in stream order: after the copies
# zh: # 按 Stream 顺序：在两次拷贝之后
# en: # aclrtFree would not wait
# zh: # aclrtFree 不会等待
# en: print(f"{name:>11}: host free again after {(t_queued - t0) / 1e3:7.1f} µs, all done after "
# zh: print(f"{name:>11}：Host 在 {(t_queued - t0) / 1e3:7.1f} µs 后重获自由，全部完成于 "
# en: f"{(sandbox.now() - t0) / 1e3:7.1f} µs, {syncs} synchronize call{'s' * (syncs != 1)}")
# zh: f"{(sandbox.now() - t0) / 1e3:7.1f} µs，同步调用 {syncs} 次")
# en: """Copy each chunk to device memory and back in four steps, waiting once; return the result."""
# zh: """分四步把每块数据拷到 Device 内存再拷回，只等待一次；返回结果。"""
# en: # TODO: pinned host buffers for the chunks and the result, one stream, and per step a device
# zh: # TODO：为数据块和结果准备锁页 Host 缓冲区、一条 Stream，每一步一块 Device
# en: # buffer, the copy in, the copy out; then one wait, and a copy of the result.
# zh: # 缓冲区、拷入、拷出；然后等待一次，再复制一份结果。
# en: # Hint: plain aclrtFree does not wait for queued work; POOL_PROPS and four_steps() above
# zh: # 提示：普通的 aclrtFree 不等待排队中的任务；上面的 POOL_PROPS 和 four_steps()
# en: # show the stream-ordered alternative.
# zh: # 展示了按 Stream 顺序的做法。
# en: # back to the pool after the copies
# zh: # 两次拷贝之后还给内存池

# %% [markdown]
# # 04 · Device memory: policies, pinned copies, freeing safely
#
# **Time:** about 45 minutes. Optional deep dive afterwards:
# [04x_memory_pools](04x_memory_pools.ipynb) (fragmentation, stream-ordered memory pools).
#
# On an NPU you never get exactly the bytes you ask for. This notebook shows what the
# allocator really takes, why the host memory you copy from matters as much as the device
# memory you copy to, and why freeing memory that queued work still uses needs care.
#
# | C call | Python call | what it does |
# |---|---|---|
# | `aclrtMalloc(&p, size, policy)` | `p, ret = acl.rt.malloc(size, policy)` | device memory with a page policy |
# | `aclrtMallocHost(&p, size)` | `p, ret = acl.rt.malloc_host(size)` | page-locked (pinned) host memory |
# | `aclrtGetMemInfo(ACL_HBM_MEM, &free, &total)` | `free, total, ret = acl.rt.get_mem_info(acl.ACL_HBM_MEM)` | free and total device memory |
# | `aclrtFree(p)` | `acl.rt.free(p)` | free at once, waiting for nothing |
# | `aclrtFreeWithDevSync(p)` | `acl.rt.free_with_dev_sync(p)` | wait for the device, then free |
#
# An ordinary numpy array, handed over with `acl.util.numpy_to_ptr(array)`, is **pageable**
# host memory. **After this notebook** you can predict what an allocation reserves under each
# policy, say why copies should come from pinned memory, and free memory without pulling it
# from under a queued task. **It assumes** notebooks 01 to 03.

# %% [markdown] lang="zh"
# # 04 · Device 内存：分配策略、锁页拷贝、安全释放
#
# **时间**：约 45 分钟。之后可选学深入：[04x_memory_pools](04x_memory_pools.ipynb)（内存碎片、按 Stream 顺序分配的
# 内存池）。
#
# 在 NPU 上申请内存，拿到的字节数从来不会正好等于申请的数。本 notebook 展示分配器实际占用了多少；为什么拷贝的
# 源头——Host（主机）内存——与目的地 Device（设备）内存同样要紧；以及为什么释放一块排队任务还在用的内存要格外小心。
#
# | C 调用 | Python 调用 | 作用 |
# |---|---|---|
# | `aclrtMalloc(&p, size, policy)` | `p, ret = acl.rt.malloc(size, policy)` | 按页策略申请 Device 内存 |
# | `aclrtMallocHost(&p, size)` | `p, ret = acl.rt.malloc_host(size)` | 申请锁页 Host 内存 |
# | `aclrtGetMemInfo(ACL_HBM_MEM, &free, &total)` | `free, total, ret = acl.rt.get_mem_info(acl.ACL_HBM_MEM)` | Device 的空闲内存与总内存 |
# | `aclrtFree(p)` | `acl.rt.free(p)` | 立即释放，什么也不等 |
# | `aclrtFreeWithDevSync(p)` | `acl.rt.free_with_dev_sync(p)` | 先等 Device，再释放 |
#
# 用 `acl.util.numpy_to_ptr(array)` 交出的普通 numpy 数组是**非锁页**（可分页）Host 内存。**学完本 notebook**，你能
# 预测每种策略下一次分配实际占用多少，说明拷贝为什么应当来自锁页内存，并且在释放内存时不会把它从排队任务的脚下
# 抽走。**前置**：notebook 01 到 03。

# %% lang="zh"
import sandbox

sandbox.set_language("zh")          # 中文版：评分反馈使用中文

# %%
import numpy as np

import sandbox
from sandbox import acl, teach

MiB = 1 << 20
HUGE_FIRST = acl.ACL_MEM_MALLOC_HUGE_FIRST
H2D, D2H = acl.ACL_MEMCPY_HOST_TO_DEVICE, acl.ACL_MEMCPY_DEVICE_TO_HOST


def fresh():
    """A fresh one-device 910B with acl initialised and device 0 set."""
    sandbox.configure(device_count=1)
    acl.init()
    acl.rt.set_device(0)

# %% [markdown]
# ## 1 · The official memory example
#
# The runtime repository's host-to-device copy sample (`example/1_basic_features/memory/`)
# creates a stream, takes 1 MiB of **pinned** host memory and 1 MiB of device memory, writes a
# value on the host, queues the copy and waits for the stream, then gives everything back in
# reverse order. Here is the same flow; we copy the value back to look at it.

# %% [markdown] lang="zh"
# ## 1 · 官方内存示例
#
# runtime 仓库的 Host 到 Device 拷贝示例（`example/1_basic_features/memory/`）先创建一条 Stream（流），申请 1 MiB
# **锁页** Host 内存和 1 MiB Device 内存，在 Host 上写入一个值，下发拷贝并等待这条 Stream，最后按相反的顺序归还
# 一切。下面是同样的流程；为了看到结果，我们把这个值再拷回来。

# %%
fresh()
stream, _ = acl.rt.create_stream()
size = 1 * MiB
host, _ = acl.rt.malloc_host(size)                          # pinned host memory
dev, _ = acl.rt.malloc(size, HUGE_FIRST)                    # device memory
acl.util.ptr_to_numpy(host, (size // 4,), np.int32)[0] = 123
acl.rt.memcpy_async(dev, size, host, size, H2D, stream)
acl.rt.synchronize_stream(stream)                            # the copy is done only now

back = np.zeros(size // 4, dtype=np.int32)
acl.rt.memcpy(acl.util.numpy_to_ptr(back), size, dev, size, D2H)
print("value on the device:", back[0])
print([acl.rt.destroy_stream(stream), acl.rt.free_host(host), acl.rt.free(dev)])

# %% [markdown]
# ## 2 · Policies and page sizes
#
# `aclrtMalloc` takes a **policy** that says which pages back the block:
#
# | policy | pages |
# |---|---|
# | `ACL_MEM_MALLOC_HUGE_FIRST` | up to 1 MiB: 4 KiB normal pages; above: 2 MiB huge pages, normal ones if no huge run is free |
# | `ACL_MEM_MALLOC_HUGE_ONLY` | 2 MiB huge pages only; fails when none are free |
# | `ACL_MEM_MALLOC_NORMAL_ONLY` | 4 KiB normal pages only |
#
# Before rounding to pages the runtime pads every request to **`ALIGN_UP(size, 32) + 32`** bytes
# on these products (the API reference, `aclrtMalloc`,
# `docs/zh/api_ref/11-01_device_memory_malloc_and_free.md`). `get_mem_info` shows what a block
# takes: ask for the free bytes before and after.
#
# **Predict, then run.** How many bytes of the device does a **1-byte** allocation take under
# each policy?

# %% [markdown] lang="zh"
# ## 2 · 分配策略与页大小
#
# `aclrtMalloc` 要求给出一个**策略**，说明用哪种页来承载这块内存：
#
# | 策略 | 页 |
# |---|---|
# | `ACL_MEM_MALLOC_HUGE_FIRST` | 不超过 1 MiB 用 4 KiB 普通页；超过则用 2 MiB 大页，没有空闲大页时退回普通页 |
# | `ACL_MEM_MALLOC_HUGE_ONLY` | 只用 2 MiB 大页；没有空闲大页就失败 |
# | `ACL_MEM_MALLOC_NORMAL_ONLY` | 只用 4 KiB 普通页 |
#
# 在按页取整之前，runtime 会把每个请求补齐到 **`ALIGN_UP(size, 32) + 32`** 字节（这些产品上如此，见 API 参考
# `aclrtMalloc`，`docs/zh/api_ref/11-01_device_memory_malloc_and_free.md`）。用 `get_mem_info` 看一块内存实际占用
# 多少：在分配前后各查一次空闲字节数。
#
# **先预测，再运行。**在每种策略下，申请 **1 字节**要占用 Device 多少字节？

# %%
POLICIES = {"HUGE_FIRST": HUGE_FIRST,
            "HUGE_ONLY": acl.ACL_MEM_MALLOC_HUGE_ONLY,
            "NORMAL_ONLY": acl.ACL_MEM_MALLOC_NORMAL_ONLY}


def reserved_by(size, policy):
    """Bytes an allocation takes from the device, measured with get_mem_info."""
    before, _, _ = acl.rt.get_mem_info(acl.ACL_HBM_MEM)
    ptr, ret = acl.rt.malloc(size, policy)
    after, _, _ = acl.rt.get_mem_info(acl.ACL_HBM_MEM)
    acl.rt.free(ptr)
    return before - after


print(f"{'requested':>10}  {'padded':>10}  " + "  ".join(f"{name:>12}" for name in POLICIES))
for size in [1, 4064, 4065, 1 * MiB, 1 * MiB + 1, 3 * MiB]:
    padded = (size + 31) // 32 * 32 + 32
    taken = [reserved_by(size, policy) for policy in POLICIES.values()]
    print(f"{size:>10}  {padded:>10}  " + "  ".join(f"{t:>12}" for t in taken))

# %% [markdown]
# One byte pads to 64 and then takes a whole page: 4 KiB, or 2 MiB under `HUGE_ONLY`. 4064
# bytes pad to exactly 4096 and fit one normal page; 4065 bytes pad to 4128 and need two.
# `HUGE_FIRST` serves 1 MiB with normal pages and switches to a huge page at 1 MiB + 1; 3 MiB in
# huge pages takes 4 MiB. Huge pages make the device's address translation cheaper for big
# buffers; the price is this rounding, so small buffers belong on normal pages.
#
# An overview article on the CANN runtime (not official documentation) lists a `MEMORY_POOL`
# "strategy" and says `NORMAL_ONLY` "fragments less". There is no `MEMORY_POOL` policy: a memory
# pool is a separate set of calls (notebook 04x). And normal pages waste less **inside** a small
# block, but holes **between** blocks come from the order of frees, whatever the page size.
#
# ## 3 · Pinned or pageable: where the host bytes live
#
# The DMA engine reads only host memory whose pages cannot move. Pinned memory qualifies; for
# pageable memory the runtime stages the bytes, and `aclrtMemcpyAsync` **returns only when the
# copy is done** (the Runtime programming guide, *Data copy*, "非锁页Host内存的异步复制",
# `docs/zh/dev_guide/02-01_data_copy.md`). The link is slower too: 57 GB/s pinned against
# 14 GB/s pageable for H2D in this profile (the sandbox's figures).
#
# **Predict, then run.** The same 64 MiB `memcpy_async`, from pinned and then from pageable
# memory. When does each call give the host its thread back?

# %% [markdown] lang="zh"
# 1 字节补齐到 64 字节后占满一整页：4 KiB，在 `HUGE_ONLY` 下是 2 MiB。4064 字节恰好补齐到 4096，放得进一个普通页；
# 4065 字节补齐到 4128，就要两页。`HUGE_FIRST` 对 1 MiB 仍用普通页，到 1 MiB + 1 就换成大页；3 MiB 用大页要占
# 4 MiB。大页让大缓冲区的地址转换更省，代价就是这种取整，所以小缓冲区应放在普通页上。
#
# 一篇 CANN Runtime 概述文章（并非官方文档）列出了一种 `MEMORY_POOL`“策略”，还说 `NORMAL_ONLY`“碎片较少”。其实
# 并没有 `MEMORY_POOL` 策略：内存池是另一组接口（见 notebook 04x）。普通页在一小块内存**内部**浪费得少，但块与块
# **之间**的空洞来自释放的顺序，与页大小无关。
#
# ## 3 · 锁页还是非锁页：Host 数据放在哪里
#
# DMA 引擎只能读取页面不会被换出的 Host 内存。锁页内存满足条件；对非锁页内存，runtime 要先把数据中转一次，
# `aclrtMemcpyAsync` **要等拷贝完成才返回**（《Runtime编程指南》“数据复制”中的“非锁页Host内存的异步复制”，
# `docs/zh/dev_guide/02-01_data_copy.md`）。链路也更慢：本配置中 H2D 锁页为 57 GB/s，非锁页为 14 GB/s（沙箱的取值）。
#
# **先预测，再运行。**同样一次 64 MiB 的 `memcpy_async`，先从锁页内存、再从非锁页内存发起。两次调用各在什么时候把
# 线程还给 Host？

# %%
fresh()
copy_stream, _ = acl.rt.create_stream()
N = 64 * MiB
dst, _ = acl.rt.malloc(N, HUGE_FIRST)
pinned, _ = acl.rt.malloc_host(N)
pageable = acl.util.numpy_to_ptr(np.ones(N, dtype=np.uint8))

for name, src in (("pinned", pinned), ("pageable", pageable)):
    t0 = sandbox.now()
    acl.rt.memcpy_async(dst, N, src, N, H2D, copy_stream)
    returned = (sandbox.now() - t0) / 1e6
    acl.rt.synchronize_stream(copy_stream)
    done = (sandbox.now() - t0) / 1e6
    print(f"{name:>8}: memcpy_async returned after {returned:7.3f} ms, copy done after {done:7.3f} ms "
          f"({N / (done * 1e-3) / 1e9:.1f} GB/s)")

# %% [markdown]
# The pinned call returned after a few µs while the copy ran for 1.2 ms; the pageable call held
# the thread for the whole 4.8 ms copy. That matters when the host should queue more work while
# a copy runs. Here a kernel that does not touch the copied buffer is launched on a second
# stream straight after the copy, from pinned memory and then from pageable memory:

# %% [markdown] lang="zh"
# 锁页的调用几微秒就返回了，而拷贝本身运行了 1.2 ms；非锁页的调用在整整 4.8 ms 的拷贝期间一直占着线程。如果想让
# Host 在拷贝进行时继续下发任务，这一点就很关键。下面在拷贝之后立即在第二条 Stream 上下发一个不访问被拷贝缓冲区
# 的核函数，先从锁页内存拷贝，再从非锁页内存拷贝：

# %%
@sandbox.kernel(ns=2_000_000)          # 2 ms of compute on a separate buffer
def busy(x: "uint8*"):
    pass


def copy_then_compute(src):
    fresh()
    s_copy, _ = acl.rt.create_stream()
    s_compute, _ = acl.rt.create_stream()
    dst, _ = acl.rt.malloc(N, HUGE_FIRST)
    work, _ = acl.rt.malloc(4096, HUGE_FIRST)
    host_src = acl.rt.malloc_host(N)[0] if src == "pinned" else acl.util.numpy_to_ptr(np.ones(N, np.uint8))
    acl.rt.memcpy_async(dst, N, host_src, N, H2D, s_copy)
    busy[24, s_compute](work)
    acl.rt.synchronize_device()


copy_then_compute("pinned")
sandbox.gantt()

# %%
copy_then_compute("pageable")
sandbox.gantt()

# %% [markdown]
# With pinned memory the copy and the kernel overlap (the "overlap" figure in the text, two bars
# side by side). With pageable memory the host was stuck inside `memcpy_async`, so the kernel
# was launched only after the copy: no overlap. (A community article on CANN asynchronous
# execution, not official documentation, lists "zero-copy" without saying what it is; pinned
# memory is the nearest thing here: the DMA engine reads your buffer where it is, without the
# staging copy the pageable run paid for.)
#
# ## 4 · Freeing memory a queued task still uses
#
# `aclrtFree` frees at once: it does not synchronise the device or a stream and does not wait
# for the tasks that use the memory. `aclrtFreeWithDevSync` synchronises the device first and so
# waits for them (the API reference, "aclrtFree" and "aclrtFreeWithDevSync",
# `docs/zh/api_ref/11-01_device_memory_malloc_and_free.md`; the runtime's `rtFreeWithDevSync` is
# `rtDeviceSynchronize` then `rtFree`, `src/runtime/api/api_c_memory.cc:174-183`). pyACL has no
# binding for it: `acl.rt.free_with_dev_sync` is the sandbox's, named by pyACL's rule.
#
# **Predict, then run.** `busy` (2 ms) still uses `buf` on stream 1, and an unrelated 5 ms kernel
# runs on stream 2, when the host frees `buf`. How long does each call keep the host waiting?

# %% [markdown] lang="zh"
# 使用锁页内存时，拷贝与核函数重叠（文字中的 "overlap" 数值，以及并排的两个条形）。使用非锁页内存时，Host 卡在
# `memcpy_async` 里，核函数要等拷贝结束才下发：没有重叠。（一篇介绍 CANN 异步执行的社区文章——并非官方文档——
# 提到了“零拷贝”，却没说它是什么；在这里最接近的就是锁页内存：DMA 引擎就地读取你的缓冲区，省掉了非锁页那次
# 运行所付出的中转拷贝。）
#
# ## 4 · 释放一块排队任务还在用的内存
#
# `aclrtFree` 立即释放：它不做 Device 同步或 Stream 同步，也不等待使用这块内存的任务。`aclrtFreeWithDevSync` 先
# 隐式同步 Device，因此会等这些任务完成（API 参考 aclrtFree 与 aclrtFreeWithDevSync，
# `docs/zh/api_ref/11-01_device_memory_malloc_and_free.md`；runtime 的 `rtFreeWithDevSync` 就是先
# `rtDeviceSynchronize` 再 `rtFree`，见 `src/runtime/api/api_c_memory.cc:174-183`）。pyACL 没有绑定它：
# `acl.rt.free_with_dev_sync` 是沙箱按 pyACL 命名规则提供的。
#
# **先预测，再运行。**Host 释放 `buf` 时，`busy`（2 ms）还在 Stream 1 上使用它，Stream 2 上还有一个无关的 5 ms 核函数
# 在运行。两种调用各让 Host 等多久？

# %%
@sandbox.kernel(ns=5_000_000)          # 5 ms on a buffer of its own
def unrelated(x: "uint8*"):
    pass


def free_while_busy(how):
    fresh()
    s1, _ = acl.rt.create_stream()
    s2, _ = acl.rt.create_stream()
    buf, _ = acl.rt.malloc(4096, HUGE_FIRST)
    other, _ = acl.rt.malloc(4096, HUGE_FIRST)
    busy[8, s1](buf)                   # 8 of the 24 AI Cores: the other kernel runs beside it
    unrelated[1, s2](other)
    t0 = sandbox.now()
    ret = acl.rt.free(buf) if how == "aclrtFree" else acl.rt.free_with_dev_sync(buf)
    print(f"{how:<20}: ret {ret}, the host waited {(sandbox.now() - t0) / 1e6:.3f} ms")
    acl.rt.synchronize_device()


free_while_busy("aclrtFree")
free_while_busy("aclrtFreeWithDevSync")

# %% [markdown]
# `aclrtFree` returned at once, and the sandbox warns under the cell that `busy` still uses the
# freed memory: on a board that is a use after free, and the bytes may already belong to the next
# allocation. `aclrtFreeWithDevSync` waited 5 ms, for the **whole device**, the unrelated kernel
# included, not only for the task that used `buf`. Use it where waiting is acceptable (teardown,
# rare frees); in a loop, synchronise the one stream yourself, or let a stream-ordered pool free
# in stream order (notebook 04x).
#
# ## Exercises
#
# `sandbox.teach.check("04.1", solution)` runs **your** function on a fresh simulated 910B (one
# device), acl initialised and device 0 set, with new inputs each time, and judges the run from
# the trace and from what the device memory holds at the end. Do not call `acl.init()`,
# `acl.rt.set_device(0)` or `sandbox.configure` yourself.
#
# ### Exercise 04.1 · fit the budget
#
# *Practises:* what an allocation really reserves: the padding, the page size and the policy.
#
# Put three arrays on device 0 so that all three are alive together when `solution` returns:
# `weights` (3 MiB of float32), `table` (1000 bytes of int32) and `flags` (100 bytes of uint8).
# Return their device addresses, `(weights_ptr, table_ptr, flags_ptr)`. The grader wants:
#
# * each address inside a live allocation on device 0 with room for its array, the three ranges
#   apart (three allocations, or one you carve into three);
# * each range holding its array's bytes, copied from the host;
# * at most **3 MiB + 12 KiB** (3 158 016 bytes) reserved on device 0 at the peak, padding and
#   page rounding included.

# %% [markdown] lang="zh"
# `aclrtFree` 立即返回，沙箱在单元格下方警告：`busy` 仍在使用已释放的内存。在板卡上这就是释放后使用，这些字节
# 也许已经分给了下一次申请。`aclrtFreeWithDevSync` 等了 5 ms：它等的是**整个 Device**，连那个无关的核函数也算在内，
# 而不只是使用 `buf` 的任务。在可以接受等待的地方用它（收尾、偶尔的释放）；在循环里，应自己同步那一条 Stream，
# 或者让按 Stream 顺序分配的内存池按 Stream 顺序释放（见 notebook 04x）。
#
# ## 练习
#
# `sandbox.teach.check("04.1", solution)` 在一台全新的模拟 910B（一个 Device）上运行**你的**函数：acl 已初始化，
# Device 0 已设置，每次输入都不同，并根据 trace 和最终 Device 内存中的内容评判整次运行。不要自己调用
# `acl.init()`、`acl.rt.set_device(0)` 或 `sandbox.configure`。
#
# ### 练习 04.1 · 放进内存预算
#
# *练习要点：* 一次分配实际保留多少：补齐、页大小与策略。
#
# 在 Device 0 上放三个数组，`solution` 返回时三者要同时存活：`weights`（3 MiB 的 float32）、`table`（1000 字节的
# int32）和 `flags`（100 字节的 uint8）。返回它们的 Device 地址 `(weights_ptr, table_ptr, flags_ptr)`。评分器要求：
#
# * 每个地址都落在 Device 0 上一块存活的、放得下对应数组的分配之内，三段地址互不重叠（三次分配，或一次分配再
#   切成三段，都可以）；
# * 每段中是对应数组的字节，从 Host 拷贝过去；
# * Device 0 上的峰值占用不超过 **3 MiB + 12 KiB**（3 158 016 字节），补齐和按页取整都算在内。

# %% nbgrader={"grade": false, "grade_id": "ex04_1", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(weights, table, flags):
    """Copy weights, table and flags to device 0; return their device addresses."""
    # TODO: allocate device memory, copy each array in (acl.util.numpy_to_ptr(array) is its host
    # address; a blocking acl.rt.memcpy is fine here), and return the three addresses.
    # Hint: the table in section 2 shows what each policy reserves for 3 MiB, 1000 and 100 bytes.
    ### BEGIN SOLUTION
    ptrs = []
    for array, policy in ((weights, acl.ACL_MEM_MALLOC_NORMAL_ONLY),     # 3 MiB + 4 KiB, not 4 MiB
                          (table, acl.ACL_MEM_MALLOC_HUGE_FIRST),        # up to 1 MiB: normal pages
                          (flags, acl.ACL_MEM_MALLOC_HUGE_FIRST)):
        ptr, _ = acl.rt.malloc(array.nbytes, policy)
        acl.rt.memcpy(ptr, array.nbytes, acl.util.numpy_to_ptr(array), array.nbytes, H2D)
        ptrs.append(ptr)
    return tuple(ptrs)
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex04_1_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("04.1", solution, isolated=True)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("04.1", solution)

# %% [markdown]
# ### Exercise 04.2 · copy while computing
#
# *Practises:* pinned host memory: an asynchronous copy that really is asynchronous, beside a kernel.
#
# Copy `data` (64 MiB of uint8, `N` bytes) into a new buffer on device 0 while `busy` (the 2 ms
# kernel of section 3) runs on device 0 on a 4 KiB buffer of its own; return the copy's device
# address and keep that buffer. The grader wants:
#
# * the returned buffer holding `data`, exactly 64 MiB copied host to device, from **pinned**
#   host memory;
# * `busy` launched once, and the copy and the kernel overlapping for at least 90 % of the copy;
# * the whole run within **2.5 ms** of virtual time (freeing fits in it; a device reset, 5 ms,
#   does not), with a synchronize before `solution` returns.

# %% [markdown] lang="zh"
# ### 练习 04.2 · 边计算边拷贝
#
# *练习要点：* 锁页 Host 内存：真正异步的拷贝，与核函数并行。
#
# 在 `busy`（第 3 节那个 2 ms 的核函数）于 Device 0 上、在它自己的 4 KiB 缓冲区上运行的同时，把 `data`（64 MiB 的
# uint8，共 `N` 字节）拷贝到 Device 0 上一块新的缓冲区；返回这份拷贝的 Device 地址，并保留这块缓冲区。评分器要求：
#
# * 返回的缓冲区中是 `data`，Host 到 Device 恰好拷贝 64 MiB，源头是**锁页** Host 内存；
# * `busy` 只下发一次，拷贝与核函数的重叠至少占拷贝时间的 90 %；
# * 整次运行不超过 **2.5 ms** 虚拟时间（释放内存放得下；Device 复位要 5 ms，放不下），并且 `solution` 返回前做一次同步。

# %% nbgrader={"grade": false, "grade_id": "ex04_2", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(data):
    """Copy data (N bytes) to a new buffer on device 0 while busy runs; return the buffer's address."""
    # TODO: two streams, an N-byte device buffer, a 4 KiB buffer for busy, the copy, the launch, a wait.
    # Hint: which host memory lets memcpy_async return at once? Fill it with
    # acl.util.ptr_to_numpy(host_ptr, (N,), np.uint8)[:] = data
    ### BEGIN SOLUTION
    s_copy, _ = acl.rt.create_stream()
    s_compute, _ = acl.rt.create_stream()
    dst, _ = acl.rt.malloc(N, HUGE_FIRST)
    work, _ = acl.rt.malloc(4096, HUGE_FIRST)
    src, _ = acl.rt.malloc_host(N)                       # pinned: memcpy_async returns at once
    acl.util.ptr_to_numpy(src, (N,), np.uint8)[:] = data
    acl.rt.memcpy_async(dst, N, src, N, H2D, s_copy)
    busy[24, s_compute](work)
    acl.rt.synchronize_device()
    return dst
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex04_2_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("04.2", solution, isolated=True)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("04.2", solution)

# %% [markdown]
# ## Concept check
#
# Answer with letters; the check says why each choice is right or which cell shows the answer.

# %% [markdown] lang="zh"
# ## 概念检查
#
# 用字母作答；检查会说明每个选项为什么对，或者哪个单元格展示了答案。

# %%
teach.questions("04.concepts")

# %% nbgrader={"grade": false, "grade_id": "concepts", "locked": false, "schema_version": 3, "solution": true, "task": false}
def concepts():
    """Your answers: {question number: letter}."""
    ### BEGIN SOLUTION
    return {1: "c", 2: "b", 3: "b", 4: "c"}
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "concepts_check", "locked": true, "points": 4, "schema_version": 3, "solution": false, "task": false}
teach.check("04.concepts", concepts)
### BEGIN HIDDEN TESTS
teach.check("04.concepts", concepts, isolated=True).score * 4
### END HIDDEN TESTS

# %% [markdown]
# ## Official samples for this topic
#
# The copies in every direction, `0_h2h_memory_copy.py` to `6_d2d_async_memory_copy.py` in
# [examples/1_basic_features/memory](../examples/1_basic_features/memory/), for example
# [2_h2d_async_memory_copy.py](../examples/1_basic_features/memory/2_h2d_async_memory_copy.py);
# physical memory shared between processes in `7_` and `8_`, two streams ordered through device
# memory in `9_multistream_sync_memory.py`; notebook [11_official_samples](11_official_samples.ipynb).
#
# ## Summary
#
# An allocation reserves `ALIGN_UP(size, 32) + 32` bytes, rounded to whole 4 KiB or 2 MiB pages
# as its policy says, so small buffers belong on normal pages. Copies from pinned memory are truly
# asynchronous and overlap with kernels; copies from pageable memory hold the host.
# `aclrtFree` waits for nothing; `aclrtFreeWithDevSync` waits for the whole device. The optional
# [04x_memory_pools](04x_memory_pools.ipynb) shows fragmentation and stream-ordered pools;
# notebook 05 spreads work over several devices.

# %% [markdown] lang="zh"
# ## 本专题的官方示例
#
# 各个方向的拷贝：[examples/1_basic_features/memory](../../examples/1_basic_features/memory/) 中的
# `0_h2h_memory_copy.py` 到 `6_d2d_async_memory_copy.py`，例如
# [2_h2d_async_memory_copy.py](../../examples/1_basic_features/memory/2_h2d_async_memory_copy.py)；`7_` 和 `8_`
# 在进程之间共享物理内存，`9_multistream_sync_memory.py` 通过 Device 内存为两条 Stream 排序；另见 notebook
# [11_official_samples](11_official_samples.ipynb)。
#
# ## 小结
#
# 一次分配占用 `ALIGN_UP(size, 32) + 32` 字节，再按策略取整到整数个 4 KiB 或 2 MiB 页，所以小缓冲区应放在普通页上。
# 从锁页内存发起的拷贝是真正异步的，能与核函数重叠；从非锁页内存发起的拷贝会占住 Host。`aclrtFree` 什么也不等，
# `aclrtFreeWithDevSync` 要等整个 Device。选学的 [04x_memory_pools](04x_memory_pools.ipynb) 讲内存碎片和按 Stream
# 顺序分配的内存池；notebook 05 把任务分布到多个 Device 上。

# %% [markdown] lang="zh" translates="code"
# en: """A fresh one-device 910B with acl initialised and device 0 set."""
# zh: """一台全新的单 Device 910B：acl 已初始化，已设置 Device 0。"""
# en: # pinned host memory
# zh: # 锁页 Host 内存
# en: # device memory
# zh: # Device 内存
# en: # the copy is done only now
# zh: # 到这里拷贝才算完成
# en: print("value on the device:", back[0])
# zh: print("Device 上的值：", back[0])
# en: """Bytes an allocation takes from the device, measured with get_mem_info."""
# zh: """一次分配从 Device 上占用的字节数，用 get_mem_info 测得。"""
# en: print(f"{name:>8}: memcpy_async returned after {returned:7.3f} ms, copy done after {done:7.3f} ms "
# zh: print(f"{name:>8}：memcpy_async 在 {returned:7.3f} ms 后返回，拷贝在 {done:7.3f} ms 后完成 "
# en: # 2 ms of compute on a separate buffer
# zh: # 在另一块缓冲区上计算 2 ms
# en: # 8 of the 24 AI Cores: the other kernel runs beside it
# zh: # 占 24 个 AI Core 中的 8 个：另一个核函数可以同时运行
# en: # 5 ms on a buffer of its own
# zh: # 在自己的缓冲区上运行 5 ms
# en: print(f"{how:<20}: ret {ret}, the host waited {(sandbox.now() - t0) / 1e6:.3f} ms")
# zh: print(f"{how:<20}：ret {ret}，Host 等了 {(sandbox.now() - t0) / 1e6:.3f} ms")
# en: """Copy weights, table and flags to device 0; return their device addresses."""
# zh: """把 weights、table 和 flags 拷贝到 Device 0；返回它们的 Device 地址。"""
# en: # TODO: allocate device memory, copy each array in (acl.util.numpy_to_ptr(array) is its host
# zh: # TODO：申请 Device 内存，把每个数组拷进去（acl.util.numpy_to_ptr(array) 是它的 Host
# en: # address; a blocking acl.rt.memcpy is fine here), and return the three addresses.
# zh: # 地址；这里用阻塞的 acl.rt.memcpy 即可），然后返回三个地址。
# en: # Hint: the table in section 2 shows what each policy reserves for 3 MiB, 1000 and 100 bytes.
# zh: # 提示：第 2 节的表给出了每种策略为 3 MiB、1000 字节和 100 字节各占用多少。
# en: # 3 MiB + 4 KiB, not 4 MiB
# zh: # 3 MiB + 4 KiB，而不是 4 MiB
# en: # up to 1 MiB: normal pages
# zh: # 不超过 1 MiB：普通页
# en: """Copy data (N bytes) to a new buffer on device 0 while busy runs; return the buffer's address."""
# zh: """在 busy 运行的同时把 data（N 字节）拷贝到 Device 0 上的新缓冲区；返回该缓冲区的地址。"""
# en: # TODO: two streams, an N-byte device buffer, a 4 KiB buffer for busy, the copy, the launch, a wait.
# zh: # TODO：两条 Stream、一块 N 字节的 Device 缓冲区、一块给 busy 的 4 KiB 缓冲区、拷贝、下发、一次等待。
# en: # Hint: which host memory lets memcpy_async return at once? Fill it with
# zh: # 提示：哪种 Host 内存能让 memcpy_async 立即返回？这样填充它：
# en: # pinned: memcpy_async returns at once
# zh: # 锁页内存：memcpy_async 立即返回
# en: """Your answers: {question number: letter}."""
# zh: """你的答案：{题号: 字母}。"""

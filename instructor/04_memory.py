# %% [markdown]
# # 04 · Device memory: policies, pages, pinned copies, fragmentation
#
# On an NPU you never get exactly the bytes you ask for. This notebook shows what the
# allocator really takes, why the host memory you copy from matters as much as the device
# memory you copy to, and how freeing in the wrong order leaves memory you cannot use.
#
# | You will see | C call | Python call |
# |---|---|---|
# | device memory with a page policy | `aclrtMalloc(&p, size, ACL_MEM_MALLOC_HUGE_FIRST)` | `acl.rt.malloc(size, acl.ACL_MEM_MALLOC_HUGE_FIRST)` |
# | page-locked (pinned) host memory | `aclrtMallocHost(&p, size)` | `acl.rt.malloc_host(size)` |
# | pageable host memory (a plain array) | `malloc(size)` | `acl.util.numpy_to_ptr(array)` |
# | free and total memory of the device | `aclrtGetMemInfo(ACL_HBM_MEM, &free, &total)` | `acl.rt.get_mem_info(acl.ACL_HBM_MEM)` |
#
# The machine is simulated and runs in virtual time, so every figure below is the same on
# every run.
#
# **After this notebook** you can predict what an allocation reserves under each policy, say
# why copies should come from pinned memory, spot fragmentation in the memory map, and reuse
# memory in stream order with a pool. **It assumes** notebooks 01 to 03.

# %% [markdown] lang="zh"
# # 04 · 设备内存：策略、页、锁页拷贝、碎片
#
# 在 NPU 上，你得到的字节数从来不会恰好等于你申请的。本 notebook 展示分配器实际占用多少，为什么拷贝来源的
# Host 内存与拷贝目标的设备内存同样重要，以及以错误的顺序释放如何留下无法使用的内存。
#
# | 你将看到 | C 调用 | Python 调用 |
# |---|---|---|
# | 按页策略申请设备内存 | `aclrtMalloc(&p, size, ACL_MEM_MALLOC_HUGE_FIRST)` | `acl.rt.malloc(size, acl.ACL_MEM_MALLOC_HUGE_FIRST)` |
# | 锁页（pinned）Host 内存 | `aclrtMallocHost(&p, size)` | `acl.rt.malloc_host(size)` |
# | 可分页 Host 内存（普通数组） | `malloc(size)` | `acl.util.numpy_to_ptr(array)` |
# | 设备的空闲内存和总内存 | `aclrtGetMemInfo(ACL_HBM_MEM, &free, &total)` | `acl.rt.get_mem_info(acl.ACL_HBM_MEM)` |
#
# 机器是模拟的，以虚拟时间运行，所以下面的每个数字在每次运行中都相同。
#
# **学完本 notebook**，你能预测每种策略下一次分配实际占用多少，说明为什么拷贝应当来自锁页内存，在内存图中
# 认出碎片，并用内存池按流的顺序复用内存。**前提**：notebook 01 到 03。

# %% lang="zh"
import sandbox

sandbox.set_language("zh")          # 中文版：评分反馈使用中文

# %%
import numpy as np

import sandbox
from sandbox import acl, teach

MiB = 1 << 20
sandbox.configure(device_count=1)          # one 910B device is enough for this notebook
print(acl.init(), acl.rt.set_device(0))

# %% [markdown]
# ## 1 · The official memory example, step by step
#
# The runtime repository's memory examples (`example/1_basic_features/memory/` in
# hicann/runtime) all follow one flow. The host-to-device asynchronous copy example goes:
#
# 1. initialise, choose device 0, create a stream;
# 2. take 1 MiB of **pinned** host memory (`aclrtMallocHost`) and 1 MiB of device memory
#    with the `HUGE_FIRST` policy (`aclrtMalloc`);
# 3. write a value into the host buffer;
# 4. queue the copy on the stream (`aclrtMemcpyAsync`, host to device) and wait for the
#    stream before anyone reads the result;
# 5. give everything back in reverse order: stream, host memory, device memory, then
#    `aclrtResetDeviceForce` and `aclFinalize`.
#
# Here is the same flow in Python; instead of a device kernel reading the value, we copy it
# back and look.

# %% [markdown] lang="zh"
# ## 1 · 官方内存示例，逐步进行
#
# 运行时仓库的内存示例（hicann/runtime 中的 `example/1_basic_features/memory/`）都遵循同一个流程。Host 到设备
# 的异步拷贝示例是这样的：
#
# 1. 初始化，选择设备 0，创建一条流；
# 2. 申请 1 MiB **锁页** Host 内存（`aclrtMallocHost`）和 1 MiB 使用 `HUGE_FIRST` 策略的设备内存（`aclrtMalloc`）；
# 3. 向 Host 缓冲区写入一个值；
# 4. 把拷贝放到流上（`aclrtMemcpyAsync`，Host 到设备），在任何人读取结果之前等待这条流；
# 5. 按相反的顺序归还一切：流、Host 内存、设备内存，然后 `aclrtResetDeviceForce` 和 `aclFinalize`。
#
# 下面是同样流程的 Python 版本；我们不用设备核函数读取这个值，而是把它拷回来查看。

# %%
stream, _ = acl.rt.create_stream()
size = 1 * MiB
host, _ = acl.rt.malloc_host(size)                          # pinned host memory
dev, _ = acl.rt.malloc(size, acl.ACL_MEM_MALLOC_HUGE_FIRST)  # device memory
acl.util.ptr_to_numpy(host, (size // 4,), np.int32)[0] = 123
acl.rt.memcpy_async(dev, size, host, size, acl.ACL_MEMCPY_HOST_TO_DEVICE, stream)
acl.rt.synchronize_stream(stream)                            # the copy is done only now

back = np.zeros(size // 4, dtype=np.int32)
acl.rt.memcpy(acl.util.numpy_to_ptr(back), size, dev, size, acl.ACL_MEMCPY_DEVICE_TO_HOST)
print("value on the device:", back[0])
print([acl.rt.destroy_stream(stream), acl.rt.free_host(host), acl.rt.free(dev)])

# %% [markdown]
# ## 2 · Policies and page sizes
#
# `aclrtMalloc` takes a **policy** that says which pages back the block:
#
# | policy | value | pages |
# |---|---|---|
# | `ACL_MEM_MALLOC_HUGE_FIRST` | 0 | up to 1 MiB: 4 KiB normal pages; above: 2 MiB huge pages, normal if no huge run is free |
# | `ACL_MEM_MALLOC_HUGE_ONLY` | 1 | 2 MiB huge pages only; fails when none are free |
# | `ACL_MEM_MALLOC_NORMAL_ONLY` | 2 | 4 KiB normal pages only |
#
# Before page rounding the runtime pads every request: it reserves
# **`ALIGN_UP(size, 32) + 32`** bytes (the 32 extra bytes guard against kernels that read a
# little past the end). The block then grows to a whole number of pages.
#
# You cannot see the reserved size on the pointer, but you can see it the way you would on
# real hardware: ask `get_mem_info` for the free bytes before and after the allocation.

# %% [markdown] lang="zh"
# ## 2 · 策略与页大小
#
# `aclrtMalloc` 接受一个**策略**参数，说明用哪种页来支撑这块内存：
#
# | 策略 | 值 | 页 |
# |---|---|---|
# | `ACL_MEM_MALLOC_HUGE_FIRST` | 0 | 不超过 1 MiB：4 KiB 普通页；超过：2 MiB 大页，没有空闲大页时用普通页 |
# | `ACL_MEM_MALLOC_HUGE_ONLY` | 1 | 只用 2 MiB 大页；没有空闲大页时失败 |
# | `ACL_MEM_MALLOC_NORMAL_ONLY` | 2 | 只用 4 KiB 普通页 |
#
# 在按页取整之前，运行时会填充每个请求：它保留 **`ALIGN_UP(size, 32) + 32`** 字节（多出的 32 字节防止核函数
# 读过末尾一点点）。然后这块内存再扩大到整数个页。
#
# 你无法从指针上看到保留的大小，但可以像在真实硬件上那样看到它：在分配前后向 `get_mem_info` 查询空闲字节数。

# %%
POLICIES = {"HUGE_FIRST": acl.ACL_MEM_MALLOC_HUGE_FIRST,
            "HUGE_ONLY": acl.ACL_MEM_MALLOC_HUGE_ONLY,
            "NORMAL_ONLY": acl.ACL_MEM_MALLOC_NORMAL_ONLY}


def reserved_by(size, policy):
    """Bytes an allocation takes from the device, measured with get_mem_info."""
    before, total, _ = acl.rt.get_mem_info(acl.ACL_HBM_MEM)
    ptr, ret = acl.rt.malloc(size, policy)
    after, total, _ = acl.rt.get_mem_info(acl.ACL_HBM_MEM)
    acl.rt.free(ptr)
    return before - after


sizes = [1, 100, 4064, 4065, 1 * MiB, 1 * MiB + 1, 3 * MiB]
print(f"{'requested':>10}  {'padded':>10}  " + "  ".join(f"{name:>12}" for name in POLICIES))
for size in sizes:
    padded = (size + 31) // 32 * 32 + 32
    taken = [reserved_by(size, policy) for policy in POLICIES.values()]
    print(f"{size:>10}  {padded:>10}  " + "  ".join(f"{t:>12}" for t in taken))

# %% [markdown]
# Read the table row by row:
#
# * **1 byte** pads to 64 bytes, then takes a whole 4 KiB page (normal) or a whole 2 MiB
#   page (`HUGE_ONLY`): two million bytes for one.
# * **4064 bytes** pad to exactly 4096 and fit one normal page; **4065 bytes** pad to 4128
#   and need two. The padding alone pushes a request over a page boundary.
# * **1 MiB** is the last size `HUGE_FIRST` serves with normal pages (1 MiB + 64 bytes,
#   rounded to 4 KiB); **1 MiB + 1** switches it to a 2 MiB huge page.
# * **3 MiB** with huge pages takes 4 MiB.
#
# Huge pages make the device's address translation cheaper for big buffers; the cost is
# this rounding. Small buffers belong on normal pages, which is what `HUGE_FIRST` does.
#
# The runtime overview (seed 004, partly generated text) lists three "strategies":
# `HUGE_FIRST`, "`NORMAL_ONLY`: normal memory, less fragmentation" and "`MEMORY_POOL`: from a
# memory pool". Two corrections. There is no `MEMORY_POOL` policy: the policies are the three
# above (and their `_P2P` twins for peer copies); a memory pool is a separate set of calls
# (`aclrtMemPoolCreate`, section 5). And `NORMAL_ONLY` does not fragment "less" in general: its
# 4 KiB pages waste less **inside** a small block (the table: 4 KiB instead of 2 MiB for one
# byte), but holes **between** blocks come from the order of frees (section 4), whatever the
# page size, and a big buffer on normal pages costs the device more address translations.
#
# Now keep one block of each kind alive and look at the memory map. Each bar is a block;
# the text beside the picture lists requested and reserved sizes. At true scale the 8 KiB
# normal-page block would be a hair beside 2 MiB pages, so the picture draws every block at
# least 70 pixels wide (`min_block_px=70`): block 24, cross-hatched, is that 8 KiB, not a
# wider one.

# %% [markdown] lang="zh"
# 逐行阅读这张表：
#
# * **1 字节**填充到 64 字节，然后占用整整一个 4 KiB 页（普通页）或整整一个 2 MiB 页（`HUGE_ONLY`）：为一个字节付出两百万字节。
# * **4064 字节**恰好填充到 4096，放进一个普通页；**4065 字节**填充到 4128，需要两个页。仅填充本身就能让请求越过页边界。
# * **1 MiB** 是 `HUGE_FIRST` 用普通页满足的最大请求（1 MiB + 64 字节，按 4 KiB 取整）；**1 MiB + 1** 就切换为一个 2 MiB 大页。
# * **3 MiB** 用大页要占 4 MiB。
#
# 对大缓冲区，大页让设备的地址转换更便宜；代价就是这种取整。小缓冲区应当放在普通页上，`HUGE_FIRST` 正是这样做的。
#
# 运行时概览（种子 004，部分由生成式工具写成）列出三种“策略”：`HUGE_FIRST`、“`NORMAL_ONLY`：使用普通内存，碎片较少”
# 和“`MEMORY_POOL`：从内存池分配”。有两处需要更正。不存在 `MEMORY_POOL` 策略：策略就是上面三种（以及用于设备间拷贝的
# `_P2P` 版本）；内存池是另一组调用（`aclrtMemPoolCreate`，第 5 节）。`NORMAL_ONLY` 也并非总体上碎片“较少”：它的 4 KiB
# 页在一小块内存**内部**浪费得少（见表：一个字节占 4 KiB 而不是 2 MiB），但块与块**之间**的空洞来自释放的顺序（第 4 节），
# 与页大小无关；而且大缓冲区放在普通页上会让设备做更多地址转换。
#
# 现在让每种块各保留一个，看看内存图。每个条形是一块内存；图旁的文字列出申请的大小和保留的大小。按真实比例，
# 8 KiB 的普通页块在 2 MiB 的大页旁只有一根细线，所以这张图把每个块至少画成 70 像素宽（`min_block_px=70`）：
# 交叉阴影的块 24 就是这 8 KiB，并不更大。

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
# `aclrtGetMemInfo` answers for the **current device**. The `_HUGE` attribute counts only
# whole free 2 MiB pages; the `_NORMAL` one counts every free byte. A 910B has HBM and no
# DDR, so the DDR attribute answers `(0, 0)`, which is the documented answer for memory the
# hardware lacks.
#
# ## 3 · Pinned or pageable: where the host bytes live
#
# The DMA engine can only read host memory whose pages cannot move. **Pinned** memory from
# `aclrtMallocHost` qualifies; an ordinary array (**pageable** memory, here a numpy array
# handed over with `acl.util.numpy_to_ptr`) does not, so the runtime stages it through a
# bounce buffer. Two consequences, both documented:
#
# * the copy is slower (the profile uses 57 GB/s pinned, 14 GB/s pageable for H2D);
# * `aclrtMemcpyAsync` from pageable memory **returns only when the copy is done**: the call
#   is asynchronous in name only.
#
# Measure both with the thread's virtual clock, `sandbox.now()`.

# %% [markdown] lang="zh"
# `aclrtGetMemInfo` 回答的是**当前设备**的情况。`_HUGE` 属性只统计完整的空闲 2 MiB 页；`_NORMAL` 属性统计每个
# 空闲字节。910B 有 HBM 而没有 DDR，所以 DDR 属性回答 `(0, 0)`，这是文档对硬件没有的内存给出的回答。
#
# ## 3 · 锁页还是可分页：Host 字节放在哪里
#
# DMA 引擎只能读取页面不会移动的 Host 内存。来自 `aclrtMallocHost` 的**锁页**内存满足条件；普通数组（**可分页**
# 内存，这里是用 `acl.util.numpy_to_ptr` 交出的 numpy 数组）不满足，所以运行时要经过一个中转缓冲区。文档说明了
# 两个后果：
#
# * 拷贝更慢（配置中 H2D 锁页为 57 GB/s，可分页为 14 GB/s）；
# * 从可分页内存发起的 `aclrtMemcpyAsync` **要等拷贝完成才返回**：这个调用只是名义上异步。
#
# 用线程的虚拟时钟 `sandbox.now()` 测量两者。

# %%
sandbox.configure(device_count=1)
acl.init()
acl.rt.set_device(0)
copy_stream, _ = acl.rt.create_stream()
N = 64 * MiB
dev, _ = acl.rt.malloc(N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
pinned, _ = acl.rt.malloc_host(N)
pageable = acl.util.numpy_to_ptr(np.ones(N, dtype=np.uint8))


def timed_copy(src):
    t0 = sandbox.now()
    acl.rt.memcpy_async(dev, N, src, N, acl.ACL_MEMCPY_HOST_TO_DEVICE, copy_stream)
    t_return = sandbox.now()
    acl.rt.synchronize_stream(copy_stream)
    t_done = sandbox.now()
    return (t_return - t0) / 1e6, (t_done - t0) / 1e6


for name, src in (("pinned", pinned), ("pageable", pageable)):
    back, done = timed_copy(src)
    print(f"{name:>8}: memcpy_async returned after {back:7.3f} ms, copy done after {done:7.3f} ms "
          f"({N / (done * 1e-3) / 1e9:.1f} GB/s)")

# %% [markdown]
# The pinned call returned after 5 µs (its submit cost) while the copy ran for 1.2 ms; the
# pageable call held the thread for the whole 4.8 ms copy. That matters when you want the
# host to queue more work while a copy runs. Here a kernel that does not touch the copied
# buffer is launched on a second stream straight after each copy:

# %% [markdown] lang="zh"
# 锁页的调用在 5 µs（它的提交开销）后就返回了，而拷贝运行了 1.2 ms；可分页的调用在整个 4.8 ms 的拷贝期间都占住
# 了线程。当你希望 Host 在拷贝进行时放入更多任务时，这一点很重要。这里在每次拷贝之后立即在第二条流上下发一个
# 不访问被拷贝缓冲区的核函数：

# %%
@sandbox.kernel(ns=2_000_000)          # 2 ms of compute on a separate buffer
def busy(x: "uint8*"):
    pass


def copy_then_compute(src):
    sandbox.configure(device_count=1)
    acl.init()
    acl.rt.set_device(0)
    s_copy, _ = acl.rt.create_stream()
    s_compute, _ = acl.rt.create_stream()
    dst, _ = acl.rt.malloc(N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    work, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    host_src = acl.rt.malloc_host(N)[0] if src == "pinned" else acl.util.numpy_to_ptr(np.ones(N, np.uint8))
    acl.rt.memcpy_async(dst, N, host_src, N, acl.ACL_MEMCPY_HOST_TO_DEVICE, s_copy)
    busy[24, s_compute](work)
    acl.rt.synchronize_device()


copy_then_compute("pinned")
sandbox.gantt()

# %%
copy_then_compute("pageable")
sandbox.gantt()

# %% [markdown]
# With pinned memory the copy and the kernel overlap (see "overlap" in the text and the two
# bars side by side). With pageable memory the host was stuck inside `memcpy_async`, so the
# kernel was launched only after the copy: no overlap, and the total grows by the copy time.
#
# **Zero-copy.** The asynchronous-execution article (seed 003) lists "zero-copy" among its
# techniques without saying what it is. Two things in the runtime come close. Pinned memory is
# the first: the DMA engine reads your buffer where it is, with no staging copy through a bounce
# buffer — the staging the pageable measurement above paid for. The second is the run mode: when
# the program runs on the board's own CPU (`ACL_DEVICE`, as on 310B developer boards), host and
# device share one DDR, and the API reference says the runtime turns H2D and D2H copies into
# on-device copies. The sandbox models that shared memory only as one copy engine for both
# directions (notebook 02), not as copies that vanish. A kernel reading host memory in place is
# not among the calls this course covers.
#
# ## 4 · Fragmentation: free bytes you cannot use
#
# The allocator hands out contiguous address ranges. When blocks are freed in between
# blocks that stay, the free memory is split into holes, and a request bigger than the
# largest hole fails even though the total is enough. To see it without allocating 62 GiB,
# shrink the device to 64 MiB with a changed profile.
#
# The blocks below ask for `8 MiB - 32` bytes: padded, that is exactly 8 MiB, four huge
# pages. (Ask for 8 MiB and the padding makes it 10 MiB.)

# %% [markdown] lang="zh"
# 使用锁页内存时，拷贝和核函数重叠（见文字中的 "overlap" 和并排的两个条形）。使用可分页内存时，Host 卡在
# `memcpy_async` 里，所以核函数在拷贝之后才下发：没有重叠，总时间增加了一次拷贝的时间。
#
# **零拷贝。** 异步执行文章（种子 003）把“零拷贝”列为一项技术，却没有说明它是什么。运行时中有两样东西与之接近。
# 第一是锁页内存：DMA 引擎就地读取你的缓冲区，不经过中转缓冲区的额外拷贝——上面可分页的测量付出的正是这次中转。
# 第二是运行模式：当程序运行在板卡自己的 CPU 上（`ACL_DEVICE`，如 310B 开发板），Host 与设备共享同一块 DDR，API
# 参考说明运行时会把 H2D 和 D2H 拷贝变为设备内拷贝。沙箱只把这种共享内存建模为两个方向共用一个拷贝引擎
# （notebook 02），而不是让拷贝消失。核函数就地读取 Host 内存不在本课程涉及的调用之内。
#
# ## 4 · 碎片：用不上的空闲字节
#
# 分配器分出的是连续的地址范围。当夹在保留块之间的块被释放时，空闲内存被分割成空洞，一个大于最大空洞的请求
# 即使总量足够也会失败。为了不分配 62 GiB 就能看到这一点，用一个修改过的配置把设备缩小到 64 MiB。
#
# 下面的块申请 `8 MiB - 32` 字节：填充后恰好 8 MiB，四个大页。（申请 8 MiB 的话，填充会让它变成 10 MiB。）

# %%
small = sandbox.get_profile("ascend910b").with_(memory_bytes=64 * MiB)
sandbox.configure(small, device_count=1)
acl.init()
acl.rt.set_device(0)
blocks = [acl.rt.malloc(8 * MiB - 32, acl.ACL_MEM_MALLOC_HUGE_ONLY)[0] for _ in range(8)]
print("free after 8 blocks:", acl.rt.get_mem_info(acl.ACL_HBM_MEM)[0])
for i in (1, 3, 5, 7):
    acl.rt.free(blocks[i])
t_after_frees = sandbox.now()
print("free after freeing every other block:", acl.rt.get_mem_info(acl.ACL_HBM_MEM)[0] // MiB, "MiB")
ptr, ret = acl.rt.malloc(16 * MiB - 32, acl.ACL_MEM_MALLOC_HUGE_ONLY)
print("malloc of 16 MiB:", ret, "=", "ACL_ERROR_RT_MEMORY_ALLOCATION" if ret == acl.ACL_ERROR_RT_MEMORY_ALLOCATION else ret)
print(acl.get_recent_err_msg())

# %%
sandbox.memory_map(t_after_frees)

# %% [markdown]
# (The map numbers blocks from 1 in allocation order, so `blocks[2]` is "block 3".)
# 32 MiB are free, in four 8 MiB holes: fragmentation (1 - largest hole / free bytes) is
# 75 %. Freeing one more block joins its two neighbouring holes into one 24 MiB extent,
# and the same request now fits:

# %% [markdown] lang="zh"
# （内存图按分配顺序从 1 开始给块编号，所以 `blocks[2]` 是“block 3”。）32 MiB 空闲，分成四个 8 MiB 的空洞：碎片率
# （1 - 最大空洞 / 空闲字节）为 75 %。再释放一块，就会把它两侧的空洞连成一个 24 MiB 的连续区域，同样的请求现在放得下了：

# %%
acl.rt.free(blocks[2])
ptr, ret = acl.rt.malloc(16 * MiB - 32, acl.ACL_MEM_MALLOC_HUGE_ONLY)
print("malloc of 16 MiB:", ret)
sandbox.memory_map()

# %% [markdown]
# Long-running programs avoid this by allocating big buffers once and carving them up
# themselves, or by letting a memory pool do it. (The docs also note that frequent
# malloc/free is slow: each call costs host time, 20 µs and 10 µs in this profile.)
#
# ## 5 · Stream-ordered memory pools
#
# `aclrtFree` does not wait for queued work: free a buffer while a copy on a stream still
# uses it and the copy reads freed memory. So a loop that needs a fresh buffer per step,
# with plain `aclrtMalloc`/`aclrtFree`, must synchronise before every free, and the host can
# never run ahead of the device.
#
# A **stream-ordered pool** (Atlas A2 only, experimental in the docs) moves the allocation
# and the free *into the stream*: `aclrtMemPoolFreeAsync(ptr, stream)` gives the block back
# when the work queued before it on that stream is done, and a later
# `aclrtMemPoolMallocAsync` on the same stream can reuse it safely. The pool keeps the
# device memory between steps.
#
# | C call | Python call |
# |---|---|
# | `aclrtMemPoolCreate(&pool, &props)` | `acl.rt.mem_pool_create(props)` |
# | `aclrtMemPoolMallocAsync(&ptr, size, pool, stream)` | `acl.rt.mem_pool_malloc_async(size, pool, stream)` |
# | `aclrtMemPoolFreeAsync(ptr, stream)` | `acl.rt.mem_pool_free_async(ptr, stream)` |
# | `aclrtMemPoolGetAttr(pool, attr, &value)` | `acl.rt.mem_pool_get_attr(pool, attr)` |
#
# Four steps, each uploading 8 MiB into a fresh buffer and reading it back, first with
# plain malloc/free, then with a pool:
#
# pyACL has no binding of the pool calls: `acl.rt.mem_pool_*` are the sandbox's, named by
# pyACL's rule so that the C samples port line by line. On a board a Python program does not have
# them (`import acl`); C programs do.

# %% [markdown] lang="zh"
# 长时间运行的程序通过一次性申请大缓冲区、自己再切分来避免这种情况，或者交给内存池来做。（文档还指出频繁的
# malloc/free 很慢：每次调用都花费 Host 时间，本配置中分别为 20 µs 和 10 µs。）
#
# ## 5 · 按流排序的内存池
#
# `aclrtFree` 不会等待排队中的任务：在流上的拷贝仍在使用一个缓冲区时释放它，拷贝就会读到已释放的内存。所以
# 一个每步都需要新缓冲区的循环，若使用普通的 `aclrtMalloc`/`aclrtFree`，就必须在每次释放前同步，Host 永远无法
# 跑在设备前面。
#
# **按流排序的内存池**（仅 Atlas A2，文档中为试验特性）把分配和释放*放进流中*：`aclrtMemPoolFreeAsync(ptr, stream)`
# 在该流上排在它之前的任务完成时归还这块内存，之后在同一条流上的 `aclrtMemPoolMallocAsync` 可以安全地复用它。
# 内存池在各步之间保留设备内存。
#
# | C 调用 | Python 调用 |
# |---|---|
# | `aclrtMemPoolCreate(&pool, &props)` | `acl.rt.mem_pool_create(props)` |
# | `aclrtMemPoolMallocAsync(&ptr, size, pool, stream)` | `acl.rt.mem_pool_malloc_async(size, pool, stream)` |
# | `aclrtMemPoolFreeAsync(ptr, stream)` | `acl.rt.mem_pool_free_async(ptr, stream)` |
# | `aclrtMemPoolGetAttr(pool, attr, &value)` | `acl.rt.mem_pool_get_attr(pool, attr)` |
#
# 四个步骤，每步把 8 MiB 上传到一个新缓冲区再读回来，先用普通的 malloc/free，再用内存池：
#
# pyACL 没有绑定内存池的调用：`acl.rt.mem_pool_*` 是沙箱按 pyACL 的命名规则提供的，便于逐行移植 C 示例。
# 在板卡上，Python 程序（`import acl`）里没有它们；C 程序有。

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
        acl.rt.memcpy_async(buf, STEP, host, STEP, acl.ACL_MEMCPY_HOST_TO_DEVICE, stream)
        acl.rt.memcpy_async(host, STEP, buf, STEP, acl.ACL_MEMCPY_DEVICE_TO_HOST, stream)
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
# Without a pool the host waits in every step and gets its thread back only at the end.
# With the pool it queues all four steps in a few dozen microseconds and waits once; the
# device work is the same, and the four steps share **one** segment: 8 MiB plus the padding
# in 2 MiB pages, so 10 MiB reserved, of which 8 MiB + 64 bytes are in use at a time. The
# memory map at the moment the host finished queueing shows that segment, labelled with its
# pool, and in it the four steps' blocks at **one** address ("4 blocks at one address"): the
# pool hands the same bytes to each step in stream order, each free still pending when the
# host stopped queueing. With the default release threshold of 0 the pool gives the segment back to the
# device at the synchronize (`RESERVED_MEM_CURRENT` is 0 afterwards);
# `ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD` keeps that much memory in the pool instead.
#
# ## Exercises
#
# Each exercise is a function for you to complete. `sandbox.teach.check("04.1", solution)`
# runs **your** function on a fresh simulated 910B of its own (one device), with inputs it
# makes up each time, and judges the whole run from the trace and from what the device memory
# holds at the end. Each criterion prints `✔` or `✘` with a hint. Your own machine above is
# left untouched. The cells below hold stubs, so their verdict is `✘` until you write the code.
#
# In every exercise of this notebook the grader has already called `acl.init()` and
# `acl.rt.set_device(0)` before it calls `solution`: do not call them again (a second
# `aclInit` fails), and do not call `sandbox.configure`.

# %% [markdown] lang="zh"
# 没有内存池时，Host 在每一步都要等待，只在最后才拿回线程。有了内存池，它在几十微秒内把四步全部放入队列，
# 只等待一次；设备任务相同，而四步共享**一个**段：8 MiB 加上填充，按 2 MiB 页计，共保留 10 MiB，其中同一时刻
# 使用 8 MiB + 64 字节。Host 刚放完队列时的内存图显示了这个段，标有它所属的内存池；段中四步的块位于**同一个**地址
（“4 blocks at one address”）：内存池按流的顺序把同一段字节依次交给每一步，Host 放完队列时每次释放都还在等待执行。默认释放阈值为 0 时，内存池
# 在同步时把这个段还给设备（之后 `RESERVED_MEM_CURRENT` 为 0）；`ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD` 则让
# 内存池保留这么多内存。
#
# ## 练习
#
# 每个练习都是一个由你补全的函数。`sandbox.teach.check("04.1", solution)` 在一台属于它自己的全新模拟 910B（一个
# 设备）上运行**你的**函数，每次使用新生成的输入，并根据 trace 和最终设备内存中的内容评判整次运行。每一项打印
# `✔` 或 `✘` 并附提示。你上面自己的机器不受影响。下面的单元是空白模板，所以在你写代码之前结论都是 `✘`。
#
# 本 notebook 的每个练习中，评分器在调用 `solution` 之前都已经调用了 `acl.init()` 和 `acl.rt.set_device(0)`：不要
# 再调用它们（第二次 `aclInit` 会失败），也不要调用 `sandbox.configure`。

# %%
H2D, D2H = acl.ACL_MEMCPY_HOST_TO_DEVICE, acl.ACL_MEMCPY_DEVICE_TO_HOST      # short names for the copies below

# %% [markdown]
# ### Exercise 04.1 · fit the budget
#
# *Practises:* what an allocation really reserves: the padding, the page size and the policy.
#
# Put three arrays on device 0 so that all three are alive together when `solution`
# returns: `weights` (3 MiB of float32), `table` (1000 bytes of int32) and `flags`
# (100 bytes of uint8). Return their three device addresses, `(weights_ptr, table_ptr,
# flags_ptr)`. The grader wants:
#
# * each address on device 0, inside a live allocation with room for its array, and the three
#   byte ranges apart from each other (three allocations, or one allocation you carve into
#   three: either is fine);
# * each range holding its array's bytes, copied there from the host;
# * at most **3 MiB + 12 KiB** (3 158 016 bytes) reserved on device 0 at the peak, padding and
#   page rounding included (`get_mem_info` would show it; the grader reads the allocator's trace).

# %% [markdown] lang="zh"
# ### 练习 04.1 · 放进内存预算
#
# *练习内容：* 一次分配实际保留多少：填充、页大小和策略。
#
# 在设备 0 上放三个数组，使 `solution` 返回时三者同时存活：`weights`（3 MiB 的 float32）、`table`（1000 字节的
# int32）和 `flags`（100 字节的 uint8）。返回它们的三个设备地址 `(weights_ptr, table_ptr, flags_ptr)`。评分器要求：
#
# * 每个地址都在设备 0 上、位于一块足以容纳其数组的存活分配之内，三个字节范围互不重叠（三次分配，或者一次分配
#   再切成三份：都可以）；
# * 每个范围中是它的数组的字节，从 Host 拷贝过去；
# * 设备 0 上的峰值保留量至多 **3 MiB + 12 KiB**（3 158 016 字节），包括填充和按页取整（`get_mem_info` 能显示它；
#   评分器读取分配器的 trace）。

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
# Copy `data` (64 MiB of uint8, `N` bytes) into a new buffer on device 0 while `busy` (the
# 2 ms kernel of section 3) runs on device 0, on a 4 KiB buffer of its own; return the device
# address of the copy, and keep that buffer (the grader reads it after `solution` returns).
# The grader wants:
#
# * the returned buffer on device 0 holding `data`, with exactly 64 MiB copied host to device;
# * the copy reading **pinned** host memory;
# * `busy` launched once, on device 0, and the copy and the kernel overlapping on device 0 for
#   at least 90 % of the shorter of the two (the copy);
# * the whole run of `solution`, from its call to the end of its last device task, within
#   **2.5 ms** of virtual time (freeing what you no longer need fits in it; a device reset,
#   5 ms, does not);
# * the host waiting for the copy and the kernel (a synchronize) before it returns.

# %% [markdown] lang="zh"
# ### 练习 04.2 · 边计算边拷贝
#
# *练习内容：* 锁页 Host 内存：一个真正异步的拷贝，与核函数并行。
#
# 在 `busy`（第 3 节中 2 ms 的核函数）在设备 0 上、在它自己的 4 KiB 缓冲区上运行的同时，把 `data`（64 MiB 的
# uint8，`N` 字节）拷贝到设备 0 上的一个新缓冲区；返回这份拷贝的设备地址，并保留这个缓冲区（评分器在 `solution`
# 返回后读取它）。评分器要求：
#
# * 返回的缓冲区在设备 0 上，内容为 `data`，Host 到设备恰好拷贝 64 MiB；
# * 拷贝读取的是**锁页** Host 内存；
# * `busy` 在设备 0 上下发一次，拷贝与核函数在设备 0 上的重叠至少达到两者中较短者（拷贝）的 90 %；
# * `solution` 的整次运行，从调用到它最后一个设备任务结束，在 **2.5 ms** 虚拟时间之内（释放不再需要的东西放得下；
#   设备复位要 5 ms，放不下）；
# * Host 在返回之前等待拷贝和核函数（一次同步）。

# %% nbgrader={"grade": false, "grade_id": "ex04_2", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(data):
    """Copy data (N bytes) to a new buffer on device 0 while busy runs; return the buffer's address."""
    # TODO: two streams, an N-byte device buffer, a 4 KiB buffer for busy, the copy, the launch, a wait.
    # Hint: which host memory lets memcpy_async return at once? Fill it with
    # acl.util.ptr_to_numpy(host_ptr, (N,), np.uint8)[:] = data
    ### BEGIN SOLUTION
    s_copy, _ = acl.rt.create_stream()
    s_compute, _ = acl.rt.create_stream()
    dst, _ = acl.rt.malloc(N, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    work, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
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
# ### Exercise 04.3 · four steps in two buffers' worth of memory
#
# *Practises:* stream-ordered memory: device memory reused step after step without stopping the host.
#
# `chunks` holds four chunks of `STEP` = 8 MiB (uint8, shape `(4, STEP)`). Run the loop of
# section 5 on them: each step copies its chunk into device memory and back out into row `k`
# of a host result; return the result. The grader wants:
#
# * the result equal to `chunks`, brought back by device-to-host copies and read after they
#   landed;
# * exactly 32 MiB copied host to device and 32 MiB device to host;
# * the host waiting **at most once** (a synchronize that has to wait counts, and so do a
#   blocking `aclrtMemcpy` and an `aclrtMemcpyAsync` from pageable memory);
# * at most **20 MiB** reserved on device 0 at the peak: two steps' buffers (8 MiB plus the
#   padding, in 2 MiB pages, is 10 MiB each), not four.

# %% [markdown] lang="zh"
# ### 练习 04.3 · 用两块缓冲区的内存完成四步
#
# *练习内容：* 按流排序的内存：一步接一步地复用设备内存，而不让 Host 停下。
#
# `chunks` 包含四块 `STEP` = 8 MiB 的数据（uint8，形状 `(4, STEP)`）。对它们运行第 5 节的循环：每一步把它的数据块
# 拷贝到设备内存，再拷回到 Host 结果的第 `k` 行；返回结果。评分器要求：
#
# * 结果等于 `chunks`，由设备到 Host 的拷贝带回，并在落地之后读取；
# * Host 到设备恰好拷贝 32 MiB，设备到 Host 恰好 32 MiB；
# * Host **至多等待一次**（需要等待的同步算一次，阻塞的 `aclrtMemcpy` 和从可分页内存发起的 `aclrtMemcpyAsync` 也算）；
# * 设备 0 上的峰值保留量至多 **20 MiB**：两步的缓冲区（8 MiB 加填充，按 2 MiB 页计，每块 10 MiB），而不是四步的。

# %% nbgrader={"grade": false, "grade_id": "ex04_3", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(chunks):
    """Copy each chunk to device memory and back in four steps, waiting once; return the result."""
    steps = chunks.shape[0]
    # TODO: pinned host buffers for the chunks and the result, one stream, and per step a device
    # buffer, the copy in, the copy out; then one wait, and a copy of the result.
    # Hint: plain aclrtFree does not wait for queued work; POOL_PROPS and four_steps() of section 5
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
# ## Official samples for this topic
#
# The copies in every direction:
# [0_h2h_memory_copy.py](../examples/1_basic_features/memory/0_h2h_memory_copy.py),
# [1_h2d_sync_memory_copy.py](../examples/1_basic_features/memory/1_h2d_sync_memory_copy.py),
# [2_h2d_async_memory_copy.py](../examples/1_basic_features/memory/2_h2d_async_memory_copy.py),
# [3_d2h_sync_memory_copy.py](../examples/1_basic_features/memory/3_d2h_sync_memory_copy.py),
# [4_d2h_async_memory_copy.py](../examples/1_basic_features/memory/4_d2h_async_memory_copy.py),
# [5_d2d_sync_memory_copy.py](../examples/1_basic_features/memory/5_d2d_sync_memory_copy.py) and
# [6_d2d_async_memory_copy.py](../examples/1_basic_features/memory/6_d2d_async_memory_copy.py);
# [9_multistream_sync_memory.py](../examples/1_basic_features/memory/9_multistream_sync_memory.py)
# orders two streams through a word of device memory (aclrtValueWrite on one, aclrtValueWait on the
# other); the topic page `3_memory_advanced/memory_pool` has no sample code, and notebook
# [11_official_samples](11_official_samples.ipynb), section 7, walks through its calls.
# Two processes share physical memory in
# [7_physical_memory_sharing_withpid.py](../examples/1_basic_features/memory/7_physical_memory_sharing_withpid.py)
# (aclrtMallocPhysical, aclrtReserveMemAddress, aclrtMapMem, a shareable handle with a pid allow-list)
# and [8_physical_memory_sharing_withoutpid.py](../examples/1_basic_features/memory/8_physical_memory_sharing_withoutpid.py)
# (the same without the allow-list).  Sharing memory by IPC key is in notebook 06's samples; host
# registration and managed memory are not modelled: [examples/README.md](../examples/README.md).
# The custom allocator sample is ported as
# [0_custom_allocator.py](../examples/3_memory_advanced/allocator/0_custom_allocator.py): it
# registers an allocator on a stream and reads it back; no operator calls it, as the sandbox has none.

# %% [markdown] lang="zh"
# ## 本专题的官方示例
#
# 各个方向的拷贝：[0_h2h_memory_copy.py](../../examples/1_basic_features/memory/0_h2h_memory_copy.py)、
# [1_h2d_sync_memory_copy.py](../../examples/1_basic_features/memory/1_h2d_sync_memory_copy.py)、
# [2_h2d_async_memory_copy.py](../../examples/1_basic_features/memory/2_h2d_async_memory_copy.py)、
# [3_d2h_sync_memory_copy.py](../../examples/1_basic_features/memory/3_d2h_sync_memory_copy.py)、
# [4_d2h_async_memory_copy.py](../../examples/1_basic_features/memory/4_d2h_async_memory_copy.py)、
# [5_d2d_sync_memory_copy.py](../../examples/1_basic_features/memory/5_d2d_sync_memory_copy.py) 和
# [6_d2d_async_memory_copy.py](../../examples/1_basic_features/memory/6_d2d_async_memory_copy.py)；
# [9_multistream_sync_memory.py](../../examples/1_basic_features/memory/9_multistream_sync_memory.py) 通过设备内存中的一个字为两条流排序（一条流上
# aclrtValueWrite，另一条流上 aclrtValueWait）；专题页
# `3_memory_advanced/memory_pool` 没有示例代码，notebook
# [11_official_samples](11_official_samples.ipynb) 第 7
# 节逐步讲解它的调用。两个进程共享物理内存：
# [7_physical_memory_sharing_withpid.py](../../examples/1_basic_features/memory/7_physical_memory_sharing_withpid.py)
# （aclrtMallocPhysical、aclrtReserveMemAddress、aclrtMapMem，以及带进程白名单的共享句柄）和
# [8_physical_memory_sharing_withoutpid.py](../../examples/1_basic_features/memory/8_physical_memory_sharing_withoutpid.py)
# （同样的流程，不设白名单）。按 IPC 键共享内存的示例见 notebook 06；Host 内存注册和统一内存不模拟：见
# [examples/README.md](../../examples/README.md)。
# 自定义分配器示例已移植为
# [0_custom_allocator.py](../../examples/3_memory_advanced/allocator/0_custom_allocator.py)：它在流上注册一个分配器并读回；沙箱没有算子，所以没有算子调用它。

# %% [markdown]
# ## Summary
#
# An allocation reserves more than it asks for: `ALIGN_UP(size, 32) + 32` bytes, rounded to
# whole 4 KiB or 2 MiB pages as its policy says, so small buffers belong on normal pages and
# one carved allocation can cost less than several. Copies from pinned memory are truly
# asynchronous and overlap with kernels (and save the staging copy: the nearest thing to the
# seed's "zero-copy"); copies from pageable memory hold the host. Freed
# memory between live blocks fragments the device, and a stream-ordered pool lets a loop
# reuse its memory without synchronising before every free. Next, notebook 05 spreads work
# over several devices and copies between them.

# %% [markdown] lang="zh"
# ## 小结
#
# 一次分配保留的比它申请的多：`ALIGN_UP(size, 32) + 32` 字节，再按策略取整到整数个 4 KiB 或 2 MiB 页，所以小缓冲区
# 应放在普通页上，一次切分的分配可能比多次分配更省。从锁页内存发起的拷贝是真正异步的，能与核函数重叠（还省去了
# 中转拷贝：最接近种子所说“零拷贝”的东西）；从可分页内存发起的拷贝会占住 Host。夹在存活块之间的已释放内存使设备
# 产生碎片，而按流排序的内存池让循环无需在每次释放前同步就能复用内存。下一个是 notebook 05：把任务分布到多个设备上，
# 并在设备之间拷贝。


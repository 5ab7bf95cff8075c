# %% [markdown]
# # 05x · Peer links: bandwidth, topology and copies beside compute
#
# **Optional deep dive after notebook 05 · about 40 minutes**
#
# Notebook 05 enabled peer access and made one small copy between two devices. Here the copies
# get big enough to time: what one link carries, what happens when copies share a link, how the
# server's topology (a full HCCS mesh, or PCIe cards behind one switch) decides which copies
# share, and how a copy hides beside a kernel. Two exercises use it: a broadcast from one device
# to three (05.2) and an exchange between two (05.3). **It assumes** notebook 05, section 5.
#
# The link figures are the sandbox's: 56 GB/s per direction for each HCCS pair of an Atlas A2
# server comes from a third-party data sheet, and 24 GB/s per PCIe port for the `ascend310p`
# server is an assumption (the documentation gives no bandwidth; see `sandbox/profiles`).

# %% [markdown] lang="zh"
# # 05x · 链路：带宽、拓扑，以及与计算并行的复制
#
# **选学深入：notebook 05 之后 · 约 40 分钟**
#
# notebook 05 开启了 Device（设备）间数据交互，并在两个 Device 之间复制了一小段数据。这里把复制的数据量加大到足以计时：
# 一条链路能传多快，多个复制共用一条链路时会怎样，服务器的拓扑（HCCS 全互联，或挂在同一个 PCIe 交换芯片下的多张卡）
# 如何决定哪些复制共用链路，以及复制怎样藏在核函数旁边同时进行。两道练习用到这些内容：从一个 Device 广播到三个
# （05.2），以及两个 Device 交换数据（05.3）。**前置知识**：notebook 05 第 5 节。
#
# 链路数值是沙箱采用的：Atlas A2 服务器每对 HCCS 链路每个方向 56 GB/s 取自第三方数据手册，`ascend310p` 服务器每个
# PCIe 端口 24 GB/s 是假设（官方文档没有给出带宽；见 `sandbox/profiles`）。

# %% lang="zh"
import sandbox

sandbox.set_language("zh")          # 中文版：评分反馈使用中文

# %%
import numpy as np

import sandbox
from sandbox import acl

MiB = 1 << 20
N = 64 * MiB                                        # bytes per peer copy
D2D, H2D = acl.ACL_MEMCPY_DEVICE_TO_DEVICE, acl.ACL_MEMCPY_HOST_TO_DEVICE      # short names for the copies below
P2P = acl.ACL_MEM_MALLOC_HUGE_FIRST_P2P

# %% [markdown]
# ## 1 · Links are shared
#
# A link has a fixed bandwidth. Two copies at the same time **in the same direction on the same
# link** share it, and each takes about twice as long; the opposite direction is a link of its
# own, and on an HCCS mesh so is every other pair of devices. `peer_copies` starts one 64 MiB
# async copy per `(source, destination)` pair, all at once, and times them together.
#
# **Predict, then run.** One copy 0→1 takes about 1.2 ms. How long do 0→1 and 1→0 take
# together? And 0→1 with 0→2?

# %% [markdown] lang="zh"
# ## 1 · 链路是共用的
#
# 一条链路的带宽是固定的。**同一条链路、同一方向上**同时进行的两个复制平分带宽，各自要花大约两倍的时间；反方向是另一条
# 独立的链路，在 HCCS 全互联中，其他每一对 Device 之间也各有自己的链路。`peer_copies` 为每个 `(源, 目的)` 对同时启动
# 一个 64 MiB 的异步复制，并统计它们全部完成的时间。
#
# **先预测，再运行。** 一个 0→1 复制大约要 1.2 ms。0→1 和 1→0 同时进行要多久？0→1 和 0→2 呢？

# %%
def peer_copies(pairs, profile="ascend910b"):
    """Start one async copy per (src, dst) pair at once; return the time until all are done."""
    sandbox.configure(profile)
    acl.init()
    jobs = []
    for a, b in pairs:
        acl.rt.set_device(b)
        dst, _ = acl.rt.malloc(N, P2P)
        acl.rt.set_device(a)
        acl.rt.device_enable_peer_access(b, 0)
        src, _ = acl.rt.malloc(N, P2P)
        stream, _ = acl.rt.create_stream()
        jobs.append((a, dst, src, stream))
    t0 = sandbox.now()
    for a, dst, src, stream in jobs:
        acl.rt.set_device(a)
        acl.rt.memcpy_async(dst, N, src, N, D2D, stream)
    for a, dst, src, stream in jobs:
        acl.rt.set_device(a)
        acl.rt.synchronize_stream(stream)
    return (sandbox.now() - t0) / 1e6


for pairs in ([(0, 1)], [(0, 1), (0, 1)], [(0, 1), (1, 0)], [(0, 1), (0, 2)]):
    print(f"{str(pairs):<20} all done after {peer_copies(pairs):6.3f} ms")

# %% [markdown]
# One copy: 64 MiB / 56 GB/s ≈ 1.2 ms. Two on the same link: ≈ 2.4 ms. Opposite directions or
# different links: ≈ 1.2 ms, as if alone. The physical view of the Gantt chart has one row per
# link; here are the two copies sharing the 0→1 link. The picture shows only the window around
# the copies (`window=(t0, t1)`): the whole run would be dominated by the first
# `aclrtSetDevice` (1 s in the sandbox), with the copies a sliver at its end.

# %% [markdown] lang="zh"
# 一个复制：64 MiB / 56 GB/s ≈ 1.2 ms。同一链路上两个：≈ 2.4 ms。反方向或不同链路：≈ 1.2 ms，和单独进行一样。甘特图的
# 物理视图每条链路占一行；下面是共用 0→1 链路的两个复制。图中只画复制前后的时间窗口（`window=(t0, t1)`）：若画整个
# 运行过程，第一次 `aclrtSetDevice`（沙箱中为 1 s）会占满画面，复制只剩末尾一条细线。

# %%
took_ms = peer_copies([(0, 1), (0, 1)])
t1 = sandbox.now()
t0 = t1 - round(took_ms * 1e6)
sandbox.gantt(view="physical", window=(t0 - 100_000, t1))

# %% [markdown]
# ## 2 · Topology decides what is shared
#
# `aclrtGetDevicesTopo(a, b)` reports how two devices are linked. On the Atlas A2 server every
# pair has its own HCCS link. The `ascend310p` profile is a server of four PCIe cards behind one
# switch: a copy a → b leaves card a through its port and enters card b through b's, so two
# copies **out of the same card** share its port, while 0→1 and 2→3 do not touch each other.
# (That switch model is the sandbox's; check your own server with `npu-smi info -t topo`.)

# %% [markdown] lang="zh"
# ## 2 · 拓扑决定哪些复制共用链路
#
# `aclrtGetDevicesTopo(a, b)` 报告两个 Device 之间的连接方式。在 Atlas A2 服务器上，每一对 Device 都有自己的 HCCS
# 链路。`ascend310p` 配置是一台装有四张 PCIe 卡、挂在同一个交换芯片下的服务器：a → b 的复制要从 a 卡的端口出去、
# 从 b 卡的端口进来，所以**从同一张卡发出的**两个复制共用它的端口，而 0→1 与 2→3 互不影响。（这个交换芯片模型是
# 沙箱的设定；真实服务器的拓扑可以用 `npu-smi info -t topo` 查看。）

# %%
for profile in ("ascend910b", "ascend310p"):
    sandbox.configure(profile)
    acl.init()
    bits, _ = acl.rt.get_devices_topo(0, 1)
    names = [n for n in dir(acl) if n.startswith("ACL_RT_DEVS_TOPOLOGY_") and getattr(acl, n) == bits]
    print(f"{profile}: topology 0-1 = {bits} {names}")
    for pairs in ([(0, 1), (0, 2)], [(0, 1), (2, 3)]):
        print(f"    {str(pairs):<18} all done after {peer_copies(pairs, profile):6.3f} ms")

# %% [markdown]
# On the HCCS mesh both pairs of copies run at full speed. On the PCIe server one copy alone
# takes about 2.8 ms (64 MiB at 24 GB/s); 0→1 beside 0→2 takes twice that (card 0's port is
# shared), while 0→1 beside 2→3 does not. So a broadcast
# from one card is limited by that card's port on PCIe, and not on a full mesh.
#
# ## 3 · Compute while the devices talk
#
# A peer copy is work for the link, not for the AI Cores, so it can run while the device
# computes. As with host copies (notebook 02), it overlaps only if the copy and the kernel are on
# **different streams**: a 64 MiB copy from device 0 to device 1 and an unrelated 1.5 ms kernel
# on device 0, first on one stream, then on two:

# %% [markdown] lang="zh"
# 在 HCCS 全互联上，两组复制都全速进行。在 PCIe 服务器上，单个复制约需 2.8 ms（64 MiB，24 GB/s）；0→1 与 0→2 同时
# 进行要花两倍时间（共用 0 号卡的端口），0→1 与 2→3 则不受影响。所以在 PCIe 上，从一张卡广播受限于这张卡的端口，而全互联没有这个限制。
#
# ## 3 · Device 通信的同时进行计算
#
# 跨 Device 复制占用的是链路，不是 AI Core，所以可以在 Device 计算的同时进行。与 Host（主机）复制一样（notebook 02），只有复制
# 和核函数放在**不同的 Stream（流）** 上才会重叠：一个从 Device 0 到 Device 1 的 64 MiB 复制，加上 Device 0 上一个与之无关的
# 1.5 ms 核函数，先放在一个 Stream 上，再分到两个 Stream 上：

# %%
@sandbox.kernel(ns=1_500_000)          # 1.5 ms of compute on its own buffer
def compute(x: "uint8*"):
    pass


sandbox.configure("ascend910b")
acl.init()
acl.rt.set_device(1)
acl.rt.device_enable_peer_access(0, 0)
dst, _ = acl.rt.malloc(N, P2P)
acl.rt.set_device(0)
acl.rt.device_enable_peer_access(1, 0)
src, _ = acl.rt.malloc(N, P2P)
scratch, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
comm_s, _ = acl.rt.create_stream()
compute_s, _ = acl.rt.create_stream()
for label, copy_stream in (("one stream ", compute_s), ("two streams", comm_s)):
    t0 = sandbox.now()
    acl.rt.memcpy_async(dst, N, src, N, D2D, copy_stream)
    compute[8, compute_s](scratch)
    acl.rt.synchronize_device()
    print(f"{label}: copy 0 -> 1 and kernel on device 0 done after {(sandbox.now() - t0) / 1e6:.3f} ms")

# %% [markdown]
# On one stream: 1.2 ms of copy, then 1.5 ms of kernel. On two: the kernel's 1.5 ms, with the
# copy hidden beside it. Collective communication libraries (HCCL) rely on the same idea:
# gradients of one layer travel between devices while the next layer computes.
#
# ## Exercises
#
# As in notebook 05: `sandbox.teach.check("05.2", solution)` runs your function on a fresh
# 8-device 910B server whose board the grader opened (`acl.init()` done, device 0 set), with
# inputs it makes up each time; a solution calls neither `acl.init()` nor `sandbox.configure`.
# The cells hold stubs, so their verdict is `✘` until you write the code.

# %% [markdown] lang="zh"
# 放在一个 Stream 上：先 1.2 ms 复制，再 1.5 ms 核函数。分到两个 Stream 上：只需核函数的 1.5 ms，复制藏在它旁边完成。
# 集合通信库（HCCL）依靠的也是这个思路：一层的梯度在 Device 之间传输时，下一层已经在计算。
#
# ## 练习
#
# 与 notebook 05 相同：`sandbox.teach.check("05.2", solution)` 在一台全新的 8 Device 910B 服务器上运行你的函数，评分器
# 已经打开板卡（执行了 `acl.init()`，指定了 Device 0），每次生成新的输入；答案里不要调用 `acl.init()` 或
# `sandbox.configure`。单元格里只有模板，写好代码之前结果都是 `✘`。

# %%
import sandbox.teach                                                  # the grader

# %% [markdown]
# ### Exercise 05.2 · broadcast
#
# *Practises:* peer access and device-to-device copies: one source, three links at once.
#
# Upload `data` (64 MiB of uint8, `N` bytes) to device 0, then give devices 1, 2 and 3 a copy of
# it **from device 0**; return the four device addresses as a dict `{0: ptr, 1: ptr, 2: ptr, 3: ptr}`.
# The grader wants:
#
# * each address on its device, in a live allocation with `N` bytes from it;
# * each of the four buffers holding `data` at the end, the ones on devices 1, 2 and 3 written by
#   device-to-device copies from device 0;
# * peer access enabled for 0 → 1, 0 → 2 and 0 → 3;
# * exactly 64 MiB copied host to device (once, to device 0) and 3 × 64 MiB between devices;
# * the three copies done in about the time of **one**: at most **1.5 ms** from the first peer
#   copy's start to the last one's end.

# %% [markdown] lang="zh"
# ### 练习 05.2 · 广播
#
# *练习内容：* Device 间数据交互与跨 Device 复制：一个源，同时使用三条链路。
#
# 把 `data`（64 MiB 的 uint8，`N` 字节）上传到 Device 0，再**从 Device 0** 复制给 Device 1、2、3 各一份；以字典
# `{0: ptr, 1: ptr, 2: ptr, 3: ptr}` 返回四个 Device 地址。评分标准：
#
# * 每个地址都在对应的 Device 上，位于一块仍然有效、从该地址起至少有 `N` 字节的内存中；
# * 最后四块缓冲区中都是 `data`，其中 Device 1、2、3 上的由来自 Device 0 的跨 Device 复制写入；
# * 开启了 0 → 1、0 → 2 和 0 → 3 的数据交互；
# * Host 到 Device 恰好复制 64 MiB（一次，到 Device 0），Device 之间复制 3 × 64 MiB；
# * 三个复制大约在**一个**复制的时间内完成：从第一个跨 Device 复制开始到最后一个结束，不超过 **1.5 ms**。

# %% nbgrader={"grade": false, "grade_id": "ex05_2", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(data):
    """Put data on device 0 and broadcast it to devices 1, 2, 3; return {device: address}."""
    targets = (1, 2, 3)
    # TODO: a P2P buffer on each target; on device 0 a P2P buffer with data in it, peer access to
    # each target and one stream per copy; queue the three copies, then wait for all of them.
    # Hint: peer_copies() of section 1 times copies that run at once.
    ### BEGIN SOLUTION
    dsts = {}
    for d in targets:
        acl.rt.set_device(d)
        dsts[d], _ = acl.rt.malloc(N, P2P)
    acl.rt.set_device(0)
    src, _ = acl.rt.malloc(N, P2P)
    acl.rt.memcpy(src, N, acl.util.numpy_to_ptr(data), N, H2D)
    streams = {}
    for d in targets:
        acl.rt.device_enable_peer_access(d, 0)          # 0 -> d, one link each
        streams[d], _ = acl.rt.create_stream()
    for d in targets:
        acl.rt.memcpy_async(dsts[d], N, src, N, D2D, streams[d])
    acl.rt.synchronize_device()
    return {0: src, **dsts}
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex05_2_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("05.2", solution, isolated=True)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("05.2", solution)

# %% [markdown]
# ### Exercise 05.3 · exchange in the time of one copy
#
# *Practises:* one-directional peer access: both directions enabled, both links used at once.
#
# `a` and `b` are 64 MiB each (uint8). Upload `a` to device 0 and `b` to device 1, then exchange
# them with device-to-device copies, so that device 0 holds `b` and device 1 holds `a`; return
# `{0: address on device 0 holding b, 1: address on device 1 holding a}`. The grader wants:
#
# * each address on its device, in a live allocation with `N` bytes from it;
# * device 0's buffer holding `b` and device 1's holding `a` at the end, written by copies from
#   device 1 and from device 0 respectively;
# * peer access enabled for 0 → 1 and for 1 → 0;
# * exactly 2 × 64 MiB copied host to device and 2 × 64 MiB between devices;
# * the exchange done in the time of one copy: at most **1.5 ms** from the first peer copy's
#   start to the last one's end.

# %% [markdown] lang="zh"
# ### 练习 05.3 · 用一次复制的时间完成交换
#
# *练习内容：* 单向开启的数据交互：两个方向都开启，两条链路同时使用。
#
# `a` 和 `b` 各 64 MiB（uint8）。把 `a` 上传到 Device 0、`b` 上传到 Device 1，再用跨 Device 复制交换它们，使 Device 0
# 持有 `b`、Device 1 持有 `a`；返回 `{0: Device 0 上存放 b 的地址, 1: Device 1 上存放 a 的地址}`。评分标准：
#
# * 每个地址都在对应的 Device 上，位于一块仍然有效、从该地址起至少有 `N` 字节的内存中；
# * 最后 Device 0 的缓冲区中是 `b`、Device 1 的是 `a`，分别由来自 Device 1 和 Device 0 的复制写入；
# * 开启了 0 → 1 和 1 → 0 的数据交互；
# * Host 到 Device 恰好复制 2 × 64 MiB，Device 之间 2 × 64 MiB；
# * 交换在一次复制的时间内完成：从第一个跨 Device 复制开始到最后一个结束，不超过 **1.5 ms**。

# %% nbgrader={"grade": false, "grade_id": "ex05_3", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(a, b):
    """Put a on device 0 and b on device 1, then swap them device to device; return {0: ptr, 1: ptr}."""
    # TODO: on each device a buffer for what it has and one for what it gets; upload; enable the
    # direction to the other device; copy each way on a stream of its own; wait for both.
    # Hint: a copy into the buffer the other copy is still reading is a race.
    ### BEGIN SOLUTION
    mine, theirs, streams = {}, {}, {}
    for d, x in ((0, a), (1, b)):
        acl.rt.set_device(d)
        mine[d], _ = acl.rt.malloc(N, P2P)
        theirs[d], _ = acl.rt.malloc(N, P2P)
        acl.rt.memcpy(mine[d], N, acl.util.numpy_to_ptr(x), N, H2D)
        acl.rt.device_enable_peer_access(1 - d, 0)      # d -> the other device
        streams[d], _ = acl.rt.create_stream()
    for d in (0, 1):
        acl.rt.set_device(d)
        acl.rt.memcpy_async(theirs[1 - d], N, mine[d], N, D2D, streams[d])
    for d in (0, 1):
        acl.rt.set_device(d)
        acl.rt.synchronize_stream(streams[d])
    return {0: theirs[0], 1: theirs[1]}
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex05_3_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("05.3", solution, isolated=True)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("05.3", solution)

# %% [markdown]
# ## Summary
#
# A link carries one copy at full speed; copies in the same direction on the same link share
# it, while the opposite direction and other links are separate. Which copies share depends on
# the topology: every pair on an HCCS mesh, a card's port on a PCIe switch. A peer copy on a
# stream of its own runs beside the device's kernels. The questions of notebook 05's concept
# check cover the peer-access rules used here.

# %% [markdown] lang="zh"
# ## 小结
#
# 一条链路全速承载一个复制；同一链路、同一方向上的复制平分带宽，反方向和其他链路互不影响。哪些复制共用链路取决于
# 拓扑：HCCS 全互联中每对 Device 各有链路，PCIe 交换中则是每张卡的端口。放在自己 Stream 上的跨 Device 复制可以与
# Device 上的核函数并行。这里用到的数据交互规则由 notebook 05 的概念检查覆盖。

# %% [markdown] lang="zh" translates="code"
# en: # bytes per peer copy
# zh: # 每个跨 Device 复制的字节数
# en: # short names for the copies below
# zh: # 下面复制用的简称
# en: """Start one async copy per (src, dst) pair at once; return the time until all are done."""
# zh: """为每个 (源, 目的) 对同时启动一个异步复制；返回全部完成所需的时间。"""
# en: all done after {peer_copies(pairs):6.3f} ms
# zh: 全部完成用时 {peer_copies(pairs):6.3f} ms
# en: all done after {peer_copies(pairs, profile):6.3f} ms
# zh: 全部完成用时 {peer_copies(pairs, profile):6.3f} ms
# en: topology 0-1 =
# zh: 0-1 拓扑 =
# en: # 1.5 ms of compute on its own buffer
# zh: # 1.5 ms 的计算，只用自己的缓冲区
# en: ("one stream ", compute_s), ("two streams", comm_s)
# zh: ("一个 Stream", compute_s), ("两个 Stream", comm_s)
# en: copy 0 -> 1 and kernel on device 0 done after
# zh: 0 -> 1 复制与 Device 0 上的核函数完成用时
# en: # the grader
# zh: # 评分器
# en: """Put data on device 0 and broadcast it to devices 1, 2, 3; return {device: address}."""
# zh: """把 data 放到 Device 0 并广播到 Device 1、2、3；返回 {Device: 地址}。"""
# en: # TODO: a P2P buffer on each target; on device 0 a P2P buffer with data in it, peer access to
# zh: # TODO：在每个目标 Device 上申请一块 P2P 缓冲区；在 Device 0 上申请一块 P2P 缓冲区并放入 data，开启到
# en: # each target and one stream per copy; queue the three copies, then wait for all of them.
# zh: # 每个目标的数据交互，每个复制一个 Stream；先把三个复制都下发，再等待它们全部完成。
# en: # Hint: peer_copies() of section 1 times copies that run at once.
# zh: # 提示：第 1 节的 peer_copies() 统计的正是同时进行的复制。
# en: # 0 -> d, one link each
# zh: # 0 -> d，每个目标一条链路
# en: """Put a on device 0 and b on device 1, then swap them device to device; return {0: ptr, 1: ptr}."""
# zh: """把 a 放到 Device 0、b 放到 Device 1，再跨 Device 交换；返回 {0: ptr, 1: ptr}。"""
# en: # TODO: on each device a buffer for what it has and one for what it gets; upload; enable the
# zh: # TODO：每个 Device 上一块放自己的数据、一块接收对方的数据；上传；开启到另一个 Device 的
# en: # direction to the other device; copy each way on a stream of its own; wait for both.
# zh: # 数据交互；两个方向各用自己的 Stream 复制；等待两者完成。
# en: # Hint: a copy into the buffer the other copy is still reading is a race.
# zh: # 提示：复制到另一个复制仍在读取的缓冲区，就是数据竞争。
# en: # d -> the other device
# zh: # d -> 另一个 Device

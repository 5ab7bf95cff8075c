# %% [markdown]
# # 05 · Several devices: choosing, resetting, affinity and peer-to-peer copies
#
# A server holds several NPUs; the runtime shows each one as a **device** numbered 0, 1, 2, …
# Work always goes to a device through a context, and every stream and event belongs to
# one device. This notebook follows the multi-device article of the runtime documentation:
# how to find and pick devices, how to give them back, which calls may cross from one
# device to another, and how to copy straight between two devices.
#
# | You will see | C call | Python call |
# |---|---|---|
# | how many devices | `aclrtGetDeviceCount(&count)` | `acl.rt.get_device_count()` |
# | a device attribute | `aclrtGetDeviceInfo(dev, ACL_DEV_ATTR_VECTOR_CORE_NUM, &value)` | `acl.rt.get_device_info(dev, acl.ACL_DEV_ATTR_VECTOR_CORE_NUM)` |
# | choose the device of this thread | `aclrtSetDevice(dev)` | `acl.rt.set_device(dev)` |
# | give it back | `aclrtResetDevice(dev)` / `aclrtResetDeviceForce(dev)` | `acl.rt.reset_device(dev)` / `acl.rt.reset_device_force(dev)` |
# | peer access | `aclrtDeviceCanAccessPeer(&can, a, b)`, `aclrtDeviceEnablePeerAccess(peer, 0)` | `acl.rt.device_can_access_peer(a, b)`, `acl.rt.device_enable_peer_access(peer, 0)` |
# | link type | `aclrtGetDevicesTopo(a, b, &bits)` | `acl.rt.get_devices_topo(a, b)` |
#
# **After this notebook** you can find and choose devices per thread, give them back in the
# documented order, say which stream and event calls may cross devices, and copy between
# devices while they compute. **It assumes** notebooks 01 to 04.

# %% [markdown] lang="zh"
# # 05 · 多设备：选择、复位、亲和性与设备间拷贝
#
# 一台服务器装有多块 NPU；运行时把每一块呈现为一个编号为 0、1、2……的**设备**。任务总是通过上下文送到某个设备，
# 每条流和每个事件都属于一个设备。本 notebook 遵循运行时文档中的多设备文章：如何查找和选择设备，如何归还它们，
# 哪些调用可以从一个设备跨到另一个设备，以及如何在两个设备之间直接拷贝。
#
# | 你将看到 | C 调用 | Python 调用 |
# |---|---|---|
# | 有多少设备 | `aclrtGetDeviceCount(&count)` | `acl.rt.get_device_count()` |
# | 设备属性 | `aclrtGetDeviceInfo(dev, ACL_DEV_ATTR_VECTOR_CORE_NUM, &value)` | `acl.rt.get_device_info(dev, acl.ACL_DEV_ATTR_VECTOR_CORE_NUM)` |
# | 选择本线程的设备 | `aclrtSetDevice(dev)` | `acl.rt.set_device(dev)` |
# | 归还设备 | `aclrtResetDevice(dev)` / `aclrtResetDeviceForce(dev)` | `acl.rt.reset_device(dev)` / `acl.rt.reset_device_force(dev)` |
# | 设备间访问 | `aclrtDeviceCanAccessPeer(&can, a, b)`、`aclrtDeviceEnablePeerAccess(peer, 0)` | `acl.rt.device_can_access_peer(a, b)`、`acl.rt.device_enable_peer_access(peer, 0)` |
# | 链路类型 | `aclrtGetDevicesTopo(a, b, &bits)` | `acl.rt.get_devices_topo(a, b)` |
#
# **学完本 notebook**，你能按线程查找和选择设备，按文档规定的顺序归还它们，说出哪些流和事件调用可以跨设备，
# 并在设备计算的同时在设备之间拷贝。**前提**：notebook 01 到 04。

# %% lang="zh"
import sandbox

sandbox.set_language("zh")          # 中文版：评分反馈使用中文

# %%
import threading

import numpy as np

import sandbox
from sandbox import acl

MiB = 1 << 20
sandbox.configure("ascend910b")             # an 8-device Atlas A2 server
print(acl.init())

# %% [markdown]
# ## 1 · How many devices, and what are they?
#
# Devices are numbered from 0. `aclrtGetDeviceInfo` answers one attribute at a time
# (`aclrtDevAttr`); it needs no current device, so you can look before choosing.

# %% [markdown] lang="zh"
# ## 1 · 有多少设备，它们是什么？
#
# 设备从 0 开始编号。`aclrtGetDeviceInfo` 一次回答一个属性（`aclrtDevAttr`）；它不需要当前设备，所以你可以先查看再选择。

# %%
count, ret = acl.rt.get_device_count()
print("devices:", count, "ret", ret, "| SoC:", acl.get_soc_name())
ATTRS = ["ACL_DEV_ATTR_AICORE_CORE_NUM", "ACL_DEV_ATTR_CUBE_CORE_NUM", "ACL_DEV_ATTR_VECTOR_CORE_NUM",
         "ACL_DEV_ATTR_AICPU_CORE_NUM", "ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE", "ACL_DEV_ATTR_L2_CACHE_SIZE",
         "ACL_DEV_ATTR_NPU_ARCH", "ACL_DEV_ATTR_PHY_CHIP_ID"]
for attr in ATTRS:
    values = [acl.rt.get_device_info(d, getattr(acl, attr))[0] for d in range(count)]
    same = all(v == values[0] for v in values)
    print(f"{attr:<36} {values[0] if same else values}")
print("device 8 does not exist:", acl.rt.get_device_info(8, acl.ACL_DEV_ATTR_AICORE_CORE_NUM))

# %% [markdown]
# Eight identical devices; only the physical chip id differs. Asking about a device that
# is not there answers 107001 `ACL_ERROR_RT_INVALID_DEVICEID`.
#
# ## 2 · `SetDevice` is per thread
#
# `aclrtSetDevice(d)` makes device `d` the current device **of the calling thread only**: it
# opens the device for the process if needed, creates (or re-uses) the process's default
# context on it, and makes that context current. Memory, streams and launches that follow
# go to that device. Another thread is not affected.
#
# The runtime's multi-thread device example does exactly this: its main thread sets device
# 0, then starts a thread that sets the device again for itself before doing any work. Try
# it without the second `SetDevice`:

# %% [markdown] lang="zh"
# 八个相同的设备；只有物理芯片 id 不同。查询一个不存在的设备会得到 107001 `ACL_ERROR_RT_INVALID_DEVICEID`。
#
# ## 2 · `SetDevice` 按线程生效
#
# `aclrtSetDevice(d)` 只让设备 `d` 成为**调用它的线程**的当前设备：必要时为进程打开设备，在其上创建（或复用）进程的
# 默认上下文，并把该上下文设为当前上下文。之后的内存、流和下发都去往这个设备。其他线程不受影响。
#
# 运行时的多线程设备示例正是这样做的：主线程设置设备 0，然后启动一个线程，该线程在做任何工作之前为自己再设置一次
# 设备。试试去掉第二次 `SetDevice`：

# %%
acl.rt.set_device(0)
seen = {}


def worker():
    seen["before set_device"] = acl.rt.get_device()
    acl.rt.set_device(3)
    seen["after set_device(3)"] = acl.rt.get_device()


t = threading.Thread(target=worker)
t.start()
t.join()
print("worker:", seen)
print("main thread still on:", acl.rt.get_device())

# %% [markdown]
# The new thread starts with **no** current device (107002 `ACL_ERROR_RT_CONTEXT_NULL`).
#
# Opening devices costs time, and the first open of a process costs the most (it sets up the
# whole runtime: seconds, in the FAQ's words). Switching back to a device already open is
# cheap:

# %% [markdown] lang="zh"
# 新线程开始时**没有**当前设备（107002 `ACL_ERROR_RT_CONTEXT_NULL`）。
#
# 打开设备要花时间，进程第一次打开花得最多（它要建立整个运行时：用 FAQ 的话说，需要几秒）。切换回一个已经打开的设备则很便宜：

# %%
sandbox.configure("ascend910b")
acl.init()
for d in (0, 1, 0, 1):
    t0 = sandbox.now()
    acl.rt.set_device(d)
    print(f"set_device({d}) took {(sandbox.now() - t0) / 1e6:10.3f} ms")

# %% [markdown]
# `SetDevice` uses the device's **default** context. The runtime's context example takes
# the other road: it creates an explicit context on device 0 (`aclrtCreateContext`, which
# also makes it current), checks with `aclrtGetCurrentContext` that it is the current one,
# and destroys it when done. Only explicit contexts can be destroyed; a default context goes
# with the device reset.

# %% [markdown] lang="zh"
# `SetDevice` 使用设备的**默认**上下文。运行时的上下文示例走另一条路：它在设备 0 上创建一个显式上下文
# （`aclrtCreateContext`，同时把它设为当前上下文），用 `aclrtGetCurrentContext` 确认它就是当前上下文，用完后销毁它。
# 只有显式上下文可以销毁；默认上下文随设备复位一起释放。

# %%
acl.rt.set_device(0)
default_ctx, _ = acl.rt.get_context()
ctx, ret = acl.rt.create_context(0)
print("create_context(0):", ret, "| current is the new one:", acl.rt.get_context()[0] == ctx)
print("destroy the default context:", acl.rt.destroy_context(default_ctx), "(ACL_ERROR_INVALID_PARAM)")
print("destroy the explicit one:", acl.rt.destroy_context(ctx), "| current now:", acl.rt.get_context())

# %% [markdown]
# ## 3 · Giving a device back: `ResetDevice` counts, `ResetDeviceForce` does not
#
# Every `aclrtSetDevice` adds one reference; `aclrtResetDevice` removes one and releases the
# default context (its default stream, and the streams and events made in it) only when the
# count reaches zero. So calls must come in pairs. `aclrtResetDeviceForce` releases at once,
# whatever the count. Both first **wait for the work still queued** on the device.
#
# What a reset releases is the default context and its streams; the documentation asks you to
# release the rest yourself **before** the reset, in this order: free device and host memory
# (`aclrtFree`, `aclrtFreeHost`), destroy events and explicit streams, destroy explicit
# contexts, then reset. A pointer from before a full reset must not be used after it: on
# hardware that is undefined behaviour, whatever a simulation happens to keep. After the reset,
# allocate again.

# %% [markdown] lang="zh"
# ## 3 · 归还设备：`ResetDevice` 计数，`ResetDeviceForce` 不计数
#
# 每次 `aclrtSetDevice` 增加一个引用；`aclrtResetDevice` 减少一个，只有当计数降到零时才释放默认上下文（它的默认流，
# 以及在其中创建的流和事件）。所以调用必须成对出现。`aclrtResetDeviceForce` 不管计数多少都立即释放。两者都会先
# **等待设备上仍在排队的任务**。
#
# 复位释放的是默认上下文及其流；文档要求你在复位**之前**自己释放其余资源，顺序是：释放设备内存和 Host 内存
# （`aclrtFree`、`aclrtFreeHost`），销毁事件和显式创建的流，销毁显式上下文，然后复位。完全复位之前得到的指针在复位
# 之后不得再使用：在硬件上那是未定义行为，不管模拟器碰巧保留了什么。复位之后，重新申请。

# %%
@sandbox.kernel(ns=5_000_000)          # 5 ms of device work
def work(x: "uint8*"):
    pass


@sandbox.kernel(ns=5_000_000)          # 5 ms of device work that touches no buffer
def busy():
    pass


sandbox.configure("ascend910b")
acl.init()
acl.rt.set_device(0)
acl.rt.set_device(0)                    # two references
s, _ = acl.rt.create_stream()
print("reset 1:", acl.rt.reset_device(0), "| stream still usable:", acl.rt.stream_query(s))
print("reset 2:", acl.rt.reset_device(0), "| current device now:", acl.rt.get_device())
print("reset 3:", acl.rt.reset_device(0), "= ACL_ERROR_RT_CONTEXT_RELEASE_ERROR:",
      acl.ACL_ERROR_RT_CONTEXT_RELEASE_ERROR)

# %%
for _ in range(3):
    acl.rt.set_device(0)                # three references
s, _ = acl.rt.create_stream()
buf, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
work[8, s](buf)
acl.rt.synchronize_stream(s)            # buf's last user has finished...
print("free before the reset:", acl.rt.free(buf))   # ...so release it first, as documented
busy[8, s]()                            # more work still queued when we reset
t0 = sandbox.now()
ret = acl.rt.reset_device_force(0)
print(f"reset_device_force: {ret} after {(sandbox.now() - t0) / 1e6:.3f} ms "
      "(waiting for the 5 ms kernel, then 5 ms of releasing)")
acl.rt.set_device(0)
print("the old stream is gone:", acl.rt.synchronize_stream(s), "=", "ACL_ERROR_INVALID_PARAM")
buf, ret = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
print("after the reset, allocate again:", ret)

# %% [markdown]
# ## 4 · Affinity: which calls may cross devices
#
# A stream and an event belong to the device that was current when they were made. The
# article lists what happens when the current device and the object's device differ:
#
# | call | rule | result |
# |---|---|---|
# | launch a kernel on a stream of another device | fails | 107003 `ACL_ERROR_RT_STREAM_CONTEXT` |
# | `aclrtMemcpyAsync` on a stream of another device | fails | same |
# | `aclrtRecordEvent` with event and stream on different devices | fails | same |
# | `aclrtStreamWaitEvent` with event and stream on different devices | fails | same |
# | `aclrtSynchronizeEvent` on another device's event | succeeds | 0 |
# | `aclrtQueryEventStatus` on another device's event | succeeds | 0 |
#
# Set up one stream, one event and one buffer on each of devices 0 and 1, leaving device 1
# current, then try each call:

# %% [markdown] lang="zh"
# ## 4 · 亲和性：哪些调用可以跨设备
#
# 流和事件属于创建它们时的当前设备。文章列出了当前设备与对象所属设备不同时会发生什么：
#
# | 调用 | 规则 | 结果 |
# |---|---|---|
# | 在另一个设备的流上下发核函数 | 失败 | 107003 `ACL_ERROR_RT_STREAM_CONTEXT` |
# | 在另一个设备的流上调用 `aclrtMemcpyAsync` | 失败 | 同上 |
# | 事件与流属于不同设备时调用 `aclrtRecordEvent` | 失败 | 同上 |
# | 事件与流属于不同设备时调用 `aclrtStreamWaitEvent` | 失败 | 同上 |
# | 对另一个设备的事件调用 `aclrtSynchronizeEvent` | 成功 | 0 |
# | 对另一个设备的事件调用 `aclrtQueryEventStatus` | 成功 | 0 |
#
# 在设备 0 和设备 1 上各建立一条流、一个事件和一个缓冲区，让设备 1 保持为当前设备，然后逐一尝试这些调用：

# %%
sandbox.configure("ascend910b")
acl.init()
acl.rt.set_device(0)
s0, _ = acl.rt.create_stream()
e0, _ = acl.rt.create_event()
buf0, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
work[8, s0](buf0)
acl.rt.record_event(e0, s0)            # e0 will complete when device 0's kernel ends
acl.rt.set_device(1)
s1, _ = acl.rt.create_stream()
e1, _ = acl.rt.create_event()
buf1, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
host, _ = acl.rt.malloc_host(4096)

NAMES = {0: "ACL_SUCCESS", acl.ACL_ERROR_RT_STREAM_CONTEXT: "ACL_ERROR_RT_STREAM_CONTEXT"}


def show(c_call, ret):
    ret = ret[-1] if isinstance(ret, tuple) else ret
    print(f"{c_call:<44} -> {ret:>6} {NAMES.get(ret, '')}")


show("myKernel<<<8, nullptr, s1>>>", work[8, s1](buf1))
show("myKernel<<<8, nullptr, s0>>>  (s0 on dev 0)", work[8, s0](buf0))
show("aclrtMemcpyAsync(buf0, ..., s0)", acl.rt.memcpy_async(buf0, 4096, host, 4096, acl.ACL_MEMCPY_HOST_TO_DEVICE, s0))
show("aclrtRecordEvent(e0, s1)", acl.rt.record_event(e0, s1))
show("aclrtStreamWaitEvent(s1, e0)", acl.rt.stream_wait_event(s1, e0))
show("aclrtSynchronizeEvent(e0)", acl.rt.synchronize_event(e0))
show("aclrtQueryEventStatus(e0)", acl.rt.query_event_status(e0))
print("e0 status:", "complete" if acl.rt.query_event_status(e0)[0] == acl.ACL_EVENT_RECORDED_STATUS_COMPLETE else "not yet")

# %% [markdown]
# Each failure leaves a message that names both devices; `acl.get_recent_err_msg()` returns
# the messages since the last read, newest first:

# %% [markdown] lang="zh"
# 每次失败都会留下一条指明两个设备的消息；`acl.get_recent_err_msg()` 返回自上次读取以来的消息，最新的在前：

# %%
work[8, s0](buf0)
print(acl.get_recent_err_msg())

# %% [markdown]
# So a stream on device 1 cannot wait on device 0's event, but the **host** can: to make
# device 1 start after device 0, synchronise on device 0's event from the host (or from a
# thread), then queue device 1's work. The summary lists each error with its call:

# %% [markdown] lang="zh"
# 所以设备 1 上的流不能等待设备 0 的事件，但 **Host** 可以：要让设备 1 在设备 0 之后开始，就从 Host（或某个线程）
# 同步设备 0 的事件，然后再放入设备 1 的任务。摘要列出了每个错误及其调用：

# %%
sandbox.summary()

# %% [markdown]
# ## 5 · Peer-to-peer copies
#
# Devices in one server can copy to each other directly, without passing through the
# host, over the links between them. On an Atlas A2 server every pair of 910B chips has
# its own **HCCS** link (a full mesh, 56 GB/s per direction). `aclrtGetDevicesTopo`
# reports the link type as bit flags:

# %% [markdown] lang="zh"
# ## 5 · 设备间（peer-to-peer）拷贝
#
# 同一台服务器中的设备可以通过它们之间的链路直接相互拷贝，而不经过 Host。在 Atlas A2 服务器上，每对 910B 芯片之间
# 都有自己的 **HCCS** 链路（全互联，每个方向 56 GB/s）。`aclrtGetDevicesTopo` 以位标志报告链路类型：

# %%
sandbox.configure("ascend910b")
acl.init()
bits, ret = acl.rt.get_devices_topo(0, 1)
print("topology bits 0-1:", bits, "HCCS" if bits & acl.ACL_RT_DEVS_TOPOLOGY_HCCS else "", "ret", ret)
print("can 0 access 1?", acl.rt.device_can_access_peer(0, 1))

# %% [markdown]
# Peer access is **one-directional**: `aclrtDeviceEnablePeerAccess(peer, 0)` opens the
# direction *current device → peer* only; the other direction needs its own call with the
# other device current. Buffers meant for peer copies use the `_P2P` policies.
#
# Here is the article's full sample (also the flow of the runtime's `2_device_P2P`
# example), with a payload so you can see the bytes arrive:
#
# ```c
# aclrtDeviceCanAccessPeer(&canAccessPeer, 0, 1);
# aclrtSetDevice(0);  aclrtDeviceEnablePeerAccess(1, 0);
# aclrtMalloc(&dev0Mem, 10, ACL_MEM_MALLOC_HUGE_FIRST_P2P);
# aclrtSetDevice(1);  aclrtDeviceEnablePeerAccess(0, 0);
# aclrtMalloc(&dev1Mem, 10, ACL_MEM_MALLOC_HUGE_FIRST_P2P);
# aclrtMemcpy(dev1Mem, 10, dev0Mem, 10, ACL_MEMCPY_DEVICE_TO_DEVICE);
# aclrtDeviceDisablePeerAccess(0);  aclrtFree(dev1Mem);  aclrtResetDevice(1);
# aclrtSetDevice(0);  aclrtDeviceDisablePeerAccess(1);  aclrtFree(dev0Mem);  aclrtResetDeviceForce(0);
# ```

# %% [markdown] lang="zh"
# 设备间访问是**单向的**：`aclrtDeviceEnablePeerAccess(peer, 0)` 只打开*当前设备 → peer* 这一个方向；另一个方向
# 需要在另一个设备为当前设备时单独调用。用于设备间拷贝的缓冲区使用 `_P2P` 策略。
#
# 下面是文章中的完整示例（也是运行时 `2_device_P2P` 示例的流程），加上一段数据，让你看到字节到达：
#
# ```c
# aclrtDeviceCanAccessPeer(&canAccessPeer, 0, 1);
# aclrtSetDevice(0);  aclrtDeviceEnablePeerAccess(1, 0);
# aclrtMalloc(&dev0Mem, 10, ACL_MEM_MALLOC_HUGE_FIRST_P2P);
# aclrtSetDevice(1);  aclrtDeviceEnablePeerAccess(0, 0);
# aclrtMalloc(&dev1Mem, 10, ACL_MEM_MALLOC_HUGE_FIRST_P2P);
# aclrtMemcpy(dev1Mem, 10, dev0Mem, 10, ACL_MEMCPY_DEVICE_TO_DEVICE);
# aclrtDeviceDisablePeerAccess(0);  aclrtFree(dev1Mem);  aclrtResetDevice(1);
# aclrtSetDevice(0);  aclrtDeviceDisablePeerAccess(1);  aclrtFree(dev0Mem);  aclrtResetDeviceForce(0);
# ```

# %%
can_access_peer, ret = acl.rt.device_can_access_peer(0, 1)
if can_access_peer == 1:
    acl.rt.set_device(0)
    print("enable 0->1:", acl.rt.device_enable_peer_access(1, 0))
    dev0_mem, _ = acl.rt.malloc(10, acl.ACL_MEM_MALLOC_HUGE_FIRST_P2P)
    payload = np.arange(40, 50, dtype=np.uint8)
    acl.rt.memcpy(dev0_mem, 10, acl.util.numpy_to_ptr(payload), 10, acl.ACL_MEMCPY_HOST_TO_DEVICE)

    acl.rt.set_device(1)
    print("enable 1->0:", acl.rt.device_enable_peer_access(0, 0))
    dev1_mem, _ = acl.rt.malloc(10, acl.ACL_MEM_MALLOC_HUGE_FIRST_P2P)
    print("D2D copy 0->1:", acl.rt.memcpy(dev1_mem, 10, dev0_mem, 10, acl.ACL_MEMCPY_DEVICE_TO_DEVICE))
    arrived = np.zeros(10, dtype=np.uint8)
    acl.rt.memcpy(acl.util.numpy_to_ptr(arrived), 10, dev1_mem, 10, acl.ACL_MEMCPY_DEVICE_TO_HOST)
    print("on device 1:", arrived.tolist())

    print("disable 1->0:", acl.rt.device_disable_peer_access(0), "free:", acl.rt.free(dev1_mem),
          "reset 1:", acl.rt.reset_device(1))
    acl.rt.set_device(0)
    print("disable 0->1:", acl.rt.device_disable_peer_access(1), "free:", acl.rt.free(dev0_mem),
          "force reset 0:", acl.rt.reset_device_force(0))
    print("P2P copy success")
print("finalize:", acl.finalize())

# %% [markdown]
# What happens without peer access, or with only the opposite direction enabled? The copy
# fails with 107000 and the message says which call is missing. The sandbox also raises a
# `HazardWarning` (under the cell) before the call fails, naming the missing direction and the
# fix; notebook 09b explains these warnings.

# %% [markdown] lang="zh"
# 没有设备间访问，或者只打开了相反方向时会怎样？拷贝以 107000 失败，消息说明缺少哪个调用。沙箱还会在调用失败之前
# 产生一个 `HazardWarning`（显示在单元下方），指出缺少的方向和修正方法；notebook 09b 会解释这些警告。

# %%
sandbox.configure("ascend910b")
acl.init()
acl.rt.set_device(1)
dst, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST_P2P)
acl.rt.device_enable_peer_access(0, 0)             # opens 1 -> 0 only
acl.rt.set_device(0)
src, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST_P2P)
print(acl.rt.memcpy(dst, 4096, src, 4096, acl.ACL_MEMCPY_DEVICE_TO_DEVICE))
print(acl.get_recent_err_msg())

# %% [markdown]
# ### Links are shared
#
# A link has a fixed bandwidth. Two copies at the same time **in the same direction on the
# same link** share it and each takes about twice as long; the opposite direction is a link
# of its own, and so is every other pair of devices. Time a 64 MiB copy alone, two on
# 0→1 together, and 0→1 beside 0→2:

# %% [markdown] lang="zh"
# ### 链路是共享的
#
# 一条链路的带宽是固定的。**同一条链路上同一方向**同时进行的两个拷贝共享它，各自大约要花两倍时间；相反方向是它自己
# 的一条链路，其他每对设备也是。分别测量单独一个 64 MiB 拷贝、两个同时在 0→1 上的拷贝，以及 0→1 与 0→2 并行：

# %%
N = 64 * MiB


def peer_copies(pairs):
    """Start one async copy per (src, dst) pair at once; return the time until all are done."""
    sandbox.configure("ascend910b")
    acl.init()
    jobs = []
    for a, b in pairs:
        acl.rt.set_device(b)
        dst, _ = acl.rt.malloc(N, acl.ACL_MEM_MALLOC_HUGE_FIRST_P2P)
        acl.rt.set_device(a)
        acl.rt.device_enable_peer_access(b, 0)
        src, _ = acl.rt.malloc(N, acl.ACL_MEM_MALLOC_HUGE_FIRST_P2P)
        stream, _ = acl.rt.create_stream()
        jobs.append((a, dst, src, stream))
    t0 = sandbox.now()
    for a, dst, src, stream in jobs:
        acl.rt.set_device(a)
        acl.rt.memcpy_async(dst, N, src, N, acl.ACL_MEMCPY_DEVICE_TO_DEVICE, stream)
    for a, dst, src, stream in jobs:
        acl.rt.set_device(a)
        acl.rt.synchronize_stream(stream)
    return (sandbox.now() - t0) / 1e6


for pairs in ([(0, 1)], [(0, 1), (0, 1)], [(0, 1), (1, 0)], [(0, 1), (0, 2)]):
    print(f"{str(pairs):<20} all done after {peer_copies(pairs):6.3f} ms")

# %% [markdown]
# One copy: 64 MiB / 56 GB/s ≈ 1.2 ms. Two on the same link: ≈ 2.4 ms. Opposite directions
# or different links: ≈ 1.2 ms, as if alone. The physical view of the Gantt chart has one row
# per link; here are the two copies sharing the 0→1 link. The picture shows only the window
# from just before the copies to their end (`window=(t0, t1)`): the whole run would be
# dominated by the 20 ms of the first `aclrtSetDevice`, with the copies a sliver at its end.

# %% [markdown] lang="zh"
# 一个拷贝：64 MiB / 56 GB/s ≈ 1.2 ms。同一链路上两个：≈ 2.4 ms。相反方向或不同链路：≈ 1.2 ms，就像单独运行一样。
# 甘特图的物理视图每条链路一行；下面是共享 0→1 链路的两个拷贝。图中只画从拷贝开始前一点到拷贝结束的时间窗口
# （`window=(t0, t1)`）：整个运行会被第一次 `aclrtSetDevice` 的 20 ms 占满，拷贝只剩末尾的一条细线。

# %%
took_ms = peer_copies([(0, 1), (0, 1)])
t1 = sandbox.now()
t0 = t1 - round(took_ms * 1e6)
sandbox.gantt(view="physical", window=(t0 - 100_000, t1))

# %% [markdown]
# ### Compute while the devices talk
#
# A peer copy is work for the link, not for the AI Cores, so it can run while the device
# computes — the "overlap of compute and communication" of the asynchronous-execution article
# (seed 003). As with host copies (notebook 02), it overlaps only if the copy and the kernel are
# on **different streams**: a 64 MiB copy from device 0 to device 1 and an unrelated 1.5 ms
# kernel on device 0, first on one stream, then on two:

# %% [markdown] lang="zh"
# ### 设备通信的同时进行计算
#
# 设备间拷贝是链路的工作，不是 AI Core 的工作，所以它可以在设备计算时进行——即异步执行文章（种子 003）所说的“计算与
# 通信重叠”。与 Host 拷贝一样（notebook 02），只有当拷贝和核函数在**不同的流**上时才会重叠：一个从设备 0 到设备 1 的
# 64 MiB 拷贝，和设备 0 上一个与之无关的 1.5 ms 核函数，先放在一条流上，再放在两条流上：

# %%
@sandbox.kernel(ns=1_500_000)          # 1.5 ms of compute on its own buffer
def compute(x: "uint8*"):
    pass


sandbox.configure("ascend910b")
acl.init()
acl.rt.set_device(1)
acl.rt.device_enable_peer_access(0, 0)
dst, _ = acl.rt.malloc(64 << 20, acl.ACL_MEM_MALLOC_HUGE_FIRST_P2P)
acl.rt.set_device(0)
acl.rt.device_enable_peer_access(1, 0)
src, _ = acl.rt.malloc(64 << 20, acl.ACL_MEM_MALLOC_HUGE_FIRST_P2P)
scratch, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
comm_s, _ = acl.rt.create_stream()
compute_s, _ = acl.rt.create_stream()
for label, copy_stream in (("one stream ", compute_s), ("two streams", comm_s)):
    t0 = sandbox.now()
    acl.rt.memcpy_async(dst, 64 << 20, src, 64 << 20, acl.ACL_MEMCPY_DEVICE_TO_DEVICE, copy_stream)
    compute[8, compute_s](scratch)
    acl.rt.synchronize_device()
    print(f"{label}: copy 0 -> 1 and kernel on device 0 done after {(sandbox.now() - t0) / 1e6:.3f} ms")

# %% [markdown]
# On one stream: 1.2 ms of copy, then 1.5 ms of kernel. On two: the kernel's 1.5 ms, with the
# copy hidden beside it. Collective libraries (HCCL) use the same idea: gradients of one layer
# travel between devices while the next layer computes.
#
# ### Between processes
#
# Peer access is a matter of one process: the documentation sends programs that share device
# memory **between processes** to its inter-process communication section (memory one process
# exports and another opens, and events created with `ACL_EVENT_IPC`). The sandbox models it: its
# simulated processes (`sandbox.spawn_process`, notebook 06) share the devices, each with its own
# contexts. Below, process A fills a buffer on device 0, synchronizes and exports it
# (`aclrtIpcMemGetExportKey`, flag 1: any process may import it); process B imports the key
# (`aclrtIpcMemImportByKey`) and copies the bytes back through its own address. The key travels
# by `sandbox.write_shared` / `read_shared`, the sandbox's stand-in for the files the official
# samples pass it through (`examples/1_basic_features/memory/10_ipc_memory_withpid.py` and `11_...`
# port them in full).

# %% [markdown] lang="zh"
# 一条流上：1.2 ms 拷贝，然后 1.5 ms 核函数。两条流上：只有核函数的 1.5 ms，拷贝隐藏在它旁边。集合通信库（HCCL）
# 用的是同样的思路：一层的梯度在设备之间传输的同时，下一层在计算。
#
# ### 进程之间
#
# 设备间访问是一个进程之内的事：对于在**进程之间**共享设备内存的程序，文档指向它的“进程间通信”一节（一个进程导出、
# 另一个进程打开的内存，以及用 `ACL_EVENT_IPC` 创建的事件）。沙箱对此有模拟：它的模拟进程（`sandbox.spawn_process`，
# notebook 06）共享设备，各有自己的 Context。下面，进程 A 在 Device 0 上填充一块缓冲区、同步并导出它
# （`aclrtIpcMemGetExportKey`，标志 1：任何进程都可导入）；进程 B 导入这个 key（`aclrtIpcMemImportByKey`），并通过自己的
# 地址把字节拷回。key 通过 `sandbox.write_shared` / `read_shared` 传递，这是沙箱对官方样例用来传递它的文件的替代
# （`examples/1_basic_features/memory/10_ipc_memory_withpid.py` 和 `11_...` 完整移植了这些样例）。

# %%
sandbox.configure("ascend910b", device_count=2)


def exporter():
    acl.init()
    acl.rt.set_device(0)
    buf, _ = acl.rt.malloc(1024, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.rt.memset(buf, 1024, 7, 1024)                          # done when it returns
    key, ret = acl.rt.ipc_mem_get_export_key(buf, 1024, 65, 1)
    sandbox.write_shared("key", key)
    while sandbox.read_shared("done") is None:                 # keep the memory until B has read it
        sandbox.host_work(100_000, "wait for B")
    acl.rt.ipc_mem_close(key)
    acl.rt.free(buf)


def importer():
    acl.init()
    acl.rt.set_device(0)
    while (key := sandbox.read_shared("key")) is None:
        sandbox.host_work(100_000, "wait for A")
    ptr, ret = acl.rt.ipc_mem_import_by_key(key, 0)
    host, _ = acl.rt.malloc_host(1024)
    acl.rt.memcpy(host, 1024, ptr, 1024, acl.ACL_MEMCPY_DEVICE_TO_HOST)
    print("process B read through its import:", acl.util.ptr_to_numpy(host, (4,), np.uint8).tolist(), "ret", ret)
    acl.rt.free_host(host)
    acl.rt.ipc_mem_close(key)
    sandbox.write_shared("done", True)


a, b = sandbox.spawn_process(exporter), sandbox.spawn_process(importer)
a.join()
b.join()

# %% [markdown]
# ## Exercises
#
# Each exercise is a function for you to complete. `sandbox.teach.check("05.1", solution)`
# runs **your** function on a fresh 8-device 910B server of its own, with inputs it makes up
# each time, and judges the whole run from the trace and from what the device memory holds at
# the end. Each criterion prints `✔` or `✘` with a hint. Your own machine above is left
# untouched. The cells below hold stubs, so their verdict is `✘` until you write the code.
#
# Before it calls your function, the grader opens the board: `acl.init()` has run and device 0
# is set on your function's thread. Your function creates and releases what it uses (streams,
# events, memory, and the other devices it sets). So, unlike the cells above, a solution does
# not call `acl.init()` (a second `aclInit` fails with 100002, `ACL_ERROR_REPEAT_INITIALIZE`),
# and it leaves `sandbox.configure` to the grader too: the grader builds the machine.

# %% [markdown] lang="zh"
# ## 练习
#
# 每个练习都是一个由你补全的函数。`sandbox.teach.check("05.1", solution)` 在一台属于它自己的全新 8 设备 910B 服务器
# 上运行**你的**函数，每次使用新生成的输入，并根据 trace 和最终设备内存中的内容评判整次运行。每一项打印 `✔` 或 `✘`
# 并附提示。你上面自己的机器不受影响。下面的单元是空白模板，所以在你写代码之前结论都是 `✘`。
#
# 调用你的函数之前，评分器先打开板卡：`acl.init()` 已经运行，设备 0 已在你的函数所在的线程上设置好。你的函数自己
# 创建并释放它用到的东西（流、事件、内存，以及它设置的其他设备）。所以与上面的单元不同，解答不调用 `acl.init()`
# （第二次 `aclInit` 会以 100002 `ACL_ERROR_REPEAT_INITIALIZE` 失败），`sandbox.configure` 也留给评分器：机器由它来建。

# %%
import sandbox.teach                                                  # the grader

D2D, H2D = acl.ACL_MEMCPY_DEVICE_TO_DEVICE, acl.ACL_MEMCPY_HOST_TO_DEVICE      # short names for the copies below
P2P = acl.ACL_MEM_MALLOC_HUGE_FIRST_P2P

# %% [markdown]
# ### Exercise 05.1 · one device after another
#
# *Practises:* stream and event affinity: which calls may cross devices, and ordering two
# devices from the host.
#
# Run `work` (the 5 ms kernel of section 3) once on device 0 and then once on device 1, so
# that device 1's kernel starts only after device 0's kernel has finished. The grader wants:
#
# * `work` launched exactly once on device 0 and once on device 1 (each on a 4 KiB buffer of
#   its own device), and no other kernel;
# * no failing call: section 4 shows which event calls may cross devices (a stream of device
#   1 waiting for device 0's event fails with 107003 `ACL_ERROR_RT_STREAM_CONTEXT`);
# * device 1's kernel starting after device 0's kernel ended;
# * the host *knowing* it: a synchronize (or a query) that returned after device 0's kernel
#   ended and before the launch on device 1. Waiting a fixed time is luck, not a dependency.

# %% [markdown] lang="zh"
# ### 练习 05.1 · 一个设备接着一个设备
#
# *练习内容：* 流和事件的亲和性：哪些调用可以跨设备，以及由 Host 为两个设备排序。
#
# 在设备 0 上运行一次 `work`（第 3 节中 5 ms 的核函数），然后在设备 1 上运行一次，使设备 1 的核函数只在设备 0 的核函数
# 完成后才开始。评分器要求：
#
# * `work` 在设备 0 和设备 1 上各恰好下发一次（各自使用本设备上的一块 4 KiB 缓冲区），没有其他核函数；
# * 没有失败的调用：第 4 节列出了哪些事件调用可以跨设备（设备 1 的流等待设备 0 的事件会以 107003
#   `ACL_ERROR_RT_STREAM_CONTEXT` 失败）；
# * 设备 1 的核函数在设备 0 的核函数结束之后开始；
# * Host *知道*这一点：有一次同步（或查询）在设备 0 的核函数结束之后、在设备 1 上下发之前返回。等待一段固定时间靠的是
#   运气，不是依赖关系。

# %% nbgrader={"grade": false, "grade_id": "ex05_1", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution():
    """work on device 0, then work on device 1, ordered by the host."""
    # TODO: a stream, an event and a 4 KiB buffer on device 0; launch work there and record the
    # event; then switch to device 1 and launch work there only once device 0's kernel is done.
    # Hint: aclrtSynchronizeEvent works on another device's event; aclrtStreamWaitEvent does not.
    ### BEGIN SOLUTION
    acl.rt.set_device(0)
    s0, _ = acl.rt.create_stream()
    e0, _ = acl.rt.create_event()
    b0, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    work[8, s0](b0)
    acl.rt.record_event(e0, s0)
    acl.rt.set_device(1)
    s1, _ = acl.rt.create_stream()
    b1, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.rt.synchronize_event(e0)                 # the host waits: allowed across devices
    work[8, s1](b1)
    acl.rt.synchronize_stream(s1)
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex05_1_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("05.1", solution, isolated=True)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("05.1", solution)

# %% [markdown]
# ### Exercise 05.2 · broadcast
#
# *Practises:* peer access and device-to-device copies: one source, three links at once.
#
# Upload `data` (64 MiB of uint8, `N` bytes) to device 0, then give devices 1, 2 and 3 a copy
# of it **from device 0**; return the four device addresses as a dict
# `{0: ptr, 1: ptr, 2: ptr, 3: ptr}`. The grader wants:
#
# * each address on its device, in a live allocation with `N` bytes from it;
# * each of the four buffers holding `data` at the end, the ones on devices 1, 2 and 3 written
#   by device-to-device copies from device 0;
# * peer access enabled for 0 → 1, 0 → 2 and 0 → 3;
# * exactly 64 MiB copied host to device (once, to device 0) and 3 × 64 MiB between devices;
# * the three copies done in about the time of **one**: at most **1.5 ms** from the first
#   peer copy's start to the last one's end.

# %% [markdown] lang="zh"
# ### 练习 05.2 · 广播
#
# *练习内容：* 设备间访问和设备到设备的拷贝：一个源，三条链路同时使用。
#
# 把 `data`（64 MiB 的 uint8，`N` 字节）上传到设备 0，然后**从设备 0** 给设备 1、2、3 各一份拷贝；以字典
# `{0: ptr, 1: ptr, 2: ptr, 3: ptr}` 返回四个设备地址。评分器要求：
#
# * 每个地址都在它的设备上，位于一块从它开始有 `N` 字节的存活分配之内；
# * 最后四个缓冲区都是 `data`，设备 1、2、3 上的由来自设备 0 的设备到设备拷贝写入；
# * 打开了 0 → 1、0 → 2 和 0 → 3 的设备间访问；
# * Host 到设备恰好拷贝 64 MiB（一次，到设备 0），设备之间拷贝 3 × 64 MiB；
# * 三个拷贝在大约**一个**拷贝的时间内完成：从第一个设备间拷贝开始到最后一个结束，至多 **1.5 ms**。

# %% nbgrader={"grade": false, "grade_id": "ex05_2", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(data):
    """Put data on device 0 and broadcast it to devices 1, 2, 3; return {device: address}."""
    targets = (1, 2, 3)
    # TODO: a P2P buffer on each target; on device 0 a P2P buffer with data in it, peer access to
    # each target and one stream per copy; queue the three copies, then wait for all of them.
    # Hint: peer_copies() of section 5 times copies that run at once.
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
# `a` and `b` are 64 MiB each (uint8). Upload `a` to device 0 and `b` to device 1, then
# exchange them with device-to-device copies, so that device 0 holds `b` and device 1 holds
# `a`; return `{0: address on device 0 holding b, 1: address on device 1 holding a}`. The
# grader wants:
#
# * each address on its device, in a live allocation with `N` bytes from it;
# * device 0's buffer holding `b` and device 1's holding `a` at the end, written by copies
#   from device 1 and from device 0 respectively;
# * peer access enabled for 0 → 1 and for 1 → 0;
# * exactly 2 × 64 MiB copied host to device and 2 × 64 MiB between devices;
# * the exchange done in the time of one copy: at most **1.5 ms** from the first peer copy's
#   start to the last one's end.

# %% [markdown] lang="zh"
# ### 练习 05.3 · 在一次拷贝的时间内完成交换
#
# *练习内容：* 单向的设备间访问：打开两个方向，同时使用两条链路。
#
# `a` 和 `b` 各 64 MiB（uint8）。把 `a` 上传到设备 0，`b` 上传到设备 1，然后用设备到设备的拷贝交换它们，使设备 0 持有
# `b`、设备 1 持有 `a`；返回 `{0: 设备 0 上持有 b 的地址, 1: 设备 1 上持有 a 的地址}`。评分器要求：
#
# * 每个地址都在它的设备上，位于一块从它开始有 `N` 字节的存活分配之内；
# * 最后设备 0 的缓冲区是 `b`、设备 1 的是 `a`，分别由来自设备 1 和设备 0 的拷贝写入；
# * 打开了 0 → 1 和 1 → 0 的设备间访问；
# * Host 到设备恰好拷贝 2 × 64 MiB，设备之间 2 × 64 MiB；
# * 交换在一次拷贝的时间内完成：从第一个设备间拷贝开始到最后一个结束，至多 **1.5 ms**。

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
# ## Official samples for this topic
#
# [2_device_P2P.py](../examples/1_basic_features/device/2_device_P2P.py) (peer access and a
# device-to-device copy),
# [1_device_multi_thread.py](../examples/1_basic_features/device/1_device_multi_thread.py) (one
# thread per device and the device queries) and
# [0_context_query.py](../examples/1_basic_features/context/0_context_query.py) (contexts and
# their default streams). Notebook [11_official_samples](11_official_samples.ipynb), section 8.
# [0_device_normal.py](../examples/1_basic_features/device/0_device_normal.py) is one device's
# ordinary life (set it, a stream, a computation, synchronise the stream and the device, reset);
# the sample computes with the operator library's aclnnAdd, which is not the runtime, so the port
# computes with one `@sandbox.kernel`.

# %% [markdown] lang="zh"
# ## 本专题的官方示例
#
# [2_device_P2P.py](../../examples/1_basic_features/device/2_device_P2P.py)（设备间访问与设备到设备拷贝）、[1_device_multi_thread.py](../../examples/1_basic_features/device/1_device_multi_thread.py)（每个设备一个线程以及设备查询）和
# [0_context_query.py](../../examples/1_basic_features/context/0_context_query.py)（上下文及其默认流）。notebook
# [11_official_samples](11_official_samples.ipynb) 第 8 节。
# [0_device_normal.py](../../examples/1_basic_features/device/0_device_normal.py) 是一个设备的常规流程（设置设备、一条流、
# 一次计算、同步流与设备、复位）；示例用算子库的 aclnnAdd 计算，算子库不是运行时，所以移植版本用一个 `@sandbox.kernel` 计算。

# %% [markdown]
# ## Summary
#
# Devices are numbered from 0 and answer attribute queries without being current.
# `aclrtSetDevice` chooses the device of the calling thread only; `aclrtResetDevice` counts
# references while `aclrtResetDeviceForce` does not. Streams and events belong to their
# device: launches, copies, records and stream waits must not cross devices, while the host
# may synchronise on or query any device's event. Peer access is one-directional, and copies
# on different links (or opposite directions of one) run at full speed together, and beside
# kernels when they are on streams of their own. Next,
# notebook 06 drives several devices from several host threads and processes.

# %% [markdown] lang="zh"
# ## 小结
#
# 设备从 0 开始编号，不必成为当前设备就能回答属性查询。`aclrtSetDevice` 只选择调用线程的设备；`aclrtResetDevice` 计算
# 引用数，而 `aclrtResetDeviceForce` 不计算。流和事件属于它们的设备：下发、拷贝、记录和流等待都不得跨设备，而 Host 可以
# 同步或查询任何设备的事件。设备间访问是单向的，不同链路上（或同一链路相反方向上）的拷贝可以同时全速进行，放在自己的
# 流上时还能与核函数并行。下一个是 notebook 06：由多个 Host 线程和进程驱动多个设备。


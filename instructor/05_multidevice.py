# %% [markdown]
# # 05 · Several devices: choosing, resetting, affinity and peer access
#
# **Time:** about 45 minutes
#
# A server holds several NPUs; the runtime shows each one as a **device** numbered 0, 1, 2, …
# Work always goes to a device through a context, and every stream and event belongs to one
# device. This notebook follows the Runtime programming guide, *Multi-device programming*
# (`docs/zh/dev_guide/05_multi_device_programming.md` in the CANN runtime repository): how to
# find and choose devices, how to give them back, which calls may cross from one device to
# another, and how to copy straight between two devices.
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
# **After this notebook** you can choose devices per thread, give them back with the reset
# that fits, say which stream and event calls may cross devices, and enable peer access in the
# direction a copy needs. **It assumes** notebooks 01 to 04. The optional deep dive
# [05x_peer_links](05x_peer_links.ipynb) goes on with link bandwidth, copies beside compute
# and two more exercises.

# %% [markdown] lang="zh"
# # 05 · 多 Device：选择、复位、亲和性与数据交互
#
# **时间**：约 45 分钟
#
# 一台服务器上装着多块 NPU，运行时把每一块抽象为一个 **Device（设备）**，编号依次为 0、1、2……任务总要借助某个
# Context（上下文）才能下发到 Device 上；每个 Stream（流）和 Event（事件）都属于一个 Device。本 notebook 依照
# 《Runtime编程指南》“多设备编程”（CANN runtime 仓库 `docs/zh/dev_guide/05_multi_device_programming.md`）展开：
# 怎样查询和选择 Device，怎样释放，哪些调用可以跨 Device，以及怎样在两个 Device 之间直接复制数据。
#
# | 本节内容 | C 接口 | Python 接口 |
# |---|---|---|
# | Device 数量 | `aclrtGetDeviceCount(&count)` | `acl.rt.get_device_count()` |
# | Device 属性 | `aclrtGetDeviceInfo(dev, ACL_DEV_ATTR_VECTOR_CORE_NUM, &value)` | `acl.rt.get_device_info(dev, acl.ACL_DEV_ATTR_VECTOR_CORE_NUM)` |
# | 指定当前线程的 Device | `aclrtSetDevice(dev)` | `acl.rt.set_device(dev)` |
# | 复位 Device | `aclrtResetDevice(dev)` / `aclrtResetDeviceForce(dev)` | `acl.rt.reset_device(dev)` / `acl.rt.reset_device_force(dev)` |
# | Device 间数据交互 | `aclrtDeviceCanAccessPeer(&can, a, b)`、`aclrtDeviceEnablePeerAccess(peer, 0)` | `acl.rt.device_can_access_peer(a, b)`、`acl.rt.device_enable_peer_access(peer, 0)` |
# | 链路类型 | `aclrtGetDevicesTopo(a, b, &bits)` | `acl.rt.get_devices_topo(a, b)` |
#
# **学完本 notebook**，你将能够：按线程指定 Device；根据场景选用合适的复位接口；说出哪些 Stream、Event 调用可以跨
# Device；按复制方向开启 Device 间数据交互。**前置知识**：notebook 01～04。选学的深入篇
# [05x_peer_links](05x_peer_links.ipynb) 继续讲链路带宽、计算与复制并行，并附两道练习。

# %% lang="zh"
import sandbox

sandbox.set_language("zh")          # 中文版：评分反馈使用中文

# %%
import threading

import numpy as np

import sandbox
from sandbox import acl, teach

MiB = 1 << 20
sandbox.configure("ascend910b")             # an 8-device Atlas A2 server
print(acl.init())

# %% [markdown]
# ## 1 · How many devices, and what are they?
#
# Devices are numbered from 0. `aclrtGetDeviceInfo` answers one attribute at a time
# (`aclrtDevAttr`); it needs no current device, so you can look before choosing.

# %% [markdown] lang="zh"
# ## 1 · 有几个 Device，各是什么？
#
# Device 从 0 开始编号。`aclrtGetDeviceInfo` 每次查询一个属性（`aclrtDevAttr`），不需要当前 Device，所以可以先查询、
# 再选择。

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
# Eight identical devices; only the physical chip id differs. Asking about a device that is not
# there answers 107001 `ACL_ERROR_RT_INVALID_DEVICEID`.
#
# ## 2 · `SetDevice` is per thread
#
# `aclrtSetDevice(d)` makes `d` the current device **of the calling thread only** (the guide:
# "按线程粒度切换Device（不会影响其他线程）"). It opens the device for the process if needed,
# creates (or re-uses) the device's default context and makes that context current; memory,
# streams and launches that follow go to that device.
#
# **Predict, then run.** The main thread has set device 0. It starts a worker thread that asks
# `aclrtGetDevice` before calling `aclrtSetDevice` itself. What does the worker get: device 0,
# or something else?

# %% [markdown] lang="zh"
# 八个 Device 完全相同，只有物理芯片 ID 不同。查询不存在的 Device 会返回 107001 `ACL_ERROR_RT_INVALID_DEVICEID`。
#
# ## 2 · `SetDevice` 按线程生效
#
# `aclrtSetDevice(d)` 只把 `d` 设为**调用线程自己**的当前 Device（编程指南原话：“按线程粒度切换Device（不会影响
# 其他线程）”）。必要时它会在进程中打开该 Device，创建（或复用）该 Device 的默认 Context 并设为当前 Context；此后的
# 内存申请、Stream 创建和核函数下发都落在这个 Device 上。
#
# **先预测，再运行。** 主线程已经指定了 Device 0，随后启动一个工作线程；工作线程在自己调用 `aclrtSetDevice` 之前
# 先调用 `aclrtGetDevice`。它得到的是 Device 0，还是别的结果？

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
# The new thread starts with **no** current device: 107002 `ACL_ERROR_RT_CONTEXT_NULL`
# ("Current context is a nullptr", `src/runtime/api/api_c.cc:323` in the runtime source). It
# does not inherit device 0, and its `set_device(3)` does not move the main thread. This is why
# the runtime's multi-thread device sample calls `aclrtSetDevice` again at the top of every
# thread it starts. Notebook 06 measures what opening a device costs and shows a thread using a
# context another thread created (`aclrtSetCurrentContext`).

# %% [markdown] lang="zh"
# 新线程一开始**没有**当前 Device：返回 107002 `ACL_ERROR_RT_CONTEXT_NULL`（运行时源码
# `src/runtime/api/api_c.cc:323`：“Current context is a nullptr”）。它不会继承 Device 0，它的 `set_device(3)` 也不会
# 改变主线程的 Device。所以运行时的多线程 Device 样例在它启动的每个线程开头都再调用一次 `aclrtSetDevice`。打开
# Device 要花多少时间、一个线程怎样使用另一个线程创建的 Context（`aclrtSetCurrentContext`），见 notebook 06。

# %% [markdown]
# ## 3 · Giving a device back: `ResetDevice` counts, `ResetDeviceForce` does not
#
# Every `aclrtSetDevice` adds one reference; `aclrtResetDevice` removes one and releases the
# default context (its default stream, and the streams made in it) only when the count reaches
# zero, so the calls must come in pairs. `aclrtResetDeviceForce` releases at once, however many
# `SetDevice` calls came before; the guide recommends it ("更推荐使用aclrtResetDeviceForce接口一次性
# 清理Device上的资源"). Before releasing, both **wait for the work still queued** in the default context.
#
# Release the rest yourself before the reset: the API reference (`docs/zh/api_ref/04_device_management.md`,
# aclrtResetDevice) recommends events and explicit streams first, then explicit contexts, then the
# reset; free the memory you allocated before that. A pointer from before a full reset must not
# be used after it: allocate again.

# %% [markdown] lang="zh"
# ## 3 · 复位 Device：`ResetDevice` 计数，`ResetDeviceForce` 不计数
#
# 每调用一次 `aclrtSetDevice`，引用计数加一；`aclrtResetDevice` 每次减一，只有减到零时才释放默认 Context（包括它的
# 默认 Stream 和在其中创建的 Stream），所以两者要成对调用。`aclrtResetDeviceForce` 则不论之前调用过几次
# `SetDevice`，一次就释放；编程指南也“更推荐使用aclrtResetDeviceForce接口一次性清理Device上的资源”。两个接口在
# 释放之前，都会先**等默认 Context 中尚未完成的任务执行完**。
#
# 其余资源要在复位之前自己释放：API 参考（`docs/zh/api_ref/04_device_management.md`，aclrtResetDevice）建议的顺序是
# 先销毁 Event 和显式创建的 Stream，再销毁显式创建的 Context，最后复位；申请的内存也应在此之前释放。完全复位之前拿到的
# 指针，复位之后不能再用，需要重新申请。

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

# %% [markdown]
# The first reset only counts down (the stream still answers); the second releases. A third has
# nothing to release: 507007 (the runtime's "The device has not been set or has already been
# reset", `src/runtime/api/impl/api_error.cc:3444-3446`, mapped in
# `src/runtime/core/src/common/errcode_manage.cc:221`). Now three references and one forced reset,
# with a kernel still queued:

# %% [markdown] lang="zh"
# 第一次复位只是把计数减一（Stream 仍可查询），第二次才真正释放。第三次已经没有可释放的东西：返回 507007（运行时的
# “The device has not been set or has already been reset”，`src/runtime/api/impl/api_error.cc:3444-3446`，错误码映射见
# `src/runtime/core/src/common/errcode_manage.cc:221`）。下面是三个引用、一次强制复位，而且复位时还有核函数在排队：

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
# One forced reset released all three references, after waiting for the queued kernel. (The
# 5 ms the release itself takes is the sandbox's assumption; the documentation gives no figure.)
#
# ## 4 · Affinity: which calls may cross devices
#
# A stream and an event belong to the device that was current when they were made. The guide
# lists what happens when the current device and the object's device differ (it says "fails";
# the code below is the runtime source's, e.g. `src/runtime/api/impl/api_impl.cc:542`):
#
# | call | result |
# |---|---|
# | launch a kernel on a stream of another device | fails, 107003 `ACL_ERROR_RT_STREAM_CONTEXT` |
# | `aclrtMemcpyAsync` on a stream of another device | fails, same |
# | `aclrtRecordEvent` with event and stream on different devices | fails, same |
# | `aclrtStreamWaitEvent` with event and stream on different devices | fails, same |
# | `aclrtSynchronizeEvent` / `aclrtQueryEventStatus` on another device's event | succeeds |
#
# One stream, event and buffer on each of devices 0 and 1, device 1 left current; then each call:

# %% [markdown] lang="zh"
# 强制复位一次就释放了三个引用，而且是在排队的核函数执行完之后。（释放本身耗时 5 ms 是沙箱的假设，官方文档没有给出
# 数值。）
#
# ## 4 · 亲和性：哪些调用可以跨 Device
#
# Stream 和 Event 属于创建它们时的当前 Device。编程指南列出了当前 Device 与对象所属 Device 不一致时的结果（指南只说
# “失败”；下表中的错误码来自运行时源码，例如 `src/runtime/api/impl/api_impl.cc:542`）：
#
# | 调用 | 结果 |
# |---|---|
# | 在其他 Device 的 Stream 上下发核函数 | 失败，107003 `ACL_ERROR_RT_STREAM_CONTEXT` |
# | 在其他 Device 的 Stream 上调用 `aclrtMemcpyAsync` | 失败，同上 |
# | Event 与 Stream 属于不同 Device 时调用 `aclrtRecordEvent` | 失败，同上 |
# | Event 与 Stream 属于不同 Device 时调用 `aclrtStreamWaitEvent` | 失败，同上 |
# | 对其他 Device 的 Event 调用 `aclrtSynchronizeEvent` / `aclrtQueryEventStatus` | 成功 |
#
# 在 Device 0 和 Device 1 上各创建一个 Stream、一个 Event 和一块缓冲区，最后停留在 Device 1 上，然后逐一尝试：

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
print()
print(acl.get_recent_err_msg())

# %% [markdown]
# Each failure leaves a message that names both devices (`acl.get_recent_err_msg()`, newest
# first). So a stream on device 1 cannot wait on device 0's event, but the **host** can: to make
# device 1 start after device 0, synchronise on device 0's event from the host (or from a
# thread), then queue device 1's work. Exercise 05.1 asks exactly that.
#
# ## 5 · Peer access: copies between devices
#
# Devices in one server can copy to each other over the links between them, without passing
# through the host. The guide calls this 跨Device的数据交互 and limits it to **one process**.
# `aclrtDeviceCanAccessPeer` says whether a pair can do it; `aclrtGetDevicesTopo` reports the
# link type as bit flags. Peer access is **one-directional**: `aclrtDeviceEnablePeerAccess(peer, 0)`
# opens the direction *current device → peer* only; the other direction needs its own call with
# the other device current. Buffers meant for peer copies use the `_P2P` allocation policies.
#
# The guide's sample (also the runtime's `2_device_P2P` sample), with a payload so you can see the
# bytes arrive:
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
# 每次失败都会留下一条写明两个 Device 的消息（`acl.get_recent_err_msg()`，最新的在前）。可见 Device 1 的 Stream 不能
# 等待 Device 0 的 Event，但 **Host（主机）** 可以：要让 Device 1 在 Device 0 之后开始，就在 Host（或某个线程）上同步
# Device 0 的 Event，再向 Device 1 下发任务。练习 05.1 考的正是这一点。
#
# ## 5 · Device 间数据交互：跨 Device 复制
#
# 同一台服务器中的 Device 可以经由它们之间的链路互相复制数据，不必经过 Host。编程指南称之为“跨Device的数据交互”，
# 并限定在**一个进程之内**。`aclrtDeviceCanAccessPeer` 查询两个 Device 之间是否支持数据交互，`aclrtGetDevicesTopo`
# 以位标志返回链路类型。数据交互是**单向**开启的：`aclrtDeviceEnablePeerAccess(peer, 0)` 只开启“当前 Device →
# peer”这一个方向，反方向要在另一个 Device 为当前 Device 时再调用一次。用于跨 Device 复制的内存采用 `_P2P` 申请策略。
#
# 下面是编程指南中的示例（也是运行时 `2_device_P2P` 样例的流程），另加一段数据，好让你看到字节确实到达：
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
sandbox.configure("ascend910b")
acl.init()
bits, ret = acl.rt.get_devices_topo(0, 1)
print("topology bits 0-1:", bits, "HCCS" if bits & acl.ACL_RT_DEVS_TOPOLOGY_HCCS else "", "ret", ret)
can_access_peer, ret = acl.rt.device_can_access_peer(0, 1)
print("can 0 access 1?", can_access_peer, "ret", ret)
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
# On this server the pair is linked by HCCS. The sample enables both directions, though its one
# copy needs only 0 → 1.
#
# **Predict, then run.** Device 1 is current and enables peer access to device 0
# (`aclrtDeviceEnablePeerAccess(0, 0)`). Then device 0 copies its buffer into device 1's. Does
# the copy succeed?

# %% [markdown] lang="zh"
# 在这台服务器上，这两个 Device 之间是 HCCS 链路。示例开启了两个方向，其实它唯一的一次复制只需要 0 → 1。
#
# **先预测，再运行。** 以 Device 1 为当前 Device，开启到 Device 0 的数据交互（`aclrtDeviceEnablePeerAccess(0, 0)`），
# 然后把 Device 0 上的缓冲区复制到 Device 1 上。复制能成功吗？

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
# It fails: the enabled direction is 1 → 0, and this copy goes 0 → 1. The code, 107000, is the
# sandbox's choice (the documentation names none for a copy without peer access); the message
# says which call is missing, and a `HazardWarning` under the cell names the fix (notebook 09b
# explains these warnings). What to remember: **one `aclrtDeviceEnablePeerAccess` per direction,
# called with the source device current** (the sandbox reads a copy a → b as needing the
# direction a → b; the guide says only that each direction is enabled on its own).

# %% [markdown] lang="zh"
# 复制失败了：开启的方向是 1 → 0，而这次复制是 0 → 1。错误码 107000 是沙箱的选择（官方文档没有给出未开启数据交互
# 时复制的错误码）；消息指出缺少哪个调用，单元格下方的 `HazardWarning` 给出修正方法（notebook 09b 讲解这类警告）。
# 要记住的是：**每个方向各调用一次 `aclrtDeviceEnablePeerAccess`，调用时以源 Device 为当前 Device**（沙箱认为从 a 到
# b 的复制需要 a → b 方向；编程指南只说明每个方向需要分别开启）。

# %% [markdown]
# ## Exercise
#
# `sandbox.teach.check("05.1", solution)` runs **your** function on a fresh 8-device 910B server
# of its own and judges the whole run from the trace; each criterion prints `✔` or `✘` with a
# hint. Before it calls your function the grader has run `acl.init()` and set device 0 on your
# function's thread, so a solution calls neither `acl.init()` (a second one fails with 100002
# `ACL_ERROR_REPEAT_INITIALIZE`) nor `sandbox.configure`; it creates and releases what it uses.
# The cell below holds a stub, so its verdict is `✘` until you write the code.
#
# ### Exercise 05.1 · one device after another
#
# *Practises:* stream and event affinity: which calls may cross devices, and ordering two
# devices from the host.
#
# Run `work` (the 5 ms kernel of section 3) once on device 0 and then once on device 1, so that
# device 1's kernel starts only after device 0's kernel has finished. The grader wants:
#
# * `work` launched exactly once on device 0 and once on device 1 (each on a 4 KiB buffer of its
#   own device), and no other kernel;
# * no failing call (section 4: a stream of device 1 waiting for device 0's event fails with
#   107003 `ACL_ERROR_RT_STREAM_CONTEXT`);
# * device 1's kernel starting after device 0's kernel ended;
# * the host *knowing* it: a synchronize (or a query) that returned after device 0's kernel ended
#   and before the launch on device 1. Waiting a fixed time is luck, not a dependency.

# %% [markdown] lang="zh"
# ## 练习
#
# `sandbox.teach.check("05.1", solution)` 会在一台独立的、全新的 8 Device 910B 服务器上运行**你的**函数，并根据
# trace 评判整个运行过程；每一项评判标准都打印 `✔` 或 `✘` 及提示。调用你的函数之前，评分器已经执行了
# `acl.init()`，并在你的函数所在线程上指定了 Device 0，所以答案里不要调用 `acl.init()`（第二次调用会返回 100002
# `ACL_ERROR_REPEAT_INITIALIZE`），也不要调用 `sandbox.configure`；用到的资源由你的函数自己创建、自己释放。下面的
# 单元格里只有待补全的模板，写好代码之前结果都是 `✘`。
#
# ### 练习 05.1 · 两个 Device 先后执行
#
# *练习内容：* Stream 与 Event 的亲和性——哪些调用可以跨 Device；由 Host 给两个 Device 排定先后。
#
# 在 Device 0 上运行一次 `work`（第 3 节中 5 ms 的核函数），再在 Device 1 上运行一次，并保证 Device 1 的核函数在
# Device 0 的核函数结束之后才开始。评分标准：
#
# * `work` 在 Device 0 和 Device 1 上各下发恰好一次（各用本 Device 上一块 4 KiB 的缓冲区），没有其他核函数；
# * 没有失败的调用（第 4 节：让 Device 1 的 Stream 等待 Device 0 的 Event 会返回 107003
#   `ACL_ERROR_RT_STREAM_CONTEXT`）；
# * Device 1 的核函数在 Device 0 的核函数结束之后开始；
# * Host *确知*这一点：某次同步（或查询）在 Device 0 的核函数结束之后、在 Device 1 下发之前返回。固定等待一段时间
#   只是碰运气，不构成依赖关系。

# %%
import sandbox.teach                                                  # the grader

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
# ## Concept check
#
# Four questions; answer each with a letter. Every answer was shown by a cell above, and a wrong
# choice prints which mistake it stands for and where to look.

# %% [markdown] lang="zh"
# ## 概念检查
#
# 四道题，每题用一个字母作答。每道题的答案都由上面的某个单元格演示过；选错时会说明它对应哪种常见误解，以及该回看
# 哪里。

# %%
teach.questions("05.concepts")

# %% nbgrader={"grade": false, "grade_id": "concepts", "locked": false, "schema_version": 3, "solution": true, "task": false}
def concepts():
    """Your answers: {question number: letter}."""
    ### BEGIN SOLUTION
    return {1: "b", 2: "b", 3: "b", 4: "c"}
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "concepts_check", "locked": true, "points": 4, "schema_version": 3, "solution": false, "task": false}
teach.check("05.concepts", concepts)
### BEGIN HIDDEN TESTS
teach.check("05.concepts", concepts, isolated=True).score * 4
### END HIDDEN TESTS

# %% [markdown]
# ## Official samples for this topic
#
# [2_device_P2P.py](../examples/1_basic_features/device/2_device_P2P.py) (peer access and a
# device-to-device copy),
# [1_device_multi_thread.py](../examples/1_basic_features/device/1_device_multi_thread.py) (one
# thread per device and the device queries),
# [0_context_query.py](../examples/1_basic_features/context/0_context_query.py) (contexts and
# their default streams) and
# [0_device_normal.py](../examples/1_basic_features/device/0_device_normal.py) (one device's
# ordinary life: set it, a stream, a computation, synchronise, reset). Notebook
# [11_official_samples](11_official_samples.ipynb), section 8, walks through them.

# %% [markdown] lang="zh"
# ## 本专题的官方样例
#
# [2_device_P2P.py](../../examples/1_basic_features/device/2_device_P2P.py)（Device 间数据交互与跨 Device 复制）、
# [1_device_multi_thread.py](../../examples/1_basic_features/device/1_device_multi_thread.py)（每个 Device 一个线程，
# 以及 Device 查询）、
# [0_context_query.py](../../examples/1_basic_features/context/0_context_query.py)（Context 及其默认 Stream）和
# [0_device_normal.py](../../examples/1_basic_features/device/0_device_normal.py)（单个 Device 的常规流程：指定
# Device、创建 Stream、计算、同步、复位）。notebook [11_official_samples](11_official_samples.ipynb) 第 8 节逐一讲解。

# %% [markdown]
# ## Summary
#
# Devices are numbered from 0 and answer attribute queries without being current.
# `aclrtSetDevice` chooses the device of the calling thread only; `aclrtResetDevice` counts
# references while `aclrtResetDeviceForce` (the guide's recommendation) releases at once. Streams
# and events belong to their device: launches, copies, records and stream waits must not cross
# devices, while the host may synchronise on or query any device's event. Peer access is
# one-directional: one enable per direction. The optional deep dive
# [05x_peer_links](05x_peer_links.ipynb) measures the links and overlaps copies with compute;
# notebook 06 drives several devices from several host threads and processes.

# %% [markdown] lang="zh"
# ## 小结
#
# Device 从 0 开始编号，不必设为当前 Device 也能查询属性。`aclrtSetDevice` 只影响调用线程；`aclrtResetDevice` 按引用
# 计数释放，而 `aclrtResetDeviceForce`（编程指南推荐的做法）一次释放。Stream 和 Event 属于各自的 Device：下发、
# 异步复制、Event 记录和 Stream 等待都不能跨 Device，Host 却可以同步或查询任何 Device 的 Event。Device 间数据交互
# 是单向的：每个方向开启一次。选学的深入篇 [05x_peer_links](05x_peer_links.ipynb) 测量链路带宽，并让复制与计算
# 并行；notebook 06 用多个 Host 线程和进程驱动多个 Device。

# %% [markdown] lang="zh" translates="code"
# en: # an 8-device Atlas A2 server
# zh: # 一台 8 Device 的 Atlas A2 服务器
# en: print("devices:", count, "ret", ret, "| SoC:"
# zh: print("Device 数:", count, "ret", ret, "| SoC:"
# en: print("device 8 does not exist:"
# zh: print("Device 8 不存在:"
# en: print("worker:", seen)
# zh: print("工作线程:", seen)
# en: print("main thread still on:"
# zh: print("主线程仍在:"
# en: # 5 ms of device work that touches no buffer
# zh: # 5 ms 的 Device 任务，不访问任何缓冲区
# en: # 5 ms of device work
# zh: # 5 ms 的 Device 任务
# en: # two references
# zh: # 两个引用
# en: "| stream still usable:"
# zh: "| Stream 仍可用:"
# en: "| current device now:"
# zh: "| 现在的当前 Device:"
# en: # three references
# zh: # 三个引用
# en: # buf's last user has finished...
# zh: # buf 的最后一个使用者已结束……
# en: print("free before the reset:"
# zh: print("复位前释放:"
# en: # ...so release it first, as documented
# zh: # ……所以按文档先释放它
# en: # more work still queued when we reset
# zh: # 复位时仍在排队的任务
# en: "(waiting for the 5 ms kernel, then 5 ms of releasing)"
# zh: "（先等 5 ms 的核函数，再用 5 ms 释放）"
# en: print("the old stream is gone:"
# zh: print("旧 Stream 已不存在:"
# en: print("after the reset, allocate again:"
# zh: print("复位后重新申请:"
# en: # e0 will complete when device 0's kernel ends
# zh: # Device 0 的核函数结束时 e0 完成
# en: (s0 on dev 0)
# zh: （s0 属于 Device 0）
# en: print("e0 status:", "complete" if
# zh: print("e0 状态:", "已完成" if
# en: else "not yet")
# zh: else "未完成")
# en: print("topology bits 0-1:"
# zh: print("Device 0-1 拓扑位:"
# en: print("can 0 access 1?"
# zh: print("0 能否访问 1?"
# en: print("enable 0->1:"
# zh: print("开启 0->1:"
# en: print("enable 1->0:"
# zh: print("开启 1->0:"
# en: print("D2D copy 0->1:"
# zh: print("D2D 复制 0->1:"
# en: print("on device 1:"
# zh: print("Device 1 上:"
# en: print("disable 1->0:", acl.rt.device_disable_peer_access(0), "free:", acl.rt.free(dev1_mem),
# zh: print("关闭 1->0:", acl.rt.device_disable_peer_access(0), "释放:", acl.rt.free(dev1_mem),
# en: "reset 1:", acl.rt.reset_device(1))
# zh: "复位 1:", acl.rt.reset_device(1))
# en: print("disable 0->1:", acl.rt.device_disable_peer_access(1), "free:", acl.rt.free(dev0_mem),
# zh: print("关闭 0->1:", acl.rt.device_disable_peer_access(1), "释放:", acl.rt.free(dev0_mem),
# en: "force reset 0:"
# zh: "强制复位 0:"
# en: # opens 1 -> 0 only
# zh: # 只开启 1 -> 0
# en: # the grader
# zh: # 评分器
# en: """work on device 0, then work on device 1, ordered by the host."""
# zh: """先在 Device 0 上运行 work，再在 Device 1 上运行，由 Host 排定先后。"""
# en: # TODO: a stream, an event and a 4 KiB buffer on device 0; launch work there and record the
# zh: # TODO：在 Device 0 上创建一个 Stream、一个 Event 和一块 4 KiB 缓冲区；在那里下发 work 并记录
# en: # event; then switch to device 1 and launch work there only once device 0's kernel is done.
# zh: # Event；然后切换到 Device 1，等 Device 0 的核函数完成后才在 Device 1 上下发 work。
# en: # Hint: aclrtSynchronizeEvent works on another device's event; aclrtStreamWaitEvent does not.
# zh: # 提示：aclrtSynchronizeEvent 可以作用于其他 Device 的 Event，aclrtStreamWaitEvent 不行。
# en: # the host waits: allowed across devices
# zh: # Host 等待：允许跨 Device
# en: """Your answers: {question number: letter}."""
# zh: """你的答案：{题号: 字母}。"""
# keep: print("finalize:", acl.finalize())
# keep: print("P2P copy success")
# en: f"reset_device_force: {ret} after {
# zh: f"reset_device_force: {ret}，耗时 {
# en: print("reset 1:"
# zh: print("复位 1:"
# en: print("reset 2:"
# zh: print("复位 2:"
# en: print("reset 3:"
# zh: print("复位 3:"

# %% [markdown]
# # 09 · Errors: codes, messages, device faults, recovery and leaks
#
# **Time:** about 45 minutes · **Required** · **Assumes** notebooks 01 to 05.
#
# Things go wrong in three different places, and each has its own tool:
#
# | where it goes wrong | how you learn about it | C | Python |
# |---|---|---|---|
# | a call is misused (bad argument, wrong order) | the call's return code, at once | `aclError ret = aclrtMalloc(...)` | `ptr, ret = acl.rt.malloc(...)` |
# | … and why | the message of the thread's last failures | `aclGetRecentErrMsg()` | `acl.get_recent_err_msg()` |
# | … the thread's last error code | read and clear / read and keep | `aclrtGetLastError(ACL_RT_THREAD_LEVEL)` / `aclrtPeekAtLastError(...)` | `acl.rt.get_last_error()` / `acl.rt.peek_at_last_error()` |
# | a device task fails (a kernel traps, a DMA fails) | the **next synchronize** returns the code | `aclrtSynchronizeStream(stream)` | `acl.rt.synchronize_stream(stream)` |
# | what later tasks do after a failure | the stream's failure mode | `aclrtSetStreamFailureMode(stream, ACL_STOP_ON_FAILURE)` | `acl.rt.set_stream_failure_mode(stream, acl.ACL_STOP_ON_FAILURE)` |
# | something was never released | the leak report at `aclFinalize` | — | `sandbox.leak_report()` |
#
# The leak report is the sandbox's own aid: the real runtime does not list what a program forgot.
#
# **After this notebook** you can read a failing call's code and message, tell a misused call
# from a device fault, choose a stream's failure mode, recover from a stopped context by
# releasing, resetting and starting again, and read the leak report.

# %% [markdown] lang="zh"
# # 09 · 错误：错误码、错误信息、Device 故障、恢复与资源泄漏
#
# **时间**：约 45 分钟 · **必修** · **前提**：notebook 01 到 05。
#
# 出错的地方分三处，各有各的工具：
#
# | 哪里出错 | 怎么知道 | C | Python |
# |---|---|---|---|
# | 接口用错了（参数不对、调用顺序不对） | 接口的返回码，当场就有 | `aclError ret = aclrtMalloc(...)` | `ptr, ret = acl.rt.malloc(...)` |
# | ……错在哪里 | 本线程最近几次失败的错误信息 | `aclGetRecentErrMsg()` | `acl.get_recent_err_msg()` |
# | ……本线程最近的错误码 | 读取后清除 / 读取但保留 | `aclrtGetLastError(ACL_RT_THREAD_LEVEL)` / `aclrtPeekAtLastError(...)` | `acl.rt.get_last_error()` / `acl.rt.peek_at_last_error()` |
# | Device（设备）上的任务失败（核函数异常、DMA 出错） | **下一次同步**返回错误码 | `aclrtSynchronizeStream(stream)` | `acl.rt.synchronize_stream(stream)` |
# | 失败之后，后面的任务怎么办 | Stream（流）的任务调度模式 | `aclrtSetStreamFailureMode(stream, ACL_STOP_ON_FAILURE)` | `acl.rt.set_stream_failure_mode(stream, acl.ACL_STOP_ON_FAILURE)` |
# | 有资源一直没释放 | `aclFinalize` 时的泄漏报告 | — | `sandbox.leak_report()` |
#
# 泄漏报告是沙箱自己提供的调试手段（notebook 09b 的隐患报告和导出的 trace 也是）：真实的运行时不会列出程序忘了释放什么。
#
# **学完本 notebook**，你能读懂失败接口的错误码和错误信息，分清“接口用错”与“Device 故障”，为 Stream 选择任务调度模式，
# 在 Context（上下文）停止后通过“释放、复位、重新开始”恢复，并读懂泄漏报告。

# %% lang="zh"
import sandbox

sandbox.set_language("zh")          # 中文版：评分反馈使用中文

# %%
import json
import os
import tempfile
import threading
import warnings

import numpy as np

import sandbox
from sandbox import acl, teach

H2D, D2H = acl.ACL_MEMCPY_HOST_TO_DEVICE, acl.ACL_MEMCPY_DEVICE_TO_HOST
D2D = acl.ACL_MEMCPY_DEVICE_TO_DEVICE
HUGE = acl.ACL_MEM_MALLOC_HUGE_FIRST
N = 256 * 1024                      # float32 elements per buffer
NB = 4 * N                          # 1 MiB


def name(code):
    """The C name of a return code (AclError knows every code of the runtime's headers)."""
    return sandbox.AclError(code, "").name


@sandbox.kernel(bytes=lambda x, y, n: 8 * n, flops=lambda x, y, n: 2 * n, writes=("y",))
def scale(x: "float32*", y: "float32*", n: int):
    y[:n] = 2 * x[:n]


print("ACL_SUCCESS =", acl.ACL_SUCCESS, "| ACL_ERROR_INVALID_PARAM =", acl.ACL_ERROR_INVALID_PARAM,
      "| ACL_ERROR_RT_AICORE_EXCEPTION =", acl.ACL_ERROR_RT_AICORE_EXCEPTION)

# %% [markdown]
# ## 1 · Return codes
#
# Every call returns `ACL_SUCCESS` (0) or an error code; calls that produce a value return a
# tuple with the code last. Codes come in families (the API reference's return-code list,
# *aclError*, `docs/zh/api_ref/25-01_aclError.md` in the CANN runtime repository): `1xxxxx` the
# caller's mistake (bad parameter, not initialised), `2xxxxx` resources or a feature this
# hardware lacks, `3xxxxx` business errors (a queue full or empty), `5xxxxx` the device or the
# runtime itself (a kernel fault, a DMA error). Here we print the codes.

# %% [markdown] lang="zh"
# ## 1 · 返回码
#
# 每个接口都返回 `ACL_SUCCESS`（0）或一个错误码；有输出的接口返回一个元组，错误码放在最后。返回码按定义规则分几段
# （API 参考“aclError 返回码列表”，CANN runtime 仓库 `docs/zh/api_ref/25-01_aclError.md`）：`1XXXXX` 是开发者的环境或代码逻辑
# 错误（参数不对、未初始化），`2XXXXX` 是资源不足或接口与当前硬件不匹配，`3XXXXX` 是业务功能异常（队列满、队列空），`5XXXXX`
# 是软硬件内部异常（核函数执行异常、DMA 出错）。这里直接打印错误码。

# %%
sandbox.configure("ascend910b", device_count=2)
print("set_device before init:", (r := acl.rt.set_device(0)), name(r))
print("init:", acl.init())
print("set_device(0):", acl.rt.set_device(0))
print("set_device(7) on a 2-device machine:", (r := acl.rt.set_device(7)), name(r))
ptr, ret = acl.rt.malloc(0, HUGE)
print("malloc(0):", (ptr, ret), name(ret))
print("synchronize a stream that does not exist:", (r := acl.rt.synchronize_stream(12345)), name(r))

# %% [markdown]
# ## 2 · The messages: newest first, then cleared
#
# A code says *what* class of thing failed; `aclGetRecentErrMsg` says *why*. It returns the
# messages of the calling thread's failures since it was last called, **newest first**, and
# clears them: a second call returns nothing. The messages belong to the thread: the cell
# first makes a call fail on another thread (`aclrtSetDevice(9)`), and its message is not among
# the main thread's.

# %% [markdown] lang="zh"
# ## 2 · 错误信息：最新的在前，读后清空
#
# 错误码说明*哪一类*出了错；`aclGetRecentErrMsg` 说明*为什么*。它返回本线程自上次调用以来各次失败的错误信息，**最新的在前**，
# 并随即清空：第二次调用什么也拿不到。错误信息按线程保存：下面的单元格先在另一个线程里让一次调用失败（`aclrtSetDevice(9)`），
# 主线程的错误信息里没有它。

# %%
worker = threading.Thread(target=lambda: acl.rt.set_device(9))       # fails on another thread
worker.start()
worker.join()
print(acl.get_recent_err_msg())
print("--- and again:", repr(acl.get_recent_err_msg()))

# %% [markdown]
# ## 3 · The last error: get clears, peek keeps
#
# `aclrtGetLastError` returns the thread's most recent error code and resets it to 0;
# `aclrtPeekAtLastError` returns it and leaves it in place. A library can peek without taking
# the error away from the code that will handle it.

# %% [markdown] lang="zh"
# ## 3 · 最近的错误码：get 清除，peek 保留
#
# `aclrtGetLastError` 返回本线程最近的错误码，并把它清为 0；`aclrtPeekAtLastError` 只读不清。库代码可以先 peek 一眼，
# 不把错误从真正要处理它的代码那里拿走。

# %%
acl.rt.destroy_stream(0)     # the default stream cannot be destroyed
print("peek:", acl.rt.peek_at_last_error(0), "| peek:", acl.rt.peek_at_last_error(0),
      "| get:", acl.rt.get_last_error(0), "| get:", acl.rt.get_last_error(0))
_ = acl.get_recent_err_msg()

# %% [markdown]
# ## 4 · Exceptions instead of codes
#
# Forgetting one check is how errors go unnoticed. `sandbox.raise_on_error(True)` makes every
# failing call raise `sandbox.AclError` with the code, its C name and the message (a sandbox
# convenience: pyACL returns codes only).

# %% [markdown] lang="zh"
# ## 4 · 用异常代替错误码
#
# C 和 pyACL 都要求逐个检查错误码，而漏掉一次检查，错误就悄悄溜过去了。`sandbox.raise_on_error(True)` 让每个失败的接口
# 抛出 `sandbox.AclError`，其中带有错误码、它在 C 中的名字和错误信息（这是沙箱提供的便利：pyACL 只返回错误码）。

# %%
sandbox.raise_on_error(True)
try:
    acl.rt.malloc(0, HUGE)
except sandbox.AclError as exc:
    print("caught:", exc.code, exc.name)
    print("message:", exc.message)
sandbox.raise_on_error(False)
_ = acl.get_recent_err_msg()

# %% [markdown]
# ## 5 · Asynchronous device errors surface at the next synchronize
#
# Here a kernel reads past the end of its input: a bug in the kernel, which the device reports
# as `507015 ACL_ERROR_RT_AICORE_EXCEPTION`.
#
# **Predict, then run.** The cell launches the kernel, synchronizes the stream, then
# synchronizes it again. Which of the three calls returns 507015, and what do the other two
# return?

# %% [markdown] lang="zh"
# ## 5 · 异步的 Device 错误在下一次同步时才暴露
#
# 这里的核函数读越了输入的末尾：这是核函数自己的 bug，Device 把它报告为 `507015 ACL_ERROR_RT_AICORE_EXCEPTION`。
#
# **先预测，再运行。** 下面的单元格先下发核函数，再同步 Stream，然后再同步一次。三个调用中哪一个返回 507015？另外两个返回什么？

# %%
@sandbox.kernel(bytes=lambda x, idx, y, n: 12 * n, writes=("y",))
def gather(x: "float32*", idx: "int32*", y: "float32*", n: int):
    y[:n] = x[idx[:n]]             # an index past the end of x is a device fault


sandbox.configure("ascend910b", device_count=2)
acl.init()
acl.rt.set_device(0)
s, _ = acl.rt.create_stream()
x, _ = acl.rt.malloc(NB, HUGE)
y, _ = acl.rt.malloc(NB, HUGE)
idx, _ = acl.rt.malloc(NB, HUGE)
host, _ = acl.rt.malloc_host(NB)
acl.util.ptr_to_numpy(host, (N,), np.int32)[:] = np.arange(N) * 1000     # far past the end
acl.rt.memcpy(idx, NB, host, NB, H2D)

print("launch:", gather[8, s](x, idx, y, N), "(queued, nothing has run yet)")
ret = acl.rt.synchronize_stream(s)
print("synchronize:", ret, name(ret))
print(acl.get_recent_err_msg())
print("synchronize again:", acl.rt.synchronize_stream(s), "(an error is reported once)")

# %% [markdown]
# The launch returned 0: it only *queues* the kernel, which had not run yet. The fault happened
# later, on the device, and the first `aclrtSynchronizeStream` of that stream (or an
# `aclrtSynchronizeDevice`) returned it; the second returned 0: the sandbox reports an error
# once (its choice: the documentation does not say whether a later synchronize repeats it). A
# program that never checks its synchronize never learns of the fault.
#
# To practise handling errors that a correct program can still meet — hardware faults —
# `sandbox.inject_fault(kind, ...)` makes coming device tasks fail with the runtime's codes:
#
# | kind | what fails | code |
# |---|---|---|
# | `"kernel_trap"` | the next kernel traps on the AI Core | 507016 `ACL_ERROR_RT_AICORE_TRAP_EXCEPTION` |
# | `"dma_error"` | the next copy or memset on the device's DMA engines | 507013 `ACL_ERROR_RT_SYS_DMA` |
# | `"link_down"` | every peer copy between two devices, until `sandbox.clear_faults()` | 507056 `ACL_ERROR_RT_LINK_ERROR` |
#
# The codes and their meanings are the aclError list's; which kind gives which code is the
# sandbox's choice. The failed task takes its usual time but its data effect does not happen.
# A blocking copy (`aclrtMemcpy`) waits for its own task, so it returns the DMA error itself.

# %% [markdown] lang="zh"
# 下发返回了 0：它只是把核函数*放进队列*，核函数那时还没运行。故障是后来在 Device 上发生的，由该 Stream 的第一次
# `aclrtSynchronizeStream`（或一次 `aclrtSynchronizeDevice`）返回；第二次同步返回 0：沙箱对一个错误只报告一次（沙箱的选择：
# 文档没有说明之后的同步是否会再次返回它）。从不检查同步返回值的程序，永远不会知道发生过故障。
#
# 正确的程序也可能遇到硬件故障。为了练习处理它们，`sandbox.inject_fault(kind, ...)` 让接下来的 Device 任务以运行时的错误码失败：
#
# | kind | 什么失败 | 错误码 |
# |---|---|---|
# | `"kernel_trap"` | 下一个核函数在 AI Core 上触发 trap 异常 | 507016 `ACL_ERROR_RT_AICORE_TRAP_EXCEPTION` |
# | `"dma_error"` | 该 Device 的 DMA 引擎上的下一次拷贝或 memset | 507013 `ACL_ERROR_RT_SYS_DMA` |
# | `"link_down"` | 两个 Device 之间的每次 Device 间拷贝，直到 `sandbox.clear_faults()` | 507056 `ACL_ERROR_RT_LINK_ERROR` |
#
# 错误码及其含义见“aclError 返回码列表”；哪种注入对应哪个错误码是沙箱的选择。失败的任务照常占用时间，但不产生数据效果。
# 阻塞拷贝（`aclrtMemcpy`）要等它自己的任务完成，所以它本身就返回 DMA 错误。

# %%
results = []


def attempt(what, submit, sync=True):
    ret = submit()
    if sync:
        ret = acl.rt.synchronize_stream(s)
    results.append((what, ret))


sandbox.inject_fault("kernel_trap", device=0)
attempt("kernel after a kernel_trap", lambda: scale[8, s](x, y, N))
sandbox.inject_fault("dma_error", device=0)
attempt("async copy after a dma_error", lambda: acl.rt.memcpy_async(x, NB, host, NB, H2D, s))
sandbox.inject_fault("dma_error", device=0)
attempt("blocking copy after a dma_error", lambda: acl.rt.memcpy(x, NB, host, NB, H2D), sync=False)

acl.rt.set_device(1)
far, _ = acl.rt.malloc(NB, HUGE)
acl.rt.set_device(0)
acl.rt.device_enable_peer_access(1, 0)
sandbox.inject_fault("link_down", device=0, peer=1)
attempt("peer copy 0 -> 1, link down", lambda: acl.rt.memcpy_async(far, NB, x, NB, D2D, s))
attempt("kernel on device 0, link still down", lambda: scale[8, s](x, y, N))
sandbox.clear_faults()
attempt("peer copy 0 -> 1, link up again", lambda: acl.rt.memcpy_async(far, NB, x, NB, D2D, s))

for what, ret in results:
    print(f"{what:<38} -> {ret:>6} {name(ret)}")
print()
print(acl.get_recent_err_msg())
for p in (x, y, idx, far):
    acl.rt.free(p)
acl.rt.free_host(host)
acl.rt.destroy_stream(s)
acl.rt.reset_device(0)
acl.rt.reset_device(1)
acl.finalize()

# %% [markdown]
# The last message above is the first failure (newest first). Each names the task, its
# stream and device: enough to find it in the Gantt chart or the trace.

# %% [markdown] lang="zh"
# 上面最后一条信息是第一次失败（最新的在前）。每条都写明了任务、它所在的 Stream 和 Device：凭这些就能在甘特图或 trace 中找到它。

# %% [markdown]
# ## 6 · Failure modes: what happens to the tasks after a failure
#
# `aclrtSetStreamFailureMode(stream, mode)` chooses, once per stream:
#
# * `ACL_CONTINUE_ON_FAILURE` (the default): the failed task is skipped, **later tasks run**;
#   the synchronize reports an error (if several fail before it, the latest);
# * `ACL_STOP_ON_FAILURE`: after a failed task the later tasks do not run and no new task may
#   be submitted; and once one stream of a context stops on failure, so do the context's other
#   streams. The API reference states this for every product that has the call
#   (*aclrtSetStreamFailureMode*, `docs/zh/api_ref/06_stream_management.md`; also the FAQ
#   `docs/zh/FAQ/遇错即停模式下错误定位方法.md`). The docs give no code for a submission after
#   the stop: the sandbox refuses it with the failure's code (the sandbox's choice).
#
# The same program runs in both modes: three batches, each an H2D copy, a kernel and a D2H
# copy, on two streams (batches 0 and 2 on the first, batch 1 on the second); only the first
# stream's mode is set, and the kernel of batch 1 traps.
#
# **Predict, then run.** Under stop-on-failure, which of the three batches arrive on the host?
# (Batch 1's stream was never set to stop.)

# %% [markdown] lang="zh"
# ## 6 · 任务调度模式：失败之后的任务会怎样
#
# `aclrtSetStreamFailureMode(stream, mode)` 为一条 Stream 选择模式，每条 Stream 只能设置一次：
#
# * `ACL_CONTINUE_ON_FAILURE`（默认，遇错继续）：失败的任务被跳过，**后续任务照常执行**；同步返回一个错误（之前有多个失败时，返回最近的那个）；
# * `ACL_STOP_ON_FAILURE`（遇错即停）：某个任务失败后，后续任务不再执行，也不能再下发新任务。这个模式作用于整个 Context：
#   Context 中一条 Stream 设置了遇错即停，同一 Context 下的其他 Stream 也是遇错即停。API 参考对所有支持该接口的产品都这样写
#   （`docs/zh/api_ref/06_stream_management.md` 中的 aclrtSetStreamFailureMode），FAQ《遇错即停模式下错误定位方法》
#   （`docs/zh/FAQ/`）也说明首个错误发生时，Context 中所有 Stream 的任务都会停止。停止之后再下发任务，文档没有给出错误码；
#   沙箱以那次失败的错误码拒绝它（沙箱的选择），直到复位 Device。
#
# 同一个程序分别用两种模式运行：三个批次，每个批次是一次 H2D 拷贝、一个核函数和一次 D2H 拷贝，分在两条 Stream 上（批次 0 和 2
# 在第一条上，批次 1 在第二条上）；只给第一条 Stream 设置模式，批次 1 的核函数触发 trap。
#
# **先预测，再运行。** 遇错即停时，三个批次中哪几个的结果能回到 Host？（批次 1 所在的 Stream 从未设置为遇错即停。）

# %%
def three_batches(mode):
    sandbox.configure("ascend910b", device_count=1)
    acl.init()
    acl.rt.set_device(0)
    streams = [acl.rt.create_stream()[0] for _ in range(2)]
    acl.rt.set_stream_failure_mode(streams[0], mode)
    hin, _ = acl.rt.malloc_host(3 * NB)
    hout, _ = acl.rt.malloc_host(3 * NB)
    acl.util.ptr_to_numpy(hin, (3, N), np.float32)[:] = 1.0
    bufs = [(acl.rt.malloc(NB, HUGE)[0], acl.rt.malloc(NB, HUGE)[0]) for _ in range(3)]
    sandbox.inject_fault("kernel_trap", device=0, after=1)     # the second kernel traps
    for b, (dx, dy) in enumerate(bufs):
        st = streams[b % 2]
        acl.rt.memcpy_async(dx, NB, hin + b * NB, NB, H2D, st)
        scale[8, st](dx, dy, N)
        acl.rt.memcpy_async(hout + b * NB, NB, dy, NB, D2H, st)
    rets = [acl.rt.synchronize_stream(st) for st in streams]
    out = acl.util.ptr_to_numpy(hout, (3, N), np.float32)
    print("synchronize each stream:", [f"{r} {name(r)}" for r in rets])
    print("batch results (first element, 2.0 if it ran):", [float(out[b, 0]) for b in range(3)])
    return streams, bufs, (hin, hout)


print("== ACL_CONTINUE_ON_FAILURE")
_ = three_batches(acl.ACL_CONTINUE_ON_FAILURE)
print(sandbox.queues())
print()
print("== ACL_STOP_ON_FAILURE")
streams, bufs, hosts = three_batches(acl.ACL_STOP_ON_FAILURE)
print(sandbox.queues())

# %% [markdown]
# With continue-on-failure only batch 1 is lost: batches 0 and 2 arrived. With
# stop-on-failure nothing arrived, although the failing kernel was on the stream whose mode
# was never set: the tasks still queued on the *other* stream when batch 1's kernel trapped —
# batch 0's copy back and all of batch 2 — were discarded (they "finished" with the error code
# without running; the queue panel counts them as failed). And the context now refuses new
# work, as the next cell shows first.

# %% [markdown] lang="zh"
# 遇错继续时只丢了批次 1：批次 0 和 2 都回来了。遇错即停时一个都没回来，尽管出错的核函数所在的 Stream 从没设置过模式：
# 批次 1 的核函数触发 trap 时还在*另一条* Stream 上排队的任务——批次 0 的拷回和整个批次 2——都被丢弃了（它们没有执行，
# 直接带着错误码“结束”；队列面板把它们算作失败）。而且这个 Context 现在不再接受新任务，下一个单元格先演示这一点。

# %% [markdown]
# ### Recovering: reset the device
#
# The way out is to reset the device and set it again. A reset releases the default context,
# its default stream and every stream created in it, and the API reference's order is: events,
# then streams, then contexts, then `aclrtResetDevice` (*aclrtResetDevice*,
# `docs/zh/api_ref/04_device_management.md`). Free memory first too: a pointer from before the
# reset must not be used after it (undefined on hardware, with no documented code; the sandbox
# reports it as a `HazardWarning`, `use_after_reset`, its choice). So recovery frees, resets,
# sets the device, allocates and uploads anew, then redoes the work. The inputs are kept in
# numpy before the pinned buffer is freed.

# %% [markdown] lang="zh"
# ### 恢复：复位 Device
#
# 出路是复位 Device（`aclrtResetDevice`）再重新设置它。API 参考（`docs/zh/api_ref/04_device_management.md` 中的 aclrtResetDevice）
# 写明了复位释放什么：默认 Context、默认 Stream，以及默认 Context 下创建的所有 Stream；也给出了复位前释放显式创建资源的顺序：
# 先 Event（事件），再 Stream，再 Context，最后 `aclrtResetDevice`。内存也要在复位前释放：完全复位之前拿到的指针，复位之后不能再用。
# 在硬件上这是未定义行为，文档也没有给出错误码，所以沙箱在它第一次被使用时报告一个 `HazardWarning`（`use_after_reset`）并继续运行
# （沙箱的选择）。因此恢复的步骤是：释放手上的一切，复位，重新设置 Device，申请新的缓冲区，重新上传输入，再重做失败的工作。
# 输入还在 Host（主机）上：释放锁页缓冲区之前，我们先在 numpy 里留了一份副本。

# %%
ret = acl.rt.memcpy_async(bufs[0][0], NB, hosts[0], NB, H2D, streams[1])
print("a new copy:", ret, name(ret))
print(acl.get_recent_err_msg())
print()
hin, hout = hosts
inputs = acl.util.ptr_to_numpy(hin, (3, N), np.float32).copy()      # what the batches need again
for dx, dy in bufs:
    acl.rt.free(dx)
    acl.rt.free(dy)
acl.rt.free_host(hin)
acl.rt.free_host(hout)
for st in streams:
    acl.rt.destroy_stream(st)
print("reset_device:", acl.rt.reset_device(0))
print("set_device:", acl.rt.set_device(0))
st, _ = acl.rt.create_stream()
hin, _ = acl.rt.malloc_host(3 * NB)                                  # everything allocated anew
hout, _ = acl.rt.malloc_host(3 * NB)
hosts = (hin, hout)
acl.util.ptr_to_numpy(hin, (3, N), np.float32)[:] = inputs
bufs = [(acl.rt.malloc(NB, HUGE)[0], acl.rt.malloc(NB, HUGE)[0]) for _ in range(3)]
for b in range(3):                  # redo the batches that failed or were discarded
    dx, dy = bufs[b]
    acl.rt.memcpy_async(dx, NB, hin + b * NB, NB, H2D, st)
    scale[8, st](dx, dy, N)
    acl.rt.memcpy_async(hout + b * NB, NB, dy, NB, D2H, st)
print("synchronize:", acl.rt.synchronize_stream(st))
out = acl.util.ptr_to_numpy(hout, (3, N), np.float32)
print("batch results now:", [float(out[b, 0]) for b in range(3)])

# %% [markdown]
# ## 7 · The leak report at finalize
#
# `aclFinalize` releases what the process still holds, but a service that never finalizes piles
# up what it forgets to free. The sandbox lists what is left:
# `sandbox.leak_report()` at any time, and a `LeakWarning` (plus a record in the trace) at
# `aclFinalize` if the list is not empty. We have freed nothing since the recovery. The report
# groups the leftovers and names the call that releases each kind; we then release half of it
# and let `aclFinalize` report the rest (the warning is caught and printed here, as it would
# appear under the cell):

# %% [markdown] lang="zh"
# ## 7 · aclFinalize 时的泄漏报告
#
# `aclFinalize` 会释放进程还持有的资源——可是长期运行的服务从不去初始化，忘了释放的东西就越积越多。沙箱会列出剩下的资源：
# 随时可以调用 `sandbox.leak_report()`；列表不为空时，`aclFinalize` 还会给出一个 `LeakWarning`（并在 trace 中记一条）。
# 恢复之后我们什么都还没释放。报告把剩下的资源分组，并写出释放每一类要调用的接口；接着我们释放其中一半，其余的留给
# `aclFinalize` 报告（这里把警告捕获下来打印，和它出现在单元格下方时一样）：

# %%
report = sandbox.leak_report()
print(report)
print("items:", len(report))
print()
for dx, dy in bufs:
    acl.rt.free(dx)
    acl.rt.free(dy)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print("finalize:", acl.finalize())
for w in caught:
    print(f"{w.category.__name__}: {w.message}")
print(teach.check_no_leaks())

# %% [markdown]
# ## Exercise
#
# `sandbox.teach.check("09.1", solution)` runs **your** function on a fresh simulated 910B with
# new inputs each time and judges the whole run from the trace. The grader opens the board:
# `acl.init()` has run and device 0 is set (do not call `sandbox.configure`).
#
# ### Exercise 09.1 · survive a device fault
#
# *Practises:* checking the code a synchronize returns, and recovering from a stopped context:
# release, reset, set the device again, allocate, upload and redo.
#
# The grader hands you `stream`, already in `ACL_STOP_ON_FAILURE` mode, and arms a kernel trap
# (`sandbox.inject_fault("kernel_trap", ...)`) on **one** of the four batches; which one
# depends on the inputs. Write `solution(x, stream)` for the four batches `x[b]` (float32, `N`
# each) that
#
# * runs each batch as `batch()` does (copy in, one `scale`, copy out), synchronises and
#   **checks the code**;
# * on an error: prints `acl.get_recent_err_msg()`; frees every buffer (device and pinned host)
#   and destroys the stream **before** `acl.rt.reset_device(0)`; sets the device again, creates
#   a stream, allocates new buffers, uploads the inputs again and redoes every batch whose
#   result did not arrive (or simply all of them);
# * returns the four results, shape `(4, N)`, then releases everything and calls
#   `acl.finalize()`.
#
# Graded (this exercise allows failed calls, and judges them itself):
#
# * the trap's code, 507016 `ACL_ERROR_RT_AICORE_TRAP_EXCEPTION`, was returned to the program by
#   a synchronize, and **no other call failed** (work that the stopped context refused while
#   you were still queueing, before that synchronize, is part of the fault);
# * an `aclrtResetDevice` after it, the device set again and the batches redone;
# * every buffer, stream and event from before was released **before** the reset;
# * the four results right (`2 * x`), computed by kernels and copied back from the device;
# * the leak report at `aclFinalize` empty.

# %% [markdown] lang="zh"
# ## 练习
#
# `sandbox.teach.check("09.1", solution)` 在一台全新的模拟 910B 上运行**你的**函数，每次输入都不同，并根据 trace 评判整次运行。
# 评分器会替你打开板卡：已经调用 `acl.init()`，已经设置 Device 0（不要调用 `sandbox.configure`）。
#
# ### 练习 09.1 · 从 Device 故障中恢复
#
# *练习内容：* 检查同步返回的错误码；Context 停止后恢复：释放、复位、重新设置 Device、申请、上传、重做。
#
# 评分器交给你的 `stream` 已处于 `ACL_STOP_ON_FAILURE`（遇错即停）模式，并在四个批次中的**某一个**上埋了核函数 trap
# （`sandbox.inject_fault("kernel_trap", ...)`）；埋在哪一个取决于输入。为四个批次 `x[b]`（float32，各 `N` 个元素）写出
# `solution(x, stream)`，要求：
#
# * 像 `batch()` 那样运行每个批次（拷入、一次 `scale`、拷出），同步并**检查错误码**；
# * 出错时：打印 `acl.get_recent_err_msg()`；在 `acl.rt.reset_device(0)` **之前**释放所有缓冲区（Device 内存和锁页 Host 内存）
#   并销毁 Stream；然后重新设置 Device，创建 Stream，申请新的缓冲区，重新上传输入，重做结果没回来的批次（全部重做也可以）；
# * 返回四个结果，形状 `(4, N)`，返回前释放一切并调用 `acl.finalize()`。
#
# 评判内容（本练习允许接口失败，由它自己评判）：
#
# * trap 的错误码 507016 `ACL_ERROR_RT_AICORE_TRAP_EXCEPTION` 由一次同步返回给了程序，且**没有别的接口失败**（那次同步之前、
#   你还在下发任务时被停止的 Context 拒绝的任务，算作这次故障的一部分）；
# * 此后有一次 `aclrtResetDevice`，Device 被重新设置，各批次被重做；
# * 此前的所有缓冲区、Stream 和 Event 都在复位**之前**释放；
# * 四个结果正确（`2 * x`），由核函数计算并从 Device 拷回；
# * `aclFinalize` 时泄漏报告为空。

# %%
BATCHES = 4


def batch(b, hin, hout, dx, dy, st):
    """Batch b: copy x[b] in from hin, scale it into dy, copy it out to hout."""
    acl.rt.memcpy_async(dx, NB, hin + b * NB, NB, H2D, st)
    scale[8, st](dx, dy, N)
    acl.rt.memcpy_async(hout + b * NB, NB, dy, NB, D2H, st)


def ignores_errors(x, stream):
    """Runs the batches and never looks at the code of its synchronize."""
    hin, _ = acl.rt.malloc_host(BATCHES * NB)
    hout, _ = acl.rt.malloc_host(BATCHES * NB)
    acl.util.ptr_to_numpy(hin, (BATCHES, N), np.float32)[:] = x
    dx, _ = acl.rt.malloc(NB, HUGE)
    dy, _ = acl.rt.malloc(NB, HUGE)
    for b in range(BATCHES):
        batch(b, hin, hout, dx, dy, stream)
    acl.rt.synchronize_stream(stream)
    return acl.util.ptr_to_numpy(hout, (BATCHES, N), np.float32).copy()


print(sandbox.teach.check("09.1", ignores_errors))

# %% [markdown]
# The fault was reported, but nobody listened: batches were lost, no reset, nothing released.

# %% [markdown] lang="zh"
# 故障报告了，却没人理会：触发 trap 的批次和它之后的每个批次（被遇错即停丢弃）都没有回来，没有复位，也什么都没释放。

# %% nbgrader={"grade": false, "grade_id": "ex09_1", "locked": false, "schema_version": 3, "solution": true, "task": false}
def solution(x, stream):
    """Return 2 * x (float32, shape (BATCHES, N)), recovering from the device fault on the way."""
    # TODO: allocate, upload, run the batches on stream, synchronise and check the code. On an
    # error: free everything, destroy the stream, reset device 0, set it again, create a stream,
    # allocate and upload again, redo the batches, synchronise. Keep the results, release
    # everything, acl.finalize(), return.
    # Hint: a helper that allocates and uploads, used before and after the reset, keeps it short.
    ### BEGIN SOLUTION
    def start(st):
        hin, _ = acl.rt.malloc_host(BATCHES * NB)
        hout, _ = acl.rt.malloc_host(BATCHES * NB)
        acl.util.ptr_to_numpy(hin, (BATCHES, N), np.float32)[:] = x
        dx, _ = acl.rt.malloc(NB, HUGE)
        dy, _ = acl.rt.malloc(NB, HUGE)
        for b in range(BATCHES):
            batch(b, hin, hout, dx, dy, st)
        return hin, hout, dx, dy, acl.rt.synchronize_stream(st)

    def release(hin, hout, dx, dy, st):
        acl.rt.free(dx)
        acl.rt.free(dy)
        acl.rt.free_host(hin)
        acl.rt.free_host(hout)
        acl.rt.destroy_stream(st)

    st = stream
    hin, hout, dx, dy, ret = start(st)
    if ret != acl.ACL_SUCCESS:
        print("synchronize:", ret, name(ret))
        print(acl.get_recent_err_msg())
        release(hin, hout, dx, dy, st)
        acl.rt.reset_device(0)
        acl.rt.set_device(0)
        st, _ = acl.rt.create_stream()
        hin, hout, dx, dy, ret = start(st)         # which batches arrived matters not: redo all
        print("after recovery:", ret, name(ret))
    out = acl.util.ptr_to_numpy(hout, (BATCHES, N), np.float32).copy()
    release(hin, hout, dx, dy, st)
    acl.rt.reset_device(0)
    acl.finalize()
    return out
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "ex09_1_check", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
### BEGIN HIDDEN TESTS
assert (grade := sandbox.teach.check("09.1", solution, isolated=True)).passed, str(grade)
### END HIDDEN TESTS
sandbox.teach.check("09.1", solution)

# %% [markdown]
# ## Concept check
#
# Four questions; each wrong choice is a mistake programs really make, and the check says which
# cell shows the right answer.

# %% [markdown] lang="zh"
# ## 概念检查
#
# 四道题；每个错误选项都是程序里真实会犯的错，评判结果会指出哪个单元格给出了正确答案。

# %%
teach.questions("09.concepts")

# %% nbgrader={"grade": false, "grade_id": "concepts", "locked": false, "schema_version": 3, "solution": true, "task": false}
def concepts():
    """Your answers: {question number: letter}."""
    ### BEGIN SOLUTION
    return {1: "b", 2: "c", 3: "a", 4: "c"}
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "concepts_check", "locked": true, "points": 4, "schema_version": 3, "solution": false, "task": false}
teach.check("09.concepts", concepts)
### BEGIN HIDDEN TESTS
teach.check("09.concepts", concepts, isolated=True).score * 4
### END HIDDEN TESTS

# %% [markdown]
# ## Official samples for this topic
#
# [1_error_handling.py](../examples/0_quickstart/1_error_handling.py) (codes, last error, message),
# [2_callback_exception.py](../examples/2_advanced_features/callback/2_callback_exception.py) (a
# fault seen by the exception callback),
# [1_stream_with_failure_mode.py](../examples/1_basic_features/stream/1_stream_with_failure_mode.py)
# (a trapping kernel under both modes, then aclrtStreamStop and aclrtStreamAbort),
# [0_overflow_detection.py](../examples/4_reliability/overflow_detection/0_overflow_detection.py)
# (saturation mode and overflow status). Notebook [11_official_samples](11_official_samples.ipynb),
# sections 2 and 4.

# %% [markdown] lang="zh"
# ## 本专题的官方示例
#
# [1_error_handling.py](../../examples/0_quickstart/1_error_handling.py)（错误码、最近的错误、错误信息）、
# [2_callback_exception.py](../../examples/2_advanced_features/callback/2_callback_exception.py)（异常回调看到的故障）、
# [1_stream_with_failure_mode.py](../../examples/1_basic_features/stream/1_stream_with_failure_mode.py)（触发 trap 的核函数
# 分别在两种模式下运行，然后是 aclrtStreamStop 和 aclrtStreamAbort）、
# [0_overflow_detection.py](../../examples/4_reliability/overflow_detection/0_overflow_detection.py)（饱和模式与溢出状态）。
# notebook [11_official_samples](11_official_samples.ipynb) 第 2、4 节。

# %% [markdown]
# ## Summary
#
# A misused call says so at once, in its return code and in `aclGetRecentErrMsg`; a device
# fault says so at the next synchronize. Under stop-on-failure a fault stops the context
# until the device is reset, and recovery releases everything first, then resets, sets the
# device again and allocates and uploads anew. The leak report finds what was never released.
# Next, notebook 09b: hazard reports, which find races a lucky schedule hid, and the exported
# trace, which shows where the time went.

# %% [markdown] lang="zh"
# ## 小结
#
# 接口用错，当场就从返回码和 `aclGetRecentErrMsg` 得知；Device 故障在下一次同步时报告。遇错即停时，一次故障会让
# 整个 Context 停下，直到复位 Device；恢复时先释放一切，再复位、重新设置 Device，然后重新申请、重新上传。泄漏报告找出从未释放的资源。
# 下一个是 notebook 09b：隐患报告能找出被幸运的调度掩盖的问题，导出的 trace 则显示时间花在了哪里。

# %% [markdown] lang="zh" translates="code"
# en: # float32 elements per buffer
# zh: # 每个缓冲区的 float32 元素个数
# en: """The C name of a return code (AclError knows every code of the runtime's headers)."""
# zh: """返回码在 C 中的名字（AclError 认识运行时头文件中的每个错误码）。"""
# en: "set_device before init:"
# zh: "init 之前 set_device："
# en: "set_device(7) on a 2-device machine:"
# zh: "在只有 2 个 Device 的机器上 set_device(7)："
# en: "synchronize a stream that does not exist:"
# zh: "同步一条不存在的 Stream："
# en: # fails on another thread
# zh: # 在另一个线程中失败
# en: "--- and again:"
# zh: "--- 再读一次："
# en: # the default stream cannot be destroyed
# zh: # 默认 Stream 不能销毁
# en: "caught:"
# zh: "捕获到："
# en: "message:"
# zh: "错误信息："
# en: # an index past the end of x is a device fault
# zh: # 越过 x 末尾的下标是一次 Device 故障
# en: # far past the end
# zh: # 远远越过末尾
# en: "launch:", gather[8, s](x, idx, y, N), "(queued, nothing has run yet)"
# zh: "下发：", gather[8, s](x, idx, y, N), "（已入队，还什么都没运行）"
# en: "synchronize again:", acl.rt.synchronize_stream(s), "(an error is reported once)"
# zh: "再同步一次：", acl.rt.synchronize_stream(s), "（一个错误只报告一次）"
# en: "synchronize:"
# zh: "同步："
# en: "kernel after a kernel_trap"
# zh: "kernel_trap 之后的核函数"
# en: "async copy after a dma_error"
# zh: "dma_error 之后的异步拷贝"
# en: "blocking copy after a dma_error"
# zh: "dma_error 之后的阻塞拷贝"
# en: "peer copy 0 -> 1, link down"
# zh: "Device 间拷贝 0 -> 1，链路断开"
# en: "kernel on device 0, link still down"
# zh: "Device 0 上的核函数，链路仍断开"
# en: "peer copy 0 -> 1, link up again"
# zh: "Device 间拷贝 0 -> 1，链路恢复"
# en: {what:<38}
# zh: {what:<24}
# en: # the second kernel traps
# zh: # 第二个核函数触发 trap
# en: "synchronize each stream:"
# zh: "逐条同步 Stream："
# en: "batch results (first element, 2.0 if it ran):"
# zh: "各批次结果（第一个元素，执行过则为 2.0）："
# en: "a new copy:"
# zh: "一次新的拷贝："
# en: # what the batches need again
# zh: # 重做各批次还要用到的输入
# en: # everything allocated anew
# zh: # 一切都重新申请
# en: # redo the batches that failed or were discarded
# zh: # 重做失败或被丢弃的批次
# en: "batch results now:"
# zh: "现在的各批次结果："
# en: "items:"
# zh: "条目数："
# en: """Batch b: copy x[b] in from hin, scale it into dy, copy it out to hout."""
# zh: """批次 b：从 hin 拷入 x[b]，缩放到 dy，再拷出到 hout。"""
# en: """Runs the batches and never looks at the code of its synchronize."""
# zh: """运行各批次，却从不看同步返回的错误码。"""
# en: """Return 2 * x (float32, shape (BATCHES, N)), recovering from the device fault on the way."""
# zh: """返回 2 * x（float32，形状 (BATCHES, N)），途中从 Device 故障中恢复。"""
# en: # TODO: allocate, upload, run the batches on stream, synchronise and check the code. On an
# zh: # TODO：申请、上传，在 stream 上运行各批次，同步并检查错误码。出错时：
# en: # error: free everything, destroy the stream, reset device 0, set it again, create a stream,
# zh: # 释放一切，销毁 Stream，复位 Device 0，重新设置它，创建 Stream，
# en: # allocate and upload again, redo the batches, synchronise. Keep the results, release
# zh: # 重新申请和上传，重做各批次，同步。保存结果，释放
# en: # everything, acl.finalize(), return.
# zh: # 一切，acl.finalize()，返回。
# en: # Hint: a helper that allocates and uploads, used before and after the reset, keeps it short.
# zh: # 提示：写一个负责申请和上传的辅助函数，复位前后各用一次，代码就短了。
# en: # which batches arrived matters not: redo all
# zh: # 哪些批次回来了无关紧要：全部重做
# en: "after recovery:"
# zh: "恢复之后："

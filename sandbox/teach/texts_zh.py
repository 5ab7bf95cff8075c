"""The grader's texts in Simplified Chinese (``sandbox.set_language("zh")``), read by
``sandbox.i18n.translate``.

``TEXTS`` maps an English text, whole, to its Chinese; ``PATTERNS`` are ``(regex, template)``
pairs for texts with figures in them: the regex matches the whole English text, and each of
its groups, translated in turn, fills a ``{}`` of the template.  A text the catalogue does not
know is shown in English.  Runtime terms follow the official Chinese documentation (流 stream,
事件 event, 上下文 context, 内存池 memory pool, 设备 device, 同步 synchronize, 异步
asynchronous, 回调 callback, 核函数 kernel); C names of calls and codes stay as they are.
"""
from __future__ import annotations

# -- the frame of a verdict ----------------------------------------------------------------------
FRAME = {
    "hint": "提示",
    "The other criteria are judged once the solution runs to its end.": "其余各项要等解答运行到结束后才评判。",
}

# -- exercise titles -------------------------------------------------------------------------------
TITLES = {
    "make it correct": "让它正确",
    "the five steps, waiting once": "五个步骤，只等待一次",
    "let the host work meanwhile": "让 Host 同时工作",
    "pipeline it": "流水线化",
    "run independent work side by side": "并行运行相互独立的任务",
    "order with an event, not the host": "用事件而不是 Host 来排序",
    "time a kernel without blocking": "不阻塞地为核函数计时",
    "fit the budget": "放进内存预算",
    "copy while computing": "边计算边拷贝",
    "four steps in two buffers' worth of memory": "用两块缓冲区的内存完成四步",
    "one device after another": "一个设备接着一个设备",
    "broadcast": "广播",
    "exchange in the time of one copy": "在一次拷贝的时间内完成交换",
    "one thread, four devices": "一个线程，四个设备",
    "one thread per device": "每个设备一个线程",
    "two processes share device 0": "两个进程共享设备 0",
    "post-process each batch in a host function": "在 Host 函数中后处理每个批次",
    "post-process each batch in a callback": "在回调中后处理每个批次",
    "replay the step": "重放这一步",
    "copies in the graph": "图中的拷贝",
    "two streams in one graph": "一个图中的两条流",
    "make the racy pipeline correct": "修正有数据竞争的流水线",
    "survive a device fault": "从设备故障中恢复",
    "pinned, asynchronous, waiting once": "锁页内存、异步、只等待一次",
    "double buffering on one device": "单设备上的双缓冲",
    "the capstone: an 8x speed-up": "综合练习：8 倍加速",
}

# -- what a criterion measures ---------------------------------------------------------------------
WHAT = {
    "what came back": "返回了什么",
    "the solution ran": "解答运行",
    "the kernels": "核函数",
    "the kernel": "核函数",
    "the answer came from the device": "答案来自设备",
    "the result came from the device": "结果来自设备",
    "time to the result": "得到结果的时间",
    "the fault reported": "故障已上报",
    "asynchronous copies": "异步拷贝",
    "what each device holds": "每个设备上的数据",
    "two streams": "两条流",
    "time of the peer copies": "设备间拷贝的时间",
    "the host waited for the work": "Host 等待了任务完成",
    "the elapsed time": "耗时",
    "streams": "流",
    "speed-up over the baseline": "相对基线的加速比",
    "runtime errors": "运行时错误",
    "recovered by a reset": "通过复位恢复",
    "peak device memory": "设备内存峰值",
    "order across devices": "跨设备的顺序",
    "kernels of the two streams at once": "两条流的核函数同时运行",
    "events around the kernel": "核函数前后的事件",
    "event between the streams": "流之间的事件",
    "distinct buffers": "互不相同的缓冲区",
    "copied device to device": "设备到设备的拷贝",
    "threads joined": "线程已 join",
    "the threads ran": "线程运行",
    "the squares": "平方值",
    "the kernel set unchanged": "核函数集合不变",
    "the host's own work": "Host 自己的工作",
    "the host waited": "Host 等待了",
    "the host knew device 0 was done": "Host 知道设备 0 已完成",
    "the host did not wait for long_op": "Host 没有等待 long_op",
    "the grader's machine": "评分器的机器",
    "the answer": "答案",
    "synchronize only at the end": "只在最后同步",
    "synchronize calls": "同步调用",
    "subscriptions undone": "订阅已取消",
    "streams and events": "流和事件",
    "runtime errors besides report timeouts": "上报超时以外的运行时错误",
    "replays": "重放",
    "released before the reset": "复位前已释放",
    "read after the copy back": "拷回之后才读取",
    "post-processing in callbacks": "在回调中后处理",
    "pinned host memory": "锁页 Host 内存",
    "peer access": "设备间访问（peer access）",
    "ordered by events": "由事件排序",
    "order on the device": "设备上的顺序",
    "one thread per device": "每个设备一个线程",
    "one process per chunk": "每块数据一个进程",
    "one graph on two streams": "两条流上的一个图",
    "no wait between the launches": "两次下发之间没有等待",
    "no other failed call": "没有其他失败的调用",
    "leaks": "资源泄漏",
    "kernels running at once": "同时运行的核函数",
    "kernel launchers": "下发核函数的线程",
    "host work while waiting": "等待期间的 Host 工作",
    "host work beside device work": "与设备任务并行的 Host 工作",
    "host calls": "Host 调用",
    "host API calls": "Host API 调用",
    "hazards": "数据竞争（hazard）",
    "exercise": "练习",
    "error reported": "已上报错误",
    "end-to-end time": "端到端时间",
    "each chunk came from its device": "每块数据来自它的设备",
    "devices used": "使用的设备",
    "devices busy together": "设备同时忙碌",
    "device shared at once": "同时共享设备",
    "copy and compute overlap": "拷贝与计算重叠",
    "copies in the graph": "图中的拷贝",
    "copied from pinned memory": "从锁页内存拷贝",
    "buffers allocated": "已分配的缓冲区",
    "the vector sum": "向量和",
}

# -- details and hints ------------------------------------------------------------------------------
DETAILS = {
    "it raised NotImplementedError: there is no solution yet": "抛出了 NotImplementedError：还没有解答",
    "replace the lines '# YOUR CODE HERE' and 'raise NotImplementedError()' with your code":
        "把 '# YOUR CODE HERE' 和 'raise NotImplementedError()' 这两行换成你的代码",
    "none": "无",
    "is it waiting for something that never happens (a threading.Event, a queue, a join of a thread that waits for "
    "you)?": "它是否在等待一件永远不会发生的事（threading.Event、队列，或 join 一个正在等你的线程）？",
    "fix the line named; every runtime call returns a code you can check, and acl.get_recent_err_msg() says why a "
    "call failed": "修正所指出的那一行；每个运行时调用都返回可以检查的错误码，acl.get_recent_err_msg() 说明调用失败的原因",
    "the solution called sandbox.configure()": "解答调用了 sandbox.configure()",
    "leave the machine to the grader: it builds a fresh one for every check":
        "把机器交给评分器：每次评判它都会新建一台",
    "join every thread you start before the function returns": "函数返回前 join 你启动的每个线程",
    "read acl.get_recent_err_msg() after the failing call": "在失败的调用之后读取 acl.get_recent_err_msg()",
    "synchronise before reading a host buffer that an async copy fills":
        "读取由异步拷贝填充的 Host 缓冲区之前先同步",
    "every copy went on the stream": "每次拷贝都下发到了流上",
    "every host-device copy went on a stream": "每次 Host 与设备之间的拷贝都下发到了流上",
    "use acl.rt.memcpy_async(..., stream) for the copies in and out":
        "拷入和拷出都使用 acl.rt.memcpy_async(..., stream)",
    "copy a and b in, launch add on all N elements, copy c back, and synchronise before reading it":
        "拷入 a 和 b，对全部 N 个元素下发 add，拷回 c，读取之前先同步",
    "the host must learn that the copy back has finished before it reads host_c: synchronise the stream":
        "Host 读取 host_c 之前必须知道拷回已经完成：同步这条流",
    "queue the copies, the launch and the copy back, then wait once: blocking copies (aclrtMemcpy) and extra "
    "synchronizes each stop the host": "先把拷贝、下发和拷回都放入队列，然后只等待一次：阻塞拷贝（aclrtMemcpy）"
                                      "和多余的同步都会让 Host 停下来",
    "free buffers as soon as their last task is queued, or reuse them":
        "缓冲区的最后一个任务一入队就释放它，或者复用它",
    "overlap copies with compute, and synchronise once at the end": "让拷贝与计算重叠，最后只同步一次",
    "queue all the work first, then synchronise once: every synchronize stops the host until the device catches up":
        "先把所有任务放入队列，再同步一次：每次同步都会让 Host 停下，直到设备赶上",
    "each runtime call costs host time: avoid calls the program does not need":
        "每个运行时调用都花费 Host 时间：避免程序不需要的调用",
    "allocate each buffer with acl.rt.malloc and keep it until the check":
        "用 acl.rt.malloc 分配每个缓冲区，并保留到检查时",
    "queue work on every device before waiting for any of them": "在等待任何一个设备之前，先在每个设备上放入任务",
    "give each device its own host thread, and call set_device in that thread":
        "给每个设备一个自己的 Host 线程，并在该线程中调用 set_device",
    "read each report in sandbox.hazards(): it names the two tasks and the event or synchronize that would order "
    "them": "阅读 sandbox.hazards() 中的每条报告：它指出两个任务，以及能为它们排序的事件或同步",
    "aclFinalize was never called, so nothing was checked": "从未调用 aclFinalize，因此没有检查任何东西",
    "release everything you create, in reverse order: aclrtFree, aclrtFreeHost, aclrtDestroyEvent, "
    "aclrtDestroyStream, aclrtResetDevice, then aclFinalize":
        "按创建的逆序释放你创建的一切：aclrtFree、aclrtFreeHost、aclrtDestroyEvent、aclrtDestroyStream、"
        "aclrtResetDevice，最后 aclFinalize",
    "no other call failed": "没有其他调用失败",
    "this exercise is about a failing call": "本练习讲的就是一个失败的调用",
}

TEXTS = {**FRAME, **TITLES, **WHAT, **DETAILS}

PATTERNS = [
    # the headline of a verdict
    (r"passed, all (\d+) criteria met", "通过：全部 {} 项均满足"),
    (r"not yet: (\d+) of (\d+) criteri(?:on|a) not met", "尚未通过：{1} 项中有 {0} 项未满足"),
    # the solution ran
    (r"it returned an array of shape (.+) (\w+)", "返回了形状为 {} 的 {} 数组"),
    (r"it returned (None|a \w+)", "返回了 {}"),
    (r"it did not return within (\d+) s of real time", "在 {} 秒的真实时间内没有返回"),
    (r"it raised (\w+): (.*)", "抛出了 {}：{}"),
    (r"still running when the solution returned: (.*)", "解答返回时仍在运行：{}"),
    (r"judged below: (.*)", "见下文评判：{}"),
    # generic detail shapes
    (r"all (\d+) values match", "全部 {} 个值一致"),
    (r"(\d+) of (\d+) values differ, first at \[(\d+)\]: (.*), want (.*)", "{1} 个值中有 {0} 个不同，第一个在 [{2}]：{3}，应为 {4}"),
    (r"shape (.*), want (.*)", "形状 {}，应为 {}"),
    (r"(\d+), first: (\S+) returned (\S+) \((\d+)\)", "{} 个，第一个：{} 返回 {}（{}）"),
    (r"(.*), want at most (.*)", "{}，应至多 {}"),
    (r"(.*), want at least (.*)", "{}，应至少 {}"),
    (r"(.*), want exactly (.*)", "{}，应恰好 {}"),
    (r"bytes moved (H2D|D2H|D2D|peer)", "{} 方向传输的字节"),
    (r"(.+) calls", "{} 调用"),
]
